/**
 * HTTP throughput of `{ currentUser { username } }`, in one run: a bare graphql-http server (no authentication),
 * Apollo Server standalone with graphql-armor, and gatehouse answering a `token` request on its memory store, on
 * embedded PGlite and on a PostgreSQL server (those two when the PostgreSQL store is in the tree). Each server is
 * checked to answer the query before it is measured; then every server is measured once per round, in an order
 * that rotates, with autocannon at a fixed concurrency, bounded in time and in requests; the median over rounds
 * is reported, as a ratio to bare graphql-http. Beside throughput, the CPU time the servers' process spends per
 * request (from /proc) is reported: on a machine shared with other work it moves far less than requests per
 * second do. It leaves out the CPU of a PostgreSQL server, which runs in its own processes. Targets: gatehouse on memory ≥ 0.8× bare graphql-http, gatehouse
 * on PostgreSQL ≥ 1× Apollo Server.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { BenchServer, BenchServers } from './http-servers.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 5;
const DURATION_S = 2;
const WARM_UP_S = 1;
const CONNECTIONS = 10;
/** Each run stops at this many requests even if its time is not up. */
const MAX_REQUESTS = 150_000;
const QUERY = '{ currentUser { username } }';
const BODY = JSON.stringify({ query: QUERY });
const BARE = 'bare graphql-http (no auth)';

interface Figures {
  readonly requestsPerSecond: number;
  /** CPU time the servers' process spent per answered request, in microseconds (`NaN` where /proc is absent). */
  readonly cpuUsPerRequest: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Linux clock ticks per second (`getconf CLK_TCK`), as /proc/<pid>/stat counts CPU time. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU time of a process in microseconds, from /proc (`NaN` elsewhere). */
function cpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // the fields after the command name (in parentheses, which may hold spaces): utime and stime are 14 and 15
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

function measure(server: BenchServer, duration: number, pid: number | undefined): Promise<Figures> {
  const cpuBefore = cpuMicros(pid);
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: server.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...server.headers },
        body: BODY,
        connections: CONNECTIONS,
        duration,
        maxOverallRequests: MAX_REQUESTS,
      },
      (error, result) => {
        if (error !== null && error !== undefined) {
          reject(error);
          return;
        }
        const answered = result.requests.total;
        const cpuUsPerRequest = answered > 0 ? (cpuMicros(pid) - cpuBefore) / answered : Number.NaN;
        resolve({ requestsPerSecond: result.requests.average, cpuUsPerRequest, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors });
      },
    );
  });
}

/** Why the server does not answer the bench query as expected, or `null` when it does. */
async function check(server: BenchServer): Promise<string | null> {
  try {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...server.headers }, body: BODY });
    const text = await res.text();
    return res.status === 200 && /^\{"data":\{"currentUser":\{"username":"bench\w*"\}\}\}$/.test(text.trim()) ? null : `answered ${res.status} ${text.slice(0, 80)}`;
  } catch (error) {
    return `did not answer: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function startServers(): Promise<{ readonly started: BenchServers; readonly pid: number | undefined; readonly stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', join(here, 'http-servers.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    // closing its stdin lets the child stop its servers and the throwaway cluster; then it is killed if still there
    child.stdin.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    child.kill();
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench servers exited with ${String(code)}`)));
    });
    return { started: JSON.parse(line) as BenchServers, pid: child.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs the bench and prints the table. */
export async function run(): Promise<void> {
  const t0 = Date.now();
  const { started, pid, stop } = await startServers();
  try {
    const skipped = [...started.skipped];
    const servers: BenchServer[] = [];
    for (const server of started.servers) {
      const problem = await check(server);
      if (problem === null) servers.push(server);
      else skipped.push({ name: server.name, reason: problem });
    }
    for (const server of servers) await measure(server, WARM_UP_S, pid);
    const runs = new Map<string, Figures[]>(servers.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // rotate the order so that no server is always measured first or last on a machine whose load varies
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length];
        if (server !== undefined) runs.get(server.name)?.push(await measure(server, DURATION_S, pid));
      }
    }
    const rps = (name: string): number => median((runs.get(name) ?? []).map((f) => f.requestsPerSecond));
    const base = rps(BARE);
    const cpu = (name: string): number => median((runs.get(name) ?? []).map((f) => f.cpuUsPerRequest));
    const baseCpu = cpu(BARE);
    console.log(
      `\n## HTTP: ${QUERY}: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s (at most ${MAX_REQUESTS.toLocaleString('en')} requests) per run, median of ${ROUNDS} rounds`,
    );
    console.log(
      '| server | req/s (median) | req/s (min–max) | p99 latency (median) | non-2xx / errors | throughput ratio to bare graphql-http | server CPU per request (median) | CPU ratio to bare graphql-http |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const server of servers) {
      const figures = runs.get(server.name) ?? [];
      const all = figures.map((f) => f.requestsPerSecond);
      const bad = figures.reduce((n, f) => n + f.non2xx, 0);
      const errors = figures.reduce((n, f) => n + f.errors, 0);
      console.log(
        `| ${server.name} | ${rps(server.name).toFixed(0)} | ${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)} | ${median(figures.map((f) => f.p99Ms))} ms | ${bad} / ${errors} | ${(rps(server.name) / base).toFixed(2)}× | ${cpu(server.name).toFixed(0)} µs | ${(cpu(server.name) / baseCpu).toFixed(2)}× |`,
      );
    }
    for (const s of skipped) console.log(`| ${s.name} | skipped: ${s.reason.replace(/\|/g, '\\|')} | | | | | | |`);
    const ratio = (a: string, b: string, target: number | null, label: string): void => {
      const r = rps(a) / rps(b);
      const c = cpu(b) / cpu(a);
      if (!Number.isFinite(r)) return;
      const verdict = (x: number): string => (target === null ? 'for comparison, no target' : x >= target ? 'met' : 'NOT met');
      console.log(
        `${label}: throughput ${r.toFixed(2)}× (${target === null ? '' : `target ≥ ${target.toFixed(2)}: `}${verdict(r)}); ` +
          `by server CPU per request ${c.toFixed(2)}× (${verdict(c)})`,
      );
    };
    const apolloName = servers.find((s) => s.name.startsWith('Apollo'))?.name ?? '';
    ratio('gatehouse, memory store (token)', BARE, 0.8, 'gatehouse on memory / bare graphql-http');
    ratio(apolloName, BARE, 0, 'Apollo Server / bare graphql-http');
    for (const name of servers.map((s) => s.name).filter((n) => n.includes('PGlite') || n.includes('PostgreSQL'))) {
      // the target is the server as it runs (token cache on); the uncached row shows what the cache saves
      ratio(name, apolloName, name.includes('no token cache') ? null : 1, `${name} / Apollo Server`);
    }
    console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s; node ${process.version}; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  } finally {
    await stop();
  }
}
