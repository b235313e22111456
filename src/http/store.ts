/**
 * The gatehouse store: accounts, emails, external accounts, access tokens, OAuth apps and tokens, sessions
 * and the audit log, behind one interface, with an in-memory implementation.
 *
 * Every operation is atomic: it checks everything first and then commits, so a failed operation leaves the
 * store exactly as it was, indexes included. Sign-in reads accounts only through the indexed lookups
 * (by username, by verified email, by linked identity), never through a full listing. Secrets never enter
 * the store: access tokens and sessions are kept by SHA-256 digest, passwords as scrypt hashes.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { createMemoryAuditLog } from './audit-log.js';
import { createMemoryOAuthStore } from './oauth-idp.js';
import type { OAuthStore } from './oauth-idp.js';
import type { AccessTokenScope } from '../core/access-token.js';
import type { AccountOrigin } from '../core/account-directory.js';
import { asciiLowercase, emailMatchKey } from '../core/internal/email-address.js';

/**
 * An email address on an account.
 *
 * @example
 * ```ts
 * const email: EmailRecord = { email: 'alice@example.com', verified: true };
 * ```
 */
export interface EmailRecord {
  /** The address as the person or the provider gave it. */
  readonly email: string;
  /** Whether the address was verified (by the provider, or by an administrator who created the account). */
  readonly verified: boolean;
}

/**
 * A user account (spec §1). Service accounts are accounts that only ever authenticate with access tokens.
 *
 * @example
 * ```ts
 * const user: UserRecord = {
 *   id: '1', username: 'alice', origin: 'admin_created', siteAdmin: false, serviceAccount: false,
 *   emails: [{ email: 'alice@example.com', verified: true }], passwordHash: null, createdAt: 0,
 * };
 * ```
 */
export interface UserRecord {
  /** Opaque, stable identifier. */
  readonly id: string;
  /** The username; unique ignoring ASCII case. */
  readonly username: string;
  /** How the account came to be; only an `admin_created` account may be found by a provider username (§5.4 rule 5). */
  readonly origin: AccountOrigin;
  /** Whether the account is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether the account is a service account (no password, no browser sign-in). */
  readonly serviceAccount: boolean;
  /** Email addresses, primary first. */
  readonly emails: readonly EmailRecord[];
  /** The scrypt hash of the built-in password, or `null` when the account has none. */
  readonly passwordHash: string | null;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
}

/**
 * A link between an account and an identity at an authentication provider (spec §5.4).
 *
 * @example
 * ```ts
 * const link: ExternalAccountRecord = {
 *   userId: '1', serviceType: 'hosta', serviceId: 'https://hosta.example.com/', accountId: '42', createdAt: 0,
 * };
 * ```
 */
export interface ExternalAccountRecord {
  /** The account the identity is linked to. */
  readonly userId: string;
  /** The provider type, such as `hosta` or `openidconnect`. */
  readonly serviceType: string;
  /** Which provider of that type (its URL, issuer or config id). */
  readonly serviceId: string;
  /** The identity's id at the provider. */
  readonly accountId: string;
  /** Link time, milliseconds since the epoch. */
  readonly createdAt: number;
}

/**
 * A stored access token (spec §2.3). Only the SHA-256 digest of the secret is kept.
 *
 * @example
 * ```ts
 * const token: AccessTokenRecord = {
 *   id: 't1', userId: '1', digest: 'ab…', scopes: ['user:all'], note: 'ci', createdAt: 0, expiresAt: null,
 * };
 * ```
 */
export interface AccessTokenRecord {
  /** Opaque identifier, safe to show and to log. */
  readonly id: string;
  /** The account that owns the token. */
  readonly userId: string;
  /** Lower-case hex SHA-256 digest of the secret. */
  readonly digest: string;
  /** The token's scopes. */
  readonly scopes: readonly AccessTokenScope[];
  /** What the owner wrote about the token. */
  readonly note: string;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** Expiry time in milliseconds since the epoch, or `null` for a token that does not expire. */
  readonly expiresAt: number | null;
}

/**
 * A browser session. Only the SHA-256 digest of the session id in the cookie is kept.
 *
 * @example
 * ```ts
 * const session: SessionRecord = { digest: 'cd…', userId: '1', createdAt: 0, expiresAt: 86_400_000 };
 * ```
 */
export interface SessionRecord {
  /** Lower-case hex SHA-256 digest of the cookie value. */
  readonly digest: string;
  /** The signed-in account. */
  readonly userId: string;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** Expiry time, milliseconds since the epoch. */
  readonly expiresAt: number;
}

/**
 * One audit log entry (spec §6). Never holds a secret or a raw header value.
 *
 * @example
 * ```ts
 * const entry: AuditEntry = {
 *   id: '1', timestamp: 0, entity: 'auth.accessToken', action: 'failed',
 *   reason: 'invalid Authorization header', actorUserId: null, subjectUserId: null, details: {},
 *   count: 1, firstAt: 0, lastAt: 0,
 * };
 * ```
 */
export interface AuditEntry {
  /** Sequential identifier. */
  readonly id: string;
  /** When it happened, milliseconds since the epoch. */
  readonly timestamp: number;
  /** What kind of thing it is about, such as `auth.accessToken`. */
  readonly entity: string;
  /** What happened, such as `failed` or `sudo`. */
  readonly action: string;
  /** Why, when there is a reason to give. */
  readonly reason: string | null;
  /** The account that acted, when known. */
  readonly actorUserId: string | null;
  /** The account acted upon, when there is one. */
  readonly subjectUserId: string | null;
  /**
   * The account `actorUserId` acted as, present only on entries made under `token-sudo` (spec §5.1 rule 2): the
   * actor is then the token's owner.
   */
  readonly impersonatedUserId?: string;
  /** Further non-secret facts (ids, scheme names, scopes, the client address of an anonymous failure). */
  readonly details: Readonly<Record<string, string>>;
  /** How many occurrences this entry stands for: 1, or more for a coalesced entry (see `coalesceKey` of {@link NewAuditEntry}). */
  readonly count: number;
  /** When the first occurrence happened (equal to `timestamp`), milliseconds since the epoch. */
  readonly firstAt: number;
  /** When the last occurrence happened, milliseconds since the epoch; the entry is kept by this time. */
  readonly lastAt: number;
}

/**
 * The input of {@link Store.appendAudit}: an entry without its id and occurrence fields.
 *
 * @example
 * ```ts
 * const input: NewAuditEntry = {
 *   timestamp: 0, entity: 'auth.accessToken', action: 'failed', reason: 'invalid Authorization header',
 *   actorUserId: null, subjectUserId: null, details: { scheme: 'basic', clientAddress: '203.0.113.7' },
 *   coalesceKey: '["auth.accessToken","failed","invalid Authorization header","203.0.113.7",0]',
 * };
 * ```
 */
export type NewAuditEntry = Omit<AuditEntry, 'id' | 'count' | 'firstAt' | 'lastAt'> & {
  /**
   * The core's `auditCoalescingKey` for this entry, when it has one: the store then counts this occurrence in the
   * kept entry with the same key, if there is one, instead of adding an entry.
   */
  readonly coalesceKey?: string;
};

/**
 * Which audit entries {@link Store.listAudit} returns: entries older than the cursor that match every filter given
 * (exact, case-sensitive comparison; an absent filter matches everything).
 *
 * @example
 * ```ts
 * const query: AuditQuery = { before: '120', entity: 'auth.accessToken', action: 'created' };
 * ```
 */
export interface AuditQuery {
  /** Only entries whose id is lower than this entry id (ids are sequential), so the id of a page's last entry fetches the next page. */
  readonly before?: string;
  /** Only entries with this `entity`. */
  readonly entity?: string;
  /** Only entries with this `action`. */
  readonly action?: string;
  /** Only entries with this `actorUserId`. */
  readonly actorUserId?: string;
}

/**
 * What a part of the server records: an audit entry before the clock stamps it.
 *
 * @example
 * ```ts
 * const event: AuditEvent = { entity: 'user', action: 'created', reason: null, actorUserId: '1', subjectUserId: '1', details: {} };
 * ```
 */
export type AuditEvent = Omit<NewAuditEntry, 'timestamp'>;

/**
 * The input of {@link Store.createUser}.
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
 * Credentials a person stored for a provider (the review host, spec §5.3 `reviewhost`), encrypted at rest:
 * the store only ever holds the AES-256-GCM ciphertext, never the secret.
 *
 * @example
 * ```ts
 * const c: ProviderCredentialRecord = {
 *   userId: '1', serviceType: 'reviewhost', serviceId: 'https://review.example.com', accountId: 'alice',
 *   sealed: 'v1.iv.tag.ciphertext', createdAt: 0,
 * };
 * ```
 */
export interface ProviderCredentialRecord {
  /** The account the credentials belong to. */
  readonly userId: string;
  /** The provider type (`reviewhost`). */
  readonly serviceType: string;
  /** Which provider of that type (its URL). */
  readonly serviceId: string;
  /** The person's username at the provider (safe to show). */
  readonly accountId: string;
  /** The encrypted secret (base64url parts); meaningless without the server's key. */
  readonly sealed: string;
  /** When they were stored, milliseconds since the epoch. */
  readonly createdAt: number;
}

/**
 * The input of {@link Store.createAccessToken}.
 *
 * @example
 * ```ts
 * const input: NewAccessToken = {
 *   userId: '1', digest: 'ab…', scopes: ['user:all'], note: 'ci', createdAt: 0, expiresAt: null,
 * };
 * ```
 */
export type NewAccessToken = Omit<AccessTokenRecord, 'id'>;

/**
 * Why a store operation refused (nothing was changed).
 *
 * @example
 * ```ts
 * const e: StoreError = { code: 'username_taken', username: 'alice' };
 * ```
 */
export type StoreError =
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
 * Where gatehouse keeps its state. Every method is atomic: on `err`, nothing changed.
 *
 * @example
 * ```ts
 * const store: Store = createMemoryStore();
 * const user = await store.findUserByUsername('alice');
 * ```
 */
export interface Store {
  /** Creates an account (and links `externalAccount`, if given) or changes nothing. */
  createUser(input: NewUser): Promise<Result<UserRecord, StoreError>>;
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
  setSiteAdmin(userId: string, siteAdmin: boolean): Promise<Result<UserRecord, StoreError>>;
  /** Replaces the built-in password hash. */
  setPasswordHash(userId: string, passwordHash: string | null): Promise<Result<UserRecord, StoreError>>;
  /** Links an identity at a provider to an account. */
  addExternalAccount(input: ExternalAccountRecord): Promise<Result<ExternalAccountRecord, StoreError>>;
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
  ): Promise<Result<ExternalAccountRecord, StoreError>>;
  /** Stores (or replaces) an account's credentials for one provider. */
  putProviderCredential(input: ProviderCredentialRecord): Promise<Result<ProviderCredentialRecord, StoreError>>;
  /** The credentials an account stored, oldest first. */
  listProviderCredentials(userId: string): Promise<readonly ProviderCredentialRecord[]>;
  /** Removes an account's credentials for one provider. */
  deleteProviderCredential(userId: string, serviceType: string, serviceId: string): Promise<Result<ProviderCredentialRecord, StoreError>>;
  /** Stores a new access token (by digest). */
  createAccessToken(input: NewAccessToken): Promise<Result<AccessTokenRecord, StoreError>>;
  /** The token with this digest, or `null`. */
  findAccessTokenByDigest(digest: string): Promise<AccessTokenRecord | null>;
  /** The token with this id, or `null`. */
  getAccessToken(id: string): Promise<AccessTokenRecord | null>;
  /** The tokens an account owns, oldest first. */
  listAccessTokens(userId: string): Promise<readonly AccessTokenRecord[]>;
  /** Deletes a token; it stops working at once. */
  deleteAccessToken(id: string): Promise<Result<AccessTokenRecord, StoreError>>;
  /**
   * Stores a new session (by digest) and, in the same atomic step, deletes the account's oldest sessions (smallest
   * `createdAt`; among equals, the first stored) so that at most `maxSessionsPerUser` remain, the new one included:
   * the per-account session quota (the core's `DEFAULT_MAX_SESSIONS_PER_ACCOUNT`). A bound below 1 counts as 1.
   */
  createSession(session: SessionRecord, maxSessionsPerUser: number): Promise<Result<SessionRecord, StoreError>>;
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
   * {@link Store.purgeAudit}).
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
  /** OAuth apps, authorization codes and OAuth tokens (used by the OAuth authorization server). */
  readonly oauth: OAuthStore;
}

/**
 * Options of {@link createMemoryStore}. The audit log has no size option: entries are kept by age (the server's
 * `auditRetentionDays`), never evicted by count.
 *
 * @example
 * ```ts
 * const options: MemoryStoreOptions = { oauth: createMemoryOAuthStore() };
 * ```
 */
export interface MemoryStoreOptions {
  /** The OAuth store to hold; defaults to a new in-memory one. */
  readonly oauth?: OAuthStore;
}

const usernameKey = (username: string): string => asciiLowercase(username);
const externalKey = (serviceType: string, serviceId: string, accountId: string): string =>
  JSON.stringify([serviceType, serviceId, accountId]);

/**
 * Creates an empty in-memory {@link Store}. Each method runs synchronously inside its promise, so no two
 * operations interleave: checks and commit happen in one step. Lookups by username, verified email and linked
 * identity, and the links of one account, are answered from indexes that every write keeps up to date in the
 * same step as the records.
 *
 * @param options - Optional limits and the OAuth store to hold.
 * @returns A new, empty store.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const created = await store.createUser({
 *   username: 'alice', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [],
 *   passwordHash: null, createdAt: 0,
 * });
 * created.isOk(); // true
 * (await store.createUser({ ...input, username: 'ALICE' })).isErr(); // true: username_taken
 * ```
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const users = new Map<string, UserRecord>();
  const userIdByName = new Map<string, string>();
  const userIdByVerifiedEmail = new Map<string, string>();
  const externals = new Map<string, ExternalAccountRecord>();
  // userId -> keys of `externals` linked to it, in link order
  const externalKeysByUser = new Map<string, Set<string>>();
  const tokens = new Map<string, AccessTokenRecord>();
  const tokenIdByDigest = new Map<string, string>();
  // insertion order; with one session lifetime per server that is also expiry order, so purges find expired ones first
  const sessions = new Map<string, SessionRecord>();
  // userId -> digests of its sessions, in creation order
  const sessionDigestsByUser = new Map<string, Set<string>>();
  const credentials = new Map<string, ProviderCredentialRecord>();
  const audit = createMemoryAuditLog();
  let nextUserId = 1;
  let nextTokenId = 1;

  const verifiedEmailConflict = (emails: readonly EmailRecord[], userId: string | null): string | null => {
    for (const e of emails) {
      if (!e.verified) continue;
      const owner = userIdByVerifiedEmail.get(emailMatchKey(e.email));
      if (owner !== undefined && owner !== userId) return e.email;
    }
    return null;
  };

  const linksOf = (userId: string): ExternalAccountRecord[] =>
    [...(externalKeysByUser.get(userId) ?? [])].flatMap((key) => {
      const record = externals.get(key);
      return record === undefined ? [] : [record];
    });
  // Commits one link: the record and the per-account index together (callers have checked everything).
  const commitLink = (key: string, record: ExternalAccountRecord): void => {
    externals.set(key, record);
    const keys = externalKeysByUser.get(record.userId);
    if (keys === undefined) externalKeysByUser.set(record.userId, new Set([key]));
    else keys.add(key);
  };

  const forgetSession = (digest: string): boolean => {
    const session = sessions.get(digest);
    if (session === undefined) return false;
    sessions.delete(digest);
    const own = sessionDigestsByUser.get(session.userId);
    own?.delete(digest);
    if (own !== undefined && own.size === 0) sessionDigestsByUser.delete(session.userId);
    return true;
  };

  const store: Store = {
    oauth: options.oauth ?? createMemoryOAuthStore(),

    async createUser(input) {
      const nameKey = usernameKey(input.username);
      if (userIdByName.has(nameKey)) return err({ code: 'username_taken', username: input.username });
      const emailConflict = verifiedEmailConflict(input.emails, null);
      if (emailConflict !== null) return err({ code: 'email_taken', email: emailConflict });
      const ext = input.externalAccount;
      if (ext !== undefined && externals.has(externalKey(ext.serviceType, ext.serviceId, ext.accountId))) {
        return err({ code: 'external_account_taken', serviceType: ext.serviceType, accountId: ext.accountId });
      }
      // every check passed: commit
      const id = String(nextUserId++);
      const user: UserRecord = {
        id,
        username: input.username,
        origin: input.origin,
        siteAdmin: input.siteAdmin,
        serviceAccount: input.serviceAccount,
        emails: input.emails.map((e) => ({ email: e.email, verified: e.verified })),
        passwordHash: input.passwordHash,
        createdAt: input.createdAt,
      };
      users.set(id, user);
      userIdByName.set(nameKey, id);
      for (const e of user.emails) if (e.verified) userIdByVerifiedEmail.set(emailMatchKey(e.email), id);
      if (ext !== undefined) {
        commitLink(externalKey(ext.serviceType, ext.serviceId, ext.accountId), { ...ext, userId: id });
      }
      return ok(user);
    },

    async getUser(id) {
      return users.get(id) ?? null;
    },

    async findUserByUsername(username) {
      const id = userIdByName.get(usernameKey(username));
      return id === undefined ? null : (users.get(id) ?? null);
    },

    async findUserByVerifiedEmail(email) {
      const id = userIdByVerifiedEmail.get(emailMatchKey(email));
      return id === undefined ? null : (users.get(id) ?? null);
    },

    async findUserByExternalAccount(serviceType, serviceId, accountId) {
      const link = externals.get(externalKey(serviceType, serviceId, accountId));
      return link === undefined ? null : (users.get(link.userId) ?? null);
    },

    async listUsers() {
      return [...users.values()];
    },

    async setSiteAdmin(userId, siteAdmin) {
      const user = users.get(userId);
      if (user === undefined) return err({ code: 'unknown_user', userId });
      const updated: UserRecord = { ...user, siteAdmin };
      users.set(userId, updated);
      return ok(updated);
    },

    async setPasswordHash(userId, passwordHash) {
      const user = users.get(userId);
      if (user === undefined) return err({ code: 'unknown_user', userId });
      const updated: UserRecord = { ...user, passwordHash };
      users.set(userId, updated);
      return ok(updated);
    },

    async addExternalAccount(input) {
      if (!users.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      const key = externalKey(input.serviceType, input.serviceId, input.accountId);
      if (externals.has(key)) {
        return err({ code: 'external_account_taken', serviceType: input.serviceType, accountId: input.accountId });
      }
      const record: ExternalAccountRecord = { ...input };
      commitLink(key, record);
      return ok(record);
    },

    async findExternalAccount(serviceType, serviceId, accountId) {
      return externals.get(externalKey(serviceType, serviceId, accountId)) ?? null;
    },

    async listExternalAccounts(userId) {
      return linksOf(userId);
    },

    async deleteExternalAccount(userId, serviceType, serviceId, accountId, guard) {
      const user = users.get(userId);
      if (user === undefined) return err({ code: 'unknown_user', userId });
      const key = externalKey(serviceType, serviceId, accountId);
      const record = externals.get(key);
      if (record === undefined || record.userId !== userId) return err({ code: 'unknown_external_account', serviceType, accountId });
      if (guard !== undefined) {
        const remaining = linksOf(userId).filter((e) => e !== record);
        if (!guard(remaining, user)) return err({ code: 'guard_refused' });
      }
      externals.delete(key);
      externalKeysByUser.get(userId)?.delete(key);
      return ok(record);
    },

    async putProviderCredential(input) {
      if (!users.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      const record: ProviderCredentialRecord = { ...input };
      credentials.set(JSON.stringify([input.userId, input.serviceType, input.serviceId]), record);
      return ok(record);
    },

    async listProviderCredentials(userId) {
      return [...credentials.values()].filter((c) => c.userId === userId);
    },

    async deleteProviderCredential(userId, serviceType, serviceId) {
      const key = JSON.stringify([userId, serviceType, serviceId]);
      const record = credentials.get(key);
      if (record === undefined) return err({ code: 'unknown_external_account', serviceType, accountId: '' });
      credentials.delete(key);
      return ok(record);
    },

    async createAccessToken(input) {
      if (!users.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      if (tokenIdByDigest.has(input.digest)) return err({ code: 'duplicate_digest' });
      const record: AccessTokenRecord = { ...input, scopes: [...input.scopes], id: String(nextTokenId++) };
      tokens.set(record.id, record);
      tokenIdByDigest.set(record.digest, record.id);
      return ok(record);
    },

    async findAccessTokenByDigest(digest) {
      const id = tokenIdByDigest.get(digest);
      return id === undefined ? null : (tokens.get(id) ?? null);
    },

    async getAccessToken(id) {
      return tokens.get(id) ?? null;
    },

    async listAccessTokens(userId) {
      return [...tokens.values()].filter((t) => t.userId === userId);
    },

    async deleteAccessToken(id) {
      const record = tokens.get(id);
      if (record === undefined) return err({ code: 'unknown_access_token', id });
      tokens.delete(id);
      tokenIdByDigest.delete(record.digest);
      return ok(record);
    },

    async createSession(session, maxSessionsPerUser) {
      if (!users.has(session.userId)) return err({ code: 'unknown_user', userId: session.userId });
      if (sessions.has(session.digest)) return err({ code: 'duplicate_digest' });
      const bound = Number.isSafeInteger(maxSessionsPerUser) && maxSessionsPerUser > 1 ? maxSessionsPerUser : 1;
      const own = sessionDigestsByUser.get(session.userId) ?? new Set<string>();
      // the quota: revoke the oldest until the new session fits (a bound of 50 makes this at most 50 steps)
      while (own.size >= bound) {
        let oldest: SessionRecord | null = null;
        for (const digest of own) {
          const s = sessions.get(digest);
          if (s !== undefined && (oldest === null || s.createdAt < oldest.createdAt)) oldest = s;
        }
        if (oldest === null) break;
        sessions.delete(oldest.digest);
        own.delete(oldest.digest);
      }
      const record: SessionRecord = { ...session };
      sessions.set(record.digest, record);
      own.add(record.digest);
      sessionDigestsByUser.set(record.userId, own);
      return ok(record);
    },

    async findSessionByDigest(digest) {
      return sessions.get(digest) ?? null;
    },

    async deleteSession(digest) {
      return forgetSession(digest);
    },

    async purgeExpiredSessions(expiredBy, limit) {
      const max = Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
      let removed = 0;
      for (const [digest, session] of sessions) {
        if (removed >= max) break;
        if (session.expiresAt <= expiredBy && forgetSession(digest)) removed++;
      }
      return removed;
    },

    async appendAudit(entry) {
      return audit.append(entry);
    },

    async listAudit(first, query) {
      return audit.list(first, query);
    },

    async purgeAudit(before, limit) {
      return audit.purge(before, limit);
    },
  };
  return store;
}
