/**
 * The lockout part of the memory store: one record per account, gone with the account.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { LockoutRecord, LockoutStore } from '../types.js';
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';

/** What the lockout table needs from the accounts table. */
interface Owners {
  readonly has: (userId: string) => boolean;
}

const copy = (r: LockoutRecord): LockoutRecord => ({ userId: r.userId, failures: r.failures, lastFailureAt: r.lastFailureAt, lockedUntil: r.lockedUntil });

/**
 * Creates the lockout part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @param owners - Which accounts exist.
 * @returns The synchronous operations, plus the cascade of an account's deletion.
 * @example
 * ```ts
 * const lockouts = createMemoryLockouts(journal, accounts);
 * ```
 * @internal
 */
export function createMemoryLockouts(journal: Journal, owners: Owners): Sync<LockoutStore> & { deleteForUser(userId: string): void } {
  const records = new TrackedMap<string, LockoutRecord>(journal);
  return {
    get: (userId) => {
      const r = records.get(userId);
      return r === undefined ? null : copy(r);
    },
    put: (record) => {
      if (!owners.has(record.userId)) return err({ code: 'unknown_user', userId: record.userId });
      records.set(record.userId, copy(record));
      return ok(copy(record));
    },
    clear: (userId) => {
      if (!records.has(userId)) return false;
      records.delete(userId);
      return true;
    },
    lockedUntil: (userIds, now) => {
      const locked = new Map<string, number>();
      for (const userId of userIds) {
        const until = records.get(userId)?.lockedUntil ?? null;
        if (until !== null && until > now) locked.set(userId, until);
      }
      return locked;
    },
    deleteForUser: (userId) => {
      records.delete(userId);
    },
  };
}
