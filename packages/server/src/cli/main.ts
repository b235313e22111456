/**
 * The `gatehouse` command line client: `gatehouse api` sends a GraphQL request to a gatehouse server, or prints the equivalent curl command (spec §1);
 * `gatehouse serve` runs the server; `gatehouse migrate`, `gatehouse admin create-token` and `gatehouse admin set-password` work on its store.
 *
 * @module gatehouse-server/cli
 */
import { arch, platform } from 'node:os';
import { gzipSync } from 'node:zlib';
import { match } from 'ts-pattern';
import { formatAuthorizationHeader, validateCredentials } from 'gatehouse-auth';
import { USAGE, buildVariables, parseCliArguments } from './args.js';
import type { ApiArguments, CliArgumentsError, VariablesError } from './args.js';
import { expandConfigPath, parseConfigFile, resolveConnection, resolveHeaders, resolveProxy } from './config.js';
import type { ConfigError, ConfigFile } from './config.js';
import { parseConfigPreviewArguments, runConfigPreview } from './config-preview.js';
import { buildCurlCommand } from './curl.js';
import { costTableOfText, EXPLAIN_COST_HEADER } from './explain-cost.js';
import { sendRequest } from './transport.js';
import type { HttpResponse } from './transport.js';
import { CLI_VERSION } from './version.js';
import { EXIT_FAILED } from './exit-status.js';

export { EXIT_FAILED } from './exit-status.js';

/**
 * Standard input as `runCli` reads it: `process.stdin`, or any async iterable of chunks.
 *
 * @example
 * ```ts
 * const stdin: CliInput = Readable.from(['{ currentUser { username } }']);
 * ```
 */
export type CliInput = AsyncIterable<string | Uint8Array> & { readonly isTTY?: boolean };

/**
 * A writable text stream (`process.stdout`, `process.stderr`, or a test double).
 *
 * @example
 * ```ts
 * const out: CliOutput = { write: (chunk) => { text += chunk; return true; } };
 * ```
 */
export interface CliOutput {
  /** Writes text. */
  write(chunk: string): unknown;
}

/**
 * Everything `runCli` touches outside itself, so tests need not spawn a process.
 *
 * @example
 * ```ts
 * const io: CliIo = { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, readFile: (p) => readFile(p, 'utf8'), homedir };
 * ```
 */
export interface CliIo {
  /** The environment (`SRC_ENDPOINT`, `SRC_ACCESS_TOKEN`, `SRC_HEADER_*`, `SRC_HEADERS`, `SRC_PROXY`, the proxy variables). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard input (read only when no `-query` is given). */
  readonly stdin: CliInput;
  /** Standard output: the response, or the curl command. */
  readonly stdout: CliOutput;
  /** Standard error: what went wrong. */
  readonly stderr: CliOutput;
  /** Reads a UTF-8 file; rejects with `code: 'ENOENT'` when it does not exist. */
  readonly readFile: (path: string) => Promise<string>;
  /** The user's home directory. */
  readonly homedir: () => string;
  /** How long the request may take, in milliseconds (default 120 s; `gatehouse doctor` passes its `-timeout`). */
  readonly requestTimeoutMs?: number;
}

/** How long one request may take unless the caller says otherwise. */
const REQUEST_TIMEOUT_MS = 120_000;

/** Exit statuses, as src-cli's `src api`: success; a failed request; GraphQL errors in the answer, or a usage error. */
const EXIT_OK = 0;
const EXIT_GRAPHQL_ERRORS = 2;
const EXIT_USAGE = 2;

function argumentsMessage(e: CliArgumentsError): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'unknown_command' }, (x) => `unknown command ${JSON.stringify(x.command)} (try "gatehouse api")`)
    .with({ code: 'unknown_flag' }, (x) => `unknown flag -${x.flag}`)
    .with({ code: 'missing_flag_value' }, (x) => `flag -${x.flag} needs a value`)
    .with({ code: 'invalid_boolean' }, (x) => `invalid boolean value ${JSON.stringify(x.value)} for -${x.flag}`)
    .with({ code: 'invalid_assignment' }, (x) => `argument ${JSON.stringify(x.argument)} is not name=value with a GraphQL name`)
    .exhaustive();
}

function variablesMessage(e: VariablesError): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'invalid_vars_json' }, () => '-vars is not valid JSON')
    .with({ code: 'vars_not_object' }, () => '-vars must be a JSON object')
    .exhaustive();
}

function configMessage(e: ConfigError, path: string): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'invalid_config_json' }, () => `config file ${path} is not valid JSON`)
    .with({ code: 'invalid_config_field' }, (x) =>
      x.field === 'file'
        ? `config file ${path} must hold a JSON object`
        : x.field === 'additionalHeaders'
          ? `"additionalHeaders" in config file ${path} must be an object of strings`
          : `"${x.field}" in config file ${path} must be a string`,
    )
    .with({ code: 'missing_endpoint' }, () => `no endpoint: pass -endpoint, set SRC_ENDPOINT or "endpoint" in ${path}`)
    .with({ code: 'invalid_endpoint' }, (x) => `endpoint ${JSON.stringify(x.endpoint)} is not an http(s) base URL`)
    .with({ code: 'invalid_header' }, (x) => `header ${JSON.stringify(x.name)} (SRC_HEADER_*, SRC_HEADERS or "additionalHeaders") is not a valid header name and value`)
    .with({ code: 'authorization_conflict' }, () => 'an Authorization header is set in SRC_HEADER_*, SRC_HEADERS or "additionalHeaders" while an access token is set too')
    .with({ code: 'invalid_proxy' }, (x) => `proxy ${JSON.stringify(redactProxy(x.proxy))} is not an http(s):// URL or a Unix socket path (SOCKS is not supported)`)
    .exhaustive();
}

async function readAll(stdin: CliInput): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stdin) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

async function loadConfig(args: ApiArguments, io: CliIo): Promise<{ file: ConfigFile; path: string } | { error: string }> {
  // As src-cli: `~/` is the home directory, then $VARIABLES are expanded.
  const path = expandConfigPath(args.config ?? '~/src-config.json', io.env, io.homedir());
  let text: string;
  try {
    text = await io.readFile(path);
  } catch (error) {
    // A missing default file is fine (the environment may say everything); a named one must exist.
    if (args.config === null && errorCode(error) === 'ENOENT') return { file: {}, path };
    return { error: `cannot read config file ${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const file = parseConfigFile(text);
  return file.isOk() ? { file: file.value, path } : { error: configMessage(file.error, path) };
}

/** Whether a parsed body is a GraphQL response carrying errors (GraphQL spec §7.1.2). */
function hasGraphQLErrors(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || !('errors' in body)) return false;
  const errors: unknown = body.errors;
  return Array.isArray(errors) && errors.length > 0;
}

function isGraphQLResponse(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && ('data' in body || 'errors' in body);
}

/** A proxy URL for messages: its `user:password@`, a secret, replaced by `***@`. */
function redactProxy(proxy: string): string {
  return proxy.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@]*@/u, '$1***@');
}

/** Sets a header by case-insensitive name, replacing an earlier one (Go's `Header.Set`). */
function setHeader(headers: [string, string][], name: string, value: string): void {
  const at = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
  if (at < 0) headers.push([name, value]);
  else headers[at] = [name, value];
}

/** `-dump-requests`' record of the request, as src-cli prints it. */
function dumpRequest(query: string, variables: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(variables);
  const lines = entries.length === 0 ? '' : `<-- variables:\n${entries.map(([k, v]) => `    ${k}: ${JSON.stringify(v)}\n`).join('')}\n`;
  return `<-- query:\n${query}\n\n${lines}`;
}

/** The first value of a response header. */
function firstHeader(response: HttpResponse, name: string): string {
  const value = response.headers[name];
  return typeof value === 'string' ? value : (value?.[0] ?? '');
}

/**
 * Runs `gatehouse` with `argv` (without `node` and the script) and resolves the exit status, as src-cli's
 * `src api`: 0 success; 1 the request could not be made or failed (bad configuration, no connection, an HTTP
 * status other than 200 with the status and body on standard error, a body that is not a GraphQL JSON response);
 * 2 the server answered with GraphQL `errors`, or the command line is wrong. The response is printed as indented
 * JSON. The request body is gzip-compressed (`Content-Encoding: gzip`); `-get-curl` prints it uncompressed.
 *
 * @param argv - The arguments, e.g. `['api', '-query', '{ currentUser { username } }']`.
 * @param io - Environment, streams, file reading and home directory.
 * @returns The exit status.
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, readFile: (p) => readFile(p, 'utf8'), homedir });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const fail = (message: string): number => {
    io.stderr.write(`gatehouse: ${message}\n`);
    return EXIT_FAILED;
  };
  const usage = (message: string): number => {
    io.stderr.write(`gatehouse: ${message}\n\n${USAGE}`);
    return EXIT_USAGE;
  };
  // `gatehouse config preview FILE` is a request through this same client (see config-preview.ts)
  const preview = parseConfigPreviewArguments(argv);
  if (preview !== null) return runConfigPreview(preview, io, runCli);
  const command = parseCliArguments(argv);
  if (command.isErr()) return usage(argumentsMessage(command.error));
  if (command.value.kind === 'help') {
    io.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (command.value.kind === 'version') {
    io.stdout.write(`gatehouse ${CLI_VERSION}\n`);
    return EXIT_OK;
  }
  const args = command.value.args;

  const variables = buildVariables(args.vars, args.assignments);
  if (variables.isErr()) return fail(variablesMessage(variables.error));

  const config = await loadConfig(args, io);
  if ('error' in config) return fail(config.error);
  const connection = resolveConnection(io.env, config.file, args.endpoint);
  if (connection.isErr()) return fail(configMessage(connection.error, config.path));
  const extra = resolveHeaders(io.env, config.file);
  if (extra.isErr()) return fail(configMessage(extra.error, config.path));
  const token = connection.value.accessToken;
  if (token !== null && Object.hasOwn(extra.value, 'authorization')) return fail(configMessage({ code: 'authorization_conflict' }, config.path));
  const url = new URL(connection.value.graphqlUrl);
  const route = resolveProxy(io.env, config.file, url, io.homedir());
  if (route.isErr()) return fail(configMessage(route.error, config.path));

  let query = args.query;
  if (query === null) {
    if (io.stdin.isTTY === true) return usage('no query: pass -query or pipe the query on standard input');
    query = await readAll(io.stdin);
  }
  if (query.trim() === '') return fail('the query is empty');

  const telemetry = args.userAgentTelemetry ?? (io.env['SRC_DISABLE_USER_AGENT_TELEMETRY'] ?? '') === '';
  const headers: [string, string][] = [];
  if (token !== null) {
    const credentials = validateCredentials({ scheme: 'token', token });
    if (credentials.isErr()) return fail('the access token cannot be sent in an Authorization header');
    headers.push(['Authorization', formatAuthorizationHeader(credentials.value)]);
  }
  headers.push(['Content-Type', 'application/json']);
  // Extra headers come last and replace any of the above by name, as in src-cli.
  for (const [name, value] of Object.entries(extra.value)) setHeader(headers, name, value);
  if (args.explainCost) setHeader(headers, ...EXPLAIN_COST_HEADER);
  const body = JSON.stringify({ query, variables: variables.value });

  if (args.getCurl) {
    io.stdout.write(`${buildCurlCommand({ url: connection.value.graphqlUrl, headers, body })}\n`);
    return EXIT_OK;
  }
  if (args.dumpRequests) io.stdout.write(dumpRequest(query, variables.value));

  const sent: [string, string][] = [['User-Agent', telemetry ? `gatehouse/${CLI_VERSION} ${platform()} ${arch()}` : `gatehouse/${CLI_VERSION}`]];
  if (args.trace) sent.push(['X-Sourcegraph-Should-Trace', 'true']);
  for (const [name, value] of headers) setHeader(sent, name, value);
  setHeader(sent, 'Content-Encoding', 'gzip');

  let response: HttpResponse;
  try {
    response = await sendRequest(
      { url, headers: sent, body: gzipSync(body) },
      { route: route.value, insecureSkipVerify: args.insecureSkipVerify, timeoutMs: io.requestTimeoutMs ?? REQUEST_TIMEOUT_MS },
    );
  } catch (error) {
    const via = route.value.kind === 'direct' ? '' : ` through ${route.value.kind === 'unix_socket' ? route.value.path : redactProxy(route.value.proxy)} (${route.value.source})`;
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return fail(`request to ${connection.value.graphqlUrl}${via} failed (${error instanceof Error ? error.message : String(error)}${cause})`);
  }
  if (args.trace) io.stdout.write(`x-trace: ${firstHeader(response, 'x-trace')}\n`);
  const text = response.body.toString('utf8');
  if (args.explainCost) {
    // the server measured the query without running it (or refused it over a limit): print the table
    const table = costTableOfText(text);
    if (table !== null) io.stdout.write(table.text);
    if (table !== null) return table.exceeded ? EXIT_GRAPHQL_ERRORS : EXIT_OK;
    if (response.status === 200) return fail('the server answered without the query\'s cost (X-Gatehouse-Cost: dry-run)');
  }
  if (response.status !== 200) return fail(`error: ${response.status} ${response.statusText}\n\n${text.slice(0, 64 * 1024)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(`${response.status} ${response.statusText}: the response is not JSON${text === '' ? '' : `\n${text.slice(0, 2000)}`}`);
  }
  if (args.dumpRequests) io.stdout.write(`--> ${JSON.stringify(parsed, null, 4).replace(/\n/g, '\n    ')}\n\n`);
  if (!isGraphQLResponse(parsed)) return fail(`${response.status} ${response.statusText}: not a GraphQL response`);
  io.stdout.write(`${JSON.stringify(parsed, null, 2)}\n`);
  return hasGraphQLErrors(parsed) ? EXIT_GRAPHQL_ERRORS : EXIT_OK;
}
