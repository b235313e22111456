/**
 * The service's own clients against a real gatehouse server (spec §4 rule 1, §5.1): README's curl command
 * run verbatim by a real `curl` process, the request the `src api` command line client sends (gzip-compressed
 * JSON, chunked, its headers), every content type a client may declare, tokens in the URL, and the
 * cross-site protection of cookie-authenticated requests.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { promisify } from 'node:util';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieFrom, rawRequest, startMainProcess, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
const README_ORIGIN = 'http://127.0.0.1:3080';

/** README's first `curl` command, continuation lines joined, exactly as a reader copies it into a shell. */
function readmeCurl(): string {
  const start = README.indexOf('\ncurl ');
  expect(start).toBeGreaterThan(0);
  const lines: string[] = [];
  for (const line of README.slice(start + 1).split('\n')) {
    lines.push(line);
    if (!line.endsWith('\\')) break;
  }
  return lines.join('\n');
}

/** Runs a shell command line with `$TOKEN` in the environment; README's origin becomes the test server's. */
async function sh(command: string, token: string, url: string): Promise<string> {
  expect(command).toContain(README_ORIGIN);
  const { stdout } = await run('sh', ['-c', command.replaceAll(README_ORIGIN, url)], {
    env: { ...process.env, TOKEN: token },
    timeout: 30_000,
  });
  return stdout;
}

const curlPresent = existsSync('/usr/bin/curl') || existsSync('/bin/curl');
if (!curlPresent) console.warn('real-clients.test.ts: the curl tests are skipped: no curl binary (apt-get install -y curl)');
// CI installs curl: a missing one there is a failure, not a skip.
const inCI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
const itCurl = curlPresent || inCI ? it : it.skip;

/** What `src api` sends: gzip-compressed JSON, chunked (Go's client cannot know the compressed length), its headers. */
function srcApiRequest(url: string, token: string, query: string, encode: (b: Buffer) => Buffer = gzipSync, encoding = 'gzip'): Promise<{ status: number; text: string }> {
  const target = new URL(`${url}/.api/graphql`);
  const body = encode(Buffer.from(JSON.stringify({ query, variables: null })));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: target.pathname,
        headers: {
          'user-agent': 'src-cli/6.4.0 linux amd64',
          authorization: `token ${token}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
          'accept-encoding': 'gzip',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // in two writes, as a streaming gzip writer does
    req.write(body.subarray(0, 10));
    req.end(body.subarray(10));
  });
}

describe('the API and its real clients (spec §4 rule 1, §5.1)', () => {
  let s: TestServer;
  let token = '';

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    token = (await s.token(await s.user('alice'))).token;
  });

  afterAll(async () => {
    await s.close();
  });

  itCurl("should answer README's curl command, run verbatim by curl (it declares application/x-www-form-urlencoded)", async () => {
    const command = readmeCurl();
    expect(command).toContain(`-H "Authorization: token $TOKEN" -d '{"query":"{ currentUser { username } }"}'`);
    expect(JSON.parse(await sh(command, token, s.url))).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  itCurl('should answer the curl command `src api -get-curl` prints (Content-Type application/json, -d)', async () => {
    const command = `curl \\\n   -H 'Authorization: token '"$TOKEN" \\\n   -H 'Content-Type: application/json' \\\n   -d '{"query":"{ currentUser { username } }","variables":null}' \\\n   ${README_ORIGIN}/.api/graphql`;
    expect(JSON.parse(await sh(command, token, s.url))).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  itCurl('should answer curl with a gzip-compressed body (curl --data-binary with Content-Encoding: gzip)', async () => {
    const command = `printf '%s' '{"query":"{ currentUser { username } }"}' | gzip -c | curl -s -H "Authorization: token $TOKEN" -H 'Content-Encoding: gzip' --data-binary @- ${README_ORIGIN}/.api/graphql`;
    expect(JSON.parse(await sh(command, token, s.url))).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  it("should answer the request of `src api` (gzip, chunked, token header, Content-Type application/json)", async () => {
    const answer = await srcApiRequest(s.url, token, '{ currentUser { username } }');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
    const deflated = await srcApiRequest(s.url, token, '{ currentUser { username } }', deflateSync, 'deflate');
    expect(JSON.parse(deflated.text)).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  it.each([
    ['application/json'],
    ['application/json; charset=utf-8'],
    ['application/graphql-response+json'],
    ['application/x-www-form-urlencoded'],
    ['text/plain;charset=UTF-8'],
    [null],
  ])('should read the JSON body whatever its declared type: %s', async (type) => {
    const answer = await rawRequest(s.url, {
      headers: { authorization: `token ${token}`, ...(type === null ? {} : { 'content-type': type }) },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  it('should answer a form-encoded body that is not JSON with a 400 saying so', async () => {
    const answer = await rawRequest(s.url, {
      headers: { authorization: `token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=%7B+currentUser+%7B+username+%7D+%7D',
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Unparsable JSON body');
  });

  it('should refuse a zip bomb with 413, promptly, and leave the server serving', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const started = performance.now();
    const answer = await rawRequest(s.url, { headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' }, body: bomb });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toStrictEqual({ errors: [{ message: 'Request body exceeds 1048576 bytes.' }] });
    expect(performance.now() - started).toBeLessThan(10_000);
    const after = await srcApiRequest(s.url, token, '{ currentUser { username } }');
    expect(after.status).toBe(200);
  });

  it('should refuse an unknown Content-Encoding with 415 naming the accepted ones, and broken gzip with 400', async () => {
    const br = await rawRequest(s.url, { headers: { 'content-encoding': 'br' }, body: '{}' });
    expect(br.status).toBe(415);
    expect(br.headers['accept-encoding']).toBe('gzip, deflate');
    expect(JSON.parse(br.text)).toStrictEqual({ errors: [{ message: 'Content-Encoding must be one of gzip, deflate or identity.' }] });
    const broken = await rawRequest(s.url, { headers: { 'content-encoding': 'gzip' }, body: '{"query":"{ __typename }"}' });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text)).toStrictEqual({ errors: [{ message: 'Request body is not valid gzip data.' }] });
  });

  it.each([['token'], ['access_token']])('should refuse ?%s= in the URL with 401 saying to use the Authorization header', async (name) => {
    for (const [method, path, body] of [
      ['POST', `/.api/graphql?${name}=${token}`, JSON.stringify({ query: '{ currentUser { username } }' })],
      ['GET', `/.api/graphql?query=%7B__typename%7D&${name}=${token}`, undefined],
    ] as const) {
      const answer = await rawRequest(s.url, { method, path, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) });
      expect(answer.status).toBe(401);
      const parsed = JSON.parse(answer.text) as { errors: { message: string; extensions: { code: string } }[] };
      expect(parsed.errors[0]?.extensions.code).toBe('TOKEN_IN_URL');
      expect(parsed.errors[0]?.message).toContain('send the token in the Authorization header');
      // even alongside a valid header: a token in a URL has leaked into logs and history, and is refused
      const both = await rawRequest(s.url, { method, path, headers: { authorization: `token ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) });
      expect(both.status).toBe(401);
    }
  });

  it('should send Vary: Authorization on every API answer', async () => {
    const answers = [
      await rawRequest(s.url, { headers: { authorization: `token ${token}` }, body: JSON.stringify({ query: '{ __typename }' }) }),
      await rawRequest(s.url, { body: JSON.stringify({ query: '{ __typename }' }) }),
      await rawRequest(s.url, { headers: { authorization: 'token gat_nope' }, body: '{}' }),
      await rawRequest(s.url, { method: 'GET', path: '/.api/graphql?query=%7B__typename%7D' }),
      await rawRequest(s.url, { method: 'PUT' }),
      await rawRequest(s.url, { path: '/.api/graphql?token=x' }),
      await rawRequest(s.url, { headers: { 'content-encoding': 'br' }, body: '{}' }),
    ];
    expect(answers.map((a) => a.headers['vary'])).toStrictEqual(answers.map(() => 'Authorization'));
  });

  it('should keep refusing cookie-authenticated requests without X-Requested-With, whatever the declared type (cross-site forms)', async () => {
    const signUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', email: 'carol@example.com', password: 'carol password' }),
    });
    const cookie = cookieFrom(signUp.headers, 'gatehouse_session') ?? cookieFrom(signUp.headers, '__Host-gatehouse_session');
    expect(cookie).not.toBeNull();
    const body = JSON.stringify({ query: '{ currentUser { username } }' });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', null, 'application/json']) {
      const answer = await rawRequest(s.url, { headers: { cookie: cookie ?? '', ...(type === null ? {} : { 'content-type': type }) }, body });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ errors: [{ extensions: { code: 'CSRF_HEADER_MISSING' } }] });
    }
    const allowed = await rawRequest(s.url, { headers: { cookie: cookie ?? '', 'x-requested-with': 'gatehouse' }, body });
    expect(JSON.parse(allowed.text)).toStrictEqual({ data: { currentUser: { username: 'carol' } } });
  });
});

describe("README's first screen, re-checked verbatim against `npm start` (spec §4 rule 1)", () => {
  itCurl('should start the server, take the token it prints and answer README\'s curl with the administrator', async () => {
    const started = await startMainProcess();
    try {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(started.token).toMatch(/^gat_/);
      expect(JSON.parse(await sh(readmeCurl(), started.token, started.url))).toStrictEqual({ data: { currentUser: { username: 'admin' } } });
    } finally {
      await started.stop();
    }
  });
});
