/**
 * The flat view of the store, for tests: one method per operation (`createUser`, `getUser`, `findUserByUsername`,
 * `deleteExternalAccount(…, guard)`, …), each served by the grouped store of `packages/server/src/store/types.ts` with the
 * core's lookup keys, or by one transaction where it reads before it writes. Tests arrange and inspect state
 * through it; the server calls the grouped store directly.
 *
 * @module
 */
import { err } from 'neverthrow';
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';
import type { AccountOrigin } from '../../../../src/core/account-directory.js';
import { emailMatchKey, externalAccountKey, usernameKey } from '../../../../src/core/store-keys.js';
import type {
  AccessTokenRecord,
  AuditEntry,
  AuditQuery,
  EmailRecord,
  ExternalAccountRecord,
  NewAccessToken,
  NewAuditEntry,
  ProviderCredentialRecord,
  SessionRecord,
  Store as GroupedStore,
  StoreError as GroupedStoreError,
  UserRecord,
} from '../../src/store/types.js';

export type {
  AccessTokenRecord,
  AuditEntry,
  AuditEvent,
  AuditQuery,
  EmailRecord,
  ExternalAccountRecord,
  NewAccessToken,
  NewAuditEntry,
  ProviderCredentialRecord,
  SessionRecord,
  UserRecord,
} from '../../src/store/types.js';

/**
 * The input of {@link FlatStore.createUser}.
 *
 * @example
 * ```ts
 * const input: NewUser = {
 *   username: 'alice', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [],
 *   passwordHash: null, createdAt: 0,
 * };
 * ```
 */
export interface NewUser {
  /** The username; must not be taken (ASCII case ignored). */
  readonly username: string;
  /** How the account comes to be: every creator says it (administrator, password sign-up, provider sign-in, service account). */
  readonly origin: AccountOrigin;
  /** Whether the account is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether the account is a service account. */
  readonly serviceAccount: boolean;
  /** Email addresses, primary first; a verified one must not be verified on another account. */
  readonly emails: readonly EmailRecord[];
  /** The scrypt hash of the built-in password, or `null`. */
  readonly passwordHash: string | null;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** An external account to link in the same atomic step (sign-up through a provider). */
  readonly externalAccount?: Omit<ExternalAccountRecord, 'userId'>;
}

/**
 * Why a store operation refused (nothing was changed).
 *
 * @example
 * ```ts
 * const e: FlatStoreError = { code: 'username_taken', username: 'alice' };
 * ```
 */
export type FlatStoreError =
  /** Another account already has this username (ASCII case ignored). */
  | { readonly code: 'username_taken'; readonly username: string }
  /** Another account already has this email verified. */
  | { readonly code: 'email_taken'; readonly email: string }
  /** No account has this id. */
  | { readonly code: 'unknown_user'; readonly userId: string }
  /** No access token has this id. */
  | { readonly code: 'unknown_access_token'; readonly id: string }
  /** The identity is already linked to an account. */
  | { readonly code: 'external_account_taken'; readonly serviceType: string; readonly accountId: string }
  /** A token or session with the same digest exists already (a random-source failure). */
  | { readonly code: 'duplicate_digest' }
  /** The account has no such linked identity (or no such stored credentials). */
  | { readonly code: 'unknown_external_account'; readonly serviceType: string; readonly accountId: string }
  /** The caller's guard refused the change (for example: it would remove the last way to sign in). */
  | { readonly code: 'guard_refused' };

/**
 * The flat view of a store: one method per operation. Every method is atomic: on `err`, nothing changed.
 *
 * @example
 * ```ts
 * const store: FlatStore = flatStoreOf(createMemoryStore());
 * const user = await store.findUserByUsername('alice');
 * ```
 */
export interface FlatStore {
  /** Creates an account (and links `externalAccount`, if given) or changes nothing. */
  createUser(input: NewUser): Promise<Result<UserRecord, FlatStoreError>>;
  /** The account with this id, or `null`. */
  getUser(id: string): Promise<UserRecord | null>;
  /**
   * The account with this username, or `null`: an indexed lookup. Usernames are compared with only the ASCII
   * letters `A`–`Z` lowercased (the rule of the core's account directory).
   */
  findUserByUsername(username: string): Promise<UserRecord | null>;
  /**
   * The account on which this email is verified, or `null` (an unverified address never matches): an indexed
   * lookup. Addresses are compared by the core's email match key (the whole address, ASCII `A`–`Z` lowercased).
   */
  findUserByVerifiedEmail(email: string): Promise<UserRecord | null>;
  /** The account this identity at a provider is linked to, or `null`: an indexed lookup. */
  findUserByExternalAccount(serviceType: string, serviceId: string, accountId: string): Promise<UserRecord | null>;
  /** Every account, oldest first (a full listing: administration only, never on a sign-in path). */
  listUsers(): Promise<readonly UserRecord[]>;
  /** Grants or revokes site administration. */
  setSiteAdmin(userId: string, siteAdmin: boolean): Promise<Result<UserRecord, FlatStoreError>>;
  /** Replaces the built-in password hash. */
  setPasswordHash(userId: string, passwordHash: string | null): Promise<Result<UserRecord, FlatStoreError>>;
  /** Links an identity at a provider to an account. */
  addExternalAccount(input: ExternalAccountRecord): Promise<Result<ExternalAccountRecord, FlatStoreError>>;
  /** The link for this identity, or `null`. */
  findExternalAccount(serviceType: string, serviceId: string, accountId: string): Promise<ExternalAccountRecord | null>;
  /** Every identity linked to an account, oldest link first: an indexed lookup. */
  listExternalAccounts(userId: string): Promise<readonly ExternalAccountRecord[]>;
  /**
   * Unlinks an identity from an account. `guard`, when given, sees the links that would remain and the account,
   * inside the same atomic step, and may refuse (`guard_refused`): the check and the removal cannot interleave
   * with another change.
   */
  deleteExternalAccount(
    userId: string,
    serviceType: string,
    serviceId: string,
    accountId: string,
    guard?: (remaining: readonly ExternalAccountRecord[], user: UserRecord) => boolean,
  ): Promise<Result<ExternalAccountRecord, FlatStoreError>>;
  /** Stores (or replaces) an account's credentials for one provider. */
  putProviderCredential(input: ProviderCredentialRecord): Promise<Result<ProviderCredentialRecord, FlatStoreError>>;
  /** The credentials an account stored, oldest first. */
  listProviderCredentials(userId: string): Promise<readonly ProviderCredentialRecord[]>;
  /** Removes an account's credentials for one provider. */
  deleteProviderCredential(userId: string, serviceType: string, serviceId: string): Promise<Result<ProviderCredentialRecord, FlatStoreError>>;
  /** Stores a new access token (by digest). */
  createAccessToken(input: NewAccessToken): Promise<Result<AccessTokenRecord, FlatStoreError>>;
  /** The token with this digest, or `null`. */
  findAccessTokenByDigest(digest: string): Promise<AccessTokenRecord | null>;
  /** The token with this id, or `null`. */
  getAccessToken(id: string): Promise<AccessTokenRecord | null>;
  /** The tokens an account owns, oldest first. */
  listAccessTokens(userId: string): Promise<readonly AccessTokenRecord[]>;
  /** Deletes a token; it stops working at once. */
  deleteAccessToken(id: string): Promise<Result<AccessTokenRecord, FlatStoreError>>;
  /**
   * Stores a new session (by digest) and, in the same atomic step, deletes the account's oldest sessions (smallest
   * `createdAt`; among equals, the first stored) so that at most `maxSessionsPerUser` remain, the new one included:
   * the per-account session quota (the core's `DEFAULT_MAX_SESSIONS_PER_ACCOUNT`). A bound below 1 counts as 1.
   */
  createSession(session: SessionRecord, maxSessionsPerUser: number): Promise<Result<SessionRecord, FlatStoreError>>;
  /** The session with this digest, or `null` (an expired one may still be returned until it is purged). */
  findSessionByDigest(digest: string): Promise<SessionRecord | null>;
  /** Deletes a session; returns whether one existed. */
  deleteSession(digest: string): Promise<boolean>;
  /**
   * Deletes at most `limit` sessions whose `expiresAt` is at or before `expiredBy`; returns how many it deleted.
   * It returns fewer than `limit` only when no such session remains, so a caller repeats full batches.
   */
  purgeExpiredSessions(expiredBy: number, limit: number): Promise<number>;
  /**
   * Appends an audit entry and returns it with its id, `count` 1 and `firstAt` = `lastAt` = `timestamp`. When the
   * input has a `coalesceKey` and a kept entry was stored with the same key, that entry is updated instead, in the
   * same atomic step (`count + 1`, `lastAt` the later of the two times, `details` the core's
   * `coalesceAuditDetails(kept.details, entry.details)`), and returned. Appending costs O(1)
   * whatever the number of entries; no entry is ever evicted to make room (entries leave only by
   * {@link FlatStore.purgeAudit}).
   */
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  /**
   * At most `first` audit entries, newest first (by id, that is by first occurrence), that match `query`: with
   * `query.before`, only entries whose id is lower (a keyset cursor: paging with the last id of each page reaches
   * every kept entry exactly once, whatever is appended meanwhile); with `entity`, `action` or `actorUserId`, only
   * entries with exactly that value. A `before` that is not an entry id (a decimal integer from 1) lists nothing.
   * A store must not copy or sort the whole log per call: the cursor is a seek (an index on id), and a filtered
   * listing may scan down from the cursor but stops as soon as it has `first` matches (a store with indexes on
   * `entity`, `action` or `actorUserId` may use them instead).
   */
  listAudit(first: number, query?: AuditQuery): Promise<readonly AuditEntry[]>;
  /**
   * Removes audit entries past their retention: at most `limit`, oldest first, each one whose `lastAt` is before
   * `before` (the core's `purgeCutoffs`); returns how many it removed. An entry whose `lastAt` is at or after
   * `before` is never removed. It may stop at the first entry it keeps (entries are stored in time order), so
   * an expired entry behind a kept one waits for a later run.
   */
  purgeAudit(before: number, limit: number): Promise<number>;
}

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
    .with({ code: 'client_id_taken' }, { code: 'unknown_oauth_app' }, { code: 'unknown_oauth_consent' }, () => ({ code: 'unknown_user', userId: '' }))
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
  };
}
