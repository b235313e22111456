/**
 * OAuth apps, authorization codes and tokens on PostgreSQL (spec §2.4). Redeeming a code and rotating a refresh
 * token are each one conditional `UPDATE … RETURNING` plus the inserts of the new pair in one transaction: two
 * instances presenting the same code or refresh token at once get one winner, and the loser sees `false`.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import type { AuthorizationCodeRecord, OAuthAccessTokenRecord, RefreshTokenRecord } from 'gatehouse-auth';
import { consentScopes } from '../types.js';
import type { IssuedOAuthTokens, OAuthAppRecord, OAuthConsentRecord, OAuthStore, StoreError } from '../types.js';
import type { SqlRow } from './driver.js';
import { bool, bound, dbId, num, strings, text } from './rows.js';
import type { Sql } from './sql.js';
import { notifyAccountChange } from './change-feed.js';

const APP_COLUMNS = 'client_id, client_secret_hash, redirect_uris, scopes, name, owner_user_id, created_at';
const CODE_COLUMNS = 'code_hash, family_id, client_id, account_id, redirect_uri, redirect_uri_given, scopes, code_challenge, expires_at, used';
const CONSENT_COLUMNS = 'account_id, client_id, scopes, granted_at';
const REVOKED = 'EXISTS (SELECT 1 FROM oauth_revoked_families f WHERE f.family_id = t.family_id) AS family_revoked';

function appOf(row: SqlRow): OAuthAppRecord {
  return {
    clientId: text(row, 'client_id'),
    clientSecretHash: text(row, 'client_secret_hash'),
    redirectUris: strings(row, 'redirect_uris'),
    scopes: strings(row, 'scopes'),
    name: text(row, 'name'),
    ownerUserId: text(row, 'owner_user_id'),
    createdAt: num(row, 'created_at'),
  };
}

function codeOf(row: SqlRow): AuthorizationCodeRecord {
  return {
    codeHash: text(row, 'code_hash'),
    familyId: text(row, 'family_id'),
    clientId: text(row, 'client_id'),
    userId: text(row, 'account_id'),
    redirectUri: text(row, 'redirect_uri'),
    redirectUriGiven: bool(row, 'redirect_uri_given'),
    scopes: strings(row, 'scopes'),
    codeChallenge: text(row, 'code_challenge'),
    expiresAt: num(row, 'expires_at'),
    used: bool(row, 'used'),
  };
}

function accessTokenOf(row: SqlRow): OAuthAccessTokenRecord {
  return {
    tokenHash: text(row, 'token_hash'),
    familyId: text(row, 'family_id'),
    clientId: text(row, 'client_id'),
    userId: text(row, 'account_id'),
    scopes: strings(row, 'scopes'),
    expiresAt: num(row, 'expires_at'),
    familyRevoked: bool(row, 'family_revoked'),
  };
}

function consentOf(row: SqlRow): OAuthConsentRecord {
  return { userId: text(row, 'account_id'), clientId: text(row, 'client_id'), scopes: strings(row, 'scopes'), grantedAt: num(row, 'granted_at') };
}

function refreshTokenOf(row: SqlRow): RefreshTokenRecord {
  return { ...accessTokenOf(row), used: bool(row, 'used') };
}

/** Inserts a new access and refresh token (inside the caller's transaction). */
async function insertPair(sql: Sql, tokens: IssuedOAuthTokens): Promise<void> {
  const a = tokens.accessToken;
  const r = tokens.refreshToken;
  await sql.query(
    'INSERT INTO oauth_access_tokens (token_hash, family_id, client_id, account_id, scopes, expires_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)',
    [a.tokenHash, a.familyId, a.clientId, dbId(a.userId), JSON.stringify(a.scopes), a.expiresAt],
  );
  await sql.query(
    'INSERT INTO oauth_refresh_tokens (token_hash, family_id, client_id, account_id, scopes, expires_at, used) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)',
    [r.tokenHash, r.familyId, r.clientId, dbId(r.userId), JSON.stringify(r.scopes), r.expiresAt, r.used],
  );
}

async function insertApp(sql: Sql, app: OAuthAppRecord): Promise<Result<OAuthAppRecord, StoreError>> {
  const rows = await sql.query(
    `INSERT INTO oauth_apps (${APP_COLUMNS}) VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6, $7) ON CONFLICT (client_id) DO NOTHING RETURNING 1`,
    [app.clientId, app.clientSecretHash, JSON.stringify(app.redirectUris), JSON.stringify(app.scopes), app.name, app.ownerUserId, app.createdAt],
  );
  return rows.length === 0 ? err({ code: 'client_id_taken', clientId: app.clientId }) : ok(structuredClone(app));
}

async function insertCode(sql: Sql, record: AuthorizationCodeRecord): Promise<Result<AuthorizationCodeRecord, StoreError>> {
  const rows = await sql.query(
    `INSERT INTO oauth_authorization_codes (${CODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
     ON CONFLICT (code_hash) DO NOTHING RETURNING 1`,
    [
      record.codeHash,
      record.familyId,
      record.clientId,
      dbId(record.userId),
      record.redirectUri,
      record.redirectUriGiven,
      JSON.stringify(record.scopes),
      record.codeChallenge,
      record.expiresAt,
      record.used,
    ],
  );
  return rows.length === 0 ? err({ code: 'duplicate_digest' }) : ok(structuredClone(record));
}

async function redeem(sql: Sql, codeHash: string, tokens: IssuedOAuthTokens): Promise<boolean> {
  const outcome = await sql.atomic(async (tx): Promise<Result<true, false>> => {
    const [won] = await tx.query('UPDATE oauth_authorization_codes SET used = true WHERE code_hash = $1 AND NOT used RETURNING 1', [codeHash]);
    if (won === undefined) return err(false);
    await insertPair(tx, tokens);
    return ok(true);
  });
  return outcome.isOk();
}

async function rotate(sql: Sql, usedTokenHash: string, tokens: IssuedOAuthTokens): Promise<boolean> {
  const outcome = await sql.atomic(async (tx): Promise<Result<true, false>> => {
    const [won] = await tx.query(
      `UPDATE oauth_refresh_tokens t SET used = true
       WHERE t.token_hash = $1 AND NOT t.used AND NOT EXISTS (SELECT 1 FROM oauth_revoked_families f WHERE f.family_id = t.family_id)
       RETURNING 1`,
      [usedTokenHash],
    );
    if (won === undefined) return err(false);
    await insertPair(tx, tokens);
    return ok(true);
  });
  return outcome.isOk();
}

async function deleteApp(sql: Sql, clientId: string): Promise<Result<OAuthAppRecord, StoreError>> {
  // codes, tokens and consents go with the app by their foreign keys
  const [row] = await sql.query(`DELETE FROM oauth_apps WHERE client_id = $1 RETURNING ${APP_COLUMNS}`, [clientId]);
  return row === undefined ? err({ code: 'unknown_oauth_app', clientId }) : ok(appOf(row));
}

async function grantConsent(sql: Sql, record: OAuthConsentRecord): Promise<Result<OAuthConsentRecord, StoreError>> {
  const id = dbId(record.userId);
  if (id === null) return err({ code: 'unknown_user', userId: record.userId });
  return sql.atomic(async (tx): Promise<Result<OAuthConsentRecord, StoreError>> => {
    // the account row lock orders concurrent grants of one account (the union below reads, then writes), and the
    // app's key-share lock keeps the app until the insert
    const owner = await tx.query('SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [id]);
    if (owner.length === 0) return err({ code: 'unknown_user', userId: record.userId });
    const app = await tx.query('SELECT 1 FROM oauth_apps WHERE client_id = $1 FOR KEY SHARE', [record.clientId]);
    if (app.length === 0) return err({ code: 'unknown_oauth_app', clientId: record.clientId });
    const [before] = await tx.query(`SELECT ${CONSENT_COLUMNS} FROM oauth_consents WHERE account_id = $1 AND client_id = $2`, [id, record.clientId]);
    const scopes = consentScopes(before === undefined ? [] : strings(before, 'scopes'), record.scopes);
    const [row] = await tx.query(
      `INSERT INTO oauth_consents (${CONSENT_COLUMNS}) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (account_id, client_id) DO UPDATE SET scopes = EXCLUDED.scopes, granted_at = EXCLUDED.granted_at
       RETURNING ${CONSENT_COLUMNS}`,
      [id, record.clientId, JSON.stringify(scopes), record.grantedAt],
    );
    return row === undefined ? Promise.reject(new Error('the consent upsert returned no row')) : ok(consentOf(row));
  });
}

/** The consent operations (spec §2.4). */
function postgresConsents(sql: Sql): Pick<OAuthStore, 'grantConsent' | 'findConsent' | 'listConsents' | 'revokeConsent'> {
  return {
    grantConsent: (record) => grantConsent(sql, record),
    findConsent: async (userId, clientId) => {
      const id = dbId(userId);
      const [row] = id === null ? [] : await sql.query(`SELECT ${CONSENT_COLUMNS} FROM oauth_consents WHERE account_id = $1 AND client_id = $2`, [id, clientId]);
      return row === undefined ? null : consentOf(row);
    },
    listConsents: async (userId) => {
      const id = dbId(userId);
      // client ids compare by code unit ("C"), as the memory store compares them, whatever the database's collation
      const rows = id === null ? [] : await sql.query(`SELECT ${CONSENT_COLUMNS} FROM oauth_consents WHERE account_id = $1 ORDER BY granted_at, client_id COLLATE "C"`, [id]);
      return rows.map(consentOf);
    },
    revokeConsent: async (userId, clientId) => {
      const id = dbId(userId);
      if (id === null) return err({ code: 'unknown_oauth_consent', userId, clientId });
      // the approval goes with what it gave the app: its codes and tokens for this account, in the same transaction
      return sql.atomic(async (tx): Promise<Result<OAuthConsentRecord, StoreError>> => {
        const [row] = await tx.query(`DELETE FROM oauth_consents WHERE account_id = $1 AND client_id = $2 RETURNING ${CONSENT_COLUMNS}`, [id, clientId]);
        if (row === undefined) return err({ code: 'unknown_oauth_consent', userId, clientId });
        for (const table of ['oauth_authorization_codes', 'oauth_refresh_tokens', 'oauth_access_tokens']) {
          await tx.query(`DELETE FROM ${table} WHERE account_id = $1 AND client_id = $2`, [id, clientId]);
        }
        return ok(consentOf(row));
      });
    },
  };
}

async function purgeTokens(sql: Sql, expiredBy: number, limit: number): Promise<number> {
  const n = bound(limit);
  if (n === 0) return 0;
  const purged = await sql.atomic(async (tx) => ok(await purgeTokenBatch(tx, expiredBy, n)));
  return purged.unwrapOr(0);
}

/** One batch of {@link OAuthStore.purgeTokens}: access tokens first, then refresh tokens up to `n` in all. */
async function purgeTokenBatch(sql: Sql, expiredBy: number, n: number): Promise<number> {
  const access = await sql.query(
    'DELETE FROM oauth_access_tokens WHERE token_hash IN (SELECT token_hash FROM oauth_access_tokens WHERE expires_at <= $1 LIMIT $2) RETURNING 1',
    [expiredBy, n],
  );
  const rest = n - access.length;
  const refresh =
    rest === 0
      ? []
      : await sql.query(
          'DELETE FROM oauth_refresh_tokens WHERE token_hash IN (SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at <= $1 LIMIT $2) RETURNING 1',
          [expiredBy, rest],
        );
  // a revoked family nothing refers to any more has nothing left to refuse
  await sql.query(
    `DELETE FROM oauth_revoked_families WHERE family_id IN (
       SELECT f.family_id FROM oauth_revoked_families f
       WHERE NOT EXISTS (SELECT 1 FROM oauth_access_tokens t WHERE t.family_id = f.family_id)
         AND NOT EXISTS (SELECT 1 FROM oauth_refresh_tokens t WHERE t.family_id = f.family_id)
         AND NOT EXISTS (SELECT 1 FROM oauth_authorization_codes c WHERE c.family_id = f.family_id)
       LIMIT $1)`,
    [n],
  );
  return access.length + refresh.length;
}

/**
 * The OAuth part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link OAuthStore}.
 * @example
 * ```ts
 * const oauth = postgresOAuth(rootSql(driver));
 * await oauth.rotateRefreshToken(usedHash, { accessToken, refreshToken }); // true for one caller only
 * ```
 */
export function postgresOAuth(sql: Sql): OAuthStore {
  return {
    insertApp: (app) => insertApp(sql, app),
    findApp: async (clientId) => {
      const [row] = await sql.query(`SELECT ${APP_COLUMNS} FROM oauth_apps WHERE client_id = $1`, [clientId]);
      return row === undefined ? null : appOf(row);
    },
    listApps: async () => (await sql.query(`SELECT ${APP_COLUMNS} FROM oauth_apps ORDER BY created_at, seq`)).map(appOf),
    setAppSecretHash: async (clientId, clientSecretHash) => {
      const [row] = await sql.query(`UPDATE oauth_apps SET client_secret_hash = $2 WHERE client_id = $1 RETURNING ${APP_COLUMNS}`, [clientId, clientSecretHash]);
      return row === undefined ? err({ code: 'unknown_oauth_app', clientId }) : ok(appOf(row));
    },
    deleteApp: (clientId) => deleteApp(sql, clientId),
    insertAuthorizationCode: (record) => insertCode(sql, record),
    findAuthorizationCode: async (codeHash) => {
      const [row] = await sql.query(`SELECT ${CODE_COLUMNS} FROM oauth_authorization_codes WHERE code_hash = $1`, [codeHash]);
      return row === undefined ? null : codeOf(row);
    },
    redeemAuthorizationCode: (codeHash, tokens) => redeem(sql, codeHash, tokens),
    findRefreshToken: async (tokenHash) => {
      const [row] = await sql.query(`SELECT t.*, ${REVOKED} FROM oauth_refresh_tokens t WHERE t.token_hash = $1`, [tokenHash]);
      return row === undefined ? null : refreshTokenOf(row);
    },
    rotateRefreshToken: (usedTokenHash, tokens) => rotate(sql, usedTokenHash, tokens),
    findAccessToken: async (tokenHash) => {
      const [row] = await sql.query(`SELECT t.*, ${REVOKED} FROM oauth_access_tokens t WHERE t.token_hash = $1`, [tokenHash]);
      return row === undefined ? null : accessTokenOf(row);
    },
    revokeForUser: async (userId) => {
      const id = dbId(userId);
      if (id === null) return 0;
      const revoked = await sql.atomic(async (tx) => {
        let deleted = 0;
        for (const table of ['oauth_authorization_codes', 'oauth_refresh_tokens', 'oauth_access_tokens']) {
          const rows = await tx.query(`DELETE FROM ${table} WHERE account_id = $1 RETURNING 1`, [id]);
          if (table !== 'oauth_authorization_codes') deleted += rows.length;
        }
        // notified on commit: other instances forget what they kept of the account's tokens (change-feed.ts)
        await tx.query(`SELECT ${notifyAccountChange('$1::bigint')}`, [id]);
        return ok(deleted);
      });
      return revoked.unwrapOr(0);
    },
    revokeFamily: async (familyId) => {
      await sql.query('INSERT INTO oauth_revoked_families (family_id) VALUES ($1) ON CONFLICT DO NOTHING', [familyId]);
    },
    revokeAccessToken: async (tokenHash) => {
      await sql.query('DELETE FROM oauth_access_tokens WHERE token_hash = $1', [tokenHash]);
    },
    purgeAuthorizationCodes: async (expiredBy, limit) => {
      const n = bound(limit);
      if (n === 0) return 0;
      const rows = await sql.query(
        'DELETE FROM oauth_authorization_codes WHERE code_hash IN (SELECT code_hash FROM oauth_authorization_codes WHERE expires_at <= $1 LIMIT $2) RETURNING 1',
        [expiredBy, n],
      );
      return rows.length;
    },
    purgeTokens: (expiredBy, limit) => purgeTokens(sql, expiredBy, limit),
    ...postgresConsents(sql),
  };
}
