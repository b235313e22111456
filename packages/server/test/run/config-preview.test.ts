/**
 * Previewing a site configuration against a real `gatehouse serve` process on a throwaway PostgreSQL cluster:
 * `gatehouse config preview FILE` as a real process (exit 0 and who would lose sign-in, exit 1 and the problems with
 * their paths, exit 2 without site administration), and the watched file that would lock out every site
 * administrator, refused with that reason while the previous configuration keeps running.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { createPostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { signIn, signUp, startGatehouseProcess, type GatehouseProcess } from '../helpers/processes.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the configuration preview against a server process: ${availability.reason}`);

const hosta = (allowOrgs: readonly string[]) => ({ type: 'hosta', clientID: 'id', clientSecret: 'secret', allowOrgs });
const config = (providers: readonly unknown[]): string => JSON.stringify({ 'auth.providers': providers }, null, 2);
const CURRENT = config([{ type: 'builtin', allowSignup: true }, hosta(['acme', 'globex'])]);

/** Runs the `gatehouse` program (bin.ts) as a process; resolves its exit status and output. */
function gatehouse(args: readonly string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Waits until `check` holds, polling every 100 ms for at most `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(100);
  }
  return check();
}

describe.runIf(availability.run)('gatehouse config preview and the lockout guard (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let store: Store;
  let server: GatehouseProcess;
  let dir: string;
  let configFile: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const databaseUrl = await cluster.createDatabase('preview');
    dir = temporaryDirectory('gatehouse-preview-');
    configFile = join(dir, 'site.jsonc');
    writeFileSync(configFile, CURRENT);
    server = await startGatehouseProcess({ args: ['--config', configFile], env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' } });
    driver = await openNodePostgresDriver({ connectionString: databaseUrl });
    store = createPostgresStore(driver);
    // identities as hosta sign-ins left them: with the facts of their last sign-in, and one from before facts were kept
    const people: readonly (readonly [string, readonly string[] | null])[] = [
      ['ann', ['acme']],
      ['bob', ['globex']],
      ['cid', null],
      ['dee', ['GLOBEX', 'acme']],
    ];
    for (const [i, [name, orgs]] of people.entries()) {
      const created = (
        await store.accounts.create({
          usernames: [name],
          origin: 'provider_signup',
          siteAdmin: false,
          serviceAccount: false,
          emails: [{ email: `${name}@example.com`, verified: true }],
          passwordHash: null,
          createdAt: 1,
          externalAccount: { serviceType: 'hosta', serviceId: '', accountId: String(100 + i), createdAt: 1 },
        })
      )._unsafeUnwrap();
      if (orgs !== null) {
        (await store.accounts.recordIdentityFacts({ serviceType: 'hosta', serviceId: '', accountId: String(100 + i) }, { username: `${name}-gh`, emails: [], orgs }, 2))._unsafeUnwrap();
      }
      expect(created.username).toBe(name);
    }
    env = { SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: server.adminToken ?? '', SRC_DISABLE_USER_AGENT_TELEMETRY: '1', HOME: dir };
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    await driver?.close();
    await cluster?.stop();
  });

  it('should print exactly who would lose sign-in when an org leaves allowOrgs, count the identity without facts as unknown, and exit 0', async () => {
    const candidate = join(dir, 'next.jsonc');
    writeFileSync(candidate, config([{ type: 'builtin', allowSignup: true }, hosta(['acme'])]));
    const run = await gatehouse(['config', 'preview', candidate], env);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('The candidate configuration is valid. Nothing was applied.');
    const losing = /Would lose sign-in \((\d+)\):\n((?: {2}.*\n)*)/u.exec(run.stdout);
    expect(losing?.[1]).toBe('1');
    expect(losing?.[2]).toBe('  bob  hosta  (as bob-gh; not_in_allowed_orgs_or_teams; no other way in)\n');
    expect(run.stdout).toMatch(/Unknown \(1\):\n {2}cid {2}hosta/u);
    expect(run.stdout).toContain('without sign-in facts');
    // nothing was applied: bob's rule is still the old one
    const again = await gatehouse(['-endpoint', server.url, 'config', 'preview', '-json', candidate], { ...env, SRC_ENDPOINT: '' });
    expect(again.status).toBe(0);
    expect((JSON.parse(again.stdout) as { losing: { count: number } }).losing.count).toBe(1);
  }, 120_000);

  it('should print the problems of an invalid candidate with their paths and exit 1', async () => {
    const candidate = join(dir, 'broken.jsonc');
    writeFileSync(candidate, '{ "auth.providers": [{ "type": "builtin" }, { "type": "hosta", "clientID": "id" }], "rateLimits": { "graphQLMaxDepth": 0 } }');
    const run = await gatehouse(['config', 'preview', candidate], env);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^The candidate configuration has 2 problems:\n/u);
    expect(run.stdout).toContain('  auth.providers[1]');
    expect(run.stdout).toContain('  rateLimits.graphQLMaxDepth: ');
  }, 120_000);

  it('should refuse a token that is not a site administrator\'s (exit 2), and a missing file (exit 1)', async () => {
    expect((await signUp(server.url, 'eve', 'correct horse battery staple')).status).toBeLessThan(400);
    const eve = await store.accounts.findByUsernameKey('eve');
    const eveToken = await createTokenFor(server.url, server.adminToken ?? '', eve?.id ?? '');
    expect(eveToken).toMatch(/^gat_/u);
    const candidate = join(dir, 'same.jsonc');
    writeFileSync(candidate, CURRENT);
    const refused = await gatehouse(['config', 'preview', candidate], { ...env, SRC_ACCESS_TOKEN: eveToken ?? '' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('Only site administrators may do this.');
    const missing = await gatehouse(['config', 'preview', join(dir, 'absent.jsonc')], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('cannot read');
  }, 120_000);

  it('should refuse a watched file that would lock out every site administrator, keep the old configuration, and apply a safe one', async () => {
    expect((await signUp(server.url, 'alice', 'correct horse battery staple')).status).toBeLessThan(400);
    const alice = await store.accounts.findByUsernameKey('alice');
    if (alice === null) throw new Error('alice was not created');
    (await store.accounts.setSiteAdmin(alice.id, true))._unsafeUnwrap();
    const reloadsBefore = (server.output().match(/"event":"configuration_reloaded"/gu) ?? []).length;

    // no builtin provider left, and alice has no hosta identity: she could not sign in
    writeFileSync(configFile, config([hosta(['acme'])]));
    expect(await eventually(() => server.output().includes('"reason":"site_admin_lockout"'))).toBe(true);
    expect(server.output()).toMatch(/"event":"configuration_problem","path":"auth\.providers","message":"This configuration would lock out every site administrator/u);
    // the previous configuration still runs: the password still signs alice in
    const signedIn = await signIn(server.url, 'alice', 'correct horse battery staple');
    expect(signedIn.cookie).not.toBeNull();
    const page = await fetch(`${server.url}/site-admin/configuration`, { headers: { cookie: signedIn.cookie ?? '' } });
    const html = await page.text();
    expect(html).toContain('The last reload was rejected');
    expect(html).toContain('would lock out every site administrator');
    expect((server.output().match(/"event":"configuration_reloaded"/gu) ?? []).length).toBe(reloadsBefore);

    // a file that keeps the password applies
    writeFileSync(configFile, config([{ type: 'builtin', allowSignup: false }, hosta(['acme'])]));
    expect(await eventually(() => (server.output().match(/"event":"configuration_reloaded"/gu) ?? []).length > reloadsBefore)).toBe(true);
  }, 120_000);
});

/** Creates an access token for another account with the administrator's token (a site administrator may). */
async function createTokenFor(url: string, adminToken: string, userId: string): Promise<string | null> {
  const res = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `token ${adminToken}` },
    body: JSON.stringify({ query: 'mutation($user: ID!) { createAccessToken(user: $user, note: "eve", scopes: ["user:all"]) { token } }', variables: { user: userId } }),
  });
  const body = (await res.json()) as { data?: { createAccessToken?: { token?: string } }; errors?: unknown };
  if (body.errors !== undefined) throw new Error(JSON.stringify(body.errors));
  return body.data?.createAccessToken?.token ?? null;
}
