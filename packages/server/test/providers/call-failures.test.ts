/**
 * A failed call to a provider is explained in the log: one `provider_call_failed` line naming the provider type,
 * the host and the error code, never a secret (client secret, authorization code, token, path or query).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/kernel/logging.js';
import { callFailureCode, callHost } from '../../src/providers/call-failures.js';
import { freePort } from '../helpers/free-port.js';
import { HOSTA_CLIENT, startFakeHosta } from '../fakes/hosta.js';
import type { FakeHosta } from '../fakes/hosta.js';
import { startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const SECRET = 'client-secret-never-logged';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function serve(configuration: (url: string) => object): Promise<TestServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServer({ siteConfiguration: JSON.stringify(configuration(url)) });
  await server.gatehouse.close();
  await server.gatehouse.listen(port);
  closers.push(() => server.gatehouse.close());
  return { ...server, url };
}

const failures = (logs: readonly LogEntry[]): LogEntry[] => logs.filter((l) => l.event === 'provider_call_failed');

/** Starts a code host sign-in and returns the callback the provider would send the browser to, with the state cookie. */
async function startCodeHostSignIn(server: TestServer, type: string): Promise<{ callback: URL; cookie: string }> {
  const login = await fetch(`${server.url}/.auth/${type}/login`, { redirect: 'manual' });
  expect(login.status).toBe(303);
  const cookie = login.headers.getSetCookie().map((line) => line.split(';', 1)[0] ?? '').join('; ');
  const authorize = new URL(login.headers.get('location') ?? '');
  const callback = new URL(`${server.url}/.auth/${type}/callback`);
  callback.searchParams.set('code', 'authorization-code-never-logged');
  callback.searchParams.set('state', authorize.searchParams.get('state') ?? '');
  return { callback, cookie };
}

describe('provider_call_failed', () => {
  it('should name the OpenID Connect issuer host and ECONNREFUSED when discovery cannot connect', async () => {
    const closedPort = await freePort();
    const server = await serve((url) => ({
      externalURL: url,
      'auth.providers': [{ type: 'openidconnect', issuer: `http://127.0.0.1:${closedPort}/realms/corp`, clientID: 'gatehouse', clientSecret: SECRET }],
    }));
    const res = await fetch(`${server.url}/.auth/openidconnect/login`, { redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(failures(server.logs)).toStrictEqual([
      { level: 'error', event: 'provider_call_failed', provider: 'openidconnect', host: `127.0.0.1:${closedPort}`, step: 'discovery', code: 'ECONNREFUSED', requestId: expect.any(String) },
    ]);
    expect(JSON.stringify(server.logs)).not.toContain(SECRET);
  });

  it('should name the code host and ECONNREFUSED when the code exchange cannot connect, never the code', async () => {
    const closedPort = await freePort();
    const server = await serve(() => ({
      'auth.providers': [{ type: 'hostcserver', url: `http://127.0.0.1:${closedPort}`, clientID: 'gatehouse', clientSecret: SECRET, allowSignup: true }],
    }));
    const { callback, cookie } = await startCodeHostSignIn(server, 'hostcserver');
    const res = await fetch(callback, { headers: { cookie }, redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(failures(server.logs).map((l) => [l['provider'], l['host'], l['code']])).toStrictEqual([['hostcserver', `127.0.0.1:${closedPort}`, 'ECONNREFUSED']]);
    const logged = JSON.stringify(server.logs);
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('authorization-code-never-logged');
  });

  it('should name the HTTP status a code host API answered with', async () => {
    let hosta: FakeHosta | undefined;
    hosta = await startFakeHosta([{ id: 7, login: 'octavia', emails: [{ email: 'octavia@example.com', verified: true, primary: true }], failPages: ['/api/user/emails:1'] }]);
    const fake = hosta;
    closers.push(() => fake.close());
    const server = await serve(() => ({
      'auth.providers': [{ type: 'hosta', url: fake.url, clientID: HOSTA_CLIENT.clientId, clientSecret: HOSTA_CLIENT.clientSecret, allowSignup: true }],
    }));
    const login = await fetch(`${server.url}/.auth/hosta/login`, { redirect: 'manual' });
    const cookie = login.headers.getSetCookie().map((line) => line.split(';', 1)[0] ?? '').join('; ');
    const authorize = new URL(login.headers.get('location') ?? '');
    authorize.searchParams.set('as', 'octavia');
    const atHost = await fetch(authorize, { redirect: 'manual' });
    const res = await fetch(atHost.headers.get('location') ?? '', { headers: { cookie }, redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(failures(server.logs).map((l) => [l.level, l['provider'], l['host'], l['code']])).toStrictEqual([['error', 'hosta', new URL(fake.url).host, 'http_500']]);
    expect(JSON.stringify(server.logs)).not.toContain(HOSTA_CLIENT.clientSecret);
  });
});

describe('callFailureCode and callHost', () => {
  it.each([
    { ref: 'a network error under fetch failed', error: new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }), expected: 'ECONNREFUSED' },
    { ref: 'the innermost code of a wrapped error', error: Object.assign(new Error('x', { cause: Object.assign(new Error('y'), { code: 'ENOTFOUND' }) }), { code: 'OAUTH_REQUEST_FAILED' }), expected: 'ENOTFOUND' },
    { ref: "gatehouse's own deadline", error: { code: 'upstream_timeout', timeoutMs: 10 }, expected: 'upstream_timeout' },
    { ref: 'an abort by timeout', error: new DOMException('The operation timed out.', 'TimeoutError'), expected: 'TimeoutError' },
    { ref: 'an HTTP status on the error', error: Object.assign(new Error('bad'), { status: 503 }), expected: 'http_503' },
    { ref: 'a code that could carry a value is not one', error: Object.assign(new Error('x'), { code: 'token gat_secret value' }), expected: 'Error' },
    { ref: 'not an object', error: 'boom', expected: 'unknown' },
  ])('$ref: $expected', ({ error, expected }) => {
    expect(callFailureCode(error)).toBe(expected);
  });

  it('should keep only the host of a URL', () => {
    expect([callHost('https://user:pw@id.example.com:8443/token?code=abc'), callHost('https://id.example.com/x'), callHost('not a url')]).toStrictEqual([
      'id.example.com:8443',
      'id.example.com',
      'unknown',
    ]);
  });
});
