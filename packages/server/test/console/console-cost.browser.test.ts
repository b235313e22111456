/**
 * The debug console shows the query cost of spec §8 beside the answer: every request it sends asks for it
 * (`X-Gatehouse-Cost: explain`) and the panel under the editors shows the five measures and the token count with
 * their limits. Real server, real headless Chromium.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../../../src/core/query-cost/limits.js';
import { expectedMeasures } from '../helpers/cost-documents.js';
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
if (executablePath === null) console.warn('console-cost.browser.test.ts skipped: no chromium binary (apt-get install -y chromium)');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('debug console query cost in headless Chromium: the browser', () => {
  it('should find a chromium binary under CI', () => {
    expect(executablePath !== null || !inCI).toBe(true);
  });
});

describe.skipIf(executablePath === null)('debug console query cost (spec §8)', () => {
  let s: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    browser = await chromium.launch({ executablePath: executablePath ?? '', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('should show the five measures and the token count beside the answer, as the analyzer gives them', async () => {
    const admin = await s.user('ada', true);
    const { token } = await s.token(admin);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { authorization: `token ${token}` } });
    const page = await context.newPage();
    const problems: string[] = [];
    const costHeaders: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('request', (request) => {
      if (request.url().endsWith('/.api/graphql')) costHeaders.push(request.headers()['x-gatehouse-cost'] ?? '');
    });
    await page.goto(`${s.url}/debug/console`);
    await page.waitForSelector('.graphiql-container', { timeout: 30_000 });

    const query = '{ currentUser { username accessTokens(first: 50) { id scopes(first: 3) } } }';
    await page.evaluate((text) => {
      const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as { CodeMirror: { setValue(v: string): void } };
      editor.CodeMirror.setValue(text);
    }, query);
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => document.querySelector('.result-window')?.textContent?.includes('ada') === true, null, { timeout: 30_000 });
    await page.waitForSelector('#query-cost table', { timeout: 30_000 });

    const rows = await page.$$eval('#query-cost tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    const m = expectedMeasures(query, DEFAULT_QUERY_LIMITS);
    const n = (x: number): string => x.toLocaleString('en-US');
    expect(rows.slice(0, 5)).toEqual([
      ['depth', n(m.depth.value), n(m.depth.limit), 'graphQLMaxDepth'],
      ['fieldCount', n(m.fieldCount.value), n(m.fieldCount.limit), 'graphQLMaxFieldCount'],
      ['aliases', n(m.aliases.value), n(m.aliases.limit), 'graphQLMaxAliases'],
      ['duplicateFieldCount', n(m.duplicateFieldCount.value), n(m.duplicateFieldCount.limit), 'GraphqlMaxDuplicateFieldCount'],
      ['uniqueFieldCount', n(m.uniqueFieldCount.value), n(m.uniqueFieldCount.limit), 'GraphqlMaxUniqueFieldCount'],
    ]);
    expect(rows[5]?.[0]).toBe('tokenCount');
    expect(await page.textContent('#query-cost')).toContain('currentUser.accessTokens × 50 (first)');
    expect(costHeaders.length).toBeGreaterThan(0);
    expect(costHeaders.every((h) => h === 'explain')).toBe(true);

    mkdirSync(TEST_ARTIFACTS, { recursive: true });
    await page.screenshot({ path: new URL('console-query-cost.png', TEST_ARTIFACTS).pathname });
    await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (context: string, options: object) => Promise<{ violations: { id: string; impact: string | null }[] }> } }).axe;
      const result = await axe.run('#query-cost', { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    });
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
