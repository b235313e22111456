/**
 * The flat view of the grouped store (`flatStoreOf`, what `GatehouseServer.store` is): each flat method answers
 * from the grouped store with the core's lookup keys, the unlink guard runs in the same transaction as the unlink
 * and a refusal changes nothing, and `listUsers` reaches every account across the grouped store's pages. The
 * grouped store itself runs the store contract suite (test/http/store/).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { flatError, flatStoreOf } from '../../src/http/store-bridge.js';
import type { ExternalAccountRecord, NewUser } from '../../src/http/store.js';
import { createMemoryStore } from '../../src/http/store/memory.js';
import type { StoreError } from '../../src/http/store/types.js';

const base = { origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 } as const;
const user = (username: string, overrides: Partial<NewUser> = {}): NewUser => ({ ...base, username, ...overrides });
const ext = (accountId: string) => ({ serviceType: 'hosta', serviceId: 'https://hosta.example', accountId, createdAt: 0 });

describe('flatStoreOf: deleteExternalAccount', () => {
  it('should unlink only when the guard, run inside the same step, agrees; changing nothing otherwise', async () => {
    const store = flatStoreOf(createMemoryStore());
    const one = (await store.createUser(user('one', { externalAccount: ext('1') })))._unsafeUnwrap();
    await store.addExternalAccount({ ...ext('2'), userId: one.id });
    const keepOne = (remaining: readonly unknown[]): boolean => remaining.length >= 1;
    expect((await store.deleteExternalAccount(one.id, 'hosta', 'https://hosta.example', '1', keepOne)).isOk()).toBe(true);
    const refused = await store.deleteExternalAccount(one.id, 'hosta', 'https://hosta.example', '2', keepOne);
    expect(refused.isErr() && refused.error).toStrictEqual({ code: 'guard_refused' });
    expect((await store.listExternalAccounts(one.id)).map((e) => e.accountId)).toStrictEqual(['2']);
    const unknown = await store.deleteExternalAccount(one.id, 'hosta', 'https://hosta.example', '1');
    expect(unknown.isErr() && unknown.error).toStrictEqual({ code: 'unknown_external_account', serviceType: 'hosta', accountId: '1' });
    // another account cannot unlink it
    const other = (await store.createUser(user('two')))._unsafeUnwrap();
    expect((await store.deleteExternalAccount(other.id, 'hosta', 'https://hosta.example', '2')).isErr()).toBe(true);
    expect(await store.findExternalAccount('hosta', 'https://hosta.example', '2')).toMatchObject({ userId: one.id });
    const nobody = await store.deleteExternalAccount('999999', 'hosta', 'https://hosta.example', '2');
    expect(nobody.isErr() && nobody.error).toStrictEqual({ code: 'unknown_user', userId: '999999' });
  });

  test.prop([fc.integer({ min: 1, max: 4 }), fc.nat(3), fc.boolean()])(
    'should show the guard the links that would remain, in link order, and keep every link when it refuses',
    async (links, pick, verdict) => {
      const store = flatStoreOf(createMemoryStore());
      const one = (await store.createUser(user('one', { externalAccount: ext('0') })))._unsafeUnwrap();
      for (let i = 1; i < links; i++) await store.addExternalAccount({ ...ext(String(i)), userId: one.id });
      const before = await store.listExternalAccounts(one.id);
      const target = String(pick % links);
      const seen: (readonly ExternalAccountRecord[])[] = [];
      const result = await store.deleteExternalAccount(one.id, 'hosta', 'https://hosta.example', target, (remaining) => {
        seen.push(remaining);
        return verdict;
      });
      const remaining = before.filter((l) => l.accountId !== target);
      expect(seen).toStrictEqual([remaining]);
      expect(result.isOk()).toBe(verdict);
      expect(await store.listExternalAccounts(one.id)).toStrictEqual(verdict ? remaining : before);
      expect((await store.findUserByExternalAccount('hosta', 'https://hosta.example', target))?.id ?? null).toBe(verdict ? null : one.id);
    },
  );
});

describe('flatStoreOf: lookups', () => {
  it.each([
    { ref: 'ASCII case only: Ä and ä differ', lookup: 'ÄRGER', expected: null },
    { ref: 'ASCII case folds', lookup: 'äRGER', expected: 'ärger' },
  ])('should find users by username with the core ASCII rule ($ref)', async ({ lookup, expected }) => {
    const store = flatStoreOf(createMemoryStore());
    await store.createUser(user('ärger'));
    expect((await store.findUserByUsername(lookup))?.username ?? null).toBe(expected);
  });

  it('should find an account by a verified email and by a linked identity, and the link itself', async () => {
    const store = flatStoreOf(createMemoryStore());
    const emails = [
      { email: 'Ann@Example.com', verified: true },
      { email: 'other@example.com', verified: false },
    ];
    const ann = (await store.createUser(user('ann', { emails, externalAccount: ext('7') })))._unsafeUnwrap();
    expect(await store.findUserByVerifiedEmail('ann@EXAMPLE.com')).toStrictEqual(ann);
    expect(await store.findUserByVerifiedEmail('other@example.com')).toBeNull();
    expect(await store.findUserByExternalAccount('hosta', 'https://hosta.example', '7')).toStrictEqual(ann);
    expect(await store.findExternalAccount('hosta', 'https://hosta.example', '7')).toStrictEqual({ ...ext('7'), userId: ann.id });
    expect(await store.findExternalAccount('hosta', 'https://hosta.example', '8')).toBeNull();
    expect(await store.findExternalAccount('HOSTA', 'https://hosta.example', '7')).toBeNull();
  });

  it('should refuse a user whose external account is already linked, changing nothing', async () => {
    const store = flatStoreOf(createMemoryStore());
    expect((await store.createUser(user('one', { externalAccount: ext('42') }))).isOk()).toBe(true);
    const second = await store.createUser(user('two', { externalAccount: ext('42') }));
    expect(second.isErr() && second.error).toStrictEqual({ code: 'external_account_taken', serviceType: 'hosta', accountId: '42' });
    expect((await store.listUsers()).map((u) => u.username)).toStrictEqual(['one']);
  });
});

describe('flatStoreOf: listUsers', () => {
  it('should list every account, oldest first, past one page of the grouped store', async () => {
    const grouped = createMemoryStore();
    const store = flatStoreOf(grouped);
    const names = Array.from({ length: 1_001 }, (_, i) => `user${i}`);
    for (const name of names) (await store.createUser(user(name)))._unsafeUnwrap();
    expect((await store.listUsers()).map((u) => u.username)).toStrictEqual(names);
    expect(await grouped.accounts.count()).toBe(1_001);
  });
});

describe('flatError', () => {
  it.each([
    { error: { code: 'username_taken', username: 'a' }, expected: { code: 'username_taken', username: 'a' } },
    { error: { code: 'email_taken', email: 'a@x.io' }, expected: { code: 'email_taken', email: 'a@x.io' } },
    { error: { code: 'unknown_user', userId: '1' }, expected: { code: 'unknown_user', userId: '1' } },
    { error: { code: 'unknown_access_token', id: '1' }, expected: { code: 'unknown_access_token', id: '1' } },
    { error: { code: 'external_account_taken', serviceType: 'hosta', accountId: '1' }, expected: { code: 'external_account_taken', serviceType: 'hosta', accountId: '1' } },
    { error: { code: 'unknown_external_account', serviceType: 'hosta', accountId: '1' }, expected: { code: 'unknown_external_account', serviceType: 'hosta', accountId: '1' } },
    { error: { code: 'duplicate_digest' }, expected: { code: 'duplicate_digest' } },
    { error: { code: 'client_id_taken', clientId: 'c' }, expected: { code: 'unknown_user', userId: '' } },
    { error: { code: 'unknown_oauth_app', clientId: 'c' }, expected: { code: 'unknown_user', userId: '' } },
  ] satisfies { error: StoreError; expected: unknown }[])('should map $error.code', ({ error, expected }) => {
    expect(flatError(error)).toStrictEqual(expected);
  });
});
