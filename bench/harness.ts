/**
 * A tiny benchmark harness: median time per call over repeated samples, peers measured in the same
 * process, results printed as ratios to gatehouse's own implementation. Timing lives here and only
 * here; no test asserts on time.
 */
import { performance } from 'node:perf_hooks';

export interface Measurement {
  readonly name: string;
  /** Median nanoseconds per call, or a string saying why there is none (timeout, crash, wrong answer). */
  readonly nsPerOp: number | string;
}

/** Runs `fn` repeatedly and returns the median nanoseconds per call over `samples` batches. */
export function measure(fn: () => unknown, options: { samples?: number; minBatchMs?: number; timeoutMs?: number } = {}): number {
  const samples = options.samples ?? 15;
  const minBatchMs = options.minBatchMs ?? 20;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = performance.now();
  // calibrate a batch size that takes at least minBatchMs
  let batch = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    const dt = performance.now() - t0;
    if (dt >= minBatchMs || performance.now() - started > timeoutMs) break;
    batch *= 2;
  }
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    times.push(((performance.now() - t0) * 1e6) / batch);
    if (performance.now() - started > timeoutMs) break;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

/** Formats nanoseconds for humans. */
export function formatNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/**
 * Prints one table: each row's median time and its ratio to the row named `baseline`
 * (ratio > 1 means that row is slower than the baseline).
 */
export function printTable(title: string, baseline: string, rows: readonly Measurement[]): void {
  const base = rows.find((r) => r.name === baseline)?.nsPerOp;
  console.log(`\n## ${title}`);
  console.log(`| implementation | median per op | ratio to ${baseline} |`);
  console.log('| --- | --- | --- |');
  for (const row of rows) {
    if (typeof row.nsPerOp === 'string') {
      console.log(`| ${row.name} | ${row.nsPerOp} | — |`);
      continue;
    }
    const ratio = typeof base === 'number' ? (row.nsPerOp / base).toFixed(2) : '—';
    console.log(`| ${row.name} | ${formatNs(row.nsPerOp)} | ${ratio}× |`);
  }
}
