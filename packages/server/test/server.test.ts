import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../src/session/sessions.js';
import { createGatehouseServer } from '../src/index.js';
import type { UserRecord } from '../src/index.js';
import { cookieFrom, gql, rawRequest, startServer } from './helpers/server.js';
import type { TestServer } from './helpers/server.js';
import { flatStoreOf } from './helpers/flat-store.js';
import { authorizeApproving } from './helpers/oauth-consent-client.js';

const CONFIG = `{
  // built-in sign-up open, default limits except a tight depth limit
  "auth.providers": [{ "type": "builtin", "allowSignup": true }],
  "rateLimits": { "graphQLMaxDepth": 6, "graphQLMaxAliases": 3 },
}`;

const CURRENT_USER = '{ currentUser { username } }';

let s: TestServer;
let admin: UserRecord;
let alice: UserRecord;
let demoted: UserRecord;
const secrets: string[] = [];
let adminSudo = '';
let adminPlain = '';
let aliceToken = '';
let demotedSudo = '';
let deletedToken = '';
let expiringToken = '';

beforeAll(async () => {
  s = await startServer({ siteConfiguration: CONFIG });
  admin = await s.user('admin', true);
  alice = await s.user('alice', false, 'alice@example.com');
  demoted = await s.user('former-admin', true);
  adminSudo = (await s.token(admin, ['user:all', 'site-admin:sudo'])).token;
  adminPlain = (await s.token(admin)).token;
  aliceToken = (await s.token(alice)).token;
  demotedSudo = (await s.token(demoted, ['user:all', 'site-admin:sudo'])).token;
  await flatStoreOf(s.gatehouse.store).setSiteAdmin(demoted.id, false);
  const toDelete = await s.token(alice);
  deletedToken = toDelete.token;
  await flatStoreOf(s.gatehouse.store).deleteAccessToken(toDelete.id);
  // a token that expires in 60 s; the clock is moved past it below
  const expiring = await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "short", expiresInSeconds: 60) { token } }', {
    headers: { authorization: `token ${aliceToken}` },
  });
  expiringToken = (expiring.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
  s.clock.now += 61_000;
  secrets.push(adminSudo, adminPlain, aliceToken, demotedSudo, deletedToken, expiringToken);
});

afterAll(async () => {
  await s.close();
});

/** A token with a valid checksum that the server never issued. */
function unknownButWellFormed(): string {
  // flip the payload of a real token and fix nothing: the checksum then fails; instead reuse the format of a
  // deleted token, which is well formed and unknown
  return deletedToken;
}

describe('Authorization header (spec §5.1, §6)', () => {
  const rows: readonly { ref: string; header: () => string | undefined; status: number; expected: unknown }[] = [
    { ref: '§5.1 rule 1 token', header: () => `token ${aliceToken}`, status: 200, expected: { data: { currentUser: { username: 'alice' } } } },
    { ref: '§5.1 token scheme case-insensitive', header: () => `TOKEN ${aliceToken}`, status: 200, expected: { data: { currentUser: { username: 'alice' } } } },
    { ref: '§5.1 token token="…" form', header: () => `token token="${aliceToken}"`, status: 200, expected: { data: { currentUser: { username: 'alice' } } } },
    {
      ref: '§5.1 rule 1/2 token-sudo acts as the target',
      header: () => `token-sudo user="alice",token="${adminSudo}"`,
      status: 200,
      expected: { data: { currentUser: { username: 'alice' } } },
    },
    { ref: '§5.1 rule 2 a sudo token used with token acts as its owner', header: () => `token ${adminSudo}`, status: 200, expected: { data: { currentUser: { username: 'admin' } } } },
    { ref: 'no header: anonymous', header: () => undefined, status: 200, expected: { data: { currentUser: null } } },
    { ref: '§5.1 rule 4 unsupported scheme ignored', header: () => 'Basic dXNlcjpwYXNzd29yZA==', status: 200, expected: { data: { currentUser: null } } },
    { ref: '§5.1 rule 4 Negotiate ignored', header: () => 'Negotiate abcdef', status: 200, expected: { data: { currentUser: null } } },
    {
      ref: 'malformed: empty token',
      header: () => 'token ',
      status: 401,
      expected: { errors: [{ message: 'Invalid Authorization header.', extensions: { code: 'INVALID_AUTHORIZATION_HEADER' } }] },
    },
    {
      ref: 'malformed: token-sudo without user',
      header: () => `token-sudo token="${adminSudo}"`,
      status: 401,
      expected: { errors: [{ message: 'Invalid Authorization header.', extensions: { code: 'INVALID_AUTHORIZATION_HEADER' } }] },
    },
    {
      ref: 'malformed: unterminated quote',
      header: () => `token-sudo user="alice,token="${adminSudo}`,
      status: 401,
      expected: { errors: [{ message: 'Invalid Authorization header.', extensions: { code: 'INVALID_AUTHORIZATION_HEADER' } }] },
    },
    {
      ref: 'unknown token (bad checksum, rejected before lookup)',
      header: () => `token gat_${'a'.repeat(39)}`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: 'unknown token (not ours at all)',
      header: () => 'token 0123456789abcdef0123456789abcdef01234567',
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: 'deleted token',
      header: () => `token ${unknownButWellFormed()}`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: 'expired token',
      header: () => `token ${expiringToken}`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: '§5.1 rule 2 sudo token without site-admin:sudo',
      header: () => `token-sudo user="admin",token="${aliceToken}"`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: '§5.1 rule 2 sudo with a plain admin token (no site-admin:sudo)',
      header: () => `token-sudo user="alice",token="${adminPlain}"`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
    {
      ref: '§5.1 rule 2 sudo by a demoted owner',
      header: () => `token-sudo user="alice",token="${demotedSudo}"`,
      status: 403,
      expected: { errors: [{ message: 'The access token owner is not a site administrator.', extensions: { code: 'SUDO_FORBIDDEN' } }] },
    },
    {
      ref: '§5.1 rule 2 sudo to an unknown account',
      header: () => `token-sudo user="nobody",token="${adminSudo}"`,
      status: 403,
      expected: { errors: [{ message: 'No such user to act as.', extensions: { code: 'SUDO_FORBIDDEN' } }] },
    },
    {
      ref: 'deleted token under token-sudo',
      header: () => `token-sudo user="alice",token="${deletedToken}"`,
      status: 401,
      expected: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    },
  ];

  it.each(rows)('$ref', async ({ header, status, expected }) => {
    const value = header();
    const answer = await gql(s.url, CURRENT_USER, { headers: value === undefined ? {} : { authorization: value } });
    expect({ status: answer.status, body: answer.body }).toStrictEqual({ status, body: expected });
    if (status === 401) expect(answer.headers.get('www-authenticate')).toContain('token');
  });

  it('should refuse several Authorization headers with 401', async () => {
    const answer = await rawRequest(s.url, {
      headers: { 'content-type': 'application/json', authorization: [`token ${aliceToken}`, `token ${adminPlain}`] },
      body: JSON.stringify({ query: CURRENT_USER }),
    });
    expect({ status: answer.status, body: JSON.parse(answer.text) as unknown }).toStrictEqual({
      status: 401,
      body: { errors: [{ message: 'Invalid Authorization header.', extensions: { code: 'INVALID_AUTHORIZATION_HEADER' } }] },
    });
  });

  it('should record auth.accessToken / failed / invalid Authorization header for an unsupported scheme (§5.1 rule 4, §6 rule 1)', async () => {
    // a new coalescing window: an earlier unsupported scheme from this address in the same window is counted in its entry
    s.clock.now += 60_000;
    const before = (await flatStoreOf(s.gatehouse.store).listAudit(1000)).length;
    await gql(s.url, CURRENT_USER, { headers: { authorization: 'Digest username="x", secret-ish="s3cr3t-digest-value"' } });
    const entries = await flatStoreOf(s.gatehouse.store).listAudit(1000);
    expect(entries.length).toBe(before + 1);
    const { entity, action, reason, actorUserId, subjectUserId, details } = entries[0] ?? {};
    expect({ entity, action, reason, actorUserId, subjectUserId, details }).toStrictEqual({
      entity: 'auth.accessToken',
      action: 'failed',
      reason: 'invalid Authorization header',
      actorUserId: null,
      subjectUserId: null,
      details: { scheme: 'digest', clientAddress: '127.0.0.1' },
    });
  });

  it('should not put any part of a bare secret sent without a scheme into the audit log', async () => {
    // `Authorization: gat_…` (the scheme forgotten): the core reads the secret itself as an unsupported scheme
    s.clock.now += 60_000; // a new coalescing window, so the newest entry is this one
    const answer = await gql(s.url, CURRENT_USER, { headers: { authorization: aliceToken } });
    expect({ status: answer.status, body: answer.body }).toStrictEqual({ status: 200, body: { data: { currentUser: null } } });
    const [entry] = await flatStoreOf(s.gatehouse.store).listAudit(1);
    expect({ entity: entry?.entity, action: entry?.action, reason: entry?.reason, details: entry?.details }).toStrictEqual({
      entity: 'auth.accessToken',
      action: 'failed',
      reason: 'invalid Authorization header',
      details: { scheme: 'other', clientAddress: '127.0.0.1' },
    });
    const prefix = aliceToken.slice(0, 12).toLowerCase();
    expect(JSON.stringify(await flatStoreOf(s.gatehouse.store).listAudit(100_000)).toLowerCase().includes(prefix)).toBe(false);
  });

  it('should record an audit entry naming both accounts for token-sudo', async () => {
    await gql(s.url, CURRENT_USER, { headers: { authorization: `token-sudo user="alice",token="${adminSudo}"` } });
    // sudo uses are counted and written off the request path, at the latest a second later
    await s.gatehouse.flushAudit();
    const [entry] = await flatStoreOf(s.gatehouse.store).listAudit(1);
    expect({ entity: entry?.entity, action: entry?.action, actor: entry?.actorUserId, subject: entry?.subjectUserId }).toStrictEqual({
      entity: 'auth.accessToken',
      action: 'sudo',
      actor: admin.id,
      subject: alice.id,
    });
    expect(entry?.details['actor']).toBe('admin');
    expect(entry?.details['subject']).toBe('alice');
  });

  it('should let a site admin read the audit log through GraphQL, naming both accounts of a sudo', async () => {
    await gql(s.url, CURRENT_USER, { headers: { authorization: `token-sudo user="alice",token="${adminSudo}"` } });
    await s.gatehouse.flushAudit();
    const answer = await gql(s.url, '{ auditLog(first: 1) { entity action actor { username } subject { username } } }', {
      headers: { authorization: `token ${adminPlain}` },
    });
    expect(answer.body).toStrictEqual({
      data: { auditLog: [{ entity: 'auth.accessToken', action: 'sudo', actor: { username: 'admin' }, subject: { username: 'alice' } }] },
    });
  });
});

describe('Bearer: OAuth access tokens (spec §5.1 rule 1)', () => {
  it('should authenticate an OAuth access token with scope user:all as its user', async () => {
    const registered = await gql(
      s.url,
      'mutation { registerOAuthApp(name: "bearer-test", redirectURIs: ["https://app.example/cb"], scopes: ["user:all"]) { clientID clientSecret } }',
      { headers: { authorization: `token ${adminPlain}` } },
    );
    const app = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
    const signedUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'olga', email: 'olga@example.com', password: 'olga password' }),
    });
    const cookie = cookieFrom(signedUp.headers, SESSION_COOKIE) ?? '';
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL(`${s.url}/.auth/idp/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: app.clientID,
      redirect_uri: 'https://app.example/cb',
      scope: 'user:all',
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })) authorize.searchParams.set(k, v);
    // the first authorization of the app shows the consent page: approve it as the person would
    const { response: redirected } = await authorizeApproving(authorize, cookie);
    const code = new URL(redirected.headers.get('location') ?? 'https://invalid/').searchParams.get('code') ?? '';
    const tokenResponse = await fetch(`${s.url}/.auth/idp/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://app.example/cb',
        code_verifier: verifier,
        client_id: app.clientID,
        client_secret: app.clientSecret,
      }).toString(),
    });
    const tokens = (await tokenResponse.json()) as { access_token: string; refresh_token: string; token_type: string };
    secrets.push(app.clientSecret, tokens.access_token, tokens.refresh_token, code);
    expect(tokens.token_type).toBe('Bearer');
    const answer = await gql(s.url, CURRENT_USER, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(answer.body).toStrictEqual({ data: { currentUser: { username: 'olga' } } });
    // an expired OAuth access token is refused like any invalid token
    s.clock.now += 3_601_000;
    const expired = await gql(s.url, CURRENT_USER, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect({ status: expired.status, body: expired.body }).toStrictEqual({
      status: 401,
      body: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    });
  });

  it('should refuse an unknown Bearer token with 401', async () => {
    const answer = await gql(s.url, CURRENT_USER, { headers: { authorization: 'Bearer not-a-real-token' } });
    expect({ status: answer.status, body: answer.body }).toStrictEqual({
      status: 401,
      body: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    });
  });
});

describe('GraphQL schema (spec §2.2)', () => {
  const asAlice = (): Record<string, string> => ({ authorization: `token ${aliceToken}` });
  const asAdmin = (): Record<string, string> => ({ authorization: `token ${adminPlain}` });

  it('should answer currentUser with siteAdmin and emails', async () => {
    const answer = await gql(s.url, '{ currentUser { username siteAdmin emails { email verified } } }', { headers: asAlice() });
    expect(answer.body).toStrictEqual({
      data: { currentUser: { username: 'alice', siteAdmin: false, emails: [{ email: 'alice@example.com', verified: true }] } },
    });
  });

  it('should answer search with results.matchCount', async () => {
    const answer = await gql(s.url, '{ search(query: "x") { results { matchCount } } }', { headers: asAlice() });
    expect(answer.body).toStrictEqual({ data: { search: { results: { matchCount: 0 } } } });
  });

  it('should create a token whose secret works once shown, then delete it', async () => {
    const created = await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "ci") { id token scopes note } }', { headers: asAlice() });
    const value = (created.body as { data: { createAccessToken: { id: string; token: string; scopes: string[]; note: string } } }).data.createAccessToken;
    secrets.push(value.token);
    expect({ scopes: value.scopes, note: value.note }).toStrictEqual({ scopes: ['user:all'], note: 'ci' });
    expect((await gql(s.url, CURRENT_USER, { headers: { authorization: `token ${value.token}` } })).body).toStrictEqual({
      data: { currentUser: { username: 'alice' } },
    });
    // the secret is never shown again
    const listed = await gql(s.url, '{ currentUser { accessTokens { id note } } }', { headers: asAlice() });
    expect(listed.text).not.toContain(value.token);
    const deleted = await gql(s.url, `mutation { deleteAccessToken(id: "${value.id}") }`, { headers: asAlice() });
    expect(deleted.body).toStrictEqual({ data: { deleteAccessToken: true } });
    expect((await gql(s.url, CURRENT_USER, { headers: { authorization: `token ${value.token}` } })).status).toBe(401);
  });

  const denials: readonly { ref: string; query: string; code: string }[] = [
    { ref: '§2.3 only admins create site-admin:sudo', query: 'mutation { createAccessToken(scopes: ["user:all", "site-admin:sudo"], note: "x") { id } }', code: 'FORBIDDEN' },
    { ref: 'every token carries user:all', query: 'mutation { createAccessToken(scopes: [], note: "x") { id } }', code: 'MISSING_USER_ALL_SCOPE' },
    { ref: 'unknown scope', query: 'mutation { createAccessToken(scopes: ["user:all", "repo"], note: "x") { id } }', code: 'UNKNOWN_SCOPE' },
    { ref: 'token for another account', query: 'mutation { createAccessToken(user: "1", scopes: ["user:all"], note: "x") { id } }', code: 'FORBIDDEN' },
    { ref: 'createUser is for site admins', query: 'mutation { createUser(username: "zed") { id } }', code: 'FORBIDDEN' },
    { ref: 'createServiceAccount is for site admins', query: 'mutation { createServiceAccount(username: "bot") { id } }', code: 'FORBIDDEN' },
    { ref: 'setUserIsSiteAdmin is for site admins', query: 'mutation { setUserIsSiteAdmin(userID: "2", siteAdmin: true) { id } }', code: 'FORBIDDEN' },
    { ref: 'registerOAuthApp is for site admins', query: 'mutation { registerOAuthApp(name: "a", redirectURIs: ["https://a.example/cb"], scopes: ["user:all"]) { clientID } }', code: 'FORBIDDEN' },
    { ref: 'auditLog is for site admins', query: '{ auditLog { id } }', code: 'FORBIDDEN' },
  ];

  it.each(denials)('should refuse for a non-admin: $ref', async ({ query, code }) => {
    const answer = await gql(s.url, query, { headers: asAlice() });
    const errors = (answer.body as { errors?: { extensions?: { code?: string } }[] }).errors ?? [];
    expect({ status: answer.status, codes: errors.map((e) => e.extensions?.code) }).toStrictEqual({ status: 200, codes: [code] });
  });

  it('should refuse anonymous mutations with UNAUTHENTICATED', async () => {
    const answer = await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "x") { id } }');
    expect((answer.body as { errors: { extensions: { code: string } }[] }).errors.map((e) => e.extensions.code)).toStrictEqual(['UNAUTHENTICATED']);
  });

  it('should let a site admin create an account ahead of sign-in with a verified email (§5.3 hosta rule 2)', async () => {
    const answer = await gql(s.url, 'mutation { createUser(username: "carol", email: "carol@example.com") { username siteAdmin emails { email verified } } }', {
      headers: asAdmin(),
    });
    expect(answer.body).toStrictEqual({
      data: { createUser: { username: 'carol', siteAdmin: false, emails: [{ email: 'carol@example.com', verified: true }] } },
    });
    expect((await flatStoreOf(s.gatehouse.store).findUserByVerifiedEmail('carol@example.com'))?.username).toBe('carol');
  });

  it('should refuse a username that breaks §5.5 (rule 7) and a taken username, leaving the store unchanged', async () => {
    const before = (await flatStoreOf(s.gatehouse.store).listUsers()).length;
    const bad = await gql(s.url, 'mutation { createUser(username: "-bad..name") { id } }', { headers: asAdmin() });
    const taken = await gql(s.url, 'mutation { createUser(username: "ALICE") { id } }', { headers: asAdmin() });
    const codes = [bad, taken].map((a) => (a.body as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code);
    expect(codes).toStrictEqual(['INVALID_USERNAME', 'USERNAME_TAKEN']);
    expect((await flatStoreOf(s.gatehouse.store).listUsers()).length).toBe(before);
  });

  it('should let a site admin create a service account and a token for it', async () => {
    const created = await gql(s.url, 'mutation { createServiceAccount(username: "ci-bot") { id serviceAccount } }', { headers: asAdmin() });
    const bot = (created.body as { data: { createServiceAccount: { id: string; serviceAccount: boolean } } }).data.createServiceAccount;
    expect(bot.serviceAccount).toBe(true);
    const token = await gql(s.url, `mutation { createAccessToken(user: "${bot.id}", scopes: ["user:all"], note: "ci") { token } }`, { headers: asAdmin() });
    const secret = (token.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    secrets.push(secret);
    expect((await gql(s.url, CURRENT_USER, { headers: { authorization: `token ${secret}` } })).body).toStrictEqual({
      data: { currentUser: { username: 'ci-bot' } },
    });
  });

  it('should let a site admin grant and revoke site admin, effective on the next request', async () => {
    const bob = await s.user('bob');
    const bobToken = (await s.token(bob)).token;
    secrets.push(bobToken);
    const grant = await gql(s.url, `mutation { setUserIsSiteAdmin(userID: "${bob.id}", siteAdmin: true) { siteAdmin } }`, { headers: asAdmin() });
    expect(grant.body).toStrictEqual({ data: { setUserIsSiteAdmin: { siteAdmin: true } } });
    expect((await gql(s.url, '{ auditLog(first: 1) { action } }', { headers: { authorization: `token ${bobToken}` } })).body).toStrictEqual({
      data: { auditLog: [{ action: 'site_admin_granted' }] },
    });
    await gql(s.url, `mutation { setUserIsSiteAdmin(userID: "${bob.id}", siteAdmin: false) { siteAdmin } }`, { headers: asAdmin() });
    const after = await gql(s.url, '{ auditLog(first: 1) { action } }', { headers: { authorization: `token ${bobToken}` } });
    expect((after.body as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('FORBIDDEN');
  });

  it('should refuse to revoke the last site administrator with LAST_SITE_ADMIN, changing nothing', async () => {
    expect(await s.gatehouse.store.accounts.countSiteAdmins()).toBe(1);
    const audited = (await s.gatehouse.store.audit.list(1))[0]?.id;
    const answer = await gql(s.url, `mutation { setUserIsSiteAdmin(userID: "${admin.id}", siteAdmin: false) { siteAdmin } }`, { headers: asAdmin() });
    const errors = (answer.body as { errors: { extensions: { code: string } }[] }).errors;
    expect(errors.map((e) => e.extensions.code)).toStrictEqual(['LAST_SITE_ADMIN']);
    expect((await s.gatehouse.store.accounts.get(admin.id))?.siteAdmin).toBe(true);
    expect((await s.gatehouse.store.audit.list(1))[0]?.id).toBe(audited);
  });

  it('should register an OAuth app for a site admin and return the client id and secret', async () => {
    const answer = await gql(
      s.url,
      'mutation { registerOAuthApp(name: "tool", redirectURIs: ["https://tool.example/callback"], scopes: ["user:all"]) { clientID clientSecret } }',
      { headers: asAdmin() },
    );
    const app = (answer.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
    secrets.push(app.clientSecret);
    expect(app.clientID.length).toBeGreaterThan(0);
    expect(app.clientSecret.length).toBeGreaterThan(0);
  });
});

describe('Query cost limits (spec §8)', () => {
  const rows: readonly { ref: string; query: string; status: number; expected: unknown }[] = [
    {
      ref: '§8 graphQLMaxAliases exceeded (limit 3)',
      query: '{ a: currentUser { username } b: currentUser { username } c: currentUser { username } d: currentUser { username } }',
      status: 400,
      expected: {
        errors: [{ message: 'Query exceeds maximum alias count limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 3, actual: 4 } }],
      },
    },
    {
      ref: '§8 graphQLMaxDepth exceeded (limit 6), one error per exceeded limit',
      query: '{ x1: __schema { x2: types { fields { type { ofType { ofType { name } } } } } } }',
      status: 400,
      expected: {
        errors: [
          { message: 'Query exceeds maximum query depth limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 6, actual: 7 } },
        ],
      },
    },
    {
      ref: '§8 several limits exceeded at once: one error each, in the core order',
      query: '{ a: __schema { b: types { c: fields { d: type { ofType { ofType { name } } } } } } }',
      status: 400,
      expected: {
        errors: [
          { message: 'Query exceeds maximum alias count limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 3, actual: 4 } },
          { message: 'Query exceeds maximum query depth limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 6, actual: 7 } },
        ],
      },
    },
    {
      ref: 'depth through fragments is counted',
      query: '{ __schema { types { ...F } } } fragment F on __Type { fields { type { ofType { ofType { name } } } } }',
      status: 400,
      expected: {
        errors: [{ message: 'Query exceeds maximum query depth limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 6, actual: 7 } }],
      },
    },
    {
      ref: 'analysis error (fragment cycle) is a 400, never run unchecked',
      query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
      status: 400,
      expected: {
        errors: [
          {
            message: 'Query cost cannot be measured: fragment "A" spreads itself.',
            extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason: 'fragment_cycle' },
          },
        ],
      },
    },
    {
      ref: 'analysis error (unknown fragment) is a 400',
      query: '{ ...Missing }',
      status: 400,
      expected: {
        errors: [{ message: 'Query cost cannot be measured: unknown fragment "Missing".', extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason: 'unknown_fragment' } }],
      },
    },
    {
      ref: '§8 at the limit passes (depth 6, aliases 3)',
      query: '{ a: __schema { b: types { c: fields { type { ofType { name } } } } } }',
      status: 200,
      expected: null,
    },
  ];

  it.each(rows)('$ref', async ({ query, status, expected }) => {
    const answer = await gql(s.url, query);
    expect(answer.status).toBe(status);
    if (expected !== null) expect(answer.body).toStrictEqual(expected);
    else expect(answer.body).toHaveProperty('data');
  });

  it('should refuse a document over the token limit with a 400', async () => {
    const query = `{ ${'__typename '.repeat(20_000)}}`;
    const answer = await gql(s.url, query);
    expect(answer.status).toBe(400);
    expect((answer.body as { errors: { message: string }[] }).errors[0]?.message).toBe('Query exceeds maximum token count limit');
  });
});

describe('Browser sessions', () => {
  const json = (body: unknown, cookie?: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
    redirect: 'manual',
  });

  it('should sign up, set an HttpOnly SameSite=Lax cookie, and need the CSRF header on the API', async () => {
    const res = await fetch(`${s.url}/.auth/sign-up`, json({ username: 'dora', email: 'dora@example.com', password: 'correct horse battery' }));
    expect(res.status).toBe(201);
    const setCookie = res.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = cookieFrom(res.headers, SESSION_COOKIE) ?? '';
    const withoutHeader = await gql(s.url, CURRENT_USER, { headers: { cookie } });
    expect({ status: withoutHeader.status, body: withoutHeader.body }).toStrictEqual({
      status: 403,
      body: {
        errors: [{ message: 'Requests authenticated by the session cookie must carry the X-Requested-With header.', extensions: { code: 'CSRF_HEADER_MISSING' } }],
      },
    });
    const withHeader = await gql(s.url, CURRENT_USER, { headers: { cookie, 'x-requested-with': 'gatehouse' } });
    expect(withHeader.body).toStrictEqual({ data: { currentUser: { username: 'dora' } } });
    // a token-authenticated request needs no CSRF header, even with a cookie present
    const withToken = await gql(s.url, CURRENT_USER, { headers: { cookie, authorization: `token ${aliceToken}` } });
    expect(withToken.body).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  it('should rotate the session id at sign-in and end it at sign-out', async () => {
    const signedUp = await fetch(`${s.url}/.auth/sign-up`, json({ username: 'erin', email: 'erin@example.com', password: 'a long password' }));
    const first = cookieFrom(signedUp.headers, SESSION_COOKIE) ?? '';
    const signedIn = await fetch(`${s.url}/.auth/sign-in`, json({ username: 'erin', password: 'a long password' }, first));
    expect(signedIn.status).toBe(200);
    const second = cookieFrom(signedIn.headers, SESSION_COOKIE) ?? '';
    expect(second).not.toBe(first);
    const csrf = { 'x-requested-with': 'gatehouse' };
    expect((await gql(s.url, CURRENT_USER, { headers: { cookie: first, ...csrf } })).body).toStrictEqual({ data: { currentUser: null } });
    expect((await gql(s.url, CURRENT_USER, { headers: { cookie: second, ...csrf } })).body).toStrictEqual({ data: { currentUser: { username: 'erin' } } });
    const out = await fetch(`${s.url}/.auth/sign-out`, json({}, second));
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join('\n')).toMatch(/Max-Age=0/);
    expect((await gql(s.url, CURRENT_USER, { headers: { cookie: second, ...csrf } })).body).toStrictEqual({ data: { currentUser: null } });
  });

  const refusals: readonly { ref: string; path: string; body: Record<string, string>; status: number; code: string }[] = [
    { ref: 'wrong password', path: '/.auth/sign-in', body: { username: 'erin', password: 'not the password' }, status: 401, code: 'invalid_credentials' },
    { ref: 'unknown user', path: '/.auth/sign-in', body: { username: 'nobody', password: 'whatever1' }, status: 401, code: 'invalid_credentials' },
    { ref: 'account without password', path: '/.auth/sign-in', body: { username: 'alice', password: 'whatever1' }, status: 401, code: 'invalid_credentials' },
    { ref: '§5.5 rule 7 username breaking the rules', path: '/.auth/sign-up', body: { username: 'bad name', email: 'b@example.com', password: 'password1' }, status: 400, code: 'invalid_username' },
    { ref: '§5.5 rule 7 leading dot', path: '/.auth/sign-up', body: { username: '.dot', email: 'b@example.com', password: 'password1' }, status: 400, code: 'invalid_username' },
    { ref: 'taken username (case ignored)', path: '/.auth/sign-up', body: { username: 'ERIN', email: 'e2@example.com', password: 'password1' }, status: 409, code: 'username_taken' },
    { ref: 'short password', path: '/.auth/sign-up', body: { username: 'fay', email: 'f@example.com', password: 'short' }, status: 400, code: 'password_too_short' },
    { ref: 'missing email', path: '/.auth/sign-up', body: { username: 'fay', password: 'password1' }, status: 400, code: 'invalid_email' },
  ];

  it.each(refusals)('should refuse: $ref', async ({ path, body, status, code }) => {
    const res = await fetch(`${s.url}${path}`, json(body));
    expect({ status: res.status, body: ((await res.json()) as { error: { code: string } }).error.code }).toStrictEqual({ status, body: code });
    expect(res.headers.getSetCookie()).toStrictEqual([]);
  });

  it('should refuse a taken username before hashing the password (no scrypt, no random bytes drawn)', async () => {
    let draws = 0;
    const counted = await startServer({
      siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
      randomBytes: (n) => {
        draws++;
        return new Uint8Array(n).fill(7);
      },
    });
    try {
      await counted.user('gina');
      const before = draws;
      const res = await fetch(`${counted.url}/.auth/sign-up`, json({ username: 'GINA', email: 'g@example.com', password: 'a long password' }));
      expect(res.status).toBe(409);
      expect(draws).toBe(before);
    } finally {
      await counted.close();
    }
  });

  it('should refuse a cross-origin form post', async () => {
    const res = await fetch(`${s.url}/.auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: 'username=erin&password=a+long+password',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toStrictEqual([]);
  });

  it('should sign in with a form and redirect to a local returnTo only', async () => {
    const form = (returnTo: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'erin', password: 'a long password', returnTo }).toString(),
      redirect: 'manual',
    });
    const local = await fetch(`${s.url}/.auth/sign-in`, form('/debug/console?x=1'));
    const offsite = await fetch(`${s.url}/.auth/sign-in`, form('//evil.example/'));
    // a character Node refuses in a Location header must not turn a good sign-in into a 500 without a cookie
    const nonAscii = await fetch(`${s.url}/.auth/sign-in`, form('/\u20ac'));
    // without a usable returnTo, a browser lands in the settings area
    expect([local.status, local.headers.get('location'), offsite.status, offsite.headers.get('location')]).toStrictEqual([
      303,
      '/debug/console?x=1',
      303,
      '/settings',
    ]);
    expect([nonAscii.status, nonAscii.headers.get('location'), nonAscii.headers.getSetCookie().length]).toStrictEqual([303, '/settings', 1]);
  });

  it('should honour allowSignup false of the builtin provider and use Secure cookies on https', async () => {
    const closed = await startServer({
      siteConfiguration: '{ "externalURL": "https://search.example.com", "auth.providers": [{ "type": "builtin" }] }',
    });
    try {
      const res = await fetch(`${closed.url}/.auth/sign-up`, json({ username: 'gus', email: 'g@example.com', password: 'password1' }));
      expect({ status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code }).toStrictEqual({
        status: 403,
        code: 'signup_not_allowed',
      });
      expect(await flatStoreOf(closed.gatehouse.store).findUserByUsername('gus')).toBeNull();
      const { hashPassword } = await import('../src/session/sessions.js');
      await flatStoreOf(closed.gatehouse.store).createUser({
        username: 'hal',
        origin: 'admin_created',
        siteAdmin: false,
        serviceAccount: false,
        emails: [],
        passwordHash: await hashPassword('password123', (n) => new Uint8Array(n).fill(7)),
        createdAt: 0,
      });
      const signIn = await fetch(`${closed.url}/.auth/sign-in`, json({ username: 'hal', password: 'password123' }));
      expect(signIn.status).toBe(200);
      expect(signIn.headers.getSetCookie().join('\n')).toMatch(/; Secure/);
    } finally {
      await closed.close();
    }
  });
});

describe('Routing', () => {
  it('should serve the console page with its assets from this server', async () => {
    const page = await fetch(`${s.url}/debug/console`);
    const html = await page.text();
    expect(page.status).toBe(200);
    const assets = [...html.matchAll(/<(?:script src|link rel="stylesheet" href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      expect(asset.startsWith('/debug/console/assets/')).toBe(true);
      expect((await fetch(`${s.url}${asset}`)).status).toBe(200);
    }
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('should answer unknown paths with 404 and let added routes serve their paths', async () => {
    const extra = await startServer({
      routes: [
        {
          method: 'GET',
          path: '/.auth/example/callback',
          handle: async (_req, res, url) => {
            res.writeHead(200, { 'content-type': 'text/plain' }).end(`state=${url.searchParams.get('state') ?? ''}`);
          },
        },
      ],
    });
    try {
      expect((await fetch(`${extra.url}/nope`)).status).toBe(404);
      const routed = await fetch(`${extra.url}/.auth/example/callback?state=abc`);
      expect([routed.status, await routed.text()]).toStrictEqual([200, 'state=abc']);
    } finally {
      await extra.close();
    }
  });
});

describe('No secret in logs or audit', () => {
  it('should never write a token secret, password or raw Authorization value to the log or the audit log', async () => {
    const rawHeaders = ['Basic dXNlcjpwYXNzd29yZA==', 'Negotiate abcdef', 'secret-ish="s3cr3t-digest-value"', 'correct horse battery', 'a long password'];
    const audit = JSON.stringify(await flatStoreOf(s.gatehouse.store).listAudit(100_000));
    const logs = JSON.stringify(s.logs);
    expect(s.logs.length).toBeGreaterThan(20);
    for (const needle of [...secrets, ...rawHeaders]) {
      expect(needle.length).toBeGreaterThan(8);
      expect(audit.includes(needle)).toBe(false);
      expect(logs.includes(needle)).toBe(false);
    }
    // the capture works: a non-secret value that is logged is found
    expect(logs.includes('/.api/graphql')).toBe(true);
  });
});

describe('Password sign-in throttle ((built-in sign-in))', () => {
  // the throttle alone: the account lockout (auth.lockout, sign-in/lockout.test.ts) is set past these failures
  const BUILTIN = '{ "auth.providers": [{ "type": "builtin" }], "auth.lockout": { "failedAttemptThreshold": 1000 } }';
  const PASSWORD = 'the right password';

  async function withAccount(server: TestServer, username: string): Promise<void> {
    const { hashPassword } = await import('../src/session/sessions.js');
    const created = await flatStoreOf(server.gatehouse.store).createUser({
      username,
      origin: 'admin_created',
      siteAdmin: false,
      serviceAccount: false,
      emails: [],
      passwordHash: await hashPassword(PASSWORD, (n) => new Uint8Array(n).fill(3)),
      createdAt: 0,
    });
    expect(created.isOk()).toBe(true);
  }

  interface Attempt {
    readonly status: number;
    readonly retryAfter: string | null;
    readonly body: unknown;
  }

  async function attempt(server: TestServer, username: string, password: string): Promise<Attempt> {
    const res = await fetch(`${server.url}/.auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      redirect: 'manual',
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  }

  const invalid: Attempt = { status: 401, retryAfter: null, body: { error: { code: 'invalid_credentials', message: 'Invalid username or password.' } } };
  const throttled = (seconds: number): Attempt => ({
    status: 429,
    retryAfter: String(seconds),
    body: { error: { code: 'too_many_attempts', message: `Too many failed sign-in attempts. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.` } },
  });

  async function failedAudits(server: TestServer): Promise<number> {
    return (await flatStoreOf(server.gatehouse.store).listAudit(100_000)).filter((e) => e.entity === 'auth.session' && e.action === 'failed').length;
  }

  it('should answer 429 with Retry-After after 5 failures, before checking the password, then back off exponentially', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      await withAccount(server, 'ivy');
      const answers: Attempt[] = [];
      for (let i = 0; i < 5; i++) answers.push(await attempt(server, 'ivy', `wrong ${i}`));
      expect(answers).toStrictEqual([invalid, invalid, invalid, invalid, invalid]);
      const auditsBefore = await failedAudits(server);
      // the right password is refused too while throttled: the password is never checked (no scrypt, no audit)
      expect(await attempt(server, 'ivy', PASSWORD)).toStrictEqual(throttled(1));
      expect(await attempt(server, 'ivy', 'wrong again')).toStrictEqual(throttled(1));
      expect(await failedAudits(server)).toBe(auditsBefore);
      server.clock.now += 1_000;
      expect(await attempt(server, 'ivy', 'wrong 6')).toStrictEqual(invalid);
      expect(await attempt(server, 'ivy', PASSWORD)).toStrictEqual(throttled(2));
      server.clock.now += 2_000;
      expect(await attempt(server, 'ivy', 'wrong 7')).toStrictEqual(invalid);
      expect(await attempt(server, 'ivy', 'wrong 8')).toStrictEqual(throttled(4));
      server.clock.now += 4_000;
      // a success clears the username's failures
      expect((await attempt(server, 'ivy', PASSWORD)).status).toBe(200);
      expect(await attempt(server, 'ivy', 'wrong 9')).toStrictEqual(invalid);
    } finally {
      await server.close();
    }
  });

  it('should throttle an unknown username exactly like a known one (no user enumeration)', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      await withAccount(server, 'jack');
      const run = async (username: string): Promise<Attempt[]> => {
        const answers: Attempt[] = [];
        for (let i = 0; i < 7; i++) answers.push(await attempt(server, username, `wrong ${i}`));
        return answers;
      };
      const known = await run('jack');
      const unknown = await run('nobody-here');
      expect(unknown).toStrictEqual(known);
      expect(known.map((a) => a.status)).toStrictEqual([401, 401, 401, 401, 401, 429, 429]);
    } finally {
      await server.close();
    }
  });

  it('should key the failures by the username as the store looks it up (case folded)', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      await withAccount(server, 'kim');
      for (const name of ['kim', 'KIM', 'Kim', 'kIm', 'KiM']) expect(await attempt(server, name, 'wrong')).toStrictEqual(invalid);
      expect(await attempt(server, 'kim', PASSWORD)).toStrictEqual(throttled(1));
      // another username is not affected
      expect(await attempt(server, 'someone-else', 'wrong')).toStrictEqual(invalid);
    } finally {
      await server.close();
    }
  });

  it('should let no more than the free failures through when attempts arrive at once', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      await withAccount(server, 'lea');
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(server, 'lea', `wrong ${i}`)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toStrictEqual([...Array<number>(5).fill(401), ...Array<number>(7).fill(429)]);
    } finally {
      await server.close();
    }
  });

  it('should answer a throttled HTML form with 429, Retry-After and the sign-in page showing why', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      for (let i = 0; i < 5; i++) await attempt(server, 'mo', 'wrong');
      const res = await fetch(`${server.url}/.auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'mo', password: 'wrong', returnTo: '/x' }).toString(),
        redirect: 'manual',
      });
      const html = await res.text();
      expect([res.status, res.headers.get('retry-after'), res.headers.get('content-type')]).toStrictEqual([429, '1', 'text/html; charset=utf-8']);
      expect(html).toContain('<p class="notice error" role="alert">Too many failed sign-in attempts. Try again in 1 second.</p>');
      expect(html).toContain('<form method="post" action="/.auth/sign-in">');
      // the page's form token cookie at most: never a session
      expect(res.headers.getSetCookie().filter((c) => !c.startsWith('gatehouse_csrf='))).toStrictEqual([]);
    } finally {
      await server.close();
    }
  });

  it('should forget failures after 15 quiet minutes', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN });
    try {
      // 10 failures, each after the wait the one before imposed: never throttled, never quiet for 15 minutes
      for (let count = 1; count <= 10; count++) {
        expect(await attempt(server, 'ned', 'wrong')).toStrictEqual(invalid);
        if (count < 10) server.clock.now += count < 5 ? 0 : 1000 * 2 ** (count - 5);
      }
      expect(await attempt(server, 'ned', 'wrong')).toStrictEqual(throttled(32));
      server.clock.now += 15 * 60_000;
      // forgotten, not merely waited out: the next failures are free again
      expect(await attempt(server, 'ned', 'wrong')).toStrictEqual(invalid);
      expect(await attempt(server, 'ned', 'wrong')).toStrictEqual(invalid);
    } finally {
      await server.close();
    }
  });

  it('should throttle per client address too when configured, and a success does not clear the address', async () => {
    const policy = { freeFailures: 3, baseDelayMs: 10_000, maxDelayMs: 60_000, forgetAfterMs: 600_000 };
    const server = await startServer({ siteConfiguration: BUILTIN, signInThrottle: { clientAddressPolicy: policy } });
    try {
      await withAccount(server, 'olga');
      expect((await attempt(server, 'olga', PASSWORD)).status).toBe(200);
      // spraying one guess over many usernames from one address
      const answers: Attempt[] = [];
      for (const name of ['p1', 'p2', 'p3', 'p4']) answers.push(await attempt(server, name, 'guess'));
      expect(answers).toStrictEqual([invalid, invalid, invalid, throttled(10)]);
      server.clock.now += 10_000;
      expect((await attempt(server, 'olga', PASSWORD)).status).toBe(200);
      expect(await attempt(server, 'p5', 'guess')).toStrictEqual(throttled(10));
    } finally {
      await server.close();
    }
  });

  it('should keep at most maxEntries usernames, evicting the oldest un-throttled one while full and never a throttled one (memory bound)', async () => {
    const server = await startServer({ siteConfiguration: BUILTIN, signInThrottle: { maxEntries: 2 } });
    try {
      for (let i = 0; i < 5; i++) await attempt(server, 'pat', 'wrong');
      expect((await attempt(server, 'pat', 'wrong')).status).toBe(429);
      await attempt(server, 'q1', 'wrong');
      expect((await attempt(server, 'pat', 'wrong')).status).toBe(429);
      // the table holds 'pat' (throttled) and 'q1' (one failure): 'q2' takes q1's place, and 'pat' stays throttled
      expect((await attempt(server, 'q2', 'wrong')).status).toBe(401);
      expect((await attempt(server, 'pat', 'wrong')).status).toBe(429);
      // with 'pat' and 'q2' throttled, a new username is refused until a record expires
      for (let i = 0; i < 4; i++) await attempt(server, 'q2', 'wrong');
      expect((await attempt(server, 'q2', 'wrong')).status).toBe(429);
      expect((await attempt(server, 'q3', 'wrong')).status).toBe(503);
    } finally {
      await server.close();
    }
  });

  it('should refuse an invalid throttle configuration at start', () => {
    expect(() => createGatehouseServer({ signInThrottle: { policy: { freeFailures: -1, baseDelayMs: 1, maxDelayMs: 1, forgetAfterMs: 1 } } })).toThrow(
      /signInThrottle\.policy/,
    );
    expect(() => createGatehouseServer({ signInThrottle: { maxEntries: 0 } })).toThrow(/maxEntries/);
  });
});
