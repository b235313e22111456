/**
 * Opens gatehouse's store where the administrator said: a PostgreSQL server when a database URL is given
 * (`--database-url`, `DATABASE_URL`), else the embedded PGlite database in a data directory (`--data-dir`,
 * `GATEHOUSE_DATA_DIR`, default `.gatehouse/data` under the working directory), and brings its schema up to date.
 *
 * @module
 */
import { resolve } from 'node:path';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { applyMigrations, migrationErrorMessage } from './postgres/migrate.js';
import type { MigrationError, MigrationReport } from './postgres/migrate.js';
import type { SqlDriver } from './postgres/driver.js';
import { openNodePostgresDriver } from './postgres/node-postgres.js';
import { openNodePostgresChangeFeed } from './postgres/change-feed.js';
import type { PermissionsFixed } from './postgres/data-directory.js';
import { openPgliteDriver } from './postgres/pglite.js';
import { createPostgresStore } from './postgres/store.js';
import type { Store } from './types.js';

/**
 * Where the store is: exactly one of a database URL, a data directory, or memory.
 *
 * @example
 * ```ts
 * const location: StoreLocation = { dataDir: '/var/lib/gatehouse' };
 * ```
 */
export type StoreLocation =
  /** A PostgreSQL server (`postgres://…`), through node-postgres. */
  | { readonly databaseUrl: string }
  /** The embedded database in this directory. */
  | { readonly dataDir: string }
  /** The embedded database in memory: lost on exit (tests). */
  | { readonly memory: true };

/**
 * The default data directory, relative to the working directory.
 *
 * @example
 * ```ts
 * DEFAULT_DATA_DIR; // '.gatehouse/data'
 * ```
 */
export const DEFAULT_DATA_DIR = '.gatehouse/data';

/**
 * Where the store is, from the flags and the environment: `--database-url` over `DATABASE_URL` (a server), then
 * `--data-dir` over `GATEHOUSE_DATA_DIR`, then {@link DEFAULT_DATA_DIR} under `cwd`. An empty value counts as absent.
 *
 * @param flags - `--database-url` and `--data-dir`, when given.
 * @param env - The environment.
 * @param cwd - The working directory a relative data directory is resolved against.
 * @returns The location.
 * @example
 * ```ts
 * resolveStoreLocation({}, { DATABASE_URL: 'postgres://db/gatehouse' }, '/srv'); // { databaseUrl: 'postgres://db/gatehouse' }
 * resolveStoreLocation({}, {}, '/srv'); // { dataDir: '/srv/.gatehouse/data' }
 * ```
 */
export function resolveStoreLocation(
  flags: { readonly databaseUrl?: string | null; readonly dataDir?: string | null },
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): StoreLocation {
  const given = (value: string | null | undefined): string | null => (value === undefined || value === null || value === '' ? null : value);
  const url = given(flags.databaseUrl) ?? given(env['DATABASE_URL']);
  if (url !== null) return { databaseUrl: url };
  return { dataDir: resolve(cwd, given(flags.dataDir) ?? given(env['GATEHOUSE_DATA_DIR']) ?? DEFAULT_DATA_DIR) };
}

/**
 * A location for messages: the data directory, `memory`, or the database URL without its password.
 *
 * @param location - The location.
 * @returns Text safe to print and log.
 * @example
 * ```ts
 * describeStoreLocation({ databaseUrl: 'postgres://gh:secret@db/gatehouse' }); // 'postgres://gh:***@db/gatehouse'
 * ```
 */
export function describeStoreLocation(location: StoreLocation): string {
  if ('memory' in location) return 'memory (lost on exit)';
  if ('dataDir' in location) return location.dataDir;
  return location.databaseUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/iu, '$1:***@');
}

/**
 * An open store.
 *
 * @example
 * ```ts
 * const { store, migrations } = opened;
 * migrations.applied.length; // 1 on a new database, 0 later
 * ```
 */
export interface OpenedStore {
  /** The store. */
  readonly store: Store;
  /** Which driver it runs on. */
  readonly driver: SqlDriver['kind'];
  /** The migrations this open applied, and the schema version. */
  readonly migrations: MigrationReport;
}

/**
 * Why the store was not opened.
 *
 * @example
 * ```ts
 * const e: OpenStoreError = { code: 'schema_too_new', databaseVersion: 2, codeVersion: 1 };
 * ```
 */
export type OpenStoreError =
  | MigrationError
  /** A database URL was given but the optional peer `pg` is not installed. */
  | { readonly code: 'missing_pg'; readonly install: string };

/**
 * The message for an administrator.
 *
 * @param error - Why the store was not opened.
 * @returns One line.
 * @example
 * ```ts
 * openStoreErrorMessage({ code: 'missing_pg', install: 'npm install pg@^8.23.1' });
 * // 'a database URL is set, but the PostgreSQL driver pg is not installed: npm install pg@^8.23.1'
 * ```
 */
export function openStoreErrorMessage(error: OpenStoreError): string {
  return error.code === 'missing_pg'
    ? `a database URL is set, but the PostgreSQL driver pg is not installed: ${error.install}`
    : migrationErrorMessage(error);
}

/**
 * How to install the optional peer `pg` at the version `package.json` declares (the store imports nothing of the
 * adapter, so it keeps its own copy; a test compares the two).
 *
 * @example
 * ```ts
 * PG_INSTALL_COMMAND; // 'npm install pg@^8.23.1'
 * ```
 */
export const PG_INSTALL_COMMAND = 'npm install pg@^8.23.1';

async function openDriver(location: StoreLocation, options: OpenStoreOptions): Promise<Result<SqlDriver, OpenStoreError>> {
  if (!('databaseUrl' in location)) return ok(await openPgliteDriver(location, options));
  const installed = await import('pg').then(
    () => true,
    () => false,
  );
  if (!installed) return err({ code: 'missing_pg', install: PG_INSTALL_COMMAND });
  return ok(await openNodePostgresDriver({ connectionString: location.databaseUrl }));
}

/**
 * Options of {@link openStore}.
 *
 * @example
 * ```ts
 * const options: OpenStoreOptions = { onPermissionsFixed: (fixed) => log({ level: 'warn', event: 'data_directory_permissions_fixed', ...fixed }) };
 * ```
 */
export interface OpenStoreOptions {
  /**
   * Told when an embedded data directory that existed (an earlier version made it) could be read by other users and
   * was made private: directories `0700`, files `0600`.
   */
  readonly onPermissionsFixed?: (fixed: PermissionsFixed) => void;
}

/**
 * Opens the store at `location` and applies the migrations it lacks (see `applyMigrations`). A database whose
 * schema is newer than this code is closed again and refused.
 *
 * @param location - Where the store is (see {@link resolveStoreLocation}).
 * @param options - Who is told about an embedded data directory made private.
 * @returns The open store, or why not; rejects when the database cannot be reached or read.
 * @example
 * ```ts
 * const opened = await openStore({ memory: true });
 * // ok({ store, driver: 'pglite', migrations: { applied: [{ version: 1, name: 'initial' }, { version: 2, name: 'settings' }], version: 2 } })
 * ```
 */
export async function openStore(location: StoreLocation, options: OpenStoreOptions = {}): Promise<Result<OpenedStore, OpenStoreError>> {
  const driver = await openDriver(location, options);
  if (driver.isErr()) return err(driver.error);
  const migrated = await applyMigrations(driver.value).catch(async (error: unknown) => {
    await driver.value.close();
    return Promise.reject(error);
  });
  if (migrated.isErr()) {
    await driver.value.close();
    return err(migrated.error);
  }
  // instances sharing a PostgreSQL server tell each other of account changes (change-feed.ts); PGlite has one
  const feed = 'databaseUrl' in location ? await openNodePostgresChangeFeed(location.databaseUrl) : undefined;
  return ok({ store: createPostgresStore(driver.value, feed), driver: driver.value.kind, migrations: migrated.value });
}
