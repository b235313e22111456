/**
 * The store contract of `accounts.setEmails`: the list is replaced whole, primary first; an address verified on
 * another account (by its match key, so case aside) is refused with `email_taken` and nothing changes (an address
 * is verified on one account only, which is what makes §5.4 rule 2's link by verified email unambiguous); the same
 * address unverified on several accounts is allowed; removing or unverifying an address frees it; an unknown
 * account is `unknown_user`; a failed transaction undoes it; of two accounts verifying one address at once, one wins.
 */
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { emailMatchKey } from 'gatehouse-auth';
import type { EmailRecord, Store } from '../../../src/store/types.js';
import { createUser, withStore, type OpenStore } from './fixtures.js';

const verified = (email: string): EmailRecord => ({ email, verified: true });
const unverified = (email: string): EmailRecord => ({ email, verified: false });
const ownerOf = async (store: Store, email: string): Promise<string | null> => (await store.accounts.findByVerifiedEmailKey(emailMatchKey(email)))?.id ?? null;

/**
 * Registers the `accounts.setEmails` cases for one implementation.
 *
 * @param open - Opens a fresh, empty store for one case.
 */
export function describeSetEmailsContract(open: OpenStore): void {
  describe('accounts.setEmails', () => {
    it('should replace the list whole, primary first, and index only the verified addresses', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [unverified('old@x.io')] });
        const saved = await store.accounts.setEmails(alice, [verified('b@x.io'), unverified('a@x.io')]);
        expect(saved.isOk() && saved.value.emails).toStrictEqual([verified('b@x.io'), unverified('a@x.io')]);
        expect((await store.accounts.get(alice))?.emails).toStrictEqual([verified('b@x.io'), unverified('a@x.io')]);
        expect(await ownerOf(store, 'B@X.IO')).toBe(alice);
        expect(await ownerOf(store, 'a@x.io')).toBeNull();
        expect(await ownerOf(store, 'old@x.io')).toBeNull();
      }));

    it.each([
      { ref: 'the same spelling', taken: 'a@x.io' },
      { ref: 'another case', taken: 'A@X.IO' },
    ])('should refuse an address verified on another account ($ref: email_taken, §5.4 rule 2) and change nothing', ({ taken }) =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [verified('a@x.io')] });
        const bob = await createUser(store, 'bob', { emails: [verified('bob@x.io'), unverified(taken)] });
        const before = await store.accounts.get(bob);
        const refused = await store.accounts.setEmails(bob, [verified('bob@x.io'), verified('new@x.io'), verified(taken)]);
        expect(refused).toStrictEqual(err({ code: 'email_taken', email: taken }));
        expect(await store.accounts.get(bob)).toStrictEqual(before);
        expect(await ownerOf(store, 'a@x.io')).toBe(alice);
        expect(await ownerOf(store, 'new@x.io')).toBeNull();
        expect(await ownerOf(store, 'bob@x.io')).toBe(bob);
      }));

    it('should allow an address unverified on several accounts, and an account keeping its own verified address', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [verified('a@x.io')] });
        const bob = await createUser(store, 'bob');
        expect((await store.accounts.setEmails(bob, [unverified('A@x.io')])).isOk()).toBe(true);
        expect((await store.accounts.setEmails(alice, [unverified('c@x.io'), verified('a@x.io')])).isOk()).toBe(true);
        expect(await ownerOf(store, 'a@x.io')).toBe(alice);
      }));

    it.each([
      { ref: 'removed', next: [] as EmailRecord[] },
      { ref: 'no longer verified', next: [unverified('a@x.io')] },
    ])('should free an address its account $ref, for another account to verify', ({ next }) =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [verified('a@x.io')] });
        const bob = await createUser(store, 'bob', { emails: [unverified('a@x.io')] });
        expect((await store.accounts.setEmails(alice, next)).isOk()).toBe(true);
        expect(await ownerOf(store, 'a@x.io')).toBeNull();
        expect((await store.accounts.setEmails(bob, [verified('a@x.io')])).isOk()).toBe(true);
        expect(await ownerOf(store, 'a@x.io')).toBe(bob);
      }));

    it('should answer unknown_user for an account that does not exist', () =>
      withStore(open, async (store) => {
        const gone = await createUser(store, 'gone');
        expect((await store.accounts.delete(gone)).isOk()).toBe(true);
        const refused = await store.accounts.setEmails(gone, [verified('a@x.io')]);
        expect(refused.isErr() && refused.error.code).toBe('unknown_user');
        expect(await ownerOf(store, 'a@x.io')).toBeNull();
      }));

    it('should be undone with a failed transaction', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [unverified('a@x.io')] });
        const bob = await createUser(store, 'bob', { emails: [unverified('a@x.io')] });
        const failed = await store.transaction(async (tx) => {
          const saved = await tx.accounts.setEmails(alice, [verified('a@x.io')]);
          expect(saved.isOk()).toBe(true);
          return err({ code: 'rolled_back' });
        });
        expect(failed.isErr()).toBe(true);
        expect((await store.accounts.get(alice))?.emails).toStrictEqual([unverified('a@x.io')]);
        expect(await ownerOf(store, 'a@x.io')).toBeNull();
        expect((await store.accounts.setEmails(bob, [verified('a@x.io')])).isOk()).toBe(true);
      }));

    it('should let exactly one of two accounts verifying the same address at once have it', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [unverified('a@x.io')] });
        const bob = await createUser(store, 'bob', { emails: [unverified('a@x.io')] });
        const results = await Promise.all([store.accounts.setEmails(alice, [verified('a@x.io')]), store.accounts.setEmails(bob, [verified('A@x.io')])]);
        expect(results.filter((r) => r.isOk())).toHaveLength(1);
        expect(results.filter((r) => r.isErr() && r.error.code === 'email_taken')).toHaveLength(1);
        const winner = results[0]?.isOk() === true ? alice : bob;
        expect(await ownerOf(store, 'a@x.io')).toBe(winner);
        const loser = winner === alice ? bob : alice;
        expect((await store.accounts.get(loser))?.emails).toStrictEqual([unverified('a@x.io')]);
      }));
  });
}
