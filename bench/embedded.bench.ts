/**
 * Start time and resident memory of `gatehouse serve`, as built (packages/server/dist/bin.js; built first when
 * absent), on each store: the embedded PGlite database on an empty data directory (a first start) and again on the
 * same directory (a restart), and the PostgreSQL server store on a throwaway cluster (bench/postgres-cluster.ts).
 *
 * A start is timed from the spawn to the first 200 from `GET /readyz` (the probe that needs a round trip to the
 * store). Until the port accepts a connection the bench only tries to connect, every 10 ms; an HTTP request every
 * 10 ms from the start (each a refused connection through fetch) cost this process about as much CPU as the program
 * it timed, and on a 2-core machine took it from the program's start (a restart measured about 0.15 s slower).
 * `BENCH_EMBEDDED_FIRST_STARTS` (default 3) first starts, each on an empty store, then
 * `BENCH_EMBEDDED_RESTARTS` (default 5) restarts on the last one, printed as medians with their ranges. The program
 * runs as its users run it: the build's `bin.js` executed itself (its shebang's `node` flags apply). Once started,
 * the last restart rests 2 s (its idle RSS is read then), then takes a mixed load for
 * `BENCH_EMBEDDED_LOAD_S` seconds (default 60): token requests (`Authorization: token …`,
 * `{ currentUser { username } }`), password sign-ins of a few accounts signed up first, and access token creations
 * (each deleted again, so the account's quota is never reached). The process's `VmRSS` is sampled every 250 ms and
 * its `VmHWM` (the kernel's peak) read at the end. Every loop is bounded in requests and in time.
 *
 * `BENCH_EMBEDDED_SOURCE=1` runs the sources under tsx instead of the build (labelled `source` in the table).
 * `BENCH_EMBEDDED_BASELINE=path/to/bin.js` measures another build of the same program too (a copy of an earlier
 * `dist/`, kept where its packages resolve, such as `node_modules/.cache/`), store by store in turn with this one, so
 * that a before and an after are compared under the same load.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NODE_FLAGS } from '../packages/server/src/run/engine-flags.js';
import { freePort, startBenchDatabase } from './postgres-cluster.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const BIN = join(root, 'packages', 'server', 'dist', 'bin.js');
const BASELINE = process.env['BENCH_EMBEDDED_BASELINE'] ?? '';
const execFileAsync = promisify(execFile);

const LOAD_S = Math.max(1, Number(process.env['BENCH_EMBEDDED_LOAD_S'] ?? '60') || 60);
/** The load stops at this many requests even if its time is not up. */
const MAX_REQUESTS = 200_000;
/** Concurrent clients sending token requests and token creations. */
const TOKEN_CLIENTS = 6;
/** Concurrent clients signing in (below the hashing limiter's per-client share of 8). */
const SIGN_IN_CLIENTS = 2;
const ACCOUNTS = 4;
const PASSWORD = 'bench-password-0123456789';
const SAMPLE_MS = 250;
const START_TIMEOUT_MS = 60_000;
const IDLE_MS = 2_000;
/** First starts (each on an empty store) and restarts timed per store; the table gives their medians and ranges. */
const FIRST_STARTS = Math.max(1, Math.floor(Number(process.env['BENCH_EMBEDDED_FIRST_STARTS'] ?? '3') || 3));
const RESTARTS = Math.max(1, Math.floor(Number(process.env['BENCH_EMBEDDED_RESTARTS'] ?? '5') || 5));

const CONFIG = JSON.stringify({
  'auth.providers': [{ type: 'builtin', allowSignup: true }],
  // a load of right passwords never locks, but a sign-in refused for a busy hasher must not lock either
  'auth.lockout': { failedAttemptThreshold: 1000 },
  rateLimits: { graphQLMaxDepth: 30, graphQLMaxFieldCount: 500000, graphQLMaxAliases: 500 },
});

/** One `gatehouse serve` process and how long it took to be ready. */
interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly startMs: number;
  readonly adminToken: string | null;
  readonly output: () => string;
}

/** One row of the table. */
interface Row {
  readonly store: string;
  readonly firstStartS: number | string;
  readonly firstStartPeakMb: number;
  readonly restartS: number | string;
  readonly idleRssMb: number;
  readonly peakSampledMb: number;
  readonly peakHwmMb: number;
  readonly wasmMb: number;
  readonly requests: string;
}

/** A field of /proc/PID/status in MB (`NaN` when the process is gone or /proc is absent). */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'mu').exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The resident MB of the process's largest anonymous mapping of at least 128 MB: PGlite's WebAssembly memory, which
 * starts at 128 MB of address space and is touched as PostgreSQL uses it (`NaN` when there is none).
 */
function wasmMemoryMb(pid: number | undefined): number {
  try {
    let best = Number.NaN;
    let size = 0;
    let anonymous = false;
    for (const line of readFileSync(`/proc/${String(pid)}/smaps`, 'utf8').split('\n')) {
      const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/u.exec(line);
      if (range !== null) {
        size = (Number.parseInt(range[2] ?? '0', 16) - Number.parseInt(range[1] ?? '0', 16)) / 1048576;
        anonymous = (range[3] ?? '') === '';
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/u.exec(line)?.[1];
      if (rss !== undefined && anonymous && size >= 128 && !(Number(rss) / 1024 <= best)) best = Number(rss) / 1024;
    }
    return best;
  } catch {
    return Number.NaN;
  }
}

/** Prints the process's mappings with the most resident memory (`BENCH_EMBEDDED_SMAPS=1`), to see what holds it. */
function printLargestMappings(label: string, pid: number | undefined): void {
  const maps: { size: number; rss: number; name: string }[] = [];
  for (const line of readFileSync(`/proc/${String(pid)}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/u.exec(line);
    if (range !== null) maps.push({ size: (Number.parseInt(range[2] ?? '0', 16) - Number.parseInt(range[1] ?? '0', 16)) / 1048576, rss: 0, name: `${range[3] ?? ''} ${range[4] ?? ''}` });
    const rss = /^Rss:\s+(\d+) kB/u.exec(line)?.[1];
    const last = maps[maps.length - 1];
    if (rss !== undefined && last !== undefined) last.rss = Number(rss) / 1024;
  }
  maps.sort((a, b) => b.rss - a.rss);
  console.log(`${label}, largest resident mappings after the load: ${maps.slice(0, 10).map((m) => `${m.rss.toFixed(0)}/${m.size.toFixed(0)} MB ${m.name.trim()}`).join('; ')}`);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the sources are measured rather than the build; builds when the build is absent. */
async function ensureBuild(): Promise<'dist' | 'source'> {
  if (process.env['BENCH_EMBEDDED_SOURCE'] === '1') return 'source';
  if (existsSync(BIN) && existsSync(join(root, 'dist', 'index.js'))) return 'dist';
  console.log('building (root tsup, then packages/server tsup)…');
  try {
    await execFileAsync('npx', ['tsup'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    await execFileAsync('npx', ['tsup'], { cwd: join(root, 'packages', 'server'), maxBuffer: 64 * 1024 * 1024 });
    return existsSync(BIN) ? 'dist' : 'source';
  } catch (error) {
    console.log(`build failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): measuring the sources`);
    return 'source';
  }
}

/**
 * How to run the program, as its users do: a build's `bin.js` executed itself (its shebang gives `node` its flags),
 * or the sources under tsx with the flags `npm start` gives.
 */
type Program = readonly [string, ...string[]];
const sourceProgram: Program = [
  process.execPath,
  ...NODE_FLAGS,
  '--conditions=gatehouse-source',
  '--import',
  'tsx',
  join(root, 'packages', 'server', 'src', 'run', 'main.ts'),
];

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Spawns `gatehouse serve` and waits for its first 200 from /readyz. */
async function startServe(entry: Program, configFile: string, store: readonly string[], expectToken: boolean): Promise<Started> {
  const port = await freePort();
  const t0 = performance.now();
  const [command, ...args] = entry;
  const child = spawn(command, [...args, '--config', configFile, '--port', String(port), '--host', '127.0.0.1', ...store], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed = (printed + chunk.toString()).slice(-20_000)));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  const overdue = (): boolean => performance.now() - t0 > START_TIMEOUT_MS;
  // a connection attempt, refused until the program listens, costs this process next to nothing
  while (!exited && !overdue() && !(await accepts(port))) await sleep(10);
  for (;;) {
    if (exited) throw new Error(`gatehouse serve exited before it was ready:\n${printed}`);
    if (overdue()) {
      child.kill('SIGKILL');
      throw new Error(`gatehouse serve not ready within ${START_TIMEOUT_MS} ms:\n${printed}`);
    }
    const ok = await fetch(`${url}/readyz`).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status === 200;
      },
      () => false,
    );
    if (ok) break;
    await sleep(10);
  }
  const startMs = performance.now() - t0;
  // the lines after the listen: a first start ends them with the administrator token, a restart with `Data: `
  const done = expectToken ? /Administrator access token: \S+\n/u : /Data: .*\n/u;
  for (let i = 0; i < 750 && !done.test(printed) && !exited; i++) await sleep(20);
  return { child, url, startMs, adminToken: /Administrator access token: (\S+)/u.exec(printed)?.[1] ?? null, output: () => printed };
}

async function stopServe(started: Started): Promise<void> {
  const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
  if (started.child.exitCode === null) started.child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000)]);
  if (started.child.exitCode === null) started.child.kill('SIGKILL');
}

async function graphql(url: string, token: string, query: string, variables: Record<string, unknown> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `token ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** POSTs a JSON form; returns the status, with the answer's `code` when it is not a success. */
async function postJson(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status < 400) return String(res.status);
  const code = /"code":"([a-z_]+)"/u.exec(text)?.[1];
  return code === undefined ? String(res.status) : `${String(res.status)} ${code}`;
}

/** Counts of answers by kind and status. */
type Tally = Map<string, number>;
const count = (tally: Tally, key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);

/** The mixed load, bounded by `LOAD_S` and `MAX_REQUESTS`; returns the tally and the largest VmRSS sampled. */
async function load(started: Started, token: string, tag: string): Promise<{ tally: Tally; peakSampledMb: number }> {
  const { url } = started;
  const pid = started.child.pid;
  const tally: Tally = new Map();
  const usernames = Array.from({ length: ACCOUNTS }, (_, i) => `bench_${tag}_${String(i)}`);
  for (const username of usernames) count(tally, `sign-up ${await postJson(`${url}/.auth/sign-up`, { username, email: `${username}@example.com`, password: PASSWORD })}`);
  const deadline = performance.now() + LOAD_S * 1000;
  let sent = 0;
  const more = (): boolean => performance.now() < deadline && sent < MAX_REQUESTS && started.child.exitCode === null;
  let peakSampledMb = statusMb(pid, 'VmRSS');
  const sampler = setInterval(() => {
    const rss = statusMb(pid, 'VmRSS');
    if (rss > peakSampledMb) peakSampledMb = rss;
  }, SAMPLE_MS);
  const tokenClient = async (n: number): Promise<void> => {
    for (let i = 0; more(); i++) {
      sent++;
      if (i % 8 === 7) {
        // a token creation, then its deletion (the account keeps under its token quota)
        const created = await graphql(url, token, 'mutation($note: String!) { createAccessToken(note: $note, scopes: ["user:all"]) { id token } }', { note: `bench ${String(n)}` });
        const id = (created.body as { data?: { createAccessToken?: { id?: string } } } | null)?.data?.createAccessToken?.id;
        count(tally, `create ${String(created.status)}${id === undefined ? ' (no token)' : ''}`);
        if (id !== undefined) {
          sent++;
          const deleted = await graphql(url, token, 'mutation($id: ID!) { deleteAccessToken(id: $id) }', { id });
          count(tally, `delete ${String(deleted.status)}`);
        }
      } else {
        const answer = await graphql(url, token, '{ currentUser { username } }');
        count(tally, `token ${String(answer.status)}`);
      }
    }
  };
  const signInClient = async (n: number): Promise<void> => {
    for (let i = 0; more(); i++) {
      sent++;
      count(tally, `sign-in ${String(await postJson(`${url}/.auth/sign-in`, { username: usernames[(n + i) % usernames.length], password: PASSWORD }))}`);
    }
  };
  try {
    await Promise.all([
      ...Array.from({ length: TOKEN_CLIENTS }, (_, n) => tokenClient(n).catch(() => count(tally, 'client failed'))),
      ...Array.from({ length: SIGN_IN_CLIENTS }, (_, n) => signInClient(n).catch(() => count(tally, 'client failed'))),
    ]);
  } finally {
    clearInterval(sampler);
  }
  return { tally, peakSampledMb: Math.max(peakSampledMb, statusMb(pid, 'VmRSS')) };
}

/** The median of some numbers, with their range: `0.74 s (0.70–0.81)`. */
function medianWithRange(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return sorted.length < 2 ? seconds(median) : `${seconds(median)} (${seconds(sorted[0] ?? Number.NaN)}–${seconds(sorted.at(-1) ?? Number.NaN)})`;
}

/**
 * Starts on `FIRST_STARTS` empty stores (first starts), then `RESTARTS` times on the last of them (restarts), and
 * measures idle RSS and the load on the last restart. Start times are medians, as one start on a shared machine
 * varies by a third.
 */
async function measureStore(entry: Program, label: string, configFile: string, emptyStore: () => Promise<readonly string[]>): Promise<Row> {
  const firstStarts: number[] = [];
  let firstStartPeakMb = 0;
  let token: string | null = null;
  let store: readonly string[] = [];
  for (let k = 0; k < FIRST_STARTS; k++) {
    store = await emptyStore();
    const first = await startServe(entry, configFile, store, true);
    firstStarts.push(first.startMs / 1000);
    firstStartPeakMb = Math.max(firstStartPeakMb, statusMb(first.child.pid, 'VmHWM'));
    token = first.adminToken;
    await stopServe(first);
    if (token === null) throw new Error(`${label}: the first start printed no administrator token:\n${first.output()}`);
  }
  const restarts: number[] = [];
  for (let k = 1; k < RESTARTS; k++) {
    const again = await startServe(entry, configFile, store, false);
    restarts.push(again.startMs / 1000);
    await stopServe(again);
  }
  const again = await startServe(entry, configFile, store, false);
  restarts.push(again.startMs / 1000);
  try {
    await sleep(IDLE_MS);
    const idleRssMb = statusMb(again.child.pid, 'VmRSS');
    const { tally, peakSampledMb } = await load(again, token ?? '', label.startsWith('PGlite') ? 'pglite' : 'pg');
    const peakHwmMb = statusMb(again.child.pid, 'VmHWM');
    const wasmMb = wasmMemoryMb(again.child.pid);
    if (process.env['BENCH_EMBEDDED_SMAPS'] === '1') printLargestMappings(label, again.child.pid);
    const requests = [...tally].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}: ${String(v)}`).join(', ');
    return { store: label, firstStartS: medianWithRange(firstStarts), firstStartPeakMb, restartS: medianWithRange(restarts), idleRssMb, peakSampledMb, peakHwmMb, wasmMb, requests };
  } finally {
    await stopServe(again);
  }
}

const seconds = (v: number | string): string => (typeof v === 'number' ? v.toFixed(2) : v);
const mb = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(0)} MB` : '—');

/** A new empty database in the throwaway cluster, for one program's first start. */
async function createDatabase(url: string, name: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.href;
}

/** Runs the bench and prints the table. */
export async function run(): Promise<void> {
  const how = await ensureBuild();
  const programs: { readonly name: string; readonly entry: Program }[] = [{ name: how, entry: how === 'dist' ? [BIN, 'serve'] : sourceProgram }];
  if (BASELINE !== '') programs.unshift({ name: 'baseline', entry: [BASELINE, 'serve'] });
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-embedded-'));
  const configFile = join(dir, 'site-config.json');
  await writeFile(configFile, CONFIG);
  const rows: Row[] = [];
  const loadBefore = loadavg()[0] ?? Number.NaN;
  try {
    for (const [i, program] of programs.entries()) {
      try {
        let n = 0;
        const emptyDirectory = async (): Promise<readonly string[]> => ['--data-dir', join(dir, `data-${String(i)}-${String(n++)}`)];
        rows.push(await measureStore(program.entry, `PGlite (${program.name})`, configFile, emptyDirectory));
      } catch (error) {
        console.log(`PGlite (${program.name}): ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const database = await startBenchDatabase();
    if (typeof database === 'string') {
      console.log(`PostgreSQL server: skipped (${database})`);
    } else {
      try {
        for (const [i, program] of programs.entries()) {
          try {
            let n = 0;
            const emptyDatabase = async (): Promise<readonly string[]> => ['--database-url', await createDatabase(database.url, `bench_embedded_${String(i)}_${String(n++)}`)];
            rows.push(await measureStore(program.entry, `PostgreSQL server (${program.name})`, configFile, emptyDatabase));
          } catch (error) {
            console.log(`PostgreSQL server (${program.name}): ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      } finally {
        await database.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\n## gatehouse serve: start time and resident memory (load ${LOAD_S} s; 1-min load average ${loadBefore.toFixed(2)} before, ${(loadavg()[0] ?? Number.NaN).toFixed(2)} after)`);
  console.log('| store | first start | its peak RSS | restart | idle RSS | peak RSS under load (sampled) | peak RSS (VmHWM) | WASM memory resident after the load |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(`| ${r.store} | ${seconds(r.firstStartS)} s | ${mb(r.firstStartPeakMb)} | ${seconds(r.restartS)} s | ${mb(r.idleRssMb)} | ${mb(r.peakSampledMb)} | ${mb(r.peakHwmMb)} | ${mb(r.wasmMb)} |`);
  }
  for (const r of rows) console.log(`- ${r.store}: ${r.requests}`);
}
