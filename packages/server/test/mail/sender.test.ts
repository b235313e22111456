/**
 * The mail sender against a real SMTP server on loopback (STARTTLS on a certificate made at run time): each
 * authentication of `email.smtp`, the relay's certificate checked unless `noVerifyTLS`, retries with backoff then
 * giving up when the relay refuses or is down (each failure logged with its reason and counted in the metrics), and
 * the queue's bound refusing a mail without failing the action that asked for it.
 */
import { ok } from 'neverthrow';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmailConfiguration, SmtpAuthentication } from 'gatehouse-auth';
import type { LogEntry } from '../../src/kernel/logging.js';
import { createMetrics } from '../../src/kernel/metrics.js';
import { createMailSender, type MailSender } from '../../src/mail/sender.js';
import { enqueueMail, type MailQueue } from '../../src/operations/mail.js';
import { auditedTransaction } from '../../src/store/audited.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { freePort } from '../helpers/free-port.js';
import { SMTP_TEST_PASSWORD, SMTP_TEST_USER, smtpAvailability, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { TEST_MAIL_SEALING } from '../helpers/mail-sealing.js';
import { mailSealing } from '../../src/store/sealed-mail.js';

const availability = smtpAvailability();
if (!availability.run) console.log(`skipping the mail sender tests: ${availability.reason}`);

function emailFor(port: number, authentication: SmtpAuthentication, noVerifyTLS = true): EmailConfiguration {
  const credentials = authentication === 'none' ? {} : { username: SMTP_TEST_USER, password: SMTP_TEST_PASSWORD };
  return {
    smtp: { host: '127.0.0.1', port, authentication, ...credentials, domain: 'gatehouse.test', noVerifyTLS },
    address: 'noreply@gatehouse.test',
    senderName: 'Gatehouse Test',
  };
}

/** Polls `check` every 20 ms until it holds, at most `timeoutMs`. */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.runIf(availability.run)('mail sender over SMTP on loopback', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function setup(email: EmailConfiguration, bounds: { maxAttempts?: number; retryBaseMs?: number; capacity?: number } = {}) {
    const store: Store = createMemoryStore();
    const logs: LogEntry[] = [];
    const metrics = createMetrics();
    metrics.mailQueueDepth(() => store.outbox.count());
    const log = (entry: LogEntry): void => {
      metrics.observe(entry);
      logs.push(entry);
    };
    const sender: MailSender = createMailSender({ open: TEST_MAIL_SEALING.open,
      store,
      email: () => email,
      now: Date.now,
      log,
      maxAttempts: bounds.maxAttempts ?? 3,
      retryBaseMs: bounds.retryBaseMs ?? 20,
      retryMaxMs: 200,
      intervalMs: 50,
      timeouts: { connectionMs: 2_000, greetingMs: 2_000, socketMs: 5_000 },
    });
    cleanups.push(() => sender.stop());
    const queue: MailQueue = { seal: TEST_MAIL_SEALING.seal, enabled: () => email.smtp !== null, capacity: bounds.capacity ?? 100, now: Date.now, log, wake: () => sender.wake() };
    return { store, logs, metrics, sender, queue };
  }

  async function smtp(authentication: 'none' | 'PLAIN' | 'CRAM-MD5'): Promise<TestSmtpServer> {
    const server = await startSmtpServer({ authentication });
    cleanups.push(() => server.stop());
    return server;
  }

  it.each(['none', 'PLAIN', 'CRAM-MD5'] as const)('should deliver over STARTTLS with authentication %s', async (authentication) => {
    const server = await smtp(authentication);
    const { store, queue, logs } = setup(emailFor(server.port, authentication));
    const queued = await enqueueMail(queue, store, { to: 'alice@example.com', subject: `Hello ${authentication}`, text: 'Open https://gatehouse.test/x?token=abc\n' });
    expect(queued.kind).toBe('queued');
    const mail = await server.waitForMail((m) => m.parsed.subject === `Hello ${authentication}`, 15_000);
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe(authentication === 'none' ? null : SMTP_TEST_USER);
    expect(mail.envelopeFrom).toBe('noreply@gatehouse.test');
    expect(mail.envelopeTo).toStrictEqual(['alice@example.com']);
    expect(mail.parsed.from?.value).toStrictEqual([{ address: 'noreply@gatehouse.test', name: 'Gatehouse Test' }]);
    expect(mail.parsed.text).toContain('https://gatehouse.test/x?token=abc');
    await until(async () => (await store.outbox.count()) === 0, 5_000);
    expect(logs.filter((e) => e.event === 'mail_sent')).toHaveLength(1);
  });

  it('should refuse the relay\'s self-signed certificate unless noVerifyTLS, and log the reason without the body', async () => {
    const server = await smtp('none');
    const { store, queue, logs, sender } = setup(emailFor(server.port, 'none', false), { maxAttempts: 1 });
    await enqueueMail(queue, store, { to: 'bob@example.com', subject: 'Cert', text: 'secret-link-token-xyz' });
    await until(() => logs.some((e) => e.event === 'mail_gave_up'), 10_000);
    await sender.stop();
    expect(server.messages).toHaveLength(0);
    const failed = logs.find((e) => e.event === 'mail_failed');
    expect(failed?.['reason']).toBe('ESOCKET');
    expect(JSON.stringify(logs)).not.toContain('secret-link-token-xyz');
  });

  it('should retry a refused mail with backoff, then give up: each failure logged with 550 and counted', async () => {
    const server = await smtp('PLAIN');
    server.refuse(550);
    const { store, queue, logs, metrics } = setup(emailFor(server.port, 'PLAIN'), { maxAttempts: 3, retryBaseMs: 20 });
    await enqueueMail(queue, store, { to: 'carol@example.com', subject: 'Refused', text: 'secret-link-token-abc' });
    await until(() => logs.some((e) => e.event === 'mail_gave_up'), 15_000);
    const failures = logs.filter((e) => e.event === 'mail_failed');
    expect(failures.map((e) => [e['attempt'], e['responseCode'], e['reason']])).toStrictEqual([
      [1, 550, 'EENVELOPE'],
      [2, 550, 'EENVELOPE'],
      [3, 550, 'EENVELOPE'],
    ]);
    // exponential backoff: the pause doubles, and the last failure has none
    expect(failures.map((e) => e['retryInMs'])).toStrictEqual([20, 40, null]);
    expect(server.refusals()).toBe(3);
    expect(await store.outbox.count()).toBe(0);
    const text = await metrics.text();
    expect(text).toMatch(/gatehouse_mail_failures_total\{reason="EENVELOPE"\} 3/u);
    expect(text).toMatch(/gatehouse_mails_given_up_total 1/u);
    expect(text).toMatch(/gatehouse_mail_queued 0/u);
    expect(JSON.stringify(logs)).not.toContain('secret-link-token-abc');
  });

  it('should leave a mail sealed by another instance\'s key for it, then drop it past the retry horizon with the reason', async () => {
    const server = await smtp('none');
    const { store, queue, logs, sender, metrics } = setup(emailFor(server.port, 'none'), { maxAttempts: 3 });
    const otherInstance = mailSealing(new Uint8Array(32).fill(9), (n) => crypto.getRandomValues(new Uint8Array(n)));
    await enqueueMail({ ...queue, seal: otherInstance.seal, wake: () => undefined }, store, { to: 'dan@example.com', subject: 'Foreign', text: 'secret-link-token-foreign' });
    await sender.run();
    // not sent, not dropped: released for the instance holding the key
    expect(server.messages).toHaveLength(0);
    const [kept] = await store.outbox.list(10);
    expect(kept?.lastError).toMatch(/^sealed with key [0-9a-f]{16}, which this instance does not hold$/u);
    // left without counting an attempt: the instance that holds the key gets all of its own
    expect(kept?.attempts).toBe(0);
    // past maxAttempts × retryMaxMs (3 × 200 ms) since it was queued, no instance would still send it
    await until(() => logs.some((e) => e.event === 'mail_dropped'), 10_000);
    const dropped = logs.find((e) => e.event === 'mail_dropped');
    expect(dropped).toMatchObject({ level: 'warn', event: 'mail_dropped', id: kept?.id, reason: 'sealed_by_unknown_key' });
    expect(await store.outbox.count()).toBe(0);
    expect(server.messages).toHaveLength(0);
    expect(await metrics.text()).toMatch(/gatehouse_mails_dropped_total\{reason="sealed_by_unknown_key"\} 1/u);
    expect(logs.some((e) => e.event === 'mail_gave_up')).toBe(false);
    expect(JSON.stringify(logs)).not.toContain('secret-link-token-foreign');
  });

  it('should drop a body that does not open for its recipient (moved or changed) at once, logged as unreadable, never sending it', async () => {
    const server = await smtp('none');
    const { store, queue, logs, sender, metrics } = setup(emailFor(server.port, 'none'));
    // sealed for one recipient, stored under another: what a row whose recipient was changed in the database holds
    const moved = (mail: { to: string; subject: string; text: string }): string | null => TEST_MAIL_SEALING.seal({ ...mail, to: 'victim@example.com' });
    await enqueueMail({ ...queue, seal: moved, wake: () => undefined }, store, { to: 'mallory@example.com', subject: 'Moved', text: 'secret-link-token-moved' });
    await enqueueMail({ ...queue, seal: () => 'not a sealed body', wake: () => undefined }, store, { to: 'mallory@example.com', subject: 'Plain', text: 'x' });
    const round = await sender.run();
    expect(round).toStrictEqual({ sent: 0, retried: 0, gaveUp: 2 });
    expect(logs.filter((e) => e.event === 'mail_dropped').map((e) => [e.level, e['reason']])).toStrictEqual([
      ['warn', 'unreadable'],
      ['warn', 'unreadable'],
    ]);
    expect(await metrics.text()).toMatch(/gatehouse_mails_dropped_total\{reason="unreadable"\} 2/u);
    expect(await store.outbox.count()).toBe(0);
    expect(server.messages).toHaveLength(0);
  });

  it('should deliver on a later attempt once the relay accepts again', async () => {
    const server = await smtp('CRAM-MD5');
    server.refuse(451);
    const { store, queue, logs } = setup(emailFor(server.port, 'CRAM-MD5'), { maxAttempts: 5, retryBaseMs: 30 });
    await enqueueMail(queue, store, { to: 'dave@example.com', subject: 'Later', text: 'hello' });
    await until(() => logs.some((e) => e.event === 'mail_failed'), 10_000);
    server.refuse(null);
    const mail = await server.waitForMail((m) => m.parsed.subject === 'Later', 15_000);
    expect(mail.envelopeTo).toStrictEqual(['dave@example.com']);
    await until(() => logs.some((e) => e.event === 'mail_sent'), 5_000);
    const sent = logs.find((e) => e.event === 'mail_sent');
    expect(sent?.['attempts']).toBeGreaterThanOrEqual(2);
  });

  it('should retry while the relay is down, then give up with the connection failure', async () => {
    const port = await freePort();
    const { store, queue, logs, metrics } = setup(emailFor(port, 'none'), { maxAttempts: 2, retryBaseMs: 20 });
    await enqueueMail(queue, store, { to: 'erin@example.com', subject: 'Down', text: 'hello' });
    await until(() => logs.some((e) => e.event === 'mail_gave_up'), 15_000);
    const reasons = logs.filter((e) => e.event === 'mail_failed').map((e) => String(e['reason']));
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) expect(reason).toMatch(/^E(SOCKET|CONNECTION)$/u);
    expect(await metrics.text()).toMatch(/gatehouse_mails_given_up_total 1/u);
  });

  it('should refuse a mail beyond the queue\'s bound with a logged reason, and keep the action that asked for it', async () => {
    // mail on, but a relay that never answers in time is not needed: the sender is stopped so nothing leaves the queue
    const { store, queue, logs, metrics, sender } = setup(emailFor(1, 'none'), { capacity: 2 });
    await sender.stop();
    const account = (await store.accounts.create({ usernames: ['frank'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 }))._unsafeUnwrap();
    const outcomes: string[] = [];
    for (const n of [1, 2, 3]) {
      const done = await auditedTransaction(store, async (tx) => {
        const outcome = await enqueueMail(queue, tx, { to: `f${n}@example.com`, subject: `Mail ${n}`, text: 'x' });
        outcomes.push(outcome.kind);
        await tx.audit.append({ timestamp: n, entity: 'user', action: 'test_action', reason: null, actorUserId: account.id, subjectUserId: account.id, details: { n: String(n) } });
        return ok(n);
      });
      expect(done.isOk()).toBe(true);
    }
    expect(outcomes).toStrictEqual(['queued', 'queued', 'refused']);
    expect(await store.outbox.count()).toBe(2);
    expect((await store.audit.list(10, { action: 'test_action' })).map((e) => e.details['n'])).toStrictEqual(['3', '2', '1']);
    expect(logs.find((e) => e.event === 'mail_refused')).toMatchObject({ level: 'warn', reason: 'queue_full', queued: 2, capacity: 2 });
    expect(await metrics.text()).toMatch(/gatehouse_mails_refused_total\{reason="queue_full"\} 1/u);
  });

  it('should queue nothing while mail is off', async () => {
    const { store, queue } = setup({ smtp: null, address: null, senderName: 'gatehouse' });
    expect(await enqueueMail(queue, store, { to: 'g@example.com', subject: 'Off', text: 'x' })).toStrictEqual({ kind: 'mail_off' });
    expect(await store.outbox.count()).toBe(0);
  });
});
