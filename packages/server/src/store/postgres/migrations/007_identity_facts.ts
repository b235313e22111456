/**
 * Migration 7: each linked identity keeps what its provider said at its last sign-in (the provider's username, its
 * emails with their verification, orgs, teams, groups and access levels; never a token or a secret), so a candidate
 * site configuration can be previewed against every stored identity. Identities linked before have none (`NULL`).
 * Times are milliseconds since the epoch (`bigint`), as in migration 1.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The facts of each identity's last sign-in.
 *
 * @example
 * ```ts
 * MIGRATION_007_IDENTITY_FACTS.version; // 7
 * ```
 */
export const MIGRATION_007_IDENTITY_FACTS: Migration = {
  version: 7,
  name: 'identity_facts',
  sql: `
-- NULL: the identity has not signed in since facts were kept
ALTER TABLE external_accounts ADD COLUMN facts jsonb NULL, ADD COLUMN facts_at bigint NULL;
`,
};
