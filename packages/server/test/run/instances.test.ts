import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTA_CLIENT, startFakeHosta } from '../fakes/hosta.js';
import type { FakeHosta } from '../fakes/hosta.js';
import { createToken, freePort, graphql, oauthPair, refresh, signIn, signUp, startGatehouseProcess, whoAmI, whoAmIWithCookie } from '../helpers/processes.js';
import type { GatehouseProcess } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const server = postgresServerAvailability();


describe.skipIf(!server.run)('two server processes on one PostgreSQL server behave as one service (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let hosta: FakeHosta;
  let configDir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    hosta = await startFakeHosta([{ id: 7, login: 'octavia', emails: [{ email: 'octavia@example.com', verified: true, primary: true }] }]);
    const [portA, portB] = [await freePort(), await freePort()];
    configDir = mkdtempSync(join(tmpdir(), 'gatehouse-instances-'));
    const config = join(configDir, 'site.jsonc');
    // one externalURL for both, as behind a load balancer: callbacks name instance A's address
    writeFileSync(
      config,
      JSON.stringify({
        externalURL: `http://127.0.0.1:${portA}`,
        'auth.providers': [
          { type: 'builtin', allowSignup: true },
          { type: 'hosta', url: hosta.url, clientID: HOSTA_CLIENT.clientId, clientSecret: HOSTA_CLIENT.clientSecret, allowSignup: true },
        ],
        // the lockout (its own tests) would lock the account at the 5th failure, before the shared throttle answers
        'auth.lockout': { failedAttemptThreshold: 1000 },
      }),
    );
    const args = (port: number) => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    // started together: the migrations run once under their lock and one of them seeds the administrator
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(portA) }), startGatehouseProcess({ args: args(portB) })]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await hosta?.close();
    await cluster?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  const admin = (): string => a.adminToken ?? b.adminToken ?? '';

  it('should seed the administrator once: exactly one instance prints its token, and it works on both', async () => {
    expect([a.adminToken, b.adminToken].filter((t) => t !== null)).toHaveLength(1);
    expect(await whoAmI(a.url, `token ${admin()}`)).toBe('admin');
    expect(await whoAmI(b.url, `token ${admin()}`)).toBe('admin');
  });

  it('should accept on one instance a session created on the other', async () => {
    const signedUp = await signUp(a.url, 'sabine', 'sabine password');
    expect(signedUp.status).toBe(201);
    expect(await whoAmIWithCookie(b.url, signedUp.cookie ?? '')).toBe('sabine');
  });

  it('should refuse a deleted token at once on the instance that deleted it and within one second on the other', async () => {
    const token = await createToken(a.url, `token ${admin()}`, 'to delete');
    expect(token).not.toBeNull();
    // both instances have used it (and may hold it in their caches)
    expect(await whoAmI(a.url, `token ${token ?? ''}`)).toBe('admin');
    expect(await whoAmI(b.url, `token ${token ?? ''}`)).toBe('admin');
    const listed = await graphql(a.url, `token ${admin()}`, '{ currentUser { accessTokens(first: 100) { id note } } }');
    const tokens = (listed.body as { data: { currentUser: { accessTokens: { id: string; note: string }[] } } }).data.currentUser.accessTokens;
    const id = tokens.find((t) => t.note === 'to delete')?.id ?? '';
    const deleted = await graphql(a.url, `token ${admin()}`, 'mutation($id: ID!) { deleteAccessToken(id: $id) }', { id });
    expect(deleted.body).toStrictEqual({ data: { deleteAccessToken: true } });
    const deletedAt = Date.now();
    expect(await whoAmI(a.url, `token ${token ?? ''}`)).toBeNull();
    // the other instance: polled (bounded) until it refuses; the README's bound is one second
    let refusedAfter = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 60; i++) {
      if ((await whoAmI(b.url, `token ${token ?? ''}`)) === null) {
        refusedAfter = Date.now() - deletedAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // one second, plus the time a request takes on this loaded machine
    expect(refusedAfter).toBeLessThanOrEqual(1_500);
  });

  it('should count sign-in failures across both instances (the throttle is shared)', async () => {
    expect((await signUp(a.url, 'theo', 'theo password 1')).status).toBe(201);
    const statuses: number[] = [];
    // the default policy lets 5 failures through free; alternate instances
    for (let i = 0; i < 6; i++) statuses.push((await signIn(i % 2 === 0 ? a.url : b.url, 'theo', `wrong ${i}`)).status);
    expect(statuses.slice(0, 5).every((s) => s === 401)).toBe(true);
    expect(statuses[5]).toBe(429);
    // and the other instance refuses too
    expect((await signIn(a.url, 'theo', 'wrong again')).status).toBe(429);
  });

  it('should give exactly one new pair for concurrent refreshes of one refresh token on both instances', async () => {
    const owner = await signUp(a.url, 'rhea', 'rhea password 1');
    const pair = await oauthPair(a.url, admin(), owner.cookie ?? '');
    const [onA, onB] = await Promise.all([refresh(a.url, pair), refresh(b.url, pair)]);
    expect([onA.status, onB.status].sort()).toStrictEqual([200, 400]);
  });

  it('should complete on one instance a provider sign-in started on the other', async () => {
    const login = await fetch(`${a.url}/.auth/hosta/login?returnTo=/after`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookies = login.headers.getSetCookie().map((line) => line.split(';', 1)[0] ?? '').join('; ');
    const authorize = new URL(login.headers.get('location') ?? '');
    authorize.searchParams.set('as', 'octavia');
    const atHost = await fetch(authorize, { redirect: 'manual' });
    const callback = new URL(atHost.headers.get('location') ?? '');
    expect(callback.origin).toBe(a.url);
    // the load balancer sends the callback to instance B
    const done = await fetch(`${b.url}${callback.pathname}${callback.search}`, { headers: { cookie: cookies }, redirect: 'manual' });
    expect({ status: done.status, location: done.headers.get('location') }).toStrictEqual({ status: 303, location: '/after' });
    const session = done.headers.getSetCookie().map((line) => line.split(';', 1)[0] ?? '').find((pair) => !pair.endsWith('=')) ?? '';
    expect(await whoAmIWithCookie(a.url, session)).toBe('octavia');
  });
});
