/**
 * The embedded driver: PGlite, PostgreSQL compiled to WebAssembly, in this process. It keeps its files in a data
 * directory (or only in memory); it has one connection, so its transactions run one at a time and a statement
 * outside a transaction waits for the running one.
 *
 * @module
 */
import { readdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { Transaction } from '@electric-sql/pglite';
import { prepareDataDirectory, privateNodeFs, restrictPermissions } from './data-directory.js';
import type { PermissionsFixed } from './data-directory.js';
import { lockDataDirectory } from './data-directory-lock.js';
import { findPgliteSeed, unpackPgliteSeed } from './pglite-seed.js';
import { takePgliteArtifacts } from './pglite-artifacts.js';
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

/**
 * PostgreSQL settings of the embedded database, written to its `postgresql.conf` at every start. PGlite's defaults
 * size it as a server (160 MB of shared buffers, which its WebAssembly memory then holds for good); one process
 * serving one site needs far less: the working set of accounts, tokens and sessions is small, and the operating
 * system's cache still holds the files.
 *
 * @example
 * ```ts
 * PGLITE_SETTINGS.includes('shared_buffers = 16MB'); // true
 * ```
 */
export const PGLITE_SETTINGS: readonly string[] = Object.freeze([
  'shared_buffers = 16MB',
  'temp_buffers = 2MB',
  'work_mem = 4MB',
  'maintenance_work_mem = 32MB',
]);

/**
 * What gatehouse gives PostgreSQL's `initdb` when PGlite runs it (for the seeds of pglite-seed-build.ts, and for a
 * database that opens without a seed): write-ahead log segments of 1 MB instead of 16 MB. PostgreSQL sizes its log
 * in whole segments, so a new data directory holds one 16 MB file of mostly zeros by default; at 1 MB the
 * migrated seed unpacks about 9 MB less (its log keeps seven 1 MB segments), and a first start writes that much less
 * before it answers.
 *
 * @example
 * ```ts
 * new PGlite({ initDbStartParams: [...PGLITE_INITDB_PARAMETERS] });
 * ```
 */
export const PGLITE_INITDB_PARAMETERS: readonly string[] = Object.freeze(['--wal-segsize=1']);

/**
 * What every PGlite database of gatehouse opens with, in a data directory or in memory: {@link PGLITE_SETTINGS},
 * {@link PGLITE_INITDB_PARAMETERS} and pg_trgm.
 */
function gatehouseOptions(): { postgresqlconf: string[]; initDbStartParams: string[]; extensions: { pg_trgm: typeof pg_trgm } } {
  return { postgresqlconf: [...PGLITE_SETTINGS], initDbStartParams: [...PGLITE_INITDB_PARAMETERS], extensions: { pg_trgm } };
}

/**
 * Files gatehouse keeps in the data directory beside PGlite's own (`run/mail-key.ts`: the key sealing queued mail):
 * a directory holding only these is still a first start, and PostgreSQL ignores them.
 *
 * @example
 * ```ts
 * BESIDE_DATABASE_FILES.has('mail.key'); // true
 * ```
 */
export const BESIDE_DATABASE_FILES: ReadonlySet<string> = new Set(['mail.key']);

/** Whether `dataDir` has nothing of a database in it (a first start). */
async function isEmptyDirectory(dataDir: string): Promise<boolean> {
  return readdir(dataDir).then(
    (names) => names.every((name) => BESIDE_DATABASE_FILES.has(name)),
    () => false,
  );
}

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
 * Options of {@link openPgliteDriver}.
 *
 * @example
 * ```ts
 * const options: PgliteOptions = { onPermissionsFixed: (fixed) => console.warn(`made ${fixed.dataDir} private`) };
 * ```
 */
export interface PgliteOptions {
  /** Told when a data directory that existed (an earlier version made it) had looser modes and was made private. */
  readonly onPermissionsFixed?: (fixed: PermissionsFixed) => void;
  /**
   * The pre-initialized data directory an empty one is filled from (pglite-seed.ts): by default the one found beside
   * the build or in `node_modules/.cache/gatehouse/` (for a data directory, the one migrated to this code's schema
   * first; in memory, only an initialized one, so that memory databases start unmigrated as tests expect); `null`
   * runs `initdb` instead.
   */
  readonly seed?: Uint8Array | null;
}

/**
 * Opens the embedded database. A data directory is locked for this process (data-directory-lock.ts) and kept
 * private, `0700` with files `0600` (data-directory.ts).
 *
 * @param location - A data directory, or memory.
 * @param options - Who is told about modes made private.
 * @returns A driver on it; rejects when the directory cannot be opened (another running process holds it, other
 *   users can write it, or it is not a PGlite data directory).
 * @example
 * ```ts
 * const driver = await openPgliteDriver({ memory: true });
 * await driver.query('SELECT 1');
 * ```
 */
export async function openPgliteDriver(location: PgliteLocation, options: PgliteOptions = {}): Promise<SqlDriver> {
  let db: PGlite;
  let release: () => Promise<void> = async () => undefined;
  const failed = async (error: unknown): Promise<never> => {
    await release();
    return Promise.reject(error);
  };
  if ('dataDir' in location) {
    const { dataDir } = location;
    release = await lockDataDirectory(dataDir);
    const fixed = await prepareDataDirectory(dataDir).catch(failed);
    if (fixed !== null) options.onPermissionsFixed?.(fixed);
    // an empty directory is filled from a seed when there is one (migrated to this code's schema, else only
    // initialized), else PGlite runs `initdb`
    if (await isEmptyDirectory(dataDir)) {
      const seed = options.seed === undefined ? ((await findPgliteSeed('migrated')) ?? (await findPgliteSeed('initialized'))) : options.seed;
      if (seed !== null) await unpackPgliteSeed(seed, dataDir).catch(failed);
    }
    const fs = privateNodeFs(dataDir);
    // PGlite's own files, when `gatehouse serve` read and compiled them while it loaded (pglite-artifacts.ts)
    const artifacts = await takePgliteArtifacts();
    db = new PGlite({ fs, ...gatehouseOptions(), ...(artifacts ?? {}) });
    await db.waitReady.catch(failed);
    // the file system gave every new file a private mode; should it not have, a walk does
    if (!fs.modesRestricted) {
      await restrictPermissions(dataDir).catch(async (error: unknown) => {
        await db.close().catch(() => undefined);
        return failed(error);
      });
    }
  } else {
    db = await newPgliteInMemory(options.seed === undefined ? await findPgliteSeed('initialized') : options.seed);
  }
  return pgliteDriverOf(db, release);
}

/**
 * The driver on an open PGlite database.
 *
 * @param db - The database, ready.
 * @param release - Run after it is closed (the data directory's lock).
 * @returns The driver.
 * @example
 * ```ts
 * const db = new PGlite();
 * await db.waitReady;
 * const driver = pgliteDriverOf(db);
 * ```
 */
export function pgliteDriverOf(db: PGlite, release: () => Promise<void> = async () => undefined): SqlDriver {
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

/**
 * A new PGlite database in memory with gatehouse's settings and extensions, filled from `seed` when given.
 *
 * @param seed - A pre-initialized data directory (pglite-seed.ts), or `null` to run `initdb`.
 * @returns The database, ready.
 * @example
 * ```ts
 * const db = await newPgliteInMemory(null);
 * ```
 */
export async function newPgliteInMemory(seed: Uint8Array | null): Promise<PGlite> {
  const db = new PGlite({ ...gatehouseOptions(), ...(seed === null ? {} : { loadDataDir: new Blob([new Uint8Array(seed)]) }) });
  await db.waitReady;
  return db;
}
