/**
 * A short-lived cache of access tokens by digest and of their owners by id, so that the token check on every API
 * request (spec §2.3, §4) costs no store round trip while the answer is fresh; and {@link withTokenCache}, a
 * {@link Store} that reads tokens and accounts through it and forgets them when this instance changes them.
 *
 * Freshness: an entry lives `ttlMs` (default 1 second) from the moment its load began, so a token deleted (or an
 * account changed) by another instance on the same database is refused (or seen changed) here within `ttlMs`; a
 * change made through {@link withTokenCache} on this instance takes effect at once. Only found records are kept:
 * an unknown digest is what a guessing client sends, a new one each time, and keeping those would let it push out
 * every working token; a working client is never refused, so nothing is gained by remembering refusals.
 *
 * @module
 */
import type { AccessTokenRecord, AccessTokenStore, AccountStore, Store, UserRecord } from './types.js';

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
 * Tokens by digest and accounts by id, each kept for a short time (see {@link createTokenCache}).
 */
export interface TokenCache {
  /** The token with this digest: from the cache while fresh, else from `load` (kept when found). */
  token(digest: string, load: (digest: string) => Promise<AccessTokenRecord | null>): Promise<AccessTokenRecord | null>;
  /** The account with this id: from the cache while fresh, else from `load` (kept when found). */
  user(userId: string, load: (userId: string) => Promise<UserRecord | null>): Promise<UserRecord | null>;
  /** Forgets the token with this digest at once (it was deleted on this instance). */
  invalidate(digest: string): void;
  /** Forgets the account and every token it owns at once (it was changed or deleted on this instance). */
  invalidateUser(userId: string): void;
  /** Forgets everything (after a failed write whose effect is unknown). */
  clear(): void;
  /** The counters. */
  stats(): TokenCacheStats;
}

type Value = { readonly kind: 'token'; readonly record: AccessTokenRecord } | { readonly kind: 'user'; readonly record: UserRecord };

interface Entry {
  readonly value: Value;
  readonly expiresAt: number;
}

const tokenKey = (digest: string): string => `t:${digest}`;
const userKey = (userId: string): string => `u:${userId}`;

// Records are copied in and out (the Store contract's rule): a caller never holds a reference into the cache.
const copyToken = (r: AccessTokenRecord): AccessTokenRecord => ({ ...r, scopes: [...r.scopes] });
const copyUser = (r: UserRecord): UserRecord => ({ ...r, emails: r.emails.map((e) => ({ ...e })) });

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
  /** The token keys each account owns among the entries, for {@link TokenCache.invalidateUser}. */
  const tokensOf = new Map<string, Set<string>>();
  const loading = new Map<string, Promise<Value | null>>();
  /** Counts invalidations: a load that saw it change while under way is not kept. */
  let epoch = 0;
  let hits = 0;
  let misses = 0;

  function remove(key: string): void {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    if (entry.value.kind !== 'token') return;
    const owned = tokensOf.get(entry.value.record.userId);
    owned?.delete(key);
    if (owned?.size === 0) tokensOf.delete(entry.value.record.userId);
  }

  function keep(key: string, value: Value, expiresAt: number): void {
    remove(key);
    entries.set(key, { value, expiresAt });
    if (value.kind === 'token') {
      const owned = tokensOf.get(value.record.userId) ?? new Set<string>();
      owned.add(key);
      tokensOf.set(value.record.userId, owned);
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
    invalidate: (digest) => forget(tokenKey(digest)),
    invalidateUser(userId) {
      forget(userKey(userId));
      for (const key of [...(tokensOf.get(userId) ?? [])]) forget(key);
    },
    clear() {
      epoch++;
      entries.clear();
      tokensOf.clear();
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
    setSiteAdmin: (userId, siteAdmin) => changed(userId, accounts.setSiteAdmin(userId, siteAdmin)),
    setPasswordHash: (userId, hash) => changed(userId, accounts.setPasswordHash(userId, hash)),
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
    // a use changes only `lastUsedAt`, which a cached record may show up to the time to live late: nothing to forget
    touch: (id, at) => tokens.touch(id, at),
  };
}

function wrap(store: Store, cache: TokenCache, replay: Replay | null): Store {
  return {
    accounts: cachedAccounts(store.accounts, cache, replay),
    accessTokens: cachedAccessTokens(store.accessTokens, cache, replay),
    sessions: store.sessions,
    oauth: store.oauth,
    audit: store.audit,
    ephemeral: store.ephemeral,
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
 * A {@link Store} that answers `accessTokens.findByDigest` and `accounts.get` from `cache` while fresh, and
 * forgets a token when it is deleted through it, an account (with its tokens) when it is changed or deleted through
 * it, also inside transactions (at the write and again when the transaction settles). Reads inside a transaction
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
