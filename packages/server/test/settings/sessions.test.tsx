/**
 * The sessions page: the account's browser sessions with their browser, creation and last activity; one other
 * session or all others signed out; the current one only through "Sign out".
 */
import { describe, expect, it } from 'vitest';
import { settingsRoutes } from '../../src/settings/routes.js';
import { sessionDigestOf, SESSION_COOKIE } from '../../src/session/sessions.js';
import { callRoute, pageKit, textOf, visibleText, type PageKit } from '../helpers/page-kit.js';
import type { UserRecord } from '../../src/store/types.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** A session of `user` started by a browser sending `userAgent`, as the session layer starts one; its digest. */
async function sessionWith(kit: PageKit, user: UserRecord, userAgent: string): Promise<string> {
  const started = await kit.deps.sessions.startCookie({ headers: { 'user-agent': userAgent } }, user.id);
  return sessionDigestOf({ headers: { cookie: `${SESSION_COOKIE}=${started?.value ?? ''}` } }) ?? '';
}

async function setup() {
  const kit = await pageKit();
  const alice = await kit.createUser('alice');
  const bob = await kit.createUser('bob');
  const routes = settingsRoutes(kit.deps);
  const browser = await kit.browser(alice);
  const current = sessionDigestOf(browser.get('/')) ?? '';
  kit.clock.advance(60_000);
  const firefox = await sessionWith(kit, alice, FIREFOX);
  kit.clock.advance(60_000);
  const chrome = await sessionWith(kit, alice, CHROME_MAC);
  const bobs = await sessionWith(kit, bob, FIREFOX);
  return { kit, alice, bob, routes, browser, current, firefox, chrome, bobs };
}

const digests = async (kit: PageKit, user: UserRecord): Promise<string[]> => (await kit.store.sessions.list(user.id)).map((s) => s.digest).sort();

describe('the sessions page', () => {
  it('lists the sessions with browser, raw user agent, times, and marks this one', async () => {
    const { kit, routes, browser, current, firefox, chrome, bobs } = await setup();
    kit.clock.advance(5 * 60_000);
    await kit.store.sessions.touch(firefox, kit.clock.now());
    const page = await callRoute(routes, browser.get('/settings/sessions'));
    expect(page.status).toBe(200);
    const text = visibleText(page);
    expect(text).toContain(`Firefox on Linux Full user agent ${FIREFOX} 2023-11-14 22:14 UTC 2023-11-14 22:20 UTC Revoke`);
    expect(text).toContain(`Chrome on macOS Full user agent ${CHROME_MAC} 2023-11-14 22:15 UTC 2023-11-14 22:15 UTC Revoke`);
    expect(text).toContain('Unknown browser This session No user agent sent');
    const html = textOf(page);
    expect(html).toContain(`<input type="hidden" name="session" value="${firefox}"/>`);
    expect(html).toContain(`<input type="hidden" name="session" value="${chrome}"/>`);
    expect(html).not.toContain(`value="${current}"`);
    expect(html).not.toContain(bobs);
    expect(html).toContain('<form method="post" action="/settings/sessions/revoke-others"');
    expect(text).toContain('Sign out all other sessions');
    expect(html).toContain('<th scope="col">Last seen</th>');
  });

  it('revokes one other session, audits it, and says so', async () => {
    const { kit, alice, bob, routes, browser, current, firefox, chrome } = await setup();
    const bobsBefore = await digests(kit, bob);
    const done = await callRoute(routes, browser.post('/settings/sessions/revoke', { session: firefox }));
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/settings/sessions?done=revoked');
    expect(await digests(kit, alice)).toEqual([current, chrome].sort());
    expect(await digests(kit, bob)).toEqual(bobsBefore);
    const entries = await kit.auditEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity: 'user.session', action: 'revoked', actorUserId: alice.id, subjectUserId: alice.id, details: { count: '1' } });
    expect(visibleText(await callRoute(routes, browser.get('/settings/sessions?done=revoked')))).toContain('The session was signed out.');
  });

  it('signs out every other session, keeps this one, and audits the count', async () => {
    const { kit, alice, bob, routes, browser, current } = await setup();
    const bobsBefore = await digests(kit, bob);
    const done = await callRoute(routes, browser.post('/settings/sessions/revoke-others', {}));
    expect(done.headers['location']).toBe('/settings/sessions?done=others');
    expect(await digests(kit, alice)).toEqual([current]);
    expect(await digests(kit, bob)).toEqual(bobsBefore);
    expect((await kit.auditEntries())[0]).toMatchObject({ entity: 'user.session', action: 'revoked', details: { count: '2' } });
    const page = await callRoute(routes, browser.get('/settings/sessions?done=others'));
    expect(visibleText(page)).toContain('All your other sessions were signed out.');
    expect(visibleText(page)).not.toContain('Sign out all other sessions');
    expect((await callRoute(routes, browser.post('/settings/sessions/revoke-others', {}))).headers['location']).toBe('/settings/sessions?done=none');
    expect(await kit.auditEntries()).toHaveLength(1);
  });

  it("answers 404 for another account's session or an unknown digest, and signs out nothing", async () => {
    const { kit, alice, bob, routes, browser, bobs } = await setup();
    const before = [await digests(kit, alice), await digests(kit, bob)];
    for (const session of [bobs, 'f'.repeat(64), '']) {
      const answer = await callRoute(routes, browser.post('/settings/sessions/revoke', { session }));
      expect(answer.status).toBe(404);
      expect(visibleText(answer)).toContain('There is no such session among yours.');
    }
    expect([await digests(kit, alice), await digests(kit, bob)]).toEqual(before);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('refuses to revoke the current session through the form (400: use Sign out)', async () => {
    const { kit, alice, routes, browser, current } = await setup();
    const before = await digests(kit, alice);
    const answer = await callRoute(routes, browser.post('/settings/sessions/revoke', { session: current }));
    expect(answer.status).toBe(400);
    expect(visibleText(answer)).toContain('use Sign out');
    expect(await digests(kit, alice)).toEqual(before);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('leaves out expired sessions', async () => {
    const { kit, routes, firefox } = await setup();
    kit.clock.advance(8 * 24 * 3600 * 1000);
    const alice = await kit.store.accounts.findByUsernameKey('alice');
    const fresh = await kit.browser(alice);
    const page = textOf(await callRoute(routes, fresh.get('/settings/sessions')));
    expect(page).not.toContain(firefox);
    expect(page).toContain('This session');
  });
});
