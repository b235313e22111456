/**
 * A suspension made on Site admin → Users takes effect on every instance: two server processes on one throwaway
 * PostgreSQL cluster, an administrator in headless Chromium on instance A, a member in another Chromium context
 * signed in on instance B with an access token and an OAuth token. The administrator suspends the member from the
 * member's page (through its confirmation), and the member's session, access token and OAuth token are refused on A
 * and on B; her password sign-in on either instance says the account is suspended; reinstating from the same page lets them in again. Pages are screenshotted and checked with axe-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { freePort, graphql, oauthPair, signUp, startGatehouseProcess, userIdWithCookie, whoAmI, whoAmIWithCookie } from '../helpers/processes.js';
import type { GatehouseProcess, OAuthPair } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const executablePath = findChromium();
const server = postgresServerAvailability();
if (executablePath === null) console.warn('account-controls-instances.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');
if (!server.run) console.warn(`account-controls-instances.browser.test.ts: skipped: ${server.reason}`);

const ADA_PASSWORD = 'ada password 1234';
const MIRA_PASSWORD = 'mira password 1234';

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

async function signIn(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-in`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await w.page.getByRole('button', { name: 'Sign in' }).click();
}


/** Polls `check` until it holds, at most `ms` (the change feed tells the other instance asynchronously). */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(executablePath === null || !server.run)('suspending from Site admin → Users, seen on two instances (Chromium, a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let configDir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;
  let browser: Browser;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const [portA, portB] = [await freePort(), await freePort()];
    configDir = mkdtempSync(join(tmpdir(), 'gatehouse-controls-browser-'));
    const config = join(configDir, 'site.jsonc');
    writeFileSync(config, JSON.stringify({ externalURL: `http://127.0.0.1:${portA}`, 'auth.providers': [{ type: 'builtin', allowSignup: true }] }));
    const args = (port: number): string[] => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(portA) }), startGatehouseProcess({ args: args(portB) })]);
    browser = await launchChromium(executablePath ?? '');
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it('an administrator on A suspends a member whose session (on B), access token and OAuth token are then refused on A and B; reinstating lets them in', async () => {
    const seedToken = a.adminToken ?? b.adminToken ?? '';
    // ada: a site administrator with a password (signed up, then made administrator with the first start's token)
    const ada = await signUp(a.url, 'ada', ADA_PASSWORD);
    const adaId = (await userIdWithCookie(a.url, ada.cookie ?? '')) ?? '';
    const granted = await graphql(a.url, `token ${seedToken}`, `mutation { setUserIsSiteAdmin(userID: "${adaId}", siteAdmin: true) { siteAdmin } }`);
    expect(granted.body).toStrictEqual({ data: { setUserIsSiteAdmin: { siteAdmin: true } } });

    // mira signs up on instance B in her browser; an access token and an OAuth token are made for her
    const member = await watchedPage(browser);
    await member.page.goto(`${b.url}/.auth/sign-up`);
    await member.page.getByLabel('Username').fill('mira');
    await member.page.getByLabel('Email').fill('mira@example.com');
    await member.page.getByLabel('Password', { exact: true }).fill(MIRA_PASSWORD);
    await Promise.all([member.page.waitForURL(`${b.url}/settings`), member.page.getByRole('button', { name: 'Sign up' }).click()]);
    const cookie = (await member.context.cookies(b.url)).map((c) => `${c.name}=${c.value}`).join('; ');
    const miraId = (await userIdWithCookie(b.url, cookie)) ?? '';
    const made = await graphql(a.url, `token ${seedToken}`, `mutation { createAccessToken(user: "${miraId}", scopes: ["user:all"], note: "e2e") { token } }`);
    const token = (made.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    const pair: OAuthPair = await oauthPair(a.url, seedToken, cookie);

    /** Session, access token and OAuth token, on A then on B. */
    const ways = async (): Promise<(string | null)[]> => {
      const on = async (url: string): Promise<(string | null)[]> => [await whoAmIWithCookie(url, cookie), await whoAmI(url, `token ${token}`), await whoAmI(url, `Bearer ${pair.accessToken}`)];
      return [...(await on(a.url)), ...(await on(b.url))];
    };
    // both instances use all three, so both hold the member in their caches
    expect(await ways()).toStrictEqual(Array(6).fill('mira'));

    // ada, in Chromium on A: Users → mira → Suspend account → confirm
    const admin = await watchedPage(browser);
    await signIn(admin, a.url, 'ada', ADA_PASSWORD);
    await admin.page.waitForURL(`${a.url}/settings`);
    await admin.page.goto(`${a.url}/site-admin/users`);
    await admin.page.getByRole('link', { name: 'mira', exact: true }).click();
    await admin.page.getByRole('link', { name: 'Suspend account' }).click();
    await admin.page.getByRole('heading', { level: 2, name: 'Suspend mira?' }).waitFor();
    await admin.page.getByRole('button', { name: 'Suspend account' }).click();
    await admin.page.waitForURL(/done=suspended/);
    await expectClean(admin, 'two-instances-suspended');

    // refused on both instances: the session, the access token and the OAuth token
    expect(await eventually(async () => (await ways()).every((w) => w === null), 5_000)).toBe(true);
    expect(await ways()).toStrictEqual(Array(6).fill(null));
    // the member's browser on B is signed out, and her password sign-in on B or A is refused with why
    await member.page.goto(`${b.url}/settings`);
    expect(member.page.url()).toContain('/.auth/sign-in');
    for (const url of [b.url, a.url]) {
      await signIn(member, url, 'mira', MIRA_PASSWORD);
      await member.page.getByText('This account is suspended').waitFor();
    }
    await expectClean(member, 'two-instances-member-refused');

    // the Users list on B marks the account suspended
    await admin.page.goto(`${b.url}/site-admin/users`);
    if (admin.page.url().includes('/.auth/sign-in')) {
      await signIn(admin, b.url, 'ada', ADA_PASSWORD);
      await admin.page.goto(`${b.url}/site-admin/users`);
    }
    expect(await admin.page.getByRole('row').filter({ hasText: 'mira' }).textContent()).toContain('Suspended');
    await expectClean(admin, 'two-instances-users-suspended');

    // reinstate on A: the tokens work again on both instances, and mira signs in on B
    await admin.page.goto(`${a.url}/site-admin/users`);
    await admin.page.getByRole('link', { name: 'mira', exact: true }).click();
    await admin.page.getByRole('button', { name: 'Reinstate account' }).click();
    await admin.page.waitForURL(/done=reinstated/);
    expect(await eventually(async () => (await ways()).filter((_, i) => i % 3 !== 0).every((w) => w === 'mira'), 5_000)).toBe(true);
    await signIn(member, b.url, 'mira', MIRA_PASSWORD);
    await member.page.waitForURL(`${b.url}/settings`);
    await member.context.close();
    await admin.context.close();
  }, 240_000);

  it('runs in CI', () => {
    expect((executablePath !== null && server.run) || !IN_CI).toBe(true);
  });
});
