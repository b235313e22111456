/**
 * Command line parsing of the `gatehouse` client, as pure functions: Go-style flags (`-query x`, `-query=x`, `--query x`) and `name=value` variables.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { SERVE_FLAGS_HELP } from '../run/serve-usage.js';

/**
 * The arguments of `gatehouse api`, with the global flags given before `api` folded in (a flag after `api` wins).
 *
 * @example
 * ```ts
 * const args: ApiArguments = {
 *   query: '{ currentUser { username } }', vars: null, config: null, endpoint: null, getCurl: false,
 *   dumpRequests: false, trace: false, insecureSkipVerify: false, userAgentTelemetry: null, explainCost: false, assignments: [],
 * };
 * ```
 */
export interface ApiArguments {
  /** `-query`: the GraphQL document, or `null` to read it from standard input. */
  readonly query: string | null;
  /** `-vars`: a JSON object of variables, as text, or `null`. */
  readonly vars: string | null;
  /** `-config`: the config file path, or `null` for `~/src-config.json`. */
  readonly config: string | null;
  /** `-endpoint`: the server's base URL, over `SRC_ENDPOINT` and the config file; `null` when not given. */
  readonly endpoint: string | null;
  /** `-get-curl`: print the equivalent curl command instead of sending the request. */
  readonly getCurl: boolean;
  /** `-dump-requests`: print the query, the variables and the response on standard output as well. */
  readonly dumpRequests: boolean;
  /** `-trace`: ask the server to trace the request and print its `x-trace` answer header. */
  readonly trace: boolean;
  /** `-insecure-skip-verify`: do not verify the server's TLS certificate. */
  readonly insecureSkipVerify: boolean;
  /** `-user-agent-telemetry`: name the OS and architecture in `User-Agent`; `null`: on unless `SRC_DISABLE_USER_AGENT_TELEMETRY` is set. */
  readonly userAgentTelemetry: boolean | null;
  /** `-explain-cost`: ask the server for the query's cost without running it and print it as a table. */
  readonly explainCost: boolean;
  /** Trailing `name=value` arguments, in order (string variables). */
  readonly assignments: readonly (readonly [string, string])[];
}

/**
 * What the command line asks for.
 *
 * @example
 * ```ts
 * const command: CliCommand = { kind: 'help' };
 * ```
 */
export type CliCommand =
  /** Print the usage text. */
  | { readonly kind: 'help' }
  /** Print the version (`--version`). */
  | { readonly kind: 'version' }
  /** Run `gatehouse api`. */
  | { readonly kind: 'api'; readonly args: ApiArguments };

/**
 * Why the command line cannot be understood.
 *
 * @example
 * ```ts
 * const e: CliArgumentsError = { code: 'unknown_flag', flag: 'qurey' };
 * ```
 */
export type CliArgumentsError =
  /** The first argument is not a known subcommand. */
  | { readonly code: 'unknown_command'; readonly command: string }
  /** A flag that `gatehouse api` (or `gatehouse` before the subcommand) does not have. */
  | { readonly code: 'unknown_flag'; readonly flag: string }
  /** A string flag at the end of the line with no value. */
  | { readonly code: 'missing_flag_value'; readonly flag: string }
  /** A boolean flag given `=x` where `x` is not a boolean. */
  | { readonly code: 'invalid_boolean'; readonly flag: string; readonly value: string }
  /** A positional argument that is not `name=value` with a GraphQL name. */
  | { readonly code: 'invalid_assignment'; readonly argument: string };

/**
 * The usage text of `gatehouse`.
 *
 * @example
 * ```ts
 * process.stdout.write(USAGE);
 * ```
 */
export const USAGE: string = `Usage: gatehouse [-config FILE] [-endpoint URL] api [flags] [name=value ...]
       gatehouse [-config FILE] [-endpoint URL] config preview [-json] SITE_CONFIG_FILE
                                                     show what a site configuration would change on the
                                                     running server (site administrators; nothing is applied):
                                                     its problems, or who would lose or gain sign-in, sign-up
                                                     and query cost limit changes; exit 0 valid, 1 problems
       gatehouse serve [flags]                       run the server
       gatehouse migrate [store flags]               apply the store's schema migrations, then exit
       gatehouse admin create-token USERNAME [store flags]
                                                     print a new site-admin:sudo token for an administrator
       gatehouse admin set-password USERNAME [store flags] < FILE
                                                     set an account's password (read from standard input)
       gatehouse doctor -config FILE [-endpoint URL] check a site configuration against its providers
       gatehouse doctor -endpoint URL                check the running server's configuration (SRC_ACCESS_TOKEN:
                                                     a site administrator's token; secrets are masked)
       gatehouse --version                           print the version
       gatehouse --help, gatehouse serve --help      show this help, or the server's flags alone

Sends a GraphQL request to {endpoint}/.api/graphql and prints the JSON response.

Flags:
  -query string           GraphQL query (default: read from standard input)
  -vars string            GraphQL variables as a JSON object
  -config string          config file (default: ~/src-config.json; ~ and $VARIABLES are expanded);
                          keys "endpoint", "accessToken", "additionalHeaders", "proxy"
  -endpoint string        the server's base URL (over SRC_ENDPOINT and the config file)
  -get-curl               print the equivalent curl command instead of sending the request
  -explain-cost           print the query's cost (spec §8) beside its limits without running it
                          (X-Gatehouse-Cost: dry-run); exit 2 when a limit is exceeded
  -dump-requests          also print the query, the variables and the response
  -trace                  ask the server to trace the request; print its x-trace header
  -insecure-skip-verify   do not verify the server's TLS certificate
  -user-agent-telemetry   name the OS and architecture in User-Agent
                          (default true unless SRC_DISABLE_USER_AGENT_TELEMETRY is set)
  -h, -help, --help       show this help

Trailing name=value arguments set string variables (after -vars).

Environment:
  SRC_ENDPOINT, SRC_ACCESS_TOKEN   override the config file's endpoint and accessToken
  SRC_DISABLE_USER_AGENT_TELEMETRY leave the OS and architecture out of User-Agent
  SRC_HEADER_<NAME>=value          send the header <name>: value (over additionalHeaders)
  SRC_HEADERS                      headers as "Name:value" lines (a literal \\n also separates them)
  SRC_PROXY                        proxy for every request: http(s)://[user:password@]host:port,
                                   or a Unix socket (unix://PATH or a path); over the config's "proxy"
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY  used when no SRC_PROXY or "proxy" is set (never for loopback)

Store flags (migrate, admin create-token, admin set-password; as gatehouse serve):
  --database-url URL      a PostgreSQL server (over DATABASE_URL)
  --data-dir DIR          the embedded database's directory (over GATEHOUSE_DATA_DIR;
                          default .gatehouse/data under the working directory)

${SERVE_FLAGS_HELP}
Exit status: 0 success, 1 the request failed (no connection, an HTTP status other than 200, no
GraphQL JSON answer, a bad configuration), 2 the answer carries GraphQL errors, or a usage error.
`;

const STRING_FLAGS = ['query', 'vars', 'config', 'endpoint'] as const;
type StringFlag = (typeof STRING_FLAGS)[number];
const BOOLEAN_FLAGS = {
  'get-curl': 'getCurl',
  'dump-requests': 'dumpRequests',
  trace: 'trace',
  'insecure-skip-verify': 'insecureSkipVerify',
  'user-agent-telemetry': 'userAgentTelemetry',
  'explain-cost': 'explainCost',
} as const;
type BooleanFlag = keyof typeof BOOLEAN_FLAGS;
/** The flags `gatehouse` takes before the subcommand (src-cli's global `-config` and `-endpoint`). */
const GLOBAL_FLAGS = ['config', 'endpoint'] as const;

/** A GraphQL `Name` (GraphQL spec §2.1.9). */
function isGraphQLName(name: string): boolean {
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(name);
}

function readBoolean(flag: string, value: string | undefined): Result<boolean, CliArgumentsError> {
  // The spellings Go's strconv.ParseBool accepts.
  if (value === undefined) return ok(true);
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return ok(true);
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return ok(false);
  return err({ code: 'invalid_boolean', flag, value });
}

/**
 * Parses `name=value` (the first `=` splits; the name must be a GraphQL name).
 *
 * @param argument - One positional argument.
 * @returns The pair, or `null` when it is not an assignment.
 * @example
 * ```ts
 * parseAssignment('q=a=b'); // ['q', 'a=b']
 * parseAssignment('1x=y');  // null
 * ```
 */
export function parseAssignment(argument: string): readonly [string, string] | null {
  const at = argument.indexOf('=');
  if (at < 0) return null;
  const name = argument.slice(0, at);
  return isGraphQLName(name) ? [name, argument.slice(at + 1)] : null;
}

/** One flag argument split as Go's `flag` package does: `-name`, `--name`, `-name=value`. */
function splitFlag(arg: string): { readonly name: string; readonly inline: string | undefined } {
  const body = arg.startsWith('--') ? arg.slice(2) : arg.slice(1);
  const eq = body.indexOf('=');
  return eq < 0 ? { name: body, inline: undefined } : { name: body.slice(0, eq), inline: body.slice(eq + 1) };
}

type GlobalValues = { config: string | null; endpoint: string | null };

/**
 * Parses the command line (without `node` and the script), as src-cli does: global flags (`-config`,
 * `-endpoint`, `--version`), then `api`, then its flags and `name=value` arguments in any order, like Go's
 * `flag` package for the flags themselves (`-f`, `--f`, `-f=v`, `-f v`; a repeated flag's last value wins;
 * `--` ends the flags). `help`, `-h`, `-help`, `--help` or nothing at all ask for the usage text.
 *
 * @param argv - The arguments.
 * @returns The command, or why it cannot be understood.
 * @example
 * ```ts
 * parseCliArguments(['-endpoint=http://h', 'api', '-query', '{ a }', 'x=1']);
 * // ok({ kind: 'api', args: { query: '{ a }', endpoint: 'http://h', assignments: [['x', '1']], … } })
 * parseCliArguments(['api', '-qurey', 'x']); // err({ code: 'unknown_flag', flag: 'qurey' })
 * ```
 */
export function parseCliArguments(argv: readonly string[]): Result<CliCommand, CliArgumentsError> {
  const globals: GlobalValues = { config: null, endpoint: null };
  let at = 0;
  for (; at < argv.length; at++) {
    const arg = argv[at] ?? '';
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    const { name, inline } = splitFlag(arg);
    if (name === 'h' || name === 'help') return ok({ kind: 'help' });
    if (name === 'version') return ok({ kind: 'version' });
    const flag = GLOBAL_FLAGS.find((f) => f === name);
    if (flag === undefined) return err({ code: 'unknown_flag', flag: name });
    if (inline !== undefined) {
      globals[flag] = inline;
      continue;
    }
    const next = argv[at + 1];
    if (next === undefined) return err({ code: 'missing_flag_value', flag });
    globals[flag] = next;
    at++;
  }
  if (argv[at] === '--') at++;
  const command = argv[at];
  const rest = argv.slice(at + 1);
  if (command === undefined || command === 'help') return ok({ kind: 'help' });
  if (command !== 'api') return err({ code: 'unknown_command', command });

  const values: Record<StringFlag, string | null> = { query: null, vars: null, ...globals };
  const booleans: { getCurl: boolean; dumpRequests: boolean; trace: boolean; insecureSkipVerify: boolean; userAgentTelemetry: boolean | null; explainCost: boolean } = {
    getCurl: false,
    dumpRequests: false,
    trace: false,
    insecureSkipVerify: false,
    userAgentTelemetry: null,
    explainCost: false,
  };
  const assignments: (readonly [string, string])[] = [];
  let flagsEnded = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (!flagsEnded && arg === '--') {
      flagsEnded = true;
      continue;
    }
    if (flagsEnded || !arg.startsWith('-') || arg === '-') {
      const pair = parseAssignment(arg);
      if (pair === null) return err({ code: 'invalid_assignment', argument: arg });
      assignments.push(pair);
      continue;
    }
    const { name, inline } = splitFlag(arg);
    if (name === 'h' || name === 'help') return ok({ kind: 'help' });
    if (Object.hasOwn(BOOLEAN_FLAGS, name)) {
      const value = readBoolean(name, inline);
      if (value.isErr()) return err(value.error);
      booleans[BOOLEAN_FLAGS[name as BooleanFlag]] = value.value;
      continue;
    }
    const flag = STRING_FLAGS.find((f) => f === name);
    if (flag === undefined) return err({ code: 'unknown_flag', flag: name });
    if (inline !== undefined) {
      values[flag] = inline;
      continue;
    }
    const next = rest[i + 1];
    if (next === undefined) return err({ code: 'missing_flag_value', flag });
    values[flag] = next;
    i++;
  }
  return ok({ kind: 'api', args: { ...values, ...booleans, assignments } });
}

const parseJson = Result.fromThrowable(
  (text: string): unknown => JSON.parse(text),
  (): VariablesError => ({ code: 'invalid_vars_json' }),
);

/**
 * Why the variables cannot be built.
 *
 * @example
 * ```ts
 * const e: VariablesError = { code: 'vars_not_object' };
 * ```
 */
export type VariablesError =
  /** `-vars` is not valid JSON. */
  | { readonly code: 'invalid_vars_json' }
  /** `-vars` is JSON but not an object. */
  | { readonly code: 'vars_not_object' };

/**
 * Builds the `variables` object: the `-vars` JSON object, then each `name=value` as a string
 * (a later assignment overrides `-vars` and earlier assignments). Every key is an own property,
 * `__proto__` included.
 *
 * @param vars - The `-vars` text, or `null`.
 * @param assignments - The `name=value` pairs.
 * @returns The variables, or why `-vars` is unusable.
 * @example
 * ```ts
 * buildVariables('{"first": 3}', [['q', 'repo:x']]); // ok({ first: 3, q: 'repo:x' })
 * buildVariables('[1]', []);                         // err({ code: 'vars_not_object' })
 * ```
 */
export function buildVariables(
  vars: string | null,
  assignments: readonly (readonly [string, string])[],
): Result<Readonly<Record<string, unknown>>, VariablesError> {
  let base: [string, unknown][] = [];
  if (vars !== null) {
    const parsed = parseJson(vars);
    if (parsed.isErr()) return err(parsed.error);
    const value = parsed.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return err({ code: 'vars_not_object' });
    base = Object.entries(value);
  }
  return ok(Object.fromEntries([...base, ...assignments]));
}

/**
 * A command on the store: `gatehouse migrate` or `gatehouse admin create-token USERNAME`, with where the store is.
 *
 * @example
 * ```ts
 * const command: StoreCommand = { kind: 'create_token', username: 'admin', databaseUrl: null, dataDir: '/var/lib/gatehouse' };
 * ```
 */
export type StoreCommand =
  /** Apply the migrations and exit. */
  | { readonly kind: 'migrate'; readonly databaseUrl: string | null; readonly dataDir: string | null }
  /** Mint a fresh administrator token for an existing administrator. */
  | { readonly kind: 'create_token'; readonly username: string; readonly databaseUrl: string | null; readonly dataDir: string | null }
  /** Set an account's built-in password, read from standard input (how the seeded administrator gets into the browser). */
  | { readonly kind: 'set_password'; readonly username: string; readonly databaseUrl: string | null; readonly dataDir: string | null };

/**
 * Why a store command line cannot be understood.
 *
 * @example
 * ```ts
 * const e: StoreCommandError = { code: 'missing_username' };
 * ```
 */
export type StoreCommandError =
  /** Not `migrate`, `admin create-token` or `admin set-password`. */
  | { readonly code: 'unknown_command'; readonly command: string }
  /** A flag other than `--database-url` and `--data-dir`. */
  | { readonly code: 'unknown_flag'; readonly flag: string }
  /** `--database-url` or `--data-dir` without a value. */
  | { readonly code: 'missing_flag_value'; readonly flag: string }
  /** `admin create-token` or `admin set-password` without a username. */
  | { readonly code: 'missing_username' }
  /** A second positional argument. */
  | { readonly code: 'unexpected_argument'; readonly argument: string };

/**
 * Parses `migrate …`, `admin create-token USERNAME …` or `admin set-password USERNAME …` (the arguments after `gatehouse`). The flags are
 * `--database-url URL` and `--data-dir DIR` (also `--flag=value`, and with one dash).
 *
 * @param argv - The arguments, the command first.
 * @returns The command, or why it cannot be understood.
 * @example
 * ```ts
 * parseStoreCommand(['admin', 'create-token', 'admin', '--data-dir', '/srv/gh']);
 * // ok({ kind: 'create_token', username: 'admin', databaseUrl: null, dataDir: '/srv/gh' })
 * parseStoreCommand(['admin', 'create-token']); // err({ code: 'missing_username' })
 * ```
 */
export function parseStoreCommand(argv: readonly string[]): Result<StoreCommand, StoreCommandError> {
  const [command, sub] = argv;
  const isMigrate = command === 'migrate';
  if (!isMigrate && !(command === 'admin' && (sub === 'create-token' || sub === 'set-password'))) {
    return err({ code: 'unknown_command', command: [command, command === 'admin' ? sub : undefined].filter((p) => p !== undefined).join(' ') });
  }
  const flags: { 'database-url': string | null; 'data-dir': string | null } = { 'database-url': null, 'data-dir': null };
  const positional: string[] = [];
  const rest = argv.slice(isMigrate ? 1 : 2);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const { name, inline } = splitFlag(arg);
    if (name !== 'database-url' && name !== 'data-dir') return err({ code: 'unknown_flag', flag: name });
    const value = inline ?? rest[++i];
    if (value === undefined || value === '') return err({ code: 'missing_flag_value', flag: name });
    flags[name] = value;
  }
  const where = { databaseUrl: flags['database-url'], dataDir: flags['data-dir'] };
  const [username, extra] = positional;
  if (isMigrate) return extra === undefined && username === undefined ? ok({ kind: 'migrate', ...where }) : err({ code: 'unexpected_argument', argument: username ?? '' });
  if (username === undefined || username === '') return err({ code: 'missing_username' });
  if (extra !== undefined) return err({ code: 'unexpected_argument', argument: extra });
  return ok({ kind: sub === 'set-password' ? 'set_password' : 'create_token', username, ...where });
}
