/**
 * The memory store runs the store contract suite (with more model runs than a database run affords), plus the
 * rules of its own transactions: an async mutex and an undo log.
 */
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/store/memory/store.js';

import { describeStoreContract } from '../contract.js';
import type { Store } from '../../../src/store/types.js';

describeStoreContract('createMemoryStore', async () => ({ store: createMemoryStore(), close: async () => {} }), {
  modelRuns: 200,
  auditFloodSize: 100_000,
});

describe('createMemoryStore transactions (the memory store’s own rules)', () => {
  const account = (username: string) => ({
    usernames: [username],
    origin: 'admin_created' as const,
    siteAdmin: false,
    serviceAccount: false,
    emails: [],
    passwordHash: null,
    createdAt: 0,
  });

  it('should make every other operation wait while a transaction runs, then serve them in arrival order', async () => {
    const store = createMemoryStore();
    const order: string[] = [];
    const first = store.transaction(async (tx) => {
      await tx.accounts.create(account('alice'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push('first transaction ends');
      return ok(undefined);
    });
    const read = store.accounts.count().then((n) => order.push(`read sees ${n}`));
    const second = store.transaction(async (tx) => {
      order.push(`second transaction sees ${await tx.accounts.count()}`);
      return ok(undefined);
    });
    await Promise.all([first, read, second]);
    expect(order).toStrictEqual(['first transaction ends', 'read sees 1', 'second transaction sees 1']);
  });

  it('should undo only a failed inner transaction, keeping the outer one’s changes', async () => {
    const store = createMemoryStore();
    const result = await store.transaction(async (tx) => {
      await tx.accounts.create(account('alice'));
      const inner = await tx.transaction(async (inside) => {
        await inside.accounts.create(account('bob'));
        return err('inner refused');
      });
      expect(inner.isErr()).toBe(true);
      await expect(tx.transaction(() => Promise.reject(new Error('inner boom')))).rejects.toThrow('inner boom');
      return ok(await tx.accounts.count());
    });
    expect(result._unsafeUnwrap()).toBe(1);
    expect((await store.accounts.list({ first: 10 })).map((u) => u.username)).toStrictEqual(['alice']);
  });

  it('should refuse operations on a transaction’s store once the transaction has ended', async () => {
    const store = createMemoryStore();
    let leaked: Store | null = null;
    await store.transaction(async (tx) => {
      leaked = tx;
      return ok(undefined);
    });
    await expect((leaked as Store | null)?.accounts.count()).rejects.toThrow(/ended/u);
  });

  it('should undo the changes of work that throws synchronously, and free the turn', async () => {
    const store = createMemoryStore();
    await expect(
      store.transaction((tx) => {
        void tx.accounts.create(account('alice'));
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    expect(await store.accounts.count()).toBe(0);
    expect((await store.accounts.create(account('bob'))).isOk()).toBe(true);
  });
});
