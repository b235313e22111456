/**
 * Prometheus metrics derived from the server's log events: names, bounded labels, and what each one counts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/index.js';
import type { Store } from '../../src/index.js';
import { createSite } from '../../src/site.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('route labels: the path of the route table entry that answered (kernel/router.ts routeLabelOf)', () => {
  it.each([
    ['/.api/graphql', 'GET', '/.api/graphql'],
    ['/settings/tokens', 'GET', '/settings/tokens'],
    ['/site-admin/users', 'GET', '/site-admin/users'],
    ['/.assets/gatehouse.css', 'GET', '/.assets/gatehouse.css'],
    ['/.assets/nothing.css', 'GET', 'other'],
    ['/debug/console/assets/graphiql.min.js', 'GET', '/debug/console/assets/*'],
    ['/healthz', 'DELETE', '/healthz'],
    ['/settingsx', 'GET', 'other'],
    ['/.auth/hostb/callback', 'GET', 'other'],
    ['/.api/graphql/extra', 'GET', 'other'],
  ])('%s (%s) → %s', async (path, method, label) => {
    server = await startServer();
    await fetch(`${server.url}${path}`, { method, redirect: 'manual' });
    expect(await server.gatehouse.metrics.text()).toContain(`gatehouse_http_requests_total{route="${label}",method="${method}"`);
  });

  test.prop([fc.array(fc.webPath({ size: 'small' }), { minLength: 1, maxLength: 20 })], { numRuns: 5 })(
    'should label any path with a path of the route table or `other`, never with the raw path of an unknown route',
    async (paths) => {
      const s = await startServer();
      try {
        for (const path of paths) await fetch(`${s.url}/${path.replace(/^\/+/u, '')}`, { redirect: 'manual' });
        const labels = [...(await s.gatehouse.metrics.text()).matchAll(/gatehouse_http_requests_total\{route="([^"]*)"/gu)].map((m) => m[1] ?? '');
        const shared = { store: createMemoryStore(), randomBytes: (n: number) => new Uint8Array(n), credentialsKey: new Uint8Array(32), log: () => undefined, listeningURL: () => s.url, ready: async () => true };
        const table = new Set(createSite(s.gatehouse.configuration, {}, shared).table.map((r) => (typeof r.path === 'string' ? r.path : 'host')));
        for (const label of labels) expect(label === 'other' || table.has(label), label).toBe(true);
      } finally {
        await s.close();
      }
    },
  );
});

describe('GET /metrics', () => {
  it('should count requests by route label and status, authentications, cost refusals, sign-ins, audit entries', async () => {
    server = await startServer({
      siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }], "rateLimits": { "graphQLMaxDepth": 3 } }',
    });
    const s = server;
    const admin = await s.user('admin', true);
    const { token } = await s.token(admin);
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${token}` } });
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'token gat_unknown' } });
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'Basic eDp5' } });
    await gql(s.url, `{ ${'currentUser { '.repeat(5)}username${' }'.repeat(5)} }`, { headers: { authorization: `token ${token}` } });
    const form = (username: string, password: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password, email: `${username}@example.com` }),
      redirect: 'manual',
    });
    await fetch(`${s.url}/.auth/sign-up`, form('carol', 'carol password 1'));
    await fetch(`${s.url}/.auth/sign-in`, form('carol', 'carol password 1'));
    await fetch(`${s.url}/.auth/sign-in`, form('carol', 'wrong password 1'));
    for (let i = 0; i < 50; i++) await fetch(`${s.url}/random-${i}/path?q=${i}`);

    // not on the API's own listener
    expect((await fetch(`${s.url}/metrics`)).status).toBe(404);

    const text = await s.gatehouse.metrics.text();
    // the 50 unknown paths, and /metrics itself: the API's listener has no such route
    expect(text).toContain('gatehouse_http_requests_total{route="other",method="GET",status="404"} 51');
    expect(text).toContain('gatehouse_http_requests_total{route="/.api/graphql",method="POST",status="200"} 2');
    expect(text).toMatch(/gatehouse_http_request_duration_seconds_bucket\{le="0\.005",route="\/\.api\/graphql",method="POST",status="401"\} \d/u);
    expect(text).not.toContain('random-');
    expect(text).toContain('gatehouse_authentications_total{scheme="token",result="ok"} 2');
    expect(text).toContain('gatehouse_authentications_total{scheme="token",result="invalid_access_token"} 1');
    expect(text).toContain('gatehouse_authentications_total{scheme="other",result="anonymous"} 1');
    // the scheme label comes from the one parse of the Authorization header
    await gql(s.url, '{ currentUser { username } }');
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'Bearer gho_unknown' } });
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token-sudo user="admin",token="${token}"` } });
    const schemes = await s.gatehouse.metrics.text();
    expect(schemes).toContain('gatehouse_authentications_total{scheme="none",result="anonymous"} 1');
    expect(schemes).toContain('gatehouse_authentications_total{scheme="bearer",result="invalid_access_token"} 1');
    expect(schemes).toMatch(/gatehouse_authentications_total\{scheme="token-sudo",result="[a-z_]+"\} 1/u);
    expect(text).toContain('gatehouse_query_cost_refusals_total{limit="maxDepth"} 1');
    expect(text).toContain('gatehouse_sign_ins_total{provider="builtin",outcome="success"} 1');
    expect(text).toContain('gatehouse_sign_ins_total{provider="builtin",outcome="failure"} 1');
    expect(text).toContain('gatehouse_audit_entries_total{entity="auth.accessToken",action="failed"} 1');
    expect(text).toContain('gatehouse_process_cpu_seconds_total');
  });

  it('should count store failures by operation (readyz on a failing store answers 503)', async () => {
    const memory = createMemoryStore();
    const failing: Store = { ...memory, accounts: { ...memory.accounts, get: () => Promise.reject(new Error('database unreachable')) } };
    server = await startServer({ store: failing });
    const res = await fetch(`${server.url}/readyz`);
    expect([res.status, await res.json()]).toStrictEqual([503, { status: 'unavailable' }]);
    expect(await server.gatehouse.metrics.text()).toContain('gatehouse_store_errors_total{operation="accounts.get"} 1');
    expect(server.logs).toContainEqual(expect.objectContaining({ event: 'store_error', operation: 'accounts.get', level: 'error' }));
  });

  it('should serve the metrics on a listener of their own (what --metrics-address mounts)', async () => {
    server = await startServer();
    const metricsServer = createServer(server.gatehouse.metrics.listener);
    await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
      await fetch(`${server.url}/healthz`);
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/u);
      expect(await res.text()).toContain('gatehouse_http_requests_total{route="/healthz",method="GET",status="200"} 1');
      expect((await fetch(`${base}/.api/graphql`)).status).toBe(404);
    } finally {
      metricsServer.close();
    }
  });
});
