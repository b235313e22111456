/**
 * Site administration, Users, one account's controls (`site-admin/account-controls.tsx`) as functions: the state
 * shown, the confirmation pages, suspend, reinstate, end all sessions and revoke all tokens, each audited, never
 * against the last active site administrator (409, nothing changed), and 403 for members.
 */
import { err } from 'neverthrow';
import { describe, expect, test } from 'vitest';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import type { Route, RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import type { UserRecord } from '../../src/store/types.js';
import { callRoute, pageKit, visibleText } from '../helpers/page-kit.js';
import type { KitBrowser, PageKit } from '../helpers/page-kit.js';

async function setup() {
  const kit = await pageKit();
  const routes: readonly Route[] = siteAdminRoutes({ ...kit.deps, registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }), rotateOAuthAppSecret: async () => err({ code: 'unused', message: 'unused' }) });
  const root = await kit.createUser('root', { siteAdmin: true });
  const alice = await kit.createUser('alice', { email: 'alice@example.com' });
  const browsers = new Map<string, KitBrowser>();
  const browserOf = async (user: UserRecord): Promise<KitBrowser> => {
    const known = browsers.get(user.id);
    if (known !== undefined) return known;
    const made = await kit.browser(user);
    browsers.set(user.id, made);
    return made;
  };
  const call = async (user: UserRecord, build: (b: KitBrowser) => RouteRequest): Promise<RouteResponse> => callRoute(routes, build(await browserOf(user)));
  return { kit, root, alice, call, browserOf };
}

async function snapshot(kit: PageKit) {
  const accounts = await kit.store.accounts.list({ first: 1000 });
  const perAccount = await Promise.all(accounts.map(async (a) => ({ a, tokens: (await kit.store.accessTokens.list(a.id)).length, sessions: (await kit.store.sessions.list(a.id)).length })));
  return { perAccount, audit: (await kit.auditEntries()).length };
}

describe('account controls pages', () => {
  test("an account's page shows its state and controls; suspend asks, then suspends and audits; reinstate gives back", async () => {
    const { kit, root, alice, call } = await setup();
    const page = visibleText(await call(root, (b) => b.get(`/site-admin/users/user?id=${alice.id}`)));
    expect(page).toContain('Account controls');
    expect(page).toContain('Active');
    expect(page).toContain('Suspend account');

    const asking = await call(root, (b) => b.get(`/site-admin/users/control?id=${alice.id}&control=suspend`));
    expect(asking.status).toBe(200);
    expect(visibleText(asking)).toContain('Suspend alice?');
    // asking changes nothing
    expect((await kit.store.accounts.get(alice.id))?.suspendedAt).toBeUndefined();

    const done = await call(root, (b) => b.post('/site-admin/users/control', { id: alice.id, control: 'suspend' }));
    expect({ status: done.status, location: done.headers['location'] }).toStrictEqual({ status: 303, location: `/site-admin/users/user?id=${alice.id}&done=suspended` });
    expect((await kit.store.accounts.get(alice.id))?.suspendedAt).toBe(kit.clock.now());
    const after = visibleText(await call(root, (b) => b.get(`/site-admin/users/user?id=${alice.id}&done=suspended`)));
    expect(after).toContain('The account is suspended');
    expect(after).toContain('Suspended since');
    expect(after).toContain('Reinstate account');
    expect(visibleText(await call(root, (b) => b.get('/site-admin/users')))).toMatch(/alice[^]*Suspended/u);

    const back = await call(root, (b) => b.post('/site-admin/users/control', { id: alice.id, control: 'reinstate' }));
    expect(back.headers['location']).toBe(`/site-admin/users/user?id=${alice.id}&done=reinstated`);
    expect(await kit.store.accounts.get(alice.id)).not.toHaveProperty('suspendedAt');
    const actions = (await kit.auditEntries()).filter((e) => e.entity === 'user').map((e) => [e.action, e.actorUserId, e.subjectUserId]);
    expect(actions).toStrictEqual(expect.arrayContaining([['suspended', root.id, alice.id], ['reinstated', root.id, alice.id]]));
  });

  test('end all sessions and revoke all tokens ask first, then remove what they name', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await browserOf(alice);
    await kit.store.accessTokens.create({ userId: alice.id, digest: 'd'.repeat(64), scopes: ['user:all'], note: 'n', createdAt: 0, expiresAt: null });
    for (const [control, text] of [['end_sessions', 'End every session of alice?'], ['revoke_tokens', 'Revoke every token of alice?']] as const) {
      expect(visibleText(await call(root, (b) => b.get(`/site-admin/users/control?id=${alice.id}&control=${control}`)))).toContain(text);
    }
    expect((await kit.store.sessions.list(alice.id)).length).toBeGreaterThan(0);
    await call(root, (b) => b.post('/site-admin/users/control', { id: alice.id, control: 'end_sessions' }));
    expect(await kit.store.sessions.list(alice.id)).toStrictEqual([]);
    await call(root, (b) => b.post('/site-admin/users/control', { id: alice.id, control: 'revoke_tokens' }));
    expect(await kit.store.accessTokens.list(alice.id)).toStrictEqual([]);
  });

  test('the last active site administrator is never suspended nor stripped (409, nothing changed); members get 403', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await browserOf(alice);
    await browserOf(root);
    const before = await snapshot(kit);
    for (const control of ['suspend', 'end_sessions', 'revoke_tokens']) {
      const refused = await call(root, (b) => b.post('/site-admin/users/control', { id: root.id, control }));
      expect(refused.status, control).toBe(409);
      expect(visibleText(refused)).toContain('This is the only active site administrator');
    }
    for (const control of ['suspend', 'reinstate']) expect((await call(alice, (b) => b.post('/site-admin/users/control', { id: root.id, control }))).status).toBe(403);
    expect((await call(alice, (b) => b.get(`/site-admin/users/control?id=${root.id}&control=suspend`))).status).toBe(403);
    expect(await snapshot(kit)).toStrictEqual(before);
  });

  test('an unknown control or account is refused clearly, changing nothing', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await browserOf(root);
    const before = await snapshot(kit);
    expect((await call(root, (b) => b.post('/site-admin/users/control', { id: alice.id, control: 'explode' }))).status).toBe(400);
    expect((await call(root, (b) => b.get(`/site-admin/users/control?id=${alice.id}&control=explode`))).status).toBe(400);
    expect((await call(root, (b) => b.post('/site-admin/users/control', { id: '999999', control: 'suspend' }))).status).toBe(404);
    expect((await call(root, (b) => b.get('/site-admin/users/control?id=999999&control=suspend'))).status).toBe(404);
    expect(await snapshot(kit)).toStrictEqual(before);
  });
});
