/**
 * Migration 3: account links and the mail outbox. An account link is kept only by the SHA-256 digest of its token,
 * one per account and purpose (a new one replaces the old), gone with its account. The outbox is the queue of mail
 * waiting to be sent: a sender claims a row by setting `claimed_until` (rows picked with `FOR UPDATE SKIP LOCKED`),
 * so that instances sharing the database send each mail once. Times are milliseconds since the epoch (`bigint`).
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * Account links and the outbox.
 *
 * @example
 * ```ts
 * MIGRATION_003_ACCOUNT_LINKS_AND_OUTBOX.version; // 3
 * ```
 */
export const MIGRATION_003_ACCOUNT_LINKS_AND_OUTBOX: Migration = {
  version: 3,
  name: 'account_links_and_outbox',
  sql: `
CREATE TABLE account_links (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  purpose text NOT NULL,
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text,
  digest text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  CHECK (purpose IN ('verify_email', 'reset_password', 'first_admin', 'unlock_account')),
  CHECK (digest ~ '^[0-9a-f]{64}$')
);
CREATE UNIQUE INDEX account_links_digest ON account_links (digest);
CREATE UNIQUE INDEX account_links_account_purpose ON account_links (account_id, purpose);
CREATE INDEX account_links_expires ON account_links (expires_at);

CREATE TABLE mail_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recipient text NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  created_at bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  claimed_until bigint NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at, id);
`,
};
