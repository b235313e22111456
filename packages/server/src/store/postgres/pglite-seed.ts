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
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sha256Hex } from '../../kernel/digest.js';
import { MIGRATIONS } from './migrations/list.js';
import { extractGzipTar } from './tar-extract.js';
import { moduleLocation, resolvePgliteEntry } from './pglite-artifacts.js';

/** The installed PGlite's version and package directory, or `null` when its package.json cannot be found. */
function installedPglite(): { readonly version: string; readonly directory: string } | null {
  let entry: string;
  try {
    // its `exports` has no `./package.json`: resolve its entry and walk up to the manifest
    entry = resolvePgliteEntry();
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
 * What a seed holds: only what `initdb` makes, or that migrated to this code's schema too.
 *
 * @example
 * ```ts
 * const kind: PgliteSeedKind = 'migrated';
 * ```
 */
export type PgliteSeedKind = 'initialized' | 'migrated';

/**
 * A short digest of every migration's version, name and SQL: a migrated seed is used only by code whose migrations
 * are exactly those it was migrated with.
 *
 * @returns 12 hexadecimal digits.
 * @example
 * ```ts
 * schemaDigest(); // e.g. '3f9a0c12b7de'
 * ```
 */
export function schemaDigest(): string {
  return sha256Hex(MIGRATIONS.map((m) => `${m.version}\0${m.name}\0${m.sql}\0`).join('')).slice(0, 12);
}

/**
 * The seed's file name for a PGlite version.
 *
 * @param version - PGlite's version.
 * @param kind - What the seed holds.
 * @returns `pglite-seed-<version>.tar.gz`, or `pglite-seed-<version>-schema-<digest>.tar.gz` migrated.
 * @example
 * ```ts
 * pgliteSeedName('0.5.16', 'initialized'); // 'pglite-seed-0.5.16.tar.gz'
 * ```
 */
export function pgliteSeedName(version: string, kind: PgliteSeedKind): string {
  return kind === 'initialized' ? `pglite-seed-${version}.tar.gz` : `pglite-seed-${version}-schema-${schemaDigest()}.tar.gz`;
}

/**
 * Where a seed for the installed PGlite may be, in the order they are tried: beside the built server (`dist/`, made
 * by its build), then in `node_modules/.cache/gatehouse/` (made when a checkout installs its dependencies).
 *
 * @param kind - What the seed holds.
 * @returns The candidate paths; empty when PGlite's version cannot be read.
 * @example
 * ```ts
 * pgliteSeedCandidates('initialized'); // ['/…/gatehouse-server/dist/pglite-seed-0.5.16.tar.gz', '/…/node_modules/.cache/gatehouse/pglite-seed-0.5.16.tar.gz']
 * ```
 */
export function pgliteSeedCandidates(kind: PgliteSeedKind): readonly string[] {
  const pglite = installedPglite();
  if (pglite === null) return [];
  const name = pgliteSeedName(pglite.version, kind);
  return [join(dirname(moduleLocation), name), join(seedCacheDirectory(pglite.directory), name)];
}

/** `<node_modules>/.cache/gatehouse`, for PGlite installed in `<node_modules>/@electric-sql/pglite`. */
function seedCacheDirectory(pgliteDirectory: string): string {
  return join(pgliteDirectory, '..', '..', '.cache', 'gatehouse');
}

/**
 * The first seed of a kind found for the installed PGlite (gzipped tar), or `null`.
 *
 * @param kind - What the seed holds.
 * @returns The seed's bytes, or `null` when there is none (the first start runs `initdb`).
 * @example
 * ```ts
 * const seed = await findPgliteSeed('migrated');
 * if (seed !== null) await unpackPgliteSeed(seed, '/srv/.gatehouse/data');
 * ```
 */
export async function findPgliteSeed(kind: PgliteSeedKind): Promise<Uint8Array | null> {
  for (const candidate of pgliteSeedCandidates(kind)) {
    const bytes = await readFile(candidate).catch(() => null);
    if (bytes !== null && bytes.length > 0) return bytes;
  }
  return null;
}

/**
 * Unpacks a seed into an empty data directory, every directory `0700` and file `0600`: first into a sibling
 * directory, then moved in, `PG_VERSION` last, so that the directory holds a database only once all of it is there.
 * PGlite then starts on it as on any existing database, which costs far less time and memory than unpacking through
 * PGlite (`loadDataDir` grows its WebAssembly memory by the whole archive, for good).
 *
 * @param seed - The gzipped archive ({@link findPgliteSeed}).
 * @param dataDir - An existing, empty, private directory.
 * @returns How many files were written; rejects (leaving `dataDir` empty) on a damaged archive.
 * @example
 * ```ts
 * await unpackPgliteSeed(seed, '/srv/.gatehouse/data'); // 972
 * ```
 */
export async function unpackPgliteSeed(seed: Uint8Array, dataDir: string): Promise<number> {
  const staging = `${dataDir}.unpacking-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { mode: 0o700 });
  let files = 0;
  try {
    // decompressed and written chunk by chunk (tar-extract.ts): the archive is never whole in memory
    files = await extractGzipTar(seed, 'the PGlite seed', staging, { dirMode: 0o700, fileMode: 0o600 });
    const names = (await readdir(staging)).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
    for (const name of names) await rename(join(staging, name), join(dataDir, name));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return files;
}

/**
 * Writes a database's data directory, gzipped, to `file` (through a temporary file and a rename, so a reader never
 * sees half a seed), after a checkpoint, so that a start on the unpacked files finds a clean shutdown.
 *
 * @param db - The database, ready (in memory).
 * @param file - Where to write; its directory is created.
 * @returns The number of bytes written.
 * @example
 * ```ts
 * await writePgliteSeed(db, 'dist/' + pgliteSeedName('0.5.16', 'initialized'));
 * ```
 */
export async function writePgliteSeed(db: PGlite, file: string): Promise<number> {
  await db.exec('CHECKPOINT');
  const packed = await db.dumpDataDir('gzip');
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
 * Where the seeds of the installed PGlite go: `directory`, or without one the cache directory beside PGlite.
 *
 * @param directory - A directory, or `null`.
 * @returns The seeds' paths by kind, or `null` when PGlite's version cannot be read.
 * @example
 * ```ts
 * pgliteSeedFiles('dist')?.initialized; // 'dist/pglite-seed-0.5.16.tar.gz'
 * ```
 */
export function pgliteSeedFiles(directory: string | null): { readonly [K in PgliteSeedKind]: string } | null {
  const pglite = installedPglite();
  if (pglite === null) return null;
  const where = directory ?? seedCacheDirectory(pglite.directory);
  return { initialized: join(where, pgliteSeedName(pglite.version, 'initialized')), migrated: join(where, pgliteSeedName(pglite.version, 'migrated')) };
}
