/**
 * Running the server as a service, in process: the probes, a live configuration reload, and a graceful shutdown
 * that lets in-flight requests finish.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../src/index.js';
import type { SearchResults, Store } from '../src/index.js';
import { gql, startServer } from './helpers/server.js';
import type { TestServer } from './helpers/server.js';
import { flatStoreOf } from './helpers/flat-store.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('GET /healthz and GET /readyz', () => {
  it('should answer without authentication, saying only ok, whatever the credentials and providers', async () => {
    server = await startServer({
      // the proxy is elsewhere: the probes answer even a request that sends its headers from another peer
      siteConfiguration: '{ "auth.providers": [{ "type": "http-header", "usernameHeader": "x-forwarded-user" }], "trustedProxies": ["192.0.2.1"] }',
    });
    for (const path of ['/healthz', '/readyz']) {
      for (const headers of [{}, { authorization: 'token gat_nope' }, { authorization: 'Basic eDp5' }, { 'x-forwarded-user': 'bad name!' }, { cookie: 'gatehouse_session=x' }]) {
        const res = await fetch(`${server.url}${path}`, { headers });
        expect([path, res.status, await res.text()]).toStrictEqual([path, 200, '{"status":"ok"}']);
      }
    }
    // a probe records no audit entry and no authentication
    expect(await flatStoreOf(server.gatehouse.store).listAudit(100)).toStrictEqual([]);
  });

  it('should report not ready when the store does not answer within the bound', async () => {
    const memory = createMemoryStore();
    const hanging: Store = { ...memory, accounts: { ...memory.accounts, get: () => new Promise(() => undefined) } };
    server = await startServer({ store: hanging });
    const started = Date.now();
    const res = await fetch(`${server.url}/readyz`);
    expect([res.status, await res.text()]).toStrictEqual([503, '{"status":"unavailable"}']);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('reload', () => {
  const deepQuery = `{ ${'currentUser { '.repeat(5)}username${' }'.repeat(5)} }`;
  const depthRefused = async (s: TestServer, token: string): Promise<boolean> =>
    (await gql(s.url, deepQuery, { headers: { authorization: `token ${token}` } })).text.includes('QUERY_COST_LIMIT_EXCEEDED');

  it('should apply valid rateLimits and auth.providers to new requests, and keep the old ones on an invalid configuration', async () => {
    server = await startServer({ siteConfiguration: '{ "rateLimits": { "graphQLMaxDepth": 3 } }' });
    const s = server;
    const { token } = await s.token(await s.user('admin', true));
    expect(await depthRefused(s, token)).toBe(true);
    expect((await fetch(`${s.url}/.auth/hostb/login`, { redirect: 'manual' })).status).toBe(404);

    const reloaded = s.gatehouse.reload(
      '{ "rateLimits": { "graphQLMaxDepth": 30 }, "auth.providers": [{ "type": "hostb", "url": "https://hostb.example.com", "clientID": "i", "clientSecret": "s" }] }',
    );
    expect(reloaded).toStrictEqual({ kind: 'reloaded', warnings: [] });
    expect(await depthRefused(s, token)).toBe(false);
    expect((await fetch(`${s.url}/.auth/hostb/login`, { redirect: 'manual' })).status).toBe(303);
    expect(s.gatehouse.configuration.queryLimits.maxDepth).toBe(30);
    // the store is shared: the token still works
    expect((await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${token}` } })).body).toStrictEqual({
      data: { currentUser: { username: 'admin' } },
    });

    const invalid = s.gatehouse.reload('{ "rateLimits": { "graphQLMaxDepth": -1 }, "auth.providers": [{ "type": "hostb" }] }');
    expect(invalid.kind).toBe('invalid');
    const paths = invalid.kind === 'invalid' ? invalid.problems.map((p) => p.path) : [];
    expect(paths).toContain('rateLimits.graphQLMaxDepth');
    expect(paths.some((p) => p.startsWith('auth.providers[0]'))).toBe(true);
    for (const path of paths) expect(s.logs).toContainEqual(expect.objectContaining({ event: 'configuration_problem', path, level: 'error' }));
    expect(await depthRefused(s, token)).toBe(false);
    expect((await fetch(`${s.url}/.auth/hostb/login`, { redirect: 'manual' })).status).toBe(303);
    const metrics = await s.gatehouse.metrics.text();
    expect(metrics).toContain('gatehouse_configuration_reloads_total{result="reloaded"} 1');
    expect(metrics).toContain('gatehouse_configuration_reloads_total{result="invalid"} 1');
  });
});

describe('shutdown', () => {
  /** A search that answers only when released. */
  function slowSearch(): { search: (q: string) => Promise<SearchResults>; release: () => void; started: Promise<void> } {
    let release = (): void => undefined;
    let markStarted = (): void => undefined;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return {
      search: async () => {
        markStarted();
        await gate;
        return { matchCount: 7 };
      },
      release: () => release(),
      started,
    };
  }

  it('should let an in-flight request finish with 200, refuse new connections, then close the store', async () => {
    const slow = slowSearch();
    let closed = 0;
    const store: Store & { close(): Promise<void> } = {
      ...createMemoryStore(),
      close: async () => {
        closed++;
      },
    };
    server = await startServer({ search: slow.search, store });
    const s = server;
    const { token } = await s.token(await s.user('admin', true));
    const inFlight = gql(s.url, '{ search(query: "x") { results { matchCount } } }', { headers: { authorization: `token ${token}` } });
    await slow.started;
    const stopped = s.gatehouse.shutdown();
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    await delay(100);
    expect(closed).toBe(0);
    slow.release();
    const answer = await inFlight;
    expect([answer.status, answer.body]).toStrictEqual([200, { data: { search: { results: { matchCount: 7 } } } }]);
    await stopped;
    expect(closed).toBe(1);
  });

  it('should close what is still running once the drain timeout has passed', async () => {
    const slow = slowSearch();
    server = await startServer({ search: slow.search, timeouts: { drainMs: 200 } });
    const s = server;
    const { token } = await s.token(await s.user('admin', true));
    const inFlight = gql(s.url, '{ search(query: "x") { results { matchCount } } }', { headers: { authorization: `token ${token}` } }).then(
      () => 'answered',
      () => 'cut',
    );
    await slow.started;
    const before = Date.now();
    await s.gatehouse.shutdown();
    expect(Date.now() - before).toBeLessThan(5_000);
    expect(await inFlight).toBe('cut');
    slow.release();
  });
});

describe('public code host editions', () => {
  it('should send a hosta entry with an empty url to the public edition address by default (no 503), overridable', async () => {
    const config = '{ "auth.providers": [{ "type": "hosta", "url": "", "clientID": "i", "clientSecret": "s" }] }';
    server = await startServer({ siteConfiguration: config });
    const login = await fetch(`${server.url}/.auth/hosta/login`, { redirect: 'manual' });
    expect(new URL(login.headers.get('location') ?? '').origin).toBe('https://hosta.example.com');
    await server.close();
    server = await startServer({ siteConfiguration: config, publicCodeHostURLs: { hosta: 'https://public-hosta.test' } });
    const overridden = await fetch(`${server.url}/.auth/hosta/login`, { redirect: 'manual' });
    expect(new URL(overridden.headers.get('location') ?? '').origin).toBe('https://public-hosta.test');
  });
});
