/**
 * How the server's own process runs the embedded database's WebAssembly, and how its heap grows. PGlite is PostgreSQL compiled to one
 * 9 MB module; by default V8 compiles all of it with its baseline compiler (Liftoff) and then recompiles the
 * functions it finds hot with its optimizing one (TurboFan). On `gatehouse serve` over PGlite that second tier
 * costs more than it gives: its code and the compilers' working memory hold about 75 MB for good, and a start
 * waits on it for up to 0.3 s, while PostgreSQL's work per request (an index lookup, a row written) is short and
 * runs about as fast on baseline code (a scan of a large table is about 1.3× slower; the mixed load of
 * `bench/embedded.bench.ts` got no slower). So the program compiles each
 * function only when first called, with the baseline compiler only.
 *
 * And how its heap grows. After a full garbage collection V8 lets the old generation grow to up to four times what
 * survived before the next one; under a steady load of short-lived objects that outlive a scavenge (query results,
 * log lines, responses) the heap of `gatehouse serve` swung between about 50 and 100 MB. With
 * `--heap-growing-percent=50` it grows by half at most: under the 60 s mixed load of `bench/embedded.bench.ts` the
 * peak resident memory on PGlite fell from 282 to 227 MB at the same throughput.
 *
 * The WebAssembly flags apply to modules compiled after they are set, so an entry point sets them before anything
 * opens the embedded database; they change nothing for a PostgreSQL server store. A program embedding gatehouse decides for
 * its own process (the same flags on its `node` command line have the same effect).
 *
 * One flag cannot be set at run time: V8 sizes its heap when the process starts. {@link NODE_FLAGS} lists it; the
 * bin's shebang, `npm start` and the example systemd unit give it on `node`'s command line.
 *
 * @module
 */
import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flags the `gatehouse` program sets for itself.
 *
 * @example
 * ```ts
 * ENGINE_FLAGS; // ['--liftoff-only', '--wasm-lazy-compilation', '--heap-growing-percent=50']
 * ```
 */
export const ENGINE_FLAGS: readonly string[] = Object.freeze(['--liftoff-only', '--wasm-lazy-compilation', '--heap-growing-percent=50']);

/**
 * The `node` flags the `gatehouse` program runs with: semi-spaces of 4 MB (V8 grows each to 16 MB under load), so a
 * burst of requests leaves about 30 MB less resident, for a few more, short, scavenges.
 *
 * @example
 * ```ts
 * NODE_FLAGS; // ['--max-semi-space-size=4']
 * ```
 */
export const NODE_FLAGS: readonly string[] = Object.freeze(['--max-semi-space-size=4']);

/**
 * Sets {@link ENGINE_FLAGS} on this process's V8.
 *
 * @param set - Where a flag goes (V8's `setFlagsFromString` by default).
 * @example
 * ```ts
 * applyEngineFlags(); // then open the embedded database
 * ```
 */
export function applyEngineFlags(set: (flag: string) => void = setFlagsFromString): void {
  for (const flag of ENGINE_FLAGS) set(flag);
}
