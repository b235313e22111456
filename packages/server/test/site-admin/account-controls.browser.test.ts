/**
 * Site admin → Users, an account's controls, walked in headless Chromium as an administrator uses them, against
 * `npm start`'s entry on an embedded PostgreSQL (PGlite) data directory: suspend (with its confirmation page), the
 * member's browser signed out and refused at sign-in, the Suspended badge in the list, reinstate, end all sessions,
 * revoke all tokens, and the refusal for the only active site administrator. Every page is screenshotted under
 * `test-artifacts/pages/`, checked with axe-core (no serious or critical violation) and watched for CSP
 * violations, page errors and dialogs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/run/store-commands.js';
import { seedAdministrator } from '../../src/run/administrator.js';
import { openStore } from '../../src/store/open.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';
import { inspect, watchedPage, type WatchedPage } from '../helpers/browser-kit.js';

const executablePath = findChromium();
if (executablePath === null) console.warn('account-controls.browser.test.ts: skipped: no chromium binary (apt-get install -y chromium)');

const ADMIN_PASSWORD = 'administrator pass 1';
const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

async function expectClean(w: WatchedPage, name: string): Promise<void> {
  const { problems, violations } = await inspect(w, name);
  expect(problems, `problems on ${name}`).toEqual([]);
  expect(violations, `accessibility of ${name}`).toEqual([]);
}

async function signIn(w: WatchedPage, url: string, username: string, password: string): Promise<void> {
  await w.page.goto(`${url}/.auth/sign-in`);
  await w.page.getByLabel('Username').fill(username);
  await w.page.getByLabel('Password', { exact: true }).fill(password);
  await w.page.getByRole('button', { name: 'Sign in' }).click();
}

describe.skipIf(executablePath === null)('account controls in Chromium (real process, PGlite)', () => {
  let browser: Browser;
  let dataDir: string;
  let site: GatehouseProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-controls-pages-'));
    const opened = (await openStore({ dataDir }))._unsafeUnwrap();
    (await seedAdministrator(opened.store, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    (await setPassword(opened.store, 'admin', `${ADMIN_PASSWORD}\n`, { now: Date.now, randomBytes: random }))._unsafeUnwrap();
    await opened.store.close();
    site = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
    browser = await launchChromium(executablePath ?? '');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an administrator suspends a member (who is signed out and refused), reinstates them, ends their sessions and revokes their tokens', async () => {
    const member = await watchedPage(browser);
    await member.page.goto(`${site.url}/.auth/sign-up`);
    await member.page.getByLabel('Username').fill('mira');
    await member.page.getByLabel('Email').fill('mira@example.com');
    await member.page.getByLabel('Password', { exact: true }).fill('mira password 1');
    await Promise.all([member.page.waitForURL(`${site.url}/settings`), member.page.getByRole('button', { name: 'Sign up' }).click()]);

    const admin = await watchedPage(browser);
    await signIn(admin, site.url, 'admin', ADMIN_PASSWORD);
    await admin.page.waitForURL(`${site.url}/settings`);
    await admin.page.goto(`${site.url}/site-admin/users`);
    await admin.page.getByRole('link', { name: 'mira', exact: true }).click();
    await admin.page.getByRole('heading', { name: 'Account controls' }).waitFor();
    expect(await admin.page.getByText('Active', { exact: true }).count()).toBe(1);
    await expectClean(admin, 'site-admin-user-controls');

    // suspend: asks first
    await admin.page.getByRole('link', { name: 'Suspend account' }).click();
    await admin.page.getByRole('heading', { level: 2, name: 'Suspend mira?' }).waitFor();
    await expectClean(admin, 'site-admin-user-suspend-confirm');
    await admin.page.getByRole('button', { name: 'Suspend account' }).click();
    await admin.page.waitForURL(/done=suspended/);
    await admin.page.getByRole('button', { name: 'Reinstate account' }).waitFor();
    expect(await admin.page.getByRole('status').textContent()).toContain('The account is suspended');
    await expectClean(admin, 'site-admin-user-suspended');

    // the member's browser is signed out at once, and the right password gets a clear refusal
    await member.page.goto(`${site.url}/settings`);
    expect(member.page.url()).toContain('/.auth/sign-in');
    await signIn(member, site.url, 'mira', 'mira password 1');
    await member.page.getByText('This account is suspended').waitFor();
    await expectClean(member, 'sign-in-suspended');

    await admin.page.goto(`${site.url}/site-admin/users`);
    const row = admin.page.getByRole('row').filter({ hasText: 'mira' });
    expect(await row.textContent()).toContain('Suspended');
    await expectClean(admin, 'site-admin-users-suspended-badge');

    // reinstate: no confirmation (it only gives back); the member signs in again
    await admin.page.getByRole('link', { name: 'mira', exact: true }).click();
    await admin.page.getByRole('button', { name: 'Reinstate account' }).click();
    await admin.page.waitForURL(/done=reinstated/);
    await signIn(member, site.url, 'mira', 'mira password 1');
    await member.page.waitForURL(`${site.url}/settings`);

    // end all sessions: asks, then the member's browser is signed out
    await admin.page.getByRole('link', { name: 'End all sessions' }).click();
    await expectClean(admin, 'site-admin-user-end-sessions-confirm');
    await admin.page.getByRole('button', { name: 'End all sessions' }).click();
    await admin.page.waitForURL(/done=sessions_ended/);
    await member.page.goto(`${site.url}/settings`);
    expect(member.page.url()).toContain('/.auth/sign-in');

    // revoke all tokens: asks, then says so
    await admin.page.getByRole('link', { name: 'Revoke all tokens' }).click();
    await expectClean(admin, 'site-admin-user-revoke-tokens-confirm');
    await admin.page.getByRole('button', { name: 'Revoke all tokens' }).click();
    await admin.page.waitForURL(/done=tokens_revoked/);
    expect(await admin.page.getByRole('status').textContent()).toContain('Every access token and OAuth token');

    // the only active site administrator: refused, with why
    await admin.page.goto(`${site.url}/site-admin/users`);
    await admin.page.getByRole('link', { name: 'admin', exact: true }).click();
    await admin.page.getByRole('link', { name: 'Suspend account' }).click();
    await admin.page.getByRole('button', { name: 'Suspend account' }).click();
    await admin.page.getByText('This is the only active site administrator').waitFor();
    await expectClean(admin, 'site-admin-user-suspend-last-admin');
    await member.context.close();
    await admin.context.close();
  }, 180_000);

  it('runs in CI', () => {
    expect(executablePath !== null || !IN_CI).toBe(true);
  });
});
