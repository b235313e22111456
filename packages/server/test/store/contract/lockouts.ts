/**
 * The store contract for lockout state (`auth.lockout`): one record per account, replaced by `put`, forgotten by
 * `clear`, refused for a missing account, undone with its transaction and gone with its account.
 */
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { createUser, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';

/** Registers the lockout cases. */
export function describeLockouts(open: OpenStore): void {
  describe('lockouts', () => {
    it('should keep one record per account: put replaces, get reads a copy, clear forgets', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        expect(await store.lockouts.get(alice)).toBeNull();
        const counted = { userId: alice, failures: 3, lastFailureAt: 1_700_000_000_123, lockedUntil: null };
        expect((await store.lockouts.put(counted))._unsafeUnwrap()).toStrictEqual(counted);
        const locked = { userId: alice, failures: 0, lastFailureAt: null, lockedUntil: 1_700_001_800_123 };
        expect((await store.lockouts.put(locked))._unsafeUnwrap()).toStrictEqual(locked);
        expect(await store.lockouts.get(alice)).toStrictEqual(locked);
        expect(await store.lockouts.get(bob)).toBeNull();
        expect(await store.lockouts.clear(alice)).toBe(true);
        expect(await store.lockouts.clear(alice)).toBe(false);
        expect(await store.lockouts.get(alice)).toBeNull();
      });
    });

    it('should read which accounts of a page are locked at a time, in one call (lockedUntil)', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        const carol = await createUser(store, 'carol');
        const dave = await createUser(store, 'dave');
        await store.lockouts.put({ userId: alice, failures: 0, lastFailureAt: null, lockedUntil: 2_000 });
        await store.lockouts.put({ userId: bob, failures: 3, lastFailureAt: 900, lockedUntil: null });
        await store.lockouts.put({ userId: carol, failures: 0, lastFailureAt: null, lockedUntil: 1_000 });
        const page = [alice, bob, carol, dave, '999999', 'not-an-id'];
        expect(await store.lockouts.lockedUntil(page, 999)).toStrictEqual(new Map([[alice, 2_000], [carol, 1_000]]));
        // a lock ends at its time: not locked at it
        expect(await store.lockouts.lockedUntil(page, 1_000)).toStrictEqual(new Map([[alice, 2_000]]));
        expect(await store.lockouts.lockedUntil(page, 2_000)).toStrictEqual(new Map());
        expect(await store.lockouts.lockedUntil([], 0)).toStrictEqual(new Map());
        expect(await store.lockouts.lockedUntil([dave], 0)).toStrictEqual(new Map());
      });
    });

    it('should refuse a record for a missing account (unknown_user), storing nothing', async () => {
      await withStore(open, async (store) => {
        const record = { userId: '999999', failures: 1, lastFailureAt: 5, lockedUntil: null };
        expect(await store.lockouts.put(record)).toStrictEqual(err({ code: 'unknown_user', userId: '999999' }));
        expect(await store.lockouts.put({ ...record, userId: 'not-an-id' })).toStrictEqual(err({ code: 'unknown_user', userId: 'not-an-id' }));
        expect(await store.lockouts.get('999999')).toBeNull();
        expect(await store.lockouts.clear('not-an-id')).toBe(false);
      });
    });

    it('should undo a put with its transaction, and keep one whose transaction resolves ok', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const record = { userId: alice, failures: 2, lastFailureAt: 10, lockedUntil: null };
        const undone = await store.transaction(async (tx) => {
          await tx.lockouts.put(record);
          return err('undo' as const);
        });
        expect(undone.isErr()).toBe(true);
        expect(await store.lockouts.get(alice)).toBeNull();
        await store.transaction(async (tx) => tx.lockouts.put(record));
        expect(await store.lockouts.get(alice)).toStrictEqual(record);
      });
    });

    it('should forget the record with its account', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.lockouts.put({ userId: alice, failures: 0, lastFailureAt: null, lockedUntil: 99 });
        (await store.accounts.delete(alice))._unsafeUnwrap();
        expect(await store.lockouts.get(alice)).toBeNull();
      });
    });
  });
}
