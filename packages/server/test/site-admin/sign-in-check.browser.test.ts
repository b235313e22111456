/**
 * The rules made visible, in headless Chromium against `npm start`'s entry on a PGlite data directory and a fake
 * `hosta` on loopback: the site administrator's Sign-in check explains a `hosta` identity refused by an
 * `allowOrgsMap` team-name mismatch (§5.3 hosta rule 5) and one admitted by org membership before teams (rule 6);
 * a person refused at a real `hosta` sign-in sees the reason and a reference code, and the administrator finds the
 * refusal's trace in the audit log by that code. Every page is screenshotted under `test-artifacts/pages/` and
 * checked with axe-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { openStore } from '../../src/store/open.js';
import { HOSTA_CLIENT, startFakeHosta, type FakeHosta } from '../fakes/hosta.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { freePort, startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';

const executablePath = findChromium();
if (executablePath === null) {
  if (IN_CI) throw new Error('sign-in-check.browser.test.ts needs chromium under CI');
  console.warn('sign-in-check.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');
}

const ADMIN_PASSWORD = 'administrator pass 1';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

async function signInAsAdmin(w: WatchedPage, url: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-in`);
  await w.page.getByLabel('Username').fill('admin');
  await w.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await Promise.all([w.page.waitForURL(`${url}/settings`), w.page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** Fills the Sign-in check form for the hosta provider and submits it. */
async function check(w: WatchedPage, fields: { readonly username: string; readonly emails: string; readonly orgs: string; readonly teams: string }): Promise<void> {
  await w.page.getByLabel('Provider', { exact: true }).selectOption({ label: '1: hosta' });
  await w.page.getByLabel('Username at the provider').fill(fields.username);
  await w.page.getByLabel('Emails').fill(fields.emails);
  await w.page.getByLabel('Organizations (hosta)').fill(fields.orgs);
  await w.page.getByLabel('Teams (hosta)').fill(fields.teams);
  await Promise.all([w.page.waitForLoadState('load'), w.page.getByRole('button', { name: 'Check' }).click()]);
  await w.page.getByRole('heading', { name: 'Decision' }).waitFor({ state: 'visible', timeout: 10_000 });
}

/** The rules of the trace list and their outcomes, in order. */
async function traceOf(w: WatchedPage, label: string): Promise<readonly (readonly [string | null, string | null])[]> {
  const items = w.page.getByRole('list', { name: label }).locator(':scope > li');
  const count = await items.count();
  const out: (readonly [string | null, string | null])[] = [];
  for (let i = 0; i < count; i += 1) out.push([await items.nth(i).getAttribute('data-rule'), await items.nth(i).getAttribute('data-outcome')]);
  return out;
}

describe.skipIf(executablePath === null)('the sign-in check and the refusal reason in Chromium (real process, PGlite, fake hosta)', () => {
  let browser: Browser;
  let dataDir: string;
  let site: GatehouseProcess;
  let hosta: FakeHosta;

  beforeAll(async () => {
    hosta = await startFakeHosta([
      // in no listed org; in a team of globex whose name differs from the listed one in case only
      { id: 41, login: 'rowan', emails: [{ email: 'rowan@example.com', verified: true, primary: true }], orgs: ['initech'], teams: [{ org: 'globex', name: 'core team', slug: 'core-team' }] },
    ]);
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-sign-in-check-'));
    const port = await freePort();
    const config = join(dataDir, 'site.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        externalURL: `http://127.0.0.1:${port}`,
        'auth.providers': [
          { type: 'builtin', allowSignup: false },
          { type: 'hosta', url: hosta.url, clientID: HOSTA_CLIENT.clientId, clientSecret: HOSTA_CLIENT.clientSecret, allowSignup: true, allowOrgs: ['acme'], allowOrgsMap: { globex: ['Core Team'] } },
        ],
      }),
    );
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    (await seedAdministrator(opened.store, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    (await setPassword(opened.store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    await opened.store.close();
    site = await startGatehouseProcess({ args: ['--data-dir', dataDir, '--config', config, '--port', String(port)] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    await hosta?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('explains a hosta identity refused by a team-name mismatch (rule 5) and one admitted by org before teams (rule 6)', async () => {
    const w = await watchedPage(browser);
    await signInAsAdmin(w, site.url);
    await w.page.goto(`${site.url}/site-admin`);
    await w.page.getByRole('link', { name: 'Sign-in check' }).click();
    await w.page.waitForURL(`${site.url}/site-admin/sign-in-check`);
    await expectClean(w, 'site-admin-sign-in-check');

    await check(w, { username: 'rowan', emails: 'rowan@example.com', orgs: 'initech', teams: 'globex: core team' });
    expect(await w.page.locator('.decision').getAttribute('data-decision')).toBe('deny');
    expect(await traceOf(w, 'Rules applied, in order')).toStrictEqual([
      ['§5.3 hosta rule 4', 'not_admitted'],
      ['§5.3 hosta rule 6', 'teams_consulted'],
      ['§5.3 hosta rule 5', 'not_admitted'],
      ['§7 rule 3', 'deny'],
    ]);
    const rule5 = w.page.locator('li[data-rule="§5.3 hosta rule 5"]');
    expect(await rule5.locator('blockquote').textContent()).toContain('must match exactly');
    await rule5.getByText('Facts read').click();
    expect(await rule5.locator('pre').textContent()).toContain('"nameMismatches"');
    expect(await w.page.getByText('team names must match exactly').count()).toBeGreaterThan(0);
    await expectClean(w, 'site-admin-sign-in-check-refused-rule-5');

    await check(w, { username: 'octavia', emails: 'octavia@example.com', orgs: 'ACME', teams: 'globex: Ops' });
    expect(await w.page.locator('.decision').getAttribute('data-decision')).toBe('create');
    expect(await w.page.locator('.decision').textContent()).toContain('named octavia');
    const trace = await traceOf(w, 'Rules applied, in order');
    expect(trace.slice(0, 2)).toStrictEqual([
      ['§5.3 hosta rule 4', 'admitted'],
      ['§5.3 hosta rule 6', 'teams_not_consulted'],
    ]);
    expect(trace.map(([rule]) => rule)).not.toContain('§5.3 hosta rule 5');
    await expectClean(w, 'site-admin-sign-in-check-admitted-rule-6');
    await w.context.close();
  }, 120_000);

  it('shows a refused person the reason and a reference code, and the administrator finds the trace in the audit log by it', async () => {
    const person = await watchedPage(browser);
    // the fake host's login page stands in for the person signing in there as rowan: the redirect to it names them
    await person.page.route(`${site.url}/.auth/hosta/login`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = new URL(response.headers()['location'] ?? '');
      location.searchParams.set('as', 'rowan');
      await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
    });
    const answer = await person.page.goto(`${site.url}/.auth/hosta/login`);
    await person.page
      .getByRole('heading', { name: 'Sign-in refused' })
      .waitFor({ state: 'visible', timeout: 15_000 })
      .catch(async (e: unknown) => {
        throw new Error(`at ${person.page.url()}: ${(await person.page.textContent('body'))?.slice(0, 500)}`, { cause: e });
      });
    expect(answer?.status() === 403 || (await person.page.evaluate(() => document.title)).includes('Sign-in refused')).toBe(true);
    expect(await person.page.locator('.refusal-reason').textContent()).toContain('Your account at hosta is in a team whose name differs');
    const reference = ((await person.page.locator('.reference-code').textContent()) ?? '').trim();
    expect(reference).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/u);
    await expectClean(person, 'sign-in-refused-reason');
    await person.context.close();

    const w = await watchedPage(browser);
    await signInAsAdmin(w, site.url);
    await w.page.goto(`${site.url}/site-admin/audit-log`);
    await w.page.getByLabel('Reference code').fill(reference.toLowerCase());
    await Promise.all([w.page.waitForURL(/reference=/u), w.page.getByRole('button', { name: 'Filter' }).click()]);
    const rows = w.page.locator('tr[id^="entry-"]');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(`reference=${reference}`);
    await rows.first().getByText(/Sign-in trace/u).click();
    const steps = rows.first().locator('li[data-rule]');
    expect(await steps.evaluateAll((items) => items.map((li) => li.getAttribute('data-rule')))).toStrictEqual(['§5.3 hosta rule 4', '§5.3 hosta rule 6', '§5.3 hosta rule 5', '§7 rule 3']);
    await expectClean(w, 'site-admin-audit-log-refusal-trace');
    await w.context.close();
  }, 120_000);
});
