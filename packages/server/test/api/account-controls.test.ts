/**
 * The account control mutations (`suspendUser`, `reinstateUser`, `invalidateSessionsByID`,
 * `revokeUserAccessTokens`) on an in-process server: what a suspended account is refused (session, `token`, both
 * sides of `token-sudo`, password sign-in), what reinstating restores, that nothing is deleted by a suspension,
 * the last-active-site-administrator guard (also for `setUserIsSiteAdmin` once an administrator is suspended), the
 * site-administrator-only rule, and the audit entry of each change.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry, UserRecord } from '../../src/index.js';
import { hashPassword } from '../../src/session/sessions.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { clientAt } from '../helpers/from-address.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let s: TestServer;
let root: UserRecord;
let alice: UserRecord;
let rootToken = '';
let aliceToken = '';
let rootSudo = '';

const auth = (token: string): Record<string, string> => ({ authorization: `token ${token}` });

/** `{ currentUser { username } }` with these headers: the username, or the HTTP status when refused. */
async function whoAmI(headers: Record<string, string>): Promise<string | number> {
  const answer = await gql(s.url, '{ currentUser { username } }', { headers });
  const body = answer.body as { data?: { currentUser?: { username?: string } | null } };
  return answer.status === 200 ? (body.data?.currentUser?.username ?? 'anonymous') : answer.status;
}

/** A mutation as root: its data field, or its error code. */
async function asRoot(query: string, token = rootToken): Promise<unknown> {
  const answer = await gql(s.url, query, { headers: auth(token) });
  const body = answer.body as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
  return body.errors === undefined ? Object.values(body.data ?? {})[0] : (body.errors[0]?.extensions?.code ?? 'no code');
}

async function sessionCookie(user: UserRecord): Promise<string> {
  return ((await s.gatehouse.sessions.start({ headers: {} }, user.id)) ?? '').split(';')[0] ?? '';
}

const session = (cookie: string): Record<string, string> => ({ cookie, 'x-requested-with': 'test' });

async function signIn(username: string, password: string): Promise<{ status: number; code: string }> {
  const res = await fetch(`${s.url}/.auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const body = (await res.json()) as { error?: { code?: string }; code?: string };
  return { status: res.status, code: body.error?.code ?? body.code ?? '' };
}

async function audit(): Promise<readonly AuditEntry[]> {
  return flatStoreOf(s.gatehouse.store).listAudit(1000);
}

beforeEach(async () => {
  s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }' });
  root = await s.user('root', true);
  alice = await s.user('alice');
  rootToken = (await s.token(root)).token;
  rootSudo = (await s.token(root, ['user:all', 'site-admin:sudo'])).token;
  aliceToken = (await s.token(alice)).token;
});

afterEach(async () => {
  await s.close();
});

describe('suspendUser and reinstateUser', () => {
  it('should refuse every way in of a suspended account at once, delete nothing, and restore everything on reinstating', async () => {
    const cookie = await sessionCookie(alice);
    (await s.gatehouse.store.accounts.setPasswordHash(alice.id, await hashPassword('alice password 1', (n) => new Uint8Array(n).fill(7))))._unsafeUnwrap();
    const ways = async (): Promise<unknown[]> => [
      await whoAmI(auth(aliceToken)),
      await whoAmI(session(cookie)),
      await whoAmI({ authorization: `token-sudo user="alice",token="${rootSudo}"` }),
      (await signIn('alice', 'alice password 1')).status,
    ];
    expect(await ways()).toStrictEqual(['alice', 'alice', 'alice', 200]);

    expect(await asRoot(`mutation { suspendUser(user: "${alice.id}") { username suspended suspendedAt } }`)).toStrictEqual({
      username: 'alice',
      suspended: true,
      suspendedAt: new Date(s.clock.now).toISOString(),
    });
    // the token cache held alice a moment ago: the suspension is seen at once all the same
    expect(await ways()).toStrictEqual([401, 'anonymous', 403, 403]);
    expect(await signIn('alice', 'alice password 1')).toStrictEqual({ status: 403, code: 'account_suspended' });
    // a wrong password says nothing of the suspension
    expect(await signIn('alice', 'not the password')).toStrictEqual({ status: 401, code: 'invalid_credentials' });
    // nothing was deleted
    expect(await s.gatehouse.store.accessTokens.list(alice.id)).toHaveLength(1);
    expect((await s.gatehouse.store.sessions.list(alice.id)).length).toBeGreaterThanOrEqual(1);

    expect(await asRoot(`mutation { reinstateUser(user: "${alice.id}") { suspended suspendedAt } }`)).toStrictEqual({ suspended: false, suspendedAt: null });
    expect(await ways()).toStrictEqual(['alice', 'alice', 'alice', 200]);

    const entries = (await audit()).filter((e) => e.entity === 'user').map((e) => [e.action, e.actorUserId, e.subjectUserId, e.details['username']]);
    expect(entries).toStrictEqual([
      ['reinstated', root.id, alice.id, 'alice'],
      ['suspended', root.id, alice.id, 'alice'],
    ]);
    const refusedSudo = (await audit()).find((e) => e.action === 'sudo_denied');
    expect(refusedSudo?.reason).toBe('account_suspended');
  });

  it("should refuse a suspended site administrator's own token and its sudo token (the owner side)", async () => {
    const bob = await s.user('bob', true);
    const bobSudo = (await s.token(bob, ['user:all', 'site-admin:sudo'])).token;
    expect(await whoAmI({ authorization: `token-sudo user="alice",token="${bobSudo}"` })).toBe('alice');
    await asRoot(`mutation { suspendUser(user: "${bob.id}") { id } }`);
    expect(await whoAmI({ authorization: `token-sudo user="alice",token="${bobSudo}"` })).toBe(401);
    expect(await whoAmI(auth(bobSudo))).toBe(401);
  });

  it('should change nothing and audit nothing when suspending a suspended account or reinstating an active one', async () => {
    await asRoot(`mutation { suspendUser(user: "${alice.id}") { id } }`);
    const before = (await audit()).length;
    expect(await asRoot(`mutation { suspendUser(user: "${alice.id}") { suspended } }`)).toStrictEqual({ suspended: true });
    await asRoot(`mutation { reinstateUser(user: "${alice.id}") { id } }`);
    expect(await asRoot(`mutation { reinstateUser(user: "${alice.id}") { suspended } }`)).toStrictEqual({ suspended: false });
    expect((await audit()).length).toBe(before + 1);
  });
});

describe('the last active site administrator', () => {
  it.each([
    { name: 'suspendUser', mutation: (id: string) => `mutation { suspendUser(user: "${id}") { id } }` },
    { name: 'invalidateSessionsByID', mutation: (id: string) => `mutation { invalidateSessionsByID(userID: "${id}") }` },
    { name: 'revokeUserAccessTokens', mutation: (id: string) => `mutation { revokeUserAccessTokens(user: "${id}") }` },
    { name: 'setUserIsSiteAdmin false', mutation: (id: string) => `mutation { setUserIsSiteAdmin(userID: "${id}", siteAdmin: false) { id } }` },
  ])('should refuse $name against it (LAST_SITE_ADMIN), counting a suspended administrator as inactive', async ({ mutation }) => {
    expect(await asRoot(mutation(root.id))).toBe('LAST_SITE_ADMIN');
    const bob = await s.user('bob', true);
    await asRoot(`mutation { suspendUser(user: "${bob.id}") { id } }`);
    const before = await audit();
    expect(await asRoot(mutation(root.id))).toBe('LAST_SITE_ADMIN');
    expect(await audit()).toStrictEqual(before);
    expect(await whoAmI(auth(rootToken))).toBe('root');
    // with bob reinstated there are two active administrators: root may be the target
    await asRoot(`mutation { reinstateUser(user: "${bob.id}") { id } }`);
    expect(await asRoot(mutation(root.id))).not.toBe('LAST_SITE_ADMIN');
  });

  it('should refuse the account controls to anyone but a site administrator, and name an unknown account', async () => {
    for (const m of ['suspendUser(user: "1") { id }', 'reinstateUser(user: "1") { id }', 'invalidateSessionsByID(userID: "1")', 'revokeUserAccessTokens(user: "1")']) {
      expect(await asRoot(`mutation { ${m} }`, aliceToken)).toBe('FORBIDDEN');
    }
    expect(await asRoot('mutation { suspendUser(user: "999999") { id } }')).toBe('NOT_FOUND');
  });
});

describe('invalidateSessionsByID and revokeUserAccessTokens', () => {
  it('should end every session of an account at once and audit how many', async () => {
    const cookies = [await sessionCookie(alice), await sessionCookie(alice)];
    const rootCookie = await sessionCookie(root);
    expect(await asRoot(`mutation { invalidateSessionsByID(userID: "${alice.id}") }`)).toBe(2);
    for (const cookie of cookies) expect(await whoAmI(session(cookie))).toBe('anonymous');
    expect(await whoAmI(session(rootCookie))).toBe('root');
    expect(await whoAmI(auth(aliceToken))).toBe('alice');
    const entry = (await audit()).find((e) => e.action === 'sessions_ended');
    expect(entry?.details).toStrictEqual({ username: 'alice', sessions: '2' });
  });

  it('should delete every access token of an account at once (the cache held it), keep its sessions, and audit the counts', async () => {
    const second = (await s.token(alice)).token;
    const cookie = await sessionCookie(alice);
    expect(await whoAmI(auth(second))).toBe('alice');
    expect(await asRoot(`mutation { revokeUserAccessTokens(user: "${alice.id}") }`)).toBe(2);
    expect(await whoAmI(auth(aliceToken))).toBe(401);
    expect(await whoAmI(auth(second))).toBe(401);
    expect(await whoAmI(session(cookie))).toBe('alice');
    expect(await whoAmI(auth(rootToken))).toBe('root');
    const entry = (await audit()).find((e) => e.action === 'tokens_revoked');
    expect(entry?.details).toStrictEqual({ username: 'alice', accessTokens: '2', oauthTokens: '0' });
  });
});

describe('behind an authentication proxy (http-header)', () => {
  it('should refuse the account the trusted proxy names while it is suspended, linking and creating nothing, and accept it once reinstated', async () => {
    const proxied = await startServer({
      siteConfiguration: JSON.stringify({
        'auth.providers': [{ type: 'builtin' }, { type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email' }],
        trustedProxies: ['127.0.0.5'],
      }),
    });
    const proxy = clientAt('127.0.0.5');
    try {
      const admin = await proxied.user('root', true);
      const adminToken = (await proxied.token(admin)).token;
      const pia = await proxied.user('pia', false, 'pia@corp.example');
      const asPia = async (): Promise<{ status: number; text: string }> =>
        proxy.send(proxied.url, {
          method: 'POST',
          path: '/.api/graphql',
          headers: { 'content-type': 'application/json', 'x-forwarded-user': 'pia', 'x-forwarded-email': 'pia@corp.example', 'x-requested-with': 'proxy' },
          body: JSON.stringify({ query: '{ currentUser { username } }' }),
        });
      expect(JSON.parse((await asPia()).text)).toStrictEqual({ data: { currentUser: { username: 'pia' } } });
      await gql(proxied.url, `mutation { suspendUser(user: "${pia.id}") { id } }`, { headers: auth(adminToken) });
      const links = await proxied.gatehouse.store.accounts.links(pia.id);
      // the proxy's identity is refused, never a fall back to anything else: the request is anonymous
      expect(JSON.parse((await asPia()).text)).toStrictEqual({ data: { currentUser: null } });
      // and the sign-in page says why
      const page = await proxy.send(proxied.url, { path: '/.auth/sign-in', headers: { 'x-forwarded-user': 'pia', 'x-forwarded-email': 'pia@corp.example' } });
      expect(page.status).toBe(403);
      expect(page.text).toContain('This account is suspended');
      expect(await proxied.gatehouse.store.accounts.links(pia.id)).toStrictEqual(links);
      expect(await proxied.gatehouse.store.accounts.count()).toBe(2);
      await gql(proxied.url, `mutation { reinstateUser(user: "${pia.id}") { id } }`, { headers: auth(adminToken) });
      expect(JSON.parse((await asPia()).text)).toStrictEqual({ data: { currentUser: { username: 'pia' } } });
    } finally {
      proxy.close();
      await proxied.close();
    }
  });
});
