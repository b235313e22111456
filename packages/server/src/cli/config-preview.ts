/**
 * `gatehouse config preview FILE`: asks the running server what the site configuration in FILE would change
 * (GraphQL `previewSiteConfiguration`, site administrators only) with the same endpoint, token, headers and proxy
 * settings as `gatehouse api`, and prints the candidate's problems with their paths, or who would lose or gain
 * sign-in, the providers that come, go, or open or close sign-up, and the query cost limits that change. Nothing is
 * applied. Exit status: 0 the candidate is valid; 1 it has problems (or the request failed); 2 the server answered
 * with GraphQL errors (a token that is not a site administrator's), or a usage error.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import type { CliIo } from './main.js';

/**
 * A parsed `gatehouse [global flags] config preview [-json] FILE`.
 *
 * @example
 * ```ts
 * const command: ConfigPreviewCommand = { globals: ['-endpoint', 'http://127.0.0.1:3080'], file: 'next.jsonc', json: false };
 * ```
 */
export interface ConfigPreviewCommand {
  /** The global flags given before `config` (`-config FILE`, `-endpoint URL`), passed on as given. */
  readonly globals: readonly string[];
  /** The candidate configuration file. */
  readonly file: string;
  /** `-json`: print the server's answer as JSON instead of the summary. */
  readonly json: boolean;
}

/**
 * The usage line of the command.
 *
 * @example
 * ```ts
 * CONFIG_PREVIEW_USAGE.startsWith('Usage: gatehouse'); // true
 * ```
 */
export const CONFIG_PREVIEW_USAGE = 'Usage: gatehouse [-config FILE] [-endpoint URL] config preview [-json] SITE_CONFIG_FILE\n';

const GLOBAL_FLAGS = ['config', 'endpoint'];

/** The exit statuses. */
const EXIT_VALID = 0;
const EXIT_PROBLEMS = 1;
const EXIT_USAGE = 2;

/**
 * Reads `gatehouse … config preview FILE` from the command line.
 *
 * @param argv - The arguments after `gatehouse`.
 * @returns `null` when the command is not `config`; else the command, or the usage error's sentence.
 * @example
 * ```ts
 * parseConfigPreviewArguments(['-endpoint=http://h', 'config', 'preview', 'next.jsonc']);
 * // ok({ globals: ['-endpoint=http://h'], file: 'next.jsonc', json: false })
 * parseConfigPreviewArguments(['api', '-query', '{ a }']); // null
 * ```
 */
export function parseConfigPreviewArguments(argv: readonly string[]): Result<ConfigPreviewCommand, string> | null {
  let at = 0;
  const globals: string[] = [];
  while (at < argv.length) {
    const arg = argv[at] ?? '';
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    const body = arg.replace(/^--?/u, '');
    const name = body.split('=')[0] ?? '';
    if (!GLOBAL_FLAGS.includes(name)) return null;
    globals.push(arg);
    if (!body.includes('=')) {
      const value = argv[at + 1];
      if (value === undefined) return null;
      globals.push(value);
      at++;
    }
    at++;
  }
  if (argv[at] !== 'config') return null;
  const rest = argv.slice(at + 1);
  if (rest[0] !== 'preview') return err(`unknown config command ${JSON.stringify(rest[0] ?? '')} (try "gatehouse config preview FILE")`);
  let json = false;
  const files: string[] = [];
  for (const arg of rest.slice(1)) {
    if (arg === '-json' || arg === '--json') json = true;
    else if (arg.startsWith('-') && arg !== '-') return err(`unknown flag ${arg}`);
    else files.push(arg);
  }
  const [file, extra] = files;
  if (file === undefined) return err('config preview needs the candidate configuration file');
  if (extra !== undefined) return err(`unexpected argument ${JSON.stringify(extra)}`);
  return ok({ globals, file, json });
}

/** The query sent: every field of the preview. */
export const CONFIG_PREVIEW_QUERY = `query PreviewSiteConfiguration($configuration: String!) {
  previewSiteConfiguration(configuration: $configuration) {
    valid
    problems(first: 100) { path message }
    warnings(first: 100)
    accounts identities identitiesWithoutFacts
    losing { count first(first: 100) { ...way } }
    gaining { count first(first: 100) { ...way } }
    unknown { count first(first: 100) { ...way } }
    accountsLockedOut { count first(first: 100) { userId username siteAdmin } }
    providerChanges(first: 100) { kind type serviceId signupBefore signupAfter }
    limitChanges(first: 100) { setting before after }
    siteAdmins siteAdminsSigningInNow siteAdminsSigningInAfter
    locksOutSiteAdmins
  }
}
fragment way on SiteConfigurationPreviewWay {
  userId username siteAdmin serviceType serviceId accountId providerUsername reason accountStillSignsIn
}`;

interface Way {
  readonly username: string;
  readonly siteAdmin: boolean;
  readonly serviceType: string;
  readonly serviceId: string;
  readonly providerUsername: string | null;
  readonly reason: string | null;
  readonly accountStillSignsIn: boolean;
}

interface Ways {
  readonly count: number;
  readonly first: readonly Way[];
}

interface Preview {
  readonly valid: boolean;
  readonly problems: readonly { readonly path: string; readonly message: string }[];
  readonly warnings: readonly string[];
  readonly accounts: number;
  readonly identities: number;
  readonly identitiesWithoutFacts: number;
  readonly losing: Ways;
  readonly gaining: Ways;
  readonly unknown: Ways;
  readonly accountsLockedOut: { readonly count: number };
  readonly providerChanges: readonly { readonly kind: string; readonly type: string; readonly serviceId: string; readonly signupBefore: boolean | null; readonly signupAfter: boolean | null }[];
  readonly limitChanges: readonly { readonly setting: string; readonly before: number; readonly after: number }[];
  readonly siteAdmins: number;
  readonly siteAdminsSigningInNow: number;
  readonly siteAdminsSigningInAfter: number;
  readonly locksOutSiteAdmins: boolean;
}

function isPreview(value: unknown): value is Preview {
  return typeof value === 'object' && value !== null && 'valid' in value && typeof value.valid === 'boolean' && 'problems' in value && Array.isArray(value.problems);
}

function previewOf(answer: unknown): Preview | null {
  if (typeof answer !== 'object' || answer === null || !('data' in answer)) return null;
  const data: unknown = answer.data;
  if (typeof data !== 'object' || data === null || !('previewSiteConfiguration' in data)) return null;
  const preview: unknown = data.previewSiteConfiguration;
  return isPreview(preview) ? preview : null;
}

function wayLines(title: string, ways: Ways): string {
  const lines = ways.first.map((w) => {
    const provider = w.serviceType === 'builtin' ? 'password' : w.serviceId === '' ? w.serviceType : `${w.serviceType} ${w.serviceId}`;
    const facts = [
      w.siteAdmin ? 'site admin' : null,
      w.providerUsername === null ? null : `as ${w.providerUsername}`,
      w.reason,
      w.accountStillSignsIn ? 'keeps another way in' : 'no other way in',
    ].filter((f): f is string => f !== null);
    return `  ${w.username}  ${provider}  (${facts.join('; ')})\n`;
  });
  const more = ways.count > ways.first.length ? `  … and ${ways.count - ways.first.length} more\n` : '';
  return `${title} (${ways.count}):\n${lines.join('')}${more}`;
}

/**
 * The summary `gatehouse config preview` prints for an answer.
 *
 * @param preview - The server's answer.
 * @returns The text.
 */
function summary(preview: Preview): string {
  if (!preview.valid) {
    return `The candidate configuration has ${preview.problems.length} problem${preview.problems.length === 1 ? '' : 's'}:\n${preview.problems
      .map((p) => `  ${p.path === '' ? '(document)' : p.path}: ${p.message}\n`)
      .join('')}`;
  }
  const providers = preview.providerChanges.map((p) => {
    const name = p.serviceId === '' ? p.type : `${p.type} ${p.serviceId}`;
    if (p.kind === 'added') return `  + ${name} (sign-up ${p.signupAfter === true ? 'allowed' : 'not allowed'})\n`;
    if (p.kind === 'removed') return `  - ${name}\n`;
    return `  ${name}: ${p.signupAfter === true ? 'opens' : 'closes'} sign-up\n`;
  });
  const limits = preview.limitChanges.map((l) => `  ${l.setting}: ${l.before} -> ${l.after}\n`);
  return [
    'The candidate configuration is valid. Nothing was applied.\n',
    ...preview.warnings.map((w) => `warning: ${w}\n`),
    `Accounts examined: ${preview.accounts}; linked identities: ${preview.identities} (${preview.identitiesWithoutFacts} without sign-in facts: unknown where a rule reads them)\n`,
    wayLines('Would lose sign-in', preview.losing),
    wayLines('Would gain sign-in', preview.gaining),
    wayLines('Unknown', preview.unknown),
    `Accounts left without a way in: ${preview.accountsLockedOut.count}\n`,
    `Providers (${preview.providerChanges.length}):\n${providers.join('')}`,
    `Query cost limits (${preview.limitChanges.length}):\n${limits.join('')}`,
    `Site administrators signing in: ${preview.siteAdminsSigningInNow} now, ${preview.siteAdminsSigningInAfter} after (of ${preview.siteAdmins})\n`,
    preview.locksOutSiteAdmins ? 'This configuration would lock out every site administrator: a reload of it is refused.\n' : '',
  ].join('');
}

/**
 * Runs `gatehouse config preview FILE` through `gatehouse api` (`runApi`), so the connection settings are the same.
 *
 * @param command - The parsed command, or its usage error.
 * @param io - Environment, streams, file reading and home directory.
 * @param runApi - `runCli`, which sends the request.
 * @returns The exit status: 0 valid, 1 problems or a failed request, 2 GraphQL errors or a usage error.
 * @example
 * ```ts
 * const command = parseConfigPreviewArguments(argv);
 * if (command !== null) return runConfigPreview(command, io, runCli);
 * ```
 */
export async function runConfigPreview(
  command: Result<ConfigPreviewCommand, string>,
  io: CliIo,
  runApi: (argv: readonly string[], io: CliIo) => Promise<number>,
): Promise<number> {
  if (command.isErr()) {
    io.stderr.write(`gatehouse: ${command.error}\n\n${CONFIG_PREVIEW_USAGE}`);
    return EXIT_USAGE;
  }
  const { globals, file, json } = command.value;
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (error) {
    io.stderr.write(`gatehouse: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_PROBLEMS;
  }
  let captured = '';
  const status = await runApi([...globals, 'api', '-query', CONFIG_PREVIEW_QUERY, '-vars', JSON.stringify({ configuration: text })], {
    ...io,
    stdout: { write: (chunk: string) => (captured += chunk) },
  });
  let answer: unknown = null;
  try {
    answer = JSON.parse(captured);
  } catch {
    answer = null;
  }
  if (status !== 0) {
    // GraphQL errors (the answer on standard output), or a failed request (already told on standard error)
    if (captured !== '') io.stderr.write(captured);
    return status;
  }
  const preview = previewOf(answer);
  if (preview === null) {
    io.stderr.write('gatehouse: the server did not answer with a preview (is it a gatehouse server of this version?)\n');
    return EXIT_PROBLEMS;
  }
  io.stdout.write(json ? `${JSON.stringify(preview, null, 2)}\n` : summary(preview));
  return preview.valid ? EXIT_VALID : EXIT_PROBLEMS;
}
