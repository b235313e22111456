/**
 * The seam between the PostgreSQL store and a database driver: a statement runner and a transaction on one
 * connection. Two drivers implement it, PGlite (PostgreSQL compiled to WebAssembly, embedded) and node-postgres
 * (a pool on a PostgreSQL server); the store sends both the same SQL.
 *
 * @module
 */

/** A result row: column name to the value the driver parsed. */
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * Runs statements on one connection (or a pool, outside a transaction).
 *
 * @example
 * ```ts
 * const rows = await client.query<{ n: number }>('SELECT $1::int AS n', [1]); // [{ n: 1 }]
 * ```
 */
export interface SqlClient {
  /** Runs one statement with `$1`… parameters and resolves its rows. */
  query<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<readonly R[]>;
  /** Runs a script of several statements without parameters (a migration). */
  exec(script: string): Promise<void>;
}

/** The isolation level a transaction starts with. */
export type IsolationLevel = 'read committed' | 'serializable';

/**
 * What a transaction's work resolves: its value, and whether to keep its changes (`commit: false` rolls back
 * and still resolves the value).
 *
 * @example
 * ```ts
 * const outcome: TransactionOutcome<number> = { commit: true, value: 1 };
 * ```
 */
export interface TransactionOutcome<T> {
  /** Whether the changes are kept. */
  readonly commit: boolean;
  /** What the transaction resolves. */
  readonly value: T;
}

/**
 * A database: statements outside a transaction, transactions on one connection, and closing.
 *
 * @example
 * ```ts
 * const n = await driver.transaction('serializable', async (tx) => ({ commit: true, value: (await tx.query('SELECT 1 AS n')).length }));
 * ```
 */
export interface SqlDriver extends SqlClient {
  /** Which driver: the embedded PGlite or node-postgres on a server. */
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `work` in one transaction at `isolation` on one connection: commits when it resolves `commit: true`,
   * rolls back when it resolves `commit: false` or rejects (and then rejects with its reason).
   */
  transaction<T>(isolation: IsolationLevel, work: (client: SqlClient) => Promise<TransactionOutcome<T>>): Promise<T>;
  /** Releases the connections (or the embedded database's files). */
  close(): Promise<void>;
}

/**
 * The SQLSTATE of a database error (`40001` serialization failure, `23505` unique violation, …), or `null`.
 *
 * @param error - What a driver rejected with.
 * @returns The five-character code, or `null` for anything else.
 * @example
 * ```ts
 * sqlState(Object.assign(new Error('x'), { code: '40001' })); // '40001'
 * ```
 */
export function sqlState(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  const code: unknown = error.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/u.test(code) ? code : null;
}

/**
 * The constraint a database error names (node-postgres and PGlite both report `constraint`), or `null`.
 *
 * @param error - What a driver rejected with.
 * @returns The constraint or index name.
 * @example
 * ```ts
 * constraintName(Object.assign(new Error('x'), { code: '23505', constraint: 'accounts_username_key' })); // 'accounts_username_key'
 * ```
 */
export function constraintName(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || !('constraint' in error)) return null;
  const name: unknown = error.constraint;
  return typeof name === 'string' ? name : null;
}

/**
 * Whether a transaction that failed with `error` may simply be run again: a serialization failure (`40001`) or a
 * deadlock (`40P01`), which PostgreSQL reports to one of the transactions that conflicted.
 *
 * @param error - What a driver rejected with.
 * @returns `true` for a retryable conflict.
 * @example
 * ```ts
 * isRetryableConflict(Object.assign(new Error('x'), { code: '40001' })); // true
 * ```
 */
export function isRetryableConflict(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40001' || state === '40P01';
}
