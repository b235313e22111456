/**
 * Reading the whole database finds no live link: a reset link is made and its mail queued through `enqueueMail`
 * with the server's sealing, then every row of every table of the store's schema is read as JSON text
 * (`row_to_json`) and none holds the token, on PGlite and on a throwaway PostgreSQL server; on the memory store the
 * outbox rows are read. The mail still opens, with the token, under the server's key, and a sender holding the same
 * key (another instance given the same `GATEHOUSE_MAIL_KEY`) delivers it whole to an SMTP server on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMailSender } from '../../src/mail/sender.js';
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
import { smtpAvailability, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

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

const smtp = smtpAvailability();
if (!smtp.run) console.log(`skipping delivery after the whole-store dump: ${smtp.reason}`);
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/**
 * Sends the queued mail with a sender whose sealing is built anew from `rawKey` (as on another instance given the same
 * key) to an SMTP server on loopback; resolves with the text received, the outbox then empty.
 */
async function deliver(store: Store, rawKey: Uint8Array): Promise<string | null> {
  if (!smtp.run) return null;
  const server: TestSmtpServer = await startSmtpServer({ authentication: 'none' });
  stops.push(() => server.stop());
  const sender = createMailSender({
    store,
    email: () => ({ smtp: { host: '127.0.0.1', port: server.port, authentication: 'none', noVerifyTLS: true }, address: 'noreply@gatehouse.test', senderName: 'Gatehouse Test' }),
    now: Date.now,
    log: () => undefined,
    open: mailSealing(rawKey, random).open,
    intervalMs: 60_000,
  });
  stops.push(() => sender.stop());
  expect(await sender.run()).toStrictEqual({ sent: 1, retried: 0, gaveUp: 0 });
  const mail = await server.waitForMail((m) => m.parsed.subject === 'Reset your password', 10_000);
  expect(mail.envelopeTo).toStrictEqual(['bob@example.com']);
  expect(await store.outbox.count()).toBe(0);
  return mail.parsed.text ?? '';
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
  it('should hold the token in no row of any table; the queued mail opens under the server\'s key and arrives whole at the SMTP server', async () => {
    const { store } = await open();
    const rawKey = random(32);
    const sealing = mailSealing(rawKey, random);
    const { token, text } = await queueResetMail(store, sealing);
    const rows = await dumpAllTables(driver());
    expect(rows.some((row) => row.includes('bob@example.com'))).toBe(true);
    expect(rows.filter((row) => row.includes(token))).toStrictEqual([]);
    const [mail] = await store.outbox.list(10);
    expect(mail === undefined ? null : sealing.open(mail)).toStrictEqual({ kind: 'opened', text });
    const received = await deliver(store, rawKey);
    if (received !== null) expect(received.trim()).toBe(text);
  });
}

describe('whole-store dump after a reset mail is queued: createMemoryStore', () => {
  it('should hold the token in no outbox row, and the mail arrives whole at the SMTP server', async () => {
    const store = createMemoryStore();
    const rawKey = random(32);
    const sealing = mailSealing(rawKey, random);
    const { token, text } = await queueResetMail(store, sealing);
    const mails = await store.outbox.list(10);
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails)).not.toContain(token);
    expect(mails[0] === undefined ? null : sealing.open(mails[0])).toStrictEqual({ kind: 'opened', text });
    const received = await deliver(store, rawKey);
    if (received !== null) expect(received.trim()).toBe(text);
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
