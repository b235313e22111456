/**
 * HTTP throughput of `{ currentUser { username } }`, in one run: a bare graphql-http server (no authentication),
 * Apollo Server standalone with graphql-armor, and gatehouse answering a `token` request on its memory store, on
 * embedded PGlite and on a PostgreSQL server (those two when the PostgreSQL store is in the tree). Each server is
 * checked to answer the query before it is measured; then every server is measured once per round, in an order
 * that rotates, with autocannon at a fixed concurrency, bounded in time and in requests; the median over rounds
 * is reported, as a ratio to bare graphql-http. Targets: gatehouse on memory ≥ 0.8× bare graphql-http, gatehouse
 * on PostgreSQL ≥ 1× Apollo Server.
 */
import { spawn } from 'node:child_process';
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
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

function measure(server: BenchServer, duration: number): Promise<Figures> {
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
        resolve({ requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors });
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

async function startServers(): Promise<{ readonly started: BenchServers; readonly stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'http-servers.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
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
    return { started: JSON.parse(line) as BenchServers, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs the bench and prints the table. */
export async function run(): Promise<void> {
  const t0 = Date.now();
  const { started, stop } = await startServers();
  try {
    const skipped = [...started.skipped];
    const servers: BenchServer[] = [];
    for (const server of started.servers) {
      const problem = await check(server);
      if (problem === null) servers.push(server);
      else skipped.push({ name: server.name, reason: problem });
    }
    for (const server of servers) await measure(server, WARM_UP_S);
    const runs = new Map<string, Figures[]>(servers.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // rotate the order so that no server is always measured first or last on a machine whose load varies
      for (let i = 0; i < servers.length; i++) {
        const server = servers[(i + round) % servers.length];
        if (server !== undefined) runs.get(server.name)?.push(await measure(server, DURATION_S));
      }
    }
    const rps = (name: string): number => median((runs.get(name) ?? []).map((f) => f.requestsPerSecond));
    const base = rps(BARE);
    console.log(
      `\n## HTTP: ${QUERY}: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s (at most ${MAX_REQUESTS.toLocaleString('en')} requests) per run, median of ${ROUNDS} rounds`,
    );
    console.log('| server | req/s (median) | req/s (min–max) | p99 latency (median) | non-2xx / errors | throughput ratio to bare graphql-http |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const server of servers) {
      const figures = runs.get(server.name) ?? [];
      const all = figures.map((f) => f.requestsPerSecond);
      const bad = figures.reduce((n, f) => n + f.non2xx, 0);
      const errors = figures.reduce((n, f) => n + f.errors, 0);
      console.log(
        `| ${server.name} | ${rps(server.name).toFixed(0)} | ${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)} | ${median(figures.map((f) => f.p99Ms))} ms | ${bad} / ${errors} | ${(rps(server.name) / base).toFixed(2)}× |`,
      );
    }
    for (const s of skipped) console.log(`| ${s.name} | skipped: ${s.reason.replace(/\|/g, '\\|')} | | | | |`);
    const ratio = (a: string, b: string, target: number, label: string): void => {
      const r = rps(a) / rps(b);
      if (Number.isFinite(r)) console.log(`${label}: ${r.toFixed(2)}× (target ≥ ${target.toFixed(2)}: ${r >= target ? 'met' : 'NOT met'})`);
    };
    const apolloName = servers.find((s) => s.name.startsWith('Apollo'))?.name ?? '';
    ratio('gatehouse, memory store (token)', BARE, 0.8, 'gatehouse on memory / bare graphql-http');
    ratio(apolloName, BARE, 0, 'Apollo Server / bare graphql-http');
    for (const name of servers.map((s) => s.name).filter((n) => n.includes('PGlite') || n.includes('PostgreSQL'))) {
      ratio(name, apolloName, 1, `${name} / Apollo Server`);
    }
    console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s; node ${process.version}; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  } finally {
    await stop();
  }
}
