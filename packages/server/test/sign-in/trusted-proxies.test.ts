/**
 * Behind a reverse proxy (the site option `trustedProxies`): identity headers of an `http-header` provider are
 * believed only from a trusted proxy (anyone else sending them is refused, 401, audited), and a request from a
 * trusted proxy comes from the client its `X-Forwarded-For` names, for every per-address bound, the audit log and
 * the access log. Clients are loopback addresses: the proxy is 127.0.0.5, a client that reaches the port directly
 * is 127.0.0.2 (every 127/8 address is the local host on Linux).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGatehouseServer } from '../../src/index.js';
import { hashPassword } from '../../src/session/sessions.js';
import { clientAt } from '../helpers/from-address.js';
import type { Answer, Client } from '../helpers/from-address.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const PROXY = '127.0.0.5';
const OUTSIDER = '127.0.0.2';
const ME = '{ currentUser { username siteAdmin } }';
const PROXY_PROVIDER = { type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email' };

const servers: TestServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.close());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(configuration: object, options: Parameters<typeof startServer>[0] = {}): Promise<TestServer> {
  const server = await startServer({ siteConfiguration: JSON.stringify(configuration), ...options });
  servers.push(server);
  return server;
}

function from(address: string): Client {
  const client = clientAt(address);
  clients.push(client);
  return client;
}

function graphql(client: Client, server: TestServer, headers: Record<string, string>): Promise<Answer> {
  return client.send(server.url, {
    method: 'POST',
    path: '/.api/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: ME }),
  });
}

function signIn(client: Client, server: TestServer, username: string, password: string, forwardedFor: string): Promise<Answer> {
  return client.send(server.url, {
    method: 'POST',
    path: '/.auth/sign-in',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ username, password }),
  });
}

describe('identity headers of an http-header provider come only from a trusted proxy', () => {
  it('should refuse X-Forwarded-Email: admin@… from a peer that is no trusted proxy (401), and audit it once per network and window', async () => {
    const server = await serve({ 'auth.providers': [{ type: 'builtin' }, PROXY_PROVIDER], trustedProxies: [PROXY] });
    await server.user('admin', true, 'admin@corp.example');
    const outsider = from(OUTSIDER);
    // what the console sends with a proxy identity (the CSRF header included)
    const forged = { 'x-forwarded-email': 'admin@corp.example', 'x-forwarded-user': 'admin', 'x-requested-with': 'console' };
    const answer = await graphql(outsider, server, forged);
    expect({ status: answer.status, admin: answer.text.includes('"siteAdmin":true') }).toStrictEqual({ status: 401, admin: false });
    // every route is guarded, the pages too
    expect((await outsider.send(server.url, { path: '/site-admin', headers: forged })).status).toBe(401);
    expect((await outsider.send(server.url, { path: '/settings', headers: { 'x-forwarded-user': 'admin' } })).status).toBe(401);
    const entries = await server.gatehouse.store.audit.list(10, { entity: 'auth.session', action: 'failed' });
    expect(entries.map((e) => [e.reason, e.details['clientAddress'], e.details['provider'], e.count])).toStrictEqual([['untrusted_proxy_headers', OUTSIDER, 'http-header', 3]]);
    // without the headers the outsider is an ordinary anonymous client
    expect(JSON.parse((await graphql(outsider, server, {})).text)).toStrictEqual({ data: { currentUser: null } });
  });

  it('should believe the same headers from the trusted proxy', async () => {
    const server = await serve({ 'auth.providers': [{ type: 'builtin' }, PROXY_PROVIDER], trustedProxies: ['127.0.0.4/31'] });
    await server.user('admin', true, 'admin@corp.example');
    const answer = await graphql(from(PROXY), server, { 'x-forwarded-email': 'admin@corp.example', 'x-requested-with': 'console' });
    expect({ status: answer.status, body: JSON.parse(answer.text) as unknown }).toStrictEqual({ status: 200, body: { data: { currentUser: { username: 'admin', siteAdmin: true } } } });
  });

  it('should refuse to start with an http-header provider and no trustedProxies, naming the provider path', () => {
    expect(() => createGatehouseServer({ siteConfiguration: JSON.stringify({ 'auth.providers': [{ type: 'builtin' }, PROXY_PROVIDER] }) })).toThrow(
      /auth\.providers\[1\].*trustedProxies/su,
    );
  });
});

describe('behind a trusted proxy, the client is the one X-Forwarded-For names', () => {
  const policy = { freeFailures: 3, baseDelayMs: 60_000, maxDelayMs: 60_000, forgetAfterMs: 900_000 };

  it("should throttle one client's failures without locking out another client of the same proxy", async () => {
    const server = await serve({ 'auth.providers': [{ type: 'builtin' }], trustedProxies: [PROXY] }, { signInThrottle: { clientAddressPolicy: policy } });
    const created = await flatStoreOf(server.gatehouse.store).createUser({
      username: 'rita',
      origin: 'password_signup',
      siteAdmin: false,
      serviceAccount: false,
      emails: [],
      passwordHash: await hashPassword('rita password', (n) => new Uint8Array(n).fill(3)),
      createdAt: 0,
    });
    expect(created.isOk()).toBe(true);
    const proxy = from(PROXY);
    const guesses: number[] = [];
    // a guesser behind the proxy: distinct unknown usernames, so only the per-address throttle counts them
    for (let i = 0; i < 4; i++) guesses.push((await signIn(proxy, server, `nobody${i}`, 'guess', '198.51.100.1, 203.0.113.1')).status);
    expect(guesses).toStrictEqual([401, 401, 401, 429]);
    // another client of the same proxy signs in at once; the guesser stays throttled
    expect((await signIn(proxy, server, 'rita', 'rita password', '203.0.113.2')).status).toBe(200);
    expect((await signIn(proxy, server, 'rita', 'rita password', '203.0.113.1')).status).toBe(429);
  });

  it('should record the forwarded client in the audit log and the access log, and the peer when it is no trusted proxy', async () => {
    const server = await serve({ 'auth.providers': [{ type: 'builtin' }], trustedProxies: [PROXY] });
    const spoofed = { authorization: 'Basic YTpi', 'x-forwarded-for': '198.51.100.7, 203.0.113.9' };
    expect((await graphql(from(PROXY), server, spoofed)).status).toBe(200);
    expect((await graphql(from(OUTSIDER), server, spoofed)).status).toBe(200);
    const entries = await server.gatehouse.store.audit.list(10, { entity: 'auth.accessToken', action: 'failed' });
    expect(entries.map((e) => e.details['clientAddress']).sort()).toStrictEqual([OUTSIDER, '203.0.113.9']);
    const lines = server.logs.filter((l) => l.event === 'request' && l['path'] === '/.api/graphql');
    expect(lines.map((l) => l['clientAddress'])).toStrictEqual(['203.0.113.9', OUTSIDER]);
  });

  it('should read no X-Forwarded-For at all without trustedProxies', async () => {
    const server = await serve({ 'auth.providers': [{ type: 'builtin' }] });
    await graphql(from(PROXY), server, { 'x-forwarded-for': '203.0.113.9' });
    expect(server.logs.filter((l) => l.event === 'request').map((l) => l['clientAddress'])).toStrictEqual([PROXY]);
  });
});
