/**
 * Password sign-up and the verification link of the address given: the link is made in the transaction that
 * creates the account (audited there too), mailed through the outbox to a real SMTP server on loopback when mail is
 * on, and made but not queued when mail is off; the store keeps only the link's digest; a refused sign-up keeps
 * neither account nor link.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { createMailSender } from '../../src/mail/sender.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { createSessions } from '../../src/session/sessions.js';
import { passwordHandlers } from '../../src/sign-in/password.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { firstLink, smtpAvailability, startSmtpServer, SMTP_TEST_PASSWORD, SMTP_TEST_USER, type TestSmtpServer } from '../helpers/smtp.js';
import { parseSiteConfiguration } from 'gatehouse-auth';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';

const availability = smtpAvailability();
if (!availability.run) console.log(`skipping the sign-up verification tests: ${availability.reason}`);

const NOW = 1_700_000_000_000;
const randomBytes = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

function signUpRequest(fields: Record<string, string>): RouteRequest {
  const headers = { 'content-type': 'application/json' };
  return {
    method: 'POST',
    url: new URL('/.auth/sign-up', 'http://gatehouse.test'),
    headers,
    headersDistinct: { 'content-type': ['application/json'] },
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'r1',
    body: JSON.stringify(fields),
  };
}

describe.runIf(availability.run)('password sign-up mails a verification link for its address', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(smtp: TestSmtpServer | null) {
    const store = createMemoryStore();
    const logs: LogEntry[] = [];
    let mail: MailQueue | null = null;
    if (smtp !== null) {
      const configuration = parseSiteConfiguration(
        JSON.stringify({
          'auth.providers': [{ type: 'builtin', allowSignup: true }],
          'email.smtp': { host: '127.0.0.1', port: smtp.port, authentication: 'PLAIN', username: SMTP_TEST_USER, password: SMTP_TEST_PASSWORD, noVerifyTLS: true },
          'email.address': 'noreply@gatehouse.test',
        }),
      )._unsafeUnwrap();
      const sender = createMailSender({ open: TEST_MAIL_SEALING.open, store, email: () => configuration.email, now: Date.now, log: (e) => logs.push(e), intervalMs: 50 });
      cleanups.push(() => sender.stop());
      mail = { seal: TEST_MAIL_SEALING.seal, enabled: () => true, capacity: 10, now: () => NOW, log: (e) => logs.push(e), wake: () => sender.wake() };
    }
    const sessions = createSessions({ store, now: () => NOW, randomBytes, secureCookies: false, sessionTtlSeconds: 3600 });
    const handlers = passwordHandlers({
      store,
      now: () => NOW,
      randomBytes,
      builtin: { type: 'builtin', allowSignup: true },
      audit: async (event, into) => void (await into.audit.append({ ...event, timestamp: NOW })),
      origin: 'http://gatehouse.test',
      sessions,
      proxy: null,
      emailVerification: { mail, baseURL: () => 'https://gatehouse.test/' },
    });
    return { store, handlers, logs };
  }

  it('should mail the link for the address given at sign-up, keep only its digest, and audit it with the account', async () => {
    const smtp = await startSmtpServer({ authentication: 'PLAIN' });
    cleanups.push(() => smtp.stop());
    const { store, handlers } = await setup(smtp);
    const answer = await handlers.signUp(signUpRequest({ username: 'alice', email: 'alice@example.com', password: 'correct horse' }));
    expect(answer.status).toBe(201);
    const alice = await store.accounts.findByUsernameKey('alice');
    expect(alice?.emails).toStrictEqual([{ email: 'alice@example.com', verified: false }]);
    const received = await smtp.waitForMail((m) => m.envelopeTo.includes('alice@example.com'), 15_000);
    expect(received.parsed.subject).toBe('Verify your email address');
    const link = new URL(firstLink(received));
    expect(`${link.origin}${link.pathname}`).toBe('https://gatehouse.test/settings/emails/verify');
    const token = link.searchParams.get('token') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    const stored = await store.links.find(alice?.id ?? '', 'verify_email');
    expect(stored?.email).toBe('alice@example.com');
    expect(stored?.createdAt).toBe(NOW);
    expect(stored?.expiresAt).toBe(NOW + 86_400_000);
    expect(JSON.stringify(stored)).not.toContain(token);
    const entries = await store.audit.list(10);
    expect(entries.map((e) => e.action).sort()).toStrictEqual(['created', 'email_verification_sent']);
    expect(entries.find((e) => e.action === 'email_verification_sent')?.details).toStrictEqual({ email: 'alice@example.com', mail: 'queued' });
  });

  it('should make the link but queue nothing when mail is off', async () => {
    const { store, handlers } = await setup(null);
    expect((await handlers.signUp(signUpRequest({ username: 'bob', email: 'bob@example.com', password: 'correct horse' }))).status).toBe(201);
    const bob = await store.accounts.findByUsernameKey('bob');
    expect((await store.links.find(bob?.id ?? '', 'verify_email'))?.email).toBe('bob@example.com');
    expect(await store.outbox.count()).toBe(0);
    const sent = (await store.audit.list(10)).find((e) => e.action === 'email_verification_sent');
    expect(sent?.details).toStrictEqual({ email: 'bob@example.com', mail: 'mail_off' });
  });

  it('should keep no link and queue no mail for a refused sign-up', async () => {
    const smtp = await startSmtpServer({ authentication: 'PLAIN' });
    cleanups.push(() => smtp.stop());
    const { store, handlers } = await setup(smtp);
    expect((await handlers.signUp(signUpRequest({ username: 'carol', email: 'carol@example.com', password: 'correct horse' }))).status).toBe(201);
    const before = await store.outbox.count();
    const taken = await handlers.signUp(signUpRequest({ username: 'Carol', email: 'other@example.com', password: 'correct horse' }));
    expect(taken.status).toBe(409);
    const invalid = await handlers.signUp(signUpRequest({ username: 'dave', email: 'not an address', password: 'correct horse' }));
    expect(invalid.status).toBe(400);
    expect(await store.outbox.count()).toBeLessThanOrEqual(before);
    expect(await store.accounts.findByUsernameKey('dave')).toBeNull();
    expect((await store.audit.list(10)).filter((e) => e.action === 'email_verification_sent')).toHaveLength(1);
  });
});
