/**
 * The store's schema migrations: versioned, forward-only SQL kept with the code, applied in version order and
 * recorded in the `gatehouse_migrations` table. A released migration never changes; a schema change is a new one.
 *
 * @module
 */
import { MIGRATION_001_INITIAL } from './001_initial.js';
import { MIGRATION_002_SETTINGS } from './002_settings.js';
import { MIGRATION_003_ACCOUNT_LINKS_AND_OUTBOX } from './003_account_links_and_outbox.js';
import { MIGRATION_006_SEARCH_INDEXES } from './006_search_indexes.js';
import { MIGRATION_004_LOCKOUTS } from './004_lockouts.js';
import { MIGRATION_005_ACCOUNT_CONTROLS } from './005_account_controls.js';
import { MIGRATION_007_IDENTITY_FACTS } from './007_identity_facts.js';
import { MIGRATION_008_AUDIT_SPANS } from './008_audit_spans.js';
import { MIGRATION_009_GIN_WITHOUT_PENDING_LIST } from './009_gin_without_pending_list.js';

/**
 * One migration.
 *
 * @example
 * ```ts
 * const m: Migration = { version: 3, name: 'audit_by_subject', sql: 'CREATE INDEX audit_log_subject ON audit_log (subject_user_id, id);' };
 * ```
 */
export interface Migration {
  /** Its version: 1, 2, … with no gaps. */
  readonly version: number;
  /** A short snake_case name, recorded with it. */
  readonly name: string;
  /** The statements, run in one transaction. */
  readonly sql: string;
}

/**
 * Every migration, oldest first; the last one's version is the schema version this code knows.
 *
 * @example
 * ```ts
 * MIGRATIONS.at(-1)?.version; // 4
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [
  MIGRATION_001_INITIAL,
  MIGRATION_002_SETTINGS,
  MIGRATION_003_ACCOUNT_LINKS_AND_OUTBOX,
  MIGRATION_004_LOCKOUTS,
  MIGRATION_005_ACCOUNT_CONTROLS,
  MIGRATION_006_SEARCH_INDEXES,
  MIGRATION_007_IDENTITY_FACTS,
  MIGRATION_008_AUDIT_SPANS,
  MIGRATION_009_GIN_WITHOUT_PENDING_LIST,
];
