/**
 * Ephemeral state on PostgreSQL: flow state, SAML request ids and sign-in throttle records in one table keyed by
 * kind and key, each with an expiry. `take` is one `DELETE … RETURNING`, so among instances racing for one flow
 * state exactly one gets it; `deleteOldest` skips a row another instance is deleting.
 *
 * @module
 */
import type { EphemeralEntry, EphemeralKind, EphemeralStore } from '../types.js';
import type { SqlRow } from './driver.js';
import { bound, num, text } from './rows.js';
import type { Sql } from './sql.js';

const ENTRY_COLUMNS = 'kind, key, grp, value, expires_at';

function kindOf(value: string): EphemeralKind {
  if (value === 'administrator_seed') return 'administrator_seed';
  return value === 'saml_request' ? 'saml_request' : value === 'throttle' ? 'throttle' : 'flow_state';
}

function entryOf(row: SqlRow): EphemeralEntry {
  return { kind: kindOf(text(row, 'kind')), key: text(row, 'key'), group: text(row, 'grp'), value: text(row, 'value'), expiresAt: num(row, 'expires_at') };
}

/**
 * The ephemeral part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link EphemeralStore}.
 * @example
 * ```ts
 * const ephemeral = postgresEphemeral(rootSql(driver));
 * await ephemeral.take('flow_state', digest, Date.now()); // the entry for one caller, null for the others
 * ```
 */
export function postgresEphemeral(sql: Sql): EphemeralStore {
  return {
    put: async (entry) => {
      // a put makes the entry the newest of its kind: it takes a fresh order number
      await sql.query(
        `INSERT INTO ephemeral (${ENTRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (kind, key) DO UPDATE SET grp = EXCLUDED.grp, value = EXCLUDED.value, expires_at = EXCLUDED.expires_at, seq = nextval('ephemeral_order')`,
        [entry.kind, entry.key, entry.group, entry.value, entry.expiresAt],
      );
    },
    get: async (kind, key, now) => {
      const [row] = await sql.query(`SELECT ${ENTRY_COLUMNS} FROM ephemeral WHERE kind = $1 AND key = $2 AND expires_at > $3`, [kind, key, now]);
      return row === undefined ? null : entryOf(row);
    },
    take: async (kind, key, now) => {
      const [row] = await sql.query(`DELETE FROM ephemeral WHERE kind = $1 AND key = $2 AND expires_at > $3 RETURNING ${ENTRY_COLUMNS}`, [kind, key, now]);
      return row === undefined ? null : entryOf(row);
    },
    delete: async (kind, key, now) => {
      const [row] = await sql.query('DELETE FROM ephemeral WHERE kind = $1 AND key = $2 RETURNING expires_at > $3 AS live', [kind, key, now]);
      return row !== undefined && row['live'] === true;
    },
    count: async (kind, now, group) => {
      const [row] = await sql.query(
        'SELECT count(*) AS n FROM ephemeral WHERE kind = $1 AND expires_at > $2 AND ($3::text IS NULL OR grp = $3::text)',
        [kind, now, group ?? null],
      );
      return row === undefined ? 0 : num(row, 'n');
    },
    heaviestGroup: async (kind, now) => {
      const [row] = await sql.query(
        'SELECT grp, count(*) AS n FROM ephemeral WHERE kind = $1 AND expires_at > $2 GROUP BY grp ORDER BY count(*) DESC, grp LIMIT 1',
        [kind, now],
      );
      return row === undefined ? null : { group: text(row, 'grp'), count: num(row, 'n') };
    },
    deleteOldest: async (kind, group, now) => {
      const [row] = await sql.query(
        `DELETE FROM ephemeral WHERE (kind, key) = (
           SELECT kind, key FROM ephemeral WHERE kind = $1 AND grp = $2 AND expires_at > $3 ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${ENTRY_COLUMNS}`,
        [kind, group, now],
      );
      return row === undefined ? null : entryOf(row);
    },
    purgeExpired: async (now, limit) => {
      const n = bound(limit);
      if (n === 0) return 0;
      const rows = await sql.query(
        'DELETE FROM ephemeral WHERE (kind, key) IN (SELECT kind, key FROM ephemeral WHERE expires_at <= $1 LIMIT $2) RETURNING 1',
        [now, n],
      );
      return rows.length;
    },
  };
}
