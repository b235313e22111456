/**
 * Lockout state on PostgreSQL: `account_lockouts`, one row per account, gone with the account (a foreign key).
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { LockoutRecord, LockoutStore } from '../types.js';
import type { SqlRow } from './driver.js';
import { dbId, num, numOrNull, text } from './rows.js';
import type { Sql } from './sql.js';

const COLUMNS = 'account_id, failures, last_failure_at, locked_until';

function lockoutOf(row: SqlRow): LockoutRecord {
  return {
    userId: text(row, 'account_id'),
    failures: num(row, 'failures'),
    lastFailureAt: numOrNull(row, 'last_failure_at'),
    lockedUntil: numOrNull(row, 'locked_until'),
  };
}

/**
 * The {@link LockoutStore} on PostgreSQL.
 *
 * @param sql - The connection (or the transaction's).
 * @returns The lockout operations.
 * @example
 * ```ts
 * const lockouts = postgresLockouts(rootSql(driver));
 * ```
 * @internal
 */
export function postgresLockouts(sql: Sql): LockoutStore {
  return {
    get: async (userId) => {
      const id = dbId(userId);
      const [row] = id === null ? [] : await sql.query(`SELECT ${COLUMNS} FROM account_lockouts WHERE account_id = $1`, [id]);
      return row === undefined ? null : lockoutOf(row);
    },
    put: async (record) => {
      const id = dbId(record.userId);
      if (id === null) return err({ code: 'unknown_user', userId: record.userId });
      const written = await sql.attempt(
        `INSERT INTO account_lockouts (${COLUMNS}) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id) DO UPDATE SET failures = EXCLUDED.failures, last_failure_at = EXCLUDED.last_failure_at, locked_until = EXCLUDED.locked_until
         RETURNING ${COLUMNS}`,
        [id, record.failures, record.lastFailureAt, record.lockedUntil],
      );
      const row = written.isOk() ? written.value[0] : undefined;
      return row === undefined ? err({ code: 'unknown_user', userId: record.userId }) : ok(lockoutOf(row));
    },
    clear: async (userId) => {
      const id = dbId(userId);
      if (id === null) return false;
      const deleted = await sql.query('DELETE FROM account_lockouts WHERE account_id = $1 RETURNING account_id', [id]);
      return deleted.length > 0;
    },
    lockedUntil: async (userIds, now) => {
      const ids = userIds.map(dbId).filter((id): id is NonNullable<typeof id> => id !== null);
      const locked = new Map<string, number>();
      if (ids.length === 0) return locked;
      const rows = await sql.query('SELECT account_id, locked_until FROM account_lockouts WHERE account_id = ANY($1::bigint[]) AND locked_until > $2', [ids, now]);
      for (const row of rows) {
        const until = numOrNull(row, 'locked_until');
        if (until !== null) locked.set(text(row, 'account_id'), until);
      }
      return locked;
    },
  };
}
