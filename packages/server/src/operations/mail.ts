/**
 * Queuing mail: {@link enqueueMail} writes one row to the store's outbox (inside the caller's transaction when it
 * is given one), its body sealed so that the stored row holds no usable link, and nudges the sender once the row is kept; it never sends, so a request never waits for the SMTP
 * relay. A full queue refuses the mail with a logged reason and the caller's action goes on: the mail is lost, not
 * the action (a site administrator can still make the link from Site admin → Users).
 *
 * @module
 */
import type { LogEntry } from '../kernel/logging.js';
import { afterCommit } from '../store/audited.js';
import type { Store } from '../store/types.js';

/** A message to send: plain text, one recipient. */
export interface MailMessage {
  /** The recipient's address. */
  readonly to: string;
  /** The subject line (one line). */
  readonly subject: string;
  /** The plain-text body. */
  readonly text: string;
}

/** What {@link enqueueMail} needs of the server (built once per server, `site.ts`). */
export interface MailQueue {
  /** Whether mail is on (`email.smtp` is set) in the configuration in effect. */
  readonly enabled: () => boolean;
  /** The most mails the outbox holds. */
  readonly capacity: number;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The log sink. */
  readonly log: (entry: LogEntry) => void;
  /** Asks the sender to look at the outbox soon. */
  readonly wake: () => void;
  /**
   * Seals the body before it is stored (`store/sealed-mail.ts`: AES-256-GCM, recipient and subject bound), so the
   * outbox never holds a link's live token in clear; `null` when sealing failed (nothing is queued then).
   */
  readonly seal: (mail: MailMessage) => string | null;
}

/** What became of a mail: queued (its outbox id), not queued because mail is off, or refused because the queue is full. */
export type EnqueueMailOutcome =
  | { readonly kind: 'queued'; readonly id: string }
  | { readonly kind: 'mail_off' }
  | { readonly kind: 'refused'; readonly reason: 'queue_full' | 'seal_failed' };

/** Header values are one line: line breaks would start headers of someone else's choosing. */
const oneLine = (text: string): string => text.replace(/[\r\n]+/gu, ' ');

/**
 * Queues a mail: one insert into `store.outbox` (pass the store of the transaction that makes the change, so the
 * mail is kept with it); the sender is nudged and `mail_queued` logged once it is kept. Resolves `mail_off` without
 * writing when `email.smtp` is unset, and `refused` (logged as `mail_refused`, reason `queue_full`) when the outbox
 * holds `capacity` mails. Never rejects for those; a store failure rejects as usual.
 *
 * @param queue - The server's mail queue.
 * @param store - The store, or the store of the caller's transaction.
 * @param message - Recipient, subject and text.
 * @returns What became of it.
 * @example
 * ```ts
 * await auditedTransaction(store, async (tx) => {
 *   await enqueueMail(queue, tx, { to: 'alice@example.com', subject: 'Verify your email address', text: `Open ${url}` });
 *   return ok(undefined);
 * });
 * ```
 */
export async function enqueueMail(queue: MailQueue, store: Pick<Store, 'outbox'>, message: MailMessage): Promise<EnqueueMailOutcome> {
  if (!queue.enabled()) return { kind: 'mail_off' };
  const to = oneLine(message.to);
  const subject = oneLine(message.subject);
  const sealed = queue.seal({ to, subject, text: message.text });
  if (sealed === null) {
    queue.log({ level: 'error', event: 'mail_refused', reason: 'seal_failed' });
    return { kind: 'refused', reason: 'seal_failed' };
  }
  const queued = await store.outbox.enqueue({ to, subject, text: sealed, createdAt: queue.now() }, queue.capacity);
  if (queued.isErr()) {
    queue.log({ level: 'warn', event: 'mail_refused', reason: 'queue_full', queued: queued.error.queued, capacity: queue.capacity });
    return { kind: 'refused', reason: 'queue_full' };
  }
  const id = queued.value.id;
  afterCommit(store, () => {
    queue.log({ level: 'info', event: 'mail_queued', id });
    queue.wake();
  });
  return { kind: 'queued', id };
}
