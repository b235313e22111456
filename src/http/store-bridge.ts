/**
 * The flat store interface of the provider flows, served by a grouped {@link GroupedStore}: the server keeps its
 * state in the grouped store (`createMemoryStore` of `store/`), and the modules that still call the flat
 * methods (`findUserByUsername`, `deleteExternalAccount(…, guard)`, …) reach it through this view. Each flat
 * method is one grouped call with the core's lookup key, or one transaction where it reads before it writes.
 *
 * @module
 */
import { err } from 'neverthrow';
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { emailMatchKey, externalAccountKey, usernameKey } from '../core/store-keys.js';
import type { OAuthStore as FlatOAuthStore } from './oauth-idp.js';
import type { ExternalAccountRecord, Store as FlatStore, StoreError as FlatStoreError, UserRecord } from './store.js';
import type { Store as GroupedStore, StoreError as GroupedStoreError } from './store/types.js';

/** How many accounts one page of the flat `listUsers` reads at a time. */
const LIST_PAGE = 1000;

/**
 * The flat store error of a grouped one. The OAuth app codes never come from the account, token and session
 * operations the flat interface maps; they read as an unknown user should they ever.
 *
 * @param error - The grouped store's refusal.
 * @returns The flat store's.
 *
 * @example
 * ```ts
 * flatError({ code: 'duplicate_digest' }); // { code: 'duplicate_digest' }
 * ```
 */
export function flatError(error: GroupedStoreError): FlatStoreError {
  return match(error)
    .returnType<FlatStoreError>()
    .with(
      { code: 'username_taken' },
      { code: 'email_taken' },
      { code: 'unknown_user' },
      { code: 'unknown_access_token' },
      { code: 'external_account_taken' },
      { code: 'unknown_external_account' },
      { code: 'duplicate_digest' },
      (e) => e,
    )
    .with({ code: 'client_id_taken' }, { code: 'unknown_oauth_app' }, () => ({ code: 'unknown_user', userId: '' }))
    .exhaustive();
}

/** A grouped result as a flat one. */
async function flat<T>(result: Promise<Result<T, GroupedStoreError>>): Promise<Result<T, FlatStoreError>> {
  return (await result).mapErr(flatError);
}

/** Why an unlink was refused inside its transaction. */
type UnlinkRefusal = GroupedStoreError | { readonly code: 'guard_refused' };

/**
 * The flat view of a grouped store.
 *
 * @param store - The grouped store.
 * @returns The flat store over it (no state of its own).
 *
 * @example
 * ```ts
 * const flatStore = flatStoreOf(createMemoryStore());
 * await flatStore.findUserByUsername('Alice');
 * ```
 */
export function flatStoreOf(store: GroupedStore): FlatStore {
  const { accounts, accessTokens, sessions, audit } = store;
  return {
    createUser: (input) => {
      const { username, externalAccount, ...rest } = input;
      return flat(accounts.create({ ...rest, usernames: [username], ...(externalAccount === undefined ? {} : { externalAccount }) }));
    },
    getUser: (id) => accounts.get(id),
    findUserByUsername: (username) => accounts.findByUsernameKey(usernameKey(username)),
    findUserByVerifiedEmail: (email) => accounts.findByVerifiedEmailKey(emailMatchKey(email)),
    findUserByExternalAccount: (serviceType, serviceId, accountId) =>
      accounts.findByExternalAccountKey(externalAccountKey(serviceType, serviceId, accountId)),
    async listUsers() {
      const all: UserRecord[] = [];
      for (let page = await accounts.list({ first: LIST_PAGE }); page.length > 0; ) {
        all.push(...page);
        const last = page[page.length - 1];
        if (page.length < LIST_PAGE || last === undefined) break;
        page = await accounts.list({ first: LIST_PAGE, after: last.id });
      }
      return all;
    },
    setSiteAdmin: (userId, siteAdmin) => flat(accounts.setSiteAdmin(userId, siteAdmin)),
    setPasswordHash: (userId, passwordHash) => flat(accounts.setPasswordHash(userId, passwordHash)),
    addExternalAccount: (input) => flat(accounts.link(input)),
    async findExternalAccount(serviceType, serviceId, accountId) {
      const user = await accounts.findByExternalAccountKey(externalAccountKey(serviceType, serviceId, accountId));
      if (user === null) return null;
      const links = await accounts.links(user.id);
      return links.find((l) => l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId) ?? null;
    },
    listExternalAccounts: (userId) => accounts.links(userId),
    async deleteExternalAccount(userId, serviceType, serviceId, accountId, guard) {
      // the guard sees the links that would remain, in the same transaction as the unlink
      const result = await store.transaction(async (tx): Promise<Result<ExternalAccountRecord, UnlinkRefusal>> => {
        const user = await tx.accounts.get(userId);
        if (user === null) return err({ code: 'unknown_user', userId });
        const links = await tx.accounts.links(userId);
        const isTarget = (l: ExternalAccountRecord): boolean => l.serviceType === serviceType && l.serviceId === serviceId && l.accountId === accountId;
        if (!links.some(isTarget)) return err({ code: 'unknown_external_account', serviceType, accountId });
        if (guard !== undefined && !guard(links.filter((l) => !isTarget(l)), user)) return err({ code: 'guard_refused' });
        return tx.accounts.unlink(userId, { serviceType, serviceId, accountId });
      });
      return result.mapErr((e) => (e.code === 'guard_refused' ? { code: 'guard_refused' } : flatError(e)));
    },
    putProviderCredential: (input) => flat(accounts.putCredential(input)),
    listProviderCredentials: (userId) => accounts.credentials(userId),
    deleteProviderCredential: (userId, serviceType, serviceId) => flat(accounts.deleteCredential(userId, serviceType, serviceId)),
    createAccessToken: (input) => flat(accessTokens.create(input)),
    findAccessTokenByDigest: (digest) => accessTokens.findByDigest(digest),
    getAccessToken: (id) => accessTokens.get(id),
    listAccessTokens: (userId) => accessTokens.list(userId),
    deleteAccessToken: (id) => flat(accessTokens.delete(id)),
    createSession: (session, maxSessionsPerUser) => flat(sessions.create(session, maxSessionsPerUser)),
    findSessionByDigest: (digest) => sessions.findByDigest(digest),
    deleteSession: (digest) => sessions.delete(digest),
    purgeExpiredSessions: (expiredBy, limit) => sessions.purgeExpired(expiredBy, limit),
    appendAudit: (entry) => audit.append(entry),
    listAudit: (first, query) => audit.list(first, query),
    purgeAudit: (before, limit) => audit.purge(before, limit),
    oauth: flatOAuthStoreOf(store),
  };
}

/** The flat OAuth store of the authorization server, over the grouped `oauth` part. */
function flatOAuthStoreOf(store: GroupedStore): FlatOAuthStore {
  const { oauth } = store;
  return {
    insertApp: async (app) => (await oauth.insertApp(app)).isOk(),
    findApp: (clientId) => oauth.findApp(clientId),
    async insertAuthorizationCode(record) {
      const inserted = await oauth.insertAuthorizationCode(record);
      // a duplicate digest means the random source repeated itself: a fault, not a refusal to answer
      if (inserted.isErr()) throw new Error(`authorization code not stored: ${inserted.error.code}`);
    },
    findAuthorizationCode: (codeHash) => oauth.findAuthorizationCode(codeHash),
    redeemAuthorizationCode: (codeHash, tokens) => oauth.redeemAuthorizationCode(codeHash, tokens),
    findRefreshToken: (tokenHash) => oauth.findRefreshToken(tokenHash),
    rotateRefreshToken: (usedTokenHash, tokens) => oauth.rotateRefreshToken(usedTokenHash, tokens),
    findAccessToken: (tokenHash) => oauth.findAccessToken(tokenHash),
    revokeFamily: (familyId) => oauth.revokeFamily(familyId),
    purgeAuthorizationCodes: (expiredBy, limit) => oauth.purgeAuthorizationCodes(expiredBy, limit),
    revokeAccessToken: (tokenHash) => oauth.revokeAccessToken(tokenHash),
  };
}

/**
 * Whether a value is a grouped store (it has `accounts` and `transaction`) rather than a flat one.
 *
 * @param store - A store of either shape.
 * @returns `true` for a grouped store.
 *
 * @example
 * ```ts
 * isGroupedStore(createMemoryStore()); // true
 * ```
 */
export function isGroupedStore(store: FlatStore | GroupedStore): store is GroupedStore {
  return 'accounts' in store && 'transaction' in store;
}

