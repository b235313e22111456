/**
 * Makes the seeds of the embedded database (pglite-seed.ts): `initdb` once in memory, its template databases
 * dropped, written as the initialized seed; then every migration applied, written as the migrated seed. The server's
 * build writes them into `dist/`, a checkout's `prepare` script into `node_modules/.cache/gatehouse/`; a start never
 * runs this.
 *
 * A first start writes every file of the seed, and creating a file is what it costs most (on the machine the
 * benches ran on, about 0.3 ms each, more than its bytes). `initdb` makes three databases of about 300 files each:
 * `template0` and `template1`, which only `CREATE DATABASE` copies, and `postgres`, the one PGlite connects to.
 * gatehouse never creates a database, so the seeds keep `postgres` alone: about 490 files and 17 MB instead of 1,090
 * files and 41 MB (with `initdb`'s 1 MB log segments, PGLITE_INITDB_PARAMETERS), and a first start writes less
 * than half the files it did.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { applyMigrations } from './migrate.js';
import { newPgliteInMemory, pgliteDriverOf } from './pglite.js';
import { pgliteSeedFiles, writePgliteSeed } from './pglite-seed.js';

/**
 * The statements that drop `initdb`'s template databases (a template cannot be dropped until it is marked as none).
 *
 * @example
 * ```ts
 * for (const statement of DROP_TEMPLATE_DATABASES) await db.exec(statement);
 * ```
 */
export const DROP_TEMPLATE_DATABASES: readonly string[] = Object.freeze([
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
]);

/** Whether a non-empty file is at `file`. */
async function present(file: string): Promise<boolean> {
  return readFile(file).then(
    (bytes) => bytes.length > 0,
    () => false,
  );
}

/**
 * Writes the initialized and the migrated seed for the installed PGlite into `directory` (default: the cache
 * directory beside PGlite), each unless it is there already.
 *
 * @param directory - Where to write, or `null` for `node_modules/.cache/gatehouse/`.
 * @returns The two paths, or `null` when PGlite's version cannot be read.
 * @example
 * ```ts
 * await ensurePgliteSeeds('dist'); // { initialized: 'dist/pglite-seed-0.5.16.tar.gz', migrated: 'dist/pglite-seed-0.5.16-schema-….tar.gz' }
 * ```
 */
export async function ensurePgliteSeeds(directory: string | null): Promise<{ readonly initialized: string; readonly migrated: string } | null> {
  const files = pgliteSeedFiles(directory);
  if (files === null) return null;
  if ((await present(files.initialized)) && (await present(files.migrated))) return files;
  const db = await newPgliteInMemory(null);
  try {
    // one statement at a time: DROP DATABASE runs outside a transaction block
    for (const statement of DROP_TEMPLATE_DATABASES) await db.exec(statement);
    if (!(await present(files.initialized))) await writePgliteSeed(db, files.initialized);
    const migrated = await applyMigrations(pgliteDriverOf(db));
    if (migrated.isErr()) return Promise.reject(new Error(`the migrations failed: ${migrated.error.code}`));
    await writePgliteSeed(db, files.migrated);
  } finally {
    await db.close();
  }
  return files;
}
