/**
 * The store contract for transactions: the changes of a transaction are kept together when its work resolves
 * `ok`, and all undone, in every part of the store, when it resolves `err` or rejects.
 */
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';

import { accountSnapshot, app, auditInput, code, createUser, ephemeralEntry, newAccount, newToken, session, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { Store } from '../../../src/store/types.js';

/** Everything readable in every part of the store (given the accounts, codes and keys the cases use). */
async function everything(store: Store): Promise<unknown> {
  return {
    accounts: await accountSnapshot(store),
    admins: await store.accounts.countSiteAdmins(),
    apps: await store.oauth.listApps(),
    codes: [await store.oauth.findAuthorizationCode('c0'), await store.oauth.findAuthorizationCode('c1')],
    oauthTokens: [await store.oauth.findRefreshToken('t0-r'), await store.oauth.findRefreshToken('t1-r'), await store.oauth.findAccessToken('t1-a')],
    audit: await store.audit.list(100),
    ephemeral: [
      await store.ephemeral.get('flow_state', 'k0', 0),
      await store.ephemeral.get('flow_state', 'k1', 0),
      await store.ephemeral.count('flow_state', 0),
      await store.ephemeral.heaviestGroup('flow_state', 0),
    ],
  };
}

/** A store with one of everything; returns alice's id. */
async function seed(store: Store): Promise<string> {
  const alice = await createUser(store, 'alice', { emails: [{ email: 'a@x.io', verified: true }], externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: '1', createdAt: 0 } });
  await store.accessTokens.create(newToken(alice, 'd0'));
  await store.sessions.create(session(alice, 0), 5);
  await store.oauth.insertApp(app('gai_c', alice));
  await store.oauth.insertAuthorizationCode(code('c0', alice));
  await store.oauth.redeemAuthorizationCode('c0', tokens('t0', 'f0', alice));
  await store.audit.append(auditInput({ action: 'seeded', coalesceKey: 'k' }));
  await store.ephemeral.put(ephemeralEntry('k0'));
  return alice;
}

/** Changes every part of the store through `tx`, reading its own writes as it goes. */
async function changeEverything(tx: Store, alice: string): Promise<void> {
  const bob = (await tx.accounts.create(newAccount({ usernames: ['bob'], emails: [{ email: 'b@x.io', verified: true }] })))._unsafeUnwrap();
  expect((await tx.accounts.findByUsernameKey('bob'))?.id).toBe(bob.id);
  await tx.accounts.setSiteAdmin(alice, true);
  await tx.accounts.setUsername(alice, 'alice2');
  await tx.accounts.link({ serviceType: 'hosta', serviceId: 'h', accountId: '2', userId: bob.id, createdAt: 0 });
  await tx.accounts.putCredential({ userId: bob.id, serviceType: 'reviewhost', serviceId: 'r', accountId: 'b', sealed: 's', createdAt: 0 });
  const token = (await tx.accessTokens.findByDigest('d0'))?.id ?? '';
  await tx.accessTokens.delete(token);
  await tx.accessTokens.create(newToken(bob.id, 'd1'));
  await tx.sessions.create(session(alice, 1), 1);
  await tx.oauth.setAppSecretHash('gai_c', 'changed');
  await tx.oauth.insertAuthorizationCode(code('c1', alice));
  expect(await tx.oauth.redeemAuthorizationCode('c1', tokens('t1', 'f1', alice))).toBe(true);
  expect(await tx.oauth.rotateRefreshToken('t0-r', tokens('t2', 'f0', alice))).toBe(true);
  await tx.oauth.revokeFamily('f1');
  await tx.audit.append(auditInput({ action: 'seeded', coalesceKey: 'k', timestamp: 5 }));
  await tx.audit.append(auditInput({ action: 'new' }));
  await tx.audit.purge(1, 10);
  expect(await tx.ephemeral.take('flow_state', 'k0', 0)).not.toBeNull();
  await tx.ephemeral.put(ephemeralEntry('k1', { group: 'g2' }));
  await tx.ephemeral.purgeExpired(5_000, 10);
  await tx.accounts.delete(bob.id);
}

/** Registers the transaction cases. */
export function describeTransactions(open: OpenStore): void {
  describe('transaction', () => {
    it('should keep every change when the work resolves ok, and return its value', async () => {
      await withStore(open, async (store) => {
        const alice = await seed(store);
        const before = await everything(store);
        const result = await store.transaction(async (tx) => {
          await changeEverything(tx, alice);
          return ok(42);
        });
        expect(result._unsafeUnwrap()).toBe(42);
        expect(await everything(store)).not.toStrictEqual(before);
        expect((await store.accounts.get(alice))?.username).toBe('alice2');
        expect(await store.accessTokens.findByDigest('d0')).toBeNull();
        expect(await store.ephemeral.get('flow_state', 'k0', 0)).toBeNull();
      });
    });

    it('should undo every change, in every part of the store, when the work resolves err', async () => {
      await withStore(open, async (store) => {
        const alice = await seed(store);
        const before = await everything(store);
        const result = await store.transaction(async (tx) => {
          await changeEverything(tx, alice);
          return err({ code: 'refused' });
        });
        expect(result._unsafeUnwrapErr()).toStrictEqual({ code: 'refused' });
        expect(await everything(store)).toStrictEqual(before);
      });
    });

    it('should undo every change and reject when the work rejects', async () => {
      await withStore(open, async (store) => {
        const alice = await seed(store);
        const before = await everything(store);
        const failing = store.transaction(async (tx) => {
          await changeEverything(tx, alice);
          throw new Error('boom');
        });
        await expect(failing).rejects.toThrow('boom');
        expect(await everything(store)).toStrictEqual(before);
      });
    });

    it('should undo a failed create in a transaction, leaving no emails or link', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'alice');
        const result = await store.transaction<unknown, { readonly code: string }>(async (tx) => {
          const created = await tx.accounts.create(
            newAccount({ usernames: ['bob'], emails: [{ email: 'b@x.io', verified: true }], externalAccount: { serviceType: 'x', serviceId: 'y', accountId: 'z', createdAt: 0 } }),
          );
          if (created.isErr()) return err(created.error);
          const token = await tx.accessTokens.create(newToken(created.value.id, 'd'));
          return token.isOk() ? err({ code: 'later_step_failed' as const }) : err(token.error);
        });
        expect(result.isErr()).toBe(true);
        expect(await store.accounts.findByUsernameKey('bob')).toBeNull();
        expect(await store.accounts.findByVerifiedEmailKey('b@x.io')).toBeNull();
        expect(await store.accounts.findByExternalAccountKey(JSON.stringify(['x', 'y', 'z']))).toBeNull();
        expect(await store.accessTokens.findByDigest('d')).toBeNull();
        expect(await store.accounts.count()).toBe(1);
      });
    });

    it('should run a transaction on the transaction store inside the same transaction', async () => {
      await withStore(open, async (store) => {
        const result = await store.transaction(async (tx) => {
          const inner = await tx.transaction(async (inside) => ok(await inside.accounts.create(newAccount({ usernames: ['bob'] }))));
          expect(inner.isOk()).toBe(true);
          expect(await tx.accounts.count()).toBe(1);
          return err({ code: 'outer_failed' });
        });
        expect(result.isErr()).toBe(true);
        expect(await store.accounts.count()).toBe(0);
        const kept = await store.transaction((tx) => tx.transaction(async (inside) => inside.accounts.create(newAccount({ usernames: ['carol'] }))));
        expect(kept.isOk()).toBe(true);
        expect(await store.accounts.count()).toBe(1);
      });
    });

    it('should let operations outside a transaction see all of it or none of it', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        const inside = store.transaction(async (tx) => {
          await tx.accessTokens.create(newToken(alice, 'd1'));
          await new Promise((resolve) => setTimeout(resolve, 5));
          await tx.accessTokens.create(newToken(alice, 'd2'));
          return ok(undefined);
        });
        const counts = await Promise.all([store.accessTokens.count(alice), inside.then(() => store.accessTokens.count(alice))]);
        expect([0, 2]).toContain(counts[0]);
        expect(counts[1]).toBe(2);
      });
    });
  });
}
