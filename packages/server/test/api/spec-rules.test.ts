/**
 * The spec's endpoint, versioning and error rules that cut across the adapter (§4, §5.1 rule 6, §6 rule 2, §7 rule 5,
 * §9), several of which the spec leaves "not shown": each test pins the reading docs/spec-readings.md records.
 */
import { buildClientSchema, getIntrospectionQuery } from 'graphql';
import type { IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, rawRequest, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

let s: TestServer;
let token: string;

beforeAll(async () => {
  s = await startServer();
  const alice = await s.user('alice', false, 'alice@example.com');
  token = (await s.token(alice)).token;
});

afterAll(async () => {
  await s.close();
});

describe('§4 endpoints', () => {
  it('should answer a POST of a JSON body with query and variables, authorized by the Authorization header, with data (§4 rule 1)', async () => {
    const answer = await gql(s.url, 'query ($q: String!) { currentUser { username } search(query: $q) { results { matchCount } } }', {
      headers: { authorization: `token ${token}` },
      variables: { q: 'x' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { currentUser: { username: 'alice' } } });
  });

  it('should read the Authorization header, not a body field, and refuse a token in the URL (§4 rule 1)', async () => {
    const inBody = await rawRequest(s.url, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ currentUser { username } }', authorization: `token ${token}` }),
    });
    expect(JSON.parse(inBody.text)).toStrictEqual({ data: { currentUser: null } });
    // a token in the query string is refused, not silently answered anonymously
    const inUrl = await rawRequest(s.url, {
      path: `/.api/graphql?access_token=${token}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    });
    expect(inUrl.status).toBe(401);
    expect(JSON.parse(inUrl.text)).toMatchObject({ errors: [{ extensions: { code: 'TOKEN_IN_URL' } }] });
  });

  it('should publish the schema this library chose, since the spec does not show one (§4 rule 3, §9 rule 1)', async () => {
    const answer = await gql(s.url, getIntrospectionQuery());
    expect(answer.status).toBe(200);
    const { data } = answer.body as { data: IntrospectionQuery };
    const schema = buildClientSchema(data);
    const query = Object.keys(schema.getQueryType()?.getFields() ?? {});
    const mutation = Object.keys(schema.getMutationType()?.getFields() ?? {});
    expect(query).toEqual(expect.arrayContaining(['currentUser', 'search', 'auditLog']));
    expect(mutation).toEqual(
      expect.arrayContaining(['createAccessToken', 'deleteAccessToken', 'createUser', 'createServiceAccount', 'setUserIsSiteAdmin', 'registerOAuthApp']),
    );
  });
});

describe('§4 rule 2 callback endpoints (method and parameters not shown; this library: GET with the OAuth redirect parameters)', () => {
  const providers = [
    { path: '/.auth/hosta/callback', entry: { type: 'hosta', url: 'https://hosta.example.com', clientID: 'a', clientSecret: 'b' } },
    { path: '/.auth/hostb/callback', entry: { type: 'hostb', url: 'https://hostb.example.com', clientID: 'a', clientSecret: 'b' } },
    { path: '/.auth/hostccloud/callback', entry: { type: 'hostccloud', url: 'https://hostc.example.com', clientKey: 'a', clientSecret: 'b' } },
    { path: '/.auth/hostcserver/callback', entry: { type: 'hostcserver', url: 'https://hostc.example.com', clientID: 'a', clientSecret: 'b' } },
    { path: '/.auth/callback', entry: { type: 'openidconnect', issuer: 'https://id.example.com', clientID: 'a', clientSecret: 'b' } },
  ] as const;

  it.each(providers)('should serve GET $path with code and state, refusing a state it never issued (§4 rule 2)', async ({ path, entry }) => {
    const configured = await startServer({
      siteConfiguration: JSON.stringify({ externalURL: 'http://127.0.0.1:9', 'auth.providers': [{ type: 'builtin' }, entry] }),
    });
    const bare = await startServer({ siteConfiguration: JSON.stringify({ 'auth.providers': [{ type: 'builtin' }] }) });
    try {
      const answer = await fetch(`${configured.url}${path}?code=c&state=never-issued`, { redirect: 'manual' });
      expect(answer.status).toBe(400);
      expect(await answer.text()).toContain('Sign-in failed');
      // the path exists only while its provider is configured
      expect((await fetch(`${bare.url}${path}?code=c&state=s`, { redirect: 'manual' })).status).toBe(404);
    } finally {
      await configured.close();
      await bare.close();
    }
  });
});

describe('§5.1 rule 6 refresh endpoint (not shown; this library: the OAuth token endpoint)', () => {
  it('should take refresh_token grants at /.auth/idp/oauth/token and refuse an unknown one as invalid_grant or invalid_client (§5.1 rule 6)', async () => {
    const answer = await rawRequest(s.url, {
      path: '/.auth/idp/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=unknown&client_id=nobody',
    });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(JSON.parse(answer.text)).toMatchObject({ error: expect.stringMatching(/^invalid_(grant|client)$/u) });
  });
});

describe('§6 rule 2 events (no webhooks or streams: the audit log is the only event)', () => {
  it('should make no outbound request when it records an audit entry (§6 rule 2)', async () => {
    const outbound: string[] = [];
    const original = globalThis.fetch;
    const before = (await flatStoreOf(s.gatehouse.store).listAudit(10_000)).length;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const target = input instanceof Request ? input.url : String(input);
      if (!target.startsWith(s.url)) outbound.push(target);
      return original(input, init);
    }) as typeof fetch;
    try {
      const answer = await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      expect(answer.status).toBe(200);
    } finally {
      globalThis.fetch = original;
    }
    const after = await flatStoreOf(s.gatehouse.store).listAudit(10_000);
    expect(after.length).toBe(before + 1);
    expect(outbound).toStrictEqual([]);
  });
});

describe('§7 rule 5 error bodies and statuses (not shown; this library: GraphQL errors with a code, 4xx statuses)', () => {
  const rows = [
    { ref: '§7 rule 5: a malformed header is 401', headers: { authorization: 'token' }, body: { query: '{ currentUser { username } }' }, status: 401 },
    { ref: '§7 rule 5: an unknown token is 401', headers: { authorization: 'token gat_unknown' }, body: { query: '{ currentUser { username } }' }, status: 401 },
    { ref: '§7 rule 5: a query over a cost limit is 400', headers: {}, body: { query: `{ ${Array.from({ length: 501 }, (_, i) => `a${i}: currentUser { username }`).join(' ')} }` }, status: 400 },
    { ref: '§7 rule 5: a syntax error is 200 with errors (GraphQL over HTTP, application/json)', headers: {}, body: { query: '{ currentUser { ' }, status: 200 },
    {
      ref: '§7 rule 5: a syntax error is 400 for application/graphql-response+json',
      headers: { accept: 'application/graphql-response+json' },
      body: { query: '{ currentUser { ' },
      status: 400,
    },
  ] as const;

  it.each(rows)('$ref', async ({ headers, body, status }) => {
    const answer = await rawRequest(s.url, {
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(status);
    const parsed = JSON.parse(answer.text) as { errors?: readonly { message?: unknown }[] };
    expect(Array.isArray(parsed.errors)).toBe(true);
    expect(parsed.errors?.length).toBeGreaterThan(0);
    for (const error of parsed.errors ?? []) expect(typeof error.message).toBe('string');
  });
});

describe('§9 versioning', () => {
  it('should serve the console against the unversioned endpoint of the same server, so it always uses the latest API (§9 rule 2, §9 rule 3)', async () => {
    const page = await fetch(`${s.url}/debug/console`);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/gu)].map((m) => m[1] ?? '');
    const code = (await Promise.all(scripts.map(async (src) => (await fetch(`${s.url}${src}`)).text()))).join('\n') + html;
    expect(code).toContain("url: '/.api/graphql'");
    expect(code).not.toMatch(/\/\.api\/v\d/u);
  });
});
