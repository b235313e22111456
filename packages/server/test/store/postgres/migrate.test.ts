/**
 * Migrations: applied once and recorded, all or nothing, once among concurrent starters, and a database with a
 * newer schema than the code knows is refused with both versions named.
 */
import { err, ok } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/postgres/migrations/list.js';
import type { SqlDriver } from '../../../src/store/postgres/driver.js';
import { applyMigrations, migrationErrorMessage } from '../../../src/store/postgres/migrate.js';
import { openNodePostgresDriver } from '../../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../../src/store/postgres/pglite.js';
import { postgresServerAvailability, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';

const CODE_VERSION = MIGRATIONS.at(-1)?.version ?? 0;
const recorded = async (driver: SqlDriver): Promise<readonly number[]> =>
  (await driver.query<{ version: unknown }>('SELECT version FROM gatehouse_migrations ORDER BY version')).map((r) => Number(r.version));

describe('MIGRATIONS', () => {
  it('should number the migrations 1, 2, … without gaps, each with a snake_case name', () => {
    expect(MIGRATIONS.map((m) => m.version)).toStrictEqual(MIGRATIONS.map((_, i) => i + 1));
    for (const m of MIGRATIONS) expect(m.name).toMatch(/^[a-z][a-z0-9_]*$/u);
  });
});

describe('applyMigrations on PGlite', () => {
  let driver: SqlDriver;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
  }, 60_000);
  afterAll(async () => {
    await driver.close();
  });

  it('should apply every migration on an empty database once, record it, and apply nothing the next time', async () => {
    const [first, second] = await Promise.all([applyMigrations(driver), applyMigrations(driver)]);
    const reports = [first, second].map((r) => r?._unsafeUnwrap());
    expect(reports.map((r) => r?.applied.length).sort()).toStrictEqual([0, MIGRATIONS.length]);
    expect(await applyMigrations(driver)).toStrictEqual(ok({ applied: [], version: CODE_VERSION }));
    expect(await recorded(driver)).toStrictEqual(MIGRATIONS.map((m) => m.version));
  });

  it('should refuse a database whose schema is newer than the code, naming both versions, and change nothing', async () => {
    await driver.query('INSERT INTO gatehouse_migrations (version, name) VALUES ($1, $2)', [CODE_VERSION + 5, 'from_the_future']);
    const refused = await applyMigrations(driver);
    expect(refused).toStrictEqual(err({ code: 'schema_too_new', databaseVersion: CODE_VERSION + 5, codeVersion: CODE_VERSION }));
    expect(migrationErrorMessage(refused._unsafeUnwrapErr())).toContain(`version ${CODE_VERSION + 5}, newer than version ${CODE_VERSION}`);
    await driver.query('DELETE FROM gatehouse_migrations WHERE version = $1', [CODE_VERSION + 5]);
  });

  it('should give the sessions and tokens of a version 1 database their settings columns: last seen when created, no user agent, never used', async () => {
    const old = await openPgliteDriver({ memory: true });
    try {
      expect((await applyMigrations(old, MIGRATIONS.slice(0, 1)))._unsafeUnwrap().version).toBe(1);
      await old.query("INSERT INTO accounts (username, username_key, origin, site_admin, service_account, created_at) VALUES ('a', 'a', 'admin_created', false, false, 1)");
      await old.query("INSERT INTO sessions (digest, account_id, created_at, expires_at) VALUES ('s1', 1, 1234, 9999), ('s2', 1, 5678, 9999)");
      await old.query("INSERT INTO access_tokens (account_id, digest, scopes, note, created_at) VALUES (1, 'd1', '[]', '', 42)");
      expect(await applyMigrations(old, MIGRATIONS.slice(0, 2))).toStrictEqual(ok({ applied: [{ version: 2, name: 'settings' }], version: 2 }));
      expect(await old.query('SELECT digest, last_seen_at, user_agent FROM sessions ORDER BY digest')).toStrictEqual([
        { digest: 's1', last_seen_at: 1234, user_agent: '' },
        { digest: 's2', last_seen_at: 5678, user_agent: '' },
      ]);
      expect(await old.query('SELECT digest, last_used_at FROM access_tokens')).toStrictEqual([{ digest: 'd1', last_used_at: null }]);
      // the backfilled column is required from now on
      await expect(old.query("INSERT INTO sessions (digest, account_id, created_at, expires_at) VALUES ('s3', 1, 1, 2)")).rejects.toThrow(/last_seen_at/u);
    } finally {
      await old.close();
    }
  }, 60_000);

  it('should merge the username trigram index\'s pending list and keep none after it (migration 9)', async () => {
    const old = await openPgliteDriver({ memory: true });
    const accounts = (from: number) => `
INSERT INTO accounts (username, username_key, origin, site_admin, service_account, created_at)
  SELECT 'member-' || g, 'member-' || g, 'sign_up', false, false, 1 FROM generate_series(${String(from)}, ${String(from + 999)}) g;`;
    const pendingPagesMerged = async (): Promise<number> =>
      Number((await old.query<{ pages: unknown }>("SELECT gin_clean_pending_list('accounts_username_trigrams'::regclass) AS pages"))[0]?.pages);
    try {
      expect((await applyMigrations(old, MIGRATIONS.slice(0, 8)))._unsafeUnwrap().version).toBe(8);
      // before: new entries wait in the pending list
      await old.exec(accounts(1));
      expect(await pendingPagesMerged()).toBeGreaterThan(0);
      await old.exec(accounts(1001));
      expect(await applyMigrations(old, MIGRATIONS.slice(0, 9))).toStrictEqual(ok({ applied: [{ version: 9, name: 'gin_without_pending_list' }], version: 9 }));
      // the migration merged what waited, and what comes after goes straight into the tree
      expect(await pendingPagesMerged()).toBe(0);
      await old.exec(accounts(2001));
      expect(await pendingPagesMerged()).toBe(0);
      expect(await old.query("SELECT count(*)::int AS n FROM accounts WHERE username_key LIKE '%ember-1500%'")).toStrictEqual([{ n: 1 }]);
    } finally {
      await old.close();
    }
  }, 60_000);

  it('should apply a failing list of migrations not at all (one transaction)', async () => {
    const fresh = await openPgliteDriver({ memory: true });
    const broken = [...MIGRATIONS, { version: CODE_VERSION + 1, name: 'broken', sql: 'CREATE TABLE extra (id int); SELECT 1 / 0;' }];
    await expect(applyMigrations(fresh, broken)).rejects.toThrow(/division by zero/u);
    expect(await fresh.query("SELECT to_regclass('accounts') AS t, to_regclass('gatehouse_migrations') AS m")).toStrictEqual([{ t: null, m: null }]);
    await fresh.close();
  }, 60_000);
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the PostgreSQL server migration tests: ${availability.reason}`);

describe.runIf(availability.run)('applyMigrations on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('should apply the migrations once when six instances start together on an empty database', async () => {
    const url = await cluster.createDatabase('starters');
    const drivers = await Promise.all(Array.from({ length: 6 }, () => openNodePostgresDriver({ connectionString: url, max: 2 })));
    const reports = await Promise.all(drivers.map((d) => applyMigrations(d)));
    expect(reports.map((r) => r._unsafeUnwrap().applied.length).sort()).toStrictEqual([0, 0, 0, 0, 0, MIGRATIONS.length]);
    for (const d of drivers) expect(await recorded(d)).toStrictEqual(MIGRATIONS.map((m) => m.version));
    await Promise.all(drivers.map((d) => d.close()));
  }, 60_000);
});
