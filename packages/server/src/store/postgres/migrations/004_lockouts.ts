/**
 * Migration 4: account lockout (the site option `auth.lockout`). One row per account that failed its password
 * since the last success or unlock: the failures counted in a row, the last one's time, and until when the account
 * is locked. Gone with the account. Times are milliseconds since the epoch (`bigint`), as in migration 1.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The `account_lockouts` table.
 *
 * @example
 * ```ts
 * MIGRATION_004_LOCKOUTS.version; // 4
 * ```
 */
export const MIGRATION_004_LOCKOUTS: Migration = {
  version: 4,
  name: 'lockouts',
  sql: `
CREATE TABLE account_lockouts (
  account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  failures bigint NOT NULL CHECK (failures >= 0),
  last_failure_at bigint,
  locked_until bigint
);
`,
};
