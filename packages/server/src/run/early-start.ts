/**
 * What `gatehouse serve` starts before it loads the server: reading and compiling the embedded database's files
 * (pglite-artifacts.ts), when the command line and environment name no PostgreSQL server. The server's modules
 * take a few hundred milliseconds to load; the database's files are read and compiled meanwhile, off the main thread.
 *
 * Only node built-ins, the prefetch and the flag table are imported here: the program imports this module before
 * anything else.
 *
 * @module
 */
import { prefetchPgliteArtifacts } from '../store/postgres/pglite-artifacts.js';
import { readServeFlags } from './serve-usage.js';

/**
 * Whether `gatehouse serve` with these arguments and environment opens the embedded database, read as
 * `parseStartArguments` and `resolveStoreLocation` read it (serve.ts, store/open.ts): no `--database-url` and no
 * `DATABASE_URL`. A command line the server refuses opens nothing: `false`.
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
  const read = readServeFlags(argv);
  return !('error' in read) && (read.values.get('--database-url') ?? env['DATABASE_URL'] ?? '') === '';
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
