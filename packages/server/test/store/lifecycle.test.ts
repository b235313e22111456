/**
 * Account links, the mail outbox and `accounts.setEmails` run their store contract on the memory store, on PGlite in
 * memory and on a throwaway PostgreSQL server; on both databases a test reads the rows and finds only the token's digest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountLink, accountLinkDigest } from '../../src/operations/account-links.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { describeLifecycleContract } from './contract/lifecycle.js';
import { describeSetEmailsContract } from './contract/account-emails.js';
import type { OpenedStore } from './contract.js';
import { createUser } from './contract/fixtures.js';

describe('links and outbox contract: createMemoryStore', () => {
  describeLifecycleContract(async () => ({ store: createMemoryStore(), close: async () => undefined }));
  describeSetEmailsContract(async () => ({ store: createMemoryStore(), close: async () => undefined }));
});

/** The rows of `account_links` hold the digest of the token, and the token nowhere. */
function describeDigestOnly(driver: () => SqlDriver, open: () => Promise<OpenedStore>): void {
  it('should keep only the SHA-256 digest of a link\'s token in the table', async () => {
    const { store }: { store: Store } = await open();
    const alice = await createUser(store, 'alice');
    const made = (
      await createAccountLink(store, { purpose: 'reset_password', userId: alice, email: null, ttlSeconds: 60, now: 1_000, randomBytes: (n) => new Uint8Array(n).fill(7) })
    )._unsafeUnwrap();
    const rows = await driver().query('SELECT * FROM account_links');
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(made.token);
    expect(rows[0]?.['digest']).toBe(accountLinkDigest(made.token));
    expect(accountLinkDigest(made.token)).toMatch(/^[0-9a-f]{64}$/u);
  });
}

describe('links and outbox contract: createPostgresStore on PGlite in memory', () => {
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  describeLifecycleContract(() => open());
  describeSetEmailsContract(() => open());
  describeDigestOnly(() => driver, () => open());
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the links and outbox contract on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('links and outbox contract: createPostgresStore on a PostgreSQL server', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('lifecycle') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });
  describeLifecycleContract(() => open());
  describeSetEmailsContract(() => open());
  describeDigestOnly(() => driver, () => open());
});
