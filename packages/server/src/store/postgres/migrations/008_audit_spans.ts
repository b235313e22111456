/**
 * Migration 8: an index on the span of time each audit entry covers, so that a time range filter (`since` and
 * `until` together) is one index search at a million entries.
 *
 * A coalesced entry spans `[timestamp, last_at]`, and the range filter keeps an entry that overlaps the range
 * (`last_at >= since AND timestamp <= until`): neither bound alone narrows the search (the entries before `until`
 * or after `since` are half the log for a day in the middle), so the index is a GiST one on the span as an
 * `int8range`, searched with `&&`. Its upper end is `greatest(timestamp, last_at)`, which the store keeps equal to
 * `last_at`, so that no stored row can make the range invalid.
 *
 * @module
 */
import type { Migration } from './list.js';

/**
 * The SQL of an audit entry's span, as the index holds it: the store's range condition must repeat it exactly.
 *
 * @example
 * ```ts
 * AUDIT_SPAN_SQL; // "int8range(timestamp, greatest(timestamp, last_at), '[]')"
 * ```
 */
export const AUDIT_SPAN_SQL = "int8range(timestamp, greatest(timestamp, last_at), '[]')";

/**
 * The audit span index.
 *
 * @example
 * ```ts
 * MIGRATION_008_AUDIT_SPANS.version; // 8
 * ```
 */
export const MIGRATION_008_AUDIT_SPANS: Migration = {
  version: 8,
  name: 'audit_spans',
  sql: `CREATE INDEX audit_log_span ON audit_log USING gist ((${AUDIT_SPAN_SQL}));`,
};
