/**
 * The account links and the mail queue as the lifecycle operations use them ({@link AccountLinkPorts}): the
 * store's single-use, digest-only links and the outbox, built once per site.
 *
 * @module
 */
import type { Store } from '../store/types.js';
import { consumeAccountLink, createAccountLink, peekAccountLink } from './account-links.js';
import { enqueueMail } from './mail.js';
import type { MailQueue } from './mail.js';
import type { AccountLinkPorts } from './password-reset.js';

/**
 * The ports over the store's account links and the outbox.
 *
 * @param options - The store, the mail queue (`null`: mail is never queued), the clock, the random source and the site's address.
 * @returns The ports.
 * @example
 * ```ts
 * const ports = accountLinkPorts({ store, mailQueue, now, randomBytes, baseURL: () => externalURL ?? listeningURL });
 * ```
 */
export function accountLinkPorts(options: {
  readonly store: Store;
  readonly mailQueue: MailQueue | null;
  readonly now: () => number;
  readonly randomBytes: (n: number) => Uint8Array;
  readonly baseURL: () => string;
}): AccountLinkPorts {
  const { store, mailQueue, now, randomBytes } = options;
  return {
    create: async (tx, purpose, userId, ttlSeconds) =>
      (await createAccountLink(tx, { purpose, userId, email: null, ttlSeconds, now: now(), randomBytes })).match(
        (created) => created.token,
        () => null,
      ),
    consume: async (tx, purpose, token) => (await consumeAccountLink(tx, purpose, token, now())).map((link) => link.userId).mapErr((refusal) => refusal.code),
    peek: async (purpose, token) => (await peekAccountLink(store, purpose, token, now())).map((link) => link.userId).mapErr((refusal) => refusal.code),
    latest: async (userId, purpose) => (await store.links.find(userId, purpose))?.createdAt ?? null,
    mailOn: () => mailQueue?.enabled() ?? false,
    enqueue: async (tx, to, subject, text) => mailQueue !== null && (await enqueueMail(mailQueue, tx, { to, subject, text })).kind === 'queued',
    baseURL: options.baseURL,
  };
}
