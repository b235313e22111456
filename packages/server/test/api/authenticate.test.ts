/**
 * The audit entry of an unsupported `Authorization` scheme (§5.1 rule 4, §6 rule 1, §7 rule 1) under a flood:
 * the entries from one client network within a window are one entry with a count, whatever the scheme, and every
 * older entry stays reachable through `auditLog`'s `before` cursor. And an access token's last use: written at
 * most once a minute per token, never holding up or failing the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateAccessToken, hashAccessToken } from '../../../../src/core/access-token.js';
import { createAuthenticator } from '../../src/api/authenticate.js';
import type { Authentication } from '../../src/api/authenticate.js';
import { sha256 } from '../../src/kernel/digest.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { createSessions } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { AccessTokenRecord, Store } from '../../src/store/types.js';
import type { UserRecord } from '../../src/index.js';
import { clientAt, type Client } from '../helpers/from-address.js';
import { gql, START_TIME, startServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let admin: UserRecord;
let adminToken: string;
let one: Client;
let two: Client;

beforeAll(async () => {
  s = await startServer();
  admin = await s.user('admin', true);
  adminToken = (await s.token(admin)).token;
  one = clientAt('127.0.0.1');
  two = clientAt('127.0.0.2');
});

afterAll(async () => {
  one.close();
  two.close();
  await s.close();
});

const unsupported = (i: number): { url: string; method: string; path: string; headers: Record<string, string>; body: string } => ({
  url: s.url,
  method: 'POST',
  path: '/.api/graphql',
  headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`u${i}:p`).toString('base64')}` },
  body: JSON.stringify({ query: '{ currentUser { username } }' }),
});

interface ListedEntry {
  readonly entity: string;
  readonly action: string;
  readonly reason: string | null;
  readonly details: string;
  readonly count: number;
  readonly firstAt: string;
  readonly lastAt: string;
}

async function auditLog(first: number, fields = 'entity action reason details count firstAt lastAt', before?: string): Promise<ListedEntry[]> {
  const cursor = before === undefined ? '' : `, before: "${before}"`;
  const answer = await gql(s.url, `{ auditLog(first: ${first}${cursor}) { ${fields} } }`, { headers: { authorization: `token ${adminToken}` } });
  const body = answer.body as { data?: { auditLog?: ListedEntry[] } };
  return body.data?.auditLog ?? [];
}

/** Every entry, newest first, read page by page (`first` is at most 100) through the `before` cursor. */
async function wholeAuditLog(fields: string): Promise<ListedEntry[]> {
  const all: ListedEntry[] = [];
  let before: string | undefined;
  for (let page = 0; page < 100; page++) {
    const rows = (await auditLog(100, `id ${fields}`, before)) as (ListedEntry & { id: string })[];
    if (rows.length === 0) break;
    all.push(...rows.map(({ id: _id, ...rest }) => rest));
    before = rows.at(-1)?.id;
  }
  return all;
}

describe('unsupported Authorization scheme under a flood (§6 rule 1, §7 rule 1)', () => {
  it('should keep an older entry in auditLog after 1,001 unsupported-scheme requests from one client (§6 rule 1)', async () => {
    s.clock.now = START_TIME + 3_600_000;
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${adminToken}` } });
    const before = (await wholeAuditLog('entity action')).length;
    expect(before).toBeGreaterThan(0);
    const oldest = (await wholeAuditLog('entity action')).at(-1);

    const statuses = await one.flood(1_001, unsupported);
    expect(statuses.every((status) => status === 200)).toBe(true);

    const after = await wholeAuditLog('entity action');
    // every entry that was there is still listed: the flood added exactly one entry
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toStrictEqual(oldest);
  });

  it('should record the flood as one entry with its count, first and last time and the client address (§6 rule 1)', async () => {
    const [entry] = await auditLog(1);
    expect(entry).toStrictEqual({
      entity: 'auth.accessToken',
      action: 'failed',
      reason: 'invalid Authorization header',
      // a coalesced entry lists the distinct schemes it counted
      details: JSON.stringify({ scheme: 'basic', clientAddress: '127.0.0.1', schemes: 'basic' }),
      count: 1_001,
      firstAt: new Date(START_TIME + 3_600_000).toISOString(),
      lastAt: new Date(START_TIME + 3_600_000).toISOString(),
    });
  });

  it('should keep entries of another client apart, count every scheme of one client and window in one entry, and open a new entry in the next window (§6 rule 1)', async () => {
    s.clock.now = START_TIME + 7_200_000;
    await two.send(s.url, unsupported(0));
    await one.send(s.url, { ...unsupported(0), headers: { ...unsupported(0).headers, authorization: 'Negotiate abc' } });
    s.clock.now += 30_000;
    await one.send(s.url, unsupported(1));
    await one.send(s.url, unsupported(2));
    s.clock.now += 30_000; // the next 60-second window
    await one.send(s.url, unsupported(3));
    const entries = (await auditLog(3)).map((e) => [JSON.parse(e.details) as unknown, e.count, e.firstAt, e.lastAt]);
    const at = (ms: number): string => new Date(START_TIME + 7_200_000 + ms).toISOString();
    // another scheme from the same client network in the same window is counted in its entry, not a new one
    expect(entries).toStrictEqual([
      [{ scheme: 'basic', clientAddress: '127.0.0.1' }, 1, at(60_000), at(60_000)],
      [{ scheme: 'negotiate', clientAddress: '127.0.0.1', schemes: 'negotiate,basic' }, 3, at(0), at(30_000)],
      [{ scheme: 'basic', clientAddress: '127.0.0.2' }, 1, at(0), at(0)],
    ]);
  });
});

describe('access token last use (settings page "last used")', () => {
  /** A well-formed token secret made of `n`, and its digest. */
  const secretOf = (n: number): { secret: string; digest: string } => {
    const bytes = new Uint8Array(20);
    new DataView(bytes.buffer).setUint32(0, n + 1);
    const secret = generateAccessToken(bytes)._unsafeUnwrap();
    return { secret, digest: hashAccessToken(secret, sha256)._unsafeUnwrap() };
  };

  const request = (secret: string, sudoUser?: string): RouteRequest => {
    const authorization = sudoUser === undefined ? `token ${secret}` : `token-sudo user="${sudoUser}",token="${secret}"`;
    return {
      method: 'POST',
      url: new URL('http://gatehouse.test/.api/graphql'),
      headers: { authorization },
      headersDistinct: { authorization: [authorization] },
      cookies: new Map(),
      clientAddress: '127.0.0.1',
      requestId: 'r1',
      body: null,
    };
  };

  /**
   * An authenticator over a memory store whose every well-formed token belongs to alice (id `1`, a site admin) and
   * reads with `lastUsedAt: null`, as a cached record may (so only the authenticator's own throttle holds writes back);
   * `touch` is what the case says.
   */
  async function setUp(touch: (id: string, at: number) => Promise<void>): Promise<{
    authenticate: (req: RouteRequest) => Promise<Authentication>;
    clock: { now: number };
  }> {
    const memory = createMemoryStore();
    await memory.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: true, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 });
    const clock = { now: 1_000_000 };
    const findByDigest = async (digest: string): Promise<AccessTokenRecord> => ({
      id: `t-${digest.slice(0, 12)}`,
      userId: '1',
      digest,
      scopes: ['user:all', 'site-admin:sudo'],
      note: '',
      createdAt: 0,
      expiresAt: null,
      lastUsedAt: null,
    });
    const store: Pick<Store, 'accounts' | 'accessTokens'> = { accounts: memory.accounts, accessTokens: { ...memory.accessTokens, findByDigest, touch } };
    const now = (): number => clock.now;
    const sessions = createSessions({ store: memory, now, randomBytes: (n) => new Uint8Array(n), secureCookies: false, sessionTtlSeconds: 3_600 });
    const authenticate = createAuthenticator({ store, sessions, now, audit: async () => undefined, verifyBearer: async () => null });
    return { authenticate, clock };
  }

  const viewerVia = (a: Authentication): string => (a.kind === 'viewer' && a.viewer.kind === 'user' ? `${a.viewer.actor.username} via ${a.viewer.via}` : a.kind);

  it('should write a token’s use at most once a minute per token, from the first use on, under token and token-sudo', async () => {
    const writes: [string, number][] = [];
    const { authenticate, clock } = await setUp(async (id, at) => {
      writes.push([id, at]);
    });
    const a = secretOf(1);
    const b = secretOf(2);
    const idOf = (digest: string): string => `t-${digest.slice(0, 12)}`;
    expect(viewerVia(await authenticate(request(a.secret)))).toBe('alice via token');
    clock.now += 30_000;
    await authenticate(request(a.secret));
    await authenticate(request(a.secret, 'alice'));
    await authenticate(request(b.secret));
    clock.now += 29_999;
    await authenticate(request(a.secret));
    clock.now += 1;
    expect(viewerVia(await authenticate(request(a.secret, 'alice')))).toBe('alice via token-sudo');
    await authenticate(request(a.secret));
    await authenticate(request(b.secret));
    clock.now += 30_000;
    await authenticate(request(b.secret));
    expect(writes).toStrictEqual([
      [idOf(a.digest), 1_000_000],
      [idOf(b.digest), 1_030_000],
      [idOf(a.digest), 1_060_000],
      [idOf(b.digest), 1_090_000],
    ]);
  });

  it('should record no use for a refused token', async () => {
    const writes: string[] = [];
    const { authenticate } = await setUp(async (id) => {
      writes.push(id);
    });
    // a sudo to nobody is refused after the token was found: it authenticated nothing
    expect(viewerVia(await authenticate(request(secretOf(1).secret, 'nobody')))).toBe('refuse');
    expect(viewerVia(await authenticate(request('gat_not-a-token')))).toBe('refuse');
    expect(writes).toStrictEqual([]);
  });

  it('should neither delay nor fail the request when the write hangs, rejects or throws', async () => {
    const behaviours: ((id: string) => Promise<void>)[] = [
      () => new Promise<void>(() => undefined),
      async () => Promise.reject(new Error('the store is down')),
      () => {
        throw new Error('a store that throws');
      },
    ];
    for (const touch of behaviours) {
      let called = 0;
      const { authenticate } = await setUp((id) => {
        called++;
        return touch(id);
      });
      expect(viewerVia(await authenticate(request(secretOf(1).secret)))).toBe('alice via token');
      expect(called).toBe(1);
    }
  });

  it('should remember at most 10,000 tokens, forgetting the least recently written first', async () => {
    const writes: string[] = [];
    const { authenticate, clock } = await setUp(async (id) => {
      writes.push(id);
    });
    for (let n = 0; n <= 10_000; n++) await authenticate(request(secretOf(n).secret));
    expect(writes).toHaveLength(10_001);
    clock.now += 1_000;
    // token 1 is still remembered; token 0, the first written, was forgotten when the 10,001st came
    await authenticate(request(secretOf(1).secret));
    expect(writes).toHaveLength(10_001);
    await authenticate(request(secretOf(0).secret));
    expect(writes).toHaveLength(10_002);
  }, 60_000);
});
