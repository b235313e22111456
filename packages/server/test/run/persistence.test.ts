import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { signIn, startGatehouseProcess, whoAmI } from '../helpers/processes.js';
import { TEST_ARTIFACTS } from '../helpers/browser-kit.js';

const executablePath = findChromium();
if (executablePath === null) console.warn('persistence.test.ts: browser part skipped: no chromium binary (apt-get install -y chromium)');

describe('npm start keeps its data on disk (embedded PGlite)', () => {
  let dataDir: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-data-'));
    if (executablePath !== null) browser = await launchChromium(executablePath);
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('should find a chromium binary under CI', () => {
    expect(executablePath !== null || !IN_CI).toBe(true);
  });

  it.skipIf(executablePath === null)(
    'should keep an account signed up in the browser and its token across a restart, and print the administrator token only at the first start',
    async () => {
      const first = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
      let token = '';
      try {
        expect(first.adminToken).toMatch(/^gat_/);
        const page = await (browser as Browser).newPage();
        // signed up from the console's sign-in link, so it comes back there (the default landing page is /settings)
        await page.goto(`${first.url}/.auth/sign-up?returnTo=${encodeURIComponent('/debug/console')}`);
        await page.fill('#username', 'persistent-paula');
        await page.fill('#email', 'paula@example.com');
        await page.fill('#password', 'paula password 1');
        await Promise.all([page.waitForURL(`${first.url}/**`), page.click('button[type=submit]')]);
        // a token created in the browser session (the session cookie plus the CSRF header the console sends)
        token = await page.evaluate(async () => {
          const res = await fetch('/.api/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-requested-with': 'gatehouse-test' },
            body: JSON.stringify({ query: 'mutation { createAccessToken(note: "kept", scopes: ["user:all"]) { token } }' }),
          });
          const body = (await res.json()) as { data?: { createAccessToken?: { token?: string } } };
          return body.data?.createAccessToken?.token ?? `refused: ${res.status} ${JSON.stringify(body)}`;
        });
        expect(token).toMatch(/^gat_/);
        expect(await whoAmI(first.url, `token ${token}`)).toBe('persistent-paula');
        // the console the sign-up landed on, with its GraphiQL loaded, as a person sees it
        await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
        mkdirSync(TEST_ARTIFACTS, { recursive: true });
        await page.screenshot({ path: new URL('persistence-signed-up.png', TEST_ARTIFACTS).pathname });
        await page.close();
      } finally {
        await first.stop();
      }

      const second = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
      try {
        // a later start keeps the administrator account and prints no new token
        expect(second.adminToken).toBeNull();
        expect(second.output()).not.toContain('Administrator access token');
        expect(await whoAmI(second.url, `token ${first.adminToken ?? ''}`)).toBe('admin');
        expect(await whoAmI(second.url, `token ${token}`)).toBe('persistent-paula');
        // the account signs in in the browser with its password
        const page = await (browser as Browser).newPage();
        await page.goto(`${second.url}/.auth/sign-in`);
        await page.fill('#username', 'persistent-paula');
        await page.fill('#password', 'paula password 1');
        const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/.auth/sign-in') && r.request().method() === 'POST'), page.click('button[type=submit]')]);
        expect(response.status()).toBe(303);
        await page.close();
        expect((await signIn(second.url, 'persistent-paula', 'wrong password')).status).toBe(401);
      } finally {
        await second.stop();
      }
    },
    180_000,
  );
});
