/**
 * Access tokens and browser sessions on PostgreSQL, kept by digest under unique indexes and removed with their
 * account by foreign keys.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { MAX_USER_AGENT_LENGTH } from '../types.js';
import type { AccessTokenRecord, AccessTokenStore, NewAccessToken, SessionRecord, SessionStore, StoreError } from '../types.js';
import type { SqlRow } from './driver.js';
import { accessTokenScopes, bound, dbId, num, numOrNull, text } from './rows.js';
import type { Sql } from './sql.js';
import { notifyAccountChange } from './change-feed.js';

const TOKEN_COLUMNS = 'id, account_id, digest, scopes, note, created_at, expires_at, last_used_at';
const SESSION_COLUMNS = 'digest, account_id, created_at, expires_at, last_seen_at, user_agent';

function tokenOf(row: SqlRow): AccessTokenRecord {
  return {
    id: text(row, 'id'),
    userId: text(row, 'account_id'),
    digest: text(row, 'digest'),
    scopes: accessTokenScopes(row, 'scopes'),
    note: text(row, 'note'),
    createdAt: num(row, 'created_at'),
    expiresAt: numOrNull(row, 'expires_at'),
    lastUsedAt: numOrNull(row, 'last_used_at'),
  };
}

function sessionOf(row: SqlRow): SessionRecord {
  return {
    digest: text(row, 'digest'),
    userId: text(row, 'account_id'),
    createdAt: num(row, 'created_at'),
    expiresAt: num(row, 'expires_at'),
    lastSeenAt: num(row, 'last_seen_at'),
    userAgent: text(row, 'user_agent'),
  };
}

async function createToken(sql: Sql, input: NewAccessToken): Promise<Result<AccessTokenRecord, StoreError>> {
  const id = dbId(input.userId);
  if (id === null) return err({ code: 'unknown_user', userId: input.userId });
  const inserted = await sql.attempt(
    `INSERT INTO access_tokens (account_id, digest, scopes, note, created_at, expires_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6)
     ON CONFLICT (digest) DO NOTHING RETURNING ${TOKEN_COLUMNS}`,
    [id, input.digest, JSON.stringify(input.scopes), input.note, input.createdAt, input.expiresAt],
  );
  if (inserted.isErr()) return err({ code: 'unknown_user', userId: input.userId });
  const [row] = inserted.value;
  if (row !== undefined) return ok(tokenOf(row));
  // a missing account is reported before a taken digest
  const exists = await sql.query('SELECT 1 FROM accounts WHERE id = $1', [id]);
  return exists.length === 0 ? err({ code: 'unknown_user', userId: input.userId }) : err({ code: 'duplicate_digest' });
}

/**
 * The access tokens part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link AccessTokenStore}.
 * @example
 * ```ts
 * const tokens = postgresAccessTokens(rootSql(driver));
 * await tokens.findByDigest(digest);
 * ```
 */
export function postgresAccessTokens(sql: Sql): AccessTokenStore {
  return {
    create: (input) => createToken(sql, input),
    findByDigest: async (digest) => {
      const [row] = await sql.query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE digest = $1`, [digest]);
      return row === undefined ? null : tokenOf(row);
    },
    get: async (id) => {
      const key = dbId(id);
      const [row] = key === null ? [] : await sql.query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE id = $1`, [key]);
      return row === undefined ? null : tokenOf(row);
    },
    list: async (userId) => {
      const key = dbId(userId);
      const rows = key === null ? [] : await sql.query(`SELECT ${TOKEN_COLUMNS} FROM access_tokens WHERE account_id = $1 ORDER BY id`, [key]);
      return rows.map(tokenOf);
    },
    count: async (userId) => {
      const key = dbId(userId);
      const [row] = key === null ? [] : await sql.query('SELECT count(*) AS n FROM access_tokens WHERE account_id = $1', [key]);
      return row === undefined ? 0 : num(row, 'n');
    },
    delete: async (id) => {
      const key = dbId(id);
      // the owner's change is notified on commit: other instances forget the token (change-feed.ts)
      const [row] =
        key === null
          ? []
          : await sql.query(`WITH d AS (DELETE FROM access_tokens WHERE id = $1 RETURNING *) SELECT ${TOKEN_COLUMNS}, ${notifyAccountChange('d.account_id')} AS notified FROM d`, [key]);
      return row === undefined ? err({ code: 'unknown_access_token', id }) : ok(tokenOf(row));
    },
    deleteForUser: async (userId) => {
      const key = dbId(userId);
      if (key === null) return 0;
      const [row] = await sql.query(
        `WITH d AS (DELETE FROM access_tokens WHERE account_id = $1 RETURNING 1) SELECT count(*) AS n, ${notifyAccountChange('$1::bigint')} AS notified FROM d`,
        [key],
      );
      return row === undefined ? 0 : num(row, 'n');
    },
    touch: async (id, at) => {
      const key = dbId(id);
      if (key === null) return;
      // one conditional statement: concurrent touches leave the latest time whatever order they land in
      await sql.query('UPDATE access_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [key, at]);
    },
  };
}

async function createSession(sql: Sql, session: SessionRecord, maxPerUser: number): Promise<Result<SessionRecord, StoreError>> {
  const id = dbId(session.userId);
  if (id === null) return err({ code: 'unknown_user', userId: session.userId });
  const keep = Math.max(bound(maxPerUser), 1);
  const stored: SessionRecord = { ...session, userAgent: session.userAgent.slice(0, MAX_USER_AGENT_LENGTH) };
  return sql.atomic(async (tx): Promise<Result<SessionRecord, StoreError>> => {
    // the account row lock orders concurrent sign-ins of one account, so the quota holds across instances
    const owner = await tx.query('SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [id]);
    if (owner.length === 0) return err({ code: 'unknown_user', userId: session.userId });
    const inserted = await tx.query(
      `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (digest) DO NOTHING RETURNING 1`,
      [stored.digest, id, stored.createdAt, stored.expiresAt, stored.lastSeenAt, stored.userAgent],
    );
    if (inserted.length === 0) return err({ code: 'duplicate_digest' });
    await tx.query(
      `DELETE FROM sessions WHERE digest IN (
         SELECT digest FROM sessions WHERE account_id = $1 ORDER BY created_at DESC, seq DESC OFFSET $2)`,
      [id, keep],
    );
    return ok(stored);
  });
}

/**
 * The sessions part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link SessionStore}.
 * @example
 * ```ts
 * const sessions = postgresSessions(rootSql(driver));
 * await sessions.findByDigest(digest);
 * ```
 */
export function postgresSessions(sql: Sql): SessionStore {
  return {
    create: (session, maxPerUser) => createSession(sql, session, maxPerUser),
    findByDigest: async (digest) => {
      const [row] = await sql.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE digest = $1`, [digest]);
      return row === undefined ? null : sessionOf(row);
    },
    list: async (userId) => {
      const id = dbId(userId);
      const rows = id === null ? [] : await sql.query(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE account_id = $1 ORDER BY created_at, seq`, [id]);
      return rows.map(sessionOf);
    },
    delete: async (digest) => (await sql.query('DELETE FROM sessions WHERE digest = $1 RETURNING 1', [digest])).length > 0,
    deleteForUser: async (userId, exceptDigest) => {
      const id = dbId(userId);
      if (id === null) return 0;
      const rows = await sql.query('DELETE FROM sessions WHERE account_id = $1 AND ($2::text IS NULL OR digest <> $2::text) RETURNING 1', [id, exceptDigest ?? null]);
      return rows.length;
    },
    purgeExpired: async (expiredBy, limit) => {
      const n = bound(limit);
      if (n === 0) return 0;
      const rows = await sql.query(
        'DELETE FROM sessions WHERE digest IN (SELECT digest FROM sessions WHERE expires_at <= $1 LIMIT $2) RETURNING 1',
        [expiredBy, n],
      );
      return rows.length;
    },
    touch: async (digest, at) => {
      await sql.query('UPDATE sessions SET last_seen_at = $2 WHERE digest = $1 AND last_seen_at < $2', [digest, at]);
    },
  };
}
