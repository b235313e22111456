/**
 * A pre-initialized PGlite data directory: the files `initdb` makes, packed once (at build time, or when a checkout
 * installs its dependencies) and unpacked into an empty data directory at its first start. Running `initdb` in
 * WebAssembly costs a first start about 4 seconds and 500 MB of memory it keeps; unpacking the same files costs a
 * fraction of a second.
 *
 * A seed belongs to one PGlite version (the files are PostgreSQL's on-disk format), so its file name carries the
 * version, and a seed of another version is never used: the first start then runs `initdb` as before.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

// In the CommonJS build `import.meta.url` is empty; `__filename` is defined there instead.
const moduleLocation: string =
  typeof import.meta.url === 'string' && import.meta.url !== ''
    ? fileURLToPath(import.meta.url)
    : typeof __filename === 'string'
      ? __filename
      : join(process.cwd(), 'index.js');

/** The installed PGlite's version and package directory, or `null` when its package.json cannot be found. */
function installedPglite(): { readonly version: string; readonly directory: string } | null {
  let entry: string;
  try {
    // its `exports` has no `./package.json`: resolve its entry and walk up to the manifest
    entry = createRequire(moduleLocation).resolve('@electric-sql/pglite');
  } catch {
    return null;
  }
  for (let directory = dirname(entry); directory !== dirname(directory); directory = dirname(directory)) {
    const manifest = readManifest(join(directory, 'package.json'));
    if (manifest?.name === '@electric-sql/pglite' && typeof manifest.version === 'string') return { version: manifest.version, directory };
  }
  return null;
}

/** A package.json's `name` and `version`, or `null` when there is none to read. */
function readManifest(file: string): { readonly name?: unknown; readonly version?: unknown } | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * The seed's file name for a PGlite version.
 *
 * @param version - PGlite's version.
 * @returns `pglite-seed-<version>.tar.gz`.
 * @example
 * ```ts
 * pgliteSeedName('0.5.16'); // 'pglite-seed-0.5.16.tar.gz'
 * ```
 */
export function pgliteSeedName(version: string): string {
  return `pglite-seed-${version}.tar.gz`;
}

/**
 * Where a seed for the installed PGlite may be, in the order they are tried: beside the built server (`dist/`, made
 * by its build), then in `node_modules/.cache/gatehouse/` (made when a checkout installs its dependencies).
 *
 * @returns The candidate paths; empty when PGlite's version cannot be read.
 * @example
 * ```ts
 * pgliteSeedCandidates(); // ['/…/gatehouse-server/dist/pglite-seed-0.5.16.tar.gz', '/…/node_modules/.cache/gatehouse/pglite-seed-0.5.16.tar.gz']
 * ```
 */
export function pgliteSeedCandidates(): readonly string[] {
  const pglite = installedPglite();
  if (pglite === null) return [];
  const name = pgliteSeedName(pglite.version);
  // <node_modules>/@electric-sql/pglite → <node_modules>/.cache/gatehouse
  return [join(dirname(moduleLocation), name), join(pglite.directory, '..', '..', '.cache', 'gatehouse', name)];
}

/**
 * The first seed found for the installed PGlite, as PGlite's `loadDataDir` takes it, or `null`.
 *
 * @returns The seed, or `null` when there is none (the first start runs `initdb`).
 * @example
 * ```ts
 * const seed = await findPgliteSeed();
 * const db = new PGlite({ dataDir: '/srv/.gatehouse/data', ...(seed === null ? {} : { loadDataDir: seed }) });
 * ```
 */
export async function findPgliteSeed(): Promise<Blob | null> {
  for (const candidate of pgliteSeedCandidates()) {
    const bytes = await readFile(candidate).catch(() => null);
    if (bytes !== null && bytes.length > 0) return new Blob([bytes]);
  }
  return null;
}

/**
 * Runs `initdb` in memory and writes its data directory, gzipped, to `file` (through a temporary file and a rename,
 * so a reader never sees half a seed).
 *
 * @param file - Where to write; its directory is created.
 * @returns The number of bytes written.
 * @example
 * ```ts
 * await writePgliteSeed('dist/' + pgliteSeedName('0.5.16'));
 * ```
 */
export async function writePgliteSeed(file: string): Promise<number> {
  const db = new PGlite();
  await db.waitReady;
  const packed = await db.dumpDataDir('gzip');
  await db.close();
  const bytes = new Uint8Array(await packed.arrayBuffer());
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, file);
  } finally {
    await rm(partial, { force: true });
  }
  return bytes.length;
}

/**
 * Writes the seed for the installed PGlite into `directory` (default: `node_modules/.cache/gatehouse/`) unless one is
 * there already; the build and a checkout's `prepare` script call it.
 *
 * @param directory - Where to write, or `null` for the cache directory beside PGlite.
 * @returns The seed's path, or `null` when PGlite's version cannot be read.
 * @example
 * ```ts
 * await ensurePgliteSeed('dist'); // 'dist/pglite-seed-0.5.16.tar.gz'
 * ```
 */
export async function ensurePgliteSeed(directory: string | null): Promise<string | null> {
  const pglite = installedPglite();
  if (pglite === null) return null;
  const file =
    directory === null
      ? join(pglite.directory, '..', '..', '.cache', 'gatehouse', pgliteSeedName(pglite.version))
      : join(directory, pgliteSeedName(pglite.version));
  const present = await readFile(file).then(
    (bytes) => bytes.length > 0,
    () => false,
  );
  if (!present) await writePgliteSeed(file);
  return file;
}
