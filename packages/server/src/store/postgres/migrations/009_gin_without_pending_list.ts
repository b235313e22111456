/**
 * Migration 9: the username trigram index (migration 6) takes each new entry into its tree at once, instead of into
 * a pending list.
 *
 * By default a GIN index appends new entries to an unsorted pending list, merged into the tree only by a vacuum or
 * once the list outgrows `gin_pending_list_limit` (4 MB). Every search reads the whole list, and the insert that
 * overflows it pays for the merge. The embedded database runs no autovacuum, so there the list stays near its limit
 * for good: at a million accounts a search that matches one account took 21 ms, and 12 ms without the list
 * (`npm run bench -- scale`). Accounts are made one at a time, so taking each entry into the tree at once costs
 * little; a bulk import may turn the list on for its length and merge it after. The list already there is merged
 * now.
 *
 * Where `pg_trgm` could not be created the index does not exist and the migration changes nothing.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The username trigram index without a pending list.
 *
 * @example
 * ```ts
 * MIGRATION_009_GIN_WITHOUT_PENDING_LIST.version; // 9
 * ```
 */
export const MIGRATION_009_GIN_WITHOUT_PENDING_LIST: Migration = {
  version: 9,
  name: 'gin_without_pending_list',
  sql: `
DO $$
BEGIN
  IF to_regclass('accounts_username_trigrams') IS NOT NULL THEN
    ALTER INDEX accounts_username_trigrams SET (fastupdate = off);
    PERFORM gin_clean_pending_list('accounts_username_trigrams'::regclass);
  END IF;
END
$$;`,
};
