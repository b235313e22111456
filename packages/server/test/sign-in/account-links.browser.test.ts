/**
 * The account links walked in headless Chromium against `npm start`'s entry (a real process on an empty PGlite
 * data directory) with a real SMTP server on loopback: the first start's printed link sets the administrator's
 * password; "Forgot password?" → the mail → the reset page → the old session is gone → sign-in with the new
 * password; lockout after the threshold → the unlock mail's link → sign-in works. Every page is screenshotted
 * under `test-artifacts/pages/`, checked with axe-core and watched for CSP violations, page errors and dialogs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { graphql, signUp as signUpByApi, startGatehouseProcess, userIdWithCookie, type GatehouseProcess } from '../helpers/processes.js';
import { smtpAvailability, startSmtpServer } from '../helpers/smtp.js';
import type { ReceivedMail, TestSmtpServer } from '../helpers/smtp.js';

const executablePath = findChromium();
const smtp = smtpAvailability();
if (executablePath === null) console.warn('account-links.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');
if (!smtp.run) console.warn(`account-links.browser.test.ts: skipped: ${smtp.reason}`);
const runnable = executablePath !== null && smtp.run;
if (!runnable && IN_CI) throw new Error('account-links.browser.test.ts needs chromium and openssl under CI');

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

const mailTo = (address: string, subject: string) => (mail: ReceivedMail): boolean => mail.envelopeTo.includes(address) && mail.parsed.subject === subject;

function linkIn(mail: ReceivedMail): string {
  const url = /(http:\/\/\S+\?token=\S+)/.exec(mail.parsed.text ?? '')?.[1];
  if (url === undefined) throw new Error(`no link in ${mail.parsed.text ?? ''}`);
  return url;
}

/** Clicks a form's button and waits for the page the post answers with. */
async function submit(w: WatchedPage, button: string): Promise<void> {
  await Promise.all([w.page.waitForEvent('framenavigated'), w.page.getByRole('button', { name: button }).click()]);
  await w.page.waitForLoadState('load');
}

async function signUp(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-up`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Email').fill(`${username}@example.com`);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await Promise.all([w.page.waitForURL(`${url}/settings`), w.page.getByRole('button', { name: 'Sign up' }).click()]);
}

async function signInForm(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-in`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await submit(w, 'Sign in');
}

/** A site administrator with a password, signed in in a new Chromium context: signed up, then made administrator with the first start's token. */
async function signedInAdministrator(browser: Browser, site: GatehouseProcess, username: string): Promise<WatchedPage> {
  const password = `${username} admin password 1`;
  const made = await signUpByApi(site.url, username, password);
  const id = (await userIdWithCookie(site.url, made.cookie ?? '')) ?? '';
  const granted = await graphql(site.url, `token ${site.adminToken ?? ''}`, `mutation { setUserIsSiteAdmin(userID: "${id}", siteAdmin: true) { siteAdmin } }`);
  expect(granted.body).toStrictEqual({ data: { setUserIsSiteAdmin: { siteAdmin: true } } });
  const w = await watchedPage(browser);
  await signInForm(w, site.url, username, password);
  expect(w.page.url()).toBe(`${site.url}/settings`);
  return w;
}

describe.runIf(runnable)('account links in Chromium (needs chromium and openssl)', () => {
  let browser: Browser;
  let relay: TestSmtpServer;
  let site: GatehouseProcess;
  let dir: string;

  beforeAll(async () => {
    relay = await startSmtpServer();
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-links-'));
    const config = join(dir, 'site-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        'auth.providers': [{ type: 'builtin', allowSignup: true }],
        'email.smtp': { host: '127.0.0.1', port: relay.port, authentication: 'none', noVerifyTLS: true, domain: 'gatehouse.test' },
        'email.address': 'gatehouse@example.com',
        'auth.lockout': { failedAttemptThreshold: 3 },
      }),
    );
    site = await startGatehouseProcess({ args: ['--config', config, '--data-dir', join(dir, 'data')] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    await relay?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('(b) should set the administrator\'s password by the link the first start printed beside its token', async () => {
    const printed = /Set the administrator's password \(once, within 24 hours\): (\S+)/.exec(site.output())?.[1];
    expect(printed, site.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\.auth\/first-admin\?token=/);
    expect(site.adminToken).not.toBeNull();
    const w = await watchedPage(browser);
    await w.page.goto(printed ?? '');
    await expectClean(w, 'first-admin-link');
    await w.page.getByLabel('New password', { exact: true }).fill('administrator pass 1');
    await w.page.getByLabel('New password again').fill('administrator pass 1');
    await submit(w, 'Set password');
    await w.page.getByText('The password of admin was set').first().waitFor({ state: 'visible', timeout: 15_000 });
    await expectClean(w, 'first-admin-done');
    // single use
    await w.page.goto(printed ?? '');
    await w.page.getByText('This link was used already').first().waitFor({ state: 'visible', timeout: 15_000 });
    await signInForm(w, site.url, 'admin', 'administrator pass 1');
    expect(w.page.url()).toBe(`${site.url}/settings`);
    await w.context.close();
  }, 90_000);

  it('(a) should reset a forgotten password by the mailed link, end the old session, and sign in with the new password', async () => {
    const old = await watchedPage(browser);
    await signUp(old, site.url, 'alice', 'first password 1');
    const w = await watchedPage(browser);
    await w.page.goto(`${site.url}/.auth/sign-in`);
    await expectClean(w, 'sign-in-forgot-link');
    await Promise.all([w.page.waitForURL(`${site.url}/.auth/forgot-password`), w.page.getByRole('link', { name: 'Forgot password?' }).click()]);
    await expectClean(w, 'forgot-password');
    await w.page.getByLabel('Username or email').fill('alice');
    await submit(w, 'Send me a link');
    await w.page.getByText('a link to set a new password is on its way').first().waitFor({ state: 'visible', timeout: 15_000 });
    await expectClean(w, 'forgot-password-sent');
    const mail = await relay.waitForMail(mailTo('alice@example.com', 'Set a new password'), 30_000);
    await w.page.goto(linkIn(mail));
    await expectClean(w, 'reset-password');
    await w.page.getByLabel('New password', { exact: true }).fill('second password 2');
    await w.page.getByLabel('New password again').fill('second password 2');
    await submit(w, 'Set password');
    await w.page.getByText('every session of the account was ended').first().waitFor({ state: 'visible', timeout: 15_000 });
    await expectClean(w, 'reset-password-done');
    // the session that signed up is gone
    await old.page.goto(`${site.url}/settings`);
    expect(old.page.url()).toContain('/.auth/sign-in');
    await signInForm(w, site.url, 'alice', 'second password 2');
    expect(w.page.url()).toBe(`${site.url}/settings`);
    await old.context.close();
    await w.context.close();
  }, 90_000);

  it('(c) should lock after the threshold, then unlock by the mail\'s link, and let the owner sign in', async () => {
    const owner = await watchedPage(browser);
    await signUp(owner, site.url, 'bob', 'bob password 11');
    await owner.context.close();
    const w = await watchedPage(browser);
    for (let i = 0; i < 3; i += 1) await signInForm(w, site.url, 'bob', `wrong password ${i}`);
    await w.page.getByText('This account is locked').first().waitFor({ state: 'visible', timeout: 15_000 });
    await expectClean(w, 'sign-in-locked');
    // the right password is refused with the same message while locked
    await signInForm(w, site.url, 'bob', 'bob password 11');
    await w.page.getByText('This account is locked').first().waitFor({ state: 'visible', timeout: 15_000 });
    const mail = await relay.waitForMail(mailTo('bob@example.com', 'Your account was locked'), 30_000);
    await w.page.goto(linkIn(mail));
    await expectClean(w, 'unlock-account');
    await submit(w, 'Unlock account');
    await w.page.getByText('Your account is unlocked').first().waitFor({ state: 'visible', timeout: 15_000 });
    await expectClean(w, 'unlock-account-done');
    await signInForm(w, site.url, 'bob', 'bob password 11');
    expect(w.page.url()).toBe(`${site.url}/settings`);
    await w.context.close();
  }, 90_000);

  it('(d) should show a locked account as Locked on Site admin → Users, and let the administrator unlock it from there', async () => {
    const owner = await watchedPage(browser);
    await signUp(owner, site.url, 'carl', 'carl password 11');
    await owner.context.close();
    const w = await watchedPage(browser);
    for (let i = 0; i < 3; i += 1) await signInForm(w, site.url, 'carl', `wrong password ${i}`);
    await w.page.getByText('This account is locked').first().waitFor({ state: 'visible', timeout: 15_000 });

    const admin = await signedInAdministrator(browser, site, 'ada');
    await admin.page.goto(`${site.url}/site-admin/users?q=carl`);
    const row = admin.page.getByRole('row').filter({ hasText: 'carl' });
    expect(await row.textContent()).toMatch(/Locked\s*until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/u);
    await expectClean(admin, 'site-admin-users-locked');
    await Promise.all([admin.page.waitForURL(/done=unlocked/u), row.getByRole('button', { name: 'Unlock' }).click()]);
    expect(await admin.page.getByRole('status').textContent()).toContain('carl is unlocked.');
    await expectClean(admin, 'site-admin-user-unlocked');
    await admin.page.goto(`${site.url}/site-admin/users?q=carl`);
    expect(await admin.page.getByRole('row').filter({ hasText: 'carl' }).textContent()).not.toContain('Locked');

    await signInForm(w, site.url, 'carl', 'carl password 11');
    expect(w.page.url()).toBe(`${site.url}/settings`);
    await w.context.close();
    await admin.context.close();
  }, 90_000);

  it('(e) should give the administrator a reset link to copy from Users, which sets the member\'s password once', async () => {
    const owner = await watchedPage(browser);
    await signUp(owner, site.url, 'dora', 'dora password 11');
    const admin = await signedInAdministrator(browser, site, 'abe');
    await admin.page.goto(`${site.url}/site-admin/users?q=dora`);
    await Promise.all([admin.page.waitForURL(/\/site-admin\/users\/user\?id=/u), admin.page.getByRole('link', { name: 'dora', exact: true }).click()]);
    await submit(admin, 'Make a password reset link');
    const link = await admin.page.getByLabel('Copy this link; it works once, and is not shown again').inputValue();
    expect(link).toMatch(new RegExp(`^${site.url.replaceAll('.', '\\.')}/\\.auth/reset-password\\?token=[A-Za-z0-9_-]{43}$`, 'u'));
    expect(await admin.page.getByRole('status').textContent()).toContain('A password reset link for dora was made and mailed to the account.');
    await expectClean(admin, 'site-admin-reset-link');
    // the mailed copy is the same link
    const mail = await relay.waitForMail(mailTo('dora@example.com', 'Set a new password'), 30_000);
    expect(linkIn(mail)).toBe(link);

    const w = await watchedPage(browser);
    await w.page.goto(link);
    await w.page.getByLabel('New password', { exact: true }).fill('dora new password 2');
    await w.page.getByLabel('New password again').fill('dora new password 2');
    await submit(w, 'Set password');
    await w.page.getByText('every session of the account was ended').first().waitFor({ state: 'visible', timeout: 15_000 });
    // the signed-up session is gone; the new password signs in; the link does not work twice
    await owner.page.goto(`${site.url}/settings`);
    expect(owner.page.url()).toContain('/.auth/sign-in');
    await signInForm(w, site.url, 'dora', 'dora new password 2');
    expect(w.page.url()).toBe(`${site.url}/settings`);
    await w.page.goto(link);
    expect(await w.page.textContent('main')).toMatch(/used|no longer works|not valid/iu);
    await expectClean(w, 'reset-link-used');
    await owner.context.close();
    await w.context.close();
    await admin.context.close();
  }, 90_000);

  it('(f) should verify a second address from Profile by its mailed link and make it the primary one', async () => {
    const w = await watchedPage(browser);
    await signUp(w, site.url, 'erin', 'erin password 11');
    const emails = w.page.getByRole('region', { name: 'Email addresses' });
    // the sign-up's own address: follow its link
    const first = await relay.waitForMail(mailTo('erin@example.com', 'Verify your email address'), 30_000);
    await w.page.goto(linkIn(first));
    await Promise.all([w.page.waitForURL(`${site.url}/settings?done=verified`), w.page.getByRole('button', { name: 'Verify this address' }).click()]);
    expect(await emails.textContent()).toContain('erin@example.com Verified (primary)');

    // a second address: added (its link is mailed), "Send verification" is throttled within the minute, the link verifies it
    await w.page.getByRole('textbox', { name: 'Add an email address' }).fill('erin.two@example.com');
    await submit(w, 'Add');
    expect(await emails.textContent()).toContain('erin.two@example.com Unverified');
    await expectClean(w, 'profile-second-address-unverified');
    await submit(w, 'Send verification');
    expect(await w.page.textContent('main')).toMatch(/a minute/iu);
    await expectClean(w, 'profile-send-verification-throttled');
    const second = await relay.waitForMail(mailTo('erin.two@example.com', 'Verify your email address'), 30_000);
    await w.page.goto(linkIn(second));
    await Promise.all([w.page.waitForURL(`${site.url}/settings?done=verified`), w.page.getByRole('button', { name: 'Verify this address' }).click()]);
    expect(await emails.textContent()).toContain('erin.two@example.com Verified');
    expect(await emails.textContent()).toContain('erin@example.com Verified (primary)');

    // make the second one primary
    await submit(w, 'Make primary');
    expect(w.page.url()).toContain('done=primary');
    expect(await w.page.textContent('main')).toContain('Your primary email address was changed.');
    expect(await emails.textContent()).toMatch(/erin\.two@example\.com Verified \(primary\).*erin@example\.com Verified/su);
    await expectClean(w, 'profile-second-address-primary');
    await w.context.close();
  }, 120_000);
});
