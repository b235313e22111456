/**
 * The session quota: an account holds at most `maxSessionsPerAccount` browser sessions (default 50); starting one
 * more revokes the account's oldest, and no other account's. And what the "Sessions" settings page shows of each:
 * the browser's user agent, when it was last seen (written at most once a minute), and which one is the viewer's.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/index.js';
import { createSessions, SESSION_COOKIE, SESSION_TOUCH_INTERVAL_MS, sessionDigestOf } from '../../src/session/sessions.js';
import type { SessionRequest, Sessions } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SessionStore, Store } from '../../src/store/types.js';
import { gql, startServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let alice: UserRecord;
let bob: UserRecord;

beforeAll(async () => {
  s = await startServer();
  alice = await s.user('alice');
  bob = await s.user('bob');
});

afterAll(async () => {
  await s.close();
});

/** A request carrying no cookie (a new browser). */
const freshBrowser: SessionRequest = { headers: {} };

/** Starts a session in a new browser; returns its `gatehouse_session=…` cookie. */
async function signIn(user: UserRecord): Promise<string> {
  const setCookie = await s.gatehouse.sessions.start(freshBrowser, user.id);
  return (setCookie ?? '').split(';')[0] ?? '';
}

async function viewer(cookie: string): Promise<unknown> {
  const answer = await gql(s.url, '{ currentUser { username } }', { headers: { cookie, 'x-requested-with': 'test' } });
  return answer.body;
}

describe('Sessions.start: at most 50 sessions per account', () => {
  it("should revoke the account's oldest session when a 51st starts, and keep the others and other accounts' sessions", async () => {
    const bobs = await signIn(bob);
    const cookies: string[] = [];
    for (let i = 0; i < 51; i++) {
      cookies.push(await signIn(alice));
      s.clock.now += 1;
    }
    expect(await viewer(cookies[0] ?? '')).toStrictEqual({ data: { currentUser: null } });
    for (const cookie of [cookies[1], cookies[50]]) expect(await viewer(cookie ?? '')).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
    expect(await viewer(bobs)).toStrictEqual({ data: { currentUser: { username: 'bob' } } });
  });

  it('should take the bound from maxSessionsPerAccount, and refuse a bound that is not a positive integer at start', async () => {
    const small = await startServer({ maxSessionsPerAccount: 2 });
    try {
      const carol = await small.user('carol');
      const cookies: string[] = [];
      for (let i = 0; i < 3; i++) {
        cookies.push(((await small.gatehouse.sessions.start(freshBrowser, carol.id)) ?? '').split(';')[0] ?? '');
        small.clock.now += 1;
      }
      const who = async (cookie: string): Promise<unknown> =>
        (await gql(small.url, '{ currentUser { username } }', { headers: { cookie, 'x-requested-with': 'test' } })).body;
      expect(await who(cookies[0] ?? '')).toStrictEqual({ data: { currentUser: null } });
      expect(await who(cookies[1] ?? '')).toStrictEqual({ data: { currentUser: { username: 'carol' } } });
    } finally {
      await small.close();
    }
    await expect(startServer({ maxSessionsPerAccount: 0 })).rejects.toThrow('maxSessionsPerAccount must be a positive integer.');
  });
});

describe('session metadata for the settings page', () => {
  const START = 1_700_000_000_000;

  /** A memory store with alice (id `1`) and a session layer on a clock the case moves; `touch` may be replaced. */
  async function setUp(touch?: SessionStore['touch']): Promise<{ sessions: Sessions; store: Store; clock: { now: number }; touches: number[] }> {
    const store = createMemoryStore();
    await store.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 });
    const clock = { now: START };
    const touches: number[] = [];
    let bytes = 0;
    const sessions = createSessions({
      store: {
        accounts: store.accounts,
        sessions: {
          ...store.sessions,
          touch: (digest, at) => {
            touches.push(at);
            return (touch ?? store.sessions.touch)(digest, at);
          },
        },
      },
      now: () => clock.now,
      // a different session id for every sign-in
      randomBytes: (n) => new Uint8Array(n).fill(++bytes),
      secureCookies: false,
      sessionTtlSeconds: 86_400,
    });
    return { sessions, store, clock, touches };
  }

  /** Signs in with `headers`; returns the browser's request headers afterwards (its session cookie). */
  async function signIn(sessions: Sessions, req: SessionRequest): Promise<SessionRequest> {
    const started = await sessions.startCookie(req, '1');
    return { headers: { cookie: `${SESSION_COOKIE}=${started?.value ?? ''}` } };
  }

  it('should record the browser’s user agent (the first when repeated, at most 512 characters) and last-seen time at sign-in', async () => {
    const { sessions, store, clock } = await setUp();
    const long = `Mozilla/5.0 ${'é'.repeat(600)}`;
    const cases: [SessionRequest, string][] = [
      [{ headers: { 'user-agent': 'Firefox/128.0' } }, 'Firefox/128.0'],
      [{ headers: { 'user-agent': long } }, long.slice(0, 512)],
      [{ headers: { 'user-agent': ['First/1', 'Second/2'] } }, 'First/1'],
      [{ headers: { 'user-agent': 'First/1, Second/2' }, headersDistinct: { 'user-agent': ['First/1', 'Second/2'] } }, 'First/1'],
      [{ headers: {} }, ''],
    ];
    for (const [req] of cases) {
      await signIn(sessions, req);
      clock.now += 1;
    }
    const listed = await store.sessions.list('1');
    expect(listed.map((s) => s.userAgent)).toStrictEqual(cases.map(([, agent]) => agent));
    expect(listed[1]?.userAgent).toHaveLength(512);
    expect(listed.map((s) => s.lastSeenAt)).toStrictEqual(listed.map((s) => s.createdAt));
    expect(listed.map((s) => s.createdAt)).toStrictEqual([0, 1, 2, 3, 4].map((n) => START + n));
  });

  it('should refresh last seen only once a minute has passed since it, on requests that authenticate', async () => {
    const { sessions, store, clock, touches } = await setUp();
    const browser = await signIn(sessions, { headers: { 'user-agent': 'Firefox/128.0' } });
    const digest = sessionDigestOf(browser) ?? '';
    const lastSeen = async (): Promise<number | undefined> => (await store.sessions.findByDigest(digest))?.lastSeenAt;
    expect(SESSION_TOUCH_INTERVAL_MS).toBe(60_000);
    clock.now = START + 59_999;
    expect((await sessions.authenticate(browser))?.username).toBe('alice');
    expect([touches, await lastSeen()]).toStrictEqual([[], START]);
    clock.now = START + 60_000;
    expect((await sessions.authenticate(browser))?.username).toBe('alice');
    expect([touches, await lastSeen()]).toStrictEqual([[START + 60_000], START + 60_000]);
    clock.now = START + 60_000 + 59_999;
    await sessions.authenticate(browser);
    await sessions.authenticate(browser);
    expect(touches).toStrictEqual([START + 60_000]);
    clock.now = START + 120_000;
    await sessions.authenticate(browser);
    expect([touches, await lastSeen()]).toStrictEqual([[START + 60_000, START + 120_000], START + 120_000]);
    // an expired session is ended, not refreshed
    clock.now = START + 86_400_000;
    expect(await sessions.authenticate(browser)).toBeNull();
    expect(touches).toHaveLength(2);
  });

  it('should sign the browser in even when refreshing last seen hangs or fails', async () => {
    for (const touch of [() => new Promise<void>(() => undefined), async () => Promise.reject(new Error('the store is down'))]) {
      const { sessions, clock, touches } = await setUp(touch);
      const browser = await signIn(sessions, { headers: {} });
      clock.now += 60_000;
      expect((await sessions.authenticate(browser))?.username).toBe('alice');
      expect(touches).toHaveLength(1);
    }
  });

  it('should name the request’s session by the digest the store keeps it under, and none without a well-formed cookie', async () => {
    const { sessions, store } = await setUp();
    const browser = await signIn(sessions, { headers: {} });
    const other = await signIn(sessions, { headers: {} });
    const cookieValue = String(browser.headers['cookie']).slice(`${SESSION_COOKIE}=`.length);
    const digest = sessionDigestOf(browser);
    expect(digest).toBe(createHash('sha256').update(cookieValue).digest('hex'));
    expect((await store.sessions.list('1')).map((s) => s.digest === digest)).toStrictEqual([true, false]);
    expect(sessionDigestOf(other)).not.toBe(digest);
    expect(sessionDigestOf({ headers: {} })).toBeNull();
    expect(sessionDigestOf({ headers: { cookie: `${SESSION_COOKIE}=too-short` } })).toBeNull();
    expect(sessionDigestOf({ headers: { cookie: `other=${cookieValue}` } })).toBeNull();
  });
});
