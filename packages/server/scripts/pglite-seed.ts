/**
 * Writes the pre-initialized PGlite data directory (store/postgres/pglite-seed.ts) into the directory given as the
 * first argument, or into `node_modules/.cache/gatehouse/` without one. A checkout's `prepare` script runs it so that
 * `npm start`'s first start unpacks it instead of running `initdb`; the server's build writes one into `dist/`. It
 * never fails the install: without a seed the first start runs `initdb`, only slower.
 */
import { ensurePgliteSeed } from '../src/store/postgres/pglite-seed.js';

const started = performance.now();
await ensurePgliteSeed(process.argv[2] ?? null).then(
  (file) => console.log(file === null ? 'pglite seed: PGlite not found, skipped' : `pglite seed: ${file} (${Math.round(performance.now() - started)} ms)`),
  (error: unknown) => console.warn(`pglite seed: not written (${error instanceof Error ? error.message : String(error)}); the first start will run initdb`),
);
