/**
 * `auth.sessionExpiry` and `auth.sessionIdleTimeout` in the session layer, on the memory store and on PGlite:
 * a session ends past its expiry or when unused past the idle timeout (and is deleted), its last-seen time is
 * written at most once a minute, and `signedInAt` (what re-authentication reads) is its start.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSessions, SESSION_COOKIE, sessionDigestOf } from '../../src/session/sessions.js';
import type { SessionRequest } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { reusingOpener } from '../helpers/postgres-store.js';

const START = 1_700_000_000_000;
const MIN = 60_000;
const H = 60 * MIN;

let pglite: Promise<{ driver: Awaited<ReturnType<typeof openPgliteDriver>>; open: () => Promise<{ store: Store; close: () => Promise<void> }> }> | undefined;
afterAll(async () => {
  if (pglite !== undefined) await (await pglite).driver.close();
});

const stores: readonly (readonly [string, () => Promise<{ store: Store; close: () => Promise<void> }>])[] = [
  ['memory', async () => ({ store: createMemoryStore(), close: async () => undefined })],
  [
    'PGlite',
    // one migrated database for the file, emptied for each case
    async () => {
      pglite ??= openPgliteDriver({ memory: true }).then(async (driver) => ({ driver, open: await reusingOpener(driver) }));
      const { open } = await pglite;
      return open();
    },
  ],
];

describe.each(stores)('session lifetime on the %s store', (_name, open) => {
  const opened: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  async function setUp(expirySeconds: number, idleTimeoutMs: number | null) {
    const { store, close } = await open();
    opened.push(close);
    const user = (await store.accounts.create({ usernames: ['alice'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 }))._unsafeUnwrap();
    const clock = { now: START };
    let writes = 0;
    const counted: Store = { ...store, sessions: { ...store.sessions, touch: (d, at) => ((writes += 1), store.sessions.touch(d, at)) } };
    let n = 0;
    const sessions = createSessions({ store: counted, now: () => clock.now, randomBytes: (k) => new Uint8Array(k).fill(++n), secureCookies: false, sessionTtlSeconds: expirySeconds, idleTimeoutMs });
    const started = await sessions.startCookie({ headers: {} }, user.id);
    const browser: SessionRequest = { headers: { cookie: `${SESSION_COOKIE}=${started?.value ?? ''}` } };
    const exists = async (): Promise<boolean> => (await store.sessions.findByDigest(sessionDigestOf(browser) ?? '')) !== null;
    return { sessions, clock, browser, exists, writes: () => writes, maxAge: started?.maxAgeSeconds };
  }

  it('ends a session idle past auth.sessionIdleTimeout and deletes it; activity keeps it alive', async () => {
    const { sessions, clock, browser, exists } = await setUp(2160 * 3600, 30 * MIN);
    for (let i = 0; i < 6; i += 1) {
      clock.now += 20 * MIN;
      expect((await sessions.authenticate(browser))?.username).toBe('alice');
    }
    // let the last fire-and-forget touch land before idling
    await new Promise((r) => setTimeout(r, 20));
    clock.now += 30 * MIN;
    expect(await sessions.authenticate(browser)).toBeNull();
    expect(await exists()).toBe(false);
  });

  it('ends a session at auth.sessionExpiry whatever its use, and writes its cookie for that long', async () => {
    const { sessions, clock, browser, maxAge } = await setUp(2 * 3600, null);
    expect(maxAge).toBe(2 * 3600);
    clock.now += 2 * H - 1;
    expect((await sessions.authenticate(browser))?.username).toBe('alice');
    clock.now += 1;
    expect(await sessions.authenticate(browser)).toBeNull();
  });

  it('writes last seen at most once a minute', async () => {
    const { sessions, clock, browser, writes } = await setUp(3600, null);
    for (let i = 0; i < 30; i += 1) {
      clock.now += 5_000;
      await sessions.authenticate(browser);
    }
    // 150 s of requests every 5 s: a write at 60 s and at 120 s, never on every request
    expect(writes()).toBe(2);
  });

  it('signedInAt is the start of a live session, and null for an ended or missing one', async () => {
    const { sessions, clock, browser } = await setUp(3600, 10 * MIN);
    clock.now += 5 * MIN;
    expect(await sessions.signedInAt?.(browser)).toBe(START);
    expect(await sessions.signedInAt?.({ headers: {} })).toBeNull();
    clock.now += 10 * MIN;
    expect(await sessions.signedInAt?.(browser)).toBeNull();
  });
});
