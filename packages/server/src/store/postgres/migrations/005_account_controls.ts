/**
 * Migration 5: a site administrator's controls over an account. Accounts gain the time they were suspended
 * (milliseconds since the epoch, as in migration 1; `NULL` while not suspended): a suspended account has no way in,
 * and nothing of it is deleted. The partial index keeps "how many active site administrators" (read in the
 * transaction of every change to who administers the site) one index scan of the few administrators.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * Suspended accounts.
 *
 * @example
 * ```ts
 * MIGRATION_005_ACCOUNT_CONTROLS.version; // 5
 * ```
 */
export const MIGRATION_005_ACCOUNT_CONTROLS: Migration = {
  version: 5,
  name: 'account_controls',
  sql: `
ALTER TABLE accounts ADD COLUMN suspended_at bigint NULL;
CREATE INDEX accounts_active_site_admins ON accounts (id) WHERE site_admin AND suspended_at IS NULL;
`,
};
