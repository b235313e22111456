/**
 * Site admin → Users → a user: making an email verification link as handlers. With mail off the page says so, the
 * link is made and shown once to copy, nothing is queued; with mail on it is also mailed to a real SMTP server on
 * loopback. The link works for the account (it verifies the address); each link is audited with the administrator
 * as actor; refusals (an address the account lacks or has verified, no such account, a member) change nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMailSender } from '../../src/mail/sender.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { emailRoutes } from '../../src/settings/emails.js';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import { callRoute, visibleText, textOf } from '../helpers/page-kit.js';
import { firstLink, smtpAvailability, startSmtpServer, SMTP_TEST_PASSWORD, SMTP_TEST_USER, type TestSmtpServer } from '../helpers/smtp.js';
import { siteAdminKit } from './site-admin-kit.js';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';

const availability = smtpAvailability();
if (!availability.run) console.log(`skipping the site administrator's verification link tests: ${availability.reason}`);

describe.runIf(availability.run)("a site administrator's email verification links", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(smtp: TestSmtpServer | null) {
    const configuration = JSON.stringify({
      'auth.providers': [{ type: 'builtin', allowSignup: true }],
      ...(smtp === null
        ? {}
        : {
            'email.smtp': { host: '127.0.0.1', port: smtp.port, authentication: 'PLAIN', username: SMTP_TEST_USER, password: SMTP_TEST_PASSWORD, noVerifyTLS: true },
            'email.address': 'noreply@gatehouse.test',
          }),
    });
    const admin = await siteAdminKit({ configuration });
    const { kit } = admin;
    let mail: MailQueue | null = null;
    if (smtp !== null) {
      const sender = createMailSender({ open: TEST_MAIL_SEALING.open, store: kit.store, email: () => kit.deps.configuration.email, now: Date.now, log: () => undefined, intervalMs: 50 });
      cleanups.push(() => sender.stop());
      mail = { seal: TEST_MAIL_SEALING.seal, enabled: () => true, capacity: 10, now: kit.clock.now, log: () => undefined, wake: () => sender.wake() };
    }
    const links = { mail, baseURL: () => 'http://gatehouse.test' };
    const routes = [...siteAdminRoutes({ ...admin.deps, emailVerification: links }), ...emailRoutes(kit.deps, links)];
    const bob = await kit.createUser('bob', { email: 'bob@example.com' });
    return { ...admin, routes, bob };
  }

  it('should say that mail is off, make the link, show it once, queue nothing, audit it, and the link verifies the address', async () => {
    const { kit, routes, admin, bob } = await setup(null);
    const root = await kit.browser(admin);
    const page = visibleText(await callRoute(routes, root.get(`/site-admin/users/user?id=${bob.id}`)));
    expect(page).toContain('Email verification Mail is off on this site: links are not mailed.');
    expect(page).toContain('bob@example.com Make verification link');

    const made = await callRoute(routes, root.post('/site-admin/users/verification-link', { id: bob.id, email: 'bob@example.com' }));
    expect(made.status).toBe(200);
    expect(made.headers['cache-control']).toBe('no-store');
    expect(visibleText(made)).toContain('A verification link for bob@example.com was made. Mail is off on this site: copy it and give it to bob.');
    const url = /http:\/\/gatehouse\.test\/settings\/emails\/verify\?token=[A-Za-z0-9_-]{43}/u.exec(textOf(made))?.[0] ?? '';
    expect(url).not.toBe('');
    expect(await kit.store.outbox.count()).toBe(0);
    const token = new URL(url).searchParams.get('token') ?? '';
    expect(JSON.stringify(await kit.store.links.find(bob.id, 'verify_email'))).not.toContain(token);
    const sent = (await kit.auditEntries()).filter((e) => e.action === 'email_verification_sent');
    expect(sent.map((e) => ({ actor: e.actorUserId, subject: e.subjectUserId, details: e.details }))).toStrictEqual([
      { actor: admin.id, subject: bob.id, details: { email: 'bob@example.com', mail: 'mail_off' } },
    ]);

    const bobBrowser = await kit.browser(bob);
    const confirmed = await callRoute(routes, bobBrowser.post('/settings/emails/verify', { token }));
    expect(confirmed.headers['location']).toBe('/settings?done=verified');
    expect((await kit.store.accounts.get(bob.id))?.emails).toStrictEqual([{ email: 'bob@example.com', verified: true }]);
    // all verified: no panel any more
    expect(visibleText(await callRoute(routes, root.get(`/site-admin/users/user?id=${bob.id}`)))).not.toContain('Make verification link');
  });

  it('should mail the link when mail is on, and the page says so', async () => {
    const smtp = await startSmtpServer({ authentication: 'PLAIN' });
    cleanups.push(() => smtp.stop());
    const { kit, routes, admin, bob } = await setup(smtp);
    const root = await kit.browser(admin);
    expect(visibleText(await callRoute(routes, root.get(`/site-admin/users/user?id=${bob.id}`)))).toContain('A new link is mailed to the address and shown here once to copy');
    const made = await callRoute(routes, root.post('/site-admin/users/verification-link', { id: bob.id, email: 'bob@example.com' }));
    expect(visibleText(made)).toContain('A verification link for bob@example.com was made and mailed to it.');
    const shown = /http:\/\/gatehouse\.test\/settings\/emails\/verify\?token=[A-Za-z0-9_-]{43}/u.exec(textOf(made))?.[0];
    const received = await smtp.waitForMail((m) => m.envelopeTo.includes('bob@example.com'), 15_000);
    expect(firstLink(received)).toBe(shown);
  });

  it('should refuse an unknown or verified address, no such account, and a member, changing nothing', async () => {
    const { kit, routes, admin, member, bob } = await setup(null);
    const root = await kit.browser(admin);
    const before = (await kit.auditEntries()).length;
    const unknown = await callRoute(routes, root.post('/site-admin/users/verification-link', { id: bob.id, email: 'other@example.com' }));
    expect(unknown.status).toBe(400);
    expect(visibleText(unknown)).toContain('bob has no such address.');
    const nobody = await callRoute(routes, root.post('/site-admin/users/verification-link', { id: '999999', email: 'bob@example.com' }));
    expect(nobody.status).toBe(404);
    const alice = await kit.browser(member);
    const refused = await callRoute(routes, alice.post('/site-admin/users/verification-link', { id: bob.id, email: 'bob@example.com' }));
    expect(refused.status).toBe(403);
    await kit.store.accounts.setEmails(bob.id, [{ email: 'bob@example.com', verified: true }]);
    const verified = await callRoute(routes, root.post('/site-admin/users/verification-link', { id: bob.id, email: 'bob@example.com' }));
    expect(verified.status).toBe(400);
    expect(visibleText(verified)).toContain('bob@example.com is verified already.');
    expect(await kit.store.links.find(bob.id, 'verify_email')).toBeNull();
    expect((await kit.auditEntries()).length).toBe(before);
  });
});
