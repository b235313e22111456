/**
 * Site admin → Site configuration → "Preview a change", in headless Chromium against `npm start`'s entry on an
 * embedded PostgreSQL (PGlite) data directory: people linked through hosta with the facts of their last sign-in (and
 * one from before facts were kept) are seeded in the store; a candidate that removes an org from `allowOrgs` lists
 * exactly the people who would lose sign-in, and an invalid one its problems with their paths. Nothing is applied.
 * Every page is screenshotted under `test-artifacts/pages/` and checked with axe-core.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAdministrator } from '../../src/run/administrator.js';
import { setPassword } from '../../src/run/store-commands.js';
import { openStore } from '../../src/store/open.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';
import { startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';

const executablePath = findChromium();
if (executablePath === null) console.warn('configuration-preview.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');

const ADMIN_PASSWORD = 'administrator pass 1';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
const hosta = (allowOrgs: readonly string[]) => ({ type: 'hosta', clientID: 'hosta-client', clientSecret: 'hosta-secret', allowOrgs });
const configuration = (orgs: readonly string[]): string => JSON.stringify({ 'auth.providers': [{ type: 'builtin' }, hosta(orgs)] }, null, 2);

/** The people, their hosta orgs at their last sign-in (`null`: no facts kept), and whether they have a password. */
const PEOPLE: readonly (readonly [string, readonly string[] | null, boolean])[] = [
  ['ann', ['acme'], false],
  ['bob', ['globex'], false],
  ['cid', null, false],
  ['dee', ['GLOBEX', 'acme'], false],
  ['eve', ['globex', 'initech'], true],
];

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

describe.skipIf(executablePath === null)('Preview a configuration change, in Chromium (real process, PGlite)', () => {
  let browser: Browser;
  let dir: string;
  let site: GatehouseProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-preview-pages-'));
    const dataDir = join(dir, 'data');
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    const store = opened.store;
    (await seedAdministrator(store, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    (await setPassword(store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    for (const [i, [name, orgs, password]] of PEOPLE.entries()) {
      const accountId = String(5000 + i);
      (
        await store.accounts.create({
          usernames: [name],
          origin: 'provider_signup',
          siteAdmin: false,
          serviceAccount: false,
          emails: [{ email: `${name}@example.com`, verified: true }],
          passwordHash: password ? 'scrypt$placeholder' : null,
          createdAt: Date.now(),
          externalAccount: { serviceType: 'hosta', serviceId: '', accountId, createdAt: Date.now() },
        })
      )._unsafeUnwrap();
      if (orgs !== null) {
        const facts = { username: `${name}-at-hosta`, emails: [{ address: `${name}@example.com`, verified: true }], orgs, teams: [] };
        (await store.accounts.recordIdentityFacts({ serviceType: 'hosta', serviceId: '', accountId }, facts, Date.now()))._unsafeUnwrap();
      }
    }
    await store.close();
    const configFile = join(dir, 'site.jsonc');
    writeFileSync(configFile, configuration(['acme', 'globex']));
    site = await startGatehouseProcess({ args: ['--data-dir', dataDir, '--config', configFile] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists exactly the people who would lose sign-in when an org leaves allowOrgs, and applies nothing', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${site.url}/.auth/sign-in`);
    await w.page.getByLabel('Username').fill('admin');
    await w.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await Promise.all([w.page.waitForURL(`${site.url}/settings`), w.page.getByRole('button', { name: 'Sign in' }).click()]);
    await w.page.goto(`${site.url}/site-admin/configuration`);
    await Promise.all([w.page.waitForURL(`${site.url}/site-admin/configuration/preview`), w.page.getByRole('link', { name: 'Preview a change' }).click()]);
    await expectClean(w, 'site-admin-configuration-preview-form');

    await w.page.getByLabel('Site configuration (JSONC)').fill(configuration(['acme']));
    await w.page.getByRole('button', { name: 'Preview' }).click();
    await w.page.getByRole('heading', { name: /^Who would lose sign-in/ }).waitFor({ state: 'visible', timeout: 20_000 });
    expect(await w.page.getByRole('heading', { name: /^Who would lose sign-in/ }).textContent()).toBe('Who would lose sign-in (2)');
    const losing = w.page.getByRole('region', { name: 'Who would lose sign-in' }).getByRole('row');
    // the header row, then bob and eve: the people in globex but not in acme
    expect(await losing.count()).toBe(3);
    expect((await losing.nth(1).getByRole('cell').first().textContent())?.trim()).toBe('bob');
    expect((await losing.nth(2).getByRole('cell').first().textContent())?.trim()).toBe('eve');
    expect(await losing.nth(1).getByRole('cell').nth(2).textContent()).toBe('bob-at-hosta');
    expect(await losing.nth(2).getByRole('cell').nth(4).textContent()).toBe('yes');
    expect(await w.page.getByRole('heading', { name: /^Unknown/ }).textContent()).toBe('Unknown (1)');
    expect(await w.page.getByRole('region', { name: 'Unknown' }).getByRole('cell').first().textContent()).toBe('cid');
    expect(await w.page.getByRole('heading', { name: /^Who would gain sign-in/ }).textContent()).toBe('Who would gain sign-in (0)');
    expect(await w.page.getByRole('status').textContent()).toContain('nothing was applied');
    await expectClean(w, 'site-admin-configuration-preview-result');

    // nothing was applied: the running configuration still lists globex
    await w.page.goto(`${site.url}/site-admin/configuration`);
    expect(await w.page.locator('main').textContent()).toContain('globex');
  }, 120_000);

  it('shows the problems of an invalid candidate with their paths', async () => {
    const w = await watchedPage(browser);
    await w.page.goto(`${site.url}/.auth/sign-in`);
    await w.page.getByLabel('Username').fill('admin');
    await w.page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await Promise.all([w.page.waitForURL(`${site.url}/settings`), w.page.getByRole('button', { name: 'Sign in' }).click()]);
    await w.page.goto(`${site.url}/site-admin/configuration/preview`);
    await w.page.getByLabel('Site configuration (JSONC)').fill('{ "auth.providers": [{ "type": "hosta", "clientID": "x", "allowOrgz": [] }] }');
    await w.page.getByRole('button', { name: 'Preview' }).click();
    await w.page.getByRole('heading', { name: /^Problems/ }).waitFor({ state: 'visible', timeout: 20_000 });
    const problems = await w.page.getByRole('list').filter({ hasText: 'auth.providers[0]' }).textContent();
    expect(problems).toContain('auth.providers[0].allowOrgz');
    expect(await w.page.getByRole('alert').textContent()).toContain('has problems');
    await expectClean(w, 'site-admin-configuration-preview-problems');
  }, 120_000);

  it('should find chromium under CI', () => {
    if (IN_CI) expect(executablePath).not.toBeNull();
  });
});
