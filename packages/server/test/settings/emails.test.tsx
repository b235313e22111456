/**
 * Email addresses on the profile as handlers: adding an address mails a verification link (through the outbox and
 * the sender, to a real SMTP server on loopback); the link's GET only shows a confirm button, its POST verifies the
 * address once; an address verified on another account is refused; only a verified address can be primary; resend
 * is throttled; every change is audited; with mail off the page says so and nothing is queued.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import { createMailSender } from '../../src/mail/sender.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { emailRoutes } from '../../src/settings/emails.js';
import { profileRoutes } from '../../src/settings/profile.js';
import { callRoute, pageKit, visibleText } from '../helpers/page-kit.js';
import { firstLink, smtpAvailability, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';

const availability = smtpAvailability();
if (!availability.run) console.log(`skipping the email verification handler tests: ${availability.reason}`);

describe.runIf(availability.run)('profile email addresses and verification links', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(mailOn: boolean) {
    let smtp: TestSmtpServer | null = null;
    if (mailOn) {
      smtp = await startSmtpServer({ authentication: 'PLAIN' });
      cleanups.push(() => (smtp === null ? Promise.resolve() : smtp.stop()));
    }
    const configuration = JSON.stringify(
      mailOn
        ? {
            'auth.providers': [{ type: 'builtin', allowSignup: true }],
            'email.smtp': { host: '127.0.0.1', port: smtp?.port ?? 1, authentication: 'PLAIN', username: 'mailer', password: 'relay password 7', noVerifyTLS: true },
            'email.address': 'noreply@gatehouse.test',
          }
        : { 'auth.providers': [{ type: 'builtin', allowSignup: true }] },
    );
    const kit = await pageKit({ configuration });
    const logs: LogEntry[] = [];
    const sender = createMailSender({ open: TEST_MAIL_SEALING.open, store: kit.store, email: () => kit.deps.configuration.email, now: Date.now, log: (e) => logs.push(e), intervalMs: 50 });
    cleanups.push(() => sender.stop());
    const mail: MailQueue = { seal: TEST_MAIL_SEALING.seal, enabled: () => mailOn, capacity: 10, now: kit.clock.now, log: (e) => logs.push(e), wake: () => sender.wake() };
    const routes = [...profileRoutes(kit.deps), ...emailRoutes(kit.deps, { mail, baseURL: () => 'http://gatehouse.test' })];
    return { kit, routes, smtp, logs };
  }

  it('should mail a link on adding an address; GET shows a confirm button only, POST verifies once', async () => {
    const { kit, routes, smtp } = await setup(true);
    const alice = await kit.createUser('alice', { password: 'a long password' });
    const browser = await kit.browser(alice);
    const added = await callRoute(routes, browser.post('/settings/emails', { email: 'alice@example.com' }));
    expect(added.status).toBe(303);
    expect(added.headers['location']).toBe('/settings?done=email_added');
    const mail = await (smtp as TestSmtpServer).waitForMail((m) => m.envelopeTo.includes('alice@example.com'), 15_000);
    expect(mail.secure).toBe(true);
    const link = new URL(firstLink(mail));
    expect(link.pathname).toBe('/settings/emails/verify');
    const token = link.searchParams.get('token') ?? '';
    // the store keeps only the digest
    expect(JSON.stringify(await kit.store.links.find(alice.id, 'verify_email'))).not.toContain(token);

    const page = await callRoute(routes, browser.get(`${link.pathname}${link.search}`));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('Verify alice@example.com on your account alice ? Verify this address');
    expect((await kit.store.accounts.get(alice.id))?.emails).toStrictEqual([{ email: 'alice@example.com', verified: false }]);

    const confirmed = await callRoute(routes, browser.post('/settings/emails/verify', { token }));
    expect(confirmed.headers['location']).toBe('/settings?done=verified');
    expect((await kit.store.accounts.get(alice.id))?.emails).toStrictEqual([{ email: 'alice@example.com', verified: true }]);
    const again = await callRoute(routes, browser.post('/settings/emails/verify', { token }));
    expect(again.status).toBe(400);
    expect(visibleText(again)).toContain('This verification link was used already.');
    const actions = (await kit.auditEntries()).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['email_added', 'email_verification_sent', 'email_verified']));
  });

  it('should ask for a recent sign-in or the current password before adding an address or changing the primary one: refused and audited after 10 minutes, nothing stored', async () => {
    const { kit, routes } = await setup(false);
    const alice = await kit.createUser('alice', { password: 'a long password' });
    const browser = await kit.browser(alice);
    kit.clock.advance(11 * 60_000);
    for (const current of [undefined, 'not the password']) {
      const refused = await callRoute(routes, browser.post('/settings/emails', current === undefined ? { email: 'alice@example.com' } : { email: 'alice@example.com', current }));
      expect(refused.status).toBe(403);
      expect((await kit.store.accounts.get(alice.id))?.emails).toStrictEqual([]);
    }
    const failures = (await kit.auditEntries()).filter((e) => e.entity === 'user.reauthentication');
    expect(failures.map((e) => e.details)).toStrictEqual([{ change: 'email' }, { change: 'email' }]);
    const added = await callRoute(routes, browser.post('/settings/emails', { email: 'alice@example.com', current: 'a long password' }));
    expect(added.status).toBe(303);
    expect((await kit.store.accounts.get(alice.id))?.emails).toStrictEqual([{ email: 'alice@example.com', verified: false }]);
    // changing the primary address asks the same
    const emails = [{ email: 'alice@example.com', verified: true }, { email: 'alice@work.example', verified: true }];
    (await kit.store.accounts.setEmails(alice.id, emails))._unsafeUnwrap();
    const primary = await callRoute(routes, browser.post('/settings/emails/make-primary', { email: 'alice@work.example' }));
    expect(primary.status).toBe(403);
    expect((await kit.store.accounts.get(alice.id))?.emails).toStrictEqual(emails);
    const changed = await callRoute(routes, browser.post('/settings/emails/make-primary', { email: 'alice@work.example', current: 'a long password' }));
    expect(changed.status).toBe(303);
    expect((await kit.store.accounts.get(alice.id))?.emails.map((e) => e.email)).toStrictEqual(['alice@work.example', 'alice@example.com']);
  });

  it('should refuse a link of another account, an address verified elsewhere, a primary that is not verified, and a resend within a minute', async () => {
    const { kit, routes } = await setup(true);
    const alice = await kit.createUser('alice', { password: 'a long password', email: 'shared@example.com' });
    const bob = await kit.createUser('bob', { password: 'a long password', email: 'shared@example.com' });
    const aliceBrowser = await kit.browser(alice);
    const bobBrowser = await kit.browser(bob);
    // make links directly (the mail's content is tested above)
    const { createAccountLink } = await import('../../src/operations/account-links.js');
    const link = async (userId: string) =>
      (await createAccountLink(kit.store, { purpose: 'verify_email', userId, email: 'shared@example.com', ttlSeconds: 86_400, now: kit.clock.now(), randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) }))._unsafeUnwrap().token;
    const aliceToken = await link(alice.id);
    const bobToken = await link(bob.id);
    expect((await callRoute(routes, bobBrowser.post('/settings/emails/verify', { token: aliceToken }))).status).toBe(400);
    expect((await callRoute(routes, aliceBrowser.post('/settings/emails/verify', { token: aliceToken }))).headers['location']).toBe('/settings?done=verified');
    const taken = await callRoute(routes, bobBrowser.post('/settings/emails/verify', { token: bobToken }));
    expect(taken.status).toBe(409);
    expect(visibleText(taken)).toContain('shared@example.com is already verified on another account');
    expect((await kit.store.accounts.get(bob.id))?.emails).toStrictEqual([{ email: 'shared@example.com', verified: false }]);

    await callRoute(routes, bobBrowser.post('/settings/emails', { email: 'bob@example.com' }));
    const primary = await callRoute(routes, (await kit.browser((await kit.store.accounts.get(bob.id)) ?? bob)).post('/settings/emails/make-primary', { email: 'bob@example.com' }));
    expect(primary.status).toBe(400);
    expect(visibleText(primary)).toContain('Only a verified address can be the primary one');
    const resend = await callRoute(routes, (await kit.browser((await kit.store.accounts.get(bob.id)) ?? bob)).post('/settings/emails/send-verification', { email: 'bob@example.com' }));
    expect(resend.status).toBe(429);
  });

  it('should throttle resend to one link a minute, read from the last link\'s createdAt, also when addresses alternate', async () => {
    const { kit, routes } = await setup(true);
    const alice = await kit.createUser('alice', { password: 'a long password', email: 'a@example.com' });
    await kit.store.accounts.setEmails(alice.id, [{ email: 'a@example.com', verified: false }, { email: 'b@example.com', verified: false }]);
    const send = async (email: string) => (await callRoute(routes, (await kit.browser(await kit.store.accounts.get(alice.id))).post('/settings/emails/send-verification', { email }))).status;
    const start = kit.clock.now();
    expect(await send('a@example.com')).toBe(303);
    expect((await kit.store.links.find(alice.id, 'verify_email'))?.createdAt).toBe(start);
    expect(await send('a@example.com')).toBe(429);
    kit.clock.advance(59_999);
    expect(await send('a@example.com')).toBe(429);
    // another address does not get around it: the account has one verification link, and sending replaces it
    expect(await send('b@example.com')).toBe(429);
    kit.clock.advance(1);
    expect(await send('b@example.com')).toBe(303);
    expect(await send('a@example.com')).toBe(429);
    expect(await kit.store.links.find(alice.id, 'verify_email')).toMatchObject({ email: 'b@example.com', createdAt: start + 60_000 });
    expect(await kit.store.outbox.count()).toBeLessThanOrEqual(2);
    const sent = (await kit.auditEntries()).filter((e) => e.action === 'email_verification_sent');
    expect(sent.map((e) => e.details['email'])).toStrictEqual(['a@example.com', 'b@example.com']);
  });

  it('should say that mail is off, queue nothing, and still make the link', async () => {
    const { kit, routes } = await setup(false);
    const carol = await kit.createUser('carol', { password: 'a long password' });
    const browser = await kit.browser(carol);
    const added = await callRoute(routes, browser.post('/settings/emails', { email: 'carol@example.com' }));
    expect(added.headers['location']).toBe('/settings?done=email_added_mail_off');
    expect(await kit.store.outbox.count()).toBe(0);
    expect(await kit.store.links.find(carol.id, 'verify_email')).not.toBeNull();
    const profile = visibleText(await callRoute(routes, (await kit.browser((await kit.store.accounts.get(carol.id)) ?? carol)).get('/settings?done=email_added_mail_off')));
    expect(profile).toContain('Mail is off on this site');
    // only a verified address is the primary one: the sole unverified address is not called primary
    expect(profile).toContain('carol@example.com Unverified Send verification');
    expect(profile).not.toContain('(primary)');
  });
});
