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
import { startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';
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
});
