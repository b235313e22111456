/**
 * The server on a PostgreSQL server that goes away and comes back: `GET /readyz` tells the truth, requests during the
 * outage are refused fast with `503` and `Retry-After`, and two server processes serve again soon after the database
 * is back, losing nothing they answered `2xx` (needs Debian's PostgreSQL binaries: the file starts a throwaway cluster).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, signUp, startGatehouseProcess } from '../helpers/processes.js';
import type { GatehouseProcess } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const server = postgresServerAvailability();
if (!server.run) console.warn(`database-faults.test.ts: skipped: ${server.reason}`);

/** How long any one request may take before the test calls it a hang. */
const HANG_MS = 15_000;
/** The contract: within this long of the database being back, the server serves again. */
const RECOVERY_BOUND_MS = 5_000;

const CURRENT_USER = '{ currentUser { username } }';
const CREATE_TOKEN = 'mutation($note: String!) { createAccessToken(note: $note, scopes: ["user:all"]) { token } }';

/** One answer as the load records it. */
interface Answer {
  readonly kind: 'current_user' | 'create_token' | 'readyz';
  readonly status: number | 'hang' | 'network_error';
  readonly retryAfter: string | null;
  readonly body: unknown;
  /** When it arrived (`Date.now()`). */
  readonly at: number;
  /** Whose token asked (the username a `currentUser` answer must name). */
  readonly who?: string;
}

/** A GraphQL request with a bound on how long it may take. */
async function ask(url: string, authorization: string, kind: 'current_user' | 'create_token', note = ''): Promise<Answer> {
  const query = kind === 'current_user' ? CURRENT_USER : CREATE_TOKEN;
  try {
    const res = await fetch(`${url}/.api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query, variables: kind === 'create_token' ? { note } : {} }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text: the checks below report it
    }
    return { kind, status: res.status, retryAfter: res.headers.get('retry-after'), body, at: Date.now() };
  } catch (error) {
    const hang = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { kind, status: hang ? 'hang' : 'network_error', retryAfter: null, body: String(error), at: Date.now() };
  }
}

async function readyz(url: string): Promise<Answer> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(HANG_MS) });
  return { kind: 'readyz', status: res.status, retryAfter: null, body: await res.text(), at: Date.now() };
}

const tokenOf = (answer: Answer): string | null =>
  (answer.body as { data?: { createAccessToken?: { token?: string } | null } | null } | null)?.data?.createAccessToken?.token ?? null;
const usernameOf = (answer: Answer): string | null =>
  (answer.body as { data?: { currentUser?: { username?: string } | null } | null } | null)?.data?.currentUser?.username ?? null;
const errorCodeOf = (answer: Answer): unknown =>
  (answer.body as { errors?: readonly { extensions?: { code?: unknown } }[] } | null)?.errors?.[0]?.extensions?.code;

/** Polls `probe` every 50 ms until it holds, at most `bound` ms; resolves when it held, or `null`. */
async function firstTime(probe: () => Promise<boolean>, bound: number): Promise<number | null> {
  const deadline = Date.now() + bound;
  while (Date.now() < deadline) {
    if (await probe()) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

describe.skipIf(!server.run)('database faults on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let configDir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;
  let admin = '';

  beforeAll(async () => {
    // synchronous_commit on: what the server acknowledged survives the kill of the postmaster
    cluster = await startPostgresCluster({ durable: true });
    configDir = mkdtempSync(join(tmpdir(), 'gatehouse-faults-'));
    const config = join(configDir, 'site.jsonc');
    const [portA, portB] = [await freePort(), await freePort()];
    writeFileSync(config, JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }] }));
    const args = (port: number) => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(portA) }), startGatehouseProcess({ args: args(portB) })]);
    admin = `token ${a.adminToken ?? b.adminToken ?? ''}`;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('should answer /readyz 503 while the database is stopped and 200 again once it is started, with no restart of the server', async () => {
    expect(await readyz(a.url)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    // a token never used yet: no cache of the server can answer for it
    const unused = tokenOf(await ask(a.url, admin, 'create_token', 'unused until the outage'));
    expect(unused).not.toBeNull();

    await cluster.stopServer();
    try {
      for (const url of [a.url, b.url]) {
        const unready = await firstTime(async () => (await readyz(url)).status === 503, 10_000);
        expect(unready).not.toBeNull();
        expect(await readyz(url)).toMatchObject({ status: 503, body: '{"status":"unavailable"}' });
        // liveness is not readiness: the process itself is fine
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
      }
      // the API refuses fast, saying when to come back, and names no driver failure
      for (const answer of [await ask(b.url, `token ${unused ?? ''}`, 'current_user'), await ask(a.url, admin, 'create_token', 'during the outage')]) {
        expect({ status: answer.status, retryAfter: answer.retryAfter, code: errorCodeOf(answer) }).toStrictEqual({
          status: 503,
          retryAfter: '1',
          code: 'database_unavailable',
        });
        expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|terminat|connect/iu);
      }
    } finally {
      await cluster.startServer();
    }
    for (const url of [a.url, b.url]) expect(await firstTime(async () => (await readyz(url)).status === 200, RECOVERY_BOUND_MS)).not.toBeNull();
    expect(usernameOf(await ask(b.url, `token ${unused ?? ''}`, 'current_user'))).toBe('admin');
  }, 120_000);

  it('should survive pg_ctl restart -m fast and kill -9 of the postmaster under load: 2xx or 503 with Retry-After only, no hang, nothing answered 2xx lost', async () => {
    const instances = [a.url, b.url];
    // one account per worker: an account holds at most 100 tokens, so each worker creates fewer than that
    const MAX_CREATIONS = 90;
    const users: { readonly name: string; readonly token: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const name = `load${i}`;
      const { cookie } = await signUp(instances[i % 2] ?? '', name, `${name} password`);
      const res = await fetch(`${instances[i % 2] ?? ''}/.api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: cookie ?? '', 'x-requested-with': 'e2e' },
        body: JSON.stringify({ query: CREATE_TOKEN, variables: { note: 'load' } }),
      });
      users.push({ name, token: tokenOf({ kind: 'create_token', status: res.status, retryAfter: null, body: await res.json(), at: 0 }) ?? '' });
    }
    expect(users.every((u) => u.token !== '')).toBe(true);

    // the load: 3 workers per instance, each a bounded number of requests, until told to stop
    const answers: Answer[] = [];
    let running = true;
    let sequence = 0;
    const worker = async (url: string, index: number): Promise<void> => {
      const user = users[index] ?? { name: '', token: '' };
      let creations = 0;
      for (let n = 0; n < 2_000 && running; n++) {
        const create = n % 3 === 0 && creations < MAX_CREATIONS;
        if (create) creations++;
        const answer = create
          ? await ask(url, `token ${user.token}`, 'create_token', `load ${index}.${sequence++}`)
          : await ask(url, `token ${user.token}`, 'current_user');
        answers.push({ ...answer, who: user.name });
        if (answers.length > 20_000) running = false;
      }
    };
    const workers = instances.flatMap((url, i) => [0, 1, 2].map((w) => worker(url, i * 3 + w)));
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const recoveries: { fault: string; url: string; ms: number | null }[] = [];
    /** From `back` (pg_ctl said the server runs) to each instance's first 2xx to a request that needs the database. */
    const measureRecovery = async (fault: string, back: number): Promise<void> => {
      await Promise.all(
        instances.map(async (url) => {
          const at = await firstTime(async () => (await ask(url, admin, 'create_token', `probe ${fault}`)).status === 200, 10_000);
          recoveries.push({ fault, url, ms: at === null ? null : at - back });
        }),
      );
    };
    try {
      await pause(1_000);
      await cluster.restartServer();
      await measureRecovery('pg_ctl restart -m fast', Date.now());
      await pause(1_000);

      const killed = Date.now();
      await cluster.killPostmaster();
      // the database stays away long enough for the load to meet the outage (a token cache entry lives 1 s)
      await pause(1_500);
      const outage = answers.filter((x) => x.at > killed).length;
      await cluster.startServer();
      await measureRecovery('kill -9 of the postmaster', Date.now());
      await pause(1_000);
      expect(outage).toBeGreaterThan(0);
    } finally {
      running = false;
      await Promise.all(workers);
    }

    console.log(`database-faults.test.ts: recovery (pg_ctl reported the server started → first 2xx): ${recoveries.map((r) => `${r.fault} ${r.url}: ${r.ms ?? 'none'} ms`).join('; ')}`);
    const tally = new Map<string, number>();
    for (const x of answers) tally.set(`${x.kind} ${x.status}`, (tally.get(`${x.kind} ${x.status}`) ?? 0) + 1);
    console.log(`database-faults.test.ts: ${answers.length} requests: ${[...tally].map(([k, n]) => `${k}: ${n}`).join(', ')}`);
    for (const r of recoveries) expect(r.ms !== null && r.ms <= RECOVERY_BOUND_MS, `${r.fault} on ${r.url}: ${r.ms ?? 'no'} ms`).toBe(true);

    // every answer is a success or a 503 that says when to come back: no hang, no 500, no 200 carrying an error
    const wrong = answers.filter((x) => {
      if (x.status === 503) return x.retryAfter === null || errorCodeOf(x) !== 'database_unavailable';
      if (x.status !== 200) return true;
      return x.kind === 'create_token' ? tokenOf(x) === null : usernameOf(x) !== x.who;
    });
    expect(wrong.slice(0, 5)).toStrictEqual([]);
    // the outage was met: some requests were refused, and requests were served after it
    expect(answers.some((x) => x.status === 503)).toBe(true);

    // every token whose creation was answered 2xx works afterwards, on both instances
    const created = answers.filter((x) => x.kind === 'create_token' && x.status === 200);
    expect(created.length).toBeGreaterThan(0);
    const lost: string[] = [];
    for (const [i, x] of created.entries()) {
      if (usernameOf(await ask(instances[i % 2] ?? '', `token ${tokenOf(x) ?? ''}`, 'current_user')) !== x.who) lost.push(tokenOf(x) ?? '');
    }
    expect(lost).toStrictEqual([]);
  }, 240_000);
});
