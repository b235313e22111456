/**
 * The server entry: `node dist/main.js` (built by `npm run build`), `npm start` in a checkout, and what
 * `gatehouse serve` runs. Importing it has no effect; it serves only when run directly. See {@link serve} for the
 * command line, the environment and the signals.
 *
 * @module
 */
import { isEntryPoint } from '../kernel/entry-point.js';
import { applyEngineFlags } from './engine-flags.js';
import { serve } from './serve.js';

export { parseListenAddress, parseStartArguments, serve } from './serve.js';
export type { ServeIo, StartArguments } from './serve.js';

if (isEntryPoint(import.meta.url)) {
  // before the store opens: the embedded database's WebAssembly is compiled then (engine-flags.ts)
  applyEngineFlags();
  serve(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
