/**
 * A suspension takes effect at once on every instance: two server processes on one throwaway PostgreSQL cluster.
 * A member has a browser session, an access token and an OAuth token; both instances have just used all three
 * (so instance B holds the member in its token cache, kept up to one second); an administrator suspends the
 * member on instance A, and all three are refused on A and on B on the very next request, with no wait: B forgets
 * the member when the change feed (LISTEN/NOTIFY) tells it. Reinstating restores all three; revoking every token
 * on A is seen on B at once too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, graphql, oauthPair, refresh, signUp, startGatehouseProcess, userIdWithCookie, whoAmI, whoAmIWithCookie } from '../helpers/processes.js';
import type { GatehouseProcess, OAuthPair } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const server = postgresServerAvailability();
if (!server.run) console.log(`skipping the account controls on two instances: ${server.reason}`);


describe.skipIf(!server.run)('account controls on two server processes on one PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let configDir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;
  let admin = '';
  let memberId = '';
  let cookie = '';
  let token = '';
  let pair: OAuthPair;

  /** What each way in answers on both instances: [session, token, OAuth token] on A, then on B. */
  const ways = async (): Promise<(string | null)[]> => {
    const on = async (url: string): Promise<(string | null)[]> => [await whoAmIWithCookie(url, cookie), await whoAmI(url, `token ${token}`), await whoAmI(url, `Bearer ${pair.accessToken}`)];
    return [...(await on(a.url)), ...(await on(b.url))];
  };

  const mutate = async (url: string, query: string): Promise<unknown> => {
    const answer = await graphql(url, `token ${admin}`, query);
    const body = answer.body as { data?: Record<string, unknown> | null; errors?: unknown[] };
    if (body.errors !== undefined) throw new Error(JSON.stringify(body.errors));
    return Object.values(body.data ?? {})[0];
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const [portA, portB] = [await freePort(), await freePort()];
    configDir = mkdtempSync(join(tmpdir(), 'gatehouse-controls-'));
    const config = join(configDir, 'site.jsonc');
    writeFileSync(config, JSON.stringify({ externalURL: `http://127.0.0.1:${portA}`, 'auth.providers': [{ type: 'builtin', allowSignup: true }] }));
    const args = (port: number): string[] => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(portA) }), startGatehouseProcess({ args: args(portB) })]);
    admin = a.adminToken ?? b.adminToken ?? '';
    // the member: a browser session, an access token (made by the administrator for them), an OAuth token
    const signedUp = await signUp(a.url, 'mira', 'mira password 1');
    cookie = signedUp.cookie ?? '';
    memberId = (await userIdWithCookie(a.url, cookie)) ?? '';
    const created = (await mutate(a.url, `mutation { createAccessToken(user: "${memberId}", scopes: ["user:all"], note: "e2e") { token } }`)) as { token: string };
    token = created.token;
    pair = await oauthPair(a.url, admin, cookie);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
    if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
  });

  it('should refuse the session, the access token and the OAuth token on both instances at once after a suspension on A, and restore them on reinstating', async () => {
    // both instances use all three: B now holds the member and the token in its cache
    expect(await ways()).toStrictEqual(Array(6).fill('mira'));
    const suspended = (await mutate(a.url, `mutation { suspendUser(user: "${memberId}") { suspended } }`)) as { suspended: boolean };
    expect(suspended.suspended).toBe(true);
    expect(await ways()).toStrictEqual(Array(6).fill(null));
    // nor can the OAuth refresh token be exchanged for new tokens, on either instance (it is kept)
    expect((await refresh(a.url, pair)).status).toBe(400);
    expect((await refresh(b.url, pair)).status).toBe(400);
    const reinstated = (await mutate(b.url, `mutation { reinstateUser(user: "${memberId}") { suspended } }`)) as { suspended: boolean };
    expect(reinstated.suspended).toBe(false);
    expect(await ways()).toStrictEqual(Array(6).fill('mira'));
  });

  it('should refuse every token of the member on both instances at once after revokeUserAccessTokens on A, keeping the session', async () => {
    expect(await ways()).toStrictEqual(Array(6).fill('mira'));
    expect(await mutate(a.url, `mutation { revokeUserAccessTokens(user: "${memberId}") }`)).toBe(3);
    expect(await ways()).toStrictEqual(['mira', null, null, 'mira', null, null]);
    expect(await mutate(b.url, `mutation { invalidateSessionsByID(userID: "${memberId}") }`)).toBe(1);
    expect(await ways()).toStrictEqual(Array(6).fill(null));
  });
});
