/**
 * The memory store runs the store contract suite.
 */
import { describe, expect, it } from 'vitest';
import { ok, err } from 'neverthrow';
import { createMemoryStore } from '../../../src/http/store/index.js';
import { usernameKey } from '../../../src/core/store-keys.js';

const account = {
  origin: 'admin_created',
  siteAdmin: false,
  serviceAccount: false,
  emails: [{ email: 'a@example.com', verified: true }],
  passwordHash: null,
  createdAt: 0,
} as const;

describe('createMemoryStore', () => {
  it('should create an account under the first free username and find it by key', async () => {
    const store = createMemoryStore();
    const a = (await store.accounts.create({ ...account, usernames: ['alice'] }))._unsafeUnwrap();
    const b = await store.accounts.create({ ...account, emails: [], usernames: ['ALICE', 'alice-2'] });
    expect(b._unsafeUnwrap().username).toBe('alice-2');
    expect((await store.accounts.findByUsernameKey(usernameKey('Alice')))?.id).toBe(a.id);
  });

  it('should undo every change of a transaction whose work resolves err', async () => {
    const store = createMemoryStore();
    const result = await store.transaction(async (tx) => {
      await tx.accounts.create({ ...account, usernames: ['alice'] });
      return err({ code: 'nope' });
    });
    expect(result.isErr()).toBe(true);
    expect(await store.accounts.count()).toBe(0);
    const kept = await store.transaction(async (tx) => ok(await tx.accounts.create({ ...account, usernames: ['bob'] })));
    expect(kept.isOk()).toBe(true);
    expect(await store.accounts.count()).toBe(1);
  });
});
