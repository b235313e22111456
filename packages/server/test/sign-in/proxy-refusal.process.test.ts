/**
 * Why the authentication proxy's person was refused, end to end (§5.3 `http-header`): `npm start`'s entry on a
 * PGlite data directory, behind a trusted proxy at 127.0.0.5 (every 127/8 address is the local host on Linux) that
 * sends the identity headers. A refused person gets the refusal page (403, the reason, a reference code) on the
 * sign-in page and on every page that sends them there; the API keeps its anonymous answer. However many requests
 * the proxy sends, the refusal is one audit entry per window with a count; a site administrator finds its code and
 * trace through GraphQL and on Site admin → Audit log. In Chromium (the proxy's headers added to every request),
 * the person sees the page and the administrator the trace; both pages are screenshotted under
 * `test-artifacts/pages/` and checked with axe-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_DENIAL_MESSAGES } from '../../../../src/core/sign-in/plan.js';
import { escapeHtml } from '../../src/kernel/http-io.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { setPassword } from '../../src/run/store-commands.js';
import { openStore } from '../../src/store/open.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { clientAt, type Answer, type Client } from '../helpers/from-address.js';
import { freePort, startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';

const PROXY = '127.0.0.5';
const ADMIN_PASSWORD = 'administrator pass 1';
const REFERENCE = /<code class="reference-code">([0-9A-HJKMNP-TV-Z]{8})<\/code>/u;
const REFUSED = { 'x-forwarded-user': 'nobody', 'x-forwarded-email': 'nobody@corp.example' };
const REASON = 'No account here has a verified email matching your account at Corp SSO, and sign-up through Corp SSO is off. Ask an administrator to create your account.';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

const executablePath = findChromium();
if (executablePath === null) {
  if (IN_CI) throw new Error('proxy-refusal.process.test.ts needs chromium under CI');
  console.warn('proxy-refusal.process.test.ts: the Chromium part is skipped: no chromium binary (apt-get install -y chromium)');
}

let dataDir: string;
let site: GatehouseProcess;
let proxy: Client;
let direct: Client;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-proxy-refusal-'));
  const port = await freePort();
  const config = join(dataDir, 'site.jsonc');
  writeFileSync(
    config,
    JSON.stringify({
      externalURL: `http://127.0.0.1:${port}`,
      'auth.providers': [
        { type: 'builtin', allowSignup: false },
        { type: 'http-header', displayName: 'Corp SSO', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email', allowSignup: false },
      ],
      // the proxy; 127.0.0.1 is Chromium's address, standing in for a proxy that adds the headers to its requests
      trustedProxies: [PROXY, '127.0.0.1'],
    }),
  );
  const opened = (await openStore({ dataDir }))._unsafeUnwrap();
  (await seedAdministrator(opened.store, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
  (await setPassword(opened.store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
  await opened.store.close();
  site = await startGatehouseProcess({ args: ['--data-dir', dataDir, '--config', config, '--port', String(port)] });
  proxy = clientAt(PROXY);
  direct = clientAt('127.0.0.1');
}, 120_000);

afterAll(async () => {
  proxy?.close();
  direct?.close();
  await site?.stop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

/** The administrator's session cookie (a password sign-in, no identity headers). */
async function adminCookie(): Promise<string> {
  const answer = await direct.send(site.url, {
    method: 'POST',
    path: '/.auth/sign-in',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  expect(answer.status).toBe(200);
  const cookie = [answer.headers['set-cookie'] ?? []].flat()[0]?.split(';')[0] ?? '';
  expect(cookie).toMatch(/^gatehouse_session=/u);
  return cookie;
}

interface AuditRow {
  readonly reason: string;
  readonly details: string;
  readonly count: number;
}

async function failedSignIns(cookie: string): Promise<readonly AuditRow[]> {
  const answer = await direct.send(site.url, {
    method: 'POST',
    path: '/.api/graphql',
    headers: { 'content-type': 'application/json', 'x-requested-with': 'test', cookie },
    body: JSON.stringify({ query: '{ auditLog(first: 50, entity: "auth.session", action: "failed") { reason details count } }' }),
  });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as { data: { auditLog: AuditRow[] } }).data.auditLog;
}

const referenceOf = (answer: Answer): string => REFERENCE.exec(answer.text)?.[1] ?? '';

describe('a person the proxy names and the sign-in decision refuses (real process, PGlite)', () => {
  it('should show the refusal page with the reason and a reference code, keep the API anonymous, and audit one entry with the trace', async () => {
    const page = await proxy.send(site.url, { path: '/.auth/sign-in', headers: REFUSED });
    expect({ status: page.status, type: page.headers['content-type'] }).toStrictEqual({ status: 403, type: 'text/html; charset=utf-8' });
    expect(page.text).toContain('Sign-in refused');
    expect(page.text).toContain(escapeHtml(SIGN_IN_DENIAL_MESSAGES.signup_not_allowed));
    expect(page.text).toContain(`<p class="refusal-reason">${escapeHtml(REASON)}</p>`);
    // the proxy names the person again on the sign-in page: no link back to it
    expect(page.text).not.toContain('Back to sign-in');
    const reference = referenceOf(page);
    expect(reference).not.toBe('');
    // the console page refuses with the same page and code
    const consolePage = await proxy.send(site.url, { path: '/debug/console', headers: REFUSED });
    expect({ status: consolePage.status, reference: referenceOf(consolePage) }).toStrictEqual({ status: 403, reference });
    // every other page sends the person there; the API answers as before, anonymously
    const settings = await proxy.send(site.url, { path: '/settings', headers: REFUSED });
    expect({ status: settings.status, location: settings.headers.location }).toStrictEqual({ status: 303, location: '/.auth/sign-in?returnTo=%2Fsettings' });
    const api = await proxy.send(site.url, {
      method: 'POST',
      path: '/.api/graphql',
      headers: { ...REFUSED, 'content-type': 'application/json', 'x-requested-with': 'console' },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    });
    expect({ status: api.status, body: JSON.parse(api.text) as unknown }).toStrictEqual({ status: 200, body: { data: { currentUser: null } } });
    // the proxy sends the headers with every request: 60 more page loads, one code and one entry per window
    const codes = new Set<string>([reference]);
    for (let i = 0; i < 60; i++) codes.add(referenceOf(await proxy.send(site.url, { path: '/.auth/sign-in', headers: REFUSED })));
    expect([...codes].every((code) => /^[0-9A-HJKMNP-TV-Z]{8}$/u.test(code))).toBe(true);

    const rows = (await failedSignIns(await adminCookie())).filter((r) => (JSON.parse(r.details) as Record<string, string>)['provider'] === 'http-header');
    // one entry per code (a second only if a minute boundary fell within the loop), counting every refused request:
    // the sign-in page 61 times, the console, /settings and the API once each
    expect(new Set(rows.map((r) => (JSON.parse(r.details) as Record<string, string>)['reference']))).toStrictEqual(codes);
    expect(rows.length).toBe(codes.size);
    expect(rows.reduce((sum, r) => sum + r.count, 0)).toBe(64);
    for (const row of rows) {
      const details = JSON.parse(row.details) as Record<string, string>;
      expect(row.reason).toBe('signup_not_allowed');
      const trace = JSON.parse(details['trace'] ?? '[]') as { rule: string; outcome: string }[];
      expect(trace.map((step) => [step.rule, step.outcome])).toStrictEqual([
        ['§5.3 http-header', 'no_membership_rule'],
        ['§5.4 rule 4', 'not_linked'],
        ['§5.4 rule 2', 'no_match'],
        ['§5.4 rule 2', 'signup_not_allowed'],
        ['§7 rule 3', 'deny'],
      ]);
    }
  }, 120_000);

  it('should let the administrator find the refusal by its code on Site admin → Audit log, with its trace', async () => {
    const reference = referenceOf(await proxy.send(site.url, { path: '/.auth/sign-in', headers: REFUSED }));
    const audit = await direct.send(site.url, { path: `/site-admin/audit-log?reference=${reference.toLowerCase()}`, headers: { cookie: await adminCookie() } });
    expect(audit.status).toBe(200);
    expect(audit.text.match(/<tr id="entry-/gu)?.length).toBe(1);
    expect(audit.text).toContain(`reference=${reference}`);
    expect([...audit.text.matchAll(/data-rule="([^"]+)"/gu)].map((m) => m[1])).toStrictEqual(['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.4 rule 2', '§7 rule 3']);
  }, 60_000);
});

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

describe.skipIf(executablePath === null)('the proxy refusal in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium(executablePath ?? '');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the refused person the reason and the code, and the administrator the trace by that code', async () => {
    const person = await watchedPage(browser);
    // what the proxy does: its identity headers on every request
    await person.context.setExtraHTTPHeaders(REFUSED);
    const answer = await person.page.goto(`${site.url}/`);
    expect(answer?.status()).toBe(403);
    expect(new URL(person.page.url()).pathname).toBe('/.auth/sign-in');
    await person.page.getByRole('heading', { name: 'Sign-in refused' }).waitFor({ state: 'visible', timeout: 15_000 });
    expect(await person.page.locator('.refusal-reason').textContent()).toBe(REASON);
    const reference = ((await person.page.locator('.reference-code').textContent()) ?? '').trim();
    expect(reference).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/u);
    await expectClean(person, 'sign-in-refused-proxy');
    await person.context.close();

    const w = await watchedPage(browser);
    await w.page.goto(`${site.url}/.auth/sign-in`);
    await w.page.getByLabel('Username').fill('admin');
    await w.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await Promise.all([w.page.waitForURL(`${site.url}/settings`), w.page.getByRole('button', { name: 'Sign in' }).click()]);
    await w.page.goto(`${site.url}/site-admin/audit-log`);
    await w.page.getByLabel('Reference code').fill(reference.toLowerCase());
    await Promise.all([w.page.waitForURL(/reference=/u), w.page.getByRole('button', { name: 'Filter' }).click()]);
    const rows = w.page.locator('tr[id^="entry-"]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(`reference=${reference}`);
    await rows.first().getByText(/Sign-in trace/u).click();
    const steps = rows.first().locator('li[data-rule]');
    expect(await steps.evaluateAll((items) => items.map((li) => li.getAttribute('data-rule')))).toStrictEqual(['§5.3 http-header', '§5.4 rule 4', '§5.4 rule 2', '§5.4 rule 2', '§7 rule 3']);
    await expectClean(w, 'site-admin-audit-log-proxy-refusal-trace');
    await w.context.close();
  }, 120_000);
});
