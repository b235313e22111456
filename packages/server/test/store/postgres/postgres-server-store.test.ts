/**
 * The PostgreSQL store's SQL behaviour on a real PostgreSQL server (needs Debian's PostgreSQL binaries; a
 * throwaway cluster), where concurrent callers really run on separate connections.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { openNodePostgresDriver } from '../../../src/store/postgres/node-postgres.js';
import { postgresServerAvailability, startPostgresCluster } from '../../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../../helpers/postgres-cluster.js';
import { describeSqlBehaviour } from './sql-behaviour.js';

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the PostgreSQL server store tests: ${availability.reason}`);

describe.runIf(availability.run)('on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster.stop();
  });
  describeSqlBehaviour('PostgreSQL store on a PostgreSQL server through node-postgres', async () =>
    openNodePostgresDriver({ connectionString: await cluster.createDatabase('behaviour') }), 12);
});
