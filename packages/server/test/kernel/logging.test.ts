/**
 * Structured logs: pino JSON lines with time, level and a request id, one access-log line per request with the
 * reason of each refusal, LOG_LEVEL, and never a secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPinoLog, currentRequestId, runInRequest } from '../../src/kernel/logging.js';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { cookieFrom, gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const CONFIG = JSON.stringify({
  externalURL: 'http://127.0.0.1:1',
  'auth.providers': [
    { type: 'builtin', allowSignup: true },
    { type: 'hostb', url: 'https://hostb.example.com', clientID: 'client-id', clientSecret: 'client-secret-never-logged' },
  ],
});

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function withPino(level?: string): Promise<{ s: TestServer; lines: string[] }> {
  const lines: string[] = [];
  const log = createPinoLog({ ...(level === undefined ? {} : { level }), destination: { write: (line: string) => lines.push(line) } });
  server = await startServer({ siteConfiguration: CONFIG, log });
  return { s: server, lines };
}

const parsed = (lines: readonly string[]): Record<string, unknown>[] => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('access log and secrets', () => {
  it('should never write a token, a password, a cookie or a query string code/state, and write one access line per request', async () => {
    const { s, lines } = await withPino();
    const password = 'pw-SECRET-correct-horse-battery';
    const signUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'dora', email: 'dora@example.com', password }),
      redirect: 'manual',
    });
    const cookie = cookieFrom(signUp.headers, SESSION_COOKIE) ?? '';
    expect(cookie).not.toBe('');
    await fetch(`${s.url}/.auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'dora', password: 'pw-SECRET-wrong-password' }),
      redirect: 'manual',
    });
    const dora = await flatStoreOf(s.gatehouse.store).findUserByUsername('dora');
    const { token } = await s.token(dora ?? (await s.user('dora2')));
    const answers = [
      await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${token}` } }),
      await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token-sudo user="dora",token="${token}"` } }),
      await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'token gat_SECRETbadtokenSECRETbadtokenSECRET' } }),
      await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'Basic U0VDUkVULXVzZXI6U0VDUkVULXBhc3M=' } }),
      await gql(s.url, '{ currentUser { username } }', { headers: { cookie, 'x-requested-with': 'test' } }),
      await gql(s.url, `{ search(query: "${password}") { results { matchCount } } }`, { headers: { authorization: `token ${token}` } }),
    ];
    // the first (a valid token) and the cookie-authenticated one run; the sudo one is refused (no site-admin:sudo)
    expect([answers[0]?.status, answers[1]?.status, answers[2]?.status, answers[4]?.status]).toStrictEqual([200, 401, 401, 200]);
    await fetch(`${s.url}/.auth/hostb/callback?code=CODE-SECRET-1234&state=STATE-SECRET-5678`, { redirect: 'manual' });
    await fetch(`${s.url}/.api/graphql?token=${token}&access_token=${token}`, { method: 'POST', body: '{}' });
    await fetch(`${s.url}/.auth/sign-out`, { method: 'POST', headers: { cookie }, redirect: 'manual' });

    const output = lines.join('');
    for (const secret of [
      token,
      token.slice(4),
      password,
      'pw-SECRET-wrong-password',
      cookie,
      cookie.split('=')[1] ?? cookie,
      'SECRETbadtoken',
      'U0VDUkVU',
      'CODE-SECRET',
      'STATE-SECRET',
      'client-secret-never-logged',
    ]) {
      expect(output, secret).not.toContain(secret);
    }
    const entries = parsed(lines);
    const access = entries.filter((e) => e['event'] === 'request');
    expect(access).toHaveLength(11);
    for (const entry of entries) {
      expect(typeof entry['time']).toBe('string');
      expect(Number.isNaN(Date.parse(String(entry['time'])))).toBe(false);
      expect(['info', 'warn', 'error']).toContain(entry['level']);
    }
    // every line logged while serving a request carries its id; each request has its own
    const inRequest = entries.filter((e) => e['event'] === 'request' || e['event'] === 'authentication' || e['event'] === 'audit');
    for (const entry of inRequest.filter((e) => e['event'] !== 'audit' || e['entity'] !== 'auth.accessToken' || e['action'] !== 'created')) {
      expect(entry['requestId'], JSON.stringify(entry)).toMatch(/^[0-9a-f-]{36}$/u);
    }
    expect(new Set(access.map((e) => e['requestId'])).size).toBe(11);
    // the refusal reasons
    const refused = access.filter((e) => typeof e['status'] === 'number' && e['status'] >= 400);
    expect(refused.map((e) => [e['path'], e['status'], e['reason']])).toStrictEqual(
      refused.map((e) => [e['path'], e['status'], expect.stringMatching(/\S/u)]),
    );
    expect(access.find((e) => e['status'] === 401 && e['path'] === '/.api/graphql')?.['reason']).toBe('INVALID_ACCESS_TOKEN: Invalid access token.');
    expect(access.find((e) => e['path'] === '/.auth/sign-in')?.['reason']).toMatch(/invalid_credentials/u);
  });

  it('should echo the request id in X-Request-Id', async () => {
    const { s, lines } = await withPino();
    const res = await fetch(`${s.url}/nope`);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/u);
    expect(parsed(lines).find((e) => e['event'] === 'request')).toMatchObject({ requestId: id, path: '/nope', status: 404, reason: 'not_found: Not found.' });
  });
});

describe('one line per API request', () => {
  it('should name the authentication scheme and result on the access line, and write the authentication event only at debug level', async () => {
    const { s, lines } = await withPino();
    const { token } = await s.token(await s.user('alice'));
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${token}` } });
    await gql(s.url, '{ currentUser { username } }', { headers: { authorization: 'token gat_notavalidtokennotavalidtoken' } });
    await fetch(`${s.url}/healthz`);
    await s.close();
    server = null;
    const entries = parsed(lines);
    const access = entries.filter((e) => e['event'] === 'request');
    expect(access.map((e) => [e['path'], e['status'], e['scheme'], e['auth']])).toStrictEqual([
      ['/.api/graphql', 200, 'token', 'ok'],
      ['/.api/graphql', 401, 'token', 'invalid_access_token'],
      // a route that authenticates nothing names no scheme
      ['/healthz', 200, undefined, undefined],
    ]);
    expect(entries.filter((e) => e['event'] === 'authentication')).toStrictEqual([]);

    const debug = await withPino('debug');
    await gql(debug.s.url, '{ currentUser { username } }');
    const authentication = parsed(debug.lines).filter((e) => e['event'] === 'authentication');
    expect(authentication).toMatchObject([{ level: 'debug', scheme: 'none', result: 'anonymous', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/u) }]);
  });

  it('should still hand the authentication event to an embedder\'s sink, with the request id, at its own level', async () => {
    const entries: Record<string, unknown>[] = [];
    server = await startServer({ siteConfiguration: CONFIG, log: (entry) => entries.push({ ...entry }) });
    await gql(server.url, '{ currentUser { username } }');
    const authentication = entries.find((e) => e['event'] === 'authentication');
    const access = entries.find((e) => e['event'] === 'request');
    expect(authentication).toMatchObject({ level: 'info', scheme: 'none', result: 'anonymous' });
    expect(access).toMatchObject({ scheme: 'none', auth: 'anonymous', requestId: authentication?.['requestId'] });
  });
});

describe('request ids of the API (served without the asynchronous request context)', () => {
  it('should name the request id on a mutation\'s audit line, a refused sudo\'s audit line and the authentication line, as on its access line', async () => {
    const entries: Record<string, unknown>[] = [];
    server = await startServer({ siteConfiguration: CONFIG, log: (entry) => entries.push({ ...entry }) });
    const alice = await server.user('alice');
    const { token } = await server.token(alice);
    // what the helpers logged outside any request is left out
    const before = entries.length;
    const created = await gql(server.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "n") { id } }', { headers: { authorization: `token ${token}` } });
    expect(created.status).toBe(200);
    await gql(server.url, '{ currentUser { username } }', { headers: { authorization: `token-sudo user="alice",token="${token}"` } });
    const access = entries.filter((e) => e['event'] === 'request' && e['path'] === '/.api/graphql');
    expect(access).toHaveLength(2);
    const [mutation, sudo] = access.map((e) => e['requestId']);
    expect(new Set([mutation, sudo]).size).toBe(2);
    const ofRequest = (id: unknown): unknown[] => entries.filter((e) => e['requestId'] === id && e['event'] !== 'request').map((e) => [e['event'], e['action'] ?? e['result']]);
    expect(ofRequest(mutation)).toStrictEqual([['authentication', 'ok'], ['audit', 'created']]);
    expect(ofRequest(sudo)).toStrictEqual([['audit', 'sudo_denied'], ['authentication', 'invalid_access_token']]);
    // nothing logged in a request is left without its id
    expect(entries.slice(before).filter((e) => e['requestId'] === undefined)).toStrictEqual([]);
  });

  it('should name the request id on a refused query\'s query_cost_refused line', async () => {
    const entries: Record<string, unknown>[] = [];
    server = await startServer({ siteConfiguration: CONFIG, log: (entry) => entries.push({ ...entry }) });
    const deep = `{ currentUser ${'{ __typename '.repeat(600)}${'}'.repeat(600)} }`;
    const refused = await gql(server.url, deep);
    expect(refused.status).toBe(400);
    const access = entries.find((e) => e['event'] === 'request');
    const cost = entries.find((e) => e['event'] === 'query_cost_refused');
    expect(cost).toMatchObject({ limit: 'maxNesting', requestId: access?.['requestId'] });
  });
});

describe('runInRequest', () => {
  it('should answer the id in everything the work starts, keep an outer request\'s id after an inner one settles, and none once all settled', async () => {
    const seen: (string | null)[] = [];
    const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    await runInRequest({ requestId: 'outer', authentication: null }, async () => {
      await tick();
      seen.push(currentRequestId());
      await runInRequest({ requestId: 'inner', authentication: null }, async () => {
        await tick();
        seen.push(currentRequestId());
      });
      await tick();
      seen.push(currentRequestId());
    });
    seen.push(currentRequestId());
    await tick();
    seen.push(currentRequestId());
    expect(seen).toStrictEqual(['outer', 'inner', 'outer', null, null]);
  });

  it('should settle as its work does, a rejection included, and leave no id behind', async () => {
    await expect(runInRequest({ requestId: 'r', authentication: null }, () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(currentRequestId()).toBeNull();
  });
});

describe('LOG_LEVEL', () => {
  it('should drop lines below the level (warn: no access lines), and read LOG_LEVEL when no level is given', async () => {
    const { s, lines } = await withPino('warn');
    await fetch(`${s.url}/healthz`);
    expect(parsed(lines).filter((e) => e['event'] === 'request')).toStrictEqual([]);
    await s.close();
    server = null;

    const previous = process.env['LOG_LEVEL'];
    process.env['LOG_LEVEL'] = 'error';
    try {
      const captured: string[] = [];
      const log = createPinoLog({ destination: { write: (line: string) => captured.push(line) } });
      log({ level: 'warn', event: 'dropped' });
      log({ level: 'error', event: 'kept' });
      expect(parsed(captured).map((e) => e['event'])).toStrictEqual(['kept']);
    } finally {
      if (previous === undefined) delete process.env['LOG_LEVEL'];
      else process.env['LOG_LEVEL'] = previous;
    }
  });
});
