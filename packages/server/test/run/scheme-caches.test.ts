/**
 * The short-lived cache behind every `Authorization` scheme (spec §5.1: `token`, `Bearer`, `token-sudo`), on two
 * server processes sharing one throwaway PostgreSQL cluster: a change made on one instance is seen at once there,
 * and on the other once its cached answer has expired (polled, bounded in count; no time is asserted). The `sudo`
 * audit entries, counted and written off the request path, are all in the database after a graceful stop.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, freePort, graphql, oauthPair, signUp, startGatehouseProcess, whoAmI } from '../helpers/processes.js';
import type { GatehouseProcess } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';

const server = postgresServerAvailability();

/** Polls `check` until it holds, at most 100 times 50 ms apart (the cache's bound is 1 s); whether it came to hold. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Asks the same question many times: whether every answer (each one served from the cache once warm) holds. */
async function always(check: () => Promise<boolean>, times = 5): Promise<boolean> {
  for (let i = 0; i < times; i++) if (!(await check())) return false;
  return true;
}

/** The site-admin flag of the account a `token-sudo` header acts as, or `null` when refused. */
async function sudoSiteAdmin(url: string, authorization: string): Promise<boolean | null> {
  const answer = await graphql(url, authorization, '{ currentUser { username siteAdmin } }');
  const data = (answer.body as { data?: { currentUser?: { siteAdmin?: boolean } | null } }).data;
  return answer.status === 200 ? (data?.currentUser?.siteAdmin ?? null) : null;
}

async function revokeAccessToken(url: string, clientId: string, clientSecret: string, token: string): Promise<number> {
  const res = await fetch(`${url}/.auth/idp/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: clientId, client_secret: clientSecret }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}

describe.skipIf(!server.run)('every scheme cached on two server processes sharing one PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let configDir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const [portA, portB] = [await freePort(), await freePort()];
    configDir = mkdtempSync(join(tmpdir(), 'gatehouse-scheme-caches-'));
    const config = join(configDir, 'site.jsonc');
    writeFileSync(config, JSON.stringify({ externalURL: `http://127.0.0.1:${portA}`, 'auth.providers': [{ type: 'builtin', allowSignup: true }] }));
    const args = (port: number) => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(portA) }), startGatehouseProcess({ args: args(portB) })]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  const admin = (): string => `token ${a.adminToken ?? b.adminToken ?? ''}`;

  /** Creates an account and returns its id. */
  async function createUser(username: string): Promise<string> {
    const created = await graphql(a.url, admin(), 'mutation($u: String!) { createUser(username: $u) { id } }', { u: username });
    return (created.body as { data: { createUser: { id: string } } }).data.createUser.id;
  }

  async function setSiteAdmin(on: GatehouseProcess, userId: string, siteAdmin: boolean): Promise<void> {
    const answer = await graphql(on.url, admin(), 'mutation($id: ID!, $s: Boolean!) { setUserIsSiteAdmin(userID: $id, siteAdmin: $s) { id } }', {
      id: userId,
      s: siteAdmin,
    });
    expect(answer.status).toBe(200);
  }

  it('token: a deleted token is refused at once where it was deleted, and within the bound on the other instance', async () => {
    const token = (await createToken(a.url, admin(), 'cached token')) ?? '';
    expect(await always(async () => (await whoAmI(a.url, `token ${token}`)) === 'admin')).toBe(true);
    expect(await always(async () => (await whoAmI(b.url, `token ${token}`)) === 'admin')).toBe(true);
    const listed = await graphql(a.url, admin(), '{ currentUser { accessTokens(first: 100) { id note } } }');
    const tokens = (listed.body as { data: { currentUser: { accessTokens: { id: string; note: string }[] } } }).data.currentUser.accessTokens;
    const id = tokens.find((t) => t.note === 'cached token')?.id ?? '';
    expect((await graphql(a.url, admin(), 'mutation($id: ID!) { deleteAccessToken(id: $id) }', { id })).body).toStrictEqual({ data: { deleteAccessToken: true } });
    expect(await whoAmI(a.url, `token ${token}`)).toBeNull();
    expect(await eventually(async () => (await whoAmI(b.url, `token ${token}`)) === null)).toBe(true);
  });

  it('Bearer: a revoked OAuth access token is refused at once where it was revoked, and within the bound on the other instance', async () => {
    const owner = await signUp(a.url, 'bea', 'bea password 1');
    const pair = await oauthPair(a.url, a.adminToken ?? b.adminToken ?? '', owner.cookie ?? '');
    const bearer = `Bearer ${pair.accessToken}`;
    expect(await always(async () => (await whoAmI(a.url, bearer)) === 'bea')).toBe(true);
    expect(await always(async () => (await whoAmI(b.url, bearer)) === 'bea')).toBe(true);
    expect(await revokeAccessToken(a.url, pair.clientId, pair.clientSecret, pair.accessToken)).toBe(200);
    expect(await whoAmI(a.url, bearer)).toBeNull();
    expect(await eventually(async () => (await whoAmI(b.url, bearer)) === null)).toBe(true);
  });

  it('Bearer: a refresh token revoked (its whole family) is refused at once where it was revoked, and within the bound elsewhere', async () => {
    const owner = await signUp(a.url, 'fay', 'fay password 1');
    const pair = await oauthPair(a.url, a.adminToken ?? b.adminToken ?? '', owner.cookie ?? '');
    const bearer = `Bearer ${pair.accessToken}`;
    expect(await always(async () => (await whoAmI(b.url, bearer)) === 'fay')).toBe(true);
    expect(await always(async () => (await whoAmI(a.url, bearer)) === 'fay')).toBe(true);
    expect(await revokeAccessToken(b.url, pair.clientId, pair.clientSecret, pair.refreshToken)).toBe(200);
    expect(await whoAmI(b.url, bearer)).toBeNull();
    expect(await eventually(async () => (await whoAmI(a.url, bearer)) === null)).toBe(true);
  });

  it('token-sudo: a change to the account acted as is seen at once where it was made, and within the bound on the other instance', async () => {
    const tara = await createUser('tara');
    const sudo = `token-sudo user="tara",token="${a.adminToken ?? b.adminToken ?? ''}"`;
    // the seeded administrator token holds site-admin:sudo only if the seed gives it; make one that does
    const made = await graphql(a.url, admin(), 'mutation { createAccessToken(note: "sudo", scopes: ["user:all", "site-admin:sudo"]) { token } }');
    const sudoToken = (made.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    const header = sudo.replace(/token="[^"]*"/u, `token="${sudoToken}"`);
    expect(await always(async () => (await sudoSiteAdmin(a.url, header)) === false)).toBe(true);
    expect(await always(async () => (await sudoSiteAdmin(b.url, header)) === false)).toBe(true);
    await setSiteAdmin(a, tara, true);
    expect(await sudoSiteAdmin(a.url, header)).toBe(true);
    expect(await eventually(async () => (await sudoSiteAdmin(b.url, header)) === true)).toBe(true);
  });

  it('token-sudo: a token owner demoted is refused at once where it was demoted, and within the bound on the other instance', async () => {
    const olga = await createUser('olga');
    await setSiteAdmin(a, olga, true);
    const made = await graphql(a.url, admin(), 'mutation($u: ID!) { createAccessToken(user: $u, note: "olga sudo", scopes: ["user:all", "site-admin:sudo"]) { token } }', {
      u: olga,
    });
    const olgaSudo = (made.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    const header = `token-sudo user="admin",token="${olgaSudo}"`;
    expect(await always(async () => (await whoAmI(a.url, header)) === 'admin')).toBe(true);
    expect(await always(async () => (await whoAmI(b.url, header)) === 'admin')).toBe(true);
    await setSiteAdmin(b, olga, false);
    expect(await whoAmI(b.url, header)).toBeNull();
    expect(await eventually(async () => (await whoAmI(a.url, header)) === null)).toBe(true);
  });

  it('token-sudo: every use is in the audit log, counted per token and account acted as, once both instances have stopped', async () => {
    const made = await graphql(a.url, admin(), 'mutation { createAccessToken(note: "counted sudo", scopes: ["user:all", "site-admin:sudo"]) { token } }');
    const sudoToken = (made.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    const header = `token-sudo user="admin",token="${sudoToken}"`;
    const uses = 25;
    for (let i = 0; i < uses; i++) expect(await whoAmI(i % 2 === 0 ? a.url : b.url, header)).toBe('admin');
    // a graceful stop writes what was counted and not yet written
    await Promise.all([a.stop(), b.stop()]);
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ total: string }>(
        `SELECT coalesce(sum(count), 0)::text AS total FROM audit_log a JOIN access_tokens t ON t.id::text = a.details->>'tokenId'
         WHERE a.action = 'sudo' AND t.note = 'counted sudo'`,
      );
      expect(rows[0]?.total).toBe(String(uses));
    } finally {
      await client.end();
    }
  });
});
