/**
 * How the store's operations run their statements: on the driver (each operation its own transaction) or inside
 * a caller's serializable transaction (each operation a savepoint). Either way an operation that resolves `err`
 * leaves nothing behind, and a statement that may hit a unique or foreign key constraint can be attempted
 * without aborting the transaction around it.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { constraintName, isRetryableConflict, sqlState } from './driver.js';
import type { SqlClient, SqlDriver, SqlRow } from './driver.js';

/**
 * A statement refused by a constraint: `unique` (SQLSTATE 23505) or `foreign_key` (23503), with the constraint's name.
 *
 * @example
 * ```ts
 * const v: ConstraintViolation = { kind: 'unique', constraint: 'accounts_username_key' };
 * ```
 */
export interface ConstraintViolation {
  /** Which kind of constraint. */
  readonly kind: 'unique' | 'foreign_key';
  /** The constraint or index name (empty when the driver did not say). */
  readonly constraint: string;
}

/**
 * Statements for one store operation.
 *
 * @example
 * ```ts
 * const created = await sql.atomic(async (tx) => ok(await tx.query('INSERT … RETURNING id')));
 * ```
 */
export interface Sql {
  /** Runs one statement. */
  query<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<readonly R[]>;
  /** Runs one statement; a unique or foreign key violation is an `err`, and the transaction around it goes on. */
  attempt<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<Result<readonly R[], ConstraintViolation>>;
  /** Runs `work` atomically: its changes are kept when it resolves `ok`, undone when `err` or rejected. */
  atomic<T, E>(work: (sql: Sql) => Promise<Result<T, E>>): Promise<Result<T, E>>;
  /**
   * Runs `work` as one serializable transaction, again after a serialization conflict (at most
   * {@link MAX_SERIALIZABLE_ATTEMPTS} times in all); inside a transaction already, as a savepoint of it.
   */
  serializable<T, E>(work: (sql: Sql) => Promise<Result<T, E>>): Promise<Result<T, E>>;
}

/**
 * How many times a serializable transaction runs before its conflict is reported (a rejection).
 *
 * @example
 * ```ts
 * MAX_SERIALIZABLE_ATTEMPTS; // 16
 * ```
 */
export const MAX_SERIALIZABLE_ATTEMPTS = 16;

/** The longest pause between two attempts, in milliseconds. */
const MAX_RETRY_PAUSE_MS = 200;

function violationOf(error: unknown): ConstraintViolation | null {
  const state = sqlState(error);
  if (state !== '23505' && state !== '23503') return null;
  return { kind: state === '23505' ? 'unique' : 'foreign_key', constraint: constraintName(error) ?? '' };
}

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Statements on the driver, outside any transaction: each `atomic` is a read-committed transaction, each
 * `serializable` a serializable one with retries.
 *
 * @param driver - The database.
 * @returns The statement runner.
 * @example
 * ```ts
 * const sql = rootSql(driver);
 * ```
 */
export function rootSql(driver: SqlDriver): Sql {
  const inTransaction = async <T, E>(
    isolation: 'read committed' | 'serializable',
    work: (sql: Sql) => Promise<Result<T, E>>,
  ): Promise<Result<T, E>> => {
    for (let attempt = 1; ; attempt++) {
      const outcome = await driver
        .transaction(isolation, async (client) => {
          const result = await work(nestedSql(client, 0));
          return { commit: result.isOk(), value: result };
        })
        .then(
          (result) => ({ done: true as const, result }),
          (error: unknown) => ({ done: false as const, error }),
        );
      if (outcome.done) return outcome.result;
      if (!isRetryableConflict(outcome.error) || attempt >= MAX_SERIALIZABLE_ATTEMPTS) return Promise.reject(outcome.error);
      // an exponentially growing pause with full jitter (capped): the transactions that collided spread out in time,
      // so under a burst of concurrent ones each gets through in a few attempts instead of colliding again
      await pause(Math.random() * Math.min(MAX_RETRY_PAUSE_MS, 2 ** (attempt + 1)));
    }
  };
  return {
    query: (text, params) => driver.query(text, params),
    async attempt<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<Result<readonly R[], ConstraintViolation>> {
      // outside a transaction a failed statement leaves nothing to undo
      return driver.query<R>(text, params).then(
        (rows) => ok(rows),
        (error: unknown) => {
          const violation = violationOf(error);
          return violation === null ? Promise.reject(error) : err(violation);
        },
      );
    },
    atomic: (work) => inTransaction('read committed', work),
    serializable: (work) => inTransaction('serializable', work),
  };
}

/**
 * Statements inside a transaction: `atomic` and `serializable` are savepoints, so an inner `err` undoes only the
 * inner work.
 *
 * @param client - The transaction's connection.
 * @param depth - How many savepoints are open (names them).
 * @returns The statement runner.
 * @example
 * ```ts
 * const sql = nestedSql(client, 0);
 * ```
 */
export function nestedSql(client: SqlClient, depth: number): Sql {
  const savepoint = async <T, E>(work: (sql: Sql) => Promise<Result<T, E>>): Promise<Result<T, E>> => {
    const name = `gatehouse_${depth}`;
    await client.query(`SAVEPOINT ${name}`);
    const outcome = await work(nestedSql(client, depth + 1)).then(
      (result) => ({ done: true as const, result }),
      (error: unknown) => ({ done: false as const, error }),
    );
    if (outcome.done && outcome.result.isOk()) {
      await client.query(`RELEASE SAVEPOINT ${name}`);
      return outcome.result;
    }
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await client.query(`RELEASE SAVEPOINT ${name}`);
    return outcome.done ? outcome.result : Promise.reject(outcome.error);
  };
  return {
    query: (text, params) => client.query(text, params),
    async attempt<R extends SqlRow = SqlRow>(text: string, params?: readonly unknown[]): Promise<Result<readonly R[], ConstraintViolation>> {
      return savepoint(async (inner) => {
        const rows = await inner.query<R>(text, params).then(
          (found) => ({ found }),
          (error: unknown) => ({ error }),
        );
        if ('found' in rows) return ok(rows.found);
        const violation = violationOf(rows.error);
        return violation === null ? Promise.reject(rows.error) : err(violation);
      });
    },
    atomic: savepoint,
    serializable: savepoint,
  };
}
