/**
 * What the PostgreSQL store's SQL must do on either driver: the constraints decide conflicts, a refused write
 * leaves nothing, single-use operations have one winner among concurrent callers, transactions roll back, an
 * account takes its rows with it, and purges are bounded. Run on PGlite in memory and on a real server.
 */
import { err, ok } from 'neverthrow';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emailMatchKey, externalAccountKey, usernameKey } from '../../../../../src/core/store-keys.js';
import type { SqlDriver } from '../../../src/store/postgres/driver.js';
import { applyMigrations } from '../../../src/store/postgres/migrate.js';
import { createPostgresStore } from '../../../src/store/postgres/store.js';
import type { IssuedOAuthTokens, NewAccount, Store } from '../../../src/store/types.js';
import { resetStoreTables } from '../../helpers/postgres-store.js';
import { DEFAULT_SIGN_IN_THROTTLE_POLICY } from '../../../../../src/core/sign-in/throttle.js';
import { putPending } from '../../../src/sign-in/pending.js';
import { admitAttempt } from '../../../src/store/throttle.js';


const account = (username: string, extra: Partial<NewAccount> = {}): NewAccount => ({
  usernames: [username],
  origin: 'password_signup',
  siteAdmin: false,
  serviceAccount: false,
  emails: [],
  passwordHash: null,
  createdAt: 1_000,
  ...extra,
});

const pair = (n: string, userId: string, familyId = 'f1'): IssuedOAuthTokens => ({
  accessToken: { tokenHash: `a-${n}`, familyId, clientId: 'c1', userId, scopes: ['user:all'], expiresAt: 5_000 },
  refreshToken: { tokenHash: `r-${n}`, familyId, clientId: 'c1', userId, scopes: ['user:all'], expiresAt: 9_000, used: false },
});

/** Registers the behaviour tests against a driver from `open` (one database for the file, emptied before each test). */
export function describeSqlBehaviour(name: string, open: () => Promise<SqlDriver>, racers: number): void {
  describe(name, () => {
    let driver: SqlDriver;
    let store: Store;

    beforeAll(async () => {
      driver = await open();
      expect((await applyMigrations(driver)).isOk()).toBe(true);
      store = createPostgresStore(driver);
    }, 120_000);
    afterAll(async () => {
      await store.close();
    });
    beforeEach(async () => {
      await resetStoreTables(driver);
    });

    const user = async (username: string, extra: Partial<NewAccount> = {}): Promise<string> => (await store.accounts.create(account(username, extra)))._unsafeUnwrap().id;

    it('should take the first free username candidate by usernameKey (§5.5 rule 8), and refuse when all are taken', async () => {
      await user('Alice');
      const second = await store.accounts.create({ ...account('x'), usernames: ['ALICE', 'alice-2'] });
      expect(second._unsafeUnwrap().username).toBe('alice-2');
      expect(await store.accounts.create({ ...account('x'), usernames: ['alice', 'Alice-2'] })).toStrictEqual(err({ code: 'username_taken', username: 'alice' }));
      expect(await store.accounts.count()).toBe(2);
    });

    it('should leave nothing of an account refused for its verified email or its link (one transaction)', async () => {
      await user('alice', { emails: [{ email: 'A@example.com', verified: true }], externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: '1', createdAt: 1 } });
      expect(await store.accounts.create(account('bob', { emails: [{ email: 'a@EXAMPLE.com', verified: true }] }))).toStrictEqual(
        err({ code: 'email_taken', email: 'a@EXAMPLE.com' }),
      );
      expect(await store.accounts.create(account('bob', { externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: '1', createdAt: 1 } }))).toStrictEqual(
        err({ code: 'external_account_taken', serviceType: 'hosta', accountId: '1' }),
      );
      expect([await store.accounts.count(), await store.accounts.findByUsernameKey('bob')]).toStrictEqual([1, null]);
      // an unverified address never matches, and may be on several accounts
      const carol = await user('carol', { emails: [{ email: 'a@example.com', verified: false }, { email: 'c@example.com', verified: true }, { email: 'C@example.com', verified: true }] });
      expect((await store.accounts.findByVerifiedEmailKey(emailMatchKey('A@example.com')))?.username).toBe('alice');
      expect((await store.accounts.findByVerifiedEmailKey(emailMatchKey('c@example.com')))?.id).toBe(carol);
    });

    it(`should create one account among ${racers} concurrent sign-ups of one username key, and one link among concurrent links`, async () => {
      const outcomes = await Promise.all(Array.from({ length: racers }, (_, i) => store.accounts.create(account(i % 2 === 0 ? 'dave' : 'DAVE'))));
      expect(outcomes.filter((o) => o.isOk())).toHaveLength(1);
      expect(outcomes.filter((o) => o.isErr()).map((o) => o._unsafeUnwrapErr().code)).toStrictEqual(Array(racers - 1).fill('username_taken'));
      const ids = await Promise.all(Array.from({ length: racers }, (_, i) => user(`u${i}`)));
      const links = await Promise.all(ids.map((id) => store.accounts.link({ userId: id, serviceType: 'hostb', serviceId: 'b', accountId: '7', createdAt: 2 })));
      expect(links.filter((l) => l.isOk())).toHaveLength(1);
    });

    it('should delete an account with its emails, links, credentials, tokens, sessions, OAuth grants and consents, keeping the audit log', async () => {
      const id = await user('erin', { emails: [{ email: 'e@example.com', verified: true }], externalAccount: { serviceType: 'hosta', serviceId: 'h', accountId: '9', createdAt: 1 } });
      await store.accounts.putCredential({ userId: id, serviceType: 'reviewhost', serviceId: 'r', accountId: 'erin', sealed: 's', createdAt: 1 });
      await store.accessTokens.create({ userId: id, digest: 'd1', scopes: ['user:all'], note: '', createdAt: 1, expiresAt: null });
      await store.sessions.create({ digest: 's1', userId: id, createdAt: 1, expiresAt: 10, lastSeenAt: 1, userAgent: '' }, 5);
      await store.oauth.insertApp({ clientId: 'c1', clientSecretHash: 'h', redirectUris: ['https://a/cb'], scopes: ['user:all'], name: 'a', ownerUserId: id, createdAt: 1 });
      await store.oauth.insertAuthorizationCode({ codeHash: 'k1', familyId: 'f1', clientId: 'c1', userId: id, redirectUri: 'https://a/cb', redirectUriGiven: true, scopes: ['user:all'], codeChallenge: 'x', expiresAt: 9, used: false });
      expect(await store.oauth.redeemAuthorizationCode('k1', pair('1', id))).toBe(true);
      expect((await store.oauth.grantConsent({ userId: id, clientId: 'c1', scopes: ['user:all'], grantedAt: 1 })).isOk()).toBe(true);
      await store.audit.append({ timestamp: 1, entity: 'user', action: 'created', reason: null, actorUserId: id, subjectUserId: id, details: {} });
      expect((await store.accounts.delete(id)).isOk()).toBe(true);
      const counts = await Promise.all(
        ['account_emails', 'external_accounts', 'provider_credentials', 'access_tokens', 'sessions', 'oauth_authorization_codes', 'oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_consents', 'audit_log'].map(
          async (table) => [table, Number((await driver.query<{ n: unknown }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n)] as const,
        ),
      );
      expect(Object.fromEntries(counts)).toStrictEqual({
        account_emails: 0, external_accounts: 0, provider_credentials: 0, access_tokens: 0, sessions: 0,
        oauth_authorization_codes: 0, oauth_access_tokens: 0, oauth_refresh_tokens: 0, oauth_consents: 0, audit_log: 1,
      });
      expect([await store.accounts.findByExternalAccountKey(externalAccountKey('hosta', 'h', '9')), await store.accessTokens.findByDigest('d1')]).toStrictEqual([null, null]);
    });

    it(`should give one winner among ${racers} concurrent takes, code redemptions and refresh rotations`, async () => {
      const id = await user('frank');
      await store.ephemeral.put({ kind: 'flow_state', key: 'st', group: 'g', value: 'v', expiresAt: 100 });
      const takes = await Promise.all(Array.from({ length: racers }, () => store.ephemeral.take('flow_state', 'st', 1)));
      expect(takes.filter((t) => t !== null)).toHaveLength(1);
      await store.oauth.insertApp({ clientId: 'c1', clientSecretHash: 'h', redirectUris: [], scopes: ['user:all'], name: 'a', ownerUserId: id, createdAt: 1 });
      await store.oauth.insertAuthorizationCode({ codeHash: 'k1', familyId: 'f1', clientId: 'c1', userId: id, redirectUri: 'u', redirectUriGiven: false, scopes: ['user:all'], codeChallenge: 'x', expiresAt: 9, used: false });
      const redeemed = await Promise.all(Array.from({ length: racers }, (_, i) => store.oauth.redeemAuthorizationCode('k1', pair(`c${i}`, id))));
      expect(redeemed.filter(Boolean)).toHaveLength(1);
      const winner = redeemed.indexOf(true);
      const rotated = await Promise.all(Array.from({ length: racers }, (_, i) => store.oauth.rotateRefreshToken(`r-c${winner}`, pair(`n${i}`, id))));
      expect(rotated.filter(Boolean)).toHaveLength(1);
      expect(await driver.query('SELECT token_hash FROM oauth_refresh_tokens')).toHaveLength(2);
      // the loser revokes the family: the successor stops working too
      await store.oauth.revokeFamily('f1');
      expect(await store.oauth.rotateRefreshToken(`r-n${rotated.indexOf(true)}`, pair('z', id))).toBe(false);
      expect((await store.oauth.findAccessToken(`a-n${rotated.indexOf(true)}`))?.familyRevoked).toBe(true);
    });

    it('should let a burst of 100 concurrent pending sign-ins and throttle checks all through (conflicts are retried, never answered 500)', async () => {
      const now = 1_000;
      const limits = { maxPerClient: 100, maxTotal: 100_000 };
      const pending = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          putPending(store, { kind: 'flow_state', key: `burst-${i}`, group: `net-${i}`, value: '{}', expiresAt: now + 60_000 }, limits, now),
        ),
      );
      expect(pending.filter((p) => p.isOk())).toHaveLength(100);
      const table = { name: 'username', policy: DEFAULT_SIGN_IN_THROTTLE_POLICY, maxEntries: 100_000 };
      const admitted = await Promise.all(
        Array.from({ length: 100 }, (_, i) => admitAttempt(store, { slots: [{ table, key: `burst-user-${i}` }], failOpen: [false] }, now)),
      );
      expect(admitted).toHaveLength(100);
      expect(await store.ephemeral.count('flow_state', now)).toBe(100);
    }, 60_000);

    it('should undo a transaction that resolves err or rejects, and undo only the inner work of a nested err', async () => {
      const id = await user('gina');
      expect(await store.transaction(async (tx) => (await tx.accounts.setSiteAdmin(id, true)).andThen(() => err('no' as const)))).toStrictEqual(err('no'));
      await expect(store.transaction(async (tx) => (await tx.accounts.setSiteAdmin(id, true), Promise.reject(new Error('boom'))))).rejects.toThrow('boom');
      expect((await store.accounts.get(id))?.siteAdmin).toBe(false);
      await user('hank');
      const kept = await store.transaction(async (tx) => {
        const taken = await tx.accounts.setUsername(id, 'HANK');
        const inner = await tx.transaction(async (t) => (await t.accounts.setSiteAdmin(id, true), err('inner' as const)));
        await tx.accounts.setPasswordHash(id, 'hash');
        return ok([taken, inner] as const);
      });
      expect(kept).toStrictEqual(ok([err({ code: 'username_taken', username: 'HANK' }), err('inner')]));
      expect(await store.accounts.get(id)).toMatchObject({ username: 'gina', siteAdmin: false, passwordHash: 'hash' });
    });

    it(`should keep at least one site administrator when ${racers} transactions each demote one if another remains (serializable)`, async () => {
      const ids = await Promise.all(Array.from({ length: racers }, (_, i) => user(`admin${i}`, { siteAdmin: true })));
      await Promise.all(
        ids.map((id) =>
          store.transaction(async (tx) => ((await tx.accounts.countSiteAdmins()) > 1 ? tx.accounts.setSiteAdmin(id, false) : ok(null))),
        ),
      );
      expect(await store.accounts.countSiteAdmins()).toBe(1);
    });

    it('should keep the newest sessions of an account up to the bound, even under concurrent sign-ins', async () => {
      const id = await user('ivy');
      await Promise.all(Array.from({ length: racers }, (_, i) => store.sessions.create({ digest: `s${i}`, userId: id, createdAt: i, expiresAt: 100 + i, lastSeenAt: i, userAgent: '' }, 3)));
      expect((await store.sessions.list(id)).length).toBeLessThanOrEqual(3);
      for (let i = 0; i < 5; i++) await store.sessions.create({ digest: `t${i}`, userId: id, createdAt: 1_000 + i, expiresAt: 50, lastSeenAt: 1_000 + i, userAgent: '' }, 3);
      expect((await store.sessions.list(id)).map((s) => s.digest)).toStrictEqual(['t2', 't3', 't4']);
      expect(await store.sessions.create({ digest: 't4', userId: id, createdAt: 2_000, expiresAt: 60, lastSeenAt: 2_000, userAgent: '' }, 3)).toStrictEqual(err({ code: 'duplicate_digest' }));
      expect([await store.sessions.purgeExpired(60, 2), await store.sessions.purgeExpired(60, 2), await store.sessions.purgeExpired(60, 2)]).toStrictEqual([2, 1, 0]);
    });

    it('should count concurrent audit occurrences of one key in one entry, and page every entry once by id', async () => {
      const base = { entity: 'auth.accessToken', action: 'failed', reason: 'bad', actorUserId: null, subjectUserId: null };
      await Promise.all(Array.from({ length: racers }, (_, i) => store.audit.append({ ...base, timestamp: 10 + i, details: { scheme: 'basic' }, coalesceKey: 'k' })));
      for (let i = 0; i < 7; i++) await store.audit.append({ ...base, timestamp: 100 + i, details: {} });
      const coalesced = (await store.audit.list(100, { until: 99 }))[0];
      expect(coalesced).toMatchObject({ count: racers, lastAt: 10 + racers - 1 });
      expect(coalesced?.firstAt).toBe(coalesced?.timestamp);
      expect(await store.audit.list(100, { since: 100 })).toHaveLength(7);
      const seen: string[] = [];
      for (let before: string | undefined; ; ) {
        const page = await store.audit.list(3, before === undefined ? {} : { before });
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.id));
        before = page.at(-1)?.id;
      }
      expect(seen).toHaveLength(8);
      expect(new Set(seen).size).toBe(8);
      expect([await store.audit.purge(106, 3), await store.audit.purge(106, 3), await store.audit.purge(106, 3)]).toStrictEqual([3, 3, 1]);
    });

    it('should expire ephemeral entries, order a kind by last put and delete the oldest of a group', async () => {
      await store.ephemeral.put({ kind: 'throttle', key: 'a', group: 'free', value: '1', expiresAt: 50 });
      await store.ephemeral.put({ kind: 'throttle', key: 'b', group: 'free', value: '1', expiresAt: 100 });
      await store.ephemeral.put({ kind: 'throttle', key: 'a', group: 'free', value: '2', expiresAt: 100 });
      expect(await store.ephemeral.heaviestGroup('throttle', 0)).toStrictEqual({ group: 'free', count: 2 });
      expect((await store.ephemeral.deleteOldest('throttle', 'free', 0))?.key).toBe('b');
      expect([await store.ephemeral.get('throttle', 'a', 99), await store.ephemeral.get('throttle', 'a', 100)]).toStrictEqual([
        { kind: 'throttle', key: 'a', group: 'free', value: '2', expiresAt: 100 },
        null,
      ]);
      expect([await store.ephemeral.delete('throttle', 'a', 100), await store.ephemeral.count('throttle', 0)]).toStrictEqual([false, 0]);
    });

    it('should find accounts by username key and page them by id', async () => {
      for (const name of ['Ann', 'bob', 'JoAnna', 'zed']) await user(name);
      expect((await store.accounts.list({ first: 10, query: 'ANN' })).map((u) => u.username)).toStrictEqual(['Ann', 'JoAnna']);
      const [first] = await store.accounts.list({ first: 1 });
      expect((await store.accounts.list({ first: 2, after: first?.id ?? '' })).map((u) => u.username)).toStrictEqual(['bob', 'JoAnna']);
      expect(await store.accounts.list({ first: 2, after: 'not-an-id' })).toStrictEqual([]);
      expect((await store.accounts.findByUsernameKey(usernameKey('ZED')))?.username).toBe('zed');
    });
  });
}
