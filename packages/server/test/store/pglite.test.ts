/**
 * The PostgreSQL store on the embedded driver, PGlite in memory, runs the store contract suite (one database for
 * the file, emptied for each case).
 */
import { afterAll, beforeAll } from 'vitest';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { describeStoreContract } from './contract.js';
import type { OpenedStore } from './contract.js';

let driver: SqlDriver;
let open: () => Promise<OpenedStore>;
beforeAll(async () => {
  driver = await openPgliteDriver({ memory: true });
  open = await reusingOpener(driver);
}, 120_000);
afterAll(async () => {
  await driver.close();
});

describeStoreContract('createPostgresStore on PGlite in memory', () => open(), { modelRuns: 10, auditFloodSize: 1_500 });
