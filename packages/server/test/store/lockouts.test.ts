/**
 * The lockout part of the store contract alone, on the memory store, PostgreSQL on PGlite and PostgreSQL on a
 * throwaway server cluster (the whole contract runs it too; this file checks it in seconds).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import type { OpenedStore } from './contract.js';
import { describeLockouts } from './contract/lockouts.js';

describe('memory store', () => {
  describeLockouts(async () => ({ store: createMemoryStore(), close: async () => undefined }));
});

describe('PostgreSQL store on PGlite', () => {
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  describeLockouts(() => open());
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the lockout store cases on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('PostgreSQL store on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('lockouts') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });
  describeLockouts(() => open());
});
