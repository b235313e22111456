/**
 * The token cache: fresh for its time to live, only found records kept, one load per key at a time, invalidation
 * at once; and the store decorator: a token deleted on this instance is refused at once, on another instance
 * within the time to live (one second by default).
 */
import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { AccessTokenRecord, Store, StoreError, UserRecord } from '../../src/store/types.js';
import { createTokenCache, DEFAULT_TOKEN_CACHE_MAX_ENTRIES, DEFAULT_TOKEN_CACHE_TTL_MS, withTokenCache } from '../../src/store/token-cache.js';
import type { TokenCache } from '../../src/store/token-cache.js';
import { createGatehouseServer } from '../../src/index.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { OAuthAccessTokenRecord } from 'gatehouse-auth';
import { startServer } from '../helpers/server.js';
import { oauthPair, signUp, whoAmI } from '../helpers/processes.js';

const user = (id: string, siteAdmin = false): UserRecord => ({
  id,
  username: `user${id}`,
  origin: 'admin_created',
  siteAdmin,
  serviceAccount: false,
  emails: [{ email: `${id}@example.com`, verified: true }],
  passwordHash: null,
  createdAt: 0,
});

const token = (id: string, userId: string): AccessTokenRecord => ({
  id,
  userId,
  digest: `digest-${id}`,
  scopes: ['user:all'],
  note: '',
  createdAt: 0,
  expiresAt: null,
  lastUsedAt: null,
});

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** A load that counts its calls and answers from a map. */
function loader<T>(records: Map<string, T>): { load: (key: string) => Promise<T | null>; calls: () => number } {
  let calls = 0;
  return {
    load: async (key) => {
      calls++;
      return records.get(key) ?? null;
    },
    calls: () => calls,
  };
}

describe('createTokenCache', () => {
  it('should load a token once and answer from the cache until the time to live has passed', async () => {
    const c = clock();
    const cache = createTokenCache({ now: c.now });
    const { load, calls } = loader(new Map([['digest-1', token('1', 'u1')]]));
    expect(await cache.token('digest-1', load)).toStrictEqual(token('1', 'u1'));
    c.advance(DEFAULT_TOKEN_CACHE_TTL_MS - 1);
    expect(await cache.token('digest-1', load)).toStrictEqual(token('1', 'u1'));
    expect(calls()).toBe(1);
    c.advance(1);
    expect(await cache.token('digest-1', load)).toStrictEqual(token('1', 'u1'));
    expect(calls()).toBe(2);
    expect(cache.stats()).toStrictEqual({ hits: 1, misses: 2, entries: 1 });
  });

  it('should not keep an unknown digest: every lookup of it loads again', async () => {
    const cache = createTokenCache({ now: clock().now });
    const { load, calls } = loader(new Map<string, AccessTokenRecord>());
    expect(await cache.token('nope', load)).toBeNull();
    expect(await cache.token('nope', load)).toBeNull();
    expect(calls()).toBe(2);
    expect(cache.stats().entries).toBe(0);
  });

  it('should share one load among concurrent lookups of one key', async () => {
    const cache = createTokenCache({ now: clock().now });
    const { load, calls } = loader(new Map([['digest-1', token('1', 'u1')]]));
    const answers = await Promise.all([cache.token('digest-1', load), cache.token('digest-1', load), cache.token('digest-1', load)]);
    expect(answers).toStrictEqual([token('1', 'u1'), token('1', 'u1'), token('1', 'u1')]);
    expect(calls()).toBe(1);
  });

  it('should hand out copies: a caller never holds the cached record', async () => {
    const cache = createTokenCache({ now: clock().now });
    const { load } = loader(new Map([['u1', user('u1')]]));
    const first = await cache.user('u1', load);
    const second = await cache.user('u1', load);
    expect(second).toStrictEqual(first);
    expect(second).not.toBe(first);
    expect(second?.emails).not.toBe(first?.emails);
  });

  it('should forget a token at once on invalidate, and a user with every token they own on invalidateUser', async () => {
    const cache = createTokenCache({ now: clock().now });
    const tokens = loader(new Map([['digest-1', token('1', 'u1')], ['digest-2', token('2', 'u1')], ['digest-3', token('3', 'u2')]]));
    const users = loader(new Map([['u1', user('u1')], ['u2', user('u2')]]));
    for (const d of ['digest-1', 'digest-2', 'digest-3']) await cache.token(d, tokens.load);
    for (const u of ['u1', 'u2']) await cache.user(u, users.load);
    cache.invalidate('digest-3');
    await cache.token('digest-3', tokens.load);
    expect(tokens.calls()).toBe(4);
    cache.invalidateUser('u1');
    expect(cache.stats().entries).toBe(2);
    await cache.user('u2', users.load);
    await cache.token('digest-3', tokens.load);
    expect([tokens.calls(), users.calls()]).toStrictEqual([4, 2]);
    await cache.user('u1', users.load);
    await cache.token('digest-1', tokens.load);
    await cache.token('digest-2', tokens.load);
    expect([tokens.calls(), users.calls()]).toStrictEqual([6, 3]);
  });

  it('should not keep what a load under way at an invalidation read, nor let a later lookup join it', async () => {
    const cache = createTokenCache({ now: clock().now });
    const records = new Map([['digest-1', token('1', 'u1')]]);
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    // reads the store at once, answers when the gate opens (a query in flight while the token is deleted)
    const slow = async (digest: string): Promise<AccessTokenRecord | null> => {
      calls++;
      const record = records.get(digest) ?? null;
      await gate;
      return record;
    };
    const pending = cache.token('digest-1', slow);
    records.delete('digest-1');
    cache.invalidate('digest-1');
    const after = cache.token('digest-1', slow);
    release();
    expect(await pending).toStrictEqual(token('1', 'u1')); // its caller asked before the deletion
    expect(await after).toBeNull();
    expect(await cache.token('digest-1', slow)).toBeNull();
    expect(calls).toBe(3);
  });

  it('should pass a failed load on to its callers and keep nothing', async () => {
    const cache = createTokenCache({ now: clock().now });
    const failing = (): Promise<AccessTokenRecord | null> => Promise.reject(new Error('connection lost'));
    await expect(cache.token('digest-1', failing)).rejects.toThrow('connection lost');
    const { load, calls } = loader(new Map([['digest-1', token('1', 'u1')]]));
    expect(await cache.token('digest-1', load)).toStrictEqual(token('1', 'u1'));
    expect(calls()).toBe(1);
  });

  it('should evict the least recently used entry beyond maxEntries', async () => {
    const cache = createTokenCache({ now: clock().now, maxEntries: 2 });
    const { load, calls } = loader(new Map(['1', '2', '3'].map((i) => [`digest-${i}`, token(i, 'u1')])));
    await cache.token('digest-1', load);
    await cache.token('digest-2', load);
    await cache.token('digest-1', load); // digest-2 is now the least recently used
    await cache.token('digest-3', load);
    expect(cache.stats().entries).toBe(2);
    await cache.token('digest-1', load);
    await cache.token('digest-3', load);
    expect(calls()).toBe(3);
    await cache.token('digest-2', load);
    expect(calls()).toBe(4);
    cache.invalidateUser('u1');
    expect(cache.stats().entries).toBe(0);
  });

  it('should keep nothing with a time to live of 0, and default to 1 s and 10,000 entries', async () => {
    const cache = createTokenCache({ now: clock().now, ttlMs: 0 });
    const { load, calls } = loader(new Map([['digest-1', token('1', 'u1')]]));
    await cache.token('digest-1', load);
    await cache.token('digest-1', load);
    expect(calls()).toBe(2);
    expect([DEFAULT_TOKEN_CACHE_TTL_MS, DEFAULT_TOKEN_CACHE_MAX_ENTRIES]).toStrictEqual([1_000, 10_000]);
  });
});

// ---------------------------------------------------------------------------------------------
// The store decorator, over a small store of accounts and tokens with snapshot transactions

interface State {
  users: Map<string, UserRecord>;
  tokens: Map<string, AccessTokenRecord>;
}

interface Counts {
  findByDigest: number;
  get: number;
}

const notUsed = (): Promise<never> => Promise.reject(new Error('not used by this test'));

/** A group of the store this test never calls. */
function unusedGroup<T extends object>(): T {
  return new Proxy({}, { get: () => notUsed }) as T;
}

/**
 * The database both instances share: accounts and tokens, and transactions that work on a copy and publish it when
 * the work resolves `ok` (so a reader outside sees the state from before until then).
 */
function database(): { readonly store: (counts: Counts) => Store; readonly state: () => State } {
  let state: State = { users: new Map(), tokens: new Map() };
  const storeOver = (read: () => State, counts: Counts): Store => ({
    accounts: {
      create: notUsed,
      get: async (id) => {
        counts.get++;
        return read().users.get(id) ?? null;
      },
      findByUsernameKey: notUsed,
      findByVerifiedEmailKey: notUsed,
      findByExternalAccountKey: notUsed,
      recordIdentityFacts: notUsed,
      identitiesOf: notUsed,
      signInPage: notUsed,
      list: notUsed,
      count: notUsed,
      countSiteAdmins: notUsed,
      countActiveSiteAdmins: notUsed,
      setSuspended: async (userId, suspendedAt) => {
        const u = read().users.get(userId);
        if (u === undefined) return err({ code: 'unknown_user', userId });
        const { suspendedAt: _before, ...rest } = u;
        const changed = suspendedAt === null ? rest : { ...rest, suspendedAt };
        read().users.set(userId, changed);
        return ok(changed);
      },
      setSiteAdmin: async (userId, siteAdmin) => {
        const u = read().users.get(userId);
        if (u === undefined) return err({ code: 'unknown_user', userId });
        read().users.set(userId, { ...u, siteAdmin });
        return ok({ ...u, siteAdmin });
      },
      setPasswordHash: notUsed,
      setUsername: notUsed,
      setEmails: notUsed,
      delete: async (userId): Promise<Result<UserRecord, StoreError>> => {
        const s = read();
        const u = s.users.get(userId);
        if (u === undefined) return err({ code: 'unknown_user', userId });
        s.users.delete(userId);
        for (const [d, t] of s.tokens) if (t.userId === userId) s.tokens.delete(d);
        return ok(u);
      },
      link: notUsed,
      links: notUsed,
      unlink: notUsed,
      putCredential: notUsed,
      credentials: notUsed,
      deleteCredential: notUsed,
    },
    accessTokens: {
      create: async (input) => {
        const record: AccessTokenRecord = { ...input, id: input.digest.replace('digest-', ''), lastUsedAt: null };
        read().tokens.set(record.digest, record);
        return ok(record);
      },
      findByDigest: async (digest) => {
        counts.findByDigest++;
        return read().tokens.get(digest) ?? null;
      },
      get: notUsed,
      list: notUsed,
      count: notUsed,
      delete: async (id): Promise<Result<AccessTokenRecord, StoreError>> => {
        const s = read();
        for (const [d, t] of s.tokens) {
          if (t.id !== id) continue;
          s.tokens.delete(d);
          return ok(t);
        }
        return err({ code: 'unknown_access_token', id });
      },
      deleteForUser: async (userId) => {
        const s = read();
        let n = 0;
        for (const [d, t] of s.tokens) if (t.userId === userId && s.tokens.delete(d)) n++;
        return n;
      },
      touch: async (id, at) => {
        const s = read();
        for (const [d, t] of s.tokens) if (t.id === id && (t.lastUsedAt ?? Number.NEGATIVE_INFINITY) < at) s.tokens.set(d, { ...t, lastUsedAt: at });
      },
    },
    sessions: unusedGroup(),
    oauth: unusedGroup(),
    audit: unusedGroup(),
    ephemeral: unusedGroup(),
    lockouts: unusedGroup(),
    links: unusedGroup(),
    outbox: unusedGroup(),
    async transaction(work) {
      const copy: State = { users: new Map(state.users), tokens: new Map(state.tokens) };
      const result = await work(storeOver(() => copy, counts));
      if (result.isOk()) state = copy;
      return result;
    },
    close: async () => undefined,
  });
  return { store: (counts) => storeOver(() => state, counts), state: () => state };
}

/** Two server instances on one database, each with its own cache, on one clock. */
async function twoInstances(): Promise<{
  readonly a: Store;
  readonly b: Store;
  readonly counts: { readonly a: Counts; readonly b: Counts };
  readonly caches: { readonly a: TokenCache; readonly b: TokenCache };
  readonly advance: (ms: number) => void;
}> {
  const c = clock();
  const db = database();
  const counts = { a: { findByDigest: 0, get: 0 }, b: { findByDigest: 0, get: 0 } };
  const caches = { a: createTokenCache({ now: c.now }), b: createTokenCache({ now: c.now }) };
  db.state().users.set('u1', user('u1'));
  db.state().users.set('u2', user('u2'));
  for (const [id, owner] of [['1', 'u1'], ['2', 'u1'], ['3', 'u2']] as const) db.state().tokens.set(`digest-${id}`, token(id, owner));
  return { a: withTokenCache(db.store(counts.a), caches.a), b: withTokenCache(db.store(counts.b), caches.b), counts, caches, advance: c.advance };
}

describe('withTokenCache', () => {
  it('should answer repeated token checks (token, then its owner) without a store round trip', async () => {
    const { a, counts } = await twoInstances();
    for (let i = 0; i < 5; i++) {
      const record = await a.accessTokens.findByDigest('digest-1');
      expect(await a.accounts.get(record?.userId ?? '')).toStrictEqual(user('u1'));
    }
    expect(counts.a).toStrictEqual({ findByDigest: 1, get: 1 });
  });

  it('should refuse a token deleted on the same instance at once, and on another instance within the time to live', async () => {
    const { a, b, advance } = await twoInstances();
    expect(await a.accessTokens.findByDigest('digest-1')).not.toBeNull();
    expect(await b.accessTokens.findByDigest('digest-1')).not.toBeNull();
    expect((await a.accessTokens.delete('1')).isOk()).toBe(true);
    expect(await a.accessTokens.findByDigest('digest-1')).toBeNull();
    advance(DEFAULT_TOKEN_CACHE_TTL_MS - 1);
    expect(await b.accessTokens.findByDigest('digest-1')).not.toBeNull(); // the bound: stale for under a second
    advance(1);
    expect(await b.accessTokens.findByDigest('digest-1')).toBeNull();
    expect(await a.accessTokens.findByDigest('digest-2')).not.toBeNull();
  });

  it('should refuse every token of an account deleted on the same instance at once', async () => {
    const { a, b, advance } = await twoInstances();
    for (const s of [a, b]) for (const d of ['digest-1', 'digest-2']) await s.accessTokens.findByDigest(d);
    await a.accounts.get('u1');
    expect((await a.accounts.delete('u1')).isOk()).toBe(true);
    expect(await a.accessTokens.findByDigest('digest-1')).toBeNull();
    expect(await a.accessTokens.findByDigest('digest-2')).toBeNull();
    expect(await a.accounts.get('u1')).toBeNull();
    advance(DEFAULT_TOKEN_CACHE_TTL_MS);
    expect(await b.accessTokens.findByDigest('digest-2')).toBeNull();
  });

  it('should show an account changed on the same instance at once (§5.1 rule 2: sudo needs a current site admin)', async () => {
    const { a, counts } = await twoInstances();
    expect((await a.accounts.get('u2'))?.siteAdmin).toBe(false);
    await a.accounts.setSiteAdmin('u2', true);
    expect((await a.accounts.get('u2'))?.siteAdmin).toBe(true);
    expect(counts.a.get).toBe(2);
  });

  it('should show a suspension at once, and forget every token of an account whose tokens are all deleted, also in a transaction', async () => {
    const { a, b, caches } = await twoInstances();
    for (const d of ['digest-1', 'digest-2']) await a.accessTokens.findByDigest(d);
    await a.accounts.get('u1');
    expect((await a.accounts.setSuspended('u1', 5)).isOk()).toBe(true);
    expect((await a.accounts.get('u1'))?.suspendedAt).toBe(5);
    await b.accounts.get('u1');
    const deleted = await b.transaction(async (tx) => ok(await tx.accessTokens.deleteForUser('u1')));
    expect(deleted._unsafeUnwrap()).toBe(2);
    expect(await b.accessTokens.findByDigest('digest-1')).toBeNull();
    // another instance forgets when told (the store's change feed calls invalidateUser): here without waiting
    caches.a.invalidateUser('u1');
    expect(await a.accessTokens.findByDigest('digest-2')).toBeNull();
    expect(await a.accessTokens.findByDigest('digest-3')).not.toBeNull();
  });

  it('should never read through the cache inside a transaction, and forget a token deleted in one when it commits', async () => {
    const { a, counts } = await twoInstances();
    await a.accessTokens.findByDigest('digest-1');
    const result = await a.transaction(async (tx) => {
      expect(await tx.accessTokens.findByDigest('digest-1')).not.toBeNull();
      const deleted = await tx.accessTokens.delete('1');
      expect(await tx.accessTokens.findByDigest('digest-1')).toBeNull();
      // outside the transaction the token still exists until it commits, and a reader may cache it meanwhile
      expect(await a.accessTokens.findByDigest('digest-1')).not.toBeNull();
      return deleted;
    });
    expect(result.isOk()).toBe(true);
    expect(await a.accessTokens.findByDigest('digest-1')).toBeNull();
    expect(counts.a.findByDigest).toBe(5);
  });

  it('should forget every token when a delete fails with its outcome unknown', async () => {
    const { a, caches } = await twoInstances();
    await a.accessTokens.findByDigest('digest-3');
    const failing = withTokenCache({ ...a, accessTokens: { ...a.accessTokens, delete: () => Promise.reject(new Error('connection lost')) } }, caches.a);
    await expect(failing.accessTokens.delete('3')).rejects.toThrow('connection lost');
    expect(caches.a.stats().entries).toBe(0);
  });

  type Step =
    | { readonly kind: 'check'; readonly on: 'a' | 'b'; readonly token: string }
    | { readonly kind: 'delete'; readonly on: 'a' | 'b'; readonly token: string }
    | { readonly kind: 'wait'; readonly ms: number };
  const tokenId = fc.constantFrom('1', '2', '3');
  const instance = fc.constantFrom<'a' | 'b'>('a', 'b');
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('check' as const), on: instance, token: tokenId }),
    fc.record({ kind: fc.constant('delete' as const), on: instance, token: tokenId }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 1_500 }) }),
  );

  test.prop([fc.array(step, { maxLength: 40 })])(
    'should find every live token, refuse a deleted one at once where it was deleted and within 1 s elsewhere',
    async (steps) => {
      const { a, b, advance } = await twoInstances();
      const stores = { a, b };
      let now = 0;
      /** When and where each token was deleted. */
      const deleted = new Map<string, { readonly at: number; readonly on: 'a' | 'b' }>();
      for (const s of steps) {
        if (s.kind === 'wait') {
          advance(s.ms);
          now += s.ms;
        } else if (s.kind === 'delete') {
          const result = await stores[s.on].accessTokens.delete(s.token);
          expect(result.isOk()).toBe(!deleted.has(s.token));
          if (!deleted.has(s.token)) deleted.set(s.token, { at: now, on: s.on });
        } else {
          const found = (await stores[s.on].accessTokens.findByDigest(`digest-${s.token}`)) !== null;
          const gone = deleted.get(s.token);
          if (gone === undefined) expect(found).toBe(true);
          else if (gone.on === s.on || now - gone.at >= DEFAULT_TOKEN_CACHE_TTL_MS) expect(found).toBe(false);
        }
      }
    },
  );
});

describe('createGatehouseServer: tokenCacheTtlMs', () => {
  /** A server on `store` with one token; answers whether the token signs in after the store forgot it behind the server's back. */
  async function usableAfterOutsideDelete(options: { readonly tokenCacheTtlMs?: number }): Promise<boolean> {
    const store = createMemoryStore();
    const gatehouse = createGatehouseServer({ store, log: () => undefined, ...options });
    const admin = await store.accounts.create({ usernames: ['ada'], origin: 'admin_created', siteAdmin: true, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 });
    if (admin.isErr()) throw new Error(admin.error.code);
    const token = await gatehouse.createAccessToken(admin.value, admin.value.id, ['user:all'], 'cache');
    if ('error' in token) throw new Error(token.error);
    const { url } = await gatehouse.listen(0);
    const ask = async (): Promise<number> =>
      (await fetch(`${url}/.api/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `token ${token.token}` }, body: '{"query":"{ currentUser { username } }"}' })).status;
    try {
      expect(await ask()).toBe(200);
      // another instance deletes it: this server's cache is not told
      expect((await store.accessTokens.delete(token.id)).isOk()).toBe(true);
      return (await ask()) === 200;
    } finally {
      await gatehouse.close();
    }
  }

  it('should answer a token from the cache for up to a second by default, and read the store on every request with 0', async () => {
    expect(await usableAfterOutsideDelete({})).toBe(true);
    expect(await usableAfterOutsideDelete({ tokenCacheTtlMs: 0 })).toBe(false);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('should refuse %s at construction', (tokenCacheTtlMs) => {
    expect(() => createGatehouseServer({ tokenCacheTtlMs, log: () => undefined })).toThrow('tokenCacheTtlMs');
  });
});

const bearer = (hash: string, userId: string, familyId = 'f1'): OAuthAccessTokenRecord => ({
  tokenHash: hash,
  familyId,
  clientId: 'c1',
  userId,
  scopes: ['user:all'],
  expiresAt: 10_000_000,
  familyRevoked: false,
});

describe('createTokenCache: the token-sudo and Bearer entries', () => {
  it('should forget, on invalidateUser, the account by id and by name, its tokens and its OAuth tokens, and nothing of others', async () => {
    const cache = createTokenCache({ now: clock().now });
    const users = loader(new Map([['u1', user('u1')], ['u2', user('u2')], ['useru1', user('u1')], ['useru2', user('u2')]]));
    const tokens = loader(new Map([['digest-1', token('1', 'u1')], ['digest-2', token('2', 'u2')]]));
    const bearers = loader(new Map([['b1', bearer('b1', 'u1')], ['b2', bearer('b2', 'u2', 'f2')]]));
    const warm = async (): Promise<void> => {
      for (const id of ['u1', 'u2']) await cache.user(id, users.load);
      for (const name of ['useru1', 'useru2']) await cache.userByName(name, users.load);
      for (const d of ['digest-1', 'digest-2']) await cache.token(d, tokens.load);
      for (const h of ['b1', 'b2']) await cache.bearer(h, bearers.load);
    };
    await warm();
    await warm();
    expect([users.calls(), tokens.calls(), bearers.calls()]).toStrictEqual([4, 2, 2]);
    cache.invalidateUser('u1');
    await warm();
    // u1 by id, u1 by name, its token, its OAuth token: loaded again; u2's entries still served
    expect([users.calls(), tokens.calls(), bearers.calls()]).toStrictEqual([6, 3, 3]);
  });

  it('should forget one OAuth token on invalidateBearer, and every token of a family on invalidateFamily', async () => {
    const cache = createTokenCache({ now: clock().now });
    const bearers = loader(new Map([['b1', bearer('b1', 'u1')], ['b2', bearer('b2', 'u1')], ['b3', bearer('b3', 'u1', 'f3')]]));
    const warm = async (): Promise<void> => {
      for (const h of ['b1', 'b2', 'b3']) await cache.bearer(h, bearers.load);
    };
    await warm();
    cache.invalidateBearer('b1');
    await warm();
    expect(bearers.calls()).toBe(4);
    cache.invalidateFamily('f1');
    await warm();
    expect(bearers.calls()).toBe(6);
  });

  it('should forget a cached OAuth token when it, its family, its app or its approval is revoked through the store', async () => {
    const calls: string[] = [];
    const oauth = createMemoryStore().oauth;
    const counting: Store['oauth'] = {
      ...oauth,
      findAccessToken: async (h) => {
        calls.push(h);
        return bearer(h, 'u1', h === 'b3' ? 'f3' : 'f1');
      },
    };
    const base = createMemoryStore();
    const cache = createTokenCache({ now: clock().now });
    const store = withTokenCache({ ...base, oauth: counting, transaction: base.transaction, close: base.close }, cache);
    const warm = async (): Promise<number> => {
      calls.length = 0;
      for (const h of ['b1', 'b2', 'b3']) await store.oauth.findAccessToken(h);
      return calls.length;
    };
    await warm();
    expect(await warm()).toBe(0);
    await store.oauth.revokeAccessToken('b1');
    expect(await warm()).toBe(1);
    await store.oauth.revokeFamily('f1');
    expect(await warm()).toBe(2);
    await store.oauth.revokeConsent('u1', 'c1');
    expect(await warm()).toBe(3);
    await store.oauth.deleteApp('c1');
    expect(await warm()).toBe(3);
  });
});

/** A memory store that counts every call of every part, for "no round trip on a warm request". */
function countingStore(): { store: Store; calls: () => number } {
  const base = createMemoryStore();
  let calls = 0;
  const counted = <T extends object>(part: T): T =>
    new Proxy(part, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          calls++;
          return Reflect.apply(value, target, args);
        };
      },
    });
  const store: Store = {
    accounts: counted(base.accounts),
    accessTokens: counted(base.accessTokens),
    sessions: counted(base.sessions),
    oauth: counted(base.oauth),
    audit: counted(base.audit),
    ephemeral: counted(base.ephemeral),
    links: counted(base.links),
    outbox: counted(base.outbox),
    lockouts: counted(base.lockouts),
    transaction: (work) => {
      calls++;
      return base.transaction(work);
    },
    close: () => base.close(),
  };
  return { store, calls: () => calls };
}

describe('createGatehouseServer: no store round trip on a warm request of any scheme (spec §5.1)', () => {
  it('should answer token, Bearer and token-sudo requests from the cache once warm, and write each sudo use in one counted entry', async () => {
    const { store, calls } = countingStore();
    const s = await startServer({ store, siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    try {
      const root = await s.user('root', true);
      await s.user('alice');
      const plain = (await s.token(root)).token;
      const sudoToken = (await s.token(root, ['user:all', 'site-admin:sudo'])).token;
      const owner = await signUp(s.url, 'bea', 'bea password 1');
      const pair = await oauthPair(s.url, plain, owner.cookie ?? '');
      const schemes = { token: `token ${plain}`, Bearer: `Bearer ${pair.accessToken}`, 'token-sudo': `token-sudo user="alice",token="${sudoToken}"` };
      const expected = { token: 'root', Bearer: 'bea', 'token-sudo': 'alice' };
      for (const [scheme, authorization] of Object.entries(schemes)) {
        expect(await whoAmI(s.url, authorization)).toBe(expected[scheme as keyof typeof expected]);
        const before = calls();
        for (let i = 0; i < 5; i++) expect(await whoAmI(s.url, authorization)).toBe(expected[scheme as keyof typeof expected]);
        expect({ scheme, calls: calls() - before }).toStrictEqual({ scheme, calls: 0 });
      }
      await s.gatehouse.flushAudit();
      const sudo = (await store.audit.list(10, { action: 'sudo' })).map((e) => e.count);
      expect(sudo).toStrictEqual([6]);
    } finally {
      await s.close();
    }
  });
});
