/**
 * Account lockout (the site option `auth.lockout`) at the password sign-in route, on Site admin → Users and through
 * the GraphQL mutation `unlockUser`: handlers as functions over a memory store and a clock the test moves, and the
 * mutation on a real server.
 */
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../../src/core/site-configuration/parse.js';
import type { LockoutPolicy } from '../../../../src/core/sign-in/lockout.js';
import { passwordHandlers } from '../../src/sign-in/password.js';
import type { RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import { hashPassword } from '../../src/session/sessions.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';
import { gql, startServer } from '../helpers/server.js';
import { siteAdminKit } from '../site-admin/site-admin-kit.js';

const MINUTE = 60_000;

async function lockoutKit(lockout?: LockoutPolicy) {
  const kit = await pageKit();
  const locked: { userId: string; lockedUntil: number }[] = [];
  const handlers = passwordHandlers({
    store: kit.store,
    now: kit.clock.now,
    randomBytes: kit.deps.randomBytes,
    builtin: { type: 'builtin', allowSignup: true },
    audit: kit.deps.audit,
    origin: 'http://gatehouse.test',
    sessions: kit.deps.sessions,
    proxy: null,
    // the per-username throttle stays; its waits are crossed by moving the clock a minute between attempts
    ...(lockout === undefined ? {} : { lockout }),
    onLocked: async (user, lockedUntil) => void locked.push({ userId: user.id, lockedUntil }),
  });
  const alice = await kit.createUser('alice', { password: 'correct horse' });
  const signIn = async (username: string, password: string): Promise<{ status: number; code: string | null; body: string }> => {
    kit.clock.advance(MINUTE);
    const request: RouteRequest = {
      method: 'POST',
      url: new URL('/.auth/sign-in', 'http://gatehouse.test'),
      headers: { 'content-type': 'application/json', origin: 'http://gatehouse.test' },
      headersDistinct: {},
      cookies: new Map(),
      clientAddress: '127.0.0.1',
      requestId: 't',
      body: JSON.stringify({ username, password }),
    };
    const answer: RouteResponse = await handlers.signIn(request);
    const parsed = JSON.parse(textOf(answer)) as { error?: { code?: string } };
    return { status: answer.status, code: parsed.error?.code ?? null, body: textOf(answer) };
  };
  return { kit, handlers, alice, signIn, locked };
}

describe('auth.lockout at the password sign-in', () => {
  it('should lock on the 5th failure in a row (defaults), refuse even the right password with the same answer, and tell the owner once', async () => {
    const { kit, alice, signIn, locked } = await lockoutKit();
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await signIn('alice', 'wrong password'));
    expect(answers.map((a) => [a.status, a.code])).toStrictEqual([
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
      [403, 'account_locked'],
    ]);
    const fifthAt = kit.clock.now();
    // the owner is told after the answer
    await new Promise((resolve) => setImmediate(resolve));
    expect(locked).toStrictEqual([{ userId: alice.id, lockedUntil: fifthAt + 1800 * 1000 }]);
    const right = await signIn('alice', 'correct horse');
    const wrong = await signIn('alice', 'still wrong');
    expect(right).toStrictEqual(wrong);
    expect(right.code).toBe('account_locked');
    expect(JSON.parse(right.body)).toMatchObject({ error: { message: expect.stringContaining('locked') } });
    // attempts while locked neither extend the lock nor tell the owner again
    expect(locked).toHaveLength(1);
    expect(await kit.store.lockouts.get(alice.id)).toStrictEqual({ userId: alice.id, failures: 0, lastFailureAt: null, lockedUntil: fifthAt + 1800 * 1000 });
    const entries = (await kit.auditEntries()).map((e) => [e.entity, e.action, e.reason, e.subjectUserId]);
    expect(entries).toStrictEqual([
      ...Array.from({ length: 5 }, () => ['auth.session', 'failed', 'invalid username or password', alice.id]),
      ['user', 'locked', '5 failed password sign-ins', alice.id],
      ['auth.session', 'failed', 'account locked', alice.id],
      ['auth.session', 'failed', 'account locked', alice.id],
    ]);
  });

  it('should answer a username without an account exactly as an existing account, lock included (no enumeration)', async () => {
    const { kit, signIn, locked } = await lockoutKit();
    const existing = [];
    const missing = [];
    for (let i = 0; i < 7; i += 1) existing.push(await signIn('alice', 'wrong password'));
    for (let i = 0; i < 7; i += 1) missing.push(await signIn('nobody', 'wrong password'));
    expect(missing).toStrictEqual(existing);
    expect(missing.map((a) => a.status)).toStrictEqual([401, 401, 401, 401, 403, 403, 403]);
    await new Promise((resolve) => setImmediate(resolve));
    // only the account's owner is told; the name's lock ends like an account's
    expect(locked).toHaveLength(1);
    kit.clock.advance(1800 * 1000);
    expect((await signIn('nobody', 'wrong password')).code).toBe('invalid_credentials');
  });

  it('should let the right password in once the 1800 s have passed, and forget the failures', async () => {
    const { kit, alice, signIn } = await lockoutKit();
    for (let i = 0; i < 5; i += 1) await signIn('alice', 'wrong password');
    kit.clock.advance(1800 * 1000 - MINUTE - 1);
    expect((await signIn('alice', 'correct horse')).code).toBe('account_locked');
    kit.clock.advance(1);
    expect((await signIn('alice', 'correct horse')).status).toBe(200);
    expect(await kit.store.lockouts.get(alice.id)).toBeNull();
  });

  it('should start the count again after a success and after a gap longer than consecutivePeriod', async () => {
    const { kit, signIn } = await lockoutKit();
    for (let i = 0; i < 4; i += 1) await signIn('alice', 'wrong password');
    expect((await signIn('alice', 'correct horse')).status).toBe(200);
    for (let i = 0; i < 4; i += 1) await signIn('alice', 'wrong password');
    kit.clock.advance(3600 * 1000);
    expect((await signIn('alice', 'wrong password')).code).toBe('invalid_credentials');
  });

  it('should follow the configured policy (threshold 2, 60 s)', async () => {
    const { kit, signIn } = await lockoutKit({ failedAttemptThreshold: 2, lockoutPeriod: 60, consecutivePeriod: 3600 });
    expect((await signIn('alice', 'wrong')).code).toBe('invalid_credentials');
    expect((await signIn('alice', 'wrong')).code).toBe('account_locked');
    kit.clock.advance(1);
    expect((await signIn('alice', 'correct horse')).status).toBe(200);
  });

  it('should keep the per-username throttle: quick failures are throttled (429) before the lock', async () => {
    const { kit, handlers } = await lockoutKit();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      const answer = await handlers.signIn({
        method: 'POST',
        url: new URL('/.auth/sign-in', 'http://gatehouse.test'),
        headers: { 'content-type': 'application/json', origin: 'http://gatehouse.test' },
        headersDistinct: {},
        cookies: new Map(),
        clientAddress: '127.0.0.1',
        requestId: 't',
        body: JSON.stringify({ username: 'alice', password: 'wrong' }),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toStrictEqual([401, 401, 401, 401, 403, 429, 429]);
    expect(kit.clock.now()).toBe(1_700_000_000_000);
  });
});

describe('unlock from Site admin → Users', () => {
  it('should show the lock on the account\'s page, unlock with the button, and audit it', async () => {
    const { kit, deps, routes, admin, member } = await siteAdminKit();
    await kit.store.lockouts.put({ userId: member.id, failures: 0, lastFailureAt: null, lockedUntil: kit.clock.now() + 1800 * 1000 });
    const browser = await kit.browser(admin);
    const page = await callRoute(routes, browser.get(`/site-admin/users/user?id=${member.id}`));
    expect(visibleText(page)).toContain('Locked until');
    expect(textOf(page)).toContain('Unlock account');
    const unlocked = await callRoute(routes, browser.post('/site-admin/users/unlock', { id: member.id }));
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers['location']).toBe(`/site-admin/users/user?id=${member.id}&done=unlocked`);
    expect(await kit.store.lockouts.get(member.id)).toBeNull();
    const after = await callRoute(routes, browser.get(`/site-admin/users/user?id=${member.id}&done=unlocked`));
    expect(visibleText(after)).toContain('alice is unlocked.');
    expect(textOf(after)).not.toContain('Unlock account');
    const entry = (await kit.auditEntries()).at(-1);
    expect(entry).toMatchObject({ entity: 'user', action: 'unlocked', actorUserId: admin.id, subjectUserId: member.id, details: { wasLocked: 'true' } });
    expect(deps.passwordResetLink).toBeUndefined();
  });

  it('should show Locked with its end and an Unlock button on the Users list, for the locked account only', async () => {
    const { kit, routes, admin, member } = await siteAdminKit();
    const until = kit.clock.now() + 1800 * 1000;
    await kit.store.lockouts.put({ userId: member.id, failures: 0, lastFailureAt: null, lockedUntil: until });
    // a lock that has ended is not shown
    await kit.store.lockouts.put({ userId: admin.id, failures: 0, lastFailureAt: null, lockedUntil: kit.clock.now() - 1 });
    const browser = await kit.browser(admin);
    const list = await callRoute(routes, browser.get('/site-admin/users'));
    const rows = visibleText(list);
    expect(rows.match(/Locked until/gu)?.length).toBe(1);
    expect(textOf(list)).toContain(`aria-label="Unlock ${member.username}"`);
    expect(textOf(list)).not.toContain(`aria-label="Unlock ${admin.username}"`);
    const unlocked = await callRoute(routes, browser.post('/site-admin/users/unlock', { id: member.id }));
    expect(unlocked.status).toBe(303);
    const after = await callRoute(routes, browser.get('/site-admin/users'));
    expect(visibleText(after)).not.toContain('Locked until');
  });

  it('should refuse a member (403) and an unknown account (404), changing nothing', async () => {
    const { kit, routes, member } = await siteAdminKit();
    await kit.store.lockouts.put({ userId: member.id, failures: 0, lastFailureAt: null, lockedUntil: kit.clock.now() + 1000 });
    const asMember = await callRoute(routes, (await kit.browser(member)).post('/site-admin/users/unlock', { id: member.id }));
    expect(asMember.status).toBe(403);
    const admin = await kit.createUser('root2', { siteAdmin: true });
    const unknown = await callRoute(routes, (await kit.browser(admin)).post('/site-admin/users/unlock', { id: '999999' }));
    expect(unknown.status).toBe(404);
    expect(await kit.store.lockouts.get(member.id)).not.toBeNull();
  });
});

describe('unlockUser(user: ID!)', () => {
  it('should unlock as a site administrator, refuse anyone else, and audit the unlock', async () => {
    const configuration = parseSiteConfiguration(JSON.stringify({ 'auth.providers': [{ type: 'builtin' }] }))._unsafeUnwrap();
    const s = await startServer({ siteConfiguration: configuration });
    try {
      const root = await s.user('root', true);
      const bob = await s.user('bob');
      const rootToken = (await s.token(root)).token;
      const bobToken = (await s.token(bob)).token;
      await s.gatehouse.store.accounts.setPasswordHash(bob.id, await hashPassword('correct horse', (n) => crypto.getRandomValues(new Uint8Array(n))));
      await s.gatehouse.store.lockouts.put({ userId: bob.id, failures: 0, lastFailureAt: null, lockedUntil: s.clock.now + 1800 * 1000 });
      // the account's own view of its lock (User.locked, User.lockedUntil)
      const own = await gql(s.url, '{ currentUser { locked lockedUntil } }', { headers: { authorization: `token ${bobToken}` } });
      expect(own.body).toStrictEqual({ data: { currentUser: { locked: true, lockedUntil: new Date(s.clock.now + 1800 * 1000).toISOString() } } });
      const rootOwn = await gql(s.url, '{ currentUser { locked lockedUntil } }', { headers: { authorization: `token ${rootToken}` } });
      expect(rootOwn.body).toStrictEqual({ data: { currentUser: { locked: false, lockedUntil: null } } });
      const mutation = `mutation { unlockUser(user: "${bob.id}") { id username locked } }`;
      const refused = await gql(s.url, mutation, { headers: { authorization: `token ${bobToken}` } });
      expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
      expect(await s.gatehouse.store.lockouts.get(bob.id)).not.toBeNull();
      const missing = await gql(s.url, 'mutation { unlockUser(user: "999999") { id } }', { headers: { authorization: `token ${rootToken}` } });
      expect(missing.body).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
      const done = await gql(s.url, mutation, { headers: { authorization: `token ${rootToken}` } });
      expect(done.body).toStrictEqual({ data: { unlockUser: { id: bob.id, username: 'bob', locked: false } } });
      expect(await s.gatehouse.store.lockouts.get(bob.id)).toBeNull();
      const [entry] = await s.gatehouse.store.audit.list(1, { action: 'unlocked' });
      expect(entry).toMatchObject({ entity: 'user', actorUserId: root.id, subjectUserId: bob.id });
      // unlocked: the right password signs in again
      const signedIn = await fetch(`${s.url}/.auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bob', password: 'correct horse' }) });
      expect(signedIn.status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('auth.lockout on reload', () => {
  it('should apply a new threshold at once to the next failed sign-in', async () => {
    const s = await startServer({ siteConfiguration: JSON.stringify({ 'auth.providers': [{ type: 'builtin' }] }) });
    try {
      const carol = await s.user('carol');
      await s.gatehouse.store.accounts.setPasswordHash(carol.id, await hashPassword('correct horse', (n) => crypto.getRandomValues(new Uint8Array(n))));
      const attempt = async (): Promise<number> =>
        (await fetch(`${s.url}/.auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'carol', password: 'wrong' }) })).status;
      expect([await attempt(), await attempt()]).toStrictEqual([401, 401]);
      const reloaded = s.gatehouse.reload(JSON.stringify({ 'auth.providers': [{ type: 'builtin' }], 'auth.lockout': { failedAttemptThreshold: 3 } }));
      expect(reloaded.kind).toBe('reloaded');
      expect(s.gatehouse.configuration.lockout.failedAttemptThreshold).toBe(3);
      expect(await attempt()).toBe(403);
    } finally {
      await s.close();
    }
  });
});

