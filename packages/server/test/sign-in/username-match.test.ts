/**
 * Who a provider username may sign in as, end to end through `createGatehouseServer` on loopback
 * (§5.4 rule 5, §5.3 http-header rules 2–3, §5.5 rule 8): a username match takes the provider's username
 * unmodified, only when it is already a valid username, and lands only in an administrator-created account;
 * the email header of an authentication proxy loses its prefix too and must be a single address.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOSTC_CLIENT, startFakeHostcserver, type FakeHostc } from '../fakes/hostc.js';
import { createBrowser } from '../fakes/http.js';
import { gql, startServer, type TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const CURRENT_USER = '{ currentUser { username siteAdmin } }';
/** `name` (ASCII case ignored) with a random suffix (§5.5 rule 8). */
const SUFFIXED = (name: string): RegExp => new RegExp(`^${name}-[a-z]{5}$`, 'i');

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serverWith(providers: string): Promise<TestServer> {
  // the requests come from this host, the proxy's place
  const s = await startServer({ siteConfiguration: `{ "auth.providers": [${providers}], "trustedProxies": ["127.0.0.1"] }` });
  servers.push(s);
  return s;
}

const proxyProvider = (allowSignup: boolean, extra = ''): string =>
  `{ "type": "http-header", "usernameHeader": "X-Forwarded-User", "allowSignup": ${String(allowSignup)}${extra} }`;

/** `currentUser` as the proxy names `user` (no email header). */
async function asProxied(s: TestServer, user: string): Promise<unknown> {
  const answer = await gql(s.url, CURRENT_USER, { headers: { 'x-forwarded-user': user, 'x-requested-with': 'test' } });
  return answer.body;
}

/** Every account with its linked identities: what a sign-in may write. */
async function accounts(s: TestServer): Promise<unknown> {
  const users = await flatStoreOf(s.gatehouse.store).listUsers();
  return Promise.all(
    users.map(async (u) => ({
      username: u.username,
      links: (await flatStoreOf(s.gatehouse.store).listExternalAccounts(u.id)).map((l) => [l.serviceType, l.accountId]),
    })),
  );
}

async function signUpWithPassword(s: TestServer, username: string): Promise<void> {
  const res = await fetch(`${s.url}/.auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@attacker.example`, password: 'attacker password 1' }),
  });
  expect(res.status).toBe(201);
}

describe('http-header username matching (§5.3 http-header rule 3, §5.4 rule 5, §5.5 rule 8)', () => {
  it.each(['admin@evil.example', '.admin', 'admin.', '-admin', 'ADMIN@evil.example', '--admin..'])(
    'should not sign the proxy user %j in as the site admin "admin": a suffixed new account instead (§5.5 rule 8)',
    async (name) => {
      const s = await serverWith(proxyProvider(true));
      const admin = await s.user('admin', true);
      expect(await asProxied(s, name)).toStrictEqual({ data: { currentUser: { username: expect.stringMatching(SUFFIXED('admin')), siteAdmin: false } } });
      expect(await flatStoreOf(s.gatehouse.store).listExternalAccounts(admin.id)).toStrictEqual([]);
    },
  );

  it.each(['admin@evil.example', '.admin', 'admin.', '-admin'])(
    'should refuse the proxy user %j when sign-up is off, writing nothing (§5.5 rule 8, §7 rule 3)',
    async (name) => {
      const s = await serverWith(proxyProvider(false));
      await s.user('admin', true);
      const before = await accounts(s);
      expect(await asProxied(s, name)).toStrictEqual({ data: { currentUser: null } });
      expect(await accounts(s)).toStrictEqual(before);
    },
  );

  it.each(['admin', 'Admin'])(
    'should still sign the proxy user %j in to the administrator-created account "admin" (§5.3 http-header rule 3)',
    async (name) => {
      const s = await serverWith(proxyProvider(false));
      await s.user('admin', true);
      expect(await asProxied(s, name)).toStrictEqual({ data: { currentUser: { username: 'admin', siteAdmin: true } } });
      expect(await accounts(s)).toStrictEqual([{ username: 'admin', links: [['http-header', name]] }]);
    },
  );
});

describe('pre-account hijacking through a password sign-up (§5.4 rule 5, §5.3 http-header rule 3)', () => {
  it('should not land the proxy user carol in the account an attacker signed up as "carol" with a password', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${proxyProvider(true)}`);
    await signUpWithPassword(s, 'carol');
    expect(await asProxied(s, 'carol')).toStrictEqual({ data: { currentUser: { username: expect.stringMatching(SUFFIXED('carol')), siteAdmin: false } } });
    const after = (await accounts(s)) as { username: string; links: unknown[] }[];
    expect(after.find((a) => a.username === 'carol')).toStrictEqual({ username: 'carol', links: [] });
  });

  it('should refuse the proxy user carol, writing nothing, when the proxy does not allow sign-up', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${proxyProvider(false)}`);
    await signUpWithPassword(s, 'carol');
    const before = await accounts(s);
    expect(await asProxied(s, 'carol')).toStrictEqual({ data: { currentUser: null } });
    expect(await accounts(s)).toStrictEqual(before);
  });

  it('should land the proxy user carol in the account an administrator created for her (§5.3 http-header rule 3)', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${proxyProvider(false)}`);
    const admin = await s.user('admin', true);
    const { token } = await s.token(admin);
    const created = await gql(s.url, 'mutation { createUser(username: "carol") { username } }', { headers: { authorization: `token ${token}` } });
    expect(created.body).toStrictEqual({ data: { createUser: { username: 'carol' } } });
    expect(await asProxied(s, 'carol')).toStrictEqual({ data: { currentUser: { username: 'carol', siteAdmin: false } } });
  });

  it('should not land a proxy user in a service account of the same name', async () => {
    const s = await serverWith(proxyProvider(true));
    const admin = await s.user('admin', true);
    const { token } = await s.token(admin);
    await gql(s.url, 'mutation { createServiceAccount(username: "robot") { username } }', { headers: { authorization: `token ${token}` } });
    expect(await asProxied(s, 'robot')).toStrictEqual({ data: { currentUser: { username: expect.stringMatching(SUFFIXED('robot')), siteAdmin: false } } });
  });
});

describe('account origin: every way of creating an account records it', () => {
  it('should record admin_created, service_account, password_signup and provider_signup', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${proxyProvider(true)}`);
    const admin = await s.user('admin', true);
    const { token } = await s.token(admin);
    const asAdmin = { headers: { authorization: `token ${token}` } };
    await gql(s.url, 'mutation { createUser(username: "made") { id } }', asAdmin);
    await gql(s.url, 'mutation { createServiceAccount(username: "robot") { id } }', asAdmin);
    await signUpWithPassword(s, 'signed');
    await asProxied(s, 'proxied');
    const origins = Object.fromEntries((await flatStoreOf(s.gatehouse.store).listUsers()).map((u) => [u.username, u.origin]));
    expect(origins).toStrictEqual({
      admin: 'admin_created',
      made: 'admin_created',
      robot: 'service_account',
      signed: 'password_signup',
      proxied: 'provider_signup',
    });
  });
});

describe('hostcserver username matching through the code host (§5.4 rule 5)', () => {
  let hostc: FakeHostc;
  beforeAll(async () => {
    hostc = await startFakeHostcserver([
      { id: 42, username: 'carol', emails: [{ email: 'carol@corp.example', confirmed: true, primary: true }] },
      { id: 43, username: '.admin', emails: [{ email: 'mallory@corp.example', confirmed: true, primary: true }] },
    ]);
  });
  afterAll(() => hostc.close());

  const hostcProvider = (allowSignup: boolean): string =>
    `{ "type": "hostcserver", "url": "${hostc.url}", "clientID": "${HOSTC_CLIENT.clientId}", "clientSecret": "${HOSTC_CLIENT.clientSecret}", "allowSignup": ${String(allowSignup)} }`;

  /** Signs `as` in through the code host; returns the callback's status and who the browser is then. */
  async function codeHostSignIn(s: TestServer, as: string): Promise<{ status: number; currentUser: unknown }> {
    const browser = createBrowser();
    const login = await browser.get(`${s.url}/.auth/hostcserver/login?returnTo=/after`);
    expect(login.status).toBe(303);
    const authorize = new URL(login.headers.get('location') ?? '');
    authorize.searchParams.set('as', as);
    const { url: callback } = await browser.follow(authorize.href, (u) => u.origin === new URL(s.url).origin);
    const response = await browser.get(callback);
    await response.body?.cancel();
    const cookie = [...(browser.jar.get(new URL(s.url).host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
    const answer = await gql(s.url, CURRENT_USER, { headers: { cookie, 'x-requested-with': 'test' } });
    return { status: response.status, currentUser: (answer.body as { data: { currentUser: unknown } }).data.currentUser };
  }

  it('should not land the code host user carol in the account an attacker signed up as "carol" with a password', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${hostcProvider(true)}`);
    await signUpWithPassword(s, 'carol');
    const signedIn = await codeHostSignIn(s, 'carol');
    expect(signedIn).toStrictEqual({ status: 303, currentUser: { username: expect.stringMatching(SUFFIXED('carol')), siteAdmin: false } });
    const after = (await accounts(s)) as { username: string; links: unknown[] }[];
    expect(after.find((a) => a.username === 'carol')).toStrictEqual({ username: 'carol', links: [] });
  });

  it('should refuse the code host user carol when sign-up is off, writing nothing', async () => {
    const s = await serverWith(`{ "type": "builtin", "allowSignup": true }, ${hostcProvider(false)}`);
    await signUpWithPassword(s, 'carol');
    const before = await accounts(s);
    expect(await codeHostSignIn(s, 'carol')).toStrictEqual({ status: 403, currentUser: null });
    expect(await accounts(s)).toStrictEqual(before);
  });

  it('should not sign the code host user ".admin" in as the site admin "admin"', async () => {
    const s = await serverWith(hostcProvider(false));
    await s.user('admin', true);
    const before = await accounts(s);
    expect(await codeHostSignIn(s, '.admin')).toStrictEqual({ status: 403, currentUser: null });
    expect(await accounts(s)).toStrictEqual(before);
  });
});

describe('the proxy email header and stripUsernameHeaderPrefix (§5.3 http-header rule 2, §5.4 rule 2)', () => {
  const IAP = 'x-goog-authenticated-user-email';
  const iapProvider = (prefix: string | null): string =>
    `{ "type": "http-header", "usernameHeader": "${IAP}", "emailHeader": "${IAP}"${prefix === null ? '' : `, "stripUsernameHeaderPrefix": "${prefix}"`} }`;

  it('should link a Google IAP user to the account whose verified email the header names, without the prefix', async () => {
    const s = await serverWith(iapProvider('accounts.google.com:'));
    await s.user('alice', false, 'alice@example.com');
    const answer = await gql(s.url, '{ currentUser { username emails { email verified } } }', {
      headers: { [IAP]: 'accounts.google.com:alice@example.com', 'x-requested-with': 'test' },
    });
    expect(answer.body).toStrictEqual({ data: { currentUser: { username: 'alice', emails: [{ email: 'alice@example.com', verified: true }] } } });
    expect((await flatStoreOf(s.gatehouse.store).listUsers()).map((u) => u.username)).toStrictEqual(['alice']);
  });

  it('should refuse, and never store, an email header value that is not a single address', async () => {
    const s = await serverWith(iapProvider(null));
    const answer = await gql(s.url, CURRENT_USER, { headers: { [IAP]: 'accounts.google.com:alice@example.com', 'x-requested-with': 'test' } });
    expect(answer.body).toStrictEqual({ data: { currentUser: null } });
    expect(await flatStoreOf(s.gatehouse.store).listUsers()).toStrictEqual([]);
  });
});
