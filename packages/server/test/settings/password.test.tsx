/**
 * The password page (§5.3 "Built-in"): change the password with the current one, or set a first one; every other
 * session ends; each refusal changes nothing; without the `builtin` provider there is no form.
 */
import { describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH } from '../../../../src/core/password-policy.js';
import { settingsRoutes } from '../../src/settings/routes.js';
import { sessionDigestOf, verifyPassword } from '../../src/session/sessions.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

/** The `builtin` provider (the kit's default configuration nests `auth`, which the parser does not read). */
const BUILTIN = JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }] });
const OLD = 'correct horse';
const NEW = 'battery staple';

async function setup() {
  const kit = await pageKit({ configuration: BUILTIN });
  const alice = await kit.createUser('alice', { password: OLD });
  const routes = settingsRoutes(kit.deps);
  const browser = await kit.browser(alice);
  const other = await kit.browser(alice);
  const bob = await kit.createUser('bob', { password: OLD });
  await kit.browser(bob);
  return { kit, alice, bob, routes, browser, other };
}

describe('the password page', () => {
  it('shows the change form with the current password field, labelled', async () => {
    const { routes, browser } = await setup();
    const page = await callRoute(routes, browser.get('/settings/password'));
    const html = textOf(page);
    for (const id of ['current', 'password', 'confirm']) {
      expect(html).toContain(`<label for="${id}">`);
      expect(html).toMatch(new RegExp(`<input id="${id}" name="${id}" type="password"`));
    }
    expect(visibleText(page)).toContain('Change password');
  });

  it('changes the password, ends every other session of the account only, and audits it', async () => {
    const { kit, alice, bob, routes, browser } = await setup();
    const done = await callRoute(routes, browser.post('/settings/password', { current: OLD, password: NEW, confirm: NEW }));
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/settings/password?done=changed');
    const stored = await kit.store.accounts.get(alice.id);
    expect(await verifyPassword(NEW, stored?.passwordHash ?? '')).toBe(true);
    expect((await kit.store.sessions.list(alice.id)).map((s) => s.digest)).toEqual([sessionDigestOf(browser.get('/'))]);
    expect(await kit.store.sessions.list(bob.id)).toHaveLength(1);
    const entries = await kit.auditEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity: 'user.password', action: 'changed', actorUserId: alice.id, subjectUserId: alice.id, details: { otherSessionsEnded: '1' } });
    expect(JSON.stringify(entries)).not.toContain(NEW);
    const page = await callRoute(routes, browser.get('/settings/password?done=changed'));
    expect(visibleText(page)).toContain('Your password was changed.');
  });

  it('offers "Set a password" without the current field to an account without one, and sets it', async () => {
    const kit = await pageKit({ configuration: BUILTIN });
    const carol = await kit.createUser('carol');
    const routes = settingsRoutes(kit.deps);
    const browser = await kit.browser(carol);
    const page = await callRoute(routes, browser.get('/settings/password'));
    expect(visibleText(page)).toContain('Set a password');
    expect(textOf(page)).not.toContain('name="current"');
    expect((await callRoute(routes, browser.post('/settings/password', { password: NEW, confirm: NEW }))).status).toBe(303);
    expect(await verifyPassword(NEW, (await kit.store.accounts.get(carol.id))?.passwordHash ?? '')).toBe(true);
    expect((await kit.auditEntries())[0]).toMatchObject({ entity: 'user.password', action: 'changed', details: { otherSessionsEnded: '0' } });
  });

  it('refuses a wrong current password with 400, changes nothing, ends no session, and audits the failure', async () => {
    const { kit, alice, routes, browser } = await setup();
    const sessions = await kit.store.sessions.list(alice.id);
    const answer = await callRoute(routes, browser.post('/settings/password', { current: 'not it at all', password: NEW, confirm: NEW }));
    expect(answer.status).toBe(400);
    expect(visibleText(answer)).toContain('Your current password is not correct. Nothing was changed.');
    expect(textOf(answer)).not.toContain(NEW);
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
    expect(await kit.store.sessions.list(alice.id)).toEqual(sessions);
    const entries = await kit.auditEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity: 'user.password', action: 'change_failed', actorUserId: alice.id });
  });

  it.each([
    ['a short password', { current: OLD, password: 'short', confirm: 'short' }, `at least ${MIN_PASSWORD_LENGTH} characters`],
    ['a password over 1024 bytes', { current: OLD, password: 'é'.repeat(600), confirm: 'é'.repeat(600) }, 'at most 1024 bytes'],
    ['a confirmation that differs', { current: OLD, password: NEW, confirm: `${NEW}!` }, 'differ'],
    ['no current password', { password: NEW, confirm: NEW }, 'Enter your current password.'],
  ])('refuses %s with 400 and changes nothing', async (_name, fields, message) => {
    const { kit, alice, routes, browser } = await setup();
    const sessions = await kit.store.sessions.list(alice.id);
    const answer = await callRoute(routes, browser.post('/settings/password', fields));
    expect(answer.status).toBe(400);
    expect(visibleText(answer)).toContain(message);
    expect(textOf(answer)).toContain('role="alert"');
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
    expect(await kit.store.sessions.list(alice.id)).toEqual(sessions);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('throttles wrong current passwords like failed sign-ins: after five, the next is refused with 429 unchecked', async () => {
    const { kit, alice, routes, browser } = await setup();
    for (let i = 0; i < 5; i += 1) {
      expect((await callRoute(routes, browser.post('/settings/password', { current: `wrong ${i}`, password: NEW, confirm: NEW }))).status).toBe(400);
    }
    const throttled = await callRoute(routes, browser.post('/settings/password', { current: OLD, password: NEW, confirm: NEW }));
    expect(throttled.status).toBe(429);
    expect(throttled.headers['retry-after']).toMatch(/^\d+$/);
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
    kit.clock.advance(16 * 60_000);
    expect((await callRoute(routes, browser.post('/settings/password', { current: OLD, password: NEW, confirm: NEW }))).status).toBe(303);
  });

  it('explains that password sign-in is not configured, with no form, and refuses a post', async () => {
    const kit = await pageKit({ configuration: JSON.stringify({ 'auth.providers': [{ type: 'http-header', usernameHeader: 'X-User' }], trustedProxies: ['127.0.0.1'] }) });
    const alice = await kit.createUser('alice', { password: OLD });
    const routes = settingsRoutes(kit.deps);
    const browser = await kit.browser(alice);
    expect(kit.deps.configuration.authProviders.map((p) => p.type)).toEqual(['http-header']);
    const page = await callRoute(routes, browser.get('/settings/password'));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('Password sign-in is not configured');
    expect(textOf(page)).not.toContain('name="password"');
    const answer = await callRoute(routes, browser.post('/settings/password', { current: OLD, password: NEW, confirm: NEW }));
    expect(answer.status).toBe(403);
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
  });

  it('never gives a service account a password (§1: access tokens only), even posted by hand', async () => {
    const kit = await pageKit({ configuration: BUILTIN });
    const bot = (await kit.store.accounts.create({ usernames: ['ci-bot'], origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: 1 }))._unsafeUnwrap();
    const browser = await kit.browser(bot);
    const answer = await callRoute(settingsRoutes(kit.deps), browser.post('/settings/password', { password: NEW, confirm: NEW }));
    expect(answer.status).toBe(403);
    expect(await kit.store.accounts.get(bot.id)).toEqual(bot);
    expect(await kit.auditEntries()).toEqual([]);
  });
});
