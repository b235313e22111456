/**
 * Prometheus metrics derived from the server's log events: names, bounded labels, and what each one counts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/index.js';
import type { Store } from '../../src/index.js';
import { authenticationScheme, routeLabel } from '../../src/kernel/metrics.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('routeLabel', () => {
  it.each([
    ['/.api/graphql', '/.api/graphql'],
    ['/.auth/hostb/callback', '/.auth/hostb/callback'],
    ['/.auth/callback', '/.auth/callback'],
    ['/.auth/nothost/callback', '/.auth/*'],
    ['/debug/console/graphiql.js', '/debug/console/*'],
    ['/settings/security/unlink', '/settings/security/*'],
    ['/settings', '/settings'],
    ['/settings/tokens', '/settings/*'],
    ['/site-admin', '/site-admin'],
    ['/site-admin/users/user', '/site-admin/*'],
    ['/.assets/gatehouse.css', '/.assets/*'],
    ['/settingsx', 'other'],
    ['/wp-admin/x', 'other'],
    ['/.api/graphql/extra', 'other'],
  ])('%s → %s', (path, label) => {
    expect(routeLabel(path)).toBe(label);
  });

  test.prop([fc.string({ maxLength: 300 })])('should give a label from a closed set for any path (never the raw path of an unknown route)', (path) => {
    const label = routeLabel(path);
    expect(label === 'other' || label.endsWith('/*') || routeLabel(label) === label).toBe(true);
    expect(label.length).toBeLessThanOrEqual(30);
  });
});

describe('authenticationScheme', () => {
  it.each([
    [{}, 'none'],
    [{ cookie: 'a=b' }, 'session'],
    [{ authorization: 'token x' }, 'token'],
    [{ authorization: 'Bearer x' }, 'bearer'],
    [{ authorization: 'token-sudo user="a",token="b"' }, 'token-sudo'],
    [{ authorization: 'Basic x' }, 'other'],
    [{ authorization: 'anything-at-all-that-is-long x' }, 'other'],
  ])('%j → %s', (headers, scheme) => {
    expect(authenticationScheme(headers)).toBe(scheme);
  });
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
    expect(text).toContain('gatehouse_http_requests_total{route="other",method="GET",status="404"} 50');
    expect(text).toContain('gatehouse_http_requests_total{route="/.api/graphql",method="POST",status="200"} 2');
    expect(text).toMatch(/gatehouse_http_request_duration_seconds_bucket\{le="0\.005",route="\/\.api\/graphql",method="POST",status="401"\} \d/u);
    expect(text).not.toContain('random-');
    expect(text).toContain('gatehouse_authentications_total{scheme="token",result="ok"} 2');
    expect(text).toContain('gatehouse_authentications_total{scheme="token",result="invalid_access_token"} 1');
    expect(text).toContain('gatehouse_authentications_total{scheme="other",result="anonymous"} 1');
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
