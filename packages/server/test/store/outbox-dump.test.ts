/**
 * Reading the whole database finds no live link: a reset link is made and its mail queued through `enqueueMail`
 * with the server's sealing, then every row of every table of the store's schema is read as JSON text
 * (`row_to_json`) and none holds the token, on PGlite and on a throwaway PostgreSQL server; on the memory store the
 * outbox rows are read. The mail still opens, with the token, under the server's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountLink } from '../../src/operations/account-links.js';
import { enqueueMail } from '../../src/operations/mail.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { mailSealing } from '../../src/store/sealed-mail.js';
import type { MailSealing } from '../../src/store/sealed-mail.js';
import type { Store } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import type { OpenedStore } from './contract.js';
import { createUser } from './contract/fixtures.js';

const random = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));

/** Makes a reset link for a new account and queues its mail as a server does; the token and the mail's text. */
async function queueResetMail(store: Store, sealing: MailSealing): Promise<{ readonly token: string; readonly text: string }> {
  const bob = await createUser(store, 'bob');
  const link = (await createAccountLink(store, { purpose: 'reset_password', userId: bob, email: null, ttlSeconds: 3600, now: 1_000, randomBytes: random }))._unsafeUnwrap();
  const queue: MailQueue = { enabled: () => true, capacity: 10, now: () => 1_000, log: () => undefined, wake: () => undefined, seal: sealing.seal };
  const text = `Open http://gatehouse.test/.auth/reset-password?token=${link.token} to set a new password.`;
  expect((await enqueueMail(queue, store, { to: 'bob@example.com', subject: 'Reset your password', text })).kind).toBe('queued');
  return { token: link.token, text };
}

/** Every row of every table of the store's schema, each as JSON text. */
async function dumpAllTables(driver: SqlDriver): Promise<readonly string[]> {
  const tables = await driver.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
  const rows: string[] = [];
  for (const table of tables) {
    const name = String(table['name']).replace(/"/gu, '""');
    for (const row of await driver.query(`SELECT row_to_json(t)::text AS row FROM "${name}" t`)) rows.push(String(row['row']));
  }
  return rows;
}

function describeDump(driver: () => SqlDriver, open: () => Promise<OpenedStore>): void {
  it('should hold the token in no row of any table, and the queued mail opens with the token under the server\'s key', async () => {
    const { store } = await open();
    const sealing = mailSealing(random(32), random);
    const { token, text } = await queueResetMail(store, sealing);
    const rows = await dumpAllTables(driver());
    expect(rows.some((row) => row.includes('bob@example.com'))).toBe(true);
    expect(rows.filter((row) => row.includes(token))).toStrictEqual([]);
    const [mail] = await store.outbox.list(10);
    expect(mail === undefined ? null : sealing.open(mail)).toStrictEqual({ kind: 'opened', text });
  });
}

describe('whole-store dump after a reset mail is queued: createMemoryStore', () => {
  it('should hold the token in no outbox row', async () => {
    const store = createMemoryStore();
    const sealing = mailSealing(random(32), random);
    const { token, text } = await queueResetMail(store, sealing);
    const mails = await store.outbox.list(10);
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails)).not.toContain(token);
    expect(mails[0] === undefined ? null : sealing.open(mails[0])).toStrictEqual({ kind: 'opened', text });
  });
});

describe('whole-store dump after a reset mail is queued: createPostgresStore on PGlite in memory', () => {
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  describeDump(() => driver, () => open());
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping the whole-store dump on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('whole-store dump after a reset mail is queued: createPostgresStore on a PostgreSQL server', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let open: () => Promise<OpenedStore>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('outbox_dump') });
    open = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
    await cluster.stop();
  });
  describeDump(() => driver, () => open());
});
