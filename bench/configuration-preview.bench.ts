/**
 * The preview of a site configuration change over 100,000 stored identities: 100,000 accounts, each with one `hosta`
 * identity (nine in ten with the facts of a last sign-in, orgs `acme`, `globex` or both), plus five site
 * administrators with a password, seeded by SQL into PGlite and into a throwaway PostgreSQL cluster (or
 * `GATEHOUSE_BENCH_DATABASE_URL`). The candidate removes `globex` from `allowOrgs`; the preview pages through every
 * account (1,000 a page) and decides each identity under both configurations with the core. Wall time of three
 * previews each, the lowest and the highest.
 */
import { parseSiteConfiguration } from '../src/index.js';
import { previewConfiguration } from '../packages/server/src/operations/configuration-preview.js';
import type { SqlDriver } from '../packages/server/src/store/postgres/driver.js';
import { applyMigrations } from '../packages/server/src/store/postgres/migrate.js';
import { openNodePostgresDriver } from '../packages/server/src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../packages/server/src/store/postgres/pglite.js';
import { createPostgresStore } from '../packages/server/src/store/postgres/store.js';
import { startBenchDatabase } from './postgres-cluster.js';

const IDENTITIES = 100_000;
const RUNS = 3;

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

async function measureOn(name: string, driver: SqlDriver): Promise<void> {
  const migrated = await applyMigrations(driver);
  if (migrated.isErr()) throw new Error(`migrations refused: ${migrated.error.code}`);
  const seedStart = performance.now();
  await seed(driver);
  const seeded = performance.now() - seedStart;
  const store = createPostgresStore(driver);
  const current = parseSiteConfiguration(config(['acme', 'globex']))._unsafeUnwrap();
  const times: number[] = [];
  let losing = 0;
  let unknown = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const preview = await previewConfiguration(store, current, config(['acme']));
    times.push(performance.now() - start);
    if (preview.kind !== 'preview') throw new Error('the candidate did not parse');
    losing = preview.tally.losing.count;
    unknown = preview.tally.unknown.count;
  }
  const lo = Math.min(...times) / 1000;
  const hi = Math.max(...times) / 1000;
  console.log(
    `| ${name} | ${IDENTITIES.toLocaleString('en')} | ${(seeded / 1000).toFixed(1)} s | ${lo.toFixed(2)}–${hi.toFixed(2)} s | ${losing.toLocaleString('en')} | ${unknown.toLocaleString('en')} |`,
  );
}

export async function run(): Promise<void> {
  console.log('\n## Configuration preview over 100,000 identities (remove an org from allowOrgs)\n');
  console.log('| store | identities | seed | preview (3 runs, min–max) | would lose | unknown |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const pglite = await openPgliteDriver({ memory: true });
  try {
    await measureOn('PGlite (in memory)', pglite);
  } finally {
    await pglite.close();
  }
  const database = await startBenchDatabase();
  if (typeof database === 'string') {
    console.log(`| PostgreSQL | skipped: ${database} | | | | |`);
    return;
  }
  const driver = await openNodePostgresDriver({ connectionString: database.url });
  try {
    await measureOn('PostgreSQL (node-postgres)', driver);
  } finally {
    await driver.close();
    await database.stop();
  }
}
