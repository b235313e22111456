/**
 * The store contract's account links and mail outbox: single-use, expiring links kept by the SHA-256 digest of
 * their token, and the bounded queue of mail waiting to be sent. Part of the {@link Store} contract
 * (`store.links`, `store.outbox`), in a file of its own.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AccountLinkPurpose, AccountLinkRefusalReason } from 'gatehouse-auth';
import type { StoreError } from './types.js';

/** A stored account link. The token itself is never stored: only its digest. */
export interface AccountLinkRecord {
  /** Opaque identifier, safe to show and to log. */
  readonly id: string;
  /** What the link does. */
  readonly purpose: AccountLinkPurpose;
  /** The account it acts on. */
  readonly userId: string;
  /** For `verify_email`: the address it verifies; else `null`. */
  readonly email: string | null;
  /** Lower-case hex SHA-256 digest of the token. */
  readonly digest: string;
  /** When it was made, milliseconds since the epoch. */
  readonly createdAt: number;
  /** When it stops working, milliseconds since the epoch. */
  readonly expiresAt: number;
  /** When it was used, or `null` while unused. */
  readonly usedAt: number | null;
}

/** The input of {@link AccountLinkStore.create}. */
export type NewAccountLink = Omit<AccountLinkRecord, 'id' | 'usedAt'>;

/** Why {@link AccountLinkStore.consume} refused (nothing was changed). */
export interface AccountLinkRefusal {
  /** The core's reason: `unknown_link`, `link_used`, `link_expired` or `wrong_purpose`. */
  readonly code: AccountLinkRefusalReason;
}

/**
 * Account links by digest. At most one link per account and purpose exists: making one deletes the earlier ones
 * (their tokens then answer `unknown_link`).
 */
export interface AccountLinkStore {
  /**
   * Stores a new link and, in the same atomic step, deletes the account's earlier links of the same purpose
   * (`unknown_user` without the account, `duplicate_digest` when the digest exists).
   */
  create(input: NewAccountLink): Promise<Result<AccountLinkRecord, StoreError>>;
  /**
   * Single use: if the link with this digest may be used for `purpose` at `now` (the core's `decideAccountLinkUse`),
   * marks it used at `now` and resolves it; else resolves the reason and changes nothing. Among concurrent callers
   * at most one gets the link.
   */
  consume(purpose: AccountLinkPurpose, digest: string, now: number): Promise<Result<AccountLinkRecord, AccountLinkRefusal>>;
  /** The link with this digest (used, expired or not), or `null`. */
  findByDigest(digest: string): Promise<AccountLinkRecord | null>;
  /** The account's link of this purpose, or `null`. */
  find(userId: string, purpose: AccountLinkPurpose): Promise<AccountLinkRecord | null>;
  /** Deletes at most `limit` links with `expiresAt` at or before `expiredBy`; fewer only when none remain. */
  purgeExpired(expiredBy: number, limit: number): Promise<number>;
}

/** A mail waiting in the outbox. */
export interface OutboxMail {
  /** Opaque identifier (a decimal integer from 1), safe to log. */
  readonly id: string;
  /** The recipient's address. */
  readonly to: string;
  /** The subject line. */
  readonly subject: string;
  /** The body, sealed by the mail queue (`store/sealed-mail.ts`; it holds a link's token: never logged, deleted once sent or given up). */
  readonly text: string;
  /** When it was queued, milliseconds since the epoch. */
  readonly createdAt: number;
  /** Attempts started so far (a claim counts one). */
  readonly attempts: number;
  /** Not tried before this time, milliseconds since the epoch. */
  readonly nextAttemptAt: number;
  /** Held by a sender until this time (0 when no sender holds it): no other sender claims it before. */
  readonly claimedUntil: number;
  /** Why the last attempt failed, or `null`. */
  readonly lastError: string | null;
}

/** The input of {@link OutboxStore.enqueue}. */
export type NewOutboxMail = Pick<OutboxMail, 'to' | 'subject' | 'text' | 'createdAt'>;

/** Why {@link OutboxStore.enqueue} refused (nothing was changed). */
export interface OutboxRefusal {
  /** The queue holds `capacity` mails already. */
  readonly code: 'outbox_full';
  /** How many it holds. */
  readonly queued: number;
}

/**
 * The bounded queue of mail. Senders on several instances share it: a claimed mail is held by one sender until its
 * claim ends, so each mail is sent once (a sender that dies mid-send leaves it to be claimed again after the claim).
 */
export interface OutboxStore {
  /** Queues a mail, due at once, unless the queue holds `capacity` mails already (`outbox_full`). */
  enqueue(mail: NewOutboxMail, capacity: number): Promise<Result<OutboxMail, OutboxRefusal>>;
  /**
   * Claims at most `limit` due mails (`nextAttemptAt` and `claimedUntil` at or before `now`), oldest first: each gets
   * `claimedUntil = now + leaseMs` and one more attempt. Concurrent claimers never get the same mail.
   */
  claim(now: number, leaseMs: number, limit: number): Promise<readonly OutboxMail[]>;
  /** Removes a sent mail; returns whether it was there. */
  delete(id: string): Promise<boolean>;
  /** Releases a claimed mail after a failed attempt, due again at `nextAttemptAt`, with the reason; returns whether it was there. */
  retryLater(id: string, nextAttemptAt: number, error: string): Promise<boolean>;
  /**
   * Releases a claimed mail this sender leaves to another (sealed by a key it does not hold), due again at
   * `nextAttemptAt`, with the reason: the claim's attempt is taken back, so the sender that sends it has all of its
   * attempts. Returns whether it was there.
   */
  release(id: string, nextAttemptAt: number, reason: string): Promise<boolean>;
  /** How many mails are queued (claimed or not). */
  count(): Promise<number>;
  /** The mails queued, oldest first, at most `limit` (administration and tests). */
  list(limit: number): Promise<readonly OutboxMail[]>;
}
