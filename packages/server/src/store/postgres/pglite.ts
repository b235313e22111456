/**
 * The embedded driver: PGlite, PostgreSQL compiled to WebAssembly, in this process. It keeps its files in a data
 * directory (or only in memory); it has one connection, so its transactions run one at a time and a statement
 * outside a transaction waits for the running one.
 *
 * @module
 */
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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

/** Whether a process with this id is running. */
function running(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  // signal 0 tests for existence: EPERM means it exists under another user
  return ((): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
    }
  })();
}

/**
 * Takes `<dataDir>.lock` for this process: PostgreSQL in WebAssembly cannot see another process using the same
 * files, and two writers would corrupt them. A lock left by a process that no longer runs (a crash) is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const lock = `${dataDir}.lock`;
  await mkdir(dirname(lock), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await writeFile(lock, String(process.pid), { flag: 'wx' }).then(
      () => true,
      (error: unknown) => (typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST' ? false : Promise.reject(error)),
    );
    if (taken) return () => unlink(lock).catch(() => undefined);
    const holder = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
    if (running(holder)) return Promise.reject(new Error(`the data directory ${dataDir} is in use by process ${holder} (${lock})`));
    await unlink(lock).catch(() => undefined);
  }
  return Promise.reject(new Error(`could not take ${lock}`));
}

/**
 * Opens the embedded database.
 *
 * @param location - A data directory, or memory.
 * @returns A driver on it; rejects when the directory cannot be opened (another running process holds it, or it
 *   is not a PGlite data directory).
 * @example
 * ```ts
 * const driver = await openPgliteDriver({ memory: true });
 * await driver.query('SELECT 1');
 * ```
 */
export async function openPgliteDriver(location: PgliteLocation): Promise<SqlDriver> {
  let db: PGlite;
  let release: () => Promise<void> = async () => undefined;
  if ('dataDir' in location) {
    release = await lockDataDir(location.dataDir);
    await mkdir(location.dataDir, { recursive: true });
    db = new PGlite(location.dataDir);
  } else {
    db = new PGlite();
  }
  await db.waitReady.catch(async (error: unknown) => {
    await release();
    return Promise.reject(error);
  });
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
      await release();
    },
  };
}
