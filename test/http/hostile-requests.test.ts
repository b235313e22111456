import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, rawRequest, startServer } from './helpers.js';
import type { TestServer } from './helpers.js';

const MAX_BODY = 4 * 1024 * 1024;

let s: TestServer;
let aliceToken = '';

beforeAll(async () => {
  s = await startServer({
    siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
    maxBodyBytes: MAX_BODY,
    timeouts: { requestMs: 1_500, headersMs: 1_000, checkIntervalMs: 200, keepAliveMs: 1_000 },
  });
  aliceToken = (await s.token(await s.user('alice'))).token;
});

afterAll(async () => {
  await s.close();
});

/**
 * Writes raw bytes on a fresh TCP connection (in parts, `pauseMs` apart) and reads what comes back until the
 * server closes the connection or `waitMs` pass; returns the status of the first response line (0 if none).
 */
function rawSocket(parts: readonly (string | Buffer)[], options: { pauseMs?: number; waitMs?: number } = {}): Promise<number> {
  const target = new URL(s.url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(m === null ? 0 : Number(m[1]));
    };
    const timer = setTimeout(done, options.waitMs ?? 5_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', done);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      let i = 0;
      const next = (): void => {
        const part = parts[i++];
        if (part === undefined || socket.destroyed) return;
        socket.write(part);
        setTimeout(next, options.pauseMs ?? 0);
      };
      next();
    });
  });
}

const post = (body: string | Buffer, headers: Record<string, string | readonly string[]> = { 'content-type': 'application/json' }) =>
  rawRequest(s.url, { method: 'POST', headers, body }).then((r) => r.status);

const postQuery = (query: string, extra: Record<string, string> = {}) =>
  post(JSON.stringify({ query }), { 'content-type': 'application/json', ...extra });

const nestedFields = (n: number): string => `{ ${'currentUser { '.repeat(n)}username${' }'.repeat(n)} }`;

interface Row {
  readonly ref: string;
  readonly send: () => Promise<number>;
  /** The exact status expected. */
  readonly expected: number;
}

const rows: readonly Row[] = [
  { ref: 'malformed JSON', send: () => post('{"query":'), expected: 400 },
  { ref: 'JSON array body', send: () => post('[{"query":"{ __typename }"}]'), expected: 400 },
  { ref: 'JSON string body', send: () => post('"{ __typename }"'), expected: 400 },
  { ref: 'empty body', send: () => post(''), expected: 400 },
  { ref: 'body not UTF-8', send: () => post(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), expected: 400 },
  { ref: 'body over the size limit (Content-Length)', send: () => post(JSON.stringify({ query: `{ __typename }${' '.repeat(MAX_BODY)}` })), expected: 413 },
  {
    ref: 'body over the size limit (chunked, no Content-Length)',
    send: () =>
      rawSocket([
        'POST /.api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        `${(MAX_BODY + 10).toString(16)}\r\n${' '.repeat(MAX_BODY + 10)}\r\n0\r\n\r\n`,
      ]),
    expected: 413,
  },
  { ref: 'wrong content type text/plain', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'text/plain' }), expected: 415 },
  { ref: 'no content type', send: () => post('{"query":"{ __typename }"}', {}), expected: 415 },
  { ref: 'form content type', send: () => post('query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' }), expected: 415 },
  { ref: 'JSON in another charset', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'application/json; charset=latin1' }), expected: 415 },
  { ref: 'compressed body', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }), expected: 415 },
  {
    ref: 'mutation over GET',
    send: () => rawRequest(s.url, { method: 'GET', path: `/.api/graphql?query=${encodeURIComponent('mutation { deleteAccessToken(id: "1") }')}`, headers: { authorization: `token ${aliceToken}` } }).then((r) => r.status),
    expected: 405,
  },
  { ref: 'PUT', send: () => rawRequest(s.url, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } }).then((r) => r.status), expected: 405 },
  { ref: 'DELETE', send: () => rawRequest(s.url, { method: 'DELETE' }).then((r) => r.status), expected: 405 },
  { ref: 'variables an array', send: () => post(JSON.stringify({ query: '{ __typename }', variables: [1] })), expected: 400 },
  { ref: 'variables a string', send: () => post(JSON.stringify({ query: '{ __typename }', variables: '{"a":1}' })), expected: 400 },
  { ref: 'query a number', send: () => post(JSON.stringify({ query: 42 })), expected: 400 },
  { ref: 'query missing', send: () => post(JSON.stringify({ variables: {} })), expected: 400 },
  { ref: 'operationName a number', send: () => post(JSON.stringify({ query: '{ __typename }', operationName: 7 })), expected: 400 },
  {
    ref: 'several Authorization headers',
    send: () => post(JSON.stringify({ query: '{ __typename }' }), { 'content-type': 'application/json', authorization: [`token ${aliceToken}`, `token ${aliceToken}`] }),
    expected: 401,
  },
  { ref: 'Authorization over 8192 characters', send: () => postQuery('{ __typename }', { authorization: `token ${'a'.repeat(9000)}` }), expected: 401 },
  { ref: 'Authorization with an unterminated quote', send: () => postQuery('{ __typename }', { authorization: 'token-sudo user="a' }), expected: 401 },
  { ref: '1 MiB header', send: () => postQuery('{ __typename }', { 'x-padding': 'a'.repeat(1024 * 1024) }), expected: 431 },
  { ref: 'URL of 64 KiB', send: () => rawRequest(s.url, { method: 'GET', path: `/.api/graphql?query=${'a'.repeat(64 * 1024)}` }).then((r) => r.status), expected: 431 },
  {
    ref: 'control character in a header value',
    send: () => rawSocket(['POST /.api/graphql HTTP/1.1\r\nHost: x\r\nAuthorization: token a\u0001b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}']),
    expected: 400,
  },
  { ref: 'NUL in the request line', send: () => rawSocket(['GET /.api/graphql\u0000 HTTP/1.1\r\nHost: x\r\n\r\n']), expected: 400 },
  { ref: 'garbage instead of HTTP', send: () => rawSocket(['\u0016\u0003\u0001 not http at all\r\n\r\n']), expected: 400 },
  {
    ref: 'Content-Length and Transfer-Encoding together (smuggling)',
    send: () =>
      rawSocket(['POST /.api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n']),
    expected: 400,
  },
  { ref: 'Content-Length not a number', send: () => rawSocket(['POST /.api/graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n']), expected: 400 },
  { ref: 'query nested 10,000 deep', send: () => postQuery(nestedFields(10_000)), expected: 400 },
  { ref: 'argument list nested 10,000 deep', send: () => postQuery(`{ search(query: ${'['.repeat(10_000)}"x"${']'.repeat(10_000)}) { results { matchCount } } }`), expected: 400 },
  { ref: 'query nested 40 deep (over graphQLMaxDepth 30)', send: () => postQuery(nestedFields(40)), expected: 400 },
  { ref: 'fragment cycle', send: () => postQuery('{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }'), expected: 400 },
  { ref: 'self-spreading fragment', send: () => postQuery('{ ...A } fragment A on Query { __typename ...A }'), expected: 400 },
  { ref: '100,000 aliases', send: () => postQuery(`{ ${Array.from({ length: 100_000 }, (_, i) => `a${i}:__typename`).join(' ')} }`), expected: 400 },
  { ref: '600 aliases (over graphQLMaxAliases 500)', send: () => postQuery(`{ ${Array.from({ length: 600 }, (_, i) => `a${i}:__typename`).join(' ')} }`), expected: 400 },
  { ref: '600 duplicate fields', send: () => postQuery(`{ ${'__typename '.repeat(600)}}`), expected: 400 },
  {
    ref: 'fragment fan-out 2^20 uses',
    send: () =>
      postQuery(
        `{ ...F0 } ${Array.from({ length: 20 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F20 on Query { __typename }`,
      ),
    expected: 400,
  },
  { ref: 'Accept that excludes JSON', send: () => postQuery('{ __typename }', { accept: 'text/html' }), expected: 406 },
  {
    ref: 'half-sent body (request timeout ends it)',
    send: () => rawSocket(['POST /.api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":'], { waitMs: 8_000 }),
    expected: 408,
  },
  {
    ref: 'half-sent headers (headers timeout ends it)',
    send: () => rawSocket(['POST /.api/graphql HTTP/1.1\r\nHost: x\r\nContent-Type: app'], { waitMs: 8_000 }),
    expected: 408,
  },
  {
    ref: 'sign-in form over the size limit',
    send: () =>
      rawRequest(s.url, { method: 'POST', path: '/.auth/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=${'a'.repeat(100_000)}` }).then(
        (r) => r.status,
      ),
    expected: 413,
  },
  {
    ref: 'sign-in with malformed JSON',
    send: () => rawRequest(s.url, { method: 'POST', path: '/.auth/sign-in', headers: { 'content-type': 'application/json' }, body: '{"username":' }).then((r) => r.status),
    expected: 400,
  },
  { ref: 'console asset path traversal', send: () => rawRequest(s.url, { method: 'GET', path: '/debug/console/assets/..%2f..%2fpackage.json' }).then((r) => r.status), expected: 404 },
];

describe('hostile requests (issue 5 "Bad input and load")', () => {
  it('should have at least 30 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)('$ref → $expected, and the server keeps serving', async ({ send, expected }) => {
    const status = await send();
    expect(status).toBe(expected);
    const after = await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${aliceToken}` } });
    expect({ status: after.status, body: after.body }).toStrictEqual({ status: 200, body: { data: { currentUser: { username: 'alice' } } } });
  });
});
