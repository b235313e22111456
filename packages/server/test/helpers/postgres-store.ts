/**
 * One migrated database per test file, emptied for each case: opening PGlite costs seconds and a server database
 * a round of DDL, while a `TRUNCATE` of every table costs milliseconds.
 */
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { createPostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/types.js';

/** Every table of the store's schema (migrations 1 to 3). */
export const STORE_TABLES: readonly string[] = [
  'accounts',
  'account_emails',
  'external_accounts',
  'provider_credentials',
  'access_tokens',
  'sessions',
  'oauth_apps',
  'oauth_authorization_codes',
  'oauth_revoked_families',
  'oauth_refresh_tokens',
  'oauth_access_tokens',
  'oauth_consents',
  'audit_log',
  'ephemeral',
  'account_lockouts',
  'account_links',
  'mail_outbox',
];

/** Empties every table and restarts the id sequences. */
export async function resetStoreTables(driver: SqlDriver): Promise<void> {
  await driver.exec(`TRUNCATE ${STORE_TABLES.join(', ')} RESTART IDENTITY CASCADE`);
}

/** Migrates `driver` and returns an opener of empty stores on it (closing one closes nothing; call `driver.close()` at the end). */
export async function reusingOpener(driver: SqlDriver): Promise<() => Promise<{ store: Store; close: () => Promise<void> }>> {
  const migrated = await applyMigrations(driver);
  if (migrated.isErr()) throw new Error(`migrations refused: ${migrated.error.code}`);
  const store = createPostgresStore(driver);
  return async () => {
    await resetStoreTables(driver);
    return { store, close: async () => undefined };
  };
}
