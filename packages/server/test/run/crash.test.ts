import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { crashUnderLoadAndCheck } from '../helpers/crash-recovery.js';
import { startGatehouseProcess } from '../helpers/processes.js';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { StoreLocation } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';

/** Opens the store the crashed server used, to look at it directly. */
async function inspectStore(location: StoreLocation): Promise<{ store: Store; close(): Promise<void> }> {
  const opened = await openStore(location);
  if (opened.isErr()) throw new Error(`the store did not open: ${opened.error.code}`);
  const { store } = opened.value;
  return { store, close: () => store.close() };
}

const server = postgresServerAvailability();
if (!server.run) console.warn(`crash.test.ts: the PostgreSQL server run is skipped: ${server.reason}`);

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('no data loss on a crash (kill -9 under load)', () => {
  it('should keep every 2xx-answered sign-up, token and refresh, and no half-made account, on the embedded store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
    dataDirs.push(dataDir);
    const start = () => startGatehouseProcess({ args: ['--data-dir', dataDir] });
    await crashUnderLoadAndCheck(await start(), start, () => inspectStore({ dataDir }), 'embedded');
  }, 240_000);

  it.skipIf(!server.run)('should keep the same on a PostgreSQL server (needs a PostgreSQL server)', async () => {
    const cluster = await startPostgresCluster();
    try {
      const start = () => startGatehouseProcess({ args: ['--database-url', cluster.url] });
      await crashUnderLoadAndCheck(await start(), start, () => inspectStore({ databaseUrl: cluster.url }), 'server');
    } finally {
      await cluster.stop();
    }
  }, 240_000);
});
