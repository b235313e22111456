/**
 * Migration 3: indexes that keep Site admin's user search and every audit-log filter fast at a million accounts
 * and a million audit entries.
 *
 * - Username substring search: a trigram GIN index (`pg_trgm`) on `username_key`, which `LIKE '%…%'` uses for a
 *   query of three characters or more. PGlite ships `pg_trgm`; a PostgreSQL server has it in its contrib modules
 *   (trusted since PostgreSQL 13, so the database owner may create it). Where it cannot be created, the migration
 *   still applies and the search scans, as before.
 * - Exact email search: an index on each address's match key (ASCII lowercase, as `emailMatchKey` in the core
 *   computes it), verified or not.
 * - Audit filters: by action, and by entity with action, each newest first (entity alone and actor alone already
 *   have theirs), and by the entry's first time for the day range's upper end.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The SQL of the ASCII lowercase `emailMatchKey` computes: only A–Z change, as in the core.
 *
 * @example
 * ```ts
 * EMAIL_MATCH_KEY_SQL('e.email'); // "translate(e.email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
 * ```
 */
export const EMAIL_MATCH_KEY_SQL = (column: string): string => `translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;

/**
 * Search and filter indexes.
 *
 * @example
 * ```ts
 * MIGRATION_003_SEARCH_INDEXES.version; // 3
 * ```
 */
export const MIGRATION_003_SEARCH_INDEXES: Migration = {
  version: 3,
  name: 'search_indexes',
  sql: `
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE INDEX accounts_username_trigrams ON accounts USING gin (username_key gin_trgm_ops);
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm could not be created (%): the user search scans', SQLERRM;
    END;
  END IF;
END
$$;
CREATE INDEX account_emails_match_key ON account_emails (${EMAIL_MATCH_KEY_SQL('email')});
CREATE INDEX audit_log_action ON audit_log (action, id);
CREATE INDEX audit_log_entity_action ON audit_log (entity, action, id);
CREATE INDEX audit_log_timestamp ON audit_log (timestamp);
`,
};
