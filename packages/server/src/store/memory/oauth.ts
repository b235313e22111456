/**
 * The memory store's OAuth part (spec §2.4): registered apps, authorization codes, and access and refresh tokens
 * grouped in families. The single-use operations (`redeemAuthorizationCode`, `rotateRefreshToken`) check and write
 * in one synchronous step, so among concurrent callers exactly one wins.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { AuthorizationCodeRecord } from 'gatehouse-auth';
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';
import { boundOf } from './tokens.js';
import { consentScopes } from '../types.js';
import type {
  IssuedOAuthTokens,
  OAuthAppRecord,
  OAuthConsentRecord,
  OAuthStore,
  StoredOAuthAccessToken,
  StoredRefreshToken,
} from '../types.js';

const copyApp = (app: OAuthAppRecord): OAuthAppRecord => ({
  ...app,
  redirectUris: [...app.redirectUris],
  scopes: [...app.scopes],
});
const copyCode = (c: AuthorizationCodeRecord): AuthorizationCodeRecord => ({ ...c, scopes: [...c.scopes] });
const copyAccess = (t: StoredOAuthAccessToken): StoredOAuthAccessToken => ({ ...t, scopes: [...t.scopes] });
const copyRefresh = (t: StoredRefreshToken): StoredRefreshToken => ({ ...t, scopes: [...t.scopes] });
const copyConsent = (c: OAuthConsentRecord): OAuthConsentRecord => ({
  userId: c.userId,
  clientId: c.clientId,
  scopes: [...c.scopes],
  grantedAt: c.grantedAt,
});
const consentKey = (userId: string, clientId: string): string => JSON.stringify([userId, clientId]);

/** What the OAuth part needs from the accounts table. */
interface Accounts {
  readonly has: (userId: string) => boolean;
}

/** An app with the order it was registered in (apps list oldest first, whatever a rollback re-inserted). */
interface StoredApp {
  readonly app: OAuthAppRecord;
  readonly seq: number;
}

/** The tables of the OAuth part. */
interface OAuthTables {
  readonly apps: TrackedMap<string, StoredApp>;
  readonly codes: TrackedMap<string, AuthorizationCodeRecord>;
  readonly refreshTokens: TrackedMap<string, StoredRefreshToken>;
  readonly accessTokens: TrackedMap<string, StoredOAuthAccessToken>;
  readonly revokedFamilies: TrackedMap<string, true>;
  /** Consents by `consentKey(userId, clientId)`. */
  readonly consents: TrackedMap<string, OAuthConsentRecord>;
}

/** Deletes every code, token and consent matching `doomed` (a scan: used only for app and account deletion). */
function deleteWhere(t: OAuthTables, doomed: (row: { readonly clientId: string; readonly userId: string }) => boolean): void {
  const dropAll = <V extends { readonly clientId: string; readonly userId: string }>(map: TrackedMap<string, V>): void => {
    const keys: string[] = [];
    for (const [key, row] of map.entries()) if (doomed(row)) keys.push(key);
    for (const key of keys) map.delete(key);
  };
  dropAll(t.codes);
  dropAll(t.refreshTokens);
  dropAll(t.accessTokens);
  dropAll(t.consents);
}

/** Deletes at most `max` rows of `map` with `expiresAt` at or before `expiredBy`; returns how many. */
function purgeMap<V extends { readonly expiresAt: number }>(map: TrackedMap<string, V>, expiredBy: number, max: number): number {
  const keys: string[] = [];
  for (const [key, row] of map.entries()) {
    if (keys.length >= max) break;
    if (row.expiresAt <= expiredBy) keys.push(key);
  }
  for (const key of keys) map.delete(key);
  return keys.length;
}

/**
 * Creates the OAuth part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @param accounts - Which accounts exist (a consent needs its account).
 * @returns The synchronous operations, plus the cascade of an account's deletion.
 * @example
 * ```ts
 * const oauth = createMemoryOAuth(journal, users);
 * oauth.insertApp(app).isOk(); // true
 * ```
 * @internal
 */
export function createMemoryOAuth(journal: Journal, accounts: Accounts): Sync<OAuthStore> & { deleteForUser(userId: string): void } {
  const t: OAuthTables = {
    apps: new TrackedMap(journal),
    codes: new TrackedMap(journal),
    refreshTokens: new TrackedMap(journal),
    accessTokens: new TrackedMap(journal),
    revokedFamilies: new TrackedMap(journal),
    consents: new TrackedMap(journal),
  };
  let nextSeq = 1;
  const put = (tokens: IssuedOAuthTokens): void => {
    t.accessTokens.set(tokens.accessToken.tokenHash, copyAccess(tokens.accessToken));
    t.refreshTokens.set(tokens.refreshToken.tokenHash, copyRefresh(tokens.refreshToken));
  };
  const revoked = (familyId: string): boolean => t.revokedFamilies.has(familyId);
  return {
    insertApp: (app) => {
      if (t.apps.has(app.clientId)) return err({ code: 'client_id_taken', clientId: app.clientId });
      t.apps.set(app.clientId, { app: copyApp(app), seq: nextSeq++ });
      return ok(copyApp(app));
    },
    findApp: (clientId) => {
      const stored = t.apps.get(clientId);
      return stored === undefined ? null : copyApp(stored.app);
    },
    listApps: () => [...t.apps.values()].sort((a, b) => a.seq - b.seq).map((s) => copyApp(s.app)),
    setAppSecretHash: (clientId, clientSecretHash) => {
      const stored = t.apps.get(clientId);
      if (stored === undefined) return err({ code: 'unknown_oauth_app', clientId });
      const app = { ...stored.app, clientSecretHash };
      t.apps.set(clientId, { app, seq: stored.seq });
      return ok(copyApp(app));
    },
    deleteApp: (clientId) => {
      const stored = t.apps.get(clientId);
      if (stored === undefined) return err({ code: 'unknown_oauth_app', clientId });
      deleteWhere(t, (row) => row.clientId === clientId);
      t.apps.delete(clientId);
      return ok(copyApp(stored.app));
    },
    insertAuthorizationCode: (record) => {
      if (t.codes.has(record.codeHash)) return err({ code: 'duplicate_digest' });
      t.codes.set(record.codeHash, copyCode(record));
      return ok(copyCode(record));
    },
    findAuthorizationCode: (codeHash) => {
      const record = t.codes.get(codeHash);
      return record === undefined ? null : copyCode(record);
    },
    redeemAuthorizationCode: (codeHash, tokens) => {
      const record = t.codes.get(codeHash);
      if (record === undefined || record.used) return false;
      t.codes.set(codeHash, { ...record, used: true });
      put(tokens);
      return true;
    },
    findRefreshToken: (tokenHash) => {
      const row = t.refreshTokens.get(tokenHash);
      return row === undefined ? null : { ...copyRefresh(row), familyRevoked: revoked(row.familyId) };
    },
    rotateRefreshToken: (usedTokenHash, tokens) => {
      const row = t.refreshTokens.get(usedTokenHash);
      if (row === undefined || row.used || revoked(row.familyId)) return false;
      t.refreshTokens.set(usedTokenHash, { ...row, used: true });
      put(tokens);
      return true;
    },
    findAccessToken: (tokenHash) => {
      const row = t.accessTokens.get(tokenHash);
      return row === undefined ? null : { ...copyAccess(row), familyRevoked: revoked(row.familyId) };
    },
    revokeFamily: (familyId) => {
      if (!revoked(familyId)) t.revokedFamilies.set(familyId, true);
    },
    revokeAccessToken: (tokenHash) => {
      t.accessTokens.delete(tokenHash);
    },
    purgeAuthorizationCodes: (expiredBy, limit) => purgeMap(t.codes, expiredBy, boundOf(limit)),
    purgeTokens: (expiredBy, limit) => {
      const max = boundOf(limit);
      const removed = purgeMap(t.accessTokens, expiredBy, max);
      const total = removed + purgeMap(t.refreshTokens, expiredBy, max - removed);
      forgetUnreferencedFamilies(t, max);
      return total;
    },
    ...consentOperations(t, accounts),
    revokeForUser: (userId) => {
      let deleted = 0;
      for (const rows of [t.codes, t.refreshTokens, t.accessTokens]) {
        for (const [k, row] of [...rows.entries()]) {
          if (row.userId !== userId) continue;
          rows.delete(k);
          if (rows !== t.codes) deleted++;
        }
      }
      return deleted;
    },
    deleteForUser: (userId) => deleteWhere(t, (row) => row.userId === userId),
  };
}

/** The consent operations (spec §2.4). */
function consentOperations(
  t: OAuthTables,
  accounts: Accounts,
): Pick<Sync<OAuthStore>, 'grantConsent' | 'findConsent' | 'listConsents' | 'revokeConsent'> {
  return {
    grantConsent: (record) => {
      if (!accounts.has(record.userId)) return err({ code: 'unknown_user', userId: record.userId });
      if (!t.apps.has(record.clientId)) return err({ code: 'unknown_oauth_app', clientId: record.clientId });
      const key = consentKey(record.userId, record.clientId);
      const stored: OAuthConsentRecord = {
        userId: record.userId,
        clientId: record.clientId,
        scopes: consentScopes(t.consents.get(key)?.scopes ?? [], record.scopes),
        grantedAt: record.grantedAt,
      };
      t.consents.set(key, stored);
      return ok(copyConsent(stored));
    },
    findConsent: (userId, clientId) => {
      const c = t.consents.get(consentKey(userId, clientId));
      return c === undefined ? null : copyConsent(c);
    },
    // a scan of every consent: the settings page lists one account's, rarely
    listConsents: (userId) =>
      [...t.consents.values()]
        .filter((c) => c.userId === userId)
        .sort((a, b) => a.grantedAt - b.grantedAt || (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0))
        .map(copyConsent),
    revokeConsent: (userId, clientId) => {
      const key = consentKey(userId, clientId);
      const c = t.consents.get(key);
      if (c === undefined) return err({ code: 'unknown_oauth_consent', userId, clientId });
      t.consents.delete(key);
      // the app loses what the approval gave it: its codes and tokens for this account
      for (const rows of [t.codes, t.refreshTokens, t.accessTokens]) {
        for (const [k, row] of [...rows.entries()]) if (row.userId === userId && row.clientId === clientId) rows.delete(k);
      }
      return ok(copyConsent(c));
    },
  };
}

// A revoked family nothing refers to any more has nothing left to refuse: at most `max` of them are forgotten.
function forgetUnreferencedFamilies(t: OAuthTables, max: number): void {
  if (t.revokedFamilies.size === 0) return;
  const referenced = new Set<string>();
  for (const rows of [t.accessTokens, t.refreshTokens, t.codes]) for (const row of rows.values()) referenced.add(row.familyId);
  let left = max;
  for (const [familyId] of [...t.revokedFamilies.entries()]) {
    if (left <= 0) return;
    if (referenced.has(familyId)) continue;
    t.revokedFamilies.delete(familyId);
    left--;
  }
}
