/**
 * What `gatehouse serve` starts before it loads the server: reading and compiling the embedded database's files
 * (pglite-artifacts.ts), when the command line and environment name no PostgreSQL server. The server's modules
 * take a few hundred milliseconds to load; the database's files are read and compiled meanwhile, off the main thread.
 *
 * Only node built-ins and the prefetch are imported here: the program imports this module before anything else.
 *
 * @module
 */
import { prefetchPgliteArtifacts } from '../store/postgres/pglite-artifacts.js';

/**
 * Whether `gatehouse serve` with these arguments and environment opens the embedded database: the reading of
 * `parseStartArguments` and `resolveStoreLocation` (serve.ts, store/open.ts) for `--database-url`, a non-empty
 * value of the last one given (`--database-url URL` or `--database-url=URL`) over `DATABASE_URL`. A command line
 * the server refuses may answer either way: nothing opens then.
 *
 * @param argv - The arguments after `serve`.
 * @param env - The environment.
 * @returns `true` when the store is the embedded database.
 *
 * @example
 * ```ts
 * opensEmbeddedStore(['--port', '3080'], {}); // true
 * opensEmbeddedStore(['--database-url=postgres://db/gatehouse'], {}); // false
 * ```
 */
export function opensEmbeddedStore(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): boolean {
  let url: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const equals = arg.indexOf('=');
    const flag = equals < 0 ? arg : arg.slice(0, equals);
    const value = equals < 0 ? argv[++i] : arg.slice(equals + 1);
    if (flag === '--database-url' && value !== undefined && value !== '') url = value;
  }
  return (url ?? env['DATABASE_URL'] ?? '') === '';
}

/**
 * Starts the early work of `gatehouse serve`: prefetches the embedded database's files when it will open it. Call it
 * after the engine's flags are set (engine-flags.ts).
 *
 * @param argv - The arguments after `serve`.
 * @param env - The environment.
 *
 * @example
 * ```ts
 * startServeEarly(process.argv.slice(3), process.env);
 * ```
 */
export function startServeEarly(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): void {
  if (opensEmbeddedStore(argv, env)) prefetchPgliteArtifacts();
}
