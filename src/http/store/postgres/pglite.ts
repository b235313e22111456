/**
 * The embedded driver: PGlite, PostgreSQL compiled to WebAssembly, in this process. It keeps its files in a data
 * directory (or only in memory); it has one connection, so its transactions run one at a time and a statement
 * outside a transaction waits for the running one.
 *
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import type { IsolationLevel, SqlClient, SqlDriver, SqlRow, TransactionOutcome } from './driver.js';

/**
 * Where the embedded database keeps its files.
 *
 * @example
 * ```ts
 * const where: PgliteLocation = { dataDir: '.gatehouse/data' };
 * ```
 */
export type PgliteLocation =
  /** A directory (created when missing); the data survives a restart. */
  | { readonly dataDir: string }
  /** Memory only: everything is lost when the process exits (tests). */
  | { readonly memory: true };

function clientOf(target: PGlite | Transaction): SqlClient {
  return {
    async query<R extends SqlRow = SqlRow>(text: string, params: readonly unknown[] = []): Promise<readonly R[]> {
      const result = await target.query<R>(text, [...params]);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
    },
  };
}

/**
 * Opens the embedded database.
 *
 * @param location - A data directory, or memory.
 * @returns A driver on it; rejects when the directory cannot be opened (for example, it is not a PGlite data directory).
 * @example
 * ```ts
 * const driver = await openPgliteDriver({ memory: true });
 * await driver.query('SELECT 1');
 * ```
 */
export async function openPgliteDriver(location: PgliteLocation): Promise<SqlDriver> {
  let db: PGlite;
  if ('dataDir' in location) {
    await mkdir(location.dataDir, { recursive: true });
    db = new PGlite(location.dataDir);
  } else {
    db = new PGlite();
  }
  await db.waitReady;
  const root = clientOf(db);
  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    async transaction<T>(isolation: IsolationLevel, work: (client: SqlClient) => Promise<TransactionOutcome<T>>): Promise<T> {
      return db.transaction(async (tx) => {
        await tx.query(`SET TRANSACTION ISOLATION LEVEL ${isolation === 'serializable' ? 'SERIALIZABLE' : 'READ COMMITTED'}`);
        // PGlite rolls back and rethrows when `work` rejects, and commits when it resolves with the transaction open
        const outcome = await work(clientOf(tx));
        if (!outcome.commit) await tx.rollback();
        return outcome.value;
      });
    },
    async close(): Promise<void> {
      if (!db.closed) await db.close();
    },
  };
}
