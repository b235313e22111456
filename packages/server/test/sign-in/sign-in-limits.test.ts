/**
 * Bounds of password sign-in against an anonymous flood: throttled records are never evicted by other keys, an
 * invalid username is refused before the username throttle and counted per client address, and password hashing
 * runs behind a small semaphore with a bounded queue, so a real sign-in completes promptly during a flood.
 * Requests from a second client come from another loopback address (127.0.0.2).
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/session/sessions.js';
import { createGatehouseServer } from '../../src/index.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

// the throttles alone: the account lockout (auth.lockout, lockout.test.ts) is set past these tests' failures
const BUILTIN = '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }], "auth.lockout": { "failedAttemptThreshold": 1000 } }';
const PASSWORD = 'the right password';

interface Attempt {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly code: string | null;
}

/** A JSON sign-in (or sign-up) attempt sent from `from` (a local loopback address). */
function attempt(server: { readonly url: string }, username: string, password: string, from = '127.0.0.1', path = '/.auth/sign-in'): Promise<Attempt> {
  const target = new URL(server.url);
  const body = JSON.stringify({ username, password, email: `${username.slice(0, 20)}@example.com` });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path,
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { code?: string } };
          const retry = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retry === 'string' ? retry : null, code: parsed.error?.code ?? null });
        });
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}

async function withAccount(server: Pick<TestServer, 'gatehouse'>, username: string): Promise<void> {
  const created = await flatStoreOf(server.gatehouse.store).createUser({
    username,
    origin: 'password_signup',
    siteAdmin: false,
    serviceAccount: false,
    emails: [],
    passwordHash: await hashPassword(PASSWORD, (n) => new Uint8Array(n).fill(3)),
    createdAt: 0,
  });
  expect(created.isOk()).toBe(true);
}

async function throttle(server: TestServer, username: string): Promise<void> {
  for (let i = 0; i < 5; i++) expect((await attempt(server, username, 'wrong')).status).toBe(401);
  expect(await attempt(server, username, 'wrong')).toStrictEqual({ status: 429, retryAfter: '1', code: 'too_many_attempts' });
}

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all([...servers.splice(0).map((s) => s.close()), ...closers.splice(0).map((close) => close())]);
});
async function serve(options: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(options);
  servers.push(server);
  return server;
}

describe('the sign-in throttle', () => {
  it('should keep a throttled username throttled through a flood of overlong usernames', async () => {
    const server = await serve({ siteConfiguration: BUILTIN, signInThrottle: { maxEntries: 3 } });
    await throttle(server, 'pat');
    for (let i = 0; i < 10; i++) {
      expect(await attempt(server, `${'x'.repeat(256)}${i}`, 'wrong', '127.0.0.2')).toStrictEqual({ status: 400, retryAfter: null, code: 'invalid_username' });
    }
    // still throttled by username, seen from an address that has no failures of its own
    expect(await attempt(server, 'pat', 'wrong', '127.0.0.3')).toStrictEqual({ status: 429, retryAfter: '1', code: 'too_many_attempts' });
  });

  it('should never evict a throttled record for another key: a full table evicts the oldest un-throttled record', async () => {
    const server = await serve({ siteConfiguration: BUILTIN, signInThrottle: { maxEntries: 3, clientAddressPolicy: null } });
    await throttle(server, 'pat');
    expect((await attempt(server, 'q1', 'wrong')).status).toBe(401);
    expect((await attempt(server, 'q2', 'wrong')).status).toBe(401);
    // the table holds pat (throttled), q1, q2: a fourth username takes q1's place, and pat stays throttled
    expect((await attempt(server, 'q3', 'wrong')).status).toBe(401);
    expect((await attempt(server, 'pat', 'wrong')).status).toBe(429);
    expect((await attempt(server, 'q1', 'wrong')).status).toBe(401);
  });

  it('should refuse a new username (503) only while every record of the username table is throttled, until records expire', async () => {
    const server = await serve({ siteConfiguration: BUILTIN, signInThrottle: { maxEntries: 2, clientAddressPolicy: null } });
    await throttle(server, 'pat');
    await throttle(server, 'quinn');
    expect(await attempt(server, 'q3', 'wrong')).toStrictEqual({ status: 503, retryAfter: '900', code: 'throttle_full' });
    expect((await attempt(server, 'pat', 'wrong')).status).toBe(429);
    // records expire by time only (15 quiet minutes)
    server.clock.now += 15 * 60_000;
    expect((await attempt(server, 'q3', 'wrong')).status).toBe(401);
  });

  it('should let a user sign in from a new address after a flood of invalid usernames from many addresses filled the address table', async () => {
    const server = await serve({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }', signInThrottle: { maxEntries: 20 } });
    await withAccount(server, 'alice');
    // one cheap request (an invalid username: no hashing) from each of 20 addresses fills the address table
    for (let i = 0; i < 20; i++) {
      expect(await attempt(server, '..bad..', 'x', `127.1.0.${i + 1}`)).toStrictEqual({ status: 400, retryAfter: null, code: 'invalid_username' });
    }
    expect(await attempt(server, 'alice', PASSWORD, '127.9.9.9')).toStrictEqual({ status: 200, retryAfter: null, code: null });
  });

  it('should fail open for a new address when every record of the address table is throttled', async () => {
    const addressPolicy = { freeFailures: 1, baseDelayMs: 60_000, maxDelayMs: 60_000, forgetAfterMs: 900_000 };
    const server = await serve({ siteConfiguration: BUILTIN, signInThrottle: { maxEntries: 3, clientAddressPolicy: addressPolicy } });
    await withAccount(server, 'alice');
    for (let i = 0; i < 3; i++) expect((await attempt(server, '..bad..', 'x', `127.1.0.${i + 1}`)).status).toBe(400);
    // every address is throttled and the table is full: the throttled ones stay throttled, a new one is let through
    expect((await attempt(server, '..bad..', 'x', '127.1.0.1')).status).toBe(429);
    expect((await attempt(server, 'alice', PASSWORD, '127.9.9.9')).status).toBe(200);
    expect((await attempt(server, '..bad..', 'x', '127.1.0.2')).status).toBe(429);
  });

  it('should refuse invalid usernames before the username throttle and count them per client address', async () => {
    const server = await serve({ siteConfiguration: BUILTIN });
    await withAccount(server, 'rita');
    const answers: Attempt[] = [];
    for (let i = 0; i < 21; i++) answers.push(await attempt(server, i % 2 === 0 ? `bad name ${i}` : `.dot${i}`, 'wrong', '127.0.0.2'));
    expect(answers.slice(0, 20).every((a) => a.status === 400 && a.code === 'invalid_username')).toBe(true);
    expect(answers[20]).toStrictEqual({ status: 429, retryAfter: '1', code: 'too_many_attempts' });
    // the address is throttled, not the account: another client signs in as rita at once
    expect((await attempt(server, 'rita', PASSWORD, '127.0.0.1')).status).toBe(200);
    expect((await attempt(server, 'rita', PASSWORD, '127.0.0.2')).status).toBe(429);
  });

  it('should throttle per client address by default (20 free failures, then a doubling wait)', async () => {
    const server = await serve({ siteConfiguration: BUILTIN });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await attempt(server, `spray${i}`, 'guess', '127.0.0.2')).status);
    expect(statuses).toStrictEqual([...Array<number>(20).fill(401), 429]);
    expect((await attempt(server, 'spray-other', 'guess', '127.0.0.1')).status).toBe(401);
  });
});

describe('password hashing', () => {
  it('should answer 503 with Retry-After when the hashing queue is full', async () => {
    const server = await serve({ siteConfiguration: BUILTIN, passwordHashing: { maxConcurrent: 1, maxQueued: 1 } });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => attempt(server, `busy${i}`, 'wrong', `127.0.0.${2 + i}`)));
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy.every((a) => a.retryAfter === '1' && a.code === 'hashing_busy')).toBe(true);
    expect(answers.every((a) => a.status === 503 || a.status === 401)).toBe(true);
    // a refused attempt is not counted as a failure of its username
    const retried = await attempt(server, 'busy0', 'wrong', '127.0.0.2');
    expect(retried.status).toBe(401);
  });

  it('should let a real sign-in complete promptly during a flood of failed sign-ins with new usernames', async () => {
    const gatehouse = createGatehouseServer({ siteConfiguration: BUILTIN, log: () => {} });
    const { url, server: listening } = await gatehouse.listen(0);
    const server = { url, server: listening, gatehouse };
    closers.push(() => gatehouse.close());
    await withAccount(server, 'sam');
    // the expected time: one sign-in alone (best of three)
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect((await attempt(server, 'sam', PASSWORD)).status).toBe(200);
      alone.push(performance.now() - started);
    }
    const expectedMs = Math.min(...alone);

    // 200 failed sign-ins with new usernames from one client, all at once; the real sign-in starts once the
    // server has received every one of them (so it is timed against the hashing, not against their delivery)
    let received = 0;
    const count = (): void => {
      received += 1;
    };
    server.server.on('request', count);
    const flood = Promise.all(Array.from({ length: 200 }, (_, i) => attempt(server, `flood${i}`, 'wrong', '127.0.0.2')));
    for (let waited = 0; received < 200 && waited < 30_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    server.server.off('request', count);
    const started = performance.now();
    const real = await attempt(server, 'sam', PASSWORD, '127.0.0.1');
    const tookMs = performance.now() - started;
    const floodAnswers = await flood;

    expect(real.status).toBe(200);
    // generous (10× one sign-in alone): the real sign-in may wait behind a few admitted hashes, never behind the flood
    expect(tookMs).toBeLessThan(Math.max(10 * expectedMs, 1_000));
    expect(floodAnswers.every((a) => [401, 429, 503].includes(a.status))).toBe(true);
    // the client address throttle let at most its 20 free failures reach the password hash
    expect(floodAnswers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(20);
  }, 120_000);
});
