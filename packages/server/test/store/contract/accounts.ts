/**
 * The store contract for accounts: creation under the first free username, the lookups by the core's keys, every
 * conflict, links, provider credentials, paging, and the cascade of a deletion.
 */
import { describe, expect, it } from 'vitest';
import { ACCOUNT_ORIGINS } from '../../../../../src/core/account-directory.js';
import { emailMatchKey, externalAccountKey, usernameKey } from '../../../../../src/core/store-keys.js';
import { accountSnapshot, app, code, createUser, newAccount, newToken, session, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';

const hosta = (accountId: string) => ({ serviceType: 'hosta', serviceId: 'https://hosta.example', accountId, createdAt: 2_000 });
const hostaKey = (accountId: string): string => externalAccountKey('hosta', 'https://hosta.example', accountId);

/** Registers the account cases. */
export function describeAccounts(open: OpenStore): void {
  describe('accounts.create and the lookups by key', () => {
    it('should create an account with its emails and link, and find it by id, username, verified email and link', async () => {
      await withStore(open, async (store) => {
        const input = newAccount({
          usernames: ['Alice'],
          emails: [
            { email: 'Alice@Example.com', verified: true },
            { email: 'other@example.com', verified: false },
          ],
          passwordHash: 'scrypt$x',
          externalAccount: hosta('42'),
        });
        const created = (await store.accounts.create(input))._unsafeUnwrap();
        expect(created).toStrictEqual({
          id: created.id,
          username: 'Alice',
          origin: 'admin_created',
          siteAdmin: false,
          serviceAccount: false,
          emails: input.emails,
          passwordHash: 'scrypt$x',
          createdAt: 1_000,
        });
        expect(typeof created.id).toBe('string');
        expect(await store.accounts.get(created.id)).toStrictEqual(created);
        expect(await store.accounts.findByUsernameKey(usernameKey('ALICE'))).toStrictEqual(created);
        expect(await store.accounts.findByVerifiedEmailKey(emailMatchKey('alice@EXAMPLE.com'))).toStrictEqual(created);
        expect(await store.accounts.findByExternalAccountKey(hostaKey('42'))).toStrictEqual(created);
        expect(await store.accounts.links(created.id)).toStrictEqual([{ ...hosta('42'), userId: created.id }]);
      });
    });

    it('should never find an account by an unverified email, nor by an unknown key or id', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'alice', { emails: [{ email: 'a@x.io', verified: false }] });
        expect(await store.accounts.findByVerifiedEmailKey(emailMatchKey('a@x.io'))).toBeNull();
        expect(await store.accounts.findByUsernameKey(usernameKey('bob'))).toBeNull();
        expect(await store.accounts.findByExternalAccountKey(hostaKey('1'))).toBeNull();
        expect(await store.accounts.get('999999')).toBeNull();
      });
    });

    it('should copy records in and out: changing a returned or given record changes nothing stored', async () => {
      await withStore(open, async (store) => {
        const emails = [{ email: 'a@x.io', verified: true }];
        const input = { ...newAccount({ usernames: ['alice'] }), emails };
        const created = (await store.accounts.create(input))._unsafeUnwrap();
        emails.push({ email: 'b@x.io', verified: true });
        (created.emails as unknown as { email: string }[]).push({ email: 'c@x.io' });
        const read = await store.accounts.get(created.id);
        expect(read?.emails).toStrictEqual([{ email: 'a@x.io', verified: true }]);
        if (read !== null) (read.emails as unknown as unknown[]).length = 0;
        expect((await store.accounts.get(created.id))?.emails).toStrictEqual([{ email: 'a@x.io', verified: true }]);
      });
    });

    it('should take the first candidate whose username key is free (§5.5 rule 8), and refuse when all are taken', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'alice');
        await createUser(store, 'alice-1');
        const third = await store.accounts.create(newAccount({ usernames: ['ALICE', 'Alice-1', 'alice-2', 'alice-3'] }));
        expect(third._unsafeUnwrap().username).toBe('alice-2');
        const before = await accountSnapshot(store);
        const refused = await store.accounts.create(newAccount({ usernames: ['ALICE', 'alice-2'] }));
        expect(refused.isErr() && refused.error.code).toBe('username_taken');
        expect(refused.isErr() && ['ALICE', 'alice-2'].includes((refused.error as { username: string }).username)).toBe(true);
        expect(await accountSnapshot(store)).toStrictEqual(before);
      });
    });

    it.each([
      { ref: '§5.5 ASCII case only: Ä and ä differ', lookup: 'ÄRGER', expected: null },
      { ref: '§5.5 ASCII case folds', lookup: 'äRGER', expected: 'ärger' },
    ])('should find accounts by username with the core rule ($ref)', async ({ lookup, expected }) => {
      await withStore(open, async (store) => {
        await createUser(store, 'ärger');
        expect((await store.accounts.findByUsernameKey(usernameKey(lookup)))?.username ?? null).toBe(expected);
      });
    });

    it.each(ACCOUNT_ORIGINS)('should keep the origin %s as given, on every lookup', async (origin) => {
      await withStore(open, async (store) => {
        const input = newAccount({ usernames: ['one'], origin, serviceAccount: origin === 'service_account', emails: [{ email: 'one@example.com', verified: true }] });
        const created = (await store.accounts.create(input))._unsafeUnwrap();
        const found = [
          await store.accounts.get(created.id),
          await store.accounts.findByUsernameKey(usernameKey('ONE')),
          await store.accounts.findByVerifiedEmailKey(emailMatchKey('one@example.com')),
        ];
        expect(found.map((u) => u?.origin)).toStrictEqual([origin, origin, origin]);
      });
    });
  });

  describeCreateConflicts(open);
  describeListAndUpdates(open);
  describeLinks(open);
  describeCascade(open);
}

/** The conflicts of accounts.create. */
function describeCreateConflicts(open: OpenStore): void {
  describe('accounts.create conflicts: a refused create leaves nothing behind', () => {
    it('should refuse a verified email verified on another account (email_taken, §5.4 rule 2), creating no link', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice', { emails: [{ email: 'a@x.io', verified: true }] });
        const before = await accountSnapshot(store);
        const refused = await store.accounts.create(
          newAccount({ usernames: ['bob'], emails: [{ email: 'A@X.IO', verified: true }], externalAccount: hosta('7') }),
        );
        expect(refused.isErr() && refused.error).toStrictEqual({ code: 'email_taken', email: 'A@X.IO' });
        expect(await accountSnapshot(store)).toStrictEqual(before);
        expect(await store.accounts.findByExternalAccountKey(hostaKey('7'))).toBeNull();
        expect(await store.accounts.findByUsernameKey(usernameKey('bob'))).toBeNull();
        expect((await store.accounts.findByVerifiedEmailKey(emailMatchKey('a@x.io')))?.id).toBe(alice);
      });
    });

    it('should accept an address another account holds unverified, or holds verified while this one is unverified', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'alice', { emails: [{ email: 'a@x.io', verified: false }, { email: 'b@x.io', verified: true }] });
        const bob = await store.accounts.create(
          newAccount({ usernames: ['bob'], emails: [{ email: 'a@x.io', verified: true }, { email: 'B@x.io', verified: false }] }),
        );
        expect(bob.isOk()).toBe(true);
        expect((await store.accounts.findByVerifiedEmailKey(emailMatchKey('a@x.io')))?.username).toBe('bob');
        expect((await store.accounts.findByVerifiedEmailKey(emailMatchKey('b@x.io')))?.username).toBe('alice');
      });
    });

    it('should refuse an identity linked to another account (external_account_taken, §5.4 rule 4), indexing no email', async () => {
      await withStore(open, async (store) => {
        await createUser(store, 'one', { externalAccount: hosta('42') });
        const before = await accountSnapshot(store);
        const second = await store.accounts.create(
          newAccount({ usernames: ['two'], emails: [{ email: 'two@x.io', verified: true }], externalAccount: hosta('42') }),
        );
        expect(second.isErr() && second.error).toStrictEqual({ code: 'external_account_taken', serviceType: 'hosta', accountId: '42' });
        expect(await accountSnapshot(store)).toStrictEqual(before);
        expect(await store.accounts.findByVerifiedEmailKey(emailMatchKey('two@x.io'))).toBeNull();
        expect((await store.accounts.list({ first: 10 })).map((u) => u.username)).toStrictEqual(['one']);
      });
    });
  });

}

/** Listing, counting and updating accounts. */
function describeListAndUpdates(open: OpenStore): void {
  describe('accounts: list, count and updates', () => {
    it('should page oldest first with an after cursor, reaching every account once, and filter by username key', async () => {
      await withStore(open, async (store) => {
        const names = ['ann', 'Bob', 'cyd', 'ANNA', 'eve', 'joanne', 'zed'];
        for (const name of names) await createUser(store, name, { siteAdmin: name === 'eve' || name === 'zed' });
        const seen: string[] = [];
        let after: string | undefined;
        for (let page = 0; page < 10; page++) {
          const rows = await store.accounts.list({ first: 3, ...(after === undefined ? {} : { after }) });
          if (rows.length === 0) break;
          expect(rows.length).toBeLessThanOrEqual(3);
          seen.push(...rows.map((u) => u.username));
          after = rows[rows.length - 1]?.id;
        }
        expect(seen).toStrictEqual(names);
        expect((await store.accounts.list({ first: 10, query: 'AnN' })).map((u) => u.username)).toStrictEqual(['ann', 'ANNA', 'joanne']);
        expect(await store.accounts.count()).toBe(7);
        expect(await store.accounts.countSiteAdmins()).toBe(2);
      });
    });

    it('should search usernames by a substring of several words exactly as by the whole substring', async () => {
      await withStore(open, async (store) => {
        for (const name of ['Jo-Ann-Lee', 'ann-lee', 'jo-ann', 'joann-lee', 'x_ann_l', 'ANN']) await createUser(store, name);
        const found = async (query: string): Promise<string[]> => (await store.accounts.list({ first: 10, query })).map((u) => u.username);
        expect(await found('o-ann-l')).toStrictEqual(['Jo-Ann-Lee']);
        expect(await found('-ANN-')).toStrictEqual(['Jo-Ann-Lee']);
        expect(await found('ann-l')).toStrictEqual(['Jo-Ann-Lee', 'ann-lee', 'joann-lee']);
        expect(await found('_ann_')).toStrictEqual(['x_ann_l']);
        expect(await found('-ann_')).toStrictEqual([]);
        expect(await found('o-ann-lee-')).toStrictEqual([]);
      });
    });

    it('should update site administration and the password hash, and refuse an unknown account (unknown_user)', async () => {
      await withStore(open, async (store) => {
        const id = await createUser(store, 'alice');
        expect((await store.accounts.setSiteAdmin(id, true))._unsafeUnwrap().siteAdmin).toBe(true);
        expect(await store.accounts.countSiteAdmins()).toBe(1);
        expect((await store.accounts.setPasswordHash(id, 'scrypt$y'))._unsafeUnwrap().passwordHash).toBe('scrypt$y');
        expect((await store.accounts.findByUsernameKey('alice'))?.passwordHash).toBe('scrypt$y');
        expect((await store.accounts.setSiteAdmin(id, false))._unsafeUnwrap().siteAdmin).toBe(false);
        expect(await store.accounts.countSiteAdmins()).toBe(0);
        for (const refused of [
          await store.accounts.setSiteAdmin('999999', true),
          await store.accounts.setPasswordHash('999999', null),
          await store.accounts.setUsername('999999', 'x'),
          await store.accounts.delete('999999'),
        ]) {
          expect(refused.isErr() && refused.error).toStrictEqual({ code: 'unknown_user', userId: '999999' });
        }
      });
    });

    it('should rename an account, freeing the old key, and refuse a name another account holds (username_taken)', async () => {
      await withStore(open, async (store) => {
        const alice = await createUser(store, 'alice');
        await createUser(store, 'bob');
        const taken = await store.accounts.setUsername(alice, 'BOB');
        expect(taken.isErr() && taken.error).toStrictEqual({ code: 'username_taken', username: 'BOB' });
        expect((await store.accounts.setUsername(alice, 'ALICE'))._unsafeUnwrap().username).toBe('ALICE');
        expect((await store.accounts.setUsername(alice, 'carol'))._unsafeUnwrap().username).toBe('carol');
        expect(await store.accounts.findByUsernameKey('alice')).toBeNull();
        expect((await store.accounts.findByUsernameKey('carol'))?.id).toBe(alice);
        expect((await store.accounts.create(newAccount({ usernames: ['Alice'] }))).isOk()).toBe(true);
      });
    });
  });

}

/** Links and provider credentials. */
function describeLinks(open: OpenStore): void {
  describe('accounts: links and provider credentials', () => {
    it('should link, list oldest first, refuse taken and unknown, and unlink only from the owning account', async () => {
      await withStore(open, async (store) => {
        const user = await createUser(store, 'one', { externalAccount: hosta('1') });
        expect((await store.accounts.link({ ...hosta('2'), userId: user })).isOk()).toBe(true);
        expect((await store.accounts.links(user)).map((l) => l.accountId)).toStrictEqual(['1', '2']);
        const other = await createUser(store, 'two');
        const taken = await store.accounts.link({ ...hosta('2'), userId: other });
        expect(taken.isErr() && taken.error).toStrictEqual({ code: 'external_account_taken', serviceType: 'hosta', accountId: '2' });
        const nobody = await store.accounts.link({ ...hosta('3'), userId: '999999' });
        expect(nobody.isErr() && nobody.error).toStrictEqual({ code: 'unknown_user', userId: '999999' });
        expect(await store.accounts.findByExternalAccountKey(hostaKey('3'))).toBeNull();

        const ref = { serviceType: 'hosta', serviceId: 'https://hosta.example', accountId: '2' };
        const notMine = await store.accounts.unlink(other, ref);
        expect(notMine.isErr() && notMine.error).toStrictEqual({ code: 'unknown_external_account', serviceType: 'hosta', accountId: '2' });
        expect((await store.accounts.findByExternalAccountKey(hostaKey('2')))?.id).toBe(user);
        expect((await store.accounts.unlink(user, { ...ref, accountId: '1' }))._unsafeUnwrap()).toStrictEqual({ ...hosta('1'), userId: user });
        expect((await store.accounts.links(user)).map((l) => l.accountId)).toStrictEqual(['2']);
        expect(await store.accounts.findByExternalAccountKey(hostaKey('1'))).toBeNull();
        const again = await store.accounts.unlink(user, { ...ref, accountId: '1' });
        expect(again.isErr() && again.error.code).toBe('unknown_external_account');
        const unknownUser = await store.accounts.unlink('999999', ref);
        expect(unknownUser.isErr() && unknownUser.error.code).toBe('unknown_user');
        // the identity is free again once unlinked
        expect((await store.accounts.link({ ...hosta('1'), userId: other })).isOk()).toBe(true);
      });
    });

    it('should keep one credential per account and provider, replace it, list and remove it', async () => {
      await withStore(open, async (store) => {
        const user = await createUser(store, 'one');
        const record = { userId: user, serviceType: 'reviewhost', serviceId: 'https://r.example', accountId: 'a', sealed: 'v1.x', createdAt: 0 };
        const unknown = await store.accounts.putCredential({ ...record, userId: '999999' });
        expect(unknown.isErr() && unknown.error.code).toBe('unknown_user');
        expect((await store.accounts.putCredential(record))._unsafeUnwrap()).toStrictEqual(record);
        await store.accounts.putCredential({ ...record, sealed: 'v1.y' });
        expect(await store.accounts.credentials(user)).toStrictEqual([{ ...record, sealed: 'v1.y' }]);
        const second = { ...record, serviceId: 'https://r2.example', createdAt: 5 };
        await store.accounts.putCredential(second);
        expect(await store.accounts.credentials(user)).toStrictEqual([{ ...record, sealed: 'v1.y' }, second]);
        expect((await store.accounts.deleteCredential(user, 'reviewhost', 'https://r.example')).isOk()).toBe(true);
        expect(await store.accounts.credentials(user)).toStrictEqual([second]);
        const gone = await store.accounts.deleteCredential(user, 'reviewhost', 'https://r.example');
        expect(gone.isErr() && gone.error.code).toBe('unknown_external_account');
      });
    });
  });

}

/** The cascade of accounts.delete. */
function describeCascade(open: OpenStore): void {
  describe('accounts.delete: the cascade', () => {
    it('should delete the account with its emails, links, credentials, access tokens, sessions and OAuth codes and tokens', async () => {
      await withStore(open, async (store) => {
        const emails = [{ email: 'a@x.io', verified: true }];
        const alice = await createUser(store, 'alice', { emails, externalAccount: hosta('1') });
        const bob = await createUser(store, 'bob', { emails: [{ email: 'b@x.io', verified: true }], externalAccount: hosta('2') });
        const admin = await createUser(store, 'root', { siteAdmin: true });
        expect((await store.oauth.insertApp(app('gai_c', admin))).isOk()).toBe(true);
        for (const [user, name] of [[alice, 'a'], [bob, 'b']] as const) {
          await store.accounts.putCredential({ userId: user, serviceType: 'reviewhost', serviceId: 'r', accountId: name, sealed: 's', createdAt: 0 });
          expect((await store.accessTokens.create(newToken(user, `digest-${name}`))).isOk()).toBe(true);
          expect((await store.sessions.create(session(user, 1), 10)).isOk()).toBe(true);
          expect((await store.oauth.insertAuthorizationCode(code(`code-${name}`, user))).isOk()).toBe(true);
          expect(await store.oauth.redeemAuthorizationCode(`code-${name}`, tokens(`t-${name}`, `f-${name}`, user))).toBe(true);
          expect((await store.oauth.insertAuthorizationCode(code(`unused-${name}`, user))).isOk()).toBe(true);
        }
        const aliceToken = await store.accessTokens.findByDigest('digest-a');

        const deleted = await store.accounts.delete(alice);
        expect(deleted._unsafeUnwrap().username).toBe('alice');
        expect(await store.accounts.get(alice)).toBeNull();
        expect(await store.accounts.findByUsernameKey('alice')).toBeNull();
        expect(await store.accounts.findByVerifiedEmailKey('a@x.io')).toBeNull();
        expect(await store.accounts.findByExternalAccountKey(hostaKey('1'))).toBeNull();
        expect(await store.accounts.links(alice)).toStrictEqual([]);
        expect(await store.accounts.credentials(alice)).toStrictEqual([]);
        expect(await store.accessTokens.findByDigest('digest-a')).toBeNull();
        expect(await store.accessTokens.get(aliceToken?.id ?? '')).toBeNull();
        expect(await store.accessTokens.list(alice)).toStrictEqual([]);
        expect(await store.sessions.findByDigest(`${alice}-1`)).toBeNull();
        expect(await store.oauth.findAuthorizationCode('unused-a')).toBeNull();
        expect(await store.oauth.redeemAuthorizationCode('unused-a', tokens('t-x', 'f-x', alice))).toBe(false);
        expect(await store.oauth.findAccessToken('t-a-a')).toBeNull();
        expect(await store.oauth.findRefreshToken('t-a-r')).toBeNull();
        expect(await store.oauth.rotateRefreshToken('t-a-r', tokens('t-y', 'f-a', alice))).toBe(false);

        // bob keeps everything
        expect((await store.accounts.findByVerifiedEmailKey('b@x.io'))?.id).toBe(bob);
        expect((await store.accounts.findByExternalAccountKey(hostaKey('2')))?.id).toBe(bob);
        expect(await store.accounts.credentials(bob)).toHaveLength(1);
        expect(await store.accessTokens.findByDigest('digest-b')).not.toBeNull();
        expect(await store.sessions.findByDigest(`${bob}-1`)).not.toBeNull();
        expect(await store.oauth.findAccessToken('t-b-a')).not.toBeNull();
        expect(await store.oauth.findRefreshToken('t-b-r')).not.toBeNull();
        expect(await store.oauth.findAuthorizationCode('unused-b')).not.toBeNull();
        expect(await store.accounts.count()).toBe(2);

        // the keys are free again, and a second delete is refused
        expect((await store.accounts.create(newAccount({ usernames: ['ALICE'], emails, externalAccount: hosta('1') }))).isOk()).toBe(true);
        const again = await store.accounts.delete(alice);
        expect(again.isErr() && again.error).toStrictEqual({ code: 'unknown_user', userId: alice });
      });
    });
  });
}
