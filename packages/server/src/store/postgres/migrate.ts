/**
 * Applies the schema migrations at start: in one transaction under a transaction-scoped advisory lock, so that
 * two instances starting together apply each migration once (the second waits, then finds them recorded), and
 * refuses a database whose schema is newer than this code.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { MIGRATIONS } from './migrations/list.js';
import type { Migration } from './migrations/list.js';
import type { SqlDriver, TransactionOutcome } from './driver.js';

/**
 * The advisory lock key migrations take (`pg_advisory_xact_lock`): an arbitrary constant, the same in every
 * gatehouse instance.
 *
 * @example
 * ```ts
 * MIGRATION_LOCK_KEY; // 7_157_020_503
 * ```
 */
export const MIGRATION_LOCK_KEY = 7_157_020_503;

/**
 * What {@link applyMigrations} did.
 *
 * @example
 * ```ts
 * const report: MigrationReport = { applied: [{ version: 1, name: 'initial' }], version: 1 };
 * ```
 */
export interface MigrationReport {
  /** The migrations this call applied, oldest first (empty when the schema was current). */
  readonly applied: readonly { readonly version: number; readonly name: string }[];
  /** The schema version now. */
  readonly version: number;
}

/**
 * Why migrations were not applied.
 *
 * @example
 * ```ts
 * const e: MigrationError = { code: 'schema_too_new', databaseVersion: 3, codeVersion: 1 };
 * ```
 */
export type MigrationError =
  /** The database was migrated by a newer gatehouse: this code would misread it, so it refuses to use it. */
  { readonly code: 'schema_too_new'; readonly databaseVersion: number; readonly codeVersion: number };

/**
 * The message for an administrator.
 *
 * @param error - The refusal.
 * @returns One sentence naming both versions and what to do.
 * @example
 * ```ts
 * migrationErrorMessage({ code: 'schema_too_new', databaseVersion: 3, codeVersion: 1 });
 * // 'the database schema is at version 3, newer than version 1 that this gatehouse knows: run a gatehouse release that knows version 3 (migrations only go forward)'
 * ```
 */
export function migrationErrorMessage(error: MigrationError): string {
  return (
    `the database schema is at version ${error.databaseVersion}, newer than version ${error.codeVersion} that this gatehouse knows: ` +
    `run a gatehouse release that knows version ${error.databaseVersion} (migrations only go forward)`
  );
}

/**
 * Brings the schema up to date: takes the migration lock, creates `gatehouse_migrations` when missing, refuses a
 * newer schema, then runs each missing migration and records it, all in one transaction (a failure applies none).
 *
 * @param driver - The database.
 * @param migrations - The migrations this code knows (default: {@link MIGRATIONS}).
 * @returns What was applied, or `schema_too_new`; rejects when the database fails.
 * @example
 * ```ts
 * const report = await applyMigrations(driver);
 * // on an empty database: ok({ applied: [{ version: 1, name: 'initial' }, { version: 2, name: 'settings' }], version: 2 })
 * // then: ok({ applied: [], version: 2 })
 * ```
 */
export async function applyMigrations(
  driver: SqlDriver,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Result<MigrationReport, MigrationError>> {
  const codeVersion = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  return driver.transaction('read committed', async (tx): Promise<TransactionOutcome<Result<MigrationReport, MigrationError>>> => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS gatehouse_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const [row] = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM gatehouse_migrations');
    const databaseVersion = row?.version ?? 0;
    if (databaseVersion > codeVersion) {
      const refusal: Result<MigrationReport, MigrationError> = err({ code: 'schema_too_new', databaseVersion, codeVersion });
      return { commit: false, value: refusal };
    }
    const pending = [...migrations].filter((m) => m.version > databaseVersion).sort((a, b) => a.version - b.version);
    for (const migration of pending) {
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO gatehouse_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    const report: MigrationReport = {
      applied: pending.map((m) => ({ version: m.version, name: m.name })),
      version: Math.max(databaseVersion, codeVersion),
    };
    return { commit: true, value: ok(report) };
  });
}
