/**
 * Makes the seeds of the embedded database (pglite-seed.ts): `initdb` once in memory, written as the initialized
 * seed; then every migration applied, written as the migrated seed. The server's build writes them into `dist/`, a
 * checkout's `prepare` script into `node_modules/.cache/gatehouse/`; a start never runs this.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { applyMigrations } from './migrate.js';
import { newPgliteInMemory, pgliteDriverOf } from './pglite.js';
import { pgliteSeedFiles, writePgliteSeed } from './pglite-seed.js';

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
    if (!(await present(files.initialized))) await writePgliteSeed(db, files.initialized);
    const migrated = await applyMigrations(pgliteDriverOf(db));
    if (migrated.isErr()) return Promise.reject(new Error(`the migrations failed: ${migrated.error.code}`));
    await writePgliteSeed(db, files.migrated);
  } finally {
    await db.close();
  }
  return files;
}
