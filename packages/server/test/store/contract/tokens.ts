/**
 * The store contract for access tokens (spec §2.3) and browser sessions: lookups by digest, per-account listings,
 * conflicts, the session quota and the bounded purge of expired sessions.
 */
import { describe, expect, it } from 'vitest';
import { accountSnapshot, createUser, newToken, session, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';

/** Registers the access-token and session cases. */
export function describeTokens(open: OpenStore): void {
  describe('accessTokens', () => {
    it('should create a token, find it by digest and id, list and count it per owner, and delete it at once', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        const first = (await store.accessTokens.create({ ...newToken(alice, 'd1'), expiresAt: 9_000 }))._unsafeUnwrap();
        expect(first).toStrictEqual({ ...newToken(alice, 'd1'), expiresAt: 9_000, id: first.id, lastUsedAt: null });
        const second = (await store.accessTokens.create(newToken(alice, 'd2', 2_000)))._unsafeUnwrap();
        await store.accessTokens.create(newToken(bob, 'd3'));
        expect(first.id).not.toBe(second.id);
        expect(await store.accessTokens.findByDigest('d1')).toStrictEqual(first);
        expect(await store.accessTokens.get(second.id)).toStrictEqual(second);
        expect(await store.accessTokens.list(alice)).toStrictEqual([first, second]);
        expect([await store.accessTokens.count(alice), await store.accessTokens.count(bob)]).toStrictEqual([2, 1]);
        expect((await store.accessTokens.delete(first.id))._unsafeUnwrap()).toStrictEqual(first);
        expect(await store.accessTokens.findByDigest('d1')).toBeNull();
        expect(await store.accessTokens.get(first.id)).toBeNull();
        expect(await store.accessTokens.count(alice)).toBe(1);
        const again = await store.accessTokens.delete(first.id);
        expect(again.isErr() && again.error).toStrictEqual({ code: 'unknown_access_token', id: first.id });
      });
    });

    it('should refuse a digest that exists, on any account (duplicate_digest), and an unknown owner, changing nothing', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        await store.accessTokens.create(newToken(alice, 'd1'));
        const before = await accountSnapshot(store);
        const duplicate = await store.accessTokens.create(newToken(bob, 'd1'));
        expect(duplicate.isErr() && duplicate.error).toStrictEqual({ code: 'duplicate_digest' });
        const nobody = await store.accessTokens.create(newToken('999999', 'd9'));
        expect(nobody.isErr() && nobody.error).toStrictEqual({ code: 'unknown_user', userId: '999999' });
        expect(await accountSnapshot(store)).toStrictEqual(before);
        expect(await store.accessTokens.findByDigest('d9')).toBeNull();
      });
    });

    it('should record a use as the latest time given, ignore an earlier one, and do nothing for an unknown id', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const used = (await store.accessTokens.create(newToken(alice, 'd1')))._unsafeUnwrap();
        const unused = (await store.accessTokens.create(newToken(alice, 'd2')))._unsafeUnwrap();
        expect([used.lastUsedAt, unused.lastUsedAt]).toStrictEqual([null, null]);
        await store.accessTokens.touch(used.id, 5_000);
        expect(await store.accessTokens.get(used.id)).toStrictEqual({ ...used, lastUsedAt: 5_000 });
        await store.accessTokens.touch(used.id, 4_000);
        expect((await store.accessTokens.findByDigest('d1'))?.lastUsedAt).toBe(5_000);
        await store.accessTokens.touch(used.id, 6_000);
        expect((await store.accessTokens.list(alice)).map((t) => t.lastUsedAt)).toStrictEqual([6_000, null]);
        const before = await accountSnapshot(store);
        for (const id of ['999999', 'not-an-id', '']) expect(await store.accessTokens.touch(id, 7_000)).toBeUndefined();
        expect(await accountSnapshot(store)).toStrictEqual(before);
      });
    });

    it('should copy the scopes in and out', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const input = { ...newToken(alice, 'd1'), scopes: ['user:all' as const] };
        const created = (await store.accessTokens.create(input))._unsafeUnwrap();
        (input.scopes as string[]).push('site-admin:sudo');
        (created.scopes as string[]).push('site-admin:sudo');
        expect((await store.accessTokens.findByDigest('d1'))?.scopes).toStrictEqual(['user:all']);
      });
    });
  });

  describe('sessions', () => {
    it('should create, find, list oldest first and delete sessions, refusing a duplicate digest and an unknown owner', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const created = (await store.sessions.create(session(alice, 5), 10))._unsafeUnwrap();
        expect(created).toStrictEqual(session(alice, 5));
        await store.sessions.create(session(alice, 3), 10);
        expect(await store.sessions.findByDigest(`${alice}-5`)).toStrictEqual(session(alice, 5));
        expect(await store.sessions.list(alice)).toStrictEqual([session(alice, 3), session(alice, 5)]);
        const duplicate = await store.sessions.create(session(alice, 5), 10);
        expect(duplicate.isErr() && duplicate.error).toStrictEqual({ code: 'duplicate_digest' });
        const nobody = await store.sessions.create(session('999999', 1), 10);
        expect(nobody.isErr() && nobody.error).toStrictEqual({ code: 'unknown_user', userId: '999999' });
        expect(await store.sessions.findByDigest('999999-1')).toBeNull();
        expect(await store.sessions.delete(`${alice}-5`)).toBe(true);
        expect(await store.sessions.delete(`${alice}-5`)).toBe(false);
        expect(await store.sessions.findByDigest(`${alice}-5`)).toBeNull();
      });
    });

    it('should keep the user agent (512 characters) and last-seen time as given, and record activity as the latest time given', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const agent = `Mozilla/5.0 ${'x'.repeat(500)}`;
        const long = { ...session(alice, 5), userAgent: agent };
        expect(agent).toHaveLength(512);
        expect((await store.sessions.create(long, 10))._unsafeUnwrap()).toStrictEqual(long);
        await store.sessions.create(session(alice, 7), 10);
        expect(await store.sessions.findByDigest(`${alice}-5`)).toStrictEqual(long);
        await store.sessions.touch(`${alice}-5`, 90_000);
        expect(await store.sessions.findByDigest(`${alice}-5`)).toStrictEqual({ ...long, lastSeenAt: 90_000 });
        await store.sessions.touch(`${alice}-5`, 80_000);
        await store.sessions.touch(`${alice}-5`, 90_000);
        expect((await store.sessions.list(alice)).map((s) => s.lastSeenAt)).toStrictEqual([90_000, 7]);
        await store.sessions.touch(`${alice}-5`, 95_000);
        expect((await store.sessions.findByDigest(`${alice}-5`))?.lastSeenAt).toBe(95_000);
        const before = await accountSnapshot(store);
        for (const digest of ['nobody-1', '']) expect(await store.sessions.touch(digest, 100_000)).toBeUndefined();
        expect(await accountSnapshot(store)).toStrictEqual(before);
      });
    });

    it('should revoke by createdAt, not by last activity, at the quota', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.sessions.create(session(alice, 1), 2);
        await store.sessions.create(session(alice, 2), 2);
        await store.sessions.touch(`${alice}-1`, 50);
        await store.sessions.create(session(alice, 3), 2);
        expect((await store.sessions.list(alice)).map((s) => s.digest)).toStrictEqual([`${alice}-2`, `${alice}-3`]);
      });
    });

    it("should keep at most maxPerUser sessions per account, revoking the account's oldest and no one else's", async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        expect((await store.sessions.create(session(bob, 0), 50)).isOk()).toBe(true);
        for (let n = 1; n <= 51; n++) expect((await store.sessions.create(session(alice, n), 50)).isOk()).toBe(true);
        expect(await store.sessions.findByDigest(`${alice}-1`)).toBeNull();
        expect(await store.sessions.list(alice)).toHaveLength(50);
        expect(await store.sessions.findByDigest(`${alice}-2`)).not.toBeNull();
        expect(await store.sessions.findByDigest(`${bob}-0`)).not.toBeNull();
      });
    });

    it('should revoke by createdAt, not by arrival, count a deleted session as gone, and treat a bound below 1 as 1', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.sessions.create(session(alice, 5), 2);
        await store.sessions.create(session(alice, 3), 2);
        await store.sessions.create(session(alice, 9), 2);
        expect(await store.sessions.findByDigest(`${alice}-3`)).toBeNull();
        expect(await store.sessions.findByDigest(`${alice}-5`)).not.toBeNull();
        expect(await store.sessions.delete(`${alice}-5`)).toBe(true);
        await store.sessions.create(session(alice, 10), 2);
        expect(await store.sessions.findByDigest(`${alice}-9`)).not.toBeNull();
        await store.sessions.create(session(alice, 11), 0);
        expect((await store.sessions.list(alice)).map((s) => s.digest)).toStrictEqual([`${alice}-11`]);
      });
    });

    it('should revoke no session when the new one is refused (duplicate_digest) at the quota', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.sessions.create(session(alice, 1), 2);
        await store.sessions.create(session(alice, 2), 2);
        const refused = await store.sessions.create({ ...session(alice, 3), digest: `${alice}-2` }, 2);
        expect(refused.isErr() && refused.error.code).toBe('duplicate_digest');
        expect(await store.sessions.list(alice)).toStrictEqual([session(alice, 1), session(alice, 2)]);
      });
    });

    it('should revoke the first stored among sessions created at the same time', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        for (const digest of ['x', 'y', 'z']) await store.sessions.create({ digest, userId: alice, createdAt: 7, expiresAt: 100, lastSeenAt: 7, userAgent: '' }, 2);
        expect(await store.sessions.findByDigest('x')).toBeNull();
        expect((await store.sessions.list(alice)).map((s) => s.digest).sort()).toStrictEqual(['y', 'z']);
      });
    });

    it("should delete every session of an account but the one kept, and no one else's", async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        for (let n = 1; n <= 3; n++) await store.sessions.create(session(alice, n), 10);
        await store.sessions.create(session(bob, 1), 10);
        expect(await store.sessions.deleteForUser(alice, `${alice}-2`)).toBe(2);
        expect((await store.sessions.list(alice)).map((s) => s.digest)).toStrictEqual([`${alice}-2`]);
        expect(await store.sessions.deleteForUser(alice)).toBe(1);
        expect(await store.sessions.deleteForUser(alice)).toBe(0);
        expect(await store.sessions.list(bob)).toHaveLength(1);
      });
    });

    it('should purge expired sessions in batches of at most limit, returning fewer only when none remain', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        for (let n = 0; n < 7; n++) await store.sessions.create(session(alice, n, n < 5 ? 100 : 1_000), 50);
        expect(await store.sessions.purgeExpired(100, 2)).toBe(2);
        expect(await store.sessions.purgeExpired(100, 2)).toBe(2);
        expect(await store.sessions.purgeExpired(100, 2)).toBe(1);
        expect(await store.sessions.purgeExpired(100, 2)).toBe(0);
        expect(await store.sessions.purgeExpired(100, 0)).toBe(0);
        for (let n = 0; n < 5; n++) expect(await store.sessions.findByDigest(`${alice}-${n}`)).toBeNull();
        for (let n = 5; n < 7; n++) expect(await store.sessions.findByDigest(`${alice}-${n}`)).not.toBeNull();
        // a purged session no longer counts against the quota
        for (let n = 7; n < 55; n++) await store.sessions.create(session(alice, n, 1_000), 50);
        expect(await store.sessions.findByDigest(`${alice}-5`)).not.toBeNull();
      });
    });
  });
}
