/**
 * PGlite's two large files, read and compiled ahead: its WebAssembly module (`pglite.wasm`, 9 MB) and the file
 * system bundle PostgreSQL's shared files come in (`pglite.data`, 6 MB). PGlite reads and compiles both when the
 * database opens; `gatehouse serve` starts that work as the process starts instead, so that the reads run on the
 * thread pool and the compilation on V8's compiler threads while the main thread loads the server's modules. A
 * restart answers about a tenth of a second sooner (bench/embedded.bench.ts).
 *
 * Only node built-ins are imported here: the program imports this module before anything else.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What PGlite takes in place of reading its own files (its `pgliteWasmModule` and `fsBundle` options).
 *
 * @example
 * ```ts
 * const artifacts: PgliteArtifacts = { pgliteWasmModule: await WebAssembly.compile(bytes), fsBundle: new Blob([data]) };
 * ```
 */
export interface PgliteArtifacts {
  /** `pglite.wasm`, compiled. */
  readonly pgliteWasmModule: WebAssembly.Module;
  /** `pglite.data`, the file system bundle. */
  readonly fsBundle: Blob;
}

/**
 * This module's file: in the sources, in `dist/` of the build, or in the CommonJS build (where `import.meta.url` is
 * empty and `__filename` is defined instead). PGlite and the seeds are found from here (pglite-seed.ts too).
 *
 * @example
 * ```ts
 * dirname(moduleLocation); // '…/gatehouse-server/dist'
 * ```
 */
export const moduleLocation: string =
  typeof import.meta.url === 'string' && import.meta.url !== ''
    ? fileURLToPath(import.meta.url)
    : typeof __filename === 'string'
      ? __filename
      : join(process.cwd(), 'index.js');

/**
 * The installed PGlite's entry point, resolved from here as Node resolves it; it throws when PGlite is not installed.
 * Its files sit beside it (`dist/`), and its package.json above it (pglite-seed.ts).
 *
 * @returns The entry point's path.
 *
 * @example
 * ```ts
 * resolvePgliteEntry(); // '…/node_modules/@electric-sql/pglite/dist/index.cjs'
 * ```
 */
export function resolvePgliteEntry(): string {
  return createRequire(moduleLocation).resolve('@electric-sql/pglite');
}

let prefetched: Promise<PgliteArtifacts | null> | null = null;

/**
 * Starts reading and compiling PGlite's files, once per process; {@link takePgliteArtifacts} hands them to the
 * database that opens next. Call it after the engine's flags are set (engine-flags.ts): the module is compiled
 * under the flags in force. A failure is kept as `null`, and PGlite then reads its files itself.
 *
 * @example
 * ```ts
 * prefetchPgliteArtifacts(); // at the start of `gatehouse serve`
 * ```
 */
export function prefetchPgliteArtifacts(): void {
  if (prefetched !== null) return;
  const load = async (): Promise<PgliteArtifacts> => {
    const directory = dirname(resolvePgliteEntry());
    const [wasm, data] = await Promise.all([readFile(join(directory, 'pglite.wasm')), readFile(join(directory, 'pglite.data'))]);
    return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([data]) };
  };
  prefetched = load().catch(() => null);
}

/**
 * The prefetched files, once: the first database opened after {@link prefetchPgliteArtifacts} takes them, and
 * every later call (or one without a prefetch) gets `null`, so a process holds them no longer than PGlite does.
 *
 * @returns The files, or `null` when none were prefetched, they were taken, or reading them failed.
 *
 * @example
 * ```ts
 * const artifacts = await takePgliteArtifacts();
 * new PGlite({ ...(artifacts ?? {}) });
 * ```
 */
export async function takePgliteArtifacts(): Promise<PgliteArtifacts | null> {
  const taken = prefetched;
  if (taken === null) return null;
  prefetched = Promise.resolve(null);
  return taken;
}
