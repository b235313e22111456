/**
 * A real SMTP server for tests: `smtp-server` on 127.0.0.1 (a random port) offering STARTTLS with a self-signed
 * certificate made at run time by `openssl`, optional authentication (`PLAIN`, `CRAM-MD5`) with a known password,
 * and every accepted message parsed with mailparser's `simpleParser`. It can refuse every recipient (a 5xx reply) to
 * test retries, and be stopped to test a relay that is down.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** The user name and password the test server accepts. */
export const SMTP_TEST_USER = 'mailer';
/** The password the test server accepts (for PLAIN and CRAM-MD5). */
export const SMTP_TEST_PASSWORD = 'relay password 7';

/** One accepted message. */
export interface ReceivedMail {
  /** The parsed message. */
  readonly parsed: ParsedMail;
  /** The envelope sender. */
  readonly envelopeFrom: string;
  /** The envelope recipients. */
  readonly envelopeTo: readonly string[];
  /** Whether the session had switched to TLS (STARTTLS) when the message came. */
  readonly secure: boolean;
  /** The authentication method used, or `null`. */
  readonly authMethod: string | null;
  /** The authenticated user, or `null`. */
  readonly user: string | null;
}

/** Options of {@link startSmtpServer}. */
export interface SmtpServerOptions {
  /** Which authentication the server requires: none (any client may send), `PLAIN` or `CRAM-MD5`. Default none. */
  readonly authentication?: 'none' | 'PLAIN' | 'CRAM-MD5';
  /** Whether the server offers STARTTLS. Default true. */
  readonly starttls?: boolean;
}

/** A running test SMTP server. */
export interface TestSmtpServer {
  /** The port on 127.0.0.1. */
  readonly port: number;
  /** Every message accepted so far, oldest first. */
  readonly messages: readonly ReceivedMail[];
  /** How many times a recipient was refused (while `refuse` is set). */
  readonly refusals: () => number;
  /** Refuses every recipient with this reply code (such as 550) until set back to `null`. */
  refuse(code: number | null): void;
  /** Resolves with the first message (already received or to come) matching `predicate`; rejects after `timeoutMs`. */
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs: number): Promise<ReceivedMail>;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Whether `openssl` can be run; under `CI=true` a missing one fails instead of skipping. */
export function smtpAvailability(): { readonly run: boolean; readonly reason: string } {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return { run: true, reason: 'openssl found' };
  } catch {
    if (process.env['CI'] !== undefined && process.env['CI'] !== '') return { run: true, reason: 'CI is set: the SMTP tests must run (install openssl)' };
    return { run: false, reason: 'openssl is not installed (the test SMTP server makes its certificate with it)' };
  }
}

/** A self-signed certificate for `localhost` and 127.0.0.1, made now (EC P-256, valid one day). */
export function selfSignedCertificate(): { readonly key: Buffer; readonly cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-smtp-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts an SMTP server on 127.0.0.1 at a random port.
 *
 * @param options - Authentication and STARTTLS.
 * @returns The running server.
 * @example
 * ```ts
 * const smtp = await startSmtpServer({ authentication: 'PLAIN' });
 * const mail = await smtp.waitForMail((m) => m.parsed.subject === 'Hello', 10_000);
 * await smtp.stop();
 * ```
 */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const authentication = options.authentication ?? 'none';
  const starttls = options.starttls ?? true;
  const { key, cert } = selfSignedCertificate();
  const messages: ReceivedMail[] = [];
  const waiters: { readonly predicate: (mail: ReceivedMail) => boolean; readonly resolve: (mail: ReceivedMail) => void }[] = [];
  let refuseCode: number | null = null;
  let refusals = 0;
  const server = new SMTPServer({
    secure: false,
    key,
    cert,
    hideSTARTTLS: !starttls,
    authOptional: authentication === 'none',
    authMethods: authentication === 'none' ? ['PLAIN'] : [authentication],
    disabledCommands: authentication === 'none' ? ['AUTH'] : [],
    logger: false,
    size: 1024 * 1024,
    onAuth(auth, _session, callback) {
      const good =
        auth.username === SMTP_TEST_USER &&
        (auth.method === 'CRAM-MD5' ? auth.validatePassword(SMTP_TEST_PASSWORD) : auth.password === SMTP_TEST_PASSWORD);
      if (!good) return callback(new Error('Invalid username or password'));
      return callback(null, { user: auth.username });
    },
    onRcptTo(_address, _session, callback) {
      if (refuseCode === null) return callback();
      refusals += 1;
      return callback(Object.assign(new Error('Mailbox unavailable (refused by the test server)'), { responseCode: refuseCode }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const from = session.envelope.mailFrom;
          const mail: ReceivedMail = {
            parsed,
            envelopeFrom: from === false ? '' : from.address,
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            secure: session.secure,
            authMethod: authentication === 'none' ? null : authentication,
            user: typeof session.user === 'string' ? session.user : null,
          };
          messages.push(mail);
          for (const waiter of [...waiters]) {
            if (!waiter.predicate(mail)) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
          callback();
        },
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    refusals: () => refusals,
    refuse(code) {
      refuseCode = code;
    },
    waitForMail(predicate, timeoutMs) {
      const found = messages.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        const waiter = {
          predicate,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        waiters.push(waiter);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The first `http://` or `https://` link in a message's plain text.
 *
 * @param mail - A received message.
 * @returns The link.
 * @throws Error when the text has none.
 * @example
 * ```ts
 * const url = firstLink(await smtp.waitForMail((m) => m.envelopeTo.includes('a@example.com'), 10_000));
 * ```
 */
export function firstLink(mail: ReceivedMail): string {
  const text = mail.parsed.text ?? '';
  const found = /https?:\/\/[^\s<>"]+/u.exec(text);
  if (found === null) throw new Error(`the message has no link: ${JSON.stringify(text.slice(0, 200))}`);
  return found[0];
}
