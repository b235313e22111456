import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { TEST_ARTIFACTS } from '../helpers/browser-kit.js';

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
const inCI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
if (executablePath === null) console.warn('console.browser.test.ts skipped: no chromium binary (apt-get install -y chromium)');

// A plain clone without Chromium skips the browser tests; CI must run them, so there a missing Chromium fails.
describe('debug console in headless Chromium: the browser', () => {
  it('should find a chromium binary under CI (CI installs it: apt-get install -y chromium)', () => {
    expect(executablePath !== null || !inCI).toBe(true);
  });
});

describe.skipIf(executablePath === null)('debug console in headless Chromium (spec §1, §4)', () => {
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
  it('should run { currentUser { username } } with an access token pasted in the Headers editor, and open Docs on the right (spec §1)', async () => {
    const admin = await s.user('ada', true);
    const { token } = await s.token(admin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });

    // no session: the token is the only credential, as for an administrator holding the printed token
    await page.goto(`${s.url}/debug/console`);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
    expect(await page.textContent('header')).toContain('Not signed in');

    // the Headers editor is on and starts empty: nothing secret is prefilled
    await page.click('button.graphiql-un-styled:has-text("Headers")');
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await page.waitForSelector(headersEditor, { timeout: 30_000 });
    const before = await page.$eval(headersEditor, (el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
    expect(before).toBe('');
    await page.click(`${headersEditor} .CodeMirror-lines`);
    await page.keyboard.insertText(JSON.stringify({ Authorization: `token ${token}` }));
    const pasted = await page.$eval(headersEditor, (el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
    expect(JSON.parse(pasted)).toStrictEqual({ Authorization: `token ${token}` });

    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.includes('ada') === true, null, { timeout: 30_000 });
    expect(((await page.textContent('.result-window')) ?? '').replace(/\s+/g, '')).toContain('"currentUser":{"username":"ada"}');

    // the Docs control and the documentation it opens are on the right half of the page
    const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
    const control = await page.locator('[aria-label="Show Documentation Explorer"]').boundingBox();
    expect(control).not.toBeNull();
    expect(control?.x ?? 0).toBeGreaterThan(viewport.width / 2);
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForSelector('.graphiql-doc-explorer', { timeout: 30_000 });
    const docs = await page.locator('.graphiql-doc-explorer').boundingBox();
    const editors = await page.locator('.graphiql-sessions').boundingBox();
    expect(docs).not.toBeNull();
    expect(docs?.x ?? 0).toBeGreaterThan(viewport.width / 2);
    expect((docs?.x ?? 0) + (docs?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
    expect((editors?.x ?? 0) + (editors?.width ?? 0)).toBeLessThanOrEqual(docs?.x ?? 0);
    expect((await page.textContent('.graphiql-doc-explorer')) ?? '').toContain('Query');

    mkdirSync(TEST_ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('console-headers-docs-right.png', TEST_ARTIFACTS).pathname });
    // the token was never written to the browser's storage
    const stored = await page.evaluate(() => JSON.stringify({ ...window.localStorage }));
    expect(stored).toContain('graphiql:queries'); // the history is kept, without the headers it ran with
    expect(stored).not.toContain(token);
    expect(problems).toStrictEqual([]);
    await context.close();
  });
});
