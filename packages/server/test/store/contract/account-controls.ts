/**
 * The store contract for a site administrator's account controls: suspend and reinstate (nothing else changes),
 * the count of active site administrators, deleting every access token of an account, and revoking every OAuth
 * code and token of an account (its consents and other accounts' tokens stay).
 */
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { accountSnapshot, app, code, createUser, newToken, session, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';

/** Registers the account-control cases. */
export function describeAccountControls(open: OpenStore): void {
  describe('account controls', () => {
    it('should suspend an account with its time and reinstate it, every read showing the state and nothing else changing', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [{ email: 'alice@example.com', verified: true }] });
        await store.accessTokens.create(newToken(alice, 'd1'));
        await store.sessions.create(session(alice, 1), 10);
        const before = (await store.accounts.get(alice)) ?? expect.fail('alice exists');
        expect('suspendedAt' in before).toBe(false);
        const suspended = (await store.accounts.setSuspended(alice, 7_000))._unsafeUnwrap();
        expect(suspended).toStrictEqual({ ...before, suspendedAt: 7_000 });
        expect(await store.accounts.get(alice)).toStrictEqual(suspended);
        expect(await store.accounts.findByUsernameKey('alice')).toStrictEqual(suspended);
        expect(await store.accounts.list({ first: 10 })).toStrictEqual([suspended]);
        // nothing is deleted: the token and the session are still there
        expect(await store.accessTokens.findByDigest('d1')).not.toBeNull();
        expect(await store.sessions.findByDigest(`${alice}-1`)).not.toBeNull();
        const reinstated = (await store.accounts.setSuspended(alice, null))._unsafeUnwrap();
        expect(reinstated).toStrictEqual(before);
        expect(await store.accounts.get(alice)).toStrictEqual(before);
      });
    });

    it('should refuse to suspend an unknown account (unknown_user), changing nothing', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'alice');
        const before = await accountSnapshot(store);
        for (const id of ['999999', 'not-an-id']) {
          const refused = await store.accounts.setSuspended(id, 1);
          expect(refused.isErr() && refused.error).toStrictEqual({ code: 'unknown_user', userId: id });
        }
        expect(await accountSnapshot(store)).toStrictEqual(before);
      });
    });

    it('should count site administrators that are not suspended as active', async () => {
      await withStore(open, async (store) => {
        const root = await createUser(store, 'root', { siteAdmin: true });
        const second = await createUser(store, 'second', { siteAdmin: true });
        const member = await createUser(store, 'member');
        expect([await store.accounts.countSiteAdmins(), await store.accounts.countActiveSiteAdmins()]).toStrictEqual([2, 2]);
        await store.accounts.setSuspended(second, 1);
        await store.accounts.setSuspended(member, 1);
        expect([await store.accounts.countSiteAdmins(), await store.accounts.countActiveSiteAdmins()]).toStrictEqual([2, 1]);
        await store.accounts.setSuspended(root, 1);
        expect(await store.accounts.countActiveSiteAdmins()).toBe(0);
        await store.accounts.setSuspended(second, null);
        expect(await store.accounts.countActiveSiteAdmins()).toBe(1);
      });
    });

    it("should delete every access token of an account at once and none of another's", async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        for (const d of ['a1', 'a2', 'a3']) await store.accessTokens.create(newToken(alice, d));
        await store.accessTokens.create(newToken(bob, 'b1'));
        expect(await store.accessTokens.deleteForUser(alice)).toBe(3);
        for (const d of ['a1', 'a2', 'a3']) expect(await store.accessTokens.findByDigest(d)).toBeNull();
        expect(await store.accessTokens.list(alice)).toStrictEqual([]);
        expect(await store.accessTokens.findByDigest('b1')).not.toBeNull();
        expect(await store.accessTokens.deleteForUser(alice)).toBe(0);
        expect(await store.accessTokens.deleteForUser('999999')).toBe(0);
        expect(await store.accessTokens.deleteForUser('not-an-id')).toBe(0);
      });
    });

    it("should revoke every OAuth code and token of an account for every app, keeping its consents and others' tokens", async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        await store.oauth.insertApp(app('gai_c', alice));
        await store.oauth.insertApp(app('gai_d', alice));
        await store.oauth.grantConsent({ userId: alice, clientId: 'gai_c', scopes: ['user:all'], grantedAt: 1 });
        await store.oauth.insertAuthorizationCode(code('c1', alice));
        expect(await store.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f-c1', alice))).toBe(true);
        await store.oauth.insertAuthorizationCode(code('c2', alice, 1_000_000, false, 'gai_d'));
        await store.oauth.insertAuthorizationCode(code('c3', bob));
        expect(await store.oauth.redeemAuthorizationCode('c3', tokens('t3', 'f-c3', bob))).toBe(true);
        expect(await store.oauth.revokeForUser(alice)).toBe(2);
        expect(await store.oauth.findAccessToken('t1-a')).toBeNull();
        expect(await store.oauth.findRefreshToken('t1-r')).toBeNull();
        expect(await store.oauth.findAuthorizationCode('c2')).toBeNull();
        expect(await store.oauth.findAccessToken('t3-a')).not.toBeNull();
        expect(await store.oauth.findRefreshToken('t3-r')).not.toBeNull();
        expect(await store.oauth.findConsent(alice, 'gai_c')).not.toBeNull();
        expect(await store.oauth.revokeForUser(alice)).toBe(0);
        expect(await store.oauth.revokeForUser('not-an-id')).toBe(0);
      });
    });

    it('should undo a suspension and a revocation made in a transaction that resolves err', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.accessTokens.create(newToken(alice, 'd1'));
        const before = await accountSnapshot(store);
        const undone = await store.transaction(async (tx) => {
          await tx.accounts.setSuspended(alice, 5);
          await tx.accessTokens.deleteForUser(alice);
          await tx.oauth.revokeForUser(alice);
          return err('undo' as const);
        });
        expect(undone.isErr()).toBe(true);
        expect(await accountSnapshot(store)).toStrictEqual(before);
        expect(await store.accessTokens.findByDigest('d1')).not.toBeNull();
      });
    });
  });
}
