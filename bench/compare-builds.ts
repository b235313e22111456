/**
 * CPU per request of two or more builds of gatehouse, measured side by side: each tree's bench/profile-server.ts (the
 * memory store, the default access log to standard error, a `token` request of `{ currentUser { username } }`) runs
 * in its own process with `NODE_ENV=production`, and in every round all of them are under the same autocannon load
 * AT THE SAME TIME, so that whatever else the machine runs weighs on each alike. Prints each build's median CPU per
 * request (user + system time of its process over the requests answered) and, per round, its ratio to the first
 * build: on a loaded machine compare those ratios, never figures of different runs.
 *
 * A build is a directory holding the repository's tree (`git archive <commit> | tar -x -C dir`, with a
 * `node_modules` link to this checkout's).
 *
 * ```sh
 * node --conditions=gatehouse-source --import tsx bench/compare-builds.ts /tmp/before /work/wt
 * ```
 *
 * Bounded: `BENCH_ROUNDS` (default 10) rounds of `BENCH_DURATION_S` (default 3) seconds at `BENCH_CONNECTIONS`
 * (default 10) connections per build.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const positive = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};
const ROUNDS = Math.floor(positive('BENCH_ROUNDS', 10));
const DURATION_S = positive('BENCH_DURATION_S', 3);
const CONNECTIONS = Math.floor(positive('BENCH_CONNECTIONS', 10));
const TICKS_PER_SECOND = 100;

interface Build {
  readonly tree: string;
  readonly pid: number | undefined;
  readonly url: string;
  readonly token: string;
  readonly stop: () => void;
  readonly cpu: number[];
  readonly rps: number[];
}

function cpuMicros(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

async function start(tree: string): Promise<Build> {
  const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', join(tree, 'bench', 'profile-server.ts')], {
    cwd: tree,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // the access log: read and dropped, as a log shipper would take it
  child.stderr.resume();
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${tree}: exited with ${String(code)}`)));
  });
  const answer = JSON.parse(line) as { readonly url: string; readonly token: string };
  return { tree, pid: child.pid, url: answer.url, token: answer.token, stop: () => child.kill('SIGINT'), cpu: [], rps: [] };
}

function load(build: Build, duration: number): Promise<{ readonly requests: number; readonly rps: number }> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${build.url}/.api/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `token ${build.token}` },
        body: JSON.stringify({ query: '{ currentUser { username } }' }),
        connections: CONNECTIONS,
        duration,
      },
      (error, result) => {
        if (error !== null && error !== undefined) reject(error);
        else if (result.non2xx + result.errors > 0) reject(new Error(`${build.tree}: ${result.non2xx} non-2xx answers, ${result.errors} errors`));
        else resolve({ requests: result.requests.total, rps: result.requests.average });
      },
    );
  });
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const trees = process.argv.slice(2);
if (trees.length < 2) throw new Error('name two or more trees');
const builds: Build[] = [];
try {
  for (const tree of trees) builds.push(await start(tree));
  await Promise.all(builds.map((b) => load(b, 2)));
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      builds.map(async (b) => {
        const before = cpuMicros(b.pid);
        const { requests, rps } = await load(b, DURATION_S);
        b.cpu.push((cpuMicros(b.pid) - before) / requests);
        b.rps.push(rps);
      }),
    );
  }
  const first = builds[0];
  console.log(`\n## CPU per request, builds under load together: ${CONNECTIONS} connections each, ${ROUNDS} rounds of ${DURATION_S} s`);
  console.log('| build | CPU per request (median) | req/s (median) | ratio to the first, per round | median ratio |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const b of builds) {
    const ratios = b.cpu.map((c, i) => c / (first?.cpu[i] ?? Number.NaN));
    console.log(`| ${b.tree} | ${median(b.cpu).toFixed(0)} µs | ${median(b.rps).toFixed(0)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${median(ratios).toFixed(3)} |`);
  }
  console.log(`(node ${process.version}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
} finally {
  for (const b of builds) b.stop();
}
