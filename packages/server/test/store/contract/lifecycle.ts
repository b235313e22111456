/**
 * The store contract of account links and the mail outbox: links made, consumed once (at most one winner among
 * concurrent consumers), refused for every reason without a change, superseded by a newer link of the same
 * purpose, gone with their account, purged by expiry; the outbox's bound (also under concurrent enqueues), its
 * claims (never the same mail to two claimers), retries, deletes, and its rows undone with a failed transaction.
 */
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { AccountLinkPurpose } from 'gatehouse-auth';
import type { NewAccountLink } from '../../../src/store/lifecycle-types.js';
import { createUser, withStore, type OpenStore } from './fixtures.js';

const digestOf = (n: number): string => n.toString(16).padStart(64, '0');
const link = (userId: string, n: number, overrides: Partial<NewAccountLink> = {}): NewAccountLink => ({
  purpose: 'verify_email',
  userId,
  email: 'alice@example.com',
  digest: digestOf(n),
  createdAt: 1_000,
  expiresAt: 5_000,
  ...overrides,
});
const mail = (n: number) => ({ to: `r${n}@example.com`, subject: `Subject ${n}`, text: `Body ${n}`, createdAt: 1_000 + n });

/**
 * Registers the account-link and outbox cases for one implementation.
 *
 * @param open - Opens a fresh, empty store for one case.
 */
export function describeLifecycleContract(open: OpenStore): void {
  describe('account links', () => {
    it('should store a link by its digest and consume it once', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const created = (await store.links.create(link(alice, 1)))._unsafeUnwrap();
        expect(created).toMatchObject({ purpose: 'verify_email', userId: alice, email: 'alice@example.com', digest: digestOf(1), createdAt: 1_000, expiresAt: 5_000, usedAt: null });
        expect(await store.links.findByDigest(digestOf(1))).toStrictEqual(created);
        expect(await store.links.consume('verify_email', digestOf(1), 4_999)).toStrictEqual(ok({ ...created, usedAt: 4_999 }));
        expect(await store.links.consume('verify_email', digestOf(1), 4_999)).toStrictEqual(err({ code: 'link_used' }));
        expect((await store.links.findByDigest(digestOf(1)))?.usedAt).toBe(4_999);
      }));

    it.each([
      { ref: 'unknown digest', purpose: 'verify_email' as AccountLinkPurpose, digest: digestOf(99), now: 2_000, code: 'unknown_link' },
      { ref: 'another purpose', purpose: 'reset_password' as AccountLinkPurpose, digest: digestOf(1), now: 2_000, code: 'wrong_purpose' },
      { ref: 'at its expiry', purpose: 'verify_email' as AccountLinkPurpose, digest: digestOf(1), now: 5_000, code: 'link_expired' },
      { ref: 'after its expiry', purpose: 'verify_email' as AccountLinkPurpose, digest: digestOf(1), now: 9_000, code: 'link_expired' },
    ])('should refuse a consume ($ref: $code) and change nothing', ({ purpose, digest, now, code }) =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const created = (await store.links.create(link(alice, 1)))._unsafeUnwrap();
        expect(await store.links.consume(purpose, digest, now)).toStrictEqual(err({ code }));
        expect(await store.links.findByDigest(digestOf(1))).toStrictEqual(created);
        // still usable in time
        expect((await store.links.consume('verify_email', digestOf(1), 1_500)).isOk()).toBe(true);
      }));

    it('should let a new link of the same purpose for the same account supersede the earlier one, and no other', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        await store.links.create(link(alice, 1));
        await store.links.create(link(alice, 2, { purpose: 'reset_password', email: null }));
        await store.links.create(link(bob, 3));
        const newer = (await store.links.create(link(alice, 4, { email: 'other@example.com' })))._unsafeUnwrap();
        expect(await store.links.consume('verify_email', digestOf(1), 2_000)).toStrictEqual(err({ code: 'unknown_link' }));
        expect(await store.links.find(alice, 'verify_email')).toStrictEqual(newer);
        expect((await store.links.find(alice, 'reset_password'))?.digest).toBe(digestOf(2));
        expect((await store.links.find(bob, 'verify_email'))?.digest).toBe(digestOf(3));
        expect((await store.links.consume('verify_email', digestOf(4), 2_000))._unsafeUnwrap().email).toBe('other@example.com');
      }));

    it('should refuse a link for a missing account and a digest already stored', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        expect(await store.links.create(link('999999', 1))).toStrictEqual(err({ code: 'unknown_user', userId: '999999' }));
        await store.links.create(link(alice, 1));
        expect(await store.links.create(link(bob, 1))).toStrictEqual(err({ code: 'duplicate_digest' }));
        expect(await store.links.find(bob, 'verify_email')).toBeNull();
      }));

    it('should give a link to exactly one of many concurrent consumers', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.links.create(link(alice, 1));
        const results = await Promise.all(Array.from({ length: 8 }, () => store.links.consume('verify_email', digestOf(1), 2_000)));
        expect(results.filter((r) => r.isOk())).toHaveLength(1);
        expect(results.filter((r) => r.isErr()).map((r) => r._unsafeUnwrapErr().code)).toStrictEqual(Array(7).fill('link_used'));
      }));

    it('should undo a consume with the transaction around it', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.links.create(link(alice, 1));
        const undone = await store.transaction(async (tx) => {
          expect((await tx.links.consume('verify_email', digestOf(1), 2_000)).isOk()).toBe(true);
          return err('abandoned');
        });
        expect(undone.isErr()).toBe(true);
        expect((await store.links.findByDigest(digestOf(1)))?.usedAt).toBeNull();
      }));

    it('should delete an account\'s links with the account, and purge expired links in bounded batches', () =>
      withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        await store.links.create(link(alice, 1));
        await store.links.create(link(bob, 2, { expiresAt: 3_000 }));
        await store.links.create(link(bob, 3, { purpose: 'unlock_account', email: null, expiresAt: 3_000 }));
        await store.links.create(link(bob, 4, { purpose: 'first_admin', email: null, expiresAt: 9_000 }));
        (await store.accounts.delete(alice))._unsafeUnwrap();
        expect(await store.links.findByDigest(digestOf(1))).toBeNull();
        expect(await store.links.purgeExpired(3_000, 1)).toBe(1);
        expect(await store.links.purgeExpired(3_000, 10)).toBe(1);
        expect(await store.links.purgeExpired(3_000, 10)).toBe(0);
        expect((await store.links.findByDigest(digestOf(4)))?.purpose).toBe('first_admin');
      }));
  });

  describe('mail outbox', () => {
    it('should queue mails oldest first, claim due ones with a lease, retry later and delete', () =>
      withStore(open, async (store) => {
        const first = (await store.outbox.enqueue(mail(1), 10))._unsafeUnwrap();
        expect(first).toMatchObject({ to: 'r1@example.com', subject: 'Subject 1', text: 'Body 1', createdAt: 1_001, attempts: 0, nextAttemptAt: 1_001, claimedUntil: 0, lastError: null });
        await store.outbox.enqueue(mail(2), 10);
        expect(await store.outbox.count()).toBe(2);
        const claimed = await store.outbox.claim(2_000, 500, 10);
        expect(claimed.map((m) => [m.subject, m.attempts, m.claimedUntil])).toStrictEqual([
          ['Subject 1', 1, 2_500],
          ['Subject 2', 1, 2_500],
        ]);
        // held: nobody else claims them before the lease ends
        expect(await store.outbox.claim(2_499, 500, 10)).toStrictEqual([]);
        expect(await store.outbox.retryLater(first.id, 4_000, 'EENVELOPE 550: refused')).toBe(true);
        expect(await store.outbox.delete(claimed[1]?.id ?? '')).toBe(true);
        expect(await store.outbox.delete(claimed[1]?.id ?? '')).toBe(false);
        expect(await store.outbox.claim(3_999, 500, 10)).toStrictEqual([]);
        const again = await store.outbox.claim(4_000, 500, 10);
        expect(again.map((m) => [m.subject, m.attempts, m.lastError])).toStrictEqual([['Subject 1', 2, 'EENVELOPE 550: refused']]);
        // a sender that died mid-send: its lease ends and another claims the mail
        expect((await store.outbox.claim(4_500, 500, 10)).map((m) => m.attempts)).toStrictEqual([3]);
        expect((await store.outbox.list(10)).map((m) => m.subject)).toStrictEqual(['Subject 1']);
      }));

    it('should release a claimed mail without counting its attempt, due again when said', () =>
      withStore(open, async (store) => {
        const queued = (await store.outbox.enqueue(mail(1), 10))._unsafeUnwrap();
        expect((await store.outbox.claim(2_000, 500, 10)).map((m) => m.attempts)).toStrictEqual([1]);
        expect(await store.outbox.release(queued.id, 3_000, 'sealed with key 0123456789abcdef')).toBe(true);
        expect(await store.outbox.claim(2_999, 500, 10)).toStrictEqual([]);
        const again = await store.outbox.claim(3_000, 500, 10);
        expect(again.map((m) => [m.attempts, m.lastError])).toStrictEqual([[1, 'sealed with key 0123456789abcdef']]);
        expect(await store.outbox.release('999999', 3_000, 'x')).toBe(false);
      }));

    it('should refuse a mail beyond the bound and change nothing', () =>
      withStore(open, async (store) => {
        await store.outbox.enqueue(mail(1), 2);
        await store.outbox.enqueue(mail(2), 2);
        expect(await store.outbox.enqueue(mail(3), 2)).toStrictEqual(err({ code: 'outbox_full', queued: 2 }));
        expect(await store.outbox.count()).toBe(2);
      }));

    it('should keep the bound under concurrent enqueues', () =>
      withStore(open, async (store) => {
        const results = await Promise.all(Array.from({ length: 12 }, (_, n) => store.outbox.enqueue(mail(n), 5)));
        expect(results.filter((r) => r.isOk())).toHaveLength(5);
        expect(await store.outbox.count()).toBe(5);
      }));

    it('should never give one mail to two concurrent claimers', () =>
      withStore(open, async (store) => {
        for (let n = 0; n < 10; n += 1) await store.outbox.enqueue(mail(n), 100);
        const batches = await Promise.all(Array.from({ length: 5 }, () => store.outbox.claim(5_000, 1_000, 3)));
        const ids = batches.flat().map((m) => m.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBe(10);
      }));

    it('should undo a queued mail with the transaction that queued it', () =>
      withStore(open, async (store) => {
        const undone = await store.transaction(async (tx) => {
          (await tx.outbox.enqueue(mail(1), 10))._unsafeUnwrap();
          return err('abandoned');
        });
        expect(undone.isErr()).toBe(true);
        expect(await store.outbox.count()).toBe(0);
      }));
  });
}
