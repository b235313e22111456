import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { graphql, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli/args.js';
import { runCli } from '../../src/cli/main.js';
import { CLI_VERSION } from '../../src/cli/version.js';
import { NODE_FLAGS } from '../../src/run/engine-flags.js';
import type { CliIo } from '../../src/cli/main.js';
import { parseAuthorizationHeader } from '../../../../src/core/authorization-header.js';
import { startServer as startGatehouse } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { selfSignedCertificate, startFront, startProxy } from '../helpers/cli-servers.js';
import type { Front } from '../helpers/cli-servers.js';

const run = promisify(execFile);

/**
 * The real curl the `-get-curl` tests run. Without it those tests are reported as skipped (their names
 * say why), never passed.
 */
const CURL: string | null = existsSync('/usr/bin/curl') ? '/usr/bin/curl' : null;
const CURL_NOTE = CURL === null ? ' [SKIPPED: /usr/bin/curl is missing]' : '';
if (CURL === null) console.warn('test/cli: /usr/bin/curl is missing; the tests that run the printed curl command are skipped');
/** The environment of the shell that runs a printed command: /usr/bin first, no curl config from $HOME. */
const CURL_ENV = { PATH: '/usr/bin:/bin', HOME: '/nonexistent' };

// -----------------------------------------------------------------------------------------------
// The server the CLI talks to. Any server that answers POST {endpoint}/.api/graphql like gatehouse
// fits: to run this file against the real one, make `startServer` create it with
// `createGatehouseServer(...)`, seed two accounts with the tokens below (`createAccessToken`) and
// return its URL (the assertions only use `currentUser { username }`, `search` and errors).

interface ServerUnderTest {
  readonly url: string;
  /** Tokens that authenticate, by the username they stand for. */
  readonly tokens: { readonly alice: string; readonly mallory: string };
  close(): Promise<void>;
}

/** A token that exercises shell quoting: quotes, `$()`, backticks, backslash, `!`, spaces. */
const HOSTILE_TOKEN = `it's "$(echo injected)" \`id\` \\ ! ;|&`;

async function startServer(): Promise<ServerUnderTest> {
  const tokens = { alice: 'gat_alice', mallory: HOSTILE_TOKEN };
  const owners = new Map<string, string>([
    [tokens.alice, 'alice'],
    [tokens.mallory, 'mallory'],
  ]);
  const User = new GraphQLObjectType({ name: 'User', fields: { username: { type: new GraphQLNonNull(GraphQLString) } } });
  const Results = new GraphQLObjectType({ name: 'SearchResults', fields: { matchCount: { type: new GraphQLNonNull(GraphQLInt) } } });
  const Search = new GraphQLObjectType({ name: 'Search', fields: { results: { type: new GraphQLNonNull(Results) } } });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType<unknown, { viewer: string | null }>({
      name: 'Query',
      fields: {
        currentUser: { type: User, resolve: (_s, _a, ctx) => (ctx.viewer === null ? null : { username: ctx.viewer }) },
        search: {
          type: Search,
          args: { query: { type: new GraphQLNonNull(GraphQLString) } },
          // matchCount: the number of code points of the query, so every character counts.
          resolve: (_s, args: { query: string }) => ({ results: { matchCount: [...args.query].length } }),
        },
        echo: { type: GraphQLString, args: { text: { type: GraphQLString } }, resolve: (_s, args: { text?: string }) => args.text ?? null },
      },
    }),
  });
  const answer = async (req: IncomingMessage, viewer: string | null): Promise<{ status: number; body: unknown }> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let request: { query?: unknown; variables?: unknown };
    try {
      const raw = Buffer.concat(chunks);
      request = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as typeof request;
    } catch {
      return { status: 400, body: { errors: [{ message: 'Request body is not JSON.' }] } };
    }
    if (typeof request.query !== 'string') return { status: 400, body: { errors: [{ message: 'Missing query.' }] } };
    const result = await graphql({
      schema,
      source: request.query,
      variableValues: (request.variables ?? null) as Record<string, unknown> | null,
      contextValue: { viewer },
    });
    // GraphQL errors are 200, as graphql-http answers application/json requests and Sourcegraph answers `src api`.
    return { status: 200, body: result };
  };
  const server = createServer((req, res) => {
    if (req.url !== '/.api/graphql') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const credentials = parseAuthorizationHeader(req.headersDistinct['authorization']);
    if (credentials.isErr() || (credentials.value !== null && credentials.value.scheme !== 'token')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Invalid Authorization header.' }] }));
      return;
    }
    const owner = credentials.value === null ? null : (owners.get(credentials.value.token) ?? undefined);
    if (owner === undefined) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Invalid access token.' }] }));
      return;
    }
    void answer(req, owner).then(({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// -----------------------------------------------------------------------------------------------

interface Captured {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

function ioFor(options: {
  env?: Record<string, string | undefined>;
  stdin?: string[] | 'tty';
  files?: Record<string, string>;
}): { io: CliIo; out: { stdout: string; stderr: string } } {
  const out = { stdout: '', stderr: '' };
  const stdin =
    options.stdin === 'tty' ? Object.assign(Readable.from([]), { isTTY: true }) : Readable.from(options.stdin ?? [], { objectMode: true });
  const io: CliIo = {
    env: options.env ?? {},
    stdin,
    stdout: { write: (chunk) => (out.stdout += chunk) },
    stderr: { write: (chunk) => (out.stderr += chunk) },
    readFile: async (path) => {
      const text = options.files?.[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
      return text;
    },
    homedir: () => '/home/tester',
  };
  return { io, out };
}

async function cli(argv: string[], options: Parameters<typeof ioFor>[0] = {}): Promise<Captured> {
  const { io, out } = ioFor(options);
  const status = await runCli(argv, io);
  return { status, ...out };
}

describe('gatehouse api', () => {
  let server: ServerUnderTest;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    env = { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: server.tokens.alice };
  });
  afterAll(() => server.close());

  it('should print the response as indented JSON and exit 0 (spec §1, §2.2)', async () => {
    const result = await cli(['api', '-query', '{ currentUser { username } }'], { env });
    expect(result).toStrictEqual({
      status: 0,
      stdout: '{\n  "data": {\n    "currentUser": {\n      "username": "alice"\n    }\n  }\n}\n',
      stderr: '',
    });
  });

  it('should read a multi-line query from standard input (spec §1)', async () => {
    const result = await cli(['api'], { env, stdin: ['query {\n  currentUser {\n', '    username\n  }\n}\n'] });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
  });

  it('should refuse to wait for a query typed on a terminal, as a usage error (exit 2, as src api)', async () => {
    const result = await cli(['api'], { env, stdin: 'tty' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/no query/);
  });

  it('should pass -vars and name=value variables', async () => {
    const query = 'query($q: String!, $t: String) { search(query: $q) { results { matchCount } } echo(text: $t) }';
    const result = await cli(['api', '-query', query, '-vars', '{"q": "xx", "t": "from vars"}', 'q=abcd'], { env });
    expect(JSON.parse(result.stdout)).toStrictEqual({ data: { search: { results: { matchCount: 4 } }, echo: 'from vars' } });
  });

  it('should read the endpoint and token from ~/src-config.json, the environment winning', async () => {
    const files = { '/home/tester/src-config.json': JSON.stringify({ endpoint: server.url, accessToken: server.tokens.alice }) };
    const q = ['api', '-query', '{ currentUser { username } }'];
    const fromFile = await cli(q, { files });
    expect(JSON.parse(fromFile.stdout)).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
    const envWins = await cli(q, { files, env: { SRC_ACCESS_TOKEN: server.tokens.mallory } });
    expect(JSON.parse(envWins.stdout)).toStrictEqual({ data: { currentUser: { username: 'mallory' } } });
    const other = await cli([...q, '-config', '/etc/other.json'], {
      files: { '/etc/other.json': JSON.stringify({ endpoint: server.url, accessToken: server.tokens.mallory }) },
    });
    expect(JSON.parse(other.stdout)).toStrictEqual({ data: { currentUser: { username: 'mallory' } } });
  });

  it.each([
    { ref: 'client (a named config file must exist)', argv: ['-config', '/nope.json'], env: {}, files: {}, message: /cannot read config file \/nope\.json/ },
    { ref: 'client (config is JSON)', argv: [], env: {}, files: { '/home/tester/src-config.json': '{' }, message: /not valid JSON/ },
    { ref: 'spec §1 (an endpoint is needed)', argv: [], env: {}, files: {}, message: /no endpoint/ },
    { ref: 'client (-vars is a JSON object)', argv: ['-vars', '[]'], env: null, files: {}, message: /JSON object/ },
    { ref: 'client (empty query)', argv: ['-query', ' '], env: null, files: {}, message: /empty/ },
    { ref: 'RFC 9110 §5.5 (a token a header cannot carry)', argv: [], env: { SRC_ENDPOINT: 'http://127.0.0.1:9', SRC_ACCESS_TOKEN: 'a\nb' }, files: {}, message: /cannot be sent/ },
  ])('should exit 1 when the request cannot be made: $ref', async ({ argv, env: e, files, message }) => {
    const result = await cli(['api', '-query', '{ currentUser { username } }', ...argv], { env: e ?? env, files });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('should exit 1 when the server cannot be reached or answers no GraphQL JSON', async () => {
    const closed = await startServer();
    await closed.close();
    const unreachable = await cli(['api', '-query', '{ a }'], { env: { SRC_ENDPOINT: closed.url } });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/request to .* failed/);
    const notGraphQL = await cli(['api', '-query', '{ a }'], { env: { SRC_ENDPOINT: `${server.url}/elsewhere` } });
    expect(notGraphQL).toMatchObject({ status: 1, stdout: '' });
    expect(notGraphQL.stderr).toBe('gatehouse: error: 404 Not Found\n\nnot found\n');
  });

  it.each([
    { ref: 'GraphQL §7.1.2 (validation error)', query: '{ nope }', token: 'alice' as const },
    { ref: 'GraphQL §7.1.2 (syntax error)', query: '{', token: 'alice' as const },
  ])('should print the errors and exit 2 on GraphQL errors: $ref', async ({ query, token }) => {
    const result = await cli(['api', '-query', query], { env: { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: token === null ? 'gat_unknown' : server.tokens[token] } });
    expect(result.status).toBe(2);
    expect((JSON.parse(result.stdout) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
  });

  it('should exit 1 on an HTTP failure, 401 included, with the status and body on standard error and nothing on standard output (as src api)', async () => {
    const result = await cli(['api', '-query', '{ currentUser { username } }'], { env: { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: 'gat_unknown' } });
    expect(result).toStrictEqual({
      status: 1,
      stdout: '',
      stderr: `gatehouse: error: 401 Unauthorized\n\n${JSON.stringify({ errors: [{ message: 'Invalid access token.' }] })}\n`,
    });
  });

  it('should print the usage text for help (exit 0) and for bad arguments (exit 2, as src api)', async () => {
    expect(await cli(['help'])).toStrictEqual({ status: 0, stdout: USAGE, stderr: '' });
    for (const argv of [['version'], ['api', '-qurey', 'x'], ['api', '-vars'], ['api', 'not-an-assignment'], ['-nope', 'api'], ['api', '-trace=maybe']]) {
      const bad = await cli(argv, { env });
      expect([argv, bad.status, bad.stdout]).toStrictEqual([argv, 2, '']);
      expect(bad.stderr.endsWith(USAGE)).toBe(true);
    }
    expect((await cli(['api', '-qurey', 'x'])).stderr.startsWith('gatehouse: unknown flag -qurey\n')).toBe(true);
  });

  // ---- -get-curl: the printed command, run by a real sh and curl, gets the same answer ----------

  const hostileText = `it's "quoted" $(id) \`id\` $HOME \\ \\n ! * ; | & 😀 é\nsecond line\ttab`;
  const cases = [
    { ref: 'spec §1 (simple query)', argv: ['-query', '{ currentUser { username } }'], token: 'alice' as const, status: 0 },
    { ref: 'client (hostile token)', argv: ['-query', '{ currentUser { username } }'], token: 'mallory' as const, status: 0 },
    { ref: 'client (anonymous)', argv: ['-query', '{ currentUser { username } }'], token: null, status: 0 },
    {
      ref: 'client (hostile query text and variables)',
      argv: ['-query', `# ${hostileText.replace(/\n/g, ' ')}\nquery($q: String!, $t: String) { search(query: $q) { results { matchCount } } echo(text: $t) }`, '-vars', JSON.stringify({ t: hostileText }), `q=${hostileText}`],
      token: 'alice' as const,
      status: 0,
    },
    { ref: 'client (multi-line query from stdin)', argv: [], stdin: [`{\n  echo(text: ${JSON.stringify(hostileText)})\n}\n`], token: 'alice' as const, status: 0 },
    { ref: 'client (GraphQL errors)', argv: ['-query', `{ nope(x: ${JSON.stringify(hostileText)}) }`], token: 'alice' as const, status: 2 },
  ];
  it.skipIf(CURL === null).each(cases)(`should print a curl command that gets the same answer as the direct call${CURL_NOTE}: $ref`, async ({ argv, token, stdin, status }) => {
    const caseEnv = { SRC_ENDPOINT: server.url, ...(token === null ? {} : { SRC_ACCESS_TOKEN: server.tokens[token] }) };
    const direct = await cli(['api', ...argv], { env: caseEnv, ...(stdin === undefined ? {} : { stdin }) });
    expect(direct.status).toBe(status);
    const printed = await cli(['api', '-get-curl', ...argv], { env: caseEnv, ...(stdin === undefined ? {} : { stdin }) });
    expect(printed.status).toBe(0);
    expect(printed.stdout.startsWith(token === null ? `curl -s --globoff -H 'Content-Type: application/json' --data-raw '` : `curl -s --globoff -H 'Authorization: token `)).toBe(true);
    expect(printed.stdout.endsWith(` --url '${server.url}/.api/graphql'\n`)).toBe(true);
    const viaCurl = await run('sh', ['-c', `${printed.stdout.trimEnd()} --silent --show-error`], { encoding: 'utf8', env: CURL_ENV });
    expect(JSON.parse(viaCurl.stdout)).toStrictEqual(JSON.parse(direct.stdout));
  });
});

// -----------------------------------------------------------------------------------------------
// What scripts written for `src api` can tell: the request on the wire (gzip, headers), the flags, and the way
// it reaches the server (proxies, TLS). A front records each request before it reaches the fake server above.

describe('gatehouse api as src api', () => {
  let server: ServerUnderTest;
  let front: Front;
  let tlsFront: Front | null = null;
  let socketFront: Front;
  let socketDir = '';
  const certificate = selfSignedCertificate();
  const TLS_NOTE = certificate === null ? ' [SKIPPED: openssl is missing]' : '';
  const query = ['api', '-query', '{ currentUser { username } }'];
  const alice = `${JSON.stringify({ data: { currentUser: { username: 'alice' } } }, null, 2)}\n`;
  beforeAll(async () => {
    server = await startServer();
    front = await startFront(server.url, { extraResponseHeaders: { 'x-trace': 'trace-123' } });
    if (certificate !== null) tlsFront = await startFront(server.url, { tls: certificate });
    socketDir = await mkdtemp(join(tmpdir(), 'gatehouse-cli-socket-'));
    socketFront = await startFront(server.url, { socketPath: join(socketDir, 'proxy.sock') });
  });
  afterAll(async () => {
    await Promise.all([front.close(), tlsFront?.close(), socketFront.close()]);
    await server.close();
    await rm(socketDir, { recursive: true, force: true });
  });
  const last = (f: Front) => f.requests[f.requests.length - 1];

  it('should send its body gzip-compressed with Content-Encoding: gzip, and the headers src api sends', async () => {
    const result = await cli([...query, 'x=1'], { env: { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice } });
    expect(result).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    const request = last(front);
    expect(request?.gzipped).toBe(true);
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/.api/graphql');
    expect(JSON.parse(request?.body ?? '')).toStrictEqual({ query: '{ currentUser { username } }', variables: { x: '1' } });
    expect(request?.headers).toMatchObject({
      'content-encoding': 'gzip',
      'content-type': 'application/json',
      authorization: `token ${server.tokens.alice}`,
      'accept-encoding': 'gzip',
    });
    expect(request?.headers['user-agent']).toBe(`gatehouse/${CLI_VERSION} ${process.platform} ${process.arch}`);
  });

  it('should leave the OS and architecture out of User-Agent with -user-agent-telemetry=false or SRC_DISABLE_USER_AGENT_TELEMETRY', async () => {
    await cli([...query, '-user-agent-telemetry=false'], { env: { SRC_ENDPOINT: front.url } });
    expect(last(front)?.headers['user-agent']).toBe(`gatehouse/${CLI_VERSION}`);
    await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_DISABLE_USER_AGENT_TELEMETRY: '1' } });
    expect(last(front)?.headers['user-agent']).toBe(`gatehouse/${CLI_VERSION}`);
    await cli([...query, '-user-agent-telemetry'], { env: { SRC_ENDPOINT: front.url, SRC_DISABLE_USER_AGENT_TELEMETRY: '1' } });
    expect(last(front)?.headers['user-agent']).toMatch(/ /u);
  });

  it('should send additionalHeaders, SRC_HEADER_<NAME> and SRC_HEADERS, the environment winning, and never let one replace Content-Encoding', async () => {
    const files = { '/home/tester/src-config.json': JSON.stringify({ endpoint: front.url, additionalHeaders: { 'X-From-File': 'file', 'X-Both': 'file', 'Content-Encoding': 'identity' } }) };
    const env = { SRC_HEADER_X_ONE: 'one', SRC_HEADERS: 'X-Two: two\\nX-Both:env', SRC_ACCESS_TOKEN: server.tokens.alice };
    const result = await cli(query, { env, files });
    expect(result).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    expect(last(front)?.headers).toMatchObject({ 'x-from-file': 'file', 'x-both': 'env', x_one: 'one', 'x-two': 'two', 'content-encoding': 'gzip' });
    expect(last(front)?.gzipped).toBe(true);
    const curl = await cli([...query, '-get-curl'], { env, files });
    expect(curl.stdout).toContain(`-H 'x-two: two'`);
    expect(curl.stdout).toContain(`-H 'x-from-file: file'`);
  });

  it('should let an extra Authorization header authenticate, and refuse one beside an access token (as src-cli)', async () => {
    const viaHeader = await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_HEADER_AUTHORIZATION: `token ${server.tokens.alice}` } });
    expect(viaHeader).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    const both = await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice, SRC_HEADERS: 'Authorization: token x' } });
    expect([both.status, both.stdout]).toStrictEqual([1, '']);
    expect(both.stderr).toMatch(/Authorization header .* access token/u);
  });

  it('should take -config with ~ and $HOME expanded, the global -config and -endpoint, -endpoint winning over SRC_ENDPOINT', async () => {
    const files = { '/home/tester/cfg.json': JSON.stringify({ endpoint: 'http://127.0.0.1:9', accessToken: server.tokens.alice }), '/env/home/cfg.json': JSON.stringify({ endpoint: front.url, accessToken: server.tokens.mallory }) };
    const tilde = await cli([`-endpoint=${front.url}`, 'api', '-config', '~/cfg.json', '-query', '{ currentUser { username } }'], { files, env: { SRC_ENDPOINT: 'http://127.0.0.1:9' } });
    expect(tilde).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    const home = await cli(['-config=$HOME/cfg.json', ...query], { files, env: { HOME: '/env/home' } });
    expect(JSON.parse(home.stdout)).toStrictEqual({ data: { currentUser: { username: 'mallory' } } });
  });

  it('should print the query, the variables and the response with -dump-requests, as src api', async () => {
    const result = await cli([...query, '-dump-requests', '-vars', '{"n": 1}', 's=x'], { env: { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice } });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      '<-- query:\n{ currentUser { username } }\n\n<-- variables:\n    n: 1\n    s: "x"\n\n' +
        '--> {\n        "data": {\n            "currentUser": {\n                "username": "alice"\n            }\n        }\n    }\n\n' +
        alice,
    );
  });

  it('should ask for a trace and print the x-trace answer header with -trace', async () => {
    const result = await cli([...query, '-trace'], { env: { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice } });
    expect(result).toStrictEqual({ status: 0, stdout: `x-trace: trace-123\n${alice}`, stderr: '' });
    expect(last(front)?.headers['x-sourcegraph-should-trace']).toBe('true');
  });

  it('should print the version with --version and send it in User-Agent', async () => {
    expect(await cli(['--version'])).toStrictEqual({ status: 0, stdout: `gatehouse ${CLI_VERSION}\n`, stderr: '' });
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(CLI_VERSION).toBe(pkg.version);
  });

  it.skipIf(certificate === null)(`should verify the server's certificate unless -insecure-skip-verify is given${TLS_NOTE}`, async () => {
    const env = { SRC_ENDPOINT: tlsFront?.url ?? '', SRC_ACCESS_TOKEN: server.tokens.alice };
    const verified = await cli(query, { env });
    expect([verified.status, verified.stdout]).toStrictEqual([1, '']);
    expect(verified.stderr).toMatch(/self[- ]signed/iu);
    expect(await cli([...query, '-insecure-skip-verify'], { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    expect(last(tlsFront as Front)?.gzipped).toBe(true);
  });

  it('should send every request through SRC_PROXY, loopback included, as an absolute-URI request with the proxy credentials', async () => {
    const proxy = await startProxy({ credentials: 'user:p@ss' });
    try {
      const env = { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice, SRC_PROXY: proxy.url.replace('http://', 'http://user:p%40ss@') };
      expect(await cli(query, { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
      expect(proxy.log).toStrictEqual([{ method: 'POST', target: `${front.url}/.api/graphql`, proxyAuthorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}` }]);
      expect(last(front)?.gzipped).toBe(true);
      const refused = await cli(query, { env: { ...env, SRC_PROXY: proxy.url } });
      expect([refused.status, refused.stdout]).toStrictEqual([1, '']);
      expect(refused.stderr).toMatch(/^gatehouse: error: 407 /u);
    } finally {
      await proxy.close();
    }
  });

  it.skipIf(certificate === null)(`should tunnel https requests through the proxy with CONNECT${TLS_NOTE}`, async () => {
    const proxy = await startProxy();
    try {
      const env = { SRC_ENDPOINT: tlsFront?.url ?? '', SRC_ACCESS_TOKEN: server.tokens.alice, SRC_PROXY: proxy.url };
      expect(await cli([...query, '-insecure-skip-verify'], { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
      expect(proxy.log).toStrictEqual([{ method: 'CONNECT', target: new URL(tlsFront?.url ?? '').host, proxyAuthorization: undefined }]);
    } finally {
      await proxy.close();
    }
  });

  it('should use HTTP_PROXY for a host only the proxy knows, and NO_PROXY to go direct', async () => {
    const port = new URL(front.url).port;
    const proxy = await startProxy({ hosts: { [`gatehouse.test:${port}`]: `127.0.0.1:${port}` } });
    try {
      const env = { SRC_ENDPOINT: `http://gatehouse.test:${port}`, SRC_ACCESS_TOKEN: server.tokens.alice, HTTP_PROXY: proxy.url };
      expect(await cli(query, { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
      expect(proxy.log.map((e) => e.target)).toStrictEqual([`http://gatehouse.test:${port}/.api/graphql`]);
      const direct = await cli(query, { env: { ...env, NO_PROXY: 'localhost,.test' } });
      expect(direct.status).toBe(1);
      expect(direct.stderr).toMatch(/^gatehouse: request to http:\/\/gatehouse\.test:\d+\/\.api\/graphql failed/u);
      expect(proxy.log.length).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('should never send loopback requests through HTTP_PROXY (as Go)', async () => {
    const env = { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: server.tokens.alice, HTTP_PROXY: 'http://127.0.0.1:9' };
    expect(await cli(query, { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
  });

  it('should speak HTTP through a Unix socket given as SRC_PROXY', async () => {
    const env = { SRC_ENDPOINT: 'http://gatehouse.invalid', SRC_ACCESS_TOKEN: server.tokens.alice, SRC_PROXY: `unix://${join(socketDir, 'proxy.sock')}` };
    expect(await cli(query, { env })).toStrictEqual({ status: 0, stdout: alice, stderr: '' });
    expect(last(socketFront)?.gzipped).toBe(true);
    expect(last(socketFront)?.headers.host).toBe('gatehouse.invalid');
  });

  it('should name the proxy, never its password, when the request through it fails, and refuse a SOCKS proxy', async () => {
    const failed = await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_PROXY: 'http://127.0.0.1:9' } });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/through http:\/\/127\.0\.0\.1:9 \(SRC_PROXY\) failed/u);
    const socks = await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_PROXY: 'socks5://user:s3cret@127.0.0.1:1080' } });
    expect(socks.status).toBe(1);
    expect(socks.stderr).toMatch(/"socks5:\/\/\*\*\*@127\.0\.0\.1:1080" .*SOCKS is not supported/u);
    const withCredentials = await cli(query, { env: { SRC_ENDPOINT: front.url, SRC_PROXY: 'http://user:s3cret@127.0.0.1:9' } });
    expect(withCredentials.status).toBe(1);
    expect(withCredentials.stderr).toMatch(/through http:\/\/\*\*\*@127\.0\.0\.1:9 \(SRC_PROXY\) failed/u);
    expect(socks.stderr + withCredentials.stderr).not.toContain('s3cret');
  });
});

// -----------------------------------------------------------------------------------------------
// Against the gatehouse server itself: each answer compared with the one the printed command gets from the real
// curl. The CLI's requests pass through a front that gunzips them (and records that they came gzipped), so these
// tests do not depend on the server's own reading of compressed bodies.

/** The body a failed request printed on standard error after `gatehouse: error: <status>\n\n`. */
function failureBody(stderr: string): unknown {
  const m = /^gatehouse: error: \d{3} [^\n]*\n\n([\s\S]*)\n$/u.exec(stderr);
  return m?.[1] === undefined ? undefined : JSON.parse(m[1]);
}

describe('gatehouse api against the gatehouse server', () => {
  let s: TestServer;
  let front: Front;
  let env: Record<string, string>;
  let adminToken = '';
  let searchDir = '';

  beforeAll(async () => {
    searchDir = await mkdtemp(join(tmpdir(), 'gatehouse-cli-search-'));
    await writeFile(join(searchDir, 'a.txt'), `it's needle, "needle" and $needle\nneedle`);
    s = await startGatehouse({ searchDirectory: searchDir });
    front = await startFront(s.url);
    const alice = await s.user('alice', false, 'alice@example.com');
    const admin = await s.user('admin', true);
    env = { SRC_ENDPOINT: front.url, SRC_ACCESS_TOKEN: (await s.token(alice)).token };
    adminToken = (await s.token(admin, ['user:all', 'site-admin:sudo'])).token;
  });
  afterAll(async () => {
    await front.close();
    await s.close();
    await rm(searchDir, { recursive: true, force: true });
  });

  const cases = [
    { ref: 'spec §5.1 rule 1 (token)', argv: ['-query', '{ currentUser { username siteAdmin emails { email verified } } }'], token: 'alice' as const, status: 0 },
    { ref: 'spec §5.1 (anonymous)', argv: ['-query', '{ currentUser { username } }'], token: null, status: 0 },
    {
      ref: 'spec §2.2 search with -vars and name=value',
      argv: ['-query', 'query($q: String!) { search(query: $q) { results { matchCount } } }', '-vars', '{"q": "x"}', `q=it's`],
      token: 'alice' as const,
      status: 0,
    },
    {
      ref: 'hostile variable text',
      argv: ['-query', 'query($q: String!) { search(query: $q) { results { matchCount } } }', `q="needle" and $needle`],
      token: 'alice' as const,
      status: 0,
    },
    { ref: 'spec §1 multi-line query on stdin', argv: [], stdin: ['query {\n  currentUser {\n    username\n  }\n}\n'], token: 'admin' as const, status: 0 },
    { ref: 'GraphQL validation error, 200 (exit 2)', argv: ['-query', '{ nope }'], token: 'alice' as const, status: 2 },
    { ref: 'invalid access token, 401 (exit 1, as src api)', argv: ['-query', '{ currentUser { username } }'], token: 'unknown' as const, status: 1 },
    {
      ref: 'spec §8 cost limit exceeded, 400 (exit 1, as src api)',
      argv: ['-query', `{ ${Array.from({ length: 501 }, (_, i) => `a${i}: currentUser { username }`).join(' ')} }`],
      token: 'alice' as const,
      status: 1,
    },
  ];

  const tokenOf = (token: 'alice' | 'admin' | 'unknown' | null): Record<string, string> =>
    token === null ? {} : { SRC_ACCESS_TOKEN: token === 'alice' ? (env['SRC_ACCESS_TOKEN'] ?? '') : token === 'admin' ? adminToken : 'gat_unknown' };

  it.each(cases)('should answer $ref with exit $status', async ({ argv, token, stdin, status }) => {
    const before = front.requests.length;
    const result = await cli(['api', ...argv], { env: { SRC_ENDPOINT: front.url, ...tokenOf(token) }, ...(stdin === undefined ? {} : { stdin }) });
    expect(result.status).toBe(status);
    expect(front.requests.slice(before).map((r) => r.gzipped)).toStrictEqual([true]);
    if (status === 1) {
      expect(result.stdout).toBe('');
      expect(failureBody(result.stderr)).toHaveProperty('errors');
      return;
    }
    expect(result.stdout.endsWith('\n')).toBe(true);
    const body: unknown = JSON.parse(result.stdout);
    expect(result.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`); // pretty-printed
    if (status === 0) expect(body).toHaveProperty('data');
    else expect(body).toHaveProperty('errors');
  });

  it('should find the search matches of the directory search (spec §2.2)', async () => {
    const result = await cli(['api', '-query', 'query($q: String!) { search(query: $q) { results { matchCount } } }', 'q=needle'], { env });
    expect(result).toStrictEqual({ status: 0, stdout: `${JSON.stringify({ data: { search: { results: { matchCount: 4 } } } }, null, 2)}\n`, stderr: '' });
  });

  it.skipIf(CURL === null).each(cases)(
    `should print a curl command that the real curl runs to the same answer${CURL_NOTE}: $ref`,
    async ({ argv, token, stdin, status }) => {
      const caseEnv = { SRC_ENDPOINT: front.url, ...tokenOf(token) };
      const direct = await cli(['api', ...argv], { env: caseEnv, ...(stdin === undefined ? {} : { stdin }) });
      expect(direct.status).toBe(status);
      const printed = await cli(['api', '-get-curl', ...argv], { env: caseEnv, ...(stdin === undefined ? {} : { stdin }) });
      expect(printed.status).toBe(0);
      expect(printed.stdout.startsWith('curl ')).toBe(true);
      const viaCurl = await run('sh', ['-c', `${printed.stdout.trimEnd()} --silent --show-error`], { encoding: 'utf8', env: CURL_ENV });
      expect(JSON.parse(viaCurl.stdout)).toStrictEqual(status === 1 ? failureBody(direct.stderr) : JSON.parse(direct.stdout));
    },
  );
});

// -----------------------------------------------------------------------------------------------
// The program itself, as the `bin` runs it: a separate process, real environment, real home directory.

describe('the gatehouse program (src/run/bin.ts run directly)', () => {
  let s: TestServer;
  let front: Front;
  let home = '';
  let token = '';
  const MAIN = fileURLToPath(new URL('../../src/run/bin.ts', import.meta.url));

  beforeAll(async () => {
    s = await startGatehouse();
    front = await startFront(s.url);
    token = (await s.token(await s.user('carol'))).token;
    home = await mkdtemp(join(tmpdir(), 'gatehouse-cli-home-'));
    await writeFile(join(home, 'src-config.json'), JSON.stringify({ endpoint: front.url, accessToken: token }));
  });
  afterAll(async () => {
    await front.close();
    await s.close();
    await rm(home, { recursive: true, force: true });
  });

  /** Runs `node --import tsx src/run/bin.ts …` (through a symlink, as npm's bin does) with only `env` set. */
  function program(args: string[], env: Record<string, string>, input = ''): Promise<Captured> {
    return new Promise((resolve, reject) => {
      const link = join(home, 'gatehouse');
      symlink(MAIN, link)
        .catch(() => undefined)
        .then(() => {
          const child = execFile(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', link, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, cwd: process.cwd() }, (error, stdout, stderr) => {
            const status = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
            resolve({ status, stdout, stderr });
          });
          child.stdin?.end(input);
        }, reject);
    });
  }

  it('should read ~/src-config.json, take the query from standard input, and exit 0', async () => {
    const result = await program(['api'], { HOME: home }, '{\n  currentUser {\n    username\n  }\n}\n');
    expect(result).toStrictEqual({ status: 0, stdout: `${JSON.stringify({ data: { currentUser: { username: 'carol' } } }, null, 2)}\n`, stderr: '' });
  });

  it('should let the environment win over the config file, and exit 1 with the status on standard error on a 401', async () => {
    const result = await program(['api', '-query', '{ currentUser { username } }'], { HOME: home, SRC_ACCESS_TOKEN: 'gat_not_a_token' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(failureBody(result.stderr)).toStrictEqual({ errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] });
  });

  it('should exit 2 on GraphQL errors, and on a usage error', async () => {
    const errors = await program(['api', '-query', '{ nope }'], { HOME: home });
    expect(errors.status).toBe(2);
    expect(JSON.parse(errors.stdout)).toHaveProperty('errors');
    const usage = await program(['api', '-qurey', 'x'], { HOME: home });
    expect([usage.status, usage.stdout]).toStrictEqual([2, '']);
  });

  it('should take the global -config and -endpoint before api, and print --version', async () => {
    await writeFile(join(home, 'other.json'), JSON.stringify({ endpoint: 'http://127.0.0.1:9', accessToken: token }));
    const result = await program(['-config', '~/other.json', `-endpoint=${front.url}`, 'api', '-query', '{ currentUser { username } }'], { HOME: home });
    expect(result).toStrictEqual({ status: 0, stdout: `${JSON.stringify({ data: { currentUser: { username: 'carol' } } }, null, 2)}\n`, stderr: '' });
    expect(await program(['--version'], { HOME: home })).toStrictEqual({ status: 0, stdout: `gatehouse ${CLI_VERSION}\n`, stderr: '' });
  });

  it('should exit 1 when the request fails', async () => {
    const result = await program(['api', '-query', '{ currentUser { username } }'], { HOME: home, SRC_ENDPOINT: 'http://127.0.0.1:9' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^gatehouse: request to http:\/\/127\.0\.0\.1:9\/\.api\/graphql failed/);
  });

  it('should start with a shebang so that the built bin runs under node, with the node flags of engine-flags.ts', async () => {
    expect(NODE_FLAGS).toStrictEqual(['--max-semi-space-size=4']);
    expect((await readFile(MAIN, 'utf8')).split('\n')[0]).toBe(`#!/usr/bin/env -S node ${NODE_FLAGS.join(' ')}`);
  });
});
