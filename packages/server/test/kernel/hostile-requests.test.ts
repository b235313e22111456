import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGatehouseServer } from '../../src/index.js';
import { createPinoLog } from '../../src/kernel/logging.js';
import { gql, rawRequest, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

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
 * server closes the connection or `waitMs` pass; returns the status of the first response line (0 if none) and
 * what follows its header block.
 */
/** The Host header value naming the test server (the server refuses other hosts). */
const host = (): string => new URL(s.url).host;

function rawSocket(parts: readonly (string | Buffer)[], options: { pauseMs?: number; waitMs?: number } = {}): Promise<Answer> {
  const target = new URL(s.url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const at = text.indexOf('\r\n\r\n');
      resolve({ status: m === null ? 0 : Number(m[1]), text: at < 0 ? '' : text.slice(at + 4) });
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

/** A status and the body text that came with it. */
interface Answer {
  readonly status: number;
  readonly text: string;
}

const post = (body: string | Buffer, headers: Record<string, string | readonly string[]> = { 'content-type': 'application/json' }): Promise<Answer> =>
  rawRequest(s.url, { method: 'POST', headers, body });

const postQuery = (query: string, extra: Record<string, string> = {}) =>
  post(JSON.stringify({ query }), { 'content-type': 'application/json', ...extra });

const nestedFields = (n: number): string => `{ ${'currentUser { '.repeat(n)}username${' }'.repeat(n)} }`;

interface Row {
  readonly ref: string;
  readonly send: () => Promise<Answer>;
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
        `POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        `${(MAX_BODY + 10).toString(16)}\r\n${' '.repeat(MAX_BODY + 10)}\r\n0\r\n\r\n`,
      ]),
    expected: 413,
  },
  // §4: the JSON body is read whatever its declared media type (curl -d declares a form; see
  // real-clients.test.ts), but a form body is not JSON, and a declared charset must be UTF-8
  { ref: 'form-encoded body (not JSON)', send: () => post('query=%7B__typename%7D', { 'content-type': 'application/x-www-form-urlencoded' }), expected: 400 },
  { ref: 'JSON in another charset', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'application/json; charset=latin1' }), expected: 415 },
  { ref: 'body declared gzip but not gzip data', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'application/json', 'content-encoding': 'gzip' }), expected: 400 },
  { ref: 'body in an unknown content coding', send: () => post('{"query":"{ __typename }"}', { 'content-type': 'application/json', 'content-encoding': 'br' }), expected: 415 },
  {
    ref: 'mutation over GET',
    send: () => rawRequest(s.url, { method: 'GET', path: `/.api/graphql?query=${encodeURIComponent('mutation { deleteAccessToken(id: "1") }')}`, headers: { authorization: `token ${aliceToken}` } }),
    expected: 405,
  },
  { ref: 'PUT', send: () => rawRequest(s.url, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } }), expected: 405 },
  { ref: 'DELETE', send: () => rawRequest(s.url, { method: 'DELETE' }), expected: 405 },
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
  { ref: 'URL of 64 KiB', send: () => rawRequest(s.url, { method: 'GET', path: `/.api/graphql?query=${'a'.repeat(64 * 1024)}` }), expected: 431 },
  {
    ref: 'control character in a header value',
    send: () => rawSocket([`POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: token a\u0001b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`]),
    expected: 400,
  },
  { ref: 'NUL in the request line', send: () => rawSocket([`GET /.api/graphql\u0000 HTTP/1.1\r\nHost: ${host()}\r\n\r\n`]), expected: 400 },
  { ref: 'garbage instead of HTTP', send: () => rawSocket(['\u0016\u0003\u0001 not http at all\r\n\r\n']), expected: 400 },
  {
    ref: 'Content-Length and Transfer-Encoding together (smuggling)',
    send: () =>
      rawSocket([`POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`]),
    expected: 400,
  },
  { ref: 'Content-Length not a number', send: () => rawSocket([`POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nContent-Length: abc\r\n\r\n`]), expected: 400 },
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
    send: () => rawSocket([`POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`], { waitMs: 8_000 }),
    expected: 408,
  },
  {
    ref: 'half-sent headers (headers timeout ends it)',
    send: () => rawSocket([`POST /.api/graphql HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: app`], { waitMs: 8_000 }),
    expected: 408,
  },
  {
    ref: 'sign-in form over the size limit',
    send: () =>
      rawRequest(s.url, { method: 'POST', path: '/.auth/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=${'a'.repeat(100_000)}` }),
    expected: 413,
  },
  {
    ref: 'sign-in with malformed JSON',
    send: () => rawRequest(s.url, { method: 'POST', path: '/.auth/sign-in', headers: { 'content-type': 'application/json' }, body: '{"username":' }),
    expected: 400,
  },
  { ref: 'console asset path traversal', send: () => rawRequest(s.url, { method: 'GET', path: '/debug/console/assets/..%2f..%2fpackage.json' }), expected: 404 },
];

/** The message of a gatehouse JSON error body (`{ errors: [{ message }] }` or `{ error: { message } }`), or `null`. */
function errorMessage(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const first: unknown = 'errors' in body && Array.isArray(body.errors) ? body.errors[0] : 'error' in body ? body.error : null;
  if (typeof first !== 'object' || first === null || !('message' in first) || typeof first.message !== 'string') return null;
  return first.message;
}

/** Everything the process writes to stdout and stderr while the table runs (the server's default log sink is stderr). */
const written: string[] = [];
const writes = [process.stdout, process.stderr].map((stream) =>
  vi.spyOn(stream, 'write').mockImplementation(function (this: unknown, chunk: unknown) {
    written.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return true;
  }),
);
afterAll(() => {
  for (const spy of writes) spy.mockRestore();
});

describe('hostile requests', () => {
  it('should have at least 30 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)('$ref → $expected, and the server keeps serving', async ({ send, expected }) => {
    const answer = await send();
    expect(answer.status).toBe(expected);
    // A clear 4xx: a JSON error with a message, also for what Node's parser and timeouts refuse (clientError)
    // and for graphql-http's content negotiation.
    expect(errorMessage(answer.text)).toMatch(/\S/);
    const after = await gql(s.url, '{ currentUser { username } }', { headers: { authorization: `token ${aliceToken}` } });
    expect({ status: after.status, body: after.body }).toStrictEqual({ status: 200, body: { data: { currentUser: { username: 'alice' } } } });
  });

  it('should keep every token and raw header value of the table out of the log, the audit log and the process output', async () => {
    // Unsupported schemes are ignored and audited (§5.1 rule 4, §6): the entry must not carry the value.
    const unsupported = ['Basic dXNlcjpzM2NyM3QtcGFzc3dvcmQ=', 'Negotiate c2VjcmV0LW5lZ290aWF0ZQ==', `Digest username="u", response="${'f'.repeat(32)}"`];
    for (const authorization of unsupported) {
      const answer = await gql(s.url, '{ currentUser { username } }', { headers: { authorization } });
      expect({ status: answer.status, body: answer.body }).toStrictEqual({ status: 200, body: { data: { currentUser: null } } });
    }
    const entries = await flatStoreOf(s.gatehouse.store).listAudit(100_000);
    // one address in one window: counted in coalesced entries (the count says how many), whatever the scheme
    const failures = entries.filter((e) => e.entity === 'auth.accessToken' && e.action === 'failed' && e.reason === 'invalid Authorization header');
    expect(failures.reduce((sum, e) => sum + e.count, 0)).toBeGreaterThanOrEqual(3);
    const audit = JSON.stringify(entries);
    const logs = JSON.stringify(s.logs);
    const output = written.join('');
    expect(s.logs.filter((e) => e['event'] === 'request').length).toBeGreaterThanOrEqual(rows.length);
    // The header values sent above; each is long enough not to occur by chance.
    const needles = [
      aliceToken,
      aliceToken.slice(4, 20),
      'token-sudo user="a',
      `token ${'a'.repeat(64)}`,
      'a'.repeat(4096),
      'token a\u0001b',
      ...unsupported,
      'dXNlcjpzM2NyM3QtcGFzc3dvcmQ',
      'c2VjcmV0LW5lZ290aWF0ZQ',
      'f'.repeat(32),
    ];
    for (const needle of needles) {
      expect(logs.includes(needle), needle.slice(0, 12)).toBe(false);
      expect(audit.includes(needle), needle.slice(0, 12)).toBe(false);
      expect(output.includes(needle), needle.slice(0, 12)).toBe(false);
    }
    // The server's default log sink (pino, one JSON line per entry) gets the same treatment; its lines are taken
    // where they are written (standard error is written through pino's asynchronous destination, past the spies).
    const plain = createGatehouseServer({
      siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
      log: createPinoLog({ destination: { write: (line) => written.push(line) } }),
    });
    const { url } = await plain.listen(0);
    try {
      const before = written.length;
      for (const authorization of [...unsupported, `token ${aliceToken}`, 'token-sudo user="a', `token ${'a'.repeat(64)}`]) {
        await gql(url, '{ currentUser { username } }', { headers: { authorization } });
      }
      const stderr = written.slice(before).join('');
      expect(stderr).toContain('"event":"request"');
      expect(stderr).toContain('"reason":"invalid Authorization header"');
      for (const needle of needles) expect(stderr.includes(needle), needle.slice(0, 12)).toBe(false);
    } finally {
      await plain.close();
    }
    // The capture works: the log holds the refused requests.
    expect(logs).toContain('"status":413');
    expect(logs).toContain('"status":401');
  });
});
