/**
 * HTTP throughput: `{ currentUser { username } }` with a `token` Authorization header against the gatehouse server,
 * and the same query against a bare graphql-http server with the same schema and no authentication, measured with
 * autocannon in one run (target: gatehouse ≥ 0.8× the bare server's requests per second).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION_S = 5;
const CONNECTIONS = 10;
const BODY = JSON.stringify({ query: '{ currentUser { username } }' });

interface Figures {
  readonly name: string;
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

function measureServer(name: string, url: string, headers: Record<string, string>, duration: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/.api/graphql`,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: BODY,
        connections: CONNECTIONS,
        duration,
      },
      (error, result) => {
        if (error !== null && error !== undefined) {
          reject(error);
          return;
        }
        resolve({ name, requestsPerSecond: result.requests.average, p99Ms: result.latency.p99, non2xx: result.non2xx });
      },
    );
  });
}

export async function run(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'http-servers.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const rl = createInterface({ input: child.stdout });
      rl.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench servers exited with ${String(code)}`)));
    });
    const { ours, bare, token } = JSON.parse(line) as { ours: string; bare: string; token: string };
    const auth = { authorization: `token ${token}` };
    // warm both up, then measure bare, gatehouse, bare, gatehouse and keep the better run of each
    await measureServer('warm-up', bare, {}, 1);
    await measureServer('warm-up', ours, auth, 1);
    const runs: Figures[] = [];
    for (let round = 0; round < 2; round++) {
      runs.push(await measureServer('bare graphql-http (no auth)', bare, {}, DURATION_S));
      runs.push(await measureServer('gatehouse (token auth)', ours, auth, DURATION_S));
    }
    const best = (name: string): Figures | undefined =>
      runs.filter((r) => r.name === name).sort((a, b) => b.requestsPerSecond - a.requestsPerSecond)[0];
    const baseline = best('bare graphql-http (no auth)');
    const gatehouse = best('gatehouse (token auth)');
    console.log(`\n## HTTP: { currentUser { username } } — autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per run, best of 2`);
    console.log('| server | req/s (mean) | p99 latency | non-2xx | throughput ratio to bare |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const row of [baseline, gatehouse]) {
      if (row === undefined) continue;
      const ratio = baseline === undefined ? '—' : (row.requestsPerSecond / baseline.requestsPerSecond).toFixed(2);
      console.log(`| ${row.name} | ${row.requestsPerSecond.toFixed(0)} | ${row.p99Ms} ms | ${row.non2xx} | ${ratio}× |`);
    }
    if (baseline !== undefined && gatehouse !== undefined) {
      const ratio = gatehouse.requestsPerSecond / baseline.requestsPerSecond;
      console.log(`gatehouse / bare throughput: ${ratio.toFixed(2)} (target ≥ 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);
    }
  } finally {
    child.stdin?.end();
    child.kill();
  }
}
