/**
 * The audit log on PostgreSQL (spec §6): appending is one indexed insert (or one indexed update of the entry with
 * the same coalescing key, found through a unique partial index), listing is a keyset seek down the primary key,
 * and purging removes a bounded batch of the oldest expired entries.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { coalesceAuditDetails } from 'gatehouse-auth';
import { occurrencesOf } from '../types.js';
import type { AuditEntry, AuditQuery, AuditStore, NewAuditEntry } from '../types.js';
import type { SqlRow } from './driver.js';
import { AUDIT_SPAN_SQL } from './migrations/008_audit_spans.js';
import { bound, dbId, num, stringRecord, text, textOrNull } from './rows.js';
import type { Sql } from './sql.js';

const ENTRY_COLUMNS =
  'id, timestamp, entity, action, reason, actor_user_id, subject_user_id, impersonated_user_id, details, count, first_at, last_at';

/** How many times an append retries when the entry it would count in is purged under it. */
const APPEND_ATTEMPTS = 3;

function entryOf(row: SqlRow): AuditEntry {
  const impersonated = textOrNull(row, 'impersonated_user_id');
  return {
    id: text(row, 'id'),
    timestamp: num(row, 'timestamp'),
    entity: text(row, 'entity'),
    action: text(row, 'action'),
    reason: textOrNull(row, 'reason'),
    actorUserId: textOrNull(row, 'actor_user_id'),
    subjectUserId: textOrNull(row, 'subject_user_id'),
    ...(impersonated === null ? {} : { impersonatedUserId: impersonated }),
    details: stringRecord(row, 'details'),
    count: num(row, 'count'),
    firstAt: num(row, 'first_at'),
    lastAt: num(row, 'last_at'),
  };
}

async function insertEntry(sql: Sql, entry: NewAuditEntry, key: string | null): Promise<AuditEntry | null> {
  const [row] = await sql.query(
    `INSERT INTO audit_log (timestamp, entity, action, reason, actor_user_id, subject_user_id, impersonated_user_id, details, count, first_at, last_at, coalesce_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $10, $1, $11, $9)
     ON CONFLICT (coalesce_key) WHERE coalesce_key IS NOT NULL DO NOTHING
     RETURNING ${ENTRY_COLUMNS}`,
    [
      entry.timestamp,
      entry.entity,
      entry.action,
      entry.reason,
      entry.actorUserId,
      entry.subjectUserId,
      entry.impersonatedUserId ?? null,
      JSON.stringify(entry.details),
      key,
      occurrencesOf(entry).count,
      occurrencesOf(entry).lastAt,
    ],
  );
  return row === undefined ? null : entryOf(row);
}

/** Counts one more occurrence in the kept entry with this key; `null` when it is gone (purged meanwhile). */
async function countOccurrence(sql: Sql, entry: NewAuditEntry, key: string): Promise<AuditEntry | null> {
  const counted = await sql.atomic(async (tx): Promise<Result<AuditEntry, null>> => {
    const [kept] = await tx.query(`SELECT ${ENTRY_COLUMNS} FROM audit_log WHERE coalesce_key = $1 FOR UPDATE`, [key]);
    if (kept === undefined) return err(null);
    const details = coalesceAuditDetails(stringRecord(kept, 'details'), entry.details);
    const [row] = await tx.query(
      `UPDATE audit_log SET count = count + $4, last_at = greatest(last_at, $2), details = $3::jsonb WHERE id = $1 RETURNING ${ENTRY_COLUMNS}`,
      [text(kept, 'id'), occurrencesOf(entry).lastAt, JSON.stringify(details), occurrencesOf(entry).count],
    );
    return row === undefined ? err(null) : ok(entryOf(row));
  });
  return counted.isOk() ? counted.value : null;
}

async function append(sql: Sql, entry: NewAuditEntry): Promise<AuditEntry> {
  const key = entry.coalesceKey ?? null;
  for (let attempt = 1; ; attempt++) {
    // the kept entry first: an insert that meets the key would spend an id, and ids run 1, 2, … without gaps
    const counted = key === null ? null : await countOccurrence(sql, entry, key);
    if (counted !== null) return counted;
    const inserted = await insertEntry(sql, entry, key);
    if (inserted !== null) return inserted;
    // another writer stored the key between the two statements: count in its entry
    if (attempt >= APPEND_ATTEMPTS) return Promise.reject(new Error('the audit entry kept changing under the append'));
  }
}

async function list(sql: Sql, first: number, query: AuditQuery = {}): Promise<readonly AuditEntry[]> {
  const n = bound(first);
  const before = query.before === undefined ? null : dbId(query.before);
  if (n === 0 || (query.before !== undefined && before === null)) return [];
  // Only the filters asked for are written, so that the planner sees each one and picks its index (migrations 6, 8):
  // a generic `$n IS NULL OR …` would hide them.
  const params: unknown[] = [n];
  const where: string[] = [];
  if (before !== null) where.push(`id < $${params.push(before)}::bigint`);
  if (query.entity !== undefined) where.push(`entity = $${params.push(query.entity)}::text`);
  if (query.action !== undefined) where.push(`action = $${params.push(query.action)}::text`);
  if (query.actorUserId !== undefined) where.push(`actor_user_id = $${params.push(query.actorUserId)}::text`);
  if (query.since !== undefined) where.push(`last_at >= $${params.push(query.since)}::bigint`);
  if (query.until !== undefined) where.push(`timestamp <= $${params.push(query.until)}::bigint`);
  if (query.since !== undefined && query.until !== undefined) {
    // Implied by the two conditions above (an entry they keep has a span reaching `since` and starting by `until`,
    // so it overlaps the range between the two, whichever is larger), and answered by the span index (migration 8).
    const low = Math.min(query.since, query.until);
    const high = Math.max(query.since, query.until);
    where.push(`${AUDIT_SPAN_SQL} && int8range($${params.push(low)}::bigint, $${params.push(high)}::bigint, '[]')`);
  }
  if (query.reference !== undefined) where.push(`details->>'reference' = $${params.push(query.reference)}::text`);
  const rows = await sql.query(
    `SELECT ${ENTRY_COLUMNS} FROM audit_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY id DESC LIMIT $1`,
    params,
  );
  return rows.map(entryOf);
}

/**
 * The audit part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link AuditStore}.
 * @example
 * ```ts
 * const audit = postgresAudit(rootSql(driver));
 * await audit.list(50, { entity: 'auth.accessToken' });
 * ```
 */
export function postgresAudit(sql: Sql): AuditStore {
  return {
    append: (entry) => append(sql, entry),
    list: (first, query) => list(sql, first, query),
    purge: async (before, limit) => {
      const n = bound(limit);
      if (n === 0) return 0;
      const rows = await sql.query(
        'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE last_at < $1 ORDER BY id LIMIT $2) RETURNING 1',
        [before, n],
      );
      return rows.length;
    },
  };
}
