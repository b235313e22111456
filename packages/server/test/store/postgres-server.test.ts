/**
 * The PostgreSQL store on a PostgreSQL server through node-postgres runs the store contract suite (needs Debian's
 * PostgreSQL binaries: the file starts a throwaway cluster; one database, emptied for each case).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { describeStoreContract } from './contract.js';
import type { OpenedStore } from './contract.js';

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the store contract on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('contract') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });

  describeStoreContract('createPostgresStore on a PostgreSQL server', () => open(), { modelRuns: 10, auditFloodSize: 1_500 });
});
