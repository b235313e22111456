/**
 * The store contract under concurrent callers: every single-use operation and every unique insert has exactly one
 * winner among two callers racing on it, and two read-then-write transactions behave as if run one after the other.
 */
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';

import { app, code, createUser, ephemeralEntry, newAccount, newToken, session, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { Store } from '../../../src/store/types.js';

/** How many rounds each race runs. */
const ROUNDS = 3;

/** Winners among outcomes: `true`, or a result that is `ok`, or a non-null value. */
const winners = (outcomes: readonly unknown[]): number =>
  outcomes.filter((o) => {
    if (o === null || o === false) return false;
    if (typeof o === 'object' && 'isOk' in o && typeof o.isOk === 'function') return o.isOk() === true;
    return true;
  }).length;

/** Runs `race` ROUNDS times on one store, expecting exactly one winner of two callers each time. */
async function expectOneWinner(open: OpenStore, race: (store: Store, round: number) => Promise<readonly unknown[]>): Promise<void> {
  await withStore(open, async (store) => {
    for (let round = 0; round < ROUNDS; round++) expect(winners(await race(store, round))).toBe(1);
  });
}

/** Registers the race cases. */
export function describeRaces(open: OpenStore): void {
  describe('two callers racing on a single-use operation: exactly one winner', () => {
    it('should let one of two takes of an ephemeral entry have it', async () => {
      await expectOneWinner(open, async (store, round) => {
        await store.ephemeral.put(ephemeralEntry(`k${round}`));
        return Promise.all([store.ephemeral.take('flow_state', `k${round}`, 0), store.ephemeral.take('flow_state', `k${round}`, 0)]);
      });
    });

    it('should let one of two evictions of the only entry of a group have it', async () => {
      await expectOneWinner(open, async (store, round) => {
        await store.ephemeral.put(ephemeralEntry(`k${round}`, { group: `g${round}` }));
        return Promise.all([store.ephemeral.deleteOldest('flow_state', `g${round}`, 0), store.ephemeral.deleteOldest('flow_state', `g${round}`, 0)]);
      });
    });

    it('should redeem an authorization code once, storing only the winner’s tokens', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.oauth.insertApp(app('gai_c', alice));
        for (let round = 0; round < ROUNDS; round++) {
          await store.oauth.insertAuthorizationCode(code(`c${round}`, alice));
          const [one, two] = await Promise.all([
            store.oauth.redeemAuthorizationCode(`c${round}`, tokens(`one${round}`, `f${round}`, alice)),
            store.oauth.redeemAuthorizationCode(`c${round}`, tokens(`two${round}`, `f${round}`, alice)),
          ]);
          expect([one, two].filter(Boolean)).toHaveLength(1);
          const stored = [await store.oauth.findRefreshToken(`one${round}-r`), await store.oauth.findRefreshToken(`two${round}-r`)];
          expect(stored.map((t) => t !== null)).toStrictEqual([one, two]);
        }
      });
    });

    it('should rotate a refresh token once, storing only the winner’s successors', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await store.oauth.insertApp(app('gai_c', alice));
        await store.oauth.insertAuthorizationCode(code('c', alice));
        await store.oauth.redeemAuthorizationCode('c', tokens('t0', 'f', alice));
        let current = 't0';
        for (let round = 1; round <= ROUNDS; round++) {
          const [one, two] = await Promise.all([
            store.oauth.rotateRefreshToken(`${current}-r`, tokens(`a${round}`, 'f', alice)),
            store.oauth.rotateRefreshToken(`${current}-r`, tokens(`b${round}`, 'f', alice)),
          ]);
          expect([one, two].filter(Boolean)).toHaveLength(1);
          current = one ? `a${round}` : `b${round}`;
          expect(await store.oauth.findAccessToken(`${one ? `b${round}` : `a${round}`}-a`)).toBeNull();
          expect(await store.oauth.findRefreshToken(`${current}-r`)).toMatchObject({ used: false });
        }
      });
    });
  });

  describe('two callers racing on a unique insert: exactly one winner', () => {
    it('should create one of two accounts with the same username, verified email or identity', async () => {
      await expectOneWinner(open, (store, round) => {
        const same = [
          [newAccount({ usernames: [`u${round}`] }), newAccount({ usernames: [`U${round}`] })],
          [
            newAccount({ usernames: [`e${round}a`], emails: [{ email: `e${round}@x.io`, verified: true }] }),
            newAccount({ usernames: [`e${round}b`], emails: [{ email: `E${round}@x.io`, verified: true }] }),
          ],
          [
            newAccount({ usernames: [`l${round}a`], externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: String(round), createdAt: 0 } }),
            newAccount({ usernames: [`l${round}b`], externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: String(round), createdAt: 0 } }),
          ],
        ][round % 3] ?? [];
        return Promise.all(same.map((input) => store.accounts.create(input)));
      });
    });

    it('should store one of two access tokens, sessions, codes or apps with the same digest or client id', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const bob = await createUser(store, 'bob');
        const races: (() => Promise<readonly unknown[]>)[] = [
          () => Promise.all([store.accessTokens.create(newToken(alice, 'd')), store.accessTokens.create(newToken(bob, 'd'))]),
          () => Promise.all([store.sessions.create({ ...session(alice, 1), digest: 's' }, 5), store.sessions.create({ ...session(bob, 1), digest: 's' }, 5)]),
          () => Promise.all([store.oauth.insertApp(app('gai_c', alice)), store.oauth.insertApp(app('gai_c', bob))]),
          () => Promise.all([store.oauth.insertAuthorizationCode(code('c', alice)), store.oauth.insertAuthorizationCode(code('c', bob))]),
          () => Promise.all([store.accounts.delete(bob), store.accounts.delete(bob)]),
        ];
        for (const race of races) expect(winners(await race())).toBe(1);
      });
    });
  });

  describe('two callers racing on a deletion: exactly one deletes', () => {
    it('should let one of two deletions of a token, session, ephemeral entry, link or credential succeed', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: '1', createdAt: 0 } });
        const token = (await store.accessTokens.create(newToken(alice, 'd')))._unsafeUnwrap();
        await store.sessions.create(session(alice, 1), 5);
        await store.ephemeral.put(ephemeralEntry('k'));
        await store.accounts.putCredential({ userId: alice, serviceType: 'reviewhost', serviceId: 'r', accountId: 'a', sealed: 's', createdAt: 0 });
        const ref = { serviceType: 'hosta', serviceId: 'h', accountId: '1' };
        const races: (() => Promise<readonly unknown[]>)[] = [
          () => Promise.all([store.accessTokens.delete(token.id), store.accessTokens.delete(token.id)]),
          () => Promise.all([store.sessions.delete(`${alice}-1`), store.sessions.delete(`${alice}-1`)]),
          () => Promise.all([store.ephemeral.delete('flow_state', 'k', 0), store.ephemeral.delete('flow_state', 'k', 0)]),
          () => Promise.all([store.accounts.unlink(alice, ref), store.accounts.unlink(alice, ref)]),
          () => Promise.all([store.accounts.deleteCredential(alice, 'reviewhost', 'r'), store.accounts.deleteCredential(alice, 'reviewhost', 'r')]),
        ];
        for (const race of races) expect(winners(await race())).toBe(1);
      });
    });
  });

  describe('two read-then-write transactions: as if one after the other', () => {
    it('should keep a quota checked in a transaction: two racing creations under a quota of one store one token', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const createUnderQuota = (digest: string) =>
          store.transaction<unknown, { readonly code: string }>(async (tx) => {
            if ((await tx.accessTokens.count(alice)) >= 1) return err({ code: 'quota' as const });
            return (await tx.accessTokens.create(newToken(alice, digest))).mapErr((e) => ({ code: e.code }));
          });
        const results = await Promise.all([createUnderQuota('d1'), createUnderQuota('d2')]);
        expect(results.filter((r) => r.isOk())).toHaveLength(1);
        expect(await store.accessTokens.count(alice)).toBe(1);
      });
    });

    it('should never unlink the last way in: two racing unlinks guarded in transactions leave one link', async () => {
      await withStore(open, async (store) => {
        const ext = (accountId: string) => ({ serviceType: 'hosta', serviceId: 'h', accountId, createdAt: 0 });
        const alice = await createUser(store, 'alice', { externalAccount: ext('1') });
        await store.accounts.link({ ...ext('2'), userId: alice });
        const unlinkGuarded = (accountId: string) =>
          store.transaction<unknown, { readonly code: string }>(async (tx) => {
            if ((await tx.accounts.links(alice)).length <= 1) return err({ code: 'last_way_in' as const });
            const unlinked = await tx.accounts.unlink(alice, { serviceType: 'hosta', serviceId: 'h', accountId });
            return unlinked.isOk() ? ok(unlinked.value) : err({ code: unlinked.error.code });
          });
        const results = await Promise.all([unlinkGuarded('1'), unlinkGuarded('2')]);
        expect(results.filter((r) => r.isOk())).toHaveLength(1);
        expect(await store.accounts.links(alice)).toHaveLength(1);
      });
    });
  });
}
