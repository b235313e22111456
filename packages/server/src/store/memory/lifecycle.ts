/**
 * The memory store's account links and mail outbox: links by digest with one per account and purpose, and the
 * outbox in queue order with its bound and its claims.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import { decideAccountLinkUse, decideMailEnqueue } from 'gatehouse-auth';
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';
import { boundOf } from './tokens.js';
import type { AccountLinkRecord, AccountLinkStore, OutboxMail, OutboxStore } from '../lifecycle-types.js';

const copyLink = (l: AccountLinkRecord): AccountLinkRecord => ({ ...l });
const copyMail = (m: OutboxMail): OutboxMail => ({ ...m });

/**
 * Creates the account-link part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @param owners - Which accounts exist.
 * @returns The synchronous operations, plus the cascade of an account's deletion.
 * @example
 * ```ts
 * const links = createMemoryLinks(journal, users);
 * ```
 * @internal
 */
export function createMemoryLinks(
  journal: Journal,
  owners: { readonly has: (userId: string) => boolean },
): Sync<AccountLinkStore> & { deleteForUser(userId: string): void } {
  const links = new TrackedMap<string, AccountLinkRecord>(journal);
  const idByDigest = new TrackedMap<string, string>(journal);
  let nextId = 1;
  const forget = (record: AccountLinkRecord): void => {
    links.delete(record.id);
    idByDigest.delete(record.digest);
  };
  const byDigest = (digest: string): AccountLinkRecord | null => {
    const id = idByDigest.get(digest);
    const link = id === undefined ? undefined : links.get(id);
    return link === undefined ? null : link;
  };
  return {
    create: (input) => {
      if (!owners.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      if (idByDigest.has(input.digest)) return err({ code: 'duplicate_digest' });
      for (const link of [...links.values()]) if (link.userId === input.userId && link.purpose === input.purpose) forget(link);
      const record: AccountLinkRecord = { ...input, id: String(nextId++), usedAt: null };
      links.set(record.id, record);
      idByDigest.set(record.digest, record.id);
      return ok(copyLink(record));
    },
    consume: (purpose, digest, now) => {
      const link = byDigest(digest);
      const decided = decideAccountLinkUse(link, purpose, now);
      if (decided.isErr() || link === null) return err({ code: 'unknown_link' });
      if (decided.value.kind === 'refused') return err({ code: decided.value.reason });
      const used: AccountLinkRecord = { ...link, usedAt: now };
      links.set(used.id, used);
      return ok(copyLink(used));
    },
    findByDigest: (digest) => {
      const link = byDigest(digest);
      return link === null ? null : copyLink(link);
    },
    find: (userId, purpose) => {
      for (const link of links.values()) if (link.userId === userId && link.purpose === purpose) return copyLink(link);
      return null;
    },
    purgeExpired: (expiredBy, limit) => {
      const n = boundOf(limit);
      let removed = 0;
      for (const link of [...links.values()]) {
        if (removed >= n) break;
        if (link.expiresAt <= expiredBy) {
          forget(link);
          removed += 1;
        }
      }
      return removed;
    },
    deleteForUser: (userId) => {
      for (const link of [...links.values()]) if (link.userId === userId) forget(link);
    },
  };
}

/**
 * Creates the outbox part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @returns The synchronous operations.
 * @example
 * ```ts
 * const outbox = createMemoryOutbox(journal);
 * ```
 * @internal
 */
export function createMemoryOutbox(journal: Journal): Sync<OutboxStore> {
  // ids grow with every enqueue, and a Map keeps insertion order: its values are oldest first
  const mails = new TrackedMap<string, OutboxMail>(journal);
  let nextId = 1;
  return {
    enqueue: (input, capacity) => {
      const decided = decideMailEnqueue(mails.size, Math.max(1, Math.floor(capacity)));
      if (decided.isErr() || decided.value.kind === 'refuse') return err({ code: 'outbox_full', queued: mails.size });
      const mail: OutboxMail = { ...input, id: String(nextId++), attempts: 0, nextAttemptAt: input.createdAt, claimedUntil: 0, lastError: null };
      mails.set(mail.id, mail);
      return ok(copyMail(mail));
    },
    claim: (now, leaseMs, limit) => {
      const n = boundOf(limit);
      const claimed: OutboxMail[] = [];
      for (const mail of [...mails.values()]) {
        if (claimed.length >= n) break;
        if (mail.nextAttemptAt > now || mail.claimedUntil > now) continue;
        const held: OutboxMail = { ...mail, attempts: mail.attempts + 1, claimedUntil: now + Math.max(1, leaseMs) };
        mails.set(held.id, held);
        claimed.push(copyMail(held));
      }
      return claimed;
    },
    delete: (id) => mails.delete(id),
    retryLater: (id, nextAttemptAt, error) => {
      const mail = mails.get(id);
      if (mail === undefined) return false;
      mails.set(id, { ...mail, nextAttemptAt, claimedUntil: 0, lastError: error });
      return true;
    },
    release: (id, nextAttemptAt, reason) => {
      const mail = mails.get(id);
      if (mail === undefined) return false;
      mails.set(id, { ...mail, attempts: Math.max(0, mail.attempts - 1), nextAttemptAt, claimedUntil: 0, lastError: reason });
      return true;
    },
    count: () => mails.size,
    list: (limit) => [...mails.values()].slice(0, boundOf(limit)).map(copyMail),
  };
}
