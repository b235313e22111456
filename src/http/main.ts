/**
 * `npm start`: runs gatehouse on embedded defaults (an in-memory store and examples/site-config.jsonc),
 * seeds an administrator and prints a one-time administrator access token. The sign-in flows of every provider in
 * the file's `auth.providers` (login and callback routes, sign-in page links, the Account security page) are
 * mounted by the server itself.
 *
 * Usage: `npm start -- [--config FILE] [--search-dir DIR]`; environment `GATEHOUSE_CONFIG=FILE`, `PORT`
 * (default 3080), `HOST` (default 127.0.0.1). `--config` wins over `GATEHOUSE_CONFIG`.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSiteConfiguration } from '../core/site-configuration.js';
import { checkOptionalPeers } from './optional-peers.js';
import { createGatehouseServer } from './server.js';

/**
 * The parsed command line of `npm start`.
 *
 * @example
 * ```ts
 * const args: StartArguments = { configPath: null, searchDirectory: null, port: 3080, host: '127.0.0.1' };
 * ```
 */
export interface StartArguments {
  /** The site configuration file, or `null` for examples/site-config.jsonc. */
  readonly configPath: string | null;
  /** The directory the default search reads, or `null`. */
  readonly searchDirectory: string | null;
  /** The port. */
  readonly port: number;
  /** The interface to listen on. */
  readonly host: string;
}

/** Default port of `npm start`. */
const DEFAULT_PORT = 3080;

/**
 * Reads the command line and environment of `npm start`.
 *
 * @param argv - Arguments after the script name.
 * @param env - The environment.
 * @returns The arguments, or a message for a bad command line.
 *
 * @example
 * ```ts
 * parseStartArguments(['--config', 'site.jsonc'], { PORT: '8080' });
 * // { configPath: 'site.jsonc', searchDirectory: null, port: 8080, host: '127.0.0.1' }
 * ```
 */
export function parseStartArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): StartArguments | { readonly error: string } {
  let configPath: string | null = env['GATEHOUSE_CONFIG'] ?? null;
  let searchDirectory: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null];
    if (flag === '--config' || flag === '--search-dir') {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') return { error: `${flag} needs a value` };
      if (flag === '--config') configPath = value;
      else searchDirectory = value;
    } else {
      return { error: `unknown argument: ${arg}` };
    }
  }
  const portText = env['PORT'];
  const port = portText === undefined || portText === '' ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return { error: `PORT must be a port number, not ${JSON.stringify(portText)}` };
  return { configPath: configPath === '' ? null : configPath, searchDirectory, port, host: env['HOST'] ?? '127.0.0.1' };
}

const here = dirname(fileURLToPath(import.meta.url));
const EXAMPLE_CONFIG = join(here, '..', '..', 'examples', 'site-config.jsonc');

async function main(): Promise<number> {
  const args = parseStartArguments(process.argv.slice(2), process.env);
  if ('error' in args) {
    process.stderr.write(`gatehouse: ${args.error}\nusage: npm start -- [--config FILE] [--search-dir DIR]\n`);
    return 2;
  }
  const configFile = args.configPath === null ? EXAMPLE_CONFIG : resolve(args.configPath);
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch {
    process.stderr.write(`gatehouse: cannot read the site configuration ${configFile}\n`);
    return 2;
  }
  const configuration = parseSiteConfiguration(text);
  if (configuration.isErr()) {
    process.stderr.write(`gatehouse: invalid site configuration ${configFile}:\n`);
    for (const problem of configuration.error.problems) process.stderr.write(`  - ${problem.message}\n`);
    return 2;
  }
  for (const warning of configuration.value.warnings) process.stderr.write(`gatehouse: warning: ${warning.message}\n`);
  // A provider whose package is not installed cannot sign anyone in: refuse to start, naming the package.
  const missingPeers = (await checkOptionalPeers(configuration.value)).filter((p) => p.fatal);
  for (const peer of missingPeers) process.stderr.write(`gatehouse: ${peer.message}\n`);
  if (missingPeers.length > 0) return 2;

  const gatehouse = createGatehouseServer({
    siteConfiguration: configuration.value,
    searchDirectory: args.searchDirectory,
  });
  const admin = await gatehouse.store.createUser({
    username: 'admin',
    origin: 'admin_created',
    siteAdmin: true,
    serviceAccount: false,
    emails: [],
    passwordHash: null,
    createdAt: Date.now(),
  });
  if (admin.isErr()) {
    process.stderr.write('gatehouse: could not seed the administrator account\n');
    return 1;
  }
  const token = await gatehouse.createAccessToken(admin.value, admin.value.id, ['user:all', 'site-admin:sudo'], 'npm start');
  if ('error' in token) {
    process.stderr.write(`gatehouse: could not create the administrator token: ${token.error}\n`);
    return 1;
  }
  const { url } = await gatehouse.listen(args.port, args.host);
  process.stdout.write(`gatehouse listening on ${url}\n`);
  process.stdout.write(`Site configuration: ${configFile}\n`);
  process.stdout.write(`GraphQL API: ${url}/.api/graphql · Debug console: ${url}/debug/console\n`);
  process.stdout.write(`Administrator access token: ${token.token}\n`);
  const stop = (): void => {
    void gatehouse.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return 0;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main().then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
