/**
 * The `gatehouse` program's V8 flags for the embedded database's WebAssembly: exactly the listed ones, and set at
 * run time they are in force as if given on `node`'s command line (V8's cached-data tag hashes the flags in force).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyEngineFlags, ENGINE_FLAGS } from '../../src/run/engine-flags.js';

const run = promisify(execFile);
const ENGINE_FLAGS_MODULE = fileURLToPath(new URL('../../src/run/engine-flags.ts', import.meta.url));
const TAG = "process.stdout.write(String(require('node:v8').cachedDataVersionTag()))";

describe('applyEngineFlags', () => {
  it('should set the baseline-only and lazy WebAssembly compilation flags and the heap growth, each once', () => {
    const set: string[] = [];
    applyEngineFlags((flag) => set.push(flag));
    expect(set).toStrictEqual(['--liftoff-only', '--wasm-lazy-compilation', '--heap-growing-percent=50']);
    expect(set).toStrictEqual([...ENGINE_FLAGS]);
  });

  it('should put V8 in the same state as the flags on the command line, and not in the default one', async () => {
    const applied = `
const { applyEngineFlags } = await import(${JSON.stringify(ENGINE_FLAGS_MODULE)});
applyEngineFlags();
const { cachedDataVersionTag } = await import('node:v8');
process.stdout.write(String(cachedDataVersionTag()));`;
    const [atRunTime, onCommandLine, byDefault] = await Promise.all([
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', applied]),
      run(process.execPath, [...ENGINE_FLAGS, '-e', TAG]),
      run(process.execPath, ['-e', TAG]),
    ]);
    expect(atRunTime.stdout).toMatch(/^\d+$/u);
    expect(atRunTime.stdout).toBe(onCommandLine.stdout);
    expect(atRunTime.stdout).not.toBe(byDefault.stdout);
  });

  it('should bound the old generation: a load that promotes short-lived objects grows the heap far less', async () => {
    // a live set of about 30 MB, and objects that each outlive a few scavenges before they die, as responses and
    // query results under load do; the peak heap size is read at every step
    const workload = (flags: boolean): string => `
${flags ? `const { applyEngineFlags } = await import(${JSON.stringify(ENGINE_FLAGS_MODULE)}); applyEngineFlags();` : ''}
const live = []; for (let i = 0; i < 300000; i++) live.push({ a: i, b: 'x' + i, c: [i] });
let peak = 0; const ring = new Array(40).fill(null);
for (let r = 0; r < 1500; r++) {
  const batch = []; for (let i = 0; i < 2000; i++) batch.push({ s: 'y'.repeat(50) + i, n: [i, i, i] });
  ring[r % ring.length] = batch;
  peak = Math.max(peak, process.memoryUsage().heapTotal);
}
process.stdout.write(String(peak));`;
    const args = ['--max-semi-space-size=4', '--import', 'tsx', '--input-type=module', '-e'];
    const [bounded, unbounded] = await Promise.all([run(process.execPath, [...args, workload(true)]), run(process.execPath, [...args, workload(false)])]);
    expect(Number(bounded.stdout)).toBeGreaterThan(30e6);
    expect(Number(bounded.stdout)).toBeLessThan(0.7 * Number(unbounded.stdout));
  }, 60_000);
});
