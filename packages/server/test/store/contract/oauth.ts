/**
 * The store contract for OAuth (spec §2.4): apps, authorization codes, token families, the single-use
 * redemption and rotation, revocation, the bounded purges, and users' remembered consents.
 */
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';

import { app, code, createUser, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { OAuthConsentRecord, Store } from '../../../src/store/types.js';

/** An account `alice` and the app `gai_c` she registered; returns her id. */
async function setUp(store: Store): Promise<string> {
  const alice = await createUser(store, 'alice', { siteAdmin: true });
  expect((await store.oauth.insertApp(app('gai_c', alice))).isOk()).toBe(true);
  return alice;
}

/** Registers the OAuth cases. */
export function describeOAuth(open: OpenStore): void {
  describe('oauth apps', () => {
    it('should insert, find, list oldest first, update the secret digest and delete apps', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        expect((await store.oauth.insertApp(app('gai_b', alice, 2_000)))._unsafeUnwrap()).toStrictEqual(app('gai_b', alice, 2_000));
        expect(await store.oauth.findApp('gai_c')).toStrictEqual(app('gai_c', alice));
        expect(await store.oauth.findApp('gai_x')).toBeNull();
        expect((await store.oauth.listApps()).map((a) => a.clientId)).toStrictEqual(['gai_c', 'gai_b']);
        const updated = (await store.oauth.setAppSecretHash('gai_c', 'new-digest'))._unsafeUnwrap();
        expect(updated).toStrictEqual({ ...app('gai_c', alice), clientSecretHash: 'new-digest' });
        expect(await store.oauth.findApp('gai_c')).toStrictEqual(updated);
        expect((await store.oauth.deleteApp('gai_b'))._unsafeUnwrap().clientId).toBe('gai_b');
        expect((await store.oauth.listApps()).map((a) => a.clientId)).toStrictEqual(['gai_c']);
      });
    });

    it('should refuse a taken client id (client_id_taken) and an unknown one (unknown_oauth_app), changing nothing', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const taken = await store.oauth.insertApp({ ...app('gai_c', alice), name: 'Other' });
        expect(taken.isErr() && taken.error).toStrictEqual({ code: 'client_id_taken', clientId: 'gai_c' });
        expect((await store.oauth.findApp('gai_c'))?.name).toBe('App gai_c');
        for (const refused of [await store.oauth.setAppSecretHash('gai_x', 'd'), await store.oauth.deleteApp('gai_x')]) {
          expect(refused.isErr() && refused.error).toStrictEqual({ code: 'unknown_oauth_app', clientId: 'gai_x' });
        }
        expect(await store.oauth.listApps()).toHaveLength(1);
      });
    });

    it('should delete an app with its codes and tokens, and no other app’s', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        await store.oauth.insertApp(app('gai_b', alice));
        await store.oauth.insertAuthorizationCode(code('c1', alice));
        await store.oauth.insertAuthorizationCode(code('c2', alice, 1_000_000, false, 'gai_b'));
        expect(await store.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f-c1', alice))).toBe(true);
        expect(await store.oauth.redeemAuthorizationCode('c2', tokens('t2', 'f-c2', alice, 1_000_000, 'gai_b'))).toBe(true);
        expect((await store.oauth.deleteApp('gai_c')).isOk()).toBe(true);
        expect(await store.oauth.findAuthorizationCode('c1')).toBeNull();
        expect(await store.oauth.findAccessToken('t1-a')).toBeNull();
        expect(await store.oauth.findRefreshToken('t1-r')).toBeNull();
        expect(await store.oauth.findAuthorizationCode('c2')).not.toBeNull();
        expect(await store.oauth.findAccessToken('t2-a')).not.toBeNull();
        expect(await store.oauth.findRefreshToken('t2-r')).not.toBeNull();
      });
    });
  });

  describe('oauth codes and tokens', () => {
    it('should insert and find a code, refusing a duplicate digest, and redeem it once, storing the pair', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        expect((await store.oauth.insertAuthorizationCode(code('c1', alice)))._unsafeUnwrap()).toStrictEqual(code('c1', alice));
        const duplicate = await store.oauth.insertAuthorizationCode({ ...code('c1', alice), familyId: 'other' });
        expect(duplicate.isErr() && duplicate.error).toStrictEqual({ code: 'duplicate_digest' });
        expect(await store.oauth.findAuthorizationCode('c1')).toStrictEqual(code('c1', alice));
        expect(await store.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f-c1', alice))).toBe(true);
        expect(await store.oauth.findAuthorizationCode('c1')).toStrictEqual(code('c1', alice, 1_000_000, true));
        const pair = tokens('t1', 'f-c1', alice);
        expect(await store.oauth.findAccessToken('t1-a')).toStrictEqual({ ...pair.accessToken, familyRevoked: false });
        expect(await store.oauth.findRefreshToken('t1-r')).toStrictEqual({ ...pair.refreshToken, familyRevoked: false });
        expect(await store.oauth.redeemAuthorizationCode('c1', tokens('t2', 'f-c1', alice))).toBe(false);
        expect(await store.oauth.findAccessToken('t2-a')).toBeNull();
        expect(await store.oauth.redeemAuthorizationCode('nope', tokens('t3', 'f', alice))).toBe(false);
        expect(await store.oauth.findRefreshToken('t3-r')).toBeNull();
      });
    });

    it('should rotate a refresh token once, and never one of a revoked family', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        await store.oauth.insertAuthorizationCode(code('c1', alice));
        await store.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f1', alice));
        expect(await store.oauth.rotateRefreshToken('t1-r', tokens('t2', 'f1', alice))).toBe(true);
        expect(await store.oauth.findRefreshToken('t1-r')).toMatchObject({ used: true, familyRevoked: false });
        expect(await store.oauth.findRefreshToken('t2-r')).toMatchObject({ used: false, familyRevoked: false });
        expect(await store.oauth.rotateRefreshToken('t1-r', tokens('t3', 'f1', alice))).toBe(false);
        expect(await store.oauth.findRefreshToken('t3-r')).toBeNull();
        expect(await store.oauth.rotateRefreshToken('nope', tokens('t4', 'f1', alice))).toBe(false);
        // a replay revokes the family: every token in it stops working, now and later (RFC 9700 §4.14.2)
        await store.oauth.revokeFamily('f1');
        expect(await store.oauth.findRefreshToken('t2-r')).toMatchObject({ familyRevoked: true });
        expect(await store.oauth.findAccessToken('t1-a')).toMatchObject({ familyRevoked: true });
        expect(await store.oauth.findAccessToken('t2-a')).toMatchObject({ familyRevoked: true });
        expect(await store.oauth.rotateRefreshToken('t2-r', tokens('t5', 'f1', alice))).toBe(false);
        expect(await store.oauth.findRefreshToken('t5-r')).toBeNull();
        await store.oauth.revokeFamily('f1');
        expect(await store.oauth.findRefreshToken('t2-r')).toMatchObject({ familyRevoked: true });
      });
    });

    it('should revoke one access token (RFC 7009) and leave its family and refresh token working', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        await store.oauth.insertAuthorizationCode(code('c1', alice));
        await store.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f1', alice));
        await store.oauth.revokeAccessToken('t1-a');
        expect(await store.oauth.findAccessToken('t1-a')).toBeNull();
        expect(await store.oauth.findRefreshToken('t1-r')).toMatchObject({ used: false, familyRevoked: false });
        expect(await store.oauth.rotateRefreshToken('t1-r', tokens('t2', 'f1', alice))).toBe(true);
        expect(await store.oauth.findAccessToken('t2-a')).toMatchObject({ familyRevoked: false });
        await store.oauth.revokeAccessToken('unknown');
      });
    });

    it('should remove used and unused codes expired by the cutoff, at most limit per call, and keep the others', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        await store.oauth.insertAuthorizationCode(code('a', alice, 10, true));
        await store.oauth.insertAuthorizationCode(code('b', alice, 20, false));
        await store.oauth.insertAuthorizationCode(code('c', alice, 30, false));
        await store.oauth.insertAuthorizationCode(code('d', alice, 40, false));
        expect(await store.oauth.purgeAuthorizationCodes(30, 2)).toBe(2);
        expect(await store.oauth.purgeAuthorizationCodes(30, 2)).toBe(1);
        expect(await store.oauth.purgeAuthorizationCodes(30, 2)).toBe(0);
        expect(await store.oauth.findAuthorizationCode('a')).toBeNull();
        expect(await store.oauth.findAuthorizationCode('c')).toBeNull();
        expect(await store.oauth.findAuthorizationCode('d')).toStrictEqual(code('d', alice, 40, false));
      });
    });

    it('should purge expired access and refresh tokens, at most limit per call, and keep live ones', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        for (let n = 0; n < 4; n++) {
          await store.oauth.insertAuthorizationCode(code(`c${n}`, alice));
          await store.oauth.redeemAuthorizationCode(`c${n}`, tokens(`t${n}`, `f${n}`, alice, n < 3 ? 50 : 5_000));
        }
        const purged = [await store.oauth.purgeTokens(50, 4), await store.oauth.purgeTokens(50, 4), await store.oauth.purgeTokens(50, 4)];
        expect(purged).toStrictEqual([4, 2, 0]);
        expect(await store.oauth.purgeTokens(50, 0)).toBe(0);
        for (let n = 0; n < 3; n++) {
          expect(await store.oauth.findAccessToken(`t${n}-a`)).toBeNull();
          expect(await store.oauth.findRefreshToken(`t${n}-r`)).toBeNull();
        }
        expect(await store.oauth.findAccessToken('t3-a')).not.toBeNull();
        expect(await store.oauth.findRefreshToken('t3-r')).not.toBeNull();
      });
    });

    it('should forget a revoked family once the purge removed everything of it, and keep one that still has a token', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        for (const [n, expiresAt] of [[0, 50], [1, 5_000]] as const) {
          await store.oauth.insertAuthorizationCode(code(`c${n}`, alice, 40));
          await store.oauth.redeemAuthorizationCode(`c${n}`, tokens(`t${n}`, `f${n}`, alice, expiresAt));
          await store.oauth.revokeFamily(`f${n}`);
        }
        expect(await store.oauth.purgeAuthorizationCodes(50, 10)).toBe(2);
        expect(await store.oauth.purgeTokens(50, 10)).toBe(2);
        // the family's record is gone with its last token: a later token of that id (a random-source repeat) is not revoked
        await store.oauth.insertAuthorizationCode(code('c2', alice));
        await store.oauth.redeemAuthorizationCode('c2', tokens('t2', 'f0', alice));
        expect(await store.oauth.findAccessToken('t2-a')).toMatchObject({ familyRevoked: false });
        expect(await store.oauth.findAccessToken('t1-a')).toMatchObject({ familyRevoked: true });
      });
    });
  });

  describe('oauth consents (spec §2.4)', () => {
    const consent = (userId: string, clientId: string, scopes: readonly string[], grantedAt: number): OAuthConsentRecord => ({
      userId,
      clientId,
      scopes,
      grantedAt,
    });

    it('should remember an approval with sorted, distinct scopes, find it, and widen it to the union on a new grant', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const first = await store.oauth.grantConsent(consent(alice, 'gai_c', ['user:all', 'openid', 'user:all'], 5_000));
        expect(first._unsafeUnwrap()).toStrictEqual(consent(alice, 'gai_c', ['openid', 'user:all'], 5_000));
        expect(await store.oauth.findConsent(alice, 'gai_c')).toStrictEqual(consent(alice, 'gai_c', ['openid', 'user:all'], 5_000));
        expect(await store.oauth.findConsent(alice, 'gai_x')).toBeNull();
        expect(await store.oauth.findConsent('999999', 'gai_c')).toBeNull();
        // the new grant's time is kept, even when earlier: it is the latest approval the caller made
        const widened = await store.oauth.grantConsent(consent(alice, 'gai_c', ['email', 'user:all'], 4_000));
        expect(widened._unsafeUnwrap()).toStrictEqual(consent(alice, 'gai_c', ['email', 'openid', 'user:all'], 4_000));
        expect(await store.oauth.findConsent(alice, 'gai_c')).toStrictEqual(consent(alice, 'gai_c', ['email', 'openid', 'user:all'], 4_000));
        expect(await store.oauth.listConsents(alice)).toHaveLength(1);
      });
    });

    it('should refuse an unknown account (unknown_user) or app (unknown_oauth_app), storing nothing', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        for (const userId of ['999999', 'nobody']) {
          const refused = await store.oauth.grantConsent(consent(userId, 'gai_c', ['user:all'], 1));
          expect(refused.isErr() && refused.error).toStrictEqual({ code: 'unknown_user', userId });
          expect(await store.oauth.listConsents(userId)).toStrictEqual([]);
        }
        const noApp = await store.oauth.grantConsent(consent(alice, 'gai_x', ['user:all'], 1));
        expect(noApp.isErr() && noApp.error).toStrictEqual({ code: 'unknown_oauth_app', clientId: 'gai_x' });
        const neither = await store.oauth.grantConsent(consent('999999', 'gai_x', ['user:all'], 1));
        expect(neither.isErr() && neither.error.code).toBe('unknown_user');
        expect(await store.oauth.findConsent(alice, 'gai_x')).toBeNull();
        expect(await store.oauth.listConsents(alice)).toStrictEqual([]);
      });
    });

    it("should list an account's approvals oldest first (equal times by client id), and no one else's", async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const bob = await createUser(store, 'bob');
        for (const clientId of ['gai_b', 'gai_a', 'gai_d']) await store.oauth.insertApp(app(clientId, alice));
        await store.oauth.grantConsent(consent(alice, 'gai_d', ['user:all'], 3_000));
        await store.oauth.grantConsent(consent(alice, 'gai_c', ['user:all'], 2_000));
        await store.oauth.grantConsent(consent(alice, 'gai_b', ['user:all'], 2_000));
        await store.oauth.grantConsent(consent(alice, 'gai_a', ['user:all'], 9_000));
        await store.oauth.grantConsent(consent(bob, 'gai_a', ['user:all'], 1_000));
        expect((await store.oauth.listConsents(alice)).map((c) => [c.clientId, c.grantedAt])).toStrictEqual([
          ['gai_b', 2_000],
          ['gai_c', 2_000],
          ['gai_d', 3_000],
          ['gai_a', 9_000],
        ]);
        expect(await store.oauth.listConsents(bob)).toStrictEqual([consent(bob, 'gai_a', ['user:all'], 1_000)]);
        expect(await store.oauth.listConsents('999999')).toStrictEqual([]);
      });
    });

    it('should revoke an approval, returning it, and refuse one that does not exist (unknown_oauth_consent)', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const bob = await createUser(store, 'bob');
        await store.oauth.grantConsent(consent(alice, 'gai_c', ['user:all'], 1_000));
        await store.oauth.grantConsent(consent(bob, 'gai_c', ['user:all'], 1_000));
        expect((await store.oauth.revokeConsent(alice, 'gai_c'))._unsafeUnwrap()).toStrictEqual(consent(alice, 'gai_c', ['user:all'], 1_000));
        expect(await store.oauth.findConsent(alice, 'gai_c')).toBeNull();
        expect(await store.oauth.findConsent(bob, 'gai_c')).not.toBeNull();
        for (const [userId, clientId] of [[alice, 'gai_c'], [alice, 'gai_x'], ['999999', 'gai_c'], ['nobody', 'gai_c']] as const) {
          const refused = await store.oauth.revokeConsent(userId, clientId);
          expect(refused.isErr() && refused.error).toStrictEqual({ code: 'unknown_oauth_consent', userId, clientId });
        }
        // revoked, it can be granted afresh, with only the new scopes
        await store.oauth.grantConsent(consent(alice, 'gai_c', ['openid'], 2_000));
        expect(await store.oauth.findConsent(alice, 'gai_c')).toStrictEqual(consent(alice, 'gai_c', ['openid'], 2_000));
      });
    });

    it("should delete the app's codes and tokens for that account with the approval, and no one else's", async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const bob = await createUser(store, 'bob');
        await store.oauth.insertApp(app('gai_b', alice));
        for (const [userId, clientId, name] of [[alice, 'gai_c', 'ac'], [alice, 'gai_b', 'ab'], [bob, 'gai_c', 'bc']] as const) {
          await store.oauth.grantConsent(consent(userId, clientId, ['user:all'], 1_000));
          await store.oauth.insertAuthorizationCode(code(`${name}-used`, userId, 1_000_000, false, clientId));
          expect(await store.oauth.redeemAuthorizationCode(`${name}-used`, tokens(name, `f-${name}`, userId, 1_000_000, clientId))).toBe(true);
          await store.oauth.insertAuthorizationCode(code(`${name}-fresh`, userId, 1_000_000, false, clientId));
        }
        expect((await store.oauth.revokeConsent(alice, 'gai_c')).isOk()).toBe(true);
        expect(await store.oauth.findAccessToken('ac-a')).toBeNull();
        expect(await store.oauth.findRefreshToken('ac-r')).toBeNull();
        expect(await store.oauth.findAuthorizationCode('ac-fresh')).toBeNull();
        for (const name of ['ab', 'bc']) {
          expect(await store.oauth.findAccessToken(`${name}-a`)).not.toBeNull();
          expect(await store.oauth.findRefreshToken(`${name}-r`)).not.toBeNull();
          expect(await store.oauth.findAuthorizationCode(`${name}-fresh`)).not.toBeNull();
        }
      });
    });

    it("should delete an account's approvals with the account, and an app's with the app, and no others", async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const bob = await createUser(store, 'bob');
        const carol = await createUser(store, 'carol');
        await store.oauth.insertApp(app('gai_b', alice));
        for (const userId of [alice, bob, carol]) {
          for (const clientId of ['gai_b', 'gai_c']) await store.oauth.grantConsent(consent(userId, clientId, ['user:all'], 1_000));
        }
        expect((await store.accounts.delete(bob)).isOk()).toBe(true);
        expect(await store.oauth.listConsents(bob)).toStrictEqual([]);
        expect(await store.oauth.findConsent(bob, 'gai_c')).toBeNull();
        expect((await store.oauth.deleteApp('gai_b')).isOk()).toBe(true);
        for (const userId of [alice, carol]) {
          expect((await store.oauth.listConsents(userId)).map((c) => c.clientId)).toStrictEqual(['gai_c']);
          expect(await store.oauth.findConsent(userId, 'gai_b')).toBeNull();
        }
        // an app registered again under the same client id starts with no approvals
        await store.oauth.insertApp(app('gai_b', alice));
        expect(await store.oauth.findConsent(alice, 'gai_b')).toBeNull();
      });
    });

    it('should copy scopes in and out, and undo a grant in a transaction that fails', async () => {
      await withStore(open, async (store) => {
        const alice = await setUp(store);
        const scopes = ['user:all'];
        const granted = (await store.oauth.grantConsent(consent(alice, 'gai_c', scopes, 1_000)))._unsafeUnwrap();
        scopes.push('site-admin:sudo');
        (granted.scopes as string[]).push('site-admin:sudo');
        expect((await store.oauth.findConsent(alice, 'gai_c'))?.scopes).toStrictEqual(['user:all']);
        const undone = await store.transaction(async (tx) => {
          await tx.oauth.grantConsent(consent(alice, 'gai_c', ['openid'], 2_000));
          await tx.oauth.revokeConsent(alice, 'gai_c');
          return err('changed my mind');
        });
        expect(undone.isErr()).toBe(true);
        expect(await store.oauth.findConsent(alice, 'gai_c')).toStrictEqual(consent(alice, 'gai_c', ['user:all'], 1_000));
      });
    });
  });
}
