/**
 * The server entry: `node dist/main.js` (built by `npm run build`), `npm start` in a checkout, and what
 * `gatehouse serve` runs. Importing it has no effect; it serves only when run directly. See {@link serve} for the
 * command line, the environment and the signals.
 *
 * @module
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from './serve.js';

export { parseListenAddress, parseStartArguments, serve } from './serve.js';
export type { ServeIo, StartArguments } from './serve.js';

function invokedDirectly(): boolean {
  const script = process.argv[1];
  if (script === undefined || typeof import.meta.url !== 'string') return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  serve(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
