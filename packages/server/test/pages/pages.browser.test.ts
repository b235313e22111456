/**
 * The settings area, site administration and the OAuth consent page, walked in headless Chromium as a person
 * uses them, against `npm start`'s entry on an embedded PostgreSQL (PGlite) data directory: every page is
 * screenshotted under `test-artifacts/pages/`, checked with axe-core (no serious or critical violation), and
 * watched for CSP violations, page errors and dialogs. Tokens made in the pages are used with the real `curl`
 * and `gatehouse api`.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { openStore } from '../../src/store/open.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';
import { hasCurl, inspect, runCurl, VIEWPORTS, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';

const executablePath = findChromium();
const curlInstalled = hasCurl();
if (executablePath === null) console.warn('pages.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');
if (!curlInstalled) console.warn('pages.browser.test.ts: skipped: no curl (apt-get install -y curl)');
const runnable = executablePath !== null && curlInstalled;

const ADMIN_PASSWORD = 'administrator pass 1';

/** Runs `gatehouse api` (the spec's command line client, §1) from this checkout; resolves with its output. */
function gatehouseApi(endpoint: string, token: string, query: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'api', '-query', query],
      { env: { ...process.env, SRC_ENDPOINT: endpoint, SRC_ACCESS_TOKEN: token }, timeout: 30_000 },
      (error, stdout) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout }),
    );
  });
}

/** Signs up through the sign-up page, as a person does; the page lands on the settings area. */
async function signUpInPage(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-up`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Email').fill(`${username}@example.com`);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await Promise.all([w.page.waitForURL(`${url}/settings`), w.page.getByRole('button', { name: 'Sign up' }).click()]);
}

/** Signs in through the sign-in page. */
async function signInInPage(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-in`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await Promise.all([w.page.waitForURL(`${url}/settings`), w.page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** Expects a page to be clean: nothing went wrong on it and no serious accessibility violation. */
async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

/** The value `read` gives once it is not `null`, polled every 50 ms for at most 10 s (then `null`). */
async function until<T>(read: () => T | null): Promise<T | null> {
  for (let i = 0; i < 200; i += 1) {
    const value = read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** The text of the element with this id. */
async function textOf(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).textContent()) ?? '';
}

describe.skipIf(!runnable)('the pages in Chromium (real process, PGlite, curl)', () => {
  let browser: Browser;
  let dataDir: string;
  let site: GatehouseProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-pages-'));
    // the operator's first steps: the seeded administrator gets a password (gatehouse admin set-password admin)
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    (await seedAdministrator(opened.store, { now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) }))._unsafeUnwrap();
    (await setPassword(opened.store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) }))._unsafeUnwrap();
    await opened.store.close();
    site = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a member signs up, lands on the settings area, creates a token, uses it with curl and gatehouse api, deletes it, and curl is refused', async () => {
    const w = await watchedPage(browser);
    await signUpInPage(w, site.url, 'tess', 'tess password 1');
    expect(await w.page.getByRole('heading', { level: 1 }).textContent()).toBe('Profile');
    await expectClean(w, 'settings-profile');

    await w.page.getByRole('link', { name: 'Access tokens' }).click();
    await w.page.waitForURL(`${site.url}/settings/tokens`);
    await expectClean(w, 'settings-tokens-empty');
    await w.page.getByLabel('Note').fill('laptop curl');
    await w.page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await textOf(w.page, '#token-secret')).trim();
    expect(secret).toMatch(/^gat_/);
    const curlLine = (await textOf(w.page, '#token-curl')).trim();
    expect(curlLine).toContain(secret);
    await expectClean(w, 'settings-tokens-created');

    // the curl line as shown, run by a shell
    const shown = await new Promise<string>((resolve) => execFile('sh', ['-c', `${curlLine} -s`], { timeout: 20_000 }, (_e, out) => resolve(out)));
    expect(JSON.parse(shown)).toEqual({ data: { currentUser: { username: 'tess' } } });
    const viaCli = await gatehouseApi(site.url, secret, '{ currentUser { username } }');
    expect(viaCli.code).toBe(0);
    expect(JSON.parse(viaCli.stdout)).toMatchObject({ data: { currentUser: { username: 'tess' } } });

    // the list, then delete with confirmation
    await w.page.goto(`${site.url}/settings/tokens`);
    await w.page.getByRole('cell', { name: 'laptop curl', exact: true }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await expectClean(w, 'settings-tokens');
    await w.page.getByRole('link', { name: /Delete/ }).first().click();
    await expectClean(w, 'settings-tokens-delete-confirm');
    await w.page.getByRole('button', { name: 'Delete token' }).click();
    await w.page.waitForURL(/\/settings\/tokens\?done=/);
    await w.page.getByRole('status').waitFor({ state: 'visible', timeout: 10_000 });
    const refused = await runCurl(['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: token ${secret}`, '-d', '{"query":"{ currentUser { username } }"}', `${site.url}/.api/graphql`]);
    expect(refused.stdout).toBe('401');
    await w.context.close();
  }, 120_000);

  it('a member changes the password and revokes another session; the other browser is signed out', async () => {
    const first = await watchedPage(browser);
    await signUpInPage(first, site.url, 'sam', 'sam password 1');
    const second = await watchedPage(browser, VIEWPORTS.phone);
    await signInInPage(second, site.url, 'sam', 'sam password 1');

    await first.page.goto(`${site.url}/settings/sessions`);
    expect(await first.page.getByRole('row').count()).toBe(3);
    await expectClean(first, 'settings-sessions');
    await first.page.getByRole('button', { name: /^Revoke/ }).first().click();
    await first.page.waitForURL(/\/settings\/sessions/);
    expect(await first.page.getByRole('row').count()).toBe(2);
    await second.page.goto(`${site.url}/settings`);
    expect(new URL(second.page.url()).pathname).toBe('/.auth/sign-in');

    await first.page.goto(`${site.url}/settings/password`);
    await expectClean(first, 'settings-password');
    await first.page.getByLabel('Current password', { exact: true }).fill('sam password 1');
    await first.page.getByLabel('New password', { exact: true }).fill('sam password 2');
    await first.page.getByLabel('Confirm new password').fill('sam password 2');
    await first.page.getByRole('button', { name: /password/i }).click();
    await first.page.getByRole('status').waitFor({ state: 'visible', timeout: 10_000 });
    await expectClean(first, 'settings-password-changed');
    await signInInPage(second, site.url, 'sam', 'sam password 2');
    await first.context.close();
    await second.context.close();
  }, 120_000);

  it('account security, and the sidebar entry "Debug console" opens the console (§1)', async () => {
    const w = await watchedPage(browser);
    await signUpInPage(w, site.url, 'ada', 'ada password 1');
    await w.page.getByRole('link', { name: 'Account security' }).click();
    await w.page.waitForURL(`${site.url}/settings/security`);
    await expectClean(w, 'settings-security');
    await w.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Debug console' }).click();
    await w.page.waitForURL(`${site.url}/debug/console`);
    await w.page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    await w.context.close();
  }, 120_000);

  it('an administrator creates a user, promotes them, registers an OAuth app, a person approves it on the consent page, and every action is in the audit log', async () => {
    // the app's redirect URI: a server on loopback that receives the code
    let received: URL | null = null;
    const app: Server = createServer((req, res) => {
      // only the callback counts: the browser also asks this origin for /favicon.ico, whenever it likes
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') received = url;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('app received the code');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const address = app.address();
    const redirectUri = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/callback`;
    try {
      const w = await watchedPage(browser);
      await signInInPage(w, site.url, 'admin', ADMIN_PASSWORD);
      await w.page.getByRole('link', { name: 'Site admin' }).click();
      await w.page.waitForURL(`${site.url}/site-admin/users`);
      await expectClean(w, 'site-admin-users');

      await w.page.getByLabel('Username').fill('dora');
      await w.page.getByLabel(/^Email/).fill('dora@example.com');
      await w.page.getByRole('button', { name: 'Create account' }).click();
      await w.page.waitForURL(/\/site-admin\/users\/user\?id=/);
      await expectClean(w, 'site-admin-user');
      await w.page.getByRole('button', { name: 'Make site administrator' }).click();
      await w.page.getByRole('button', { name: 'Remove site administrator' }).waitFor({ state: 'visible', timeout: 10_000 });

      await w.page.goto(`${site.url}/site-admin/service-accounts`);
      await expectClean(w, 'site-admin-service-accounts');
      await w.page.goto(`${site.url}/site-admin/configuration`);
      await expectClean(w, 'site-admin-configuration');

      await w.page.goto(`${site.url}/site-admin/oauth-apps`);
      await expectClean(w, 'site-admin-oauth-apps');
      await w.page.getByLabel('App name').fill('Review bot');
      await w.page.getByLabel('Redirect URIs').fill(redirectUri);
      await w.page.getByRole('button', { name: 'Register app' }).click();
      const clientSecret = (await textOf(w.page, '#client-secret')).trim();
      const clientId = /gai_[A-Za-z0-9_-]+/.exec((await w.page.content()) ?? '')?.[0] ?? '';
      expect(clientSecret).not.toBe('');
      expect(clientId).not.toBe('');
      await expectClean(w, 'site-admin-oauth-app-registered');

      // a member authorizes the app: consent page, approve, the app gets a code it redeems
      const member = await watchedPage(browser);
      await signUpInPage(member, site.url, 'olga', 'olga password 1');
      const verifier = 'v'.repeat(20) + 'erifier-for-the-browser-test-0123456789';
      const authorize = new URL(`${site.url}/.auth/idp/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'user:all',
        state: 'browser-state',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      })) authorize.searchParams.set(k, v);
      await member.page.goto(authorize.toString());
      await member.page.getByText('Review bot').first().waitFor({ state: 'visible', timeout: 10_000 });
      await expectClean(member, 'oauth-consent');
      await member.page.getByRole('button', { name: 'Approve' }).click();
      const callback = await until(() => received);
      expect(callback?.searchParams.get('state')).toBe('browser-state');
      const code = callback?.searchParams.get('code') ?? '';
      const token = await fetch(`${site.url}/.auth/idp/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId, client_secret: clientSecret }).toString(),
      });
      expect(token.status).toBe(200);
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const who = await runCurl(['-s', '-H', `Authorization: Bearer ${accessToken}`, '-d', '{"query":"{ currentUser { username } }"}', `${site.url}/.api/graphql`]);
      expect(JSON.parse(who.stdout)).toEqual({ data: { currentUser: { username: 'olga' } } });
      // the approval is remembered: a second authorization goes straight back to the app
      received = null;
      await member.page.goto(authorize.toString());
      expect((await until(() => received))?.searchParams.get('state')).toBe('browser-state');
      await member.page.goto(`${site.url}/settings/security`);
      await member.page.getByText('Review bot').first().waitFor({ state: 'visible', timeout: 10_000 });
      await expectClean(member, 'settings-security-authorized-app');
      // revoking the approval ends the app's tokens at once
      await member.page.getByRole('link', { name: 'Revoke Review bot' }).click();
      await expectClean(member, 'settings-security-revoke-confirm');
      await member.page.getByRole('button', { name: 'Revoke', exact: true }).click();
      await member.page.waitForURL(/done=consent_revoked/);
      const refused = await runCurl(['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${accessToken}`, '-d', '{"query":"{ currentUser { username } }"}', `${site.url}/.api/graphql`]);
      expect(refused.stdout).toBe('401');
      await member.context.close();

      // the audit log page shows each action
      await w.page.goto(`${site.url}/site-admin/audit-log`);
      await expectClean(w, 'site-admin-audit-log');
      for (const [entity, action] of [
        ['user', 'created'],
        ['user', 'site_admin_granted'],
        ['oauth.app', 'registered'],
        ['oauth.consent', 'granted'],
        ['oauth.consent', 'revoked'],
        ['oauth.token', 'issued'],
      ] as const) {
        await w.page.goto(`${site.url}/site-admin/audit-log?${new URLSearchParams({ entity, action }).toString()}`);
        await w.page.getByRole('cell', { name: action, exact: true }).first().waitFor({ state: 'visible', timeout: 10_000 });
      }
      await w.page.goto(`${site.url}/site-admin/audit-log?entity=user&action=site_admin_granted`);
      await expectClean(w, 'site-admin-audit-log-filtered');
      await w.context.close();
    } finally {
      await new Promise<void>((resolve) => app.close(() => resolve()));
    }
  }, 180_000);

  it('shows hostile values typed into every field as inert text (React escapes them; nothing runs, nothing is injected)', async () => {
    const long = `${'ä'.repeat(3000)}${'<b>x</b>'.repeat(300)}`;
    const values = [
      '<script>alert(1)</script>',
      '"><img src=x onerror=alert(2)>',
      "' onmouseover='alert(3)' x='",
      'Zoë 🚀 مرحبا \u202eevil\u202c ｓｃｒｉｐｔ',
      long,
    ];
    const w = await watchedPage(browser);
    await signInInPage(w, site.url, 'admin', ADMIN_PASSWORD);
    /** What must hold after each submission: nothing ran, nothing was injected, the page still works. */
    const expectInert = async (what: string): Promise<void> => {
      const injected = await w.page.evaluate(() => document.querySelectorAll('img[src="x"], script:not([src]), [onerror], [onmouseover]').length);
      expect(injected, `${what}: injected elements`).toBe(0);
      expect(w.problems, `${what}: problems`).toEqual([]);
      expect(await w.page.getByRole('heading', { level: 1 }).count(), `${what}: the page rendered`).toBe(1);
    };
    // every form a person types into: the field's label, the button, the page
    const forms: readonly { page: string; fields: readonly string[]; button: string }[] = [
      { page: '/settings', fields: ['Username'], button: 'Change username' },
      { page: '/settings/tokens', fields: ['Note'], button: 'Create token' },
      { page: '/site-admin/users', fields: ['Search users'], button: 'Search' },
      { page: '/site-admin/users', fields: ['Username', 'Email (optional)'], button: 'Create account' },
      { page: '/site-admin/service-accounts', fields: ['Username'], button: 'Create service account' },
      { page: '/site-admin/oauth-apps', fields: ['App name', 'Redirect URIs'], button: 'Register app' },
      { page: '/site-admin/audit-log', fields: ['Entity', 'Action', 'Actor (username)'], button: 'Filter' },
    ];
    for (const [index, value] of values.entries()) {
      for (const form of forms) {
        await w.page.goto(`${site.url}${form.page}`);
        for (const label of form.fields) await w.page.getByLabel(label, { exact: true }).and(w.page.locator('input, textarea')).fill(value);
        await w.page.getByRole('button', { name: form.button, exact: true }).click();
        await w.page.waitForLoadState('load');
        await expectInert(`${form.page} ${form.button} with value ${index}`);
      }
      // values that are stored come back as text: the token note in the list, the app name in the apps table
      await w.page.goto(`${site.url}/settings/tokens`);
      await expectInert(`token list with value ${index}`);
    }
    await w.page.goto(`${site.url}/settings/tokens`);
    expect(await w.page.getByText('<script>alert(1)</script>', { exact: true }).count()).toBeGreaterThan(0);
    // values in the query string of a page (the audit log's filters, dates included) are refused or shown inert
    for (const value of values.slice(0, 4)) {
      await w.page.goto(`${site.url}/site-admin/audit-log?${new URLSearchParams({ entity: value, action: value, actor: value, since: value, until: value, before: value }).toString()}`);
      await expectInert(`audit log query ${value}`);
    }
    await expectClean(w, 'hostile-values-audit-log');
    await w.context.close();
  }, 300_000);

  it('is readable on a phone-sized window: no page scrolls sideways', async () => {
    const w = await watchedPage(browser, VIEWPORTS.phone);
    await signInInPage(w, site.url, 'admin', ADMIN_PASSWORD);
    for (const path of ['/settings', '/settings/tokens', '/settings/sessions', '/settings/security', '/site-admin/users', '/site-admin/audit-log', '/site-admin/oauth-apps']) {
      await w.page.goto(`${site.url}${path}`);
      const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      await expectClean(w, `phone${path.replaceAll('/', '-')}`);
    }
    await w.context.close();
  }, 120_000);
});

describe('the browser tests can run', () => {
  it('should find chromium and curl under CI', () => {
    expect(runnable || !IN_CI).toBe(true);
  });
});
