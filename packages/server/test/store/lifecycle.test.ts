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
import { enqueueMail } from '../../src/operations/mail.js';
import type { MailQueue } from '../../src/operations/mail.js';
import { mailSealing } from '../../src/store/sealed-mail.js';

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

/** A mail queued through `enqueueMail` holding a link's token. */
async function queueLinkMail(store: Store): Promise<{ token: string; sealing: ReturnType<typeof mailSealing> }> {
  const sealing = mailSealing(crypto.getRandomValues(new Uint8Array(32)), (n) => crypto.getRandomValues(new Uint8Array(n)));
  const queue: MailQueue = { enabled: () => true, capacity: 10, now: () => 1_000, log: () => undefined, wake: () => undefined, seal: sealing.seal };
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
  const queued = await enqueueMail(queue, store, { to: 'alice@example.com', subject: 'Reset your password', text: `Open http://gatehouse.test/.auth/reset-password?token=${token}` });
  expect(queued.kind).toBe('queued');
  return { token, sealing };
}

describe('the outbox holds no link in clear: createMemoryStore', () => {
  it('should keep the body sealed, opened only with the key and for the recipient it was sealed for', async () => {
    const store = createMemoryStore();
    const { token, sealing } = await queueLinkMail(store);
    const [mail] = await store.outbox.list(10);
    expect(JSON.stringify(await store.outbox.list(10))).not.toContain(token);
    expect(mail === undefined ? null : sealing.open(mail)).toStrictEqual({ kind: 'opened', text: `Open http://gatehouse.test/.auth/reset-password?token=${token}` });
    expect(mail === undefined ? null : sealing.open({ ...mail, to: 'mallory@example.com' })).toStrictEqual({ kind: 'unreadable' });
  });
});

/** On a database: no column of any outbox row holds the token; a row moved to another recipient does not open. */
function describeOutboxSealed(driver: () => SqlDriver, open: () => Promise<OpenedStore>): void {
  it('should keep no link\'s token in any column of mail_outbox, and refuse a body moved to another recipient', async () => {
    const { store }: { store: Store } = await open();
    const { token, sealing } = await queueLinkMail(store);
    const rows = await driver().query('SELECT row_to_json(t)::text AS row FROM mail_outbox t');
    expect(rows).toHaveLength(1);
    expect(String(rows[0]?.['row'])).not.toContain(token);
    expect(String(rows[0]?.['row'])).toContain('alice@example.com');
    const [mail] = await store.outbox.list(10);
    expect(mail === undefined ? null : sealing.open(mail)).toStrictEqual({ kind: 'opened', text: `Open http://gatehouse.test/.auth/reset-password?token=${token}` });
    await driver().query("UPDATE mail_outbox SET recipient = 'mallory@example.com'");
    const [moved] = await store.outbox.list(10);
    expect(moved === undefined ? null : sealing.open(moved)).toStrictEqual({ kind: 'unreadable' });
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
  describeOutboxSealed(() => driver, () => open());
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
  describeOutboxSealed(() => driver, () => open());
});
