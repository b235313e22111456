/**
 * Site administration, Users (`site-admin/users.tsx`) as functions: search and pagination, creating an account
 * (§5.3 hosta rule 2, §5.5 rule 7), granting and revoking site administration and deleting an account, never the
 * last site administrator (`core/site-admin.ts`).
 */
import { err } from 'neverthrow';
import { describe, expect, test } from 'vitest';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import type { Route, RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import type { UserRecord } from '../../src/store/types.js';
import { callRoute, KIT_START, pageKit, textOf, visibleText } from '../helpers/page-kit.js';
import type { KitBrowser, PageKit } from '../helpers/page-kit.js';

async function setup() {
  const kit = await pageKit();
  const routes: readonly Route[] = siteAdminRoutes({ ...kit.deps, registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }), rotateOAuthAppSecret: async () => err({ code: 'unused', message: 'unused' }) });
  const root = await kit.createUser('root', { siteAdmin: true });
  const alice = await kit.createUser('alice', { email: 'alice@example.com' });
  // one browser (one session) per account, so a page visit adds no session to the state a test compares
  const browsers = new Map<string, KitBrowser>();
  const browserOf = async (user: UserRecord | null): Promise<KitBrowser> => {
    const key = user?.id ?? '';
    const known = browsers.get(key);
    if (known !== undefined) return known;
    const made = await kit.browser(user);
    browsers.set(key, made);
    return made;
  };
  const call = async (user: UserRecord | null, build: (b: KitBrowser) => RouteRequest): Promise<RouteResponse> => callRoute(routes, build(await browserOf(user)));
  return { kit, routes, root, alice, call, browserOf };
}

/** Everything a page could change: accounts, tokens, sessions and the audit log. */
async function snapshot(kit: PageKit) {
  const accounts = await kit.store.accounts.list({ first: 1000 });
  const perAccount = await Promise.all(
    accounts.map(async (a) => ({ a, tokens: await kit.store.accessTokens.list(a.id), sessions: (await kit.store.sessions.list(a.id)).length })),
  );
  return { perAccount, audit: (await kit.auditEntries()).length };
}

/** The accounts a Users page lists (name and id), and its pager's links. */
function listed(page: RouteResponse): { users: { id: string; username: string }[]; next: string | null; first: string | null } {
  const html = textOf(page);
  const users = [...html.matchAll(/<a href="\/site-admin\/users\/user\?id=([^"]+)">([^<]+)<\/a>/g)].map((m) => ({ id: m[1] ?? '', username: m[2] ?? '' }));
  const link = (label: string) => {
    const found = new RegExp(`<a href="([^"]+)">${label}</a>`).exec(html)?.[1];
    return found === undefined ? null : found.replaceAll('&amp;', '&');
  };
  return { users, next: link('Next page'), first: link('First page') };
}

describe('site administration routes', () => {
  test('GET /site-admin redirects a site administrator to the Users page', async () => {
    const { root, call } = await setup();
    const answer = await call(root, (b) => b.get('/site-admin'));
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({ status: 303, location: '/site-admin/users' });
  });

  test('a member gets 403 on every page and every form, and nothing changes', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await browserOf(alice);
    const before = await snapshot(kit);
    const gets = ['/site-admin', '/site-admin/users', `/site-admin/users/user?id=${root.id}`, `/site-admin/users/delete?id=${root.id}`];
    const posts: [string, Record<string, string>][] = [
      ['/site-admin/users', { username: 'mallory', email: '', verified: 'true' }],
      ['/site-admin/users/site-admin', { id: alice.id, siteAdmin: 'true' }],
      ['/site-admin/users/site-admin', { id: root.id, siteAdmin: 'false' }],
      ['/site-admin/users/delete', { id: root.id }],
    ];
    for (const path of gets) expect((await call(alice, (b) => b.get(path))).status, path).toBe(403);
    for (const [path, fields] of posts) {
      const answer = await call(alice, (b) => b.post(path, fields));
      expect(answer.status, path).toBe(403);
      expect(visibleText(answer)).toContain('Only site administrators may open this page.');
    }
    expect(await snapshot(kit)).toStrictEqual(before);
  });

  test('a signed-out visitor is sent to sign in', async () => {
    const { call } = await setup();
    const answer = await call(null, (b) => b.get('/site-admin/users'));
    expect(answer.status).toBe(303);
    expect(answer.headers['location']).toBe('/.auth/sign-in?returnTo=%2Fsite-admin%2Fusers');
  });
});

describe('Users page: search and pagination', () => {
  test('lists every account exactly once across pages of 25, with First page and Next page links', async () => {
    const { kit, root, call } = await setup();
    for (let i = 0; i < 60; i += 1) await kit.createUser(`user-${String(i).padStart(2, '0')}`);
    const seen: string[] = [];
    let path: string | null = '/site-admin/users';
    let pages = 0;
    while (path !== null) {
      const current: string = path;
      const page = await call(root, (b) => b.get(current));
      expect(page.status).toBe(200);
      const { users, next, first } = listed(page);
      expect(users.length).toBe(pages < 2 ? 25 : 12);
      expect(first).toBe(pages === 0 ? null : '/site-admin/users');
      seen.push(...users.map((u) => u.username));
      path = next;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen.length).toBe(62);
    expect(new Set(seen).size).toBe(62);
    expect(seen.slice(0, 3)).toStrictEqual(['root', 'alice', 'user-00']);
  });

  test('searches by username, keeps the search in the pager, and says when nothing matches', async () => {
    const { kit, root, call } = await setup();
    for (let i = 0; i < 60; i += 1) await kit.createUser(`user-${String(i).padStart(2, '0')}`);
    const page = await call(root, (b) => b.get('/site-admin/users?q=USER-1'));
    expect(listed(page).users.map((u) => u.username)).toStrictEqual(Array.from({ length: 10 }, (_, i) => `user-1${i}`));
    expect(listed(page).next).toBeNull();
    expect(textOf(page)).toContain('value="USER-1"');
    const wide = listed(await call(root, (b) => b.get('/site-admin/users?q=user')));
    expect(wide.next).toMatch(/^\/site-admin\/users\?q=user&after=/);
    const second = listed(await call(root, (b) => b.get(wide.next ?? '')));
    expect(second.users[0]?.username).toBe('user-25');
    expect(second.first).toBe('/site-admin/users?q=user');
    expect(visibleText(await call(root, (b) => b.get('/site-admin/users?q=nobody')))).toContain('No account\'s username contains the search text.');
  });

  test('shows emails and the Site admin and Service account badges', async () => {
    const { kit, root, call } = await setup();
    await kit.store.accounts.create({
      usernames: ['ci-bot'], origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: KIT_START,
    });
    const text = visibleText(await call(root, (b) => b.get('/site-admin/users')));
    expect(text).toContain('root none Site admin');
    expect(text).toContain('alice alice@example.com');
    expect(text).toContain('ci-bot none Service account');
  });

  test('refuses an overlong search or a malformed cursor with 400', async () => {
    const { root, call } = await setup();
    const long = await call(root, (b) => b.get(`/site-admin/users?q=${'a'.repeat(101)}`));
    expect(long.status).toBe(400);
    expect(visibleText(long)).toContain('A search is at most 100 characters long.');
    expect((await call(root, (b) => b.get(`/site-admin/users?after=${'9'.repeat(300)}`))).status).toBe(400);
  });
});

describe('Users page: create an account', () => {
  test('creates an admin_created account with a verified email, audited, and shows its page', async () => {
    const { kit, root, call } = await setup();
    const answer = await call(root, (b) => b.post('/site-admin/users', { username: 'carol', email: 'carol@example.com', verified: 'true' }));
    expect(answer.status).toBe(303);
    const carol = await kit.store.accounts.findByVerifiedEmailKey('carol@example.com');
    expect(carol).toMatchObject({ username: 'carol', origin: 'admin_created', siteAdmin: false, serviceAccount: false, passwordHash: null });
    expect(answer.headers['location']).toBe(`/site-admin/users/user?id=${carol?.id}&done=created`);
    const page = await call(root, (b) => b.get(answer.headers['location'] ?? ''));
    expect(visibleText(page)).toContain('The account carol was created.');
    expect((await kit.auditEntries()).at(-1)).toMatchObject({
      entity: 'user', action: 'created', reason: 'created by a site administrator', actorUserId: root.id, subjectUserId: carol?.id, details: {},
    });
  });

  test('leaves the email unverified when the box is not checked, and takes no email at all', async () => {
    const { kit, root, call } = await setup();
    await call(root, (b) => b.post('/site-admin/users', { username: 'dave', email: 'dave@example.com' }));
    await call(root, (b) => b.post('/site-admin/users', { username: 'erin', email: '', verified: 'true' }));
    const dave = await kit.store.accounts.list({ first: 10, query: 'dave' });
    const erin = await kit.store.accounts.list({ first: 10, query: 'erin' });
    expect(dave[0]?.emails).toStrictEqual([{ email: 'dave@example.com', verified: false }]);
    expect(erin[0]?.emails).toStrictEqual([]);
  });

  test.each([
    { ref: '§5.5 rule 7: a username breaking the rules', fields: { username: '-bad..name' }, status: 400, text: 'A username cannot start with "." or "-".' },
    { ref: '§5.5 rule 7: an @ in a username', fields: { username: 'a@b' }, status: 400, text: 'A username cannot contain "@".' },
    { ref: 'an empty username', fields: { username: '' }, status: 400, text: 'Enter a username.' },
    { ref: 'a taken username (any case)', fields: { username: 'ALICE' }, status: 409, text: 'The username "ALICE" is taken.' },
    { ref: 'a malformed email', fields: { username: 'frank', email: 'not an email' }, status: 400, text: 'Enter an email address' },
    { ref: 'an email verified on another account', fields: { username: 'frank', email: 'root@example.com', verified: 'true' }, status: 409, text: 'verified on another account' },
  ])('refuses $ref, shows what was typed and creates nothing', async ({ fields, status, text }) => {
    const { kit, root, call, browserOf } = await setup();
    await browserOf(root);
    await kit.store.accounts.create({
      usernames: ['holder'], origin: 'seeded', siteAdmin: false, serviceAccount: false, emails: [{ email: 'root@example.com', verified: true }], passwordHash: null, createdAt: KIT_START,
    });
    const before = await snapshot(kit);
    const answer = await call(root, (b) => b.post('/site-admin/users', fields));
    expect(answer.status).toBe(status);
    expect(visibleText(answer)).toContain(text);
    expect(/<input id="create-username"[^>]*value="([^"]*)"/.exec(textOf(answer))?.[1]).toBe(fields.username);
    expect(await snapshot(kit)).toStrictEqual(before);
  });
});

describe('User page', () => {
  test('shows the facts, linked identities, token and session counts, and the forms', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await kit.store.accounts.link({ userId: alice.id, serviceType: 'hosta', serviceId: 'https://hosta.example.com/', accountId: '4242', createdAt: KIT_START });
    await browserOf(alice);
    const page = await call(root, (b) => b.get(`/site-admin/users/user?id=${alice.id}`));
    expect(page.status).toBe(200);
    const text = visibleText(page);
    expect(text).toContain(`Username alice ID ${alice.id} Origin Signed up with a password`);
    expect(text).toContain('alice@example.com not verified');
    expect(text).toContain('Site administrator No Service account No Access tokens 0 Sessions 1');
    expect(text).toContain('hosta https://hosta.example.com/ 4242 2023-11-14 22:13 UTC');
    expect(text).toContain('Make site administrator');
    expect(textOf(page)).toContain(`href="/site-admin/users/delete?id=${alice.id}"`);
  });

  test('answers 404 for an unknown or missing id', async () => {
    const { root, call } = await setup();
    expect((await call(root, (b) => b.get('/site-admin/users/user?id=999'))).status).toBe(404);
    expect((await call(root, (b) => b.get('/site-admin/users/user'))).status).toBe(404);
  });
});

describe('granting and revoking site administration', () => {
  test('grants and revokes, each audited, with a notice after the redirect', async () => {
    const { kit, root, alice, call } = await setup();
    const granted = await call(root, (b) => b.post('/site-admin/users/site-admin', { id: alice.id, siteAdmin: 'true' }));
    expect(granted.headers['location']).toBe(`/site-admin/users/user?id=${alice.id}&done=granted`);
    expect((await kit.store.accounts.get(alice.id))?.siteAdmin).toBe(true);
    expect(visibleText(await call(root, (b) => b.get(granted.headers['location'] ?? '')))).toContain('alice is now a site administrator.');
    const revoked = await call(root, (b) => b.post('/site-admin/users/site-admin', { id: alice.id, siteAdmin: 'false' }));
    expect(revoked.headers['location']).toBe(`/site-admin/users/user?id=${alice.id}&done=revoked`);
    expect((await kit.store.accounts.get(alice.id))?.siteAdmin).toBe(false);
    const entries = (await kit.auditEntries()).slice(-2).map((e) => ({ entity: e.entity, action: e.action, actor: e.actorUserId, subject: e.subjectUserId }));
    expect(entries).toStrictEqual([
      { entity: 'user', action: 'site_admin_granted', actor: root.id, subject: alice.id },
      { entity: 'user', action: 'site_admin_revoked', actor: root.id, subject: alice.id },
    ]);
  });

  test('refuses to demote the last site administrator with 409 and changes nothing', async () => {
    const { kit, root, call, browserOf } = await setup();
    await browserOf(root);
    const before = await snapshot(kit);
    const answer = await call(root, (b) => b.post('/site-admin/users/site-admin', { id: root.id, siteAdmin: 'false' }));
    expect(answer.status).toBe(409);
    expect(visibleText(answer)).toContain('This is the only site administrator');
    expect(visibleText(answer)).toContain('Remove site administrator');
    expect((await kit.store.accounts.get(root.id))?.siteAdmin).toBe(true);
    const after = await snapshot(kit);
    expect(after.audit).toBe(before.audit);
  });

  test('of two site administrators demoting each other at once, exactly one succeeds', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await kit.store.accounts.setSiteAdmin(alice.id, true);
    await browserOf(root);
    await browserOf(alice);
    const answers = await Promise.all([
      call(root, (b) => b.post('/site-admin/users/site-admin', { id: alice.id, siteAdmin: 'false' })),
      call(alice, (b) => b.post('/site-admin/users/site-admin', { id: root.id, siteAdmin: 'false' })),
    ]);
    expect(answers.map((a) => a.status).sort()).toStrictEqual([303, 409]);
    expect(await kit.store.accounts.countSiteAdmins()).toBe(1);
    expect((await kit.auditEntries()).filter((e) => e.action === 'site_admin_revoked').length).toBe(1);
  });

  test('a site administrator may remove their own role while another remains, and goes to their settings', async () => {
    const { kit, root, alice, call } = await setup();
    await kit.store.accounts.setSiteAdmin(alice.id, true);
    const answer = await call(root, (b) => b.post('/site-admin/users/site-admin', { id: root.id, siteAdmin: 'false' }));
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({ status: 303, location: '/settings' });
    expect((await kit.store.accounts.get(root.id))?.siteAdmin).toBe(false);
  });

  test('refuses a value other than true or false, and an unknown account', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await browserOf(root);
    const before = await snapshot(kit);
    expect((await call(root, (b) => b.post('/site-admin/users/site-admin', { id: alice.id, siteAdmin: 'yes' }))).status).toBe(400);
    expect((await call(root, (b) => b.post('/site-admin/users/site-admin', { id: '999', siteAdmin: 'true' }))).status).toBe(404);
    expect((await snapshot(kit)).audit).toBe(before.audit);
  });
});

describe('deleting an account', () => {
  test('asks first, then deletes the account with its tokens and sessions, audited', async () => {
    const { kit, root, alice, call, browserOf } = await setup();
    await kit.store.accessTokens.create({ userId: alice.id, digest: 'a'.repeat(64), scopes: ['user:all'], note: 'ci', createdAt: KIT_START, expiresAt: null });
    const aliceBrowser = await browserOf(alice);
    const confirm = await call(root, (b) => b.get(`/site-admin/users/delete?id=${alice.id}`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toContain('Delete alice? Their access tokens, sessions and OAuth tokens are deleted with the account.');
    expect(textOf(confirm)).toContain('<form method="post" action="/site-admin/users/delete"');
    expect(await kit.store.accounts.get(alice.id)).not.toBeNull();
    const answer = await call(root, (b) => b.post('/site-admin/users/delete', { id: alice.id }));
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({ status: 303, location: '/site-admin/users?done=deleted' });
    expect(await kit.store.accounts.get(alice.id)).toBeNull();
    expect(await kit.store.accessTokens.list(alice.id)).toStrictEqual([]);
    expect(await kit.store.sessions.list(alice.id)).toStrictEqual([]);
    expect(await kit.deps.currentUser(aliceBrowser.get('/settings'))).toBeNull();
    expect((await kit.auditEntries()).at(-1)).toMatchObject({ entity: 'user', action: 'deleted', actorUserId: root.id, subjectUserId: alice.id, details: { username: 'alice' } });
    expect(visibleText(await call(root, (b) => b.get('/site-admin/users?done=deleted')))).toContain('The account was deleted');
  });

  test('refuses to delete the last site administrator with 409 on the user page and changes nothing', async () => {
    const { kit, root, call, browserOf } = await setup();
    await browserOf(root);
    const before = await snapshot(kit);
    const answer = await call(root, (b) => b.post('/site-admin/users/delete', { id: root.id }));
    expect(answer.status).toBe(409);
    expect(visibleText(answer)).toContain('This is the only site administrator');
    expect(visibleText(answer)).toContain('Username root');
    const after = await snapshot(kit);
    expect(after.audit).toBe(before.audit);
    expect(await kit.store.accounts.get(root.id)).not.toBeNull();
  });

  test('a site administrator may delete their own account while another remains: signed out, sent to sign in', async () => {
    const { kit, root, alice, call } = await setup();
    await kit.store.accounts.setSiteAdmin(alice.id, true);
    const confirm = await call(root, (b) => b.get(`/site-admin/users/delete?id=${root.id}`));
    expect(visibleText(confirm)).toContain('This is your own account: you will be signed out.');
    const answer = await call(root, (b) => b.post('/site-admin/users/delete', { id: root.id }));
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({ status: 303, location: '/.auth/sign-in' });
    expect(answer.cookies?.find((c) => c.name === SESSION_COOKIE)).toMatchObject({ value: '', maxAgeSeconds: 0 });
    expect(await kit.store.accounts.get(root.id)).toBeNull();
  });

  test('answers 404 for an unknown account, on the confirmation page and the form', async () => {
    const { kit, root, call, browserOf } = await setup();
    await browserOf(root);
    const before = await snapshot(kit);
    expect((await call(root, (b) => b.get('/site-admin/users/delete?id=999'))).status).toBe(404);
    expect((await call(root, (b) => b.post('/site-admin/users/delete', { id: '999' }))).status).toBe(404);
    expect(await snapshot(kit)).toStrictEqual(before);
  });
});
