/**
 * The purge: expired sessions and authorization codes, and audit entries past their retention, are removed from
 * the store on a timer, in bounded batches; the timer never keeps the process alive and stops on `close()`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthorizationCodeRecord } from '../../../../src/core/oauth/server/records.js';
import type { SessionRequest } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { START_TIME, startServer, type TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const DAY = 86_400_000;
const freshBrowser: SessionRequest = { headers: {} };
const digestOfCookie = (setCookie: string | null): string =>
  createHash('sha256')
    .update((setCookie ?? '').split(';')[0]?.split('=')[1] ?? '', 'utf8')
    .digest('hex');

const code = (codeHash: string, expiresAt: number): AuthorizationCodeRecord => ({
  codeHash,
  familyId: `f-${codeHash}`,
  clientId: 'gai_c',
  userId: '1',
  redirectUri: 'https://app.example/cb',
  redirectUriGiven: true,
  scopes: ['user:all'],
  codeChallenge: 'x'.repeat(43),
  expiresAt,
  used: false,
});

/** Polls `check` every 10 ms until it holds, at most `ms` (a bound on a wait, not a timing assertion). */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  vi.restoreAllMocks();
});

describe('the purge timer', () => {
  it('should remove expired sessions and authorization codes and audit entries past retention from the store on its own', async () => {
    const s = await startServer({ sessionTtlSeconds: 60, purge: { intervalSeconds: 0.02, batchSize: 2 } });
    servers.push(s);
    const alice = await s.user('alice');
    const expiring: string[] = [];
    for (let i = 0; i < 5; i++) expiring.push(digestOfCookie(await s.gatehouse.sessions.start(freshBrowser, alice.id)));
    await s.gatehouse.store.oauth.insertAuthorizationCode(code('old-code', START_TIME + 60_000));
    await flatStoreOf(s.gatehouse.store).appendAudit({
      timestamp: START_TIME,
      entity: 'user',
      action: 'old',
      reason: null,
      actorUserId: null,
      subjectUserId: null,
      details: {},
    });
    s.clock.now = START_TIME + 91 * DAY;
    const live = digestOfCookie(await s.gatehouse.sessions.start(freshBrowser, alice.id));

    const purged = await eventually(async () => {
      const sessions = await Promise.all(expiring.map((d) => flatStoreOf(s.gatehouse.store).findSessionByDigest(d)));
      const oldCode = await s.gatehouse.store.oauth.findAuthorizationCode('old-code');
      const audit = await flatStoreOf(s.gatehouse.store).listAudit(1000);
      return sessions.every((x) => x === null) && oldCode === null && !audit.some((e) => e.action === 'old');
    });
    expect(purged).toBe(true);
    expect(await flatStoreOf(s.gatehouse.store).findSessionByDigest(live)).not.toBeNull();
  });

  it('should keep audit entries for 90 days by default and for auditRetentionDays when set', async () => {
    const s = await startServer({ auditRetentionDays: 1 });
    servers.push(s);
    const entry = { entity: 'user', action: 'kept', reason: null, actorUserId: null, subjectUserId: null, details: {} };
    await flatStoreOf(s.gatehouse.store).appendAudit({ ...entry, timestamp: START_TIME });
    s.clock.now = START_TIME + DAY;
    expect((await s.gatehouse.purgeExpired()).auditEntries).toBe(0);
    s.clock.now = START_TIME + DAY + 1;
    expect((await s.gatehouse.purgeExpired()).auditEntries).toBe(1);

    const d = await startServer();
    servers.push(d);
    await flatStoreOf(d.gatehouse.store).appendAudit({ ...entry, timestamp: START_TIME });
    d.clock.now = START_TIME + 90 * DAY;
    expect((await d.gatehouse.purgeExpired()).auditEntries).toBe(0);
    d.clock.now = START_TIME + 90 * DAY + 1;
    expect((await d.gatehouse.purgeExpired()).auditEntries).toBe(1);
  });

  it('should keep an authorization code for the replay grace after its expiry, then remove it', async () => {
    const s = await startServer();
    servers.push(s);
    await s.gatehouse.store.oauth.insertAuthorizationCode(code('c', START_TIME));
    s.clock.now = START_TIME + 600_000 - 1;
    expect((await s.gatehouse.purgeExpired()).authorizationCodes).toBe(0);
    s.clock.now = START_TIME + 600_000;
    expect((await s.gatehouse.purgeExpired()).authorizationCodes).toBe(1);
  });

  it('should remove records in batches of at most purge.batchSize', async () => {
    const store = createMemoryStore();
    const s = await startServer({ store, sessionTtlSeconds: 1, purge: { intervalSeconds: 3600, batchSize: 2 } });
    servers.push(s);
    const alice = await s.user('alice');
    for (let i = 0; i < 5; i++) await s.gatehouse.sessions.start(freshBrowser, alice.id);
    s.clock.now += 1000;
    const batches: number[] = [];
    const purge = store.sessions.purgeExpired.bind(store.sessions);
    vi.spyOn(store.sessions, 'purgeExpired').mockImplementation(async (expiredBy, limit) => {
      const removed = await purge(expiredBy, limit);
      batches.push(removed);
      return removed;
    });
    expect((await s.gatehouse.purgeExpired()).sessions).toBe(5);
    expect(batches).toStrictEqual([2, 2, 1]);
  });

  it('should remove expired account links, used or not, in batches of at most purge.batchSize, and keep live ones', async () => {
    const store = createMemoryStore();
    const s = await startServer({ store, purge: { intervalSeconds: 3600, batchSize: 2 } });
    servers.push(s);
    const link = async (userId: string, purpose: 'verify_email' | 'reset_password', digest: string, expiresAt: number) =>
      (await store.links.create({ purpose, userId, email: purpose === 'verify_email' ? 'a@example.com' : null, digest, createdAt: START_TIME, expiresAt }))._unsafeUnwrap();
    // one link per account and purpose is kept, so five accounts hold the expiring links
    const expiring: string[] = [];
    for (let i = 0; i < 5; i++) {
      const user = await s.user(`user${i}`);
      expiring.push((await link(user.id, 'verify_email', `${i}`.repeat(64), START_TIME + 1000)).digest);
    }
    const keeper = await s.user('keeper');
    const live = await link(keeper.id, 'reset_password', 'f'.repeat(64), START_TIME + 2000);
    expect((await store.links.consume('reset_password', live.digest, START_TIME))._unsafeUnwrap().usedAt).toBe(START_TIME);
    const batches: number[] = [];
    const purge = store.links.purgeExpired.bind(store.links);
    vi.spyOn(store.links, 'purgeExpired').mockImplementation(async (expiredBy, limit) => {
      const removed = await purge(expiredBy, limit);
      batches.push(removed);
      return removed;
    });
    s.clock.now = START_TIME + 999;
    expect((await s.gatehouse.purgeExpired()).accountLinks).toBe(0);
    s.clock.now = START_TIME + 1000;
    expect((await s.gatehouse.purgeExpired()).accountLinks).toBe(5);
    expect(batches).toStrictEqual([0, 2, 2, 1]);
    for (const digest of expiring) expect(await store.links.findByDigest(digest)).toBeNull();
    // used but not yet expired: kept, so that a second use still answers "used"
    expect(await store.links.findByDigest(live.digest)).not.toBeNull();
    s.clock.now = START_TIME + 2000;
    expect((await s.gatehouse.purgeExpired()).accountLinks).toBe(1);
  });

  it('should run on an unreferenced timer that close() clears', async () => {
    const setSpy = vi.spyOn(globalThis, 'setInterval');
    const clearSpy = vi.spyOn(globalThis, 'clearInterval');
    const s = await startServer({ purge: { intervalSeconds: 5 } });
    const timers = setSpy.mock.results.map((r) => r.value as NodeJS.Timeout).filter((t) => t.hasRef() === false);
    expect(setSpy.mock.calls.some(([, ms]) => ms === 5_000)).toBe(true);
    expect(timers.length).toBeGreaterThan(0);
    await s.close();
    expect(clearSpy.mock.calls.some(([t]) => timers.includes(t as NodeJS.Timeout))).toBe(true);
  });

  it('should refuse purge options that are not positive at start', async () => {
    await expect(startServer({ purge: { batchSize: 0 } })).rejects.toThrow('purge.batchSize must be a positive integer.');
    await expect(startServer({ purge: { intervalSeconds: -1 } })).rejects.toThrow('purge.intervalSeconds must be a positive number.');
    await expect(startServer({ auditRetentionDays: 0 })).rejects.toThrow('auditRetentionDays must be a positive number.');
  });

  it('should not keep a process alive that created a server and did nothing else', async () => {
    const server = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const script = `import { createGatehouseServer } from ${JSON.stringify(server)}; createGatehouseServer({ log: () => {} }); console.log('created');`;
    const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 60_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect({ exit, output: output.trim() }).toStrictEqual({ exit: 0, output: 'created' });
  }, 70_000);
});
