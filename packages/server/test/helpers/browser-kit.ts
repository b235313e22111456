/**
 * What the pages' browser tests share: Debian's Chromium through playwright-core, pages that fail the test on
 * any Content-Security-Policy violation, page error or JavaScript dialog, an axe-core accessibility check, and
 * screenshots under the git-ignored `test-artifacts/pages/` for a person to look at.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** What browser tests leave for a person to look at: the repository's git-ignored `test-artifacts/`. */
export const TEST_ARTIFACTS: URL = new URL('../../../../test-artifacts/', import.meta.url);

/** Screenshots of the pages (git-ignored). */
export const PAGE_ARTIFACTS: URL = new URL('pages/', TEST_ARTIFACTS);

/** A phone-sized window and a desktop window. */
export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A page under test and what went wrong on it so far. */
export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** CSP violations, page errors and dialogs seen since the page opened. */
  readonly problems: string[];
}

/**
 * A new browser context (its own cookies) and page, watched: a CSP violation, an uncaught error or a JavaScript
 * dialog (what an injected `alert()` would open) is recorded in `problems`.
 */
export async function watchedPage(browser: Browser, viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<WatchedPage> {
  // the phone-sized window says it is a phone, so the sessions page has two browsers to tell apart
  const phone = viewport.width < 600;
  const context = await browser.newContext({
    viewport,
    ...(phone ? { userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', isMobile: true, hasTouch: true } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text())) problems.push(`csp: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, context, problems };
}

/** One axe-core violation, as the tests report it. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol, which the page's CSP does not govern) and
 * returns its serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<readonly AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Saves a full-page screenshot as `test-artifacts/pages/<name>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(PAGE_ARTIFACTS, { recursive: true });
  const path = new URL(`${name}.png`, PAGE_ARTIFACTS).pathname;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * What every page of the tests must be: nothing went wrong on it, no serious or critical accessibility
 * violation; then its screenshot. Returns the problems and violations (empty when all is well) so a test
 * asserts on them with a readable diff.
 */
export async function inspect(watched: WatchedPage, name: string): Promise<{ problems: readonly string[]; violations: readonly AxeViolation[] }> {
  await screenshot(watched.page, name);
  const violations = await seriousViolations(watched.page);
  return { problems: [...watched.problems], violations };
}

/** Runs the real `curl` with these arguments; resolves with its exit code and output. */
export function runCurl(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('curl', [...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whether `curl` is installed. */
export function hasCurl(): boolean {
  try {
    return execFileSync('curl', ['--version'], { encoding: 'utf8' }).startsWith('curl');
  } catch {
    return false;
  }
}
