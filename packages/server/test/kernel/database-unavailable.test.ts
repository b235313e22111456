/**
 * A database that cannot be reached, as the server answers it: `503` with `Retry-After` and the code
 * `database_unavailable` wherever a store failure used to be a `500` (a handler that rejects, the API's resolvers, a
 * stream route), while any other store failure stays a `500`; and `GET /readyz` asks the store's database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { databaseUnavailableResponse, isDatabaseUnavailable } from '../../src/kernel/database-unavailable.js';
import { createMemoryStore } from '../../src/index.js';
import type { Store } from '../../src/index.js';
import { classifyDriverFailure } from '../../src/store/postgres/unavailable.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

/** What the PostgreSQL driver rejects with when the server refuses the connection. */
const unavailable = (): unknown =>
  classifyDriverFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' }));
/** A failure of the database that is not about reaching it. */
const broken = (): unknown => Object.assign(new Error('relation "accounts" does not exist'), { code: '42P01' });

/** Which operations of {@link switchableStore} fail, and with what (`null`: they work). */
interface Failing {
  /** Every operation of every group (accounts, tokens, sessions, throttles, …). */
  operations: (() => unknown) | null;
  /** Transactions (what the mutations use). */
  transactions: (() => unknown) | null;
  /**
   * The ping alone: like the PostgreSQL store, whose `accounts.get` of an id that cannot exist answers `null` without
   * asking the database, only a round trip tells that the database is gone.
   */
  ping?: (() => unknown) | null;
}

/** The memory store, its operations and transactions failing as `state` says. */
function switchableStore(state: Failing): Store {
  const memory = createMemoryStore();
  const failing = <G extends object>(group: G): G =>
    new Proxy(group, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => (state.operations === null ? Reflect.apply(value, target, args) : Promise.reject(state.operations()));
      },
    });
  return {
    accounts: failing(memory.accounts),
    accessTokens: failing(memory.accessTokens),
    sessions: failing(memory.sessions),
    oauth: failing(memory.oauth),
    audit: failing(memory.audit),
    ephemeral: failing(memory.ephemeral),
    lockouts: failing(memory.lockouts),
    links: failing(memory.links),
    outbox: failing(memory.outbox),
    transaction: (work) => (state.transactions === null ? memory.transaction(work) : Promise.reject(state.transactions())),
    close: () => memory.close(),
    ping: async () => {
      const failure = state.ping ?? state.operations;
      return failure === null ? undefined : Promise.reject(failure());
    },
  };
}

let server: TestServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

describe('isDatabaseUnavailable', () => {
  it.each([
    { ref: 'the driver failure of a refused connection', error: unavailable(), expected: true },
    { ref: 'any object with code database_unavailable', error: { code: 'database_unavailable' }, expected: true },
    { ref: 'another database failure', error: broken(), expected: false },
    { ref: 'a raw socket error (not from a store)', error: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), expected: false },
    { ref: 'a plain error', error: new Error('database_unavailable'), expected: false },
    { ref: 'not an object', error: 'database_unavailable', expected: false },
    { ref: 'null', error: null, expected: false },
  ])('should answer $expected for $ref', ({ error, expected }) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });
});

describe('databaseUnavailableResponse', () => {
  it.each([
    {
      ref: 'the API: a GraphQL error with extensions.code, varying on Authorization',
      path: '/.api/graphql',
      body: { errors: [{ message: 'The database is unavailable. Try again shortly.', extensions: { code: 'database_unavailable' } }] },
      vary: 'Authorization',
    },
    {
      ref: 'RFC 6749 §5.2 on the token endpoint: server_error',
      path: '/.auth/idp/oauth/token',
      body: { error: 'server_error', error_description: 'The database is unavailable. Try again shortly.' },
      vary: undefined,
    },
    {
      ref: 'any other path: { error: { code, message } }',
      path: '/.auth/sign-in',
      body: { error: { code: 'database_unavailable', message: 'The database is unavailable. Try again shortly.' } },
      vary: undefined,
    },
  ])('should answer 503 with Retry-After on $ref', ({ path, body, vary }) => {
    const response = databaseUnavailableResponse(path);
    expect({ status: response.status, retryAfter: response.headers['retry-after'], vary: response.headers['vary'], body: JSON.parse(String(response.body)) }).toStrictEqual({
      status: 503,
      retryAfter: '1',
      vary,
      body,
    });
  });
});

describe('a server whose database cannot be reached', () => {
  it('should answer the API, its mutations and the sign-in form 503 database_unavailable with Retry-After, and serve again once it is back', async () => {
    const state: Failing = { operations: null, transactions: null };
    server = await startServer({ store: switchableStore(state), tokenCacheTtlMs: 0, siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }' });
    const { token } = await server.token(await server.user('alice'));
    const auth = { authorization: `token ${token}` };
    state.operations = unavailable;

    const lookup = await gql(server.url, '{ currentUser { username } }', { headers: auth });
    const signIn = await fetch(`${server.url}/.auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: 'whatever it is' }),
    });
    const signInBody: unknown = await signIn.json();
    expect([
      { status: lookup.status, retryAfter: lookup.headers.get('retry-after'), body: lookup.body },
      { status: signIn.status, retryAfter: signIn.headers.get('retry-after'), body: signInBody },
    ]).toStrictEqual([
      { status: 503, retryAfter: '1', body: { errors: [{ message: 'The database is unavailable. Try again shortly.', extensions: { code: 'database_unavailable' } }] } },
      { status: 503, retryAfter: '1', body: { error: { code: 'database_unavailable', message: 'The database is unavailable. Try again shortly.' } } },
    ]);

    // authentication passes (the lookup works) but the mutation's transaction fails: the resolver's failure is the answer
    state.operations = null;
    state.transactions = unavailable;
    const mutation = 'mutation { createAccessToken(note: "x", scopes: ["user:all"]) { token } }';
    const created = await gql(server.url, mutation, { headers: auth });
    state.transactions = null;
    expect({ status: created.status, retryAfter: created.headers.get('retry-after'), body: created.body }).toStrictEqual({
      status: 503,
      retryAfter: '1',
      body: { errors: [{ message: 'The database is unavailable. Try again shortly.', extensions: { code: 'database_unavailable' } }] },
    });
    expect(server.logs).toContainEqual(expect.objectContaining({ event: 'database_unavailable', path: '/.api/graphql', level: 'warn' }));
    expect(server.logs.filter((e) => e.event === 'internal_error')).toStrictEqual([]);

    // back: served again, nothing restarted
    expect((await gql(server.url, '{ currentUser { username } }', { headers: auth })).body).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
    expect((await gql(server.url, mutation, { headers: auth })).status).toBe(200);
  });

  it('should answer 503 for a host route that fails because the database cannot be reached, and 500 for any other failure', async () => {
    server = await startServer({
      routes: [
        { method: 'GET', path: '/unreachable', handle: () => Promise.reject(unavailable()) },
        { method: 'GET', path: '/broken', handle: () => Promise.reject(broken()) },
      ],
    });
    const unreachable = await fetch(`${server.url}/unreachable`);
    const other = await fetch(`${server.url}/broken`);
    expect([
      [unreachable.status, unreachable.headers.get('retry-after'), await unreachable.json()],
      [other.status, other.headers.get('retry-after'), await other.json()],
    ]).toStrictEqual([
      [503, '1', { error: { code: 'database_unavailable', message: 'The database is unavailable. Try again shortly.' } }],
      [500, null, { error: { code: 'internal_error', message: 'Internal server error.' } }],
    ]);
  });

  it('should keep answering 500 internal_error for a store failure that is not about reaching the database', async () => {
    const state: Failing = { operations: null, transactions: null };
    server = await startServer({ store: switchableStore(state), tokenCacheTtlMs: 0 });
    const { token } = await server.token(await server.user('bob'));
    state.operations = broken;
    const answer = await gql(server.url, '{ currentUser { username } }', { headers: { authorization: `token ${token}` } });
    expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), body: answer.body }).toStrictEqual({
      status: 500,
      retryAfter: null,
      body: { errors: [{ message: 'Internal server error.' }] },
    });
    expect(server.logs).toContainEqual(expect.objectContaining({ event: 'internal_error', path: '/.api/graphql' }));
  });
});

describe('GET /readyz', () => {
  it('should ask the store its database answers (Store.ping), through the token cache: 503 while it fails, 200 again after', async () => {
    const state: Failing = { operations: null, transactions: null, ping: null };
    server = await startServer({ store: switchableStore(state) });
    const ready = async (): Promise<[number, string]> => {
      const res = await fetch(`${server?.url ?? ''}/readyz`);
      return [res.status, await res.text()];
    };
    expect(await ready()).toStrictEqual([200, '{"status":"ok"}']);
    state.ping = unavailable;
    expect(await ready()).toStrictEqual([503, '{"status":"unavailable"}']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    state.ping = null;
    expect(await ready()).toStrictEqual([200, '{"status":"ok"}']);
  });

  it('should stay ready on the memory store, which has no database to reach', async () => {
    server = await startServer({ store: createMemoryStore() });
    const res = await fetch(`${server.url}/readyz`);
    expect([res.status, await res.text()]).toStrictEqual([200, '{"status":"ok"}']);
  });
});
