/**
 * `gatehouse serve`, `node dist/main.js` and `npm start`: opens the store (PostgreSQL with `--database-url` or
 * `DATABASE_URL`, else the embedded PGlite database in `--data-dir`, `GATEHOUSE_DATA_DIR` or `.gatehouse/data`),
 * applies its migrations (refusing a database whose schema is newer than this code), runs gatehouse on a site
 * configuration file (default examples/site-config.jsonc), seeds an administrator and prints a one-time
 * administrator access token, the callback address to register at each provider and why a provider cannot be used.
 *
 * It runs like a service: pino JSON logs on standard error (`LOG_LEVEL`); `GET /healthz` and `GET /readyz`;
 * Prometheus metrics on a separate address with `--metrics-address host:port`; the configuration file is watched
 * and re-read on change and on `SIGHUP` (an invalid file keeps the running configuration and logs every problem
 * with its path); `SIGTERM` and `SIGINT` stop accepting, let in-flight requests finish for up to
 * `--drain-timeout` seconds (default 10), close the store and exit 0.
 *
 * Usage: `gatehouse serve [--config FILE] [--search-dir DIR] [--port N] [--host H] [--drain-timeout SECONDS]
 * [--metrics-address HOST:PORT] [--data-dir DIR] [--database-url URL]`; environment `GATEHOUSE_CONFIG=FILE`, `PORT`
 * (default 3080), `HOST` (default 127.0.0.1), `GATEHOUSE_HOSTA_URL` and `GATEHOUSE_HOSTCCLOUD_URL` (the public code
 * host editions), `GATEHOUSE_DATA_DIR`, `DATABASE_URL`, `GATEHOUSE_CREDENTIALS_KEY`, `GATEHOUSE_MAIL_KEY`, `LOG_LEVEL`. Flags win over the environment.
 *
 * @module
 */
import { existsSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSiteConfiguration, usernameKey } from 'gatehouse-auth';
import { createPinoLog } from '../kernel/logging.js';
import type { LogEntry } from '../kernel/logging.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from '../providers/code-hosts.js';
import type { PublicCodeHostURLs } from '../providers/code-hosts.js';
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { err } from 'neverthrow';
import { SEEDED_ADMINISTRATOR_USERNAME, seedAdministrator } from './administrator.js';
import { checkStart } from '../providers/start-checks.js';
import { describeStoreLocation, openStore, openStoreErrorMessage, resolveStoreLocation } from '../store/open.js';
import type { OpenedStore, StoreLocation } from '../store/open.js';
import { parseMailKey, readOrCreateMailKey } from './mail-key.js';
import { markSeedTokenShown, releaseSeedTokenClaim, replaceUnshownSeedToken } from './seed-token.js';
import { readServeFlags, SERVE_USAGE } from './serve-usage.js';

/**
 * The parsed command line of `gatehouse serve`.
 *
 * @example
 * ```ts
 * const args: StartArguments = {
 *   configPath: null, searchDirectory: null, port: 3080, host: '127.0.0.1', drainTimeoutMs: 10_000,
 *   metricsAddress: null, publicCodeHostURLs: DEFAULT_PUBLIC_CODE_HOST_URLS, store: { dataDir: '/srv/.gatehouse/data' },
 * };
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
  /** How long a graceful stop lets in-flight requests finish, in milliseconds. */
  readonly drainTimeoutMs: number;
  /** Where `GET /metrics` is served, or `null` (no metrics endpoint). */
  readonly metricsAddress: { readonly host: string; readonly port: number } | null;
  /** The public code host editions' addresses. */
  readonly publicCodeHostURLs: PublicCodeHostURLs;
  /** Where the store is. */
  readonly store: StoreLocation;
  /**
   * The 32-byte key review host credentials are sealed with (`GATEHOUSE_CREDENTIALS_KEY`, base64), or `null`: a key
   * of this process only, so credentials sealed before a restart or on another instance cannot be opened.
   */
  readonly credentialsKey: Uint8Array | null;
  /**
   * The 32 bytes queued mail is sealed with (`GATEHOUSE_MAIL_KEY`, 64 hex digits or base64), or `null`: then a key
   * derived from `credentialsKey`, else the embedded store's `mail.key`, else a key of this process (`run/mail-key.ts`).
   */
  readonly mailKey: Uint8Array | null;
}

/** Default port. */
const DEFAULT_PORT = 3080;
/** Default drain timeout. */
const DEFAULT_DRAIN_MS = 10_000;
/** Changes to the configuration file closer together than this are read once. */
const RELOAD_DEBOUNCE_MS = 200;

/** The arguments that ask for the help text. */
const HELP_ARGUMENTS: ReadonlySet<string> = new Set(['--help', '-h', '-help', 'help']);

function parsePort(text: string, name: string): number | { readonly error: string } {
  const port = Number(text);
  return text !== '' && Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : { error: `${name} must be a port number, not ${JSON.stringify(text)}` };
}

/**
 * Reads `host:port` (`[::1]:9464` for IPv6).
 *
 * @param text - The address.
 * @returns Host and port, or a message.
 *
 * @example
 * ```ts
 * parseListenAddress('127.0.0.1:9464'); // { host: '127.0.0.1', port: 9464 }
 * ```
 */
export function parseListenAddress(text: string): { readonly host: string; readonly port: number } | { readonly error: string } {
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return { error: `--metrics-address must be HOST:PORT, not ${JSON.stringify(text)}` };
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/u, '$1');
  const port = parsePort(text.slice(colon + 1), '--metrics-address port');
  return typeof port === 'number' ? { host, port } : port;
}

/**
 * Reads the command line and environment of `gatehouse serve` (and `npm start`).
 *
 * @param argv - Arguments after the script name (or after `serve`).
 * @param env - The environment.
 * @param cwd - The working directory the default data directory is under.
 * @returns The arguments, or a message for a bad command line.
 *
 * @example
 * ```ts
 * parseStartArguments(['--config', 'site.jsonc', '--drain-timeout', '5'], { PORT: '8080' });
 * // { configPath: 'site.jsonc', port: 8080, drainTimeoutMs: 5000, … }
 * ```
 */
export function parseStartArguments(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): StartArguments | { readonly error: string } {
  const read = readServeFlags(argv);
  if ('error' in read) return read;
  const { values } = read;
  const configPath = values.get('--config') ?? env['GATEHOUSE_CONFIG'] ?? null;
  const portFlag = values.get('--port');
  const portText = portFlag ?? env['PORT'];
  let port = DEFAULT_PORT;
  if (portText !== undefined && portText !== '') {
    const parsed = parsePort(portText, portFlag === undefined ? 'PORT' : '--port');
    if (typeof parsed !== 'number') return parsed;
    port = parsed;
  }
  let drainTimeoutMs = DEFAULT_DRAIN_MS;
  const drain = values.get('--drain-timeout');
  if (drain !== undefined) {
    const seconds = Number(drain);
    if (!Number.isFinite(seconds) || seconds < 0) return { error: `--drain-timeout must be a number of seconds, not ${JSON.stringify(drain)}` };
    drainTimeoutMs = Math.round(seconds * 1000);
  }
  let metricsAddress: StartArguments['metricsAddress'] = null;
  const metrics = values.get('--metrics-address');
  if (metrics !== undefined) {
    const parsed = parseListenAddress(metrics);
    if ('error' in parsed) return parsed;
    metricsAddress = parsed;
  }
  const hosta = values.get('--hosta-url') ?? env['GATEHOUSE_HOSTA_URL'];
  const hostccloud = values.get('--hostccloud-url') ?? env['GATEHOUSE_HOSTCCLOUD_URL'];
  const keyText = env['GATEHOUSE_CREDENTIALS_KEY'] ?? '';
  const credentialsKey = keyText === '' ? null : new Uint8Array(Buffer.from(keyText, 'base64'));
  if (credentialsKey !== null && (credentialsKey.length !== 32 || !/^[A-Za-z0-9+/_-]+={0,2}$/u.test(keyText))) {
    return { error: 'GATEHOUSE_CREDENTIALS_KEY must be 32 random bytes in base64 (for example: openssl rand -base64 32)' };
  }
  const mailKeyText = env['GATEHOUSE_MAIL_KEY'] ?? '';
  const mailKey = mailKeyText === '' ? null : parseMailKey(mailKeyText);
  if (mailKey !== null && 'error' in mailKey) return mailKey;
  return {
    configPath: configPath === '' ? null : configPath,
    searchDirectory: values.get('--search-dir') ?? null,
    port,
    host: values.get('--host') ?? env['HOST'] ?? '127.0.0.1',
    drainTimeoutMs,
    metricsAddress,
    publicCodeHostURLs: {
      hosta: hosta === undefined || hosta === '' ? DEFAULT_PUBLIC_CODE_HOST_URLS.hosta : hosta,
      hostccloud: hostccloud === undefined || hostccloud === '' ? DEFAULT_PUBLIC_CODE_HOST_URLS.hostccloud : hostccloud,
    },
    store: resolveStoreLocation({ databaseUrl: values.get('--database-url') ?? null, dataDir: values.get('--data-dir') ?? null }, env, cwd),
    credentialsKey,
    mailKey,
  };
}

/** examples/site-config.jsonc, next to the sources (a checkout) or to dist/ (an install). */
function exampleConfiguration(): string {
  const here = typeof import.meta.url === 'string' ? dirname(fileURLToPath(import.meta.url)) : process.cwd();
  const candidates = [join(here, '..', '..', 'examples', 'site-config.jsonc'), join(here, '..', 'examples', 'site-config.jsonc')];
  return candidates.find((c) => existsSync(c)) ?? (candidates[0] ?? '');
}

/**
 * Opens the store and applies its migrations; says on standard error why not (and returns `null`).
 */
async function openServeStore(
  location: StoreLocation,
  io: Pick<ServeIo, 'stderr'>,
  log: (entry: LogEntry) => void,
): Promise<OpenedStore | null> {
  const opened = await openStore(location, {
    onPermissionsFixed: (fixed) =>
      log({
        level: 'warn',
        event: 'data_directory_permissions_fixed',
        dataDir: fixed.dataDir,
        directories: fixed.directories,
        files: fixed.files,
        message: `the data directory ${fixed.dataDir} could be read by other users: set its directories to 0700 and its files to 0600`,
      }),
  }).catch((error: unknown) => ({ failed: error instanceof Error ? error.message : String(error) }));
  if ('failed' in opened) {
    io.stderr.write(`gatehouse: cannot open the store at ${describeStoreLocation(location)}: ${opened.failed}\n`);
    return null;
  }
  if (opened.isErr()) {
    io.stderr.write(`gatehouse: ${openStoreErrorMessage(opened.error)} (store ${describeStoreLocation(location)})\n`);
    return null;
  }
  for (const m of opened.value.migrations.applied) log({ level: 'info', event: 'migration_applied', version: m.version, name: m.name });
  log({ level: 'info', event: 'store_opened', driver: opened.value.driver, location: describeStoreLocation(location), schemaVersion: opened.value.migrations.version });
  return opened.value;
}

const USAGE =
  'usage: gatehouse serve [--config FILE] [--search-dir DIR] [--port N] [--host H] [--drain-timeout SECONDS] ' +
  '[--metrics-address HOST:PORT] [--hosta-url URL] [--hostccloud-url URL] [--data-dir DIR] [--database-url URL]\n' +
  '(gatehouse serve --help lists every flag and environment variable)\n';

/**
 * What {@link serve} writes to and listens for; the process's by default.
 *
 * @example
 * ```ts
 * const io: ServeIo = { stdout: process.stdout, stderr: process.stderr, signals: process };
 * ```
 */
export interface ServeIo {
  /** Human-readable start lines (URL, token, callbacks). */
  readonly stdout: { write(text: string): unknown };
  /** Usage errors. */
  readonly stderr: { write(text: string): unknown };
  /** Where `SIGTERM`, `SIGINT` and `SIGHUP` arrive. */
  readonly signals: { on(signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', listener: () => void): unknown };
  /** The log sink. Default: {@link createPinoLog}. */
  readonly log?: (entry: LogEntry) => void;
}

/**
 * Runs the server until `SIGTERM` or `SIGINT` has stopped it gracefully.
 *
 * @param argv - The arguments (see the module documentation).
 * @param env - The environment.
 * @param io - Output streams and signal source. Default: the process's.
 * @returns The exit status once stopped: 0 after a graceful stop (and after printing the help for `--help`), 2 for
 *   a bad command line or configuration, 1 when the server could not start.
 *
 * @example
 * ```ts
 * process.exitCode = await serve(process.argv.slice(2), process.env);
 * ```
 */
export async function serve(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: ServeIo = { stdout: process.stdout, stderr: process.stderr, signals: process },
): Promise<number> {
  if (argv.some((arg) => HELP_ARGUMENTS.has(arg))) {
    io.stdout.write(SERVE_USAGE);
    return 0;
  }
  const args = parseStartArguments(argv, env);
  if ('error' in args) {
    io.stderr.write(`gatehouse: ${args.error}\n${USAGE}`);
    return 2;
  }
  const log = io.log ?? createPinoLog();
  const configFile = args.configPath === null ? exampleConfiguration() : resolve(args.configPath);
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch {
    io.stderr.write(`gatehouse: cannot read the site configuration ${configFile}\n`);
    return 2;
  }
  const configuration = parseSiteConfiguration(text);
  if (configuration.isErr()) {
    io.stderr.write(`gatehouse: invalid site configuration ${configFile}:\n`);
    for (const problem of configuration.error.problems) io.stderr.write(`  - ${problem.path === '' ? '' : `${problem.path}: `}${problem.message}\n`);
    return 2;
  }
  for (const warning of configuration.value.warnings) log({ level: 'warn', event: 'configuration_warning', path: warning.path, message: warning.message });

  // The server's modules (GraphQL, pages, providers) load while the store opens: the embedded database compiles its
  // WebAssembly on other threads meanwhile, so a start waits for the longer of the two, not for both.
  const serverModules = import('../index.js').then(
    (modules) => ({ modules }),
    (error: unknown) => ({ failed: error instanceof Error ? error.message : String(error) }),
  );
  const opened = await openServeStore(args.store, io, log);
  if (opened === null) return 1;
  const loaded = await serverModules;
  if ('failed' in loaded) {
    io.stderr.write(`gatehouse: cannot load the server: ${loaded.failed}\n`);
    await opened.store.close();
    return 1;
  }
  const { createFirstAdministratorLink, createGatehouseServer } = loaded.modules;
  // The administrator and its token are made once, on an empty database; later starts keep what is there.
  const sources = { now: Date.now, randomBytes: (n: number) => new Uint8Array(nodeRandomBytes(n)) };
  const seeded = await seedAdministrator(opened.store, sources).catch(
    (error: unknown) => err({ code: 'store_failed', message: error instanceof Error ? error.message : String(error) } as const),
  );
  if (seeded.isErr()) {
    io.stderr.write(`gatehouse: could not seed the administrator account: ${seeded.error.code}\n`);
    await opened.store.close();
    return 1;
  }
  // A seed token no start has shown yet (the first start failed after seeding) is replaced by a fresh one to show.
  const token = seeded.value.kind === 'seeded' ? seeded.value.token.secret : await replaceUnshownSeedToken(opened.store, sources);
  if (args.credentialsKey === null && configuration.value.authProviders.some((p) => p.type === 'reviewhost')) {
    io.stdout.write('WARNING: review host credentials are sealed with a key of this process only; set GATEHOUSE_CREDENTIALS_KEY (openssl rand -base64 32) so they stay readable after a restart\n');
  }
  // the key sealing queued mail: GATEHOUSE_MAIL_KEY, else derived from GATEHOUSE_CREDENTIALS_KEY, else (embedded
  // store) the data directory's key file, so queued mail outlives a restart; else a key of this process
  const mailKeyFile =
    args.mailKey === null && args.credentialsKey === null && 'dataDir' in args.store ? await readOrCreateMailKey(args.store.dataDir, sources.randomBytes) : null;
  if (mailKeyFile?.kind === 'failed') {
    io.stderr.write(`gatehouse: ${mailKeyFile.message}\n`);
    await opened.store.close();
    return 1;
  }
  const mailKey = args.mailKey ?? mailKeyFile?.key ?? null;
  if (args.credentialsKey === null && mailKey === null && configuration.value.email.smtp !== null) {
    const message =
      'queued mail is sealed with a key of this process only: mail still queued at a restart of this instance is dropped, and instances on one database cannot send each other\'s; set GATEHOUSE_MAIL_KEY (openssl rand -hex 32, the same on every instance)';
    log({ level: 'warn', event: 'mail_key_ephemeral', message });
    io.stdout.write(`WARNING: ${message}\n`);
  }
  const gatehouse = createGatehouseServer({
    store: opened.store,
    ...(args.credentialsKey === null ? {} : { credentialsKey: args.credentialsKey }),
    ...(mailKey === null ? {} : { mailKey }),
    siteConfiguration: configuration.value,
    searchDirectory: args.searchDirectory,
    log,
    publicCodeHostURLs: args.publicCodeHostURLs,
    timeouts: { drainMs: args.drainTimeoutMs },
  });
  let url: string;
  try {
    ({ url } = await gatehouse.listen(args.port, args.host));
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : String(error);
    io.stderr.write(`gatehouse: cannot listen on ${args.host}:${args.port}: ${code}\n`);
    // the token was not shown: the next start replaces it and shows that one
    if (token !== null) await releaseSeedTokenClaim(opened.store, Date.now()).catch(() => undefined);
    await gatehouse.close();
    await opened.store.close();
    return 1;
  }
  let metricsServer: Server | null = null;
  if (args.metricsAddress !== null) {
    const { host, port } = args.metricsAddress;
    const server = createServer(gatehouse.metrics.listener);
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(port, host, () => done());
    });
    metricsServer = server;
    const address = server.address();
    const shown = typeof address === 'object' && address !== null ? `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : `${host}:${port}`;
    io.stdout.write(`Metrics: http://${shown}/metrics\n`);
  }
  // SIGTERM and SIGINT are handled from the moment the server listens: a signal while the lines below are written
  // (a first start writes the administrator's link and token to the database) stops it as gracefully as later
  let pending: NodeJS.Timeout | null = null;
  let watcher: FSWatcher | null = null;
  let stopping = false;
  const stopped = new Promise<number>((done) => {
    const stop = (signal: 'SIGTERM' | 'SIGINT'): void => {
      if (stopping) {
        // a second signal: stop waiting for the in-flight requests
        log({ level: 'warn', event: 'shutdown_forced', signal });
        done(1);
        return;
      }
      stopping = true;
      log({ level: 'info', event: 'shutdown', signal, drainMs: args.drainTimeoutMs });
      watcher?.close();
      if (pending !== null) clearTimeout(pending);
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      // shutdown drains the requests, then closes the store
      void gatehouse
        .shutdown()
        .then(
          () => {
            log({ level: 'info', event: 'stopped' });
            done(0);
          },
          () => done(1),
        );
    };
    io.signals.on('SIGTERM', () => stop('SIGTERM'));
    io.signals.on('SIGINT', () => stop('SIGINT'));
  });
  io.stdout.write(`gatehouse listening on ${url}\n`);
  io.stdout.write(`Site configuration: ${configFile}\n`);
  io.stdout.write(`GraphQL API: ${url}/.api/graphql · Debug console: ${url}/debug/console\n`);
  const report = (): void => {
    for (const entry of checkStart({ configuration: gatehouse.configuration, listeningURL: url, publicURLs: args.publicCodeHostURLs })) {
      log(entry);
      if (entry.event === 'provider_callback' || entry.level === 'warn') io.stdout.write(`${entry.level === 'warn' ? 'WARNING: ' : ''}${String(entry['message'])}\n`);
    }
  };
  report();
  io.stdout.write(`Data: ${describeStoreLocation(args.store)}\n`);
  // beside the token, a one-time link that sets the administrator's password in the browser (24 h)
  const seededId = seeded.value.kind === 'seeded' ? seeded.value.user.id : null;
  const adminLink =
    token === null
      ? null
      : await createFirstAdministratorLink(opened.store, {
          userId: seededId ?? (await opened.store.accounts.findByUsernameKey(usernameKey(SEEDED_ADMINISTRATOR_USERNAME)))?.id ?? '',
          baseURL: gatehouse.configuration.externalURL ?? url,
          now: Date.now,
          randomBytes: sources.randomBytes,
        }).catch(() => null);
  if (adminLink !== null) io.stdout.write(`Set the administrator's password (once, within 24 hours): ${adminLink}\n`);
  if (token !== null) {
    io.stdout.write(`Administrator access token: ${token}\n`);
    // if this fails, the next start replaces the token with a fresh one and shows that
    await markSeedTokenShown(opened.store, Date.now()).catch(() => log({ level: 'warn', event: 'seed_token_not_recorded' }));
  }

  // Reload: on a change of the file (debounced) and on SIGHUP.
  let applied = text;
  const reload = async (trigger: 'file' | 'SIGHUP'): Promise<void> => {
    let next: string;
    try {
      next = await readFile(configFile, 'utf8');
    } catch {
      log({ level: 'error', event: 'configuration_unreadable', file: configFile, trigger });
      return;
    }
    if (next === applied && trigger === 'file') return;
    // a file that would lock out every site administrator is refused too (logged, shown as the rejected reload)
    const outcome = await gatehouse.reloadGuarded(next, { file: configFile });
    if (outcome.kind === 'reloaded') {
      applied = next;
      report();
    }
  };
  try {
    if (stopping) return stopped;
    // the directory, not the file: editors and deploy tools replace the file rather than write into it
    watcher = watch(dirname(configFile), { persistent: false }, (_event, name) => {
      if (name !== null && name !== basename(configFile)) return;
      if (pending !== null) clearTimeout(pending);
      pending = setTimeout(() => {
        pending = null;
        void reload('file');
      }, RELOAD_DEBOUNCE_MS);
    });
    watcher.on('error', () => log({ level: 'warn', event: 'configuration_watch_failed', file: configFile }));
  } catch {
    log({ level: 'warn', event: 'configuration_watch_failed', file: configFile });
  }
  io.signals.on('SIGHUP', () => void reload('SIGHUP'));

  return stopped;
}
