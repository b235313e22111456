/**
 * The access token form in headless Chromium, against a server on a loopback socket whose clock the test moves:
 * the form offers exactly the expiries of `auth.accessTokens` (no "Never" when `allowNoExpiration` is false), and a
 * `site-admin:sudo` token needs re-authentication once the sign-in is 10 minutes old (the current password field
 * appears; without it the token is refused; with it the token is made); the Site configuration page shows the
 * options' effective values. Each page is screenshotted under
 * `test-artifacts/pages/` and checked with axe-core.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/session/sessions.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { startServer, type TestServer } from '../helpers/server.js';

const executablePath = findChromium();
if (executablePath === null) console.warn('account-options.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');

const MIN = 60_000;
const PASSWORD = 'root password 12';
const CONFIGURATION = JSON.stringify({
  'auth.providers': [{ type: 'builtin' }],
  'auth.accessTokens': { expirationOptionDays: [1, 30], defaultExpirationDays: 30, allowNoExpiration: false },
});

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

describe.skipIf(executablePath === null)('the token form and re-authentication in Chromium', () => {
  let browser: Browser;
  let site: TestServer;

  beforeAll(async () => {
    site = await startServer({ siteConfiguration: CONFIGURATION });
    const created = await site.gatehouse.store.accounts.create({
      usernames: ['root'],
      origin: 'admin_created',
      siteAdmin: true,
      serviceAccount: false,
      emails: [],
      passwordHash: await hashPassword(PASSWORD, (n) => crypto.getRandomValues(new Uint8Array(n))),
      createdAt: site.clock.now,
    });
    created._unsafeUnwrap();
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  it('offers the expiries of auth.accessTokens and asks for the password for a sudo token after 10 minutes', async () => {
    const w = await watchedPage(browser);
    const { page } = w;
    await page.goto(`${site.url}/.auth/sign-in`);
    await page.getByLabel('Username').fill('root');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(`${site.url}/settings`), page.getByRole('button', { name: 'Sign in' }).click()]);

    await page.goto(`${site.url}/settings/tokens`);
    const expiries = await page.locator('#token-expires option').evaluateAll((options) => options.map((o) => [(o as HTMLOptionElement).value, (o as HTMLOptionElement).selected]));
    expect(expiries).toStrictEqual([['1', false], ['30', true]]);
    expect(await page.locator('#token-current-password').count()).toBe(0);
    await expectClean(w, 'account-options-tokens-fresh');

    // within 10 minutes of the sign-in, a sudo token is made without the password
    site.clock.now += 9 * MIN;
    await page.getByLabel('Note').fill('fresh sudo');
    await page.getByLabel('site-admin:sudo', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#token-secret').count()).toBe(1);

    // 11 minutes after the sign-in: the form asks for the current password
    site.clock.now += 2 * MIN;
    await page.goto(`${site.url}/settings/tokens`);
    await expect.poll(() => page.locator('#token-current-password').count()).toBe(1);
    await expectClean(w, 'account-options-tokens-reauthenticate');
    await page.getByLabel('Note').fill('old sudo');
    await page.getByLabel('site-admin:sudo', { exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.getByText('enter your current password').count()).toBeGreaterThan(0);
    expect(await page.locator('#token-secret').count()).toBe(0);
    await expectClean(w, 'account-options-tokens-refused');

    await page.getByLabel('Note').fill('old sudo');
    await page.getByLabel('site-admin:sudo', { exact: true }).check();
    await page.getByLabel('Current password (for site-admin:sudo)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#token-secret').count()).toBe(1);
    await expectClean(w, 'account-options-tokens-reauthenticated');

    // the Site configuration page shows the effective values
    await page.goto(`${site.url}/site-admin/configuration`);
    const row = async (path: string): Promise<string> => (await page.locator('#account-options tr', { hasText: path }).first().textContent()) ?? '';
    expect(await row('auth.accessTokens.expirationOptionDays')).toContain('[1, 30]');
    expect(await row('auth.accessTokens.allowNoExpiration')).toContain('false');
    expect(await row('auth.sessionExpiry')).toContain('"2160h"');
    await expectClean(w, 'account-options-site-configuration');

    const root = await site.gatehouse.store.accounts.findByUsernameKey('root');
    const tokens = await site.gatehouse.store.accessTokens.list(root?.id ?? '');
    expect(tokens.map((t) => [t.note, t.scopes.join(' ')])).toStrictEqual([
      ['fresh sudo', 'user:all site-admin:sudo'],
      ['old sudo', 'user:all site-admin:sudo'],
    ]);
  }, 120_000);

  it('runs in CI', () => {
    expect(executablePath !== null || !IN_CI).toBe(true);
  });
});
