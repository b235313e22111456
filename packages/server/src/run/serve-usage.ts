/**
 * What `gatehouse serve` (and `npm start`, `node dist/main.js`) takes: every flag with its environment variable,
 * the variables without a flag, and the help text `gatehouse serve --help` prints. The parser reads its flags from
 * here, so the help cannot leave one out.
 *
 * @module
 */

/**
 * One flag of `gatehouse serve`.
 *
 * @example
 * ```ts
 * const flag: ServeFlag = { flag: '--port', value: 'N', env: 'PORT', defaultText: '3080', description: 'the port to listen on' };
 * ```
 */
export interface ServeFlag {
  /** The flag, `--name`. */
  readonly flag: string;
  /** What its value is, as the help shows it. */
  readonly value: string;
  /** The environment variable that sets the same (the flag wins), or `null`. */
  readonly env: string | null;
  /** The default, as the help shows it. */
  readonly defaultText: string;
  /** What it does. */
  readonly description: string;
}

/**
 * Every flag of `gatehouse serve`, each taking a value (`--flag VALUE` or `--flag=VALUE`).
 *
 * @example
 * ```ts
 * SERVE_FLAGS.map((f) => f.flag); // ['--config', '--port', '--host', …]
 * ```
 */
export const SERVE_FLAGS: readonly ServeFlag[] = [
  { flag: '--config', value: 'FILE', env: 'GATEHOUSE_CONFIG', defaultText: 'examples/site-config.jsonc', description: 'the site configuration (JSONC); watched, re-read on change and on SIGHUP' },
  { flag: '--port', value: 'N', env: 'PORT', defaultText: '3080', description: 'the port to listen on' },
  { flag: '--host', value: 'H', env: 'HOST', defaultText: '127.0.0.1', description: 'the address to listen on' },
  { flag: '--data-dir', value: 'DIR', env: 'GATEHOUSE_DATA_DIR', defaultText: '.gatehouse/data', description: 'the embedded PostgreSQL (PGlite) database; one process at a time' },
  { flag: '--database-url', value: 'URL', env: 'DATABASE_URL', defaultText: 'none', description: 'a PostgreSQL server instead of the embedded database (needs the pg package)' },
  { flag: '--drain-timeout', value: 'SECONDS', env: null, defaultText: '10', description: 'on SIGTERM/SIGINT, how long in-flight requests may finish' },
  { flag: '--metrics-address', value: 'HOST:PORT', env: null, defaultText: 'off', description: 'serve GET /metrics (Prometheus) there, never on the API address' },
  { flag: '--search-dir', value: 'DIR', env: null, defaultText: 'none', description: 'the directory the built-in search reads' },
  { flag: '--hosta-url', value: 'URL', env: 'GATEHOUSE_HOSTA_URL', defaultText: 'https://hosta.example.com', description: 'public edition address for a hosta entry without url' },
  { flag: '--hostccloud-url', value: 'URL', env: 'GATEHOUSE_HOSTCCLOUD_URL', defaultText: 'https://hostccloud.example.com', description: 'public edition address for a hostccloud entry without url' },
];

const VALUE_FLAGS: ReadonlySet<string> = new Set(SERVE_FLAGS.map((f) => f.flag));

/**
 * Reads the flags of a `gatehouse serve` command line into their values, the last one given of each winning
 * (`--flag VALUE` or `--flag=VALUE`). `parseStartArguments` (serve.ts) reads every value from here, and so does
 * the program's early start (early-start.ts), which must not load the server to do it.
 *
 * @param argv - The arguments after `serve`.
 * @returns The values by flag, or a message for an unknown flag or one without a value.
 *
 * @example
 * ```ts
 * readServeFlags(['--port', '8080', '--config=site.jsonc']); // { values: Map { '--port' => '8080', '--config' => 'site.jsonc' } }
 * readServeFlags(['--bogus']); // { error: 'unknown argument: --bogus' }
 * ```
 */
export function readServeFlags(argv: readonly string[]): { readonly values: ReadonlyMap<string, string> } | { readonly error: string } {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null];
    if (!VALUE_FLAGS.has(flag)) return { error: `unknown argument: ${arg}` };
    const value = inline ?? argv[++i];
    if (value === undefined || value === '') return { error: `${flag} needs a value` };
    values.set(flag, value);
  }
  return { values };
}

/**
 * The environment variables `gatehouse serve` reads that have no flag.
 *
 * @example
 * ```ts
 * SERVE_ENVIRONMENT.map((v) => v.name); // ['GATEHOUSE_CREDENTIALS_KEY', 'GATEHOUSE_MAIL_KEY', 'LOG_LEVEL']
 * ```
 */
export const SERVE_ENVIRONMENT: readonly { readonly name: string; readonly description: string }[] = [
  { name: 'GATEHOUSE_CREDENTIALS_KEY', description: 'the key sealing review host credentials: 32 random bytes in base64\n                              (openssl rand -base64 32), the same on every instance' },
  { name: 'GATEHOUSE_MAIL_KEY', description: 'the key sealing queued mail: 32 random bytes as 64 hex digits or base64\n                              (openssl rand -hex 32), the same on every instance' },
  { name: 'LOG_LEVEL', description: 'pino level of the JSON log on standard error: debug, info (default), warn, error, silent' },
];

const pad = (text: string, width: number): string => (text.length >= width ? `${text} ` : text.padEnd(width));

/**
 * The flags and environment of `gatehouse serve` as help text (also part of `gatehouse --help`).
 *
 * @example
 * ```ts
 * process.stdout.write(SERVE_FLAGS_HELP);
 * ```
 */
export const SERVE_FLAGS_HELP: string = [
  'Server flags (gatehouse serve; flags win over the environment):',
  ...SERVE_FLAGS.map(
    (f) => `  ${pad(`${f.flag} ${f.value}`, 28)}${f.description}\n${' '.repeat(30)}${f.env === null ? '' : `environment ${f.env}; `}default ${f.defaultText}`,
  ),
  '  -h, --help                  show this help',
  '',
  'Server environment:',
  ...SERVE_ENVIRONMENT.map((v) => `  ${pad(v.name, 28)}${v.description}`),
  '',
].join('\n');

/**
 * What `gatehouse serve --help` prints.
 *
 * @example
 * ```ts
 * io.stdout.write(SERVE_USAGE);
 * ```
 */
export const SERVE_USAGE: string = `Usage: gatehouse serve [flags]      (npm start -- [flags], node dist/main.js [flags])

Runs the gatehouse server: the GraphQL API, the sign-in pages and providers, the settings and site admin pages,
GET /healthz and /readyz. Logs are JSON lines on standard error. SIGHUP re-reads the site configuration;
SIGTERM and SIGINT stop gracefully.

${SERVE_FLAGS_HELP}
Exit status: 0 after a graceful stop, 1 when the server could not start, 2 for a bad command line or configuration.
`;
