/**
 * The preview of a site configuration change over 100,000 stored identities: 100,000 accounts, each with one `hosta`
 * identity (nine in ten with the facts of a last sign-in, orgs `acme`, `globex` or both), plus five site
 * administrators with a password, seeded by SQL into PGlite and into a throwaway PostgreSQL cluster (or
 * `GATEHOUSE_BENCH_DATABASE_URL`). The candidate removes `globex` from `allowOrgs`; the preview pages through every
 * account (1,000 a page) and decides each identity under both configurations with the core.
 *
 * Five previews on each store: the median wall time with the lowest and highest, the CPU time of this process (the
 * driver's decoding and the core; on PGlite also the database itself, which runs in this process), the CPU time of
 * the PostgreSQL server's processes (read from `/proc` when the bench started the cluster), and the wall time per
 * identity. The machine's load average is printed beside them: on a shared machine the wall time follows the load,
 * the CPU times much less.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseSiteConfiguration } from '../src/index.js';
import { previewConfiguration } from '../packages/server/src/operations/configuration-preview.js';
import type { SqlDriver } from '../packages/server/src/store/postgres/driver.js';
import { applyMigrations } from '../packages/server/src/store/postgres/migrate.js';
import { openNodePostgresDriver } from '../packages/server/src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../packages/server/src/store/postgres/pglite.js';
import { createPostgresStore } from '../packages/server/src/store/postgres/store.js';
import { startBenchDatabase } from './postgres-cluster.js';

const IDENTITIES = 100_000;
const RUNS = 5;

const config = (orgs: readonly string[]): string =>
  JSON.stringify({ 'auth.providers': [{ type: 'builtin' }, { type: 'hosta', clientID: 'id', clientSecret: 's', allowOrgs: orgs }] });

/** Seeds the accounts and identities in a few set-based statements. */
async function seed(driver: SqlDriver): Promise<void> {
  await driver.exec(`
    INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
      SELECT 'user' || i, 'user' || i, 'provider_signup', false, false, NULL, i FROM generate_series(1, ${IDENTITIES}) AS i;
    INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
      SELECT 'admin' || i, 'admin' || i, 'admin_created', true, false, 'scrypt$x', i FROM generate_series(1, 5) AS i;
    INSERT INTO external_accounts (external_key, account_id, service_type, service_id, external_id, created_at, facts, facts_at)
      SELECT '["hosta","","' || a.id || '"]', a.id, 'hosta', '', a.id::text, 1,
             CASE WHEN a.id % 10 = 0 THEN NULL
                  ELSE jsonb_build_object('username', a.username, 'emails', '[]'::jsonb,
                         'orgs', CASE a.id % 3 WHEN 0 THEN '["acme"]'::jsonb WHEN 1 THEN '["globex"]'::jsonb ELSE '["acme","globex"]'::jsonb END)
             END,
             CASE WHEN a.id % 10 = 0 THEN NULL ELSE 2 END
        FROM accounts a WHERE NOT a.site_admin;
    ANALYZE;
  `);
}

/** CPU milliseconds (user and system) of the PostgreSQL server processes of a cluster: the postmaster and its children. */
function serverCpu(dataDir: string | undefined): (() => number) | null {
  if (dataDir === undefined) return null;
  let postmaster: string;
  try {
    postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]?.trim() ?? '';
  } catch {
    return null;
  }
  const tick = 1000 / 100; // USER_HZ is 100 on Linux
  return () => {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^[0-9]+$/u.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // it ended meanwhile
      }
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pid !== postmaster && fields[1] !== postmaster) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * tick;
  };
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function measureOn(name: string, driver: SqlDriver, server: (() => number) | null): Promise<void> {
  const migrated = await applyMigrations(driver);
  if (migrated.isErr()) throw new Error(`migrations refused: ${migrated.error.code}`);
  const seedStart = performance.now();
  await seed(driver);
  const seeded = performance.now() - seedStart;
  const store = createPostgresStore(driver);
  const current = parseSiteConfiguration(config(['acme', 'globex']))._unsafeUnwrap();
  const walls: number[] = [];
  const cpus: number[] = [];
  const servers: number[] = [];
  const loads: number[] = [];
  let losing = 0;
  let unknown = 0;
  for (let i = 0; i < RUNS; i++) {
    const serverStart = server?.() ?? 0;
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const preview = await previewConfiguration(store, current, config(['acme']));
    walls.push(performance.now() - start);
    const cpu = process.cpuUsage(cpuStart);
    cpus.push((cpu.user + cpu.system) / 1000);
    if (server !== null) servers.push(server() - serverStart);
    loads.push(loadavg()[0] ?? 0);
    if (preview.kind !== 'preview') throw new Error('the candidate did not parse');
    losing = preview.tally.losing.count;
    unknown = preview.tally.unknown.count;
  }
  const wall = median(walls);
  console.log(
    `| ${name} | ${IDENTITIES.toLocaleString('en')} | ${seconds(seeded)} | ${seconds(wall)} (${seconds(Math.min(...walls))}–${seconds(Math.max(...walls))}) | ` +
      `${seconds(median(cpus))} | ${server === null ? '—' : seconds(median(servers))} | ${((wall * 1000) / IDENTITIES).toFixed(1)} µs | ` +
      `${median(loads).toFixed(1)} | ${losing.toLocaleString('en')} | ${unknown.toLocaleString('en')} |`,
  );
}

export async function run(): Promise<void> {
  console.log('\n## Configuration preview over 100,000 identities (remove an org from allowOrgs)\n');
  console.log(`| store | identities | seed | preview, median of ${RUNS} (min–max) | CPU, this process | CPU, PostgreSQL server | per identity | load | would lose | unknown |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const pglite = await openPgliteDriver({ memory: true });
  try {
    await measureOn('PGlite (in memory)', pglite, null);
  } finally {
    await pglite.close();
  }
  const database = await startBenchDatabase();
  if (typeof database === 'string') {
    console.log(`| PostgreSQL | skipped: ${database} | | | | | | | | |`);
    return;
  }
  const driver = await openNodePostgresDriver({ connectionString: database.url });
  try {
    await measureOn('PostgreSQL (node-postgres)', driver, serverCpu(database.dataDir));
  } finally {
    await driver.close();
    await database.stop();
  }
}
