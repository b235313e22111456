/**
 * Text PostgreSQL cannot hold (U+0000, an unpaired surrogate) is refused where it enters, naming the field, and a
 * driver's message never reaches a response. On the embedded PostgreSQL (PGlite), the requests that answered 500
 * or PostgreSQL's own words are answered 400 or `BAD_USER_INPUT`; then generated strings (NUL, surrogates, control
 * characters, very long) go through every route's query string, the forms, the JSON bodies and every GraphQL
 * argument, as literals and as variables: no answer is a 5xx and nothing is logged as a `store_error`.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store } from '../../src/store/types.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const CONFIG = JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }] });

let driver: SqlDriver;
let store: Store;
let s: TestServer;
let adminToken = '';
let adminCookie = '';
let clientId = '';

beforeAll(async () => {
  driver = await openPgliteDriver({ memory: true });
  store = (await (await reusingOpener(driver))()).store;
  s = await startServer({ store, siteConfiguration: CONFIG });
  const admin = await s.user('root', true);
  adminToken = (await s.token(admin, ['user:all', 'site-admin:sudo'])).token;
  const id = createHash('sha256').update('admin session').digest('base64url');
  const digest = createHash('sha256').update(id).digest('hex');
  (await store.sessions.create({ digest, userId: admin.id, createdAt: s.clock.now, expiresAt: s.clock.now + 3_600_000, lastSeenAt: s.clock.now, userAgent: '' }, 10))._unsafeUnwrap();
  adminCookie = `${SESSION_COOKIE}=${id}`;
  const app = await gql(s.url, 'mutation { registerOAuthApp(name: "tool", redirectURIs: ["https://app.example/cb"], scopes: ["user:all"]) { clientID } }', {
    headers: { authorization: `token ${adminToken}` },
  });
  clientId = (app.body as { data: { registerOAuthApp: { clientID: string } } }).data.registerOAuthApp.clientID;
}, 120_000);

afterAll(async () => {
  await s.close();
  await driver.close();
});

/** What PostgreSQL says about such text; none of it may reach a client. */
const DRIVER_WORDS = /invalid byte sequence|unsupported Unicode escape|Unicode (low|high) surrogate|0x00|syntax error at|violates/i;

const storeErrors = (): readonly unknown[] => s.logs.filter((e) => e['event'] === 'store_error' || (e['event'] === 'internal_error' && e['level'] === 'error'));

const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
const json = (path: string, body: unknown) => fetch(`${s.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { redirect: 'manual', headers });
const api = (query: string, variables?: Record<string, unknown>) => gql(s.url, query, { headers: { authorization: `token ${adminToken}` }, ...(variables === undefined ? {} : { variables }) });

describe('the requests that reached PostgreSQL', () => {
  it.each([
    ['anonymous authorize with client_id=%00', () => get('/.auth/idp/oauth/authorize?client_id=%00&response_type=code'), 'client_id'],
    ['token endpoint with client_id=%00', () => form('/.auth/idp/oauth/token', { grant_type: 'authorization_code', code: 'x', client_id: '\u0000' }), 'client_id'],
    ['revocation endpoint with client_id=%00', () => form('/.auth/idp/oauth/revoke', { token: 'x', client_id: '\u0000' }), 'client_id'],
    ['sign-up whose email holds NUL (JSON)', () => json('/.auth/sign-up', { username: 'nul', email: 'a\u0000@example.com', password: 'correct horse battery' }), 'email'],
    ['sign-up whose email holds NUL (form)', () => form('/.auth/sign-up', { username: 'nul', email: 'a\u0000@example.com', password: 'correct horse battery' }), 'email'],
    ['sign-in whose username holds a lone surrogate (JSON)', () => json('/.auth/sign-in', { username: 'a\ud800', password: 'x' }), 'username'],
    ['site admin user search for NUL', () => get('/site-admin/users?query=%00', { cookie: adminCookie }), 'query'],
    ['audit log filtered by NUL', () => get('/site-admin/audit-log?entity=%00&action=x', { cookie: adminCookie }), 'entity'],
  ])('%s → 400 naming the field', async (_name, send, field) => {
    const before = storeErrors().length;
    const res = await send();
    const text = await res.text();
    expect(res.status, text).toBe(400);
    expect(text).toContain(field);
    expect(text).not.toMatch(DRIVER_WORDS);
    expect(storeErrors().slice(before)).toStrictEqual([]);
  });

  it.each([
    ['createAccessToken(note: "a\\u0000b") as a literal', 'mutation { createAccessToken(scopes: ["user:all"], note: "a\\u0000b") { id } }', undefined, 'note'],
    ['createAccessToken with the note in a variable', 'mutation($n: String!) { createAccessToken(scopes: ["user:all"], note: $n) { id } }', { n: 'a\u0000b' }, '$n'],
    ['registerOAuthApp(name: "a\\ud800b") in a variable', 'mutation($n: String!) { registerOAuthApp(name: $n, redirectURIs: ["https://x.example/cb"], scopes: ["user:all"]) { clientID } }', { n: 'a\ud800b' }, '$n'],
    ['registerOAuthApp with a lone surrogate in a variable list', 'mutation($u: [String!]!) { registerOAuthApp(name: "n", redirectURIs: $u, scopes: ["user:all"]) { clientID } }', { u: ['https://x.example/\udc00'] }, '$u[0]'],
    ['auditLog(entity: "\\u0000")', '{ auditLog(entity: "\\u0000") { id } }', undefined, 'entity'],
  ])('%s → BAD_USER_INPUT naming it, nothing stored', async (_name, query, variables, field) => {
    const before = storeErrors().length;
    const apps = (await store.oauth.listApps()).length;
    const answer = await api(query, variables);
    expect(answer.text).toContain('"BAD_USER_INPUT"');
    expect(answer.text).toContain(JSON.stringify(field));
    expect(answer.text).not.toMatch(DRIVER_WORDS);
    expect((answer.body as { data?: unknown }).data ?? null).toBeNull();
    expect((await store.oauth.listApps()).length).toBe(apps);
    expect(storeErrors().slice(before)).toStrictEqual([]);
  });

  it('should answer a store failure inside a resolver as a generic INTERNAL_SERVER_ERROR, the detail only in the log', async () => {
    const failing: Store = { ...store, transaction: () => Promise.reject(new Error('relation "accounts" does not exist: 0x00 secret detail')) };
    const other = await startServer({ store: failing, siteConfiguration: CONFIG });
    try {
      const t = await s.token((await s.user('ivy')), ['user:all']);
      const answer = await gql(other.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "n") { id } }', { headers: { authorization: `token ${t.token}` } });
      expect(answer.text).toContain('"INTERNAL_SERVER_ERROR"');
      expect(answer.text).not.toContain('secret detail');
      expect(other.logs.some((e) => e['event'] === 'internal_error' && e['field'] === 'createAccessToken')).toBe(true);
    } finally {
      await other.close();
    }
  });
});

/** Strings that PostgreSQL refuses or that stress the readers: NUL, surrogates, control characters, long text. */
const hostile = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\ud83d\ude00', '\u0001\u001f\u007f', '\ufffd', '%00', '\\u0000', ''),
  fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udfff', '\u0001', '\t', 'a', 'é', '😀', '"', '\\'), maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

/** Every route that reads text, each given one generated string in each of its fields. */
const SENDERS: readonly ((v: string) => Promise<unknown>)[] = [
  (v) => get(`/.auth/idp/oauth/authorize?${new URLSearchParams({ client_id: v, response_type: 'code', redirect_uri: v, state: v, scope: v })}`),
  (v) => get(`/.auth/idp/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: v, state: v, code_challenge: v })}`, { cookie: adminCookie }),
  (v) => form('/.auth/idp/oauth/token', { grant_type: 'authorization_code', code: v, client_id: v, client_secret: v, redirect_uri: v, code_verifier: v }),
  (v) => form('/.auth/idp/oauth/token', { grant_type: 'refresh_token', refresh_token: v, client_id: clientId, client_secret: v }),
  (v) => form('/.auth/idp/oauth/revoke', { token: v, client_id: v, client_secret: v }),
  (v) => json('/.auth/sign-up', { username: v, email: v, password: v }),
  (v) => json('/.auth/sign-up', { username: `u${v.length}`, email: `${v}@example.com`, password: `long enough ${v}` }),
  (v) => form('/.auth/sign-up', { username: v, email: v, password: v }),
  (v) => json('/.auth/sign-in', { username: v, password: v }),
  (v) => form('/.auth/sign-in', { username: v, password: v, returnTo: v }),
  (v) => get(`/.auth/sign-in?${new URLSearchParams({ returnTo: v })}`),
  (v) => get(`/site-admin/users?${new URLSearchParams({ query: v, after: v })}`, { cookie: adminCookie }),
  (v) => get(`/site-admin/users/user?${new URLSearchParams({ id: v })}`, { cookie: adminCookie }),
  (v) => get(`/site-admin/audit-log?${new URLSearchParams({ entity: v, action: v, actor: v, before: v, since: v })}`, { cookie: adminCookie }),
  (v) => get(`/site-admin/oauth-apps/app?${new URLSearchParams({ clientId: v })}`, { cookie: adminCookie }),
  (v) => get(`/settings/tokens/delete?${new URLSearchParams({ id: v })}`, { cookie: adminCookie }),
  (v) => get(`/settings/security/oauth/revoke?${new URLSearchParams({ clientId: v })}`, { cookie: adminCookie }),
  (v) => form('/settings', { username: v, _csrf: v }, { cookie: adminCookie }),
  (v) => get(`/.api/graphql?${new URLSearchParams({ query: `{ auditLog(entity: ${JSON.stringify(v)}) { id } }` })}`, { authorization: `token ${adminToken}` }),
  (v) => api('mutation($n: String!, $s: [String!]!) { createAccessToken(scopes: $s, note: $n) { id } }', { n: v, s: ['user:all', v] }),
  (v) => api(`mutation { createAccessToken(scopes: ["user:all"], note: ${JSON.stringify(v)}) { id } }`),
  (v) => api('mutation($u: String!, $e: String) { createUser(username: $u, email: $e) { id } }', { u: v, e: v }),
  (v) => api('mutation($u: String!) { createServiceAccount(username: $u) { id } }', { u: v }),
  (v) => api('mutation($id: ID!) { setUserIsSiteAdmin(userID: $id, siteAdmin: true) { id } }', { id: v }),
  (v) => api('mutation($id: ID!) { deleteAccessToken(id: $id) }', { id: v }),
  (v) => api('mutation($n: String!, $u: [String!]!) { registerOAuthApp(name: $n, redirectURIs: $u, scopes: ["user:all"]) { clientID } }', { n: v, u: [`https://x.example/${v}`] }),
  (v) => api('query($e: String, $a: String, $id: ID, $b: ID) { auditLog(entity: $e, action: $a, actorUserId: $id, before: $b) { id } }', { e: v, a: v, id: v, b: v }),
  (v) => api('query($q: String!) { search(query: $q) { results { matchCount } } }', { q: v }),
  (v) => api('query($q: String!) { search(query: $q) { results { matchCount } } }', { [v]: v, q: 'x' }),
];

describe('generated strings through every route and mutation', () => {
  it('should answer no 5xx and log no store_error', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: SENDERS.length - 1 }), hostile, async (i, value) => {
        // bounded in time as well as in count: the property stops sending after two minutes
        if (Date.now() - started > 120_000) return;
        const before = storeErrors().length;
        const sent = await SENDERS[i]?.(value);
        const status = sent instanceof Response ? sent.status : (sent as { status: number }).status;
        const text = sent instanceof Response ? await sent.text() : (sent as { text: string }).text;
        expect(status, `sender ${i}: ${text.slice(0, 200)}`).toBeLessThan(500);
        expect(text).not.toMatch(/invalid byte sequence|unsupported Unicode escape/i);
        expect(storeErrors().slice(before), `sender ${i}`).toStrictEqual([]);
      }),
      { numRuns: 300, examples: SENDERS.map((_, i) => [i, 'a\u0000b'] as [number, string]) },
    );
    expect(storeErrors()).toStrictEqual([]);
  }, 240_000);
});
