/**
 * The OAuth consent page in headless Chromium: a person signs in, sees the page, and Approve (or Deny) takes the
 * browser to the app's redirect URI on another origin. Browsers apply the page's `form-action` to the redirect that
 * follows the form, so this checks that the page's policy allows exactly that redirect; axe-core checks the page.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const executablePath = findChromium();
if (executablePath === null) console.warn('oauth-consent.browser.test.ts skipped: no chromium binary (apt-get install -y chromium)');

describe('OAuth consent in headless Chromium: the browser', () => {
  it('should find a chromium binary under CI', () => {
    expect(executablePath !== null || !IN_CI).toBe(true);
  });
});

const PASSWORD = 'consent password 1';
const VERIFIER = 'b'.repeat(43);

describe.skipIf(executablePath === null)('OAuth consent in headless Chromium (spec §2.4)', () => {
  let s: TestServer;
  let browser: Browser;
  let app: Server;
  let callback = '';
  let clientId = '';

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    // the app: another origin (another port) that answers its callback
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('app callback'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/cb`;
    const admin = await s.user('admin', true);
    const registered = await gql(
      s.url,
      'mutation($uris: [String!]!) { registerOAuthApp(name: "Deploy <bot>", redirectURIs: $uris, scopes: ["user:all"]) { clientID } }',
      { headers: { authorization: `token ${(await s.token(admin)).token}` }, variables: { uris: [callback] } },
    );
    clientId = (registered.body as { data: { registerOAuthApp: { clientID: string } } }).data.registerOAuthApp.clientID;
    const signUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carla', email: 'carla@example.com', password: PASSWORD }),
    });
    expect(signUp.status).toBe(201);
    browser = await launchChromium(executablePath ?? '');
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await new Promise<void>((resolve) => (app === undefined ? resolve() : app.close(() => resolve())));
  });

  function authorizePath(state: string): string {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback,
      scope: 'user:all',
      state,
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
      code_challenge_method: 'S256',
    });
    return `/.auth/idp/oauth/authorize?${params.toString()}`;
  }

  /** Signs in on the sign-in page and comes back to the consent page. */
  async function signInToConsent(page: Page, state: string): Promise<void> {
    await page.goto(`${s.url}/.auth/sign-in?returnTo=${encodeURIComponent(authorizePath(state))}`);
    await page.fill('#username', 'carla');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((url) => url.pathname === '/.auth/idp/oauth/authorize'), page.click('button[type=submit]')]);
  }

  it('should show the page, and Deny then Approve should take the browser to the app (form-action allows the redirect)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await signInToConsent(page, 'deny-1');
    expect(await page.textContent('h1')).toBe('Authorize Deploy <bot>');
    expect(await page.textContent('main')).toContain('You are signed in as carla');

    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback)), page.click('button[value=deny]')]);
    const denied = new URL(page.url());
    expect(Object.fromEntries(denied.searchParams)).toStrictEqual({ error: 'access_denied', state: 'deny-1' });

    await page.goto(`${s.url}${authorizePath('approve-1')}`);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback)), page.getByRole('button', { name: 'Approve' }).click()]);
    const approved = new URL(page.url());
    expect(approved.searchParams.get('state')).toBe('approve-1');
    expect(approved.searchParams.get('code')).toMatch(/^gac_/);
    expect(await page.textContent('body')).toBe('app callback');

    // remembered: the next authorization goes straight to the app
    await page.goto(`${s.url}${authorizePath('again')}`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('again');
    expect(problems.filter((p) => p.includes('Content Security Policy'))).toStrictEqual([]);
    await context.close();
  });

  it('should pass axe-core with no serious or critical violations', async () => {
    // a fresh account, so the page is shown; the context injects axe past the page's CSP
    await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'dora', email: 'dora@example.com', password: PASSWORD }),
    });
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${s.url}/.auth/sign-in?returnTo=${encodeURIComponent(authorizePath('axe'))}`);
    await page.fill('#username', 'dora');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((url) => url.pathname === '/.auth/idp/oauth/authorize'), page.click('button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Authorize Deploy <bot>');
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string | null }[] }> } }).axe;
      return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
    });
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toStrictEqual([]);
    await context.close();
  });
});
