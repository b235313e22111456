/**
 * The mail sender: one per server, whatever reloads happen. It claims due mails from the store's outbox (a lease,
 * so senders on several instances sharing the database never take the same mail), sends each with nodemailer
 * through the relay of `email.smtp` (STARTTLS whenever the relay offers it), deletes what was sent, and after a
 * failure lets the core's `decideMailRetry` say when to try again (exponential backoff) or to give up. It runs on
 * a timer and when {@link MailSender.wake} is called (after a mail is queued); it never runs inside a request.
 *
 * Every failure is logged with its reason (nodemailer's error code, the relay's reply code and first line), never
 * with the message's body, which may hold a link's token. A queued body is sealed (`store/sealed-mail.ts`): one
 * sealed by a key this instance does not hold is left to the instance that holds it (the claim released, no attempt
 * counted) until the retry window has passed, then dropped (`mail_dropped`, reason `sealed_by_unknown_key`); one
 * that does not open is dropped at once (reason `unreadable`). The action that asked for a mail is never undone.
 *
 * @module
 */
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { decideMailRetry, DEFAULT_MAIL_MAX_ATTEMPTS, DEFAULT_MAIL_RETRY_BASE_MS, DEFAULT_MAIL_RETRY_MAX_MS } from 'gatehouse-auth';
import type { EmailConfiguration, SmtpConfiguration } from 'gatehouse-auth';
import type { LogEntry } from '../kernel/logging.js';
import type { OutboxMail } from '../store/lifecycle-types.js';
import type { OpenedMail } from '../store/sealed-mail.js';
import type { Store } from '../store/types.js';

/** Options of {@link createMailSender}; the defaults suit production. */
export interface MailSenderOptions {
  /** The store whose outbox it empties. */
  readonly store: Pick<Store, 'outbox'>;
  /** The mail options in effect (read at every run, so a reload applies at once). */
  readonly email: () => EmailConfiguration;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The log sink. */
  readonly log: (entry: LogEntry) => void;
  /** Opens a queued mail's sealed body (`store/sealed-mail.ts`). */
  readonly open: (mail: OutboxMail) => OpenedMail;
  /** Attempts at one mail before it is given up. Default {@link DEFAULT_MAIL_MAX_ATTEMPTS}. */
  readonly maxAttempts?: number;
  /** The pause after the first failure, in milliseconds. Default {@link DEFAULT_MAIL_RETRY_BASE_MS}. */
  readonly retryBaseMs?: number;
  /** The longest pause, in milliseconds. Default {@link DEFAULT_MAIL_RETRY_MAX_MS}. */
  readonly retryMaxMs?: number;
  /** How often it looks at the outbox without being woken, in milliseconds. Default 30,000. */
  readonly intervalMs?: number;
  /** How long a claimed mail is held by this sender, in milliseconds. Default 120,000 (longer than one send may take). */
  readonly leaseMs?: number;
  /** Mails claimed per round. Default 20. */
  readonly batchSize?: number;
  /** Timeouts of one SMTP conversation, in milliseconds (connect, greeting, idle socket). Default 10,000, 10,000, 30,000. */
  readonly timeouts?: { readonly connectionMs?: number; readonly greetingMs?: number; readonly socketMs?: number };
}

/** What one round did. */
export interface MailRound {
  /** Mails sent. */
  readonly sent: number;
  /** Mails that failed and will be tried again. */
  readonly retried: number;
  /** Mails given up after their last attempt. */
  readonly gaveUp: number;
}

/** The running sender. */
export interface MailSender {
  /** Looks at the outbox soon (a round starts on the next turn of the event loop, or after the one running). */
  wake(): void;
  /** Runs one round now (rounds never overlap: a call during a round waits for it and runs another). */
  run(): Promise<MailRound>;
  /** Stops the timer; resolves once the round in progress (if any) ends. */
  stop(): Promise<void>;
}

/**
 * nodemailer's options for the relay of `email.smtp`: STARTTLS whenever the relay offers it (`requireTLS: false`,
 * `ignoreTLS: false`), implicit TLS on port 465, `PLAIN` or `CRAM-MD5` authentication, and the relay's certificate
 * checked unless `noVerifyTLS`.
 *
 * @param smtp - `email.smtp`.
 * @param timeouts - The conversation's timeouts.
 * @returns The options of `nodemailer.createTransport`.
 * @example
 * ```ts
 * transportOptions({ host: 'smtp.example.com', port: 587, authentication: 'none', noVerifyTLS: false }).requireTLS; // false
 * ```
 */
export function transportOptions(smtp: SmtpConfiguration, timeouts: MailSenderOptions['timeouts'] = {}): SMTPTransport.Options {
  const auth =
    smtp.authentication === 'none'
      ? {}
      : { auth: { user: smtp.username ?? '', pass: smtp.password ?? '' }, authMethod: smtp.authentication };
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.port === 465,
    requireTLS: false,
    ignoreTLS: false,
    ...(smtp.domain === undefined ? {} : { name: smtp.domain }),
    ...auth,
    tls: { rejectUnauthorized: !smtp.noVerifyTLS },
    connectionTimeout: timeouts.connectionMs ?? 10_000,
    greetingTimeout: timeouts.greetingMs ?? 10_000,
    socketTimeout: timeouts.socketMs ?? 30_000,
  };
}

/** The reason of a failed send, without anything of the message: nodemailer's code, the reply code and its first line. */
function failureOf(error: unknown): { readonly reason: string; readonly responseCode: number | null; readonly detail: string } {
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = typeof fields['code'] === 'string' ? fields['code'] : error instanceof Error ? error.name : 'unknown';
  const responseCode = typeof fields['responseCode'] === 'number' ? fields['responseCode'] : null;
  const response = typeof fields['response'] === 'string' ? fields['response'] : error instanceof Error ? error.message : '';
  return { reason: code, responseCode, detail: (response.split(/\r?\n/u, 1)[0] ?? '').slice(0, 200) };
}

const sameRelay = (a: SmtpConfiguration, b: SmtpConfiguration): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Creates and starts the mail sender of one server.
 *
 * @param options - The store, the mail options, the clock, the log, and the bounds.
 * @returns The sender; call `stop()` when the server closes.
 * @example
 * ```ts
 * const sender = createMailSender({ store, email: () => site.configuration.email, now: Date.now, log });
 * sender.wake(); // after a mail was queued
 * ```
 */
export function createMailSender(options: MailSenderOptions): MailSender {
  const { store, log, now } = options;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAIL_MAX_ATTEMPTS;
  const retryBaseMs = options.retryBaseMs ?? DEFAULT_MAIL_RETRY_BASE_MS;
  const retryMaxMs = Math.max(retryBaseMs, options.retryMaxMs ?? DEFAULT_MAIL_RETRY_MAX_MS);
  const intervalMs = options.intervalMs ?? 30_000;
  const leaseMs = options.leaseMs ?? 120_000;
  const batchSize = options.batchSize ?? 20;
  let transport: { readonly smtp: SmtpConfiguration; readonly transporter: Transporter<SMTPTransport.SentMessageInfo> } | null = null;
  let running: Promise<MailRound> | null = null;
  let again = false;
  let stopped = false;
  let soon: NodeJS.Timeout | null = null;
  // the shortest pause before a retry decided in the round running, for its next round
  let nextRetryMs = Number.POSITIVE_INFINITY;

  // nodemailer is loaded with the first mail, not with the server: a site without email never pays for it at start
  const transporterFor = async (smtp: SmtpConfiguration): Promise<Transporter<SMTPTransport.SentMessageInfo>> => {
    if (transport !== null && sameRelay(transport.smtp, smtp)) return transport.transporter;
    const { default: nodemailer } = await import('nodemailer');
    if (transport !== null && sameRelay(transport.smtp, smtp)) return transport.transporter;
    transport?.transporter.close();
    const transporter = nodemailer.createTransport(transportOptions(smtp, options.timeouts));
    transport = { smtp, transporter };
    return transporter;
  };

  // how long a mail sealed by another instance's key is left for that instance: past the longest its own retries take
  const foreignHorizonMs = maxAttempts * retryMaxMs;

  const sendOne = async (mail: OutboxMail, email: EmailConfiguration, smtp: SmtpConfiguration): Promise<'sent' | 'retried' | 'gave_up'> => {
    const opened = options.open(mail);
    if (opened.kind === 'other_key' && now() - mail.createdAt < foreignHorizonMs) {
      // another instance's mail (instances without one GATEHOUSE_MAIL_KEY): released for it to claim, no attempt counted
      await store.outbox.release(mail.id, now() + intervalMs, `sealed with key ${opened.keyId}, which this instance does not hold`);
      return 'retried';
    }
    if (opened.kind !== 'opened') {
      // a body no instance here can open (a key gone with a restart), or one that was changed or moved to another
      // recipient: dropped with its reason; the action that asked for it stands (the link can be asked for again)
      await store.outbox.delete(mail.id);
      const reason = opened.kind === 'other_key' ? 'sealed_by_unknown_key' : 'unreadable';
      log({ level: 'warn', event: 'mail_dropped', id: mail.id, attempts: mail.attempts, reason });
      return 'gave_up';
    }
    try {
      await (await transporterFor(smtp)).sendMail({
        from: { name: email.senderName, address: email.address ?? '' },
        to: mail.to,
        subject: mail.subject,
        text: opened.text,
        // the envelope sender is the configured address, whatever the display name
        envelope: { from: email.address ?? '', to: mail.to },
      });
      await store.outbox.delete(mail.id);
      log({ level: 'info', event: 'mail_sent', id: mail.id, attempts: mail.attempts });
      return 'sent';
    } catch (error: unknown) {
      const failure = failureOf(error);
      const decided = decideMailRetry({ attempts: mail.attempts, maxAttempts, baseDelayMs: retryBaseMs, maxDelayMs: retryMaxMs, now: now() });
      const retry = decided.isOk() && decided.value.kind === 'retry' ? decided.value : null;
      log({
        level: 'warn',
        event: 'mail_failed',
        id: mail.id,
        attempt: mail.attempts,
        reason: failure.reason,
        responseCode: failure.responseCode,
        detail: failure.detail,
        retryInMs: retry === null ? null : retry.delayMs,
      });
      if (retry !== null) {
        nextRetryMs = Math.min(nextRetryMs, retry.delayMs);
        await store.outbox.retryLater(mail.id, retry.nextAttemptAt, `${failure.reason}${failure.responseCode === null ? '' : ` ${failure.responseCode}`}: ${failure.detail}`.slice(0, 300));
        return 'retried';
      }
      // given up: the mail leaves the queue (its body may hold a link's token); the action that asked for it stands
      await store.outbox.delete(mail.id);
      log({ level: 'error', event: 'mail_gave_up', id: mail.id, attempts: mail.attempts, reason: failure.reason, responseCode: failure.responseCode });
      return 'gave_up';
    }
  };

  const round = async (): Promise<MailRound> => {
    const email = options.email();
    const smtp = email.smtp;
    if (smtp === null || email.address === null) return { sent: 0, retried: 0, gaveUp: 0 };
    let sent = 0;
    let retried = 0;
    let gaveUp = 0;
    nextRetryMs = Number.POSITIVE_INFINITY;
    // bounded: at most ten batches per round; what remains waits for the next round
    for (let batch = 0; batch < 10 && !stopped; batch += 1) {
      const claimed = await store.outbox.claim(now(), leaseMs, batchSize);
      for (const mail of claimed) {
        const outcome = await sendOne(mail, email, smtp);
        if (outcome === 'sent') sent += 1;
        else if (outcome === 'retried') retried += 1;
        else gaveUp += 1;
      }
      if (claimed.length < batchSize) break;
    }
    if (retried > 0) later(Math.min(intervalMs, nextRetryMs));
    return { sent, retried, gaveUp };
  };

  const run = (): Promise<MailRound> => {
    if (running !== null) {
      again = true;
      return running.then(() => run());
    }
    const current = round()
      .catch((error: unknown) => {
        log({ level: 'error', event: 'mail_round_failed', name: error instanceof Error ? error.name : typeof error });
        return { sent: 0, retried: 0, gaveUp: 0 };
      })
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          later(0);
        }
      });
    running = current;
    return current;
  };

  function later(ms: number): void {
    if (stopped || (soon !== null && ms > 0)) return;
    if (soon !== null) clearTimeout(soon);
    soon = setTimeout(() => {
      soon = null;
      void run();
    }, ms);
    soon.unref();
  }

  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();

  return {
    wake: () => later(0),
    run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (soon !== null) clearTimeout(soon);
      soon = null;
      await running?.catch(() => undefined);
      transport?.transporter.close();
      transport = null;
    },
  };
}
