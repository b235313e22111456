/**
 * Every `Authorization` scheme (spec §5.1: `token`, `Bearer`, `token-sudo`) on every store (memory, embedded
 * PGlite, a PostgreSQL server: a throwaway cluster, or `GATEHOUSE_BENCH_DATABASE_URL`) against bare graphql-http
 * and Apollo Server 4 + graphql-armor, each server in its own process started with `NODE_ENV=production` as its
 * users run it (bench/scheme-server.ts), gatehouse with its access log on. The same load generator (autocannon,
 * `{ currentUser { username } }`) at each number of connections; rounds interleaved (the order rotates; within a
 * round a server's schemes take turns in slices of `BENCH_SLICE_S`, so that each scheme and its `token` run in
 * neighbouring seconds of a machine whose speed drifts); medians;
 * ratios to bare graphql-http and to Apollo, and each scheme's to its server's `token` (of the medians, and the
 * median of each round's own ratio); CPU per request of the server's process (from /proc; a PostgreSQL
 * server's own CPU is left out) and its resident memory after the runs.
 *
 * Bounded: `BENCH_ROUNDS` (default 2), `BENCH_DURATION_S` (default 2) per scheme and round (in slices of
 * `BENCH_SLICE_S` whole seconds, default 1), `BENCH_CONNECTIONS` (default `10,50`), and at most `BENCH_MAX_REQUESTS` (default
 * 100,000) requests per slice.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { SchemeServerAnswer, SchemeTarget } from './scheme-server.js';
import { startBenchDatabase } from './postgres-cluster.js';
import { NODE_FLAGS } from '../packages/server/src/run/engine-flags.js';

const here = dirname(fileURLToPath(import.meta.url));
const positive = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};
const ROUNDS = Math.floor(positive('BENCH_ROUNDS', 2));
const DURATION_S = positive('BENCH_DURATION_S', 2);
// autocannon runs whole seconds (a shorter duration runs one second), so a slice is a whole number of seconds
const SLICE_S = Math.max(1, Math.round(Math.min(DURATION_S, positive('BENCH_SLICE_S', 1))));
const SLICES = Math.max(1, Math.round(DURATION_S / SLICE_S));
const MAX_REQUESTS = Math.floor(positive('BENCH_MAX_REQUESTS', 100_000));
const CONNECTIONS = (process.env['BENCH_CONNECTIONS'] ?? '10,50')
  .split(',')
  .map(Number)
  .filter((n) => Number.isSafeInteger(n) && n > 0);
const BODY = JSON.stringify({ query: '{ currentUser { username } }' });
const KINDS = ['bare', 'apollo', 'memory', 'pglite', 'postgres'] as const;
const TICKS_PER_SECOND = 100;

interface Started {
  readonly kind: string;
  readonly pid: number | undefined;
  readonly answer: SchemeServerAnswer;
  readonly stop: () => Promise<void>;
}

/** One slice's counts, or a target's sums of them in one round (read by {@link rpsOf} and {@link cpuOf}). */
interface Counts {
  readonly requests: number;
  readonly seconds: number;
  readonly cpuUs: number;
  readonly p99s: readonly number[];
  readonly bad: number;
}

const NO_COUNTS: Counts = { requests: 0, seconds: 0, cpuUs: 0, p99s: [], bad: 0 };

const add = (a: Counts, b: Counts): Counts => ({
  requests: a.requests + b.requests,
  seconds: a.seconds + b.seconds,
  cpuUs: a.cpuUs + b.cpuUs,
  p99s: [...a.p99s, ...b.p99s],
  bad: a.bad + b.bad,
});

/** Requests per second over the slices' wall time. */
const rpsOf = (c: Counts): number => (c.seconds > 0 ? c.requests / c.seconds : Number.NaN);

/** The server's CPU microseconds per request. */
const cpuOf = (c: Counts): number => (c.requests > 0 ? c.cpuUs / c.requests : Number.NaN);

function cpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

function rssMB(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

async function start(kind: string, env: Readonly<Record<string, string>>): Promise<Started> {
  // gatehouse runs with the node flags its program gives itself (the bin's shebang); the peers with node's defaults
  const nodeFlags = kind === 'bare' || kind === 'apollo' ? [] : NODE_FLAGS;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...nodeFlags, '--conditions=gatehouse-source', '--import', 'tsx', join(here, 'scheme-server.ts'), kind], {
    env: { ...process.env, ...env, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // the access log goes to standard error: read and dropped, as a log shipper would take it
  child.stderr.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    child.stdin.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    child.kill();
  };
  const line = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => resolve(JSON.stringify({ skipped: `exited with ${String(code)}` })));
  });
  return { kind, pid: child.pid, answer: JSON.parse(line) as SchemeServerAnswer, stop };
}

function measure(target: SchemeTarget, connections: number, duration: number, pid: number | undefined): Promise<Counts> {
  const before = cpuMicros(pid);
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    autocannon(
      { url: target.url, method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: BODY, connections, duration, maxOverallRequests: MAX_REQUESTS },
      (error, result) => {
        if (error !== null && error !== undefined) {
          reject(error);
          return;
        }
        resolve({
          requests: result.requests.total,
          seconds: (performance.now() - startedAt) / 1000,
          cpuUs: cpuMicros(pid) - before,
          p99s: [result.latency.p99],
          bad: result.non2xx + result.errors,
        });
      },
    );
  });
}

async function answers(target: SchemeTarget): Promise<boolean> {
  try {
    const res = await fetch(target.url, { method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: BODY });
    return res.status === 200 && /"username":"bench"/u.test(await res.text());
  } catch {
    return false;
  }
}

/** `items` from index `by` (modulo its length) on, then the ones before. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** The median; of an even count, the mean of the two middle values (so that of two rounds neither is favoured). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const upper = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[sorted.length / 2 - 1] ?? Number.NaN) + upper) / 2;
}

/** Runs the bench and prints the table. */
export async function run(): Promise<void> {
  const t0 = Date.now();
  const database = await startBenchDatabase();
  const env: Record<string, string> = typeof database === 'string' ? {} : { GATEHOUSE_BENCH_DATABASE_URL: database.url };
  const started: Started[] = [];
  const skipped: string[] = [];
  try {
    for (const kind of KINDS) {
      if (kind === 'postgres' && typeof database === 'string') {
        skipped.push(`gatehouse, PostgreSQL server: ${database}`);
        continue;
      }
      const s = await start(kind, env);
      started.push(s);
      if ('skipped' in s.answer) skipped.push(`${kind}: ${s.answer.skipped}`);
    }
    const targets: { target: SchemeTarget; pid: number | undefined }[] = [];
    for (const s of started) {
      if (!('targets' in s.answer)) continue;
      for (const target of s.answer.targets) {
        if (await answers(target)) targets.push({ target, pid: s.pid });
        else skipped.push(`${target.server} (${target.scheme}): does not answer the bench query`);
      }
    }
    const key = (t: SchemeTarget, c: number): string => `${t.server}|${t.scheme}|${c}`;
    const runs = new Map<string, Counts[]>();
    for (const { target, pid } of targets) for (const c of CONNECTIONS) await measure(target, c, 1, pid);
    // A server's schemes take turns at each number of connections, a slice each, so that a scheme and its server's
    // `token` run in neighbouring seconds of a machine whose speed drifts (the paired ratio); the order of the
    // servers, and of each server's schemes from slice to slice, rotates, so that none is always first or last. A
    // slice's req/s counts its wall time from before autocannon opens its connections, the same for every target.
    const servers = [...new Set(targets.map((t) => t.target.server))].map((server) => targets.filter((t) => t.target.server === server));
    for (let round = 0; round < ROUNDS; round++) {
      for (const group of rotated(servers, round)) {
        for (const c of CONNECTIONS) {
          const sums = new Map<SchemeTarget, Counts>();
          for (let slice = 0; slice < SLICES; slice++) {
            for (const t of rotated(group, round + slice)) sums.set(t.target, add(sums.get(t.target) ?? NO_COUNTS, await measure(t.target, c, SLICE_S, t.pid)));
          }
          for (const [target, counts] of sums) runs.set(key(target, c), [...(runs.get(key(target, c)) ?? []), counts]);
        }
      }
    }
    const rps = (k: string): number => median((runs.get(k) ?? []).map(rpsOf));
    const cpu = (k: string): number => median((runs.get(k) ?? []).map(cpuOf));
    const bare = targets.find((t) => t.target.server.startsWith('bare'))?.target;
    const apollo = targets.find((t) => t.target.server.startsWith('Apollo'))?.target;
    console.log(
      `\n## Every scheme on every store, each server in its own process (NODE_ENV=production), gatehouse with its access log on: autocannon ${CONNECTIONS.join(' / ')} connections, ${SLICES * SLICE_S} s per scheme and round in ${SLICES} slices taking turns, median of ${ROUNDS} interleaved rounds`,
    );
    console.log('| server | scheme | connections | req/s | p99 (median of slices) | non-2xx+errors | ratio to bare | ratio to Apollo+armor | ratio to its token | to its token, paired | CPU per request | RSS after |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const { target, pid } of targets) {
      for (const c of CONNECTIONS) {
        const k = key(target, c);
        const ratio = (other: SchemeTarget | undefined): string => (other === undefined ? '–' : `${(rps(k) / rps(key(other, c))).toFixed(2)}×`);
        const own = targets.find((t) => t.target.server === target.server && t.target.scheme === 'token')?.target;
        const bad = (runs.get(k) ?? []).reduce((n, f) => n + f.bad, 0);
        // the median of each round's own ratio: a scheme and its token run minutes apart in different rounds but
        // in neighbouring seconds in one, so this one leaves out how the machine's speed drifted between rounds
        const ownRuns = own === undefined ? [] : (runs.get(key(own, c)) ?? []);
        const paired = (runs.get(k) ?? []).flatMap((f, round) => {
          const base = ownRuns[round];
          return base === undefined || rpsOf(base) === 0 ? [] : [rpsOf(f) / rpsOf(base)];
        });
        console.log(
          `| ${target.server} | ${target.scheme} | ${c} | ${rps(k).toFixed(0)} | ${median((runs.get(k) ?? []).flatMap((f) => f.p99s))} ms | ${bad} | ${ratio(bare)} | ${ratio(apollo)} | ${ratio(own)} | ${paired.length === 0 ? '–' : `${median(paired).toFixed(2)}×`} | ${cpu(k).toFixed(0)} µs | ${rssMB(pid).toFixed(0)} MB |`,
        );
      }
    }
    for (const s of skipped) console.log(`| ${s.replace(/\|/gu, '\\|')} | skipped | | | | | | | | | | |`);
    console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s; node ${process.version}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  } finally {
    for (const s of started.reverse()) await s.stop();
    if (typeof database !== 'string') await database.stop();
  }
}
