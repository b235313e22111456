/**
 * Migration 2: what the account settings pages show. Sessions gain the time they were last seen and the browser's
 * `User-Agent`, access tokens the time they were last used, and OAuth consents get their table: an account's
 * remembered approval of an app for some scopes (spec §2.4), one per account and app, gone with either.
 * Times are milliseconds since the epoch (`bigint`), as in migration 1.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * Session and token activity, and OAuth consents.
 *
 * @example
 * ```ts
 * MIGRATION_002_SETTINGS.version; // 2
 * ```
 */
export const MIGRATION_002_SETTINGS: Migration = {
  version: 2,
  name: 'settings',
  sql: `
-- existing sessions were last seen, as far as anyone knows, when they started
ALTER TABLE sessions ADD COLUMN last_seen_at bigint, ADD COLUMN user_agent text NOT NULL DEFAULT '';
UPDATE sessions SET last_seen_at = created_at;
ALTER TABLE sessions ALTER COLUMN last_seen_at SET NOT NULL;

-- NULL: never used
ALTER TABLE access_tokens ADD COLUMN last_used_at bigint NULL;

CREATE TABLE oauth_consents (
  account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id text NOT NULL REFERENCES oauth_apps (client_id) ON DELETE CASCADE,
  scopes jsonb NOT NULL,
  granted_at bigint NOT NULL,
  PRIMARY KEY (account_id, client_id)
);
CREATE INDEX oauth_consents_client ON oauth_consents (client_id);
`,
};
