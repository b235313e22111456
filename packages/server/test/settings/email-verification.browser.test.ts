/**
 * Email verification end to end, in headless Chromium against `npm start`'s entry on a PGlite data directory, with
 * `email.smtp` pointing at a real SMTP server on loopback (STARTTLS, PLAIN) and a fake `hosta` on loopback: a person
 * signs up with a password, the verification mail arrives at the SMTP server (parsed with mailparser), its link opens
 * the confirm page, confirming marks the address verified in Profile; after signing out, a `hosta` sign-in whose
 * identity has that verified address links to the same account (§5.4 rule 2) instead of creating one. The site
 * administrator sees an unverified address on the user's page and makes a link for one, shown once and mailed. Every page is screenshotted under
 * `test-artifacts/pages/` and checked with axe-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { emailMatchKey } from 'gatehouse-auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { openStore } from '../../src/store/open.js';
import { HOSTA_CLIENT, startFakeHosta, type FakeHosta } from '../fakes/hosta.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { freePort, startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';
import { firstLink, smtpAvailability, startSmtpServer, SMTP_TEST_PASSWORD, SMTP_TEST_USER, type TestSmtpServer } from '../helpers/smtp.js';

const executablePath = findChromium();
if (executablePath === null) {
  if (IN_CI) throw new Error('email-verification.browser.test.ts needs chromium under CI');
  console.warn('email-verification.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');
}
const smtpReady = smtpAvailability();
if (!smtpReady.run) console.warn(`email-verification.browser.test.ts: skipped: ${smtpReady.reason}`);

const ADMIN_PASSWORD = 'administrator pass 1';
const ALICE_PASSWORD = 'alice long password';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

describe.skipIf(executablePath === null || !smtpReady.run)('email verification in Chromium (real process, PGlite, SMTP on loopback, fake hosta)', () => {
  let browser: Browser;
  let dataDir: string;
  let site: GatehouseProcess;
  let hosta: FakeHosta;
  let smtp: TestSmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer({ authentication: 'PLAIN' });
    // alice's identity at hosta has the address she signs up with, verified there
    hosta = await startFakeHosta([{ id: 77, login: 'alice-at-hosta', emails: [{ email: 'Alice@Example.com', verified: true, primary: true }] }]);
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-email-verification-'));
    const port = await freePort();
    const config = join(dataDir, 'site.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        externalURL: `http://127.0.0.1:${port}`,
        'auth.providers': [
          { type: 'builtin', allowSignup: true },
          { type: 'hosta', url: hosta.url, clientID: HOSTA_CLIENT.clientId, clientSecret: HOSTA_CLIENT.clientSecret, allowSignup: true },
        ],
        'email.smtp': { host: '127.0.0.1', port: smtp.port, authentication: 'PLAIN', username: SMTP_TEST_USER, password: SMTP_TEST_PASSWORD, noVerifyTLS: true },
        'email.address': 'noreply@gatehouse.test',
      }),
    );
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    (await seedAdministrator(opened.store, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    (await setPassword(opened.store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    await opened.store.close();
    site = await startGatehouseProcess({ args: ['--data-dir', dataDir, '--config', config, '--port', String(port)] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    await hosta?.close();
    await smtp?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs up, follows the mailed link, shows the address verified, and a hosta sign-in with it links to the same account (§5.4 rule 2)', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${site.url}/.auth/sign-up`);
    await w.page.getByLabel('Username').fill('alice');
    await w.page.getByLabel('Email').fill('alice@example.com');
    await w.page.getByLabel('Password', { exact: true }).fill(ALICE_PASSWORD);
    await Promise.all([w.page.waitForURL(`${site.url}/settings`), w.page.getByRole('button', { name: 'Sign up' }).click()]);
    const emails = w.page.getByRole('region', { name: 'Email addresses' });
    // an unverified address is not the primary one yet; once verified it is
    expect(await emails.textContent()).toContain('alice@example.com Unverified');
    expect(await emails.textContent()).not.toContain('(primary)');
    await expectClean(w, 'profile-after-sign-up-unverified');

    const mail = await smtp.waitForMail((m) => m.envelopeTo.includes('alice@example.com'), 30_000);
    expect(mail.secure).toBe(true);
    expect(mail.parsed.subject).toBe('Verify your email address');
    expect(mail.parsed.from?.text).toContain('noreply@gatehouse.test');
    const link = new URL(firstLink(mail));
    expect(`${link.origin}${link.pathname}`).toBe(`${site.url}/settings/emails/verify`);

    // the site administrator sees the unverified address, and that mail is on
    const admin = await watchedPage(browser);
    await admin.page.goto(`${site.url}/.auth/sign-in`);
    await admin.page.getByLabel('Username').fill('admin');
    await admin.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await Promise.all([admin.page.waitForURL(`${site.url}/settings`), admin.page.getByRole('button', { name: 'Sign in' }).click()]);
    await admin.page.goto(`${site.url}/site-admin/users?q=alice`);
    await Promise.all([admin.page.waitForURL(/\/site-admin\/users\/user\?id=/u), admin.page.getByRole('link', { name: 'alice', exact: true }).click()]);
    const panel = admin.page.getByRole('region', { name: 'Email verification' });
    expect(await panel.textContent()).toContain('A new link is mailed to the address and shown here once to copy');
    expect(await panel.getByRole('button', { name: 'Make verification link' }).count()).toBe(1);
    await expectClean(admin, 'site-admin-user-unverified-email');
    await admin.context.close();

    await w.page.goto(link.href);
    await expectClean(w, 'verify-email-confirm');
    expect(await w.page.textContent('main')).toContain('Verify alice@example.com on your account alice?');
    await Promise.all([w.page.waitForURL(`${site.url}/settings?done=verified`), w.page.getByRole('button', { name: 'Verify this address' }).click()]);
    expect(await w.page.textContent('main')).toContain('Your email address is verified.');
    expect(await emails.textContent()).toContain('alice@example.com Verified (primary)');
    await expectClean(w, 'profile-email-verified');

    // a second use of the link is refused
    await w.page.goto(link.href);
    expect(await w.page.textContent('main')).toContain('This verification link was used already.');

    await w.page.goto(`${site.url}/.auth/sign-out`);
    await Promise.all([w.page.waitForURL(/\/\.auth\/sign-in|\/$/u), w.page.getByRole('button', { name: 'Sign out' }).click()]);
    await w.context.close();

    // a hosta sign-in as alice-at-hosta: the fake host's login page stands in for signing in there
    const h = await watchedPage(browser);
    await h.page.route(`${site.url}/.auth/hosta/login`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = new URL(response.headers()['location'] ?? '');
      location.searchParams.set('as', 'alice-at-hosta');
      await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
    });
    await h.page.goto(`${site.url}/.auth/hosta/login`);
    await h.page.waitForURL(`${site.url}/settings`, { timeout: 30_000 }).catch(async (e: unknown) => {
      throw new Error(`at ${h.page.url()}: ${(await h.page.textContent('body'))?.slice(0, 500)}`, { cause: e });
    });
    expect(await h.page.textContent('main')).toContain('alice');
    await h.page.goto(`${site.url}/settings/security`);
    const identities = h.page.getByRole('region', { name: 'Linked identities' });
    expect(await identities.textContent()).toContain('77');
    await expectClean(h, 'account-security-hosta-linked-by-verified-email');
    await h.page.goto(`${site.url}/settings`);
    await h.page.getByRole('textbox', { name: 'Add an email address' }).fill('alice.work@example.com');
    await Promise.all([h.page.waitForURL(`${site.url}/settings?done=email_added`), h.page.getByRole('button', { name: 'Add', exact: true }).click()]);
    await smtp.waitForMail((m) => m.envelopeTo.includes('alice.work@example.com'), 30_000);
    await h.context.close();

    // the site administrator makes a new link for the added address: shown once to copy, and mailed
    const a = await watchedPage(browser);
    await a.page.goto(`${site.url}/.auth/sign-in`);
    await a.page.getByLabel('Username').fill('admin');
    await a.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await Promise.all([a.page.waitForURL(`${site.url}/settings`), a.page.getByRole('button', { name: 'Sign in' }).click()]);
    await a.page.goto(`${site.url}/site-admin/users?q=alice`);
    await Promise.all([a.page.waitForURL(/\/site-admin\/users\/user\?id=/u), a.page.getByRole('link', { name: 'alice', exact: true }).click()]);
    await Promise.all([a.page.waitForURL(`${site.url}/site-admin/users/verification-link`), a.page.getByRole('button', { name: 'Make verification link' }).click()]);
    expect(await a.page.textContent('main')).toContain('A verification link for alice.work@example.com was made and mailed to it.');
    const shown = ((await a.page.getByLabel('Verification link for alice.work@example.com').textContent()) ?? '').trim();
    expect(`${new URL(shown).origin}${new URL(shown).pathname}`).toBe(`${site.url}/settings/emails/verify`);
    expect(new URL(shown).searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    await expectClean(a, 'site-admin-verification-link-shown-once');
    await a.context.close();
    const mailed = await smtp.waitForMail((m) => m.envelopeTo.includes('alice.work@example.com') && firstLink(m) === shown, 30_000);
    expect(mailed.parsed.subject).toBe('Verify your email address');

    // the store, read after the process stops: one account has the address, verified, and the hosta identity
    await site.stop();
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    try {
      const owner = await opened.store.accounts.findByVerifiedEmailKey(emailMatchKey('alice@example.com'));
      expect(owner?.username).toBe('alice');
      expect((await opened.store.accounts.links(owner?.id ?? '')).map((l) => [l.serviceType, l.accountId])).toStrictEqual([['hosta', '77']]);
      expect(await opened.store.accounts.count()).toBe(2);
      // the administrator's link replaced the first one, unused
      const latest = await opened.store.links.find(owner?.id ?? '', 'verify_email');
      expect(latest).toMatchObject({ email: 'alice.work@example.com', usedAt: null });
    } finally {
      await opened.store.close();
    }
  }, 180_000);
});
