import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';
import type { TestServer } from './helpers.js';

function findChromium(): string | null {
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(candidate)) return candidate;
  try {
    const found = execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
    return found === '' ? null : found;
  } catch {
    return null;
  }
}

const executablePath = findChromium();
if (executablePath === null) console.warn('console.browser.test.ts skipped: no chromium binary (apt-get install -y chromium)');

describe.skipIf(executablePath === null)('debug console in headless Chromium (spec §1, §4; issue 5)', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    const signUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'paula', email: 'paula@example.com', password: 'paula password' }),
    });
    expect(signUp.status).toBe(201);
    browser = await chromium.launch({
      executablePath: executablePath ?? '',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('should sign in, run { currentUser { username } } in GraphiQL, see the username, and open Docs, with every asset from this server', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(s.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });

    await page.goto(`${s.url}/.auth/sign-in?returnTo=${encodeURIComponent('/debug/console')}`);
    await page.fill('#username', 'paula');
    await page.fill('#password', 'paula password');
    await Promise.all([page.waitForURL(`${s.url}/debug/console`), page.click('button[type=submit]')]);

    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    expect(await page.textContent('#viewer')).toBe('paula');
    const editor = await page.$$eval('.graphiql-query-editor .CodeMirror-line', (lines) => lines.map((l) => l.textContent ?? '').join(' '));
    expect(editor.replace(/[\s\u200b]+/g, ' ').trim()).toBe('{ currentUser { username } }');

    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.includes('paula') === true, null, { timeout: 30_000 });
    const result = (await page.textContent('.result-window')) ?? '';
    expect(result.replace(/\s+/g, '')).toContain('"currentUser":{"username":"paula"}');

    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer', { timeout: 30_000 });
    const docs = (await page.textContent('.graphiql-doc-explorer')) ?? '';
    expect(docs).toContain('Query');

    expect(foreign).toStrictEqual([]);
    expect(problems).toStrictEqual([]);
    await context.close();
  });
});
