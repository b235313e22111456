/**
 * The store's schema migrations: versioned, forward-only SQL kept with the code, applied in version order and
 * recorded in the `gatehouse_migrations` table. A released migration never changes; a schema change is a new one.
 *
 * @module
 */
import { MIGRATION_001_INITIAL } from './001_initial.js';
import { MIGRATION_002_SETTINGS } from './002_settings.js';
import { MIGRATION_003_SEARCH_INDEXES } from './003_search_indexes.js';

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
 * MIGRATIONS.at(-1)?.version; // 2
 * ```
 */
export const MIGRATIONS: readonly Migration[] = [MIGRATION_001_INITIAL, MIGRATION_002_SETTINGS, MIGRATION_003_SEARCH_INDEXES];
