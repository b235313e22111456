/**
 * No account enumeration through sign-in and sign-up: for an existing and a missing account the answers are
 * the same (status and body), and so are their timings, compared statistically (the medians of alternating,
 * bounded rounds within a generous ratio; no absolute time is asserted). A real server on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/session/sessions.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** Rounds per side; each round is one request per side, alternating, so load on the machine hits both alike. */
const ROUNDS = 15;
/** The medians may differ by this factor at most: scrypt dominates both sides, so equal work stays well inside it. */
const RATIO = 2.5;
/** Every loop is bounded in time as well as in count. */
const DEADLINE_MS = 60_000;

const CONFIGURATION = JSON.stringify({
  'auth.providers': [{ type: 'builtin', allowSignup: true }],
  // the timing rounds fail many times: the lock has its own comparison (lockout.test.ts)
  'auth.lockout': { failedAttemptThreshold: 1_000_000 },
});
const NO_THROTTLE = { policy: { freeFailures: 1_000_000, baseDelayMs: 0, maxDelayMs: 0, forgetAfterMs: 0 }, clientAddressPolicy: null };

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly ms: number;
}

async function post(server: TestServer, path: string, body: Record<string, string>): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text, ms: performance.now() - started };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Runs both sides alternately, ROUNDS times or until the deadline; every answer of a side must be the same. */
async function compare(existing: (i: number) => Promise<Answer>, missing: (i: number) => Promise<Answer>): Promise<{ existing: Answer[]; missing: Answer[] }> {
  const out = { existing: [] as Answer[], missing: [] as Answer[] };
  const deadline = Date.now() + DEADLINE_MS;
  for (let i = 0; i < ROUNDS && Date.now() < deadline; i += 1) {
    // the first side of a round alternates too
    if (i % 2 === 0) {
      out.existing.push(await existing(i));
      out.missing.push(await missing(i));
    } else {
      out.missing.push(await missing(i));
      out.existing.push(await existing(i));
    }
  }
  return out;
}

function expectSameTiming(rounds: { existing: Answer[]; missing: Answer[] }): void {
  expect(rounds.existing.length).toBeGreaterThanOrEqual(5);
  const a = median(rounds.existing.map((r) => r.ms));
  const b = median(rounds.missing.map((r) => r.ms));
  console.log(`medians: existing ${a.toFixed(1)} ms, missing ${b.toFixed(1)} ms over ${rounds.existing.length} rounds`);
  expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(RATIO);
}

describe('no account enumeration', () => {
  it('should answer a wrong password of an existing account and of a missing one alike, in text and in timing', async () => {
    const server = await startServer({ siteConfiguration: CONFIGURATION, signInThrottle: NO_THROTTLE });
    try {
      (
        await flatStoreOf(server.gatehouse.store).createUser({
          username: 'alice',
          origin: 'password_signup',
          siteAdmin: false,
          serviceAccount: false,
          emails: [{ email: 'alice@example.com', verified: false }],
          passwordHash: await hashPassword('correct horse', (n) => crypto.getRandomValues(new Uint8Array(n))),
          createdAt: 0,
        })
      )._unsafeUnwrap();
      const rounds = await compare(
        () => post(server, '/.auth/sign-in', { username: 'alice', password: 'wrong password' }),
        () => post(server, '/.auth/sign-in', { username: 'nobody', password: 'wrong password' }),
      );
      const answers = new Set([...rounds.existing, ...rounds.missing].map((r) => `${r.status} ${r.body}`));
      expect([...answers]).toStrictEqual(['401 {"error":{"code":"invalid_credentials","message":"Invalid username or password."}}']);
      expectSameTiming(rounds);
    } finally {
      await server.close();
    }
  });

  it('should answer a sign-up with an email an account has and with a new email alike, in text and in timing', async () => {
    const server = await startServer({ siteConfiguration: CONFIGURATION, signInThrottle: NO_THROTTLE });
    try {
      expect((await post(server, '/.auth/sign-up', { username: 'alice', email: 'alice@example.com', password: 'correct horse' })).status).toBe(201);
      const rounds = await compare(
        (i) => post(server, '/.auth/sign-up', { username: `taken-mail-${i}`, email: 'alice@example.com', password: 'correct horse' }),
        (i) => post(server, '/.auth/sign-up', { username: `new-mail-${i}`, email: `new-${i}@example.com`, password: 'correct horse' }),
      );
      const shape = (r: Answer, i: number, prefix: string): string => `${r.status} ${r.body.replace(`${prefix}-${i}`, 'NAME')}`;
      expect(new Set([...rounds.existing.map((r, i) => shape(r, i, 'taken-mail')), ...rounds.missing.map((r, i) => shape(r, i, 'new-mail'))])).toStrictEqual(
        new Set(['201 {"ok":true,"username":"NAME"}']),
      );
      expectSameTiming(rounds);
    } finally {
      await server.close();
    }
  });
});
