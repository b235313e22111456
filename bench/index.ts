/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command line) in this one
 * process, so gatehouse and its peers are measured on the same machine in the same run.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { applyEngineFlags } from '../packages/server/src/run/engine-flags.js';

// the embedded database in this process runs as in the `gatehouse` program (packages/server/src/run/engine-flags.ts)
applyEngineFlags();

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

console.log(`# gatehouse bench — node ${process.version}, ${new Date().toISOString()}`);
for (const file of files) {
  const mod: { run: () => Promise<void> | void } = await import(pathToFileURL(join(here, file)).href);
  await mod.run();
}
