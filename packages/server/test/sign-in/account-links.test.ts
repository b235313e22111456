/**
 * Password reset, unlock and administrator reset links end to end on a real server over 127.0.0.1 with a real SMTP
 * server on loopback (STARTTLS, each mail read with a MIME parser): forgot password → the mail → the link's page →
 * a new password under the password rule → every old session ended → sign-in with the new password; links read
 * back from the store as digests only and single-use; the same answer (and timing) for an existing and a missing
 * account; lockout → the unlock mail → unlocked; `createPasswordResetLink` and its refusals; mail off.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/session/sessions.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { smtpAvailability, startSmtpServer } from '../helpers/smtp.js';
import type { ReceivedMail, TestSmtpServer } from '../helpers/smtp.js';
import type { UserRecord } from '../../src/store/types.js';

const smtp = smtpAvailability();
if (!smtp.run) console.log(`skipping the account link tests: ${smtp.reason}`);

const PASSWORD = 'correct horse';
const NEW_PASSWORD = 'battery staple 42';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

/** A browser-like client: keeps cookies, reads each form's `_csrf`, posts forms as a page does. */
function client(base: string) {
  const cookies = new Map<string, string>();
  const keep = (res: Response): void => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      if (eq > 0) cookies.set((pair ?? '').slice(0, eq), (pair ?? '').slice(eq + 1));
    }
  };
  const cookieHeader = (): string => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  let csrf = '';
  return {
    cookies,
    async get(path: string): Promise<{ status: number; text: string; location: string | null }> {
      const res = await fetch(new URL(path, base), { headers: { cookie: cookieHeader() }, redirect: 'manual' });
      keep(res);
      const text = await res.text();
      csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
      return { status: res.status, text, location: res.headers.get('location') };
    },
    async post(path: string, fields: Record<string, string>): Promise<{ status: number; text: string; location: string | null }> {
      const res = await fetch(new URL(path, base), {
        method: 'POST',
        headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', origin: base },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        redirect: 'manual',
      });
      keep(res);
      return { status: res.status, text: await res.text(), location: res.headers.get('location') };
    },
    async signIn(username: string, password: string): Promise<number> {
      const res = await fetch(new URL('/.auth/sign-in', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
      keep(res);
      return res.status;
    },
  };
}

/** The one link in a mail's text. */
function linkIn(mail: ReceivedMail): string {
  const url = /(http:\/\/\S+\?token=\S+)/.exec(mail.parsed.text ?? '')?.[1];
  if (url === undefined) throw new Error(`no link in ${mail.parsed.text ?? ''}`);
  return url;
}

const to = (address: string) => (mail: ReceivedMail): boolean => mail.envelopeTo.includes(address);

describe.runIf(smtp.run)('account links with mail on', () => {
  let relay: TestSmtpServer;
  let server: TestServer;
  let alice: UserRecord;

  beforeAll(async () => {
    relay = await startSmtpServer();
    server = await startServer({
      siteConfiguration: JSON.stringify({
        'auth.providers': [{ type: 'builtin', allowSignup: true }],
        'email.smtp': { host: '127.0.0.1', port: relay.port, authentication: 'none', noVerifyTLS: true, domain: 'gatehouse.test' },
        'email.address': 'gatehouse@example.com',
        'auth.lockout': { failedAttemptThreshold: 3 },
      }),
      mail: { intervalMs: 200 },
    });
    alice = (
      await flatStoreOf(server.gatehouse.store).createUser({
        username: 'alice',
        origin: 'password_signup',
        siteAdmin: false,
        serviceAccount: false,
        emails: [{ email: 'alice@example.com', verified: true }],
        passwordHash: await hashPassword(PASSWORD, random),
        createdAt: 0,
      })
    )._unsafeUnwrap();
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await relay.stop();
  });

  it('should reset a forgotten password by the mailed link, end every old session, and keep the link single-use and a digest in the store', async () => {
    const old = client(server.url);
    expect(await old.signIn('alice', PASSWORD)).toBe(200);
    expect((await old.get('/settings')).status).toBe(200);

    const browser = client(server.url);
    const signInPage = await browser.get('/.auth/sign-in');
    expect(signInPage.text).toContain('href="/.auth/forgot-password"');
    expect((await browser.get('/.auth/forgot-password')).text).not.toContain('Mail is off');
    const asked = await browser.post('/.auth/forgot-password', { login: 'alice' });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('a link to set a new password is on its way');
    const mail = await relay.waitForMail(to('alice@example.com'), 20_000);
    expect(mail.secure).toBe(true);
    expect(mail.parsed.subject).toBe('Set a new password');
    const url = linkIn(mail);
    expect(url.startsWith(`${server.url}/.auth/reset-password?token=`)).toBe(true);
    const token = new URL(url).searchParams.get('token') ?? '';

    // the store holds the link's digest, never its token
    const stored = await server.gatehouse.store.links.find(alice.id, 'reset_password');
    expect(stored?.digest).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(stored?.expiresAt).toBe(server.clock.now + 14_400 * 1000);

    const path = new URL(url).pathname + new URL(url).search;
    expect((await browser.get(path)).status).toBe(200);
    expect((await browser.post('/.auth/reset-password', { token, password: NEW_PASSWORD, confirm: 'something else 1' })).status).toBe(400);
    const short = await browser.post('/.auth/reset-password', { token, password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 8 characters');
    const set = await browser.post('/.auth/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(set.status).toBe(200);
    expect(set.text).toContain('every session of the account was ended');

    // single use: the link is marked used in the store and refused again
    expect((await server.gatehouse.store.links.find(alice.id, 'reset_password'))?.usedAt).toBe(server.clock.now);
    expect((await browser.post('/.auth/reset-password', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status).toBe(410);
    expect((await browser.get(path)).status).toBe(410);

    // the old session is gone; the old password fails, the new one works
    const after = await old.get('/settings');
    expect(after.status).toBe(303);
    expect(after.location).toContain('/.auth/sign-in');
    expect(await client(server.url).signIn('alice', PASSWORD)).toBe(401);
    expect(await client(server.url).signIn('alice', NEW_PASSWORD)).toBe(200);
    const [entry] = await server.gatehouse.store.audit.list(1, { action: 'password_reset' });
    expect(entry).toMatchObject({ entity: 'user', actorUserId: alice.id, subjectUserId: alice.id, details: { sessionsEnded: '1' } });
  }, 60_000);

  it('should answer the same for an existing and a missing account, in text, status and timing, and mail only the existing one', async () => {
    const browser = client(server.url);
    await browser.get('/.auth/forgot-password');
    const rounds = { existing: [] as { status: number; text: string; ms: number }[], missing: [] as { status: number; text: string; ms: number }[] };
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < 15 && Date.now() < deadline; i += 1) {
      for (const [side, login] of (i % 2 === 0 ? [['existing', 'alice'], ['missing', 'nobody']] : [['missing', 'nobody@example.com'], ['existing', 'alice@example.com']]) as [keyof typeof rounds, string][]) {
        const started = performance.now();
        const answer = await browser.post('/.auth/forgot-password', { login });
        rounds[side].push({ status: answer.status, text: answer.text.replace(/name="_csrf" value="[^"]+"/, ''), ms: performance.now() - started });
      }
    }
    const answers = new Set([...rounds.existing, ...rounds.missing].map((r) => `${r.status}\n${r.text}`));
    expect(answers.size).toBe(1);
    const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const a = median(rounds.existing.map((r) => r.ms));
    const b = median(rounds.missing.map((r) => r.ms));
    console.log(`forgot password medians: existing ${a.toFixed(1)} ms, missing ${b.toFixed(1)} ms over ${rounds.existing.length} rounds`);
    expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(2.5);
    // nobody@… has no account: no link was made for it, and alice got at most one more mail (one a minute at most)
    expect(relay.messages.filter((m) => !m.envelopeTo.includes('alice@example.com'))).toStrictEqual([]);
  }, 60_000);

  it('should lock after the threshold, mail the unlock link, and unlock by it', async () => {
    const bob = (
      await flatStoreOf(server.gatehouse.store).createUser({
        username: 'bob',
        origin: 'password_signup',
        siteAdmin: false,
        serviceAccount: false,
        emails: [{ email: 'bob@example.com', verified: true }],
        passwordHash: await hashPassword(PASSWORD, random),
        createdAt: 0,
      })
    )._unsafeUnwrap();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      server.clock.now += 60_000;
      statuses.push(await client(server.url).signIn('bob', 'wrong password'));
    }
    expect(statuses).toStrictEqual([401, 401, 403]);
    server.clock.now += 60_000;
    expect(await client(server.url).signIn('bob', PASSWORD)).toBe(403);
    const mail = await relay.waitForMail(to('bob@example.com'), 20_000);
    expect(mail.parsed.subject).toBe('Your account was locked');
    const url = new URL(linkIn(mail));
    expect(url.pathname).toBe('/.auth/unlock-account');
    const stored = await server.gatehouse.store.links.find(bob.id, 'unlock_account');
    expect(stored?.expiresAt).toBe((stored?.createdAt ?? 0) + 300 * 1000);
    const browser = client(server.url);
    const page = await browser.get(url.pathname + url.search);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Unlock account');
    const unlocked = await browser.post('/.auth/unlock-account', { token: url.searchParams.get('token') ?? '' });
    expect(unlocked.status).toBe(200);
    expect(unlocked.text).toContain('Your account is unlocked');
    expect(await client(server.url).signIn('bob', PASSWORD)).toBe(200);
    expect((await browser.post('/.auth/unlock-account', { token: url.searchParams.get('token') ?? '' })).status).toBe(410);
  }, 60_000);

  it('should make a reset link for an administrator by createPasswordResetLink, mailed, and refuse a service account and a member', async () => {
    const root = await server.user('root', true);
    const rootToken = (await server.token(root)).token;
    const carol = await server.user('carol', false, 'carol@example.com');
    const made = await gql(server.url, `mutation { createPasswordResetLink(user: "${carol.id}") { url emailSent } }`, { headers: { authorization: `token ${rootToken}` } });
    const link = (made.body as { data: { createPasswordResetLink: { url: string; emailSent: boolean } } }).data.createPasswordResetLink;
    expect(link.emailSent).toBe(true);
    expect(link.url.startsWith(`${server.url}/.auth/reset-password?token=`)).toBe(true);
    const mail = await relay.waitForMail(to('carol@example.com'), 20_000);
    expect(linkIn(mail)).toBe(link.url);

    const service = (
      await flatStoreOf(server.gatehouse.store).createUser({ username: 'ci-bot', origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: 0 })
    )._unsafeUnwrap();
    const refused = await gql(server.url, `mutation { createPasswordResetLink(user: "${service.id}") { url } }`, { headers: { authorization: `token ${rootToken}` } });
    expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'SERVICE_ACCOUNT' } }] });
    expect(await server.gatehouse.store.links.find(service.id, 'reset_password')).toBeNull();
    const carolToken = (await server.token(carol)).token;
    const member = await gql(server.url, `mutation { createPasswordResetLink(user: "${alice.id}") { url } }`, { headers: { authorization: `token ${carolToken}` } });
    expect(member.body).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    const [entry] = await server.gatehouse.store.audit.list(1, { action: 'password_reset_link_created' });
    expect(entry).toMatchObject({ actorUserId: root.id, subjectUserId: carol.id, details: { emailSent: 'true' } });
  }, 60_000);
});

describe('account links with mail off', () => {
  it('should say on the pages that mail is off, and still give the administrator a link to copy', async () => {
    const server = await startServer({ siteConfiguration: JSON.stringify({ 'auth.providers': [{ type: 'builtin' }] }) });
    try {
      const browser = client(server.url);
      expect((await browser.get('/.auth/forgot-password')).text).toContain('Mail is off on this site');
      const root = await server.user('root', true);
      const dave = await server.user('dave', false, 'dave@example.com');
      const made = await gql(server.url, `mutation { createPasswordResetLink(user: "${dave.id}") { url emailSent } }`, {
        headers: { authorization: `token ${(await server.token(root)).token}` },
      });
      const link = (made.body as { data: { createPasswordResetLink: { url: string; emailSent: boolean } } }).data.createPasswordResetLink;
      expect(link.emailSent).toBe(false);
      const url = new URL(link.url);
      expect((await browser.get(url.pathname + url.search)).status).toBe(200);
      expect((await browser.post('/.auth/reset-password', { token: url.searchParams.get('token') ?? '', password: NEW_PASSWORD, confirm: NEW_PASSWORD })).status).toBe(200);
      expect(await client(server.url).signIn('dave', NEW_PASSWORD)).toBe(200);
      expect(await server.gatehouse.store.outbox.count()).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});
