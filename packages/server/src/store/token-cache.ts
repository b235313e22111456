/**
 * A short-lived cache of what the three `Authorization` schemes read (spec §5.1): access tokens by digest, accounts
 * by id and by username key (the account `token-sudo` acts as), and OAuth access tokens (`Bearer`) by digest, so
 * that the check on every API request (spec §2.3, §4) costs no store round trip while the answer is fresh; and
 * {@link withTokenCache}, a {@link Store} that reads them through it and forgets them when this instance changes
 * them.
 *
 * Freshness: an entry lives `ttlMs` (default 1 second) from the moment its load began, so a token deleted (or an
 * account changed) by another instance on the same database is refused (or seen changed) here within `ttlMs`; a
 * change made through {@link withTokenCache} on this instance takes effect at once. Only found records are kept:
 * an unknown digest is what a guessing client sends, a new one each time, and keeping those would let it push out
 * every working token; a working client is never refused, so nothing is gained by remembering refusals.
 *
 * @module
 */
import type { OAuthAccessTokenRecord } from 'gatehouse-auth';
import type { AccessTokenRecord, AccessTokenStore, AccountStore, OAuthStore, Store, UserRecord } from './types.js';

/**
 * Settings of {@link createTokenCache}.
 */
export interface TokenCacheOptions {
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** How long an entry is served after its load began (default 1,000 ms); 0 keeps nothing. */
  readonly ttlMs?: number;
  /** Most entries (tokens and accounts together) kept; the least recently used goes first (default 10,000). */
  readonly maxEntries?: number;
}

/**
 * The default time to live and bound: 1 second, 10,000 entries.
 */
export const DEFAULT_TOKEN_CACHE_TTL_MS = 1_000;

/**
 * The default most entries: 10,000.
 */
export const DEFAULT_TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * Counters of a {@link TokenCache}.
 */
export interface TokenCacheStats {
  /** Lookups answered from the cache. */
  readonly hits: number;
  /** Lookups that went to the store (or joined a load already under way). */
  readonly misses: number;
  /** Entries kept now. */
  readonly entries: number;
}

/**
 * Tokens by digest, accounts by id and by username key, and OAuth access tokens by digest, each kept for a short
 * time (see {@link createTokenCache}).
 */
export interface TokenCache {
  /** The token with this digest: from the cache while fresh, else from `load` (kept when found). */
  token(digest: string, load: (digest: string) => Promise<AccessTokenRecord | null>): Promise<AccessTokenRecord | null>;
  /** The account with this id: from the cache while fresh, else from `load` (kept when found). */
  user(userId: string, load: (userId: string) => Promise<UserRecord | null>): Promise<UserRecord | null>;
  /** The account with this username key (the one `token-sudo` names): from the cache while fresh, else from `load`. */
  userByName(key: string, load: (key: string) => Promise<UserRecord | null>): Promise<UserRecord | null>;
  /** The OAuth access token with this digest (`Bearer`): from the cache while fresh, else from `load`. */
  bearer(tokenHash: string, load: (tokenHash: string) => Promise<OAuthAccessTokenRecord | null>): Promise<OAuthAccessTokenRecord | null>;
  /** Forgets the token with this digest at once (it was deleted on this instance). */
  invalidate(digest: string): void;
  /** Forgets the OAuth access token with this digest at once (it was revoked on this instance). */
  invalidateBearer(tokenHash: string): void;
  /** Forgets every OAuth access token of this family at once (the family was revoked on this instance). */
  invalidateFamily(familyId: string): void;
  /**
   * Forgets everything cached for the account at once: the account (by id and by name), every token it owns, every
   * OAuth access token it holds. A `token-sudo` pair is kept as its token, the token's owner and the account acted
   * as, so a pair in which the account is either side is forgotten too. Called when the account is changed or
   * deleted on this instance, and by whatever reports such a change from another instance.
   */
  invalidateUser(userId: string): void;
  /** Forgets everything (after a failed write whose effect is unknown). */
  clear(): void;
  /** The counters. */
  stats(): TokenCacheStats;
}

type Value =
  | { readonly kind: 'token'; readonly record: AccessTokenRecord }
  | { readonly kind: 'user'; readonly record: UserRecord }
  | { readonly kind: 'bearer'; readonly record: OAuthAccessTokenRecord };

interface Entry {
  readonly value: Value;
  readonly expiresAt: number;
}

const tokenKey = (digest: string): string => `t:${digest}`;
const userKey = (userId: string): string => `u:${userId}`;
const nameKey = (key: string): string => `n:${key}`;
const bearerKey = (tokenHash: string): string => `b:${tokenHash}`;

/** The groups an entry belongs to, for forgetting by account or by OAuth token family. */
function groupsOf(value: Value): readonly string[] {
  switch (value.kind) {
    case 'token':
      return [userKey(value.record.userId)];
    case 'user':
      return [userKey(value.record.id)];
    case 'bearer':
      return [userKey(value.record.userId), `f:${value.record.familyId}`];
  }
}

// Records are copied in and out (the Store contract's rule): a caller never holds a reference into the cache.
const copyToken = (r: AccessTokenRecord): AccessTokenRecord => ({ ...r, scopes: [...r.scopes] });
const copyUser = (r: UserRecord): UserRecord => ({ ...r, emails: r.emails.map((e) => ({ ...e })) });
const copyBearer = (r: OAuthAccessTokenRecord): OAuthAccessTokenRecord => ({ ...r, scopes: [...r.scopes] });

function bound(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value));
}

/**
 * Creates an empty token cache. Concurrent lookups of one key share one load. A load under way when an
 * invalidation happens is not kept (it may have read the state from before the change); its callers get what it
 * read, as they would have without a cache.
 *
 * @param options - The clock, the time to live and the bound.
 * @returns The cache.
 *
 * @example
 * ```ts
 * const cache = createTokenCache({ now: Date.now });
 * await cache.token(digest, load); // loads: a miss
 * await cache.token(digest, load); // within 1 s: a hit, no load
 * cache.invalidate(digest);        // the next lookup loads again
 * ```
 */
export function createTokenCache(options: TokenCacheOptions): TokenCache {
  const { now } = options;
  const ttlMs = bound(options.ttlMs, DEFAULT_TOKEN_CACHE_TTL_MS);
  const maxEntries = bound(options.maxEntries, DEFAULT_TOKEN_CACHE_MAX_ENTRIES);
  // A Map iterates in insertion order: re-inserting an entry on use keeps the least recently used first.
  const entries = new Map<string, Entry>();
  /** The keys of the entries in each group (an account's, an OAuth token family's), to forget them together. */
  const members = new Map<string, Set<string>>();
  const loading = new Map<string, Promise<Value | null>>();
  /** Counts invalidations: a load that saw it change while under way is not kept. */
  let epoch = 0;
  let hits = 0;
  let misses = 0;

  function remove(key: string): void {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    for (const group of groupsOf(entry.value)) {
      const keys = members.get(group);
      keys?.delete(key);
      if (keys?.size === 0) members.delete(group);
    }
  }

  function keep(key: string, value: Value, expiresAt: number): void {
    remove(key);
    entries.set(key, { value, expiresAt });
    for (const group of groupsOf(value)) {
      const keys = members.get(group) ?? new Set<string>();
      keys.add(key);
      members.set(group, keys);
    }
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      remove(oldest);
    }
  }

  function lookup(key: string, load: () => Promise<Value | null>): Promise<Value | null> {
    const startedAt = now();
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt > startedAt) {
      hits++;
      entries.delete(key);
      entries.set(key, entry);
      return Promise.resolve(entry.value);
    }
    remove(key);
    misses++;
    const under = loading.get(key);
    if (under !== undefined) return under;
    const epochAtStart = epoch;
    const loaded = load().then((value) => {
      if (value !== null && epoch === epochAtStart && ttlMs > 0 && maxEntries > 0) keep(key, value, startedAt + ttlMs);
      return value;
    });
    loading.set(key, loaded);
    const settle = (): void => {
      if (loading.get(key) === loaded) loading.delete(key);
    };
    void loaded.then(settle, settle);
    return loaded;
  }

  function forget(key: string): void {
    epoch++;
    remove(key);
    loading.delete(key);
  }

  function forgetGroup(group: string): void {
    epoch++;
    for (const key of [...(members.get(group) ?? [])]) forget(key);
  }

  return {
    async token(digest, load) {
      const value = await lookup(tokenKey(digest), async () => {
        const record = await load(digest);
        return record === null ? null : { kind: 'token', record: copyToken(record) };
      });
      return value?.kind === 'token' ? copyToken(value.record) : null;
    },
    async user(userId, load) {
      const value = await lookup(userKey(userId), async () => {
        const record = await load(userId);
        return record === null ? null : { kind: 'user', record: copyUser(record) };
      });
      return value?.kind === 'user' ? copyUser(value.record) : null;
    },
    async userByName(key, load) {
      const value = await lookup(nameKey(key), async () => {
        const record = await load(key);
        return record === null ? null : { kind: 'user', record: copyUser(record) };
      });
      return value?.kind === 'user' ? copyUser(value.record) : null;
    },
    async bearer(tokenHash, load) {
      const value = await lookup(bearerKey(tokenHash), async () => {
        const record = await load(tokenHash);
        return record === null ? null : { kind: 'bearer', record: copyBearer(record) };
      });
      return value?.kind === 'bearer' ? copyBearer(value.record) : null;
    },
    invalidate: (digest) => forget(tokenKey(digest)),
    invalidateBearer: (tokenHash) => forget(bearerKey(tokenHash)),
    invalidateFamily: (familyId) => forgetGroup(`f:${familyId}`),
    invalidateUser(userId) {
      // the account by id, and every entry of its group: its tokens, its OAuth tokens, its entries by username
      forget(userKey(userId));
      forgetGroup(userKey(userId));
    },
    clear() {
      epoch++;
      entries.clear();
      members.clear();
      loading.clear();
    },
    stats: () => ({ hits, misses, entries: entries.size }),
  };
}

/** Invalidations made inside a transaction, replayed when it settles (a reader may have loaded the old state meanwhile). */
type Replay = ((cache: TokenCache) => void)[];

function cachedAccounts(accounts: AccountStore, cache: TokenCache, replay: Replay | null): AccountStore {
  const changed = async <T>(userId: string, write: Promise<T>): Promise<T> => {
    const forgetUser = (c: TokenCache): void => c.invalidateUser(userId);
    replay?.push(forgetUser);
    // forgotten whatever the outcome: a rejected write may still have happened
    const done = (): void => forgetUser(cache);
    return write.finally(done);
  };
  return {
    create: (input) => accounts.create(input),
    // inside a transaction every read goes to the transaction: it must see its own writes, never the cache
    get: (id) => (replay === null ? cache.user(id, (i) => accounts.get(i)) : accounts.get(id)),
    findByUsernameKey: (key) => accounts.findByUsernameKey(key),
    findByVerifiedEmailKey: (key) => accounts.findByVerifiedEmailKey(key),
    findByExternalAccountKey: (key) => accounts.findByExternalAccountKey(key),
    list: (page) => accounts.list(page),
    count: () => accounts.count(),
    countSiteAdmins: () => accounts.countSiteAdmins(),
    countActiveSiteAdmins: () => accounts.countActiveSiteAdmins(),
    setSuspended: (userId, suspendedAt) => changed(userId, accounts.setSuspended(userId, suspendedAt)),
    setSiteAdmin: (userId, siteAdmin) => changed(userId, accounts.setSiteAdmin(userId, siteAdmin)),
    setPasswordHash: (userId, hash) => changed(userId, accounts.setPasswordHash(userId, hash)),
    setEmails: (userId, emails) => changed(userId, accounts.setEmails(userId, emails)),
    setUsername: (userId, username) => changed(userId, accounts.setUsername(userId, username)),
    delete: (userId) => changed(userId, accounts.delete(userId)),
    link: (input) => accounts.link(input),
    links: (userId) => accounts.links(userId),
    unlink: (userId, ref) => accounts.unlink(userId, ref),
    putCredential: (input) => accounts.putCredential(input),
    credentials: (userId) => accounts.credentials(userId),
    deleteCredential: (userId, serviceType, serviceId) => accounts.deleteCredential(userId, serviceType, serviceId),
    recordIdentityFacts: (ref, facts, at) => accounts.recordIdentityFacts(ref, facts, at),
    identitiesOf: (userIds) => accounts.identitiesOf(userIds),
    signInPage: (first, after) => accounts.signInPage(first, after),
  };
}

function cachedAccessTokens(tokens: AccessTokenStore, cache: TokenCache, replay: Replay | null): AccessTokenStore {
  return {
    create: (input) => tokens.create(input),
    findByDigest: (digest) => (replay === null ? cache.token(digest, (d) => tokens.findByDigest(d)) : tokens.findByDigest(digest)),
    get: (id) => tokens.get(id),
    list: (userId) => tokens.list(userId),
    count: (userId) => tokens.count(userId),
    async delete(id) {
      const deleted = await tokens.delete(id).catch((error: unknown) => {
        // the token may or may not be gone, and its digest is unknown here: forget every token
        cache.clear();
        replay?.push((c) => c.clear());
        return Promise.reject(error);
      });
      if (deleted.isOk()) {
        const digest = deleted.value.digest;
        cache.invalidate(digest);
        replay?.push((c) => c.invalidate(digest));
      }
      return deleted;
    },
    // every token of the account goes: forget the account with its tokens, at once and when the transaction settles
    deleteForUser(userId) {
      replay?.push((c) => c.invalidateUser(userId));
      return tokens.deleteForUser(userId).finally(() => cache.invalidateUser(userId));
    },
    // a use changes only `lastUsedAt`, which a cached record may show up to the time to live late: nothing to forget
    touch: (id, at) => tokens.touch(id, at),
  };
}

function cachedOAuth(oauth: OAuthStore, cache: TokenCache, replay: Replay | null): OAuthStore {
  /** Runs a write and forgets what it may have revoked, whatever its outcome (at the write and when its transaction settles). */
  const revoking = async <T>(forget: (c: TokenCache) => void, write: Promise<T>): Promise<T> => {
    replay?.push(forget);
    return write.finally(() => forget(cache));
  };
  // an OAuth access token whose app is gone: its digest and owners are unknown here, so every cached entry goes
  const forgetAll = (c: TokenCache): void => c.clear();
  return {
    insertApp: (app) => oauth.insertApp(app),
    findApp: (clientId) => oauth.findApp(clientId),
    listApps: () => oauth.listApps(),
    setAppSecretHash: (clientId, hash) => oauth.setAppSecretHash(clientId, hash),
    deleteApp: (clientId) => revoking(forgetAll, oauth.deleteApp(clientId)),
    // every OAuth token of the account goes: forget the account with everything cached for it
    revokeForUser: (userId) => revoking((c) => c.invalidateUser(userId), oauth.revokeForUser(userId)),
    insertAuthorizationCode: (record) => oauth.insertAuthorizationCode(record),
    findAuthorizationCode: (codeHash) => oauth.findAuthorizationCode(codeHash),
    redeemAuthorizationCode: (codeHash, tokens) => oauth.redeemAuthorizationCode(codeHash, tokens),
    findRefreshToken: (tokenHash) => oauth.findRefreshToken(tokenHash),
    rotateRefreshToken: (usedTokenHash, tokens) => oauth.rotateRefreshToken(usedTokenHash, tokens),
    // the record carries its expiry and its family's revocation: the caller's decision reads them at every use
    findAccessToken: (tokenHash) =>
      replay === null ? cache.bearer(tokenHash, (h) => oauth.findAccessToken(h)) : oauth.findAccessToken(tokenHash),
    revokeFamily: (familyId) => revoking((c) => c.invalidateFamily(familyId), oauth.revokeFamily(familyId)),
    revokeAccessToken: (tokenHash) => revoking((c) => c.invalidateBearer(tokenHash), oauth.revokeAccessToken(tokenHash)),
    purgeAuthorizationCodes: (expiredBy, limit) => oauth.purgeAuthorizationCodes(expiredBy, limit),
    // only expired tokens are purged, and an expired cached record is refused by its expiry
    purgeTokens: (expiredBy, limit) => oauth.purgeTokens(expiredBy, limit),
    grantConsent: (record) => oauth.grantConsent(record),
    findConsent: (userId, clientId) => oauth.findConsent(userId, clientId),
    listConsents: (userId) => oauth.listConsents(userId),
    // forgetting an approval deletes the account's tokens for the app
    revokeConsent: (userId, clientId) => revoking((c) => c.invalidateUser(userId), oauth.revokeConsent(userId, clientId)),
  };
}

function wrap(store: Store, cache: TokenCache, replay: Replay | null): Store {
  return {
    accounts: cachedAccounts(store.accounts, cache, replay),
    accessTokens: cachedAccessTokens(store.accessTokens, cache, replay),
    sessions: store.sessions,
    oauth: cachedOAuth(store.oauth, cache, replay),
    audit: store.audit,
    ephemeral: store.ephemeral,
    lockouts: store.lockouts,
    links: store.links,
    outbox: store.outbox,
    transaction(work) {
      if (replay !== null) return store.transaction((tx) => work(wrap(tx, cache, replay)));
      const own: Replay = [];
      const settle = (): void => {
        for (const invalidation of own) invalidation(cache);
      };
      return store.transaction((tx) => work(wrap(tx, cache, own))).finally(settle);
    },
    close: () => store.close(),
    ...(store.ping === undefined ? {} : { ping: store.ping }),
  };
}

/**
 * A {@link Store} that answers `accessTokens.findByDigest`, `accounts.get` and `oauth.findAccessToken` from `cache`
 * while fresh, and forgets a token when it is deleted through it, an account (with its tokens) when it is changed or
 * deleted through it, an OAuth access token when it (or its family, app or approval) is revoked through it, also
 * inside transactions (at the write and again when the transaction settles). Reads inside a transaction
 * never use the cache. Everything else goes straight to `store`.
 *
 * @param store - The store to read through.
 * @param cache - The cache; one per server instance.
 * @returns The store to give the server instead of `store`.
 *
 * @example
 * ```ts
 * const store = withTokenCache(await openStore(options), createTokenCache({ now: Date.now }));
 * ```
 */
export function withTokenCache(store: Store, cache: TokenCache): Store {
  return wrap(store, cache, null);
}
