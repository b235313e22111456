/**
 * Every audited change is kept only with its audit entry (spec §6): on a store whose audit log refuses every
 * append (a real store wrapped, inside its transactions too), each audited operation of the server fails as the
 * server's own failure (a 500, a GraphQL `INTERNAL_SERVER_ERROR`, a command's rejection) and leaves the store as it
 * was. Each row also runs the operation once more with the audit log working and sees the state change, so a row
 * whose operation changes nothing cannot pass by accident. The table runs on the memory store, and one row on
 * PostgreSQL (PGlite).
 *
 * Audit entries that record events rather than changes are written on their own and are not in the table: a
 * refused password sign-in (`auth.session`/`failed`), a refused provider sign-in, a wrong current password
 * (`user.password`/`change_failed`), refused review host credentials (`user.credentials`/`failed`), a denied consent
 * (`oauth.consent`/`denied`), and the authenticator's `auth.accessToken` `failed`, `sudo` and `sudo_denied`.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdministratorToken } from '../../src/run/administrator.js';
import { setPassword } from '../../src/run/store-commands.js';
import { lookupDigest } from '../../src/oauth-server/handlers.js';
import { CSRF_COOKIE } from '../../src/pages/csrf.js';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store, UserRecord } from '../../src/store/types.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { cookieFrom, gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { byGraphQL, byRejection, byStatus, withFailingAudit } from '../helpers/failing-audit.js';
import type { Answer } from '../helpers/failing-audit.js';

const CONFIG = JSON.stringify({
  externalURL: 'http://127.0.0.1:9',
  'auth.providers': [
    { type: 'builtin', allowSignup: true },
    { type: 'openidconnect', issuer: 'http://127.0.0.1:9', clientID: 'id', clientSecret: 'secret' },
  ],
  // on, so that the username change's row reaches its write (off by default)
  'auth.enableUsernameChanges': true,
});
const PROXY_CONFIG = JSON.stringify({ trustedProxies: ['127.0.0.1'], 'auth.providers': [{ type: 'http-header', usernameHeader: 'x-forwarded-user' }] });
const PASSWORD = 'correct horse battery';
const REDIRECT = 'https://app.example/cb';

/** Everything the store keeps that an audited change could touch, in a comparable form. */
async function snapshot(store: Store, probes: readonly string[]): Promise<unknown> {
  const users = await store.accounts.list({ first: 1000 });
  const perUser = await Promise.all(
    users.map(async (u) => ({
      user: u,
      links: await store.accounts.links(u.id),
      credentials: await store.accounts.credentials(u.id),
      // when a token or session was last used is a courtesy, not an audited change
      tokens: (await store.accessTokens.list(u.id)).map(({ lastUsedAt: _used, ...t }) => t),
      sessions: (await store.sessions.list(u.id)).map(({ lastSeenAt: _seen, ...s }) => s),
      consents: await store.oauth.listConsents(u.id),
      lockout: await store.lockouts.get(u.id),
      accountLinks: await Promise.all((['verify_email', 'reset_password', 'unlock_account', 'first_admin'] as const).map((purpose) => store.links.find(u.id, purpose))),
    })),
  );
  const oauth = await Promise.all(
    probes.map(async (hash) => ({
      code: await store.oauth.findAuthorizationCode(hash),
      refresh: await store.oauth.findRefreshToken(hash),
      access: await store.oauth.findAccessToken(hash),
    })),
  );
  return { perUser, apps: await store.oauth.listApps(), audit: await store.audit.list(1000), oauth };
}

/** One server on a store with a switchable audit log, and a browser's requests to it. */
interface Harness {
  readonly s: TestServer;
  readonly store: Store;
  readonly failing: { on: boolean };
  /** Digests of OAuth codes and tokens the snapshot looks up. */
  readonly probes: string[];
  /** A session cookie for `user` (a session written straight to the store). */
  session(user: UserRecord): Promise<string>;
  /** A form post from this site's page, as `cookie`'s browser. */
  post(cookie: string, path: string, fields: readonly [string, string][]): Promise<Response>;
}

async function harness(base: Store, config = CONFIG): Promise<Harness> {
  const failing = { on: false };
  const store = withFailingAudit(base, failing);
  const s = await startServer({ store, siteConfiguration: config });
  let sessions = 0;
  const h: Harness = {
    s,
    store: base,
    failing,
    probes: [],
    async session(user) {
      sessions += 1;
      // a session id as the server makes them: 43 base64url characters
      const id = createHash('sha256').update(`session-${user.id}-${sessions}`).digest('base64url');
      const digest = createHash('sha256').update(id).digest('hex');
      (await base.sessions.create({ digest, userId: user.id, createdAt: s.clock.now, expiresAt: s.clock.now + 3_600_000, lastSeenAt: s.clock.now, userAgent: '' }, 10))._unsafeUnwrap();
      return `${SESSION_COOKIE}=${id}`;
    },
    async post(cookie, path, fields) {
      const page = await fetch(`${s.url}/settings`, { headers: { cookie } });
      const csrfCookie = cookieFrom(page.headers, CSRF_COOKIE) ?? '';
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
      return fetch(`${s.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrfCookie}`, origin: s.url, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams([['_csrf', csrf], ...fields]).toString(),
      });
    },
  };
  return h;
}

/** An operation of the table: arranged with the audit log working, then run against the failing one. */
interface Row {
  readonly name: string;
  readonly config?: string;
  /** Arranges what the operation needs; returns how to run it. */
  readonly arrange: (h: Harness) => Promise<() => Promise<Answer>>;
}

async function admin(h: Harness): Promise<{ user: UserRecord; token: string; cookie: string }> {
  const user = await h.s.user('root', true);
  return { user, token: (await h.s.token(user, ['user:all', 'site-admin:sudo'])).token, cookie: await h.session(user) };
}

async function member(h: Harness, username = 'alice'): Promise<{ user: UserRecord; token: string; cookie: string }> {
  const signUp = await fetch(`${h.s.url}/.auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@example.com`, password: PASSWORD }),
  });
  expect(signUp.status).toBe(201);
  const user = (await h.store.accounts.list({ first: 1000 })).find((u) => u.username === username);
  if (user === undefined) throw new Error('no account');
  return { user, token: (await h.s.token(user)).token, cookie: await h.session(user) };
}

const api = (h: Harness, token: string, query: string, variables?: Record<string, unknown>) =>
  gql(h.s.url, query, { headers: { authorization: `token ${token}` }, ...(variables === undefined ? {} : { variables }) });

async function registerApp(h: Harness, token: string): Promise<{ clientId: string; clientSecret: string }> {
  const r = await api(h, token, `mutation { registerOAuthApp(name: "tool", redirectURIs: ["${REDIRECT}"], scopes: ["user:all"]) { clientID clientSecret } }`);
  const app = (r.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
  return { clientId: app.clientID, clientSecret: app.clientSecret };
}

/** Approves `clientId` for `cookie`'s account on the consent page; returns the code. */
async function approve(h: Harness, cookie: string, clientId: string): Promise<Response> {
  const params = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's' });
  const page = await fetch(`${h.s.url}/.auth/idp/oauth/authorize?${params.toString()}`, { headers: { cookie } });
  const csrfCookie = cookieFrom(page.headers, CSRF_COOKIE) ?? '';
  const html = await page.text();
  const fields = [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [m[1] ?? '', (m[2] ?? '').replaceAll('&amp;', '&')]);
  return fetch(`${h.s.url}/.auth/idp/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${cookie}; ${csrfCookie}`, origin: h.s.url, 'sec-fetch-site': 'same-origin' },
    body: new URLSearchParams([...fields, ['decision', 'approve']]).toString(),
  });
}

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

async function tokens(h: Harness, app: { clientId: string; clientSecret: string }, code: string): Promise<{ access_token: string; refresh_token: string }> {
  const res = await fetch(`${h.s.url}/.auth/idp/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
  });
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function codeFor(h: Harness, cookie: string, clientId: string): Promise<string> {
  const approved = await approve(h, cookie, clientId);
  return new URL(approved.headers.get('location') ?? '').searchParams.get('code') ?? '';
}

const ROWS: readonly Row[] = [
  // the API's mutations
  { name: 'createAccessToken', arrange: async (h) => { const a = await member(h); return async () => byGraphQL(await api(h, a.token, 'mutation { createAccessToken(scopes: ["user:all"], note: "n") { id } }')); } },
  {
    name: 'deleteAccessToken',
    arrange: async (h) => {
      const a = await member(h);
      const t = await h.s.token(a.user);
      return async () => byGraphQL(await api(h, a.token, `mutation { deleteAccessToken(id: "${t.id}") }`));
    },
  },
  { name: 'createUser', arrange: async (h) => { const r = await admin(h); return async () => byGraphQL(await api(h, r.token, 'mutation { createUser(username: "carol", email: "c@example.com") { id } }')); } },
  { name: 'createServiceAccount', arrange: async (h) => { const r = await admin(h); return async () => byGraphQL(await api(h, r.token, 'mutation { createServiceAccount(username: "bot") { id } }')); } },
  {
    name: 'setUserIsSiteAdmin',
    arrange: async (h) => {
      const r = await admin(h);
      const a = await member(h);
      return async () => byGraphQL(await api(h, r.token, `mutation { setUserIsSiteAdmin(userID: "${a.user.id}", siteAdmin: true) { siteAdmin } }`));
    },
  },
  {
    name: 'registerOAuthApp',
    arrange: async (h) => {
      const r = await admin(h);
      return async () => byGraphQL(await api(h, r.token, `mutation { registerOAuthApp(name: "a", redirectURIs: ["${REDIRECT}"], scopes: ["user:all"]) { clientID } }`));
    },
  },
  // sign-up and sign-in
  {
    name: 'sign-up',
    arrange: async (h) => async () =>
      byStatus(await fetch(`${h.s.url}/.auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'dana', email: 'd@example.com', password: PASSWORD }) })),
  },
  {
    name: 'password sign-in',
    arrange: async (h) => {
      await member(h);
      return async () => byStatus(await fetch(`${h.s.url}/.auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: PASSWORD }) }));
    },
  },
  {
    name: 'authentication proxy sign-in (account created)',
    config: PROXY_CONFIG,
    arrange: async (h) => async () => byStatus(await fetch(`${h.s.url}/settings`, { headers: { 'x-forwarded-user': 'erin' }, redirect: 'manual' })),
  },
  // the settings pages
  { name: 'settings: create a token', arrange: async (h) => { const a = await member(h); return async () => byStatus(await h.post(a.cookie, '/settings/tokens', [['note', 'n'], ['scopes', 'user:all'], ['expires', '7']])); } },
  {
    name: 'settings: delete a token',
    arrange: async (h) => {
      const a = await member(h);
      const t = await h.s.token(a.user);
      return async () => byStatus(await h.post(a.cookie, '/settings/tokens/delete', [['id', t.id]]));
    },
  },
  { name: 'settings: change the password', arrange: async (h) => { const a = await member(h); return async () => byStatus(await h.post(a.cookie, '/settings/password', [['current', PASSWORD], ['password', 'a new long password'], ['confirm', 'a new long password']])); } },
  { name: 'settings: change the username', arrange: async (h) => { const a = await member(h); return async () => byStatus(await h.post(a.cookie, '/settings', [['username', 'alicia']])); } },
  {
    name: 'settings: sign out another session',
    arrange: async (h) => {
      const a = await member(h);
      const other = await h.session(a.user);
      const digest = createHash('sha256').update(other.slice(SESSION_COOKIE.length + 1)).digest('hex');
      return async () => byStatus(await h.post(a.cookie, '/settings/sessions/revoke', [['session', digest]]));
    },
  },
  { name: 'settings: sign out every other session', arrange: async (h) => { const a = await member(h); await h.session(a.user); return async () => byStatus(await h.post(a.cookie, '/settings/sessions/revoke-others', [])); } },
  {
    name: 'account security: unlink an identity',
    arrange: async (h) => {
      const a = await member(h);
      (await h.store.accounts.link({ userId: a.user.id, serviceType: 'openidconnect', serviceId: 'http://127.0.0.1:9', accountId: 'sub-1', createdAt: 0 }))._unsafeUnwrap();
      return async () => byStatus(await h.post(a.cookie, '/settings/security/unlink', [['serviceType', 'openidconnect'], ['serviceId', 'http://127.0.0.1:9'], ['accountId', 'sub-1']]));
    },
  },
  {
    name: 'account security: revoke an app',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      const a = await member(h);
      expect((await approve(h, a.cookie, app.clientId)).status).toBe(303);
      return async () => byStatus(await h.post(a.cookie, '/settings/security/oauth/revoke', [['clientId', app.clientId]]));
    },
  },
  // site administration
  { name: 'site admin: create a user', arrange: async (h) => { const r = await admin(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/users', [['username', 'frank'], ['email', 'f@example.com']])); } },
  {
    name: 'site admin: promote a user',
    arrange: async (h) => {
      const r = await admin(h);
      const a = await member(h);
      return async () => byStatus(await h.post(r.cookie, '/site-admin/users/site-admin', [['id', a.user.id], ['siteAdmin', 'true']]));
    },
  },
  { name: 'site admin: delete a user', arrange: async (h) => { const r = await admin(h); const a = await member(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/users/delete', [['id', a.user.id]])); } },
  { name: 'site admin: create a service account', arrange: async (h) => { const r = await admin(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/service-accounts', [['username', 'ci-bot']])); } },
  {
    name: "site admin: create a service account's token",
    arrange: async (h) => {
      const r = await admin(h);
      await api(h, r.token, 'mutation { createServiceAccount(username: "ci-bot") { id } }');
      const bot = (await h.store.accounts.list({ first: 100 })).find((u) => u.username === 'ci-bot');
      return async () => byStatus(await h.post(r.cookie, '/site-admin/service-accounts/tokens', [['id', bot?.id ?? ''], ['note', 'n'], ['scopes', 'user:all'], ['expires', 'never']]));
    },
  },
  {
    name: "site admin: delete a service account's token",
    arrange: async (h) => {
      const r = await admin(h);
      await api(h, r.token, 'mutation { createServiceAccount(username: "ci-bot") { id } }');
      const bot = (await h.store.accounts.list({ first: 100 })).find((u) => u.username === 'ci-bot');
      if (bot === undefined) throw new Error('no bot');
      const t = await h.s.token(bot, ['user:all'], r.user);
      return async () => byStatus(await h.post(r.cookie, '/site-admin/service-accounts/tokens/delete', [['id', bot.id], ['token', t.id]]));
    },
  },
  { name: 'site admin: register an OAuth app', arrange: async (h) => { const r = await admin(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/oauth-apps', [['name', 'tool'], ['redirectUris', REDIRECT]])); } },
  {
    name: "site admin: rotate an OAuth app's secret",
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      return async () => byStatus(await h.post(r.cookie, '/site-admin/oauth-apps/rotate', [['clientId', app.clientId]]));
    },
  },
  {
    name: 'site admin: delete an OAuth app',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      return async () => byStatus(await h.post(r.cookie, '/site-admin/oauth-apps/delete', [['clientId', app.clientId]]));
    },
  },
  // the OAuth authorization server
  {
    name: 'OAuth: approve on the consent page',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      const a = await member(h);
      return async () => byStatus(await approve(h, a.cookie, app.clientId));
    },
  },
  {
    name: 'OAuth: redeem a code',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      const a = await member(h);
      const code = await codeFor(h, a.cookie, app.clientId);
      h.probes.push(lookupDigest('authorization_code', code) ?? '');
      return async () => {
        const res = await fetch(`${h.s.url}/.auth/idp/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
        });
        return byStatus(res);
      };
    },
  },
  {
    name: 'OAuth: the revocation endpoint revokes a family',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      const a = await member(h);
      const issued = await tokens(h, app, await codeFor(h, a.cookie, app.clientId));
      h.probes.push(lookupDigest('refresh_token', issued.refresh_token) ?? '', lookupDigest('access_token', issued.access_token) ?? '');
      return async () =>
        byStatus(
          await fetch(`${h.s.url}/.auth/idp/oauth/revoke`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ token: issued.refresh_token, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
          }),
        );
    },
  },
  {
    name: 'OAuth: a reused refresh token revokes its family',
    arrange: async (h) => {
      const r = await admin(h);
      const app = await registerApp(h, r.token);
      const a = await member(h);
      const issued = await tokens(h, app, await codeFor(h, a.cookie, app.clientId));
      const refresh = (token: string) =>
        fetch(`${h.s.url}/.auth/idp/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
        });
      const next = (await (await refresh(issued.refresh_token)).json()) as { refresh_token: string };
      h.probes.push(lookupDigest('refresh_token', next.refresh_token) ?? '');
      return async () => byStatus(await refresh(issued.refresh_token));
    },
  },
  // account controls, unlock and reset links from Site admin → Users (their GraphQL mutations and the owner's own
  // changes are in audited-lifecycle.test.ts, with each exact entry)
  { name: 'site admin: suspend a user', arrange: async (h) => { const r = await admin(h); const a = await member(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/users/control', [['id', a.user.id], ['control', 'suspend']])); } },
  {
    name: 'site admin: unlock a user',
    arrange: async (h) => {
      const r = await admin(h);
      const a = await member(h);
      (await h.store.lockouts.put({ userId: a.user.id, failures: 0, lastFailureAt: null, lockedUntil: h.s.clock.now + 1_800_000 }))._unsafeUnwrap();
      return async () => byStatus(await h.post(r.cookie, '/site-admin/users/unlock', [['id', a.user.id]]));
    },
  },
  { name: 'site admin: make a password reset link', arrange: async (h) => { const r = await admin(h); const a = await member(h); return async () => byStatus(await h.post(r.cookie, '/site-admin/users/reset-link', [['id', a.user.id]])); } },
  // the command line
  {
    name: 'gatehouse admin set-password',
    arrange: async (h) => {
      await h.s.user('root', true);
      return () => byRejection(async () => (await setPassword(withFailingAudit(h.store, h.failing), 'root', `${PASSWORD}\n`, { now: () => 0, randomBytes: (n) => new Uint8Array(n).fill(7) }))._unsafeUnwrap());
    },
  },
  {
    name: 'gatehouse admin create-token',
    arrange: async (h) => {
      await h.s.user('root', true);
      return () => byRejection(async () => (await createAdministratorToken(withFailingAudit(h.store, h.failing), 'root', { now: () => 0, randomBytes: (n) => new Uint8Array(n).fill(9) }))._unsafeUnwrap().record.id);
    },
  },
];

/** Runs one row on `base`: the failing run changes nothing; the working run changes something. */
async function check(base: Store, row: Row): Promise<void> {
  const h = await harness(base, row.config);
  try {
    const run = await row.arrange(h);
    const before = await snapshot(h.store, h.probes);
    const logged = h.s.logs.length;
    h.failing.on = true;
    const refused = await run();
    h.failing.on = false;
    expect(refused.failed, `${row.name} with the audit log failing: ${refused.detail}`).toBe(true);
    expect(await snapshot(h.store, h.probes), `${row.name} left the store as it was`).toStrictEqual(before);
    // no `audit` log line claims an entry that was not kept
    expect(h.s.logs.slice(logged).filter((e) => e['event'] === 'audit')).toStrictEqual([]);
    const done = await run();
    expect(done.failed, `${row.name} with the audit log working: ${done.detail}`).toBe(false);
    expect(await snapshot(h.store, h.probes), `${row.name} changes the store when its entry is written`).not.toStrictEqual(before);
  } finally {
    await h.s.close();
  }
}

describe('every audited change is kept only with its audit entry', () => {
  it('should list every audited operation (more than 30 rows)', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(ROWS.map((row) => [row.name, row] as const))('%s: nothing changes when the entry cannot be written (memory store)', async (_name, row) => {
    await check(createMemoryStore(), row);
  });
});

describe('on PostgreSQL (PGlite)', () => {
  let driver: SqlDriver;
  let open: () => Promise<{ store: Store }>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });

  it.each(['registerOAuthApp', 'sign-up', 'settings: change the password'])('%s: nothing changes when the entry cannot be written', async (name) => {
    const row = ROWS.find((r) => r.name === name);
    if (row === undefined) throw new Error(name);
    await check((await open()).store, row);
  }, 60_000);
});
