/**
 * The facts of each identity's last sign-in (`recordIdentityFacts`, `identitiesOf`), the same cases on the memory
 * store, the PostgreSQL store on PGlite and on a throwaway PostgreSQL server; and the sign-in flow writes them in its
 * transaction.
 */
import { err } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSiteConfiguration, type HostaProvider } from 'gatehouse-auth';
import { runSignIn } from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openNodePostgresDriver } from '../../src/store/postgres/node-postgres.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations/list.js';
import { createPostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/types.js';
import { postgresServerAvailability, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { reusingOpener } from '../helpers/postgres-store.js';
import { createUser, withStore, type OpenStore } from './contract/fixtures.js';

const link = (userId: string, accountId: string) => ({ userId, serviceType: 'hosta', serviceId: '', accountId, createdAt: 5 });
const ref = (accountId: string) => ({ serviceType: 'hosta', serviceId: '', accountId });
const facts = { username: 'Octo', emails: [{ address: 'octo@example.com', verified: true }], orgs: ['acme'], teams: [{ org: 'acme', name: 'Core' }] };

function describeFacts(name: string, open: () => OpenStore): void {
  describe(`identity facts: ${name}`, () => {
    it('should keep the facts of the last sign-in on the link, and list them with every link of the given accounts', async () => {
      await withStore(open(), async (store) => {
        const a = await createUser(store, 'alice');
        const b = await createUser(store, 'bob');
        const c = await createUser(store, 'carol');
        (await store.accounts.link(link(a, '1')))._unsafeUnwrap();
        (await store.accounts.link(link(b, '2')))._unsafeUnwrap();
        (await store.accounts.link({ ...link(b, '3'), serviceType: 'hostb', serviceId: 'https://hostb.example' }))._unsafeUnwrap();
        (await store.accounts.link(link(c, '4')))._unsafeUnwrap();
        const recorded = (await store.accounts.recordIdentityFacts(ref('2'), facts, 10))._unsafeUnwrap();
        expect(recorded).toStrictEqual({ ...link(b, '2'), facts, factsAt: 10 });
        // a later sign-in replaces them
        const later = { username: 'octo', emails: [], orgs: [] };
        (await store.accounts.recordIdentityFacts(ref('2'), later, 20))._unsafeUnwrap();
        expect(await store.accounts.identitiesOf([c, b, a, '999', 'x'])).toStrictEqual([
          { ...link(a, '1'), facts: null, factsAt: null },
          { ...link(b, '2'), facts: later, factsAt: 20 },
          { ...link(b, '3'), serviceType: 'hostb', serviceId: 'https://hostb.example', facts: null, factsAt: null },
          { ...link(c, '4'), facts: null, factsAt: null },
        ]);
        expect(await store.accounts.identitiesOf([])).toStrictEqual([]);
      });
    });

    it('should page accounts by id with their password flag and identities with facts (signInPage)', async () => {
      await withStore(open(), async (store) => {
        const a = await createUser(store, 'alice', { passwordHash: 'scrypt$x', siteAdmin: true });
        const b = await createUser(store, 'bob');
        const c = await createUser(store, 'carol', { serviceAccount: true, origin: 'service_account' });
        (await store.accounts.link(link(b, '2')))._unsafeUnwrap();
        (await store.accounts.link({ ...link(b, '3'), serviceType: 'hostb', serviceId: 'https://hostb.example' }))._unsafeUnwrap();
        (await store.accounts.recordIdentityFacts(ref('2'), facts, 10))._unsafeUnwrap();
        const first = await store.accounts.signInPage(2);
        expect(first).toStrictEqual([
          { id: a, username: 'alice', origin: 'admin_created', siteAdmin: true, serviceAccount: false, hasPassword: true, identities: [] },
          {
            id: b, username: 'bob', origin: 'admin_created', siteAdmin: false, serviceAccount: false, hasPassword: false,
            identities: [
              { serviceType: 'hosta', serviceId: '', accountId: '2', facts },
              { serviceType: 'hostb', serviceId: 'https://hostb.example', accountId: '3', facts: null },
            ],
          },
        ]);
        expect((await store.accounts.signInPage(2, b)).map((r) => [r.id, r.serviceAccount])).toStrictEqual([[c, true]]);
        expect(await store.accounts.signInPage(2, c)).toStrictEqual([]);
        expect(await store.accounts.signInPage(0)).toStrictEqual([]);
        expect(await store.accounts.signInPage(5, 'not-an-id')).toStrictEqual([]);
      });
    });

    it('should read back every page as written, whatever the names and facts hold, identities oldest link first (signInPage)', async () => {
      await withStore(open(), async (store) => {
        const odd = {
          username: 'Ö"\\\'</x>\u2028😀',
          emails: [{ address: 'a"b@example.com', verified: false }],
          orgs: ['ACME', ''],
          teams: [{ org: 'acme', name: 'Core "team"' }],
          groups: [{ fullPath: 'g/ü', accessLevel: 30 }],
          membershipComplete: false,
        };
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) ids.push(await createUser(store, `user-${i}`, i % 4 === 0 ? { passwordHash: 'scrypt$x' } : {}));
        const written = new Map<string, { serviceType: string; serviceId: string; accountId: string; facts: typeof odd | null }[]>();
        // links of one account made between links of others: each account's list stays in the order of linking
        for (const [n, i] of [3, 7, 3, 0, 11, 3, 7].entries()) {
          const userId = ids[i] ?? '';
          const serviceType = n % 2 === 0 ? 'hosta' : 'hostb';
          const serviceId = serviceType === 'hosta' ? '' : 'https://hostb.example';
          (await store.accounts.link({ userId, serviceType, serviceId, accountId: `ext-${n}`, createdAt: n }))._unsafeUnwrap();
          const kept = n % 3 === 0 ? null : { ...odd, username: `${odd.username}${n}` };
          if (kept !== null) (await store.accounts.recordIdentityFacts({ serviceType, serviceId, accountId: `ext-${n}` }, kept, n))._unsafeUnwrap();
          written.set(userId, [...(written.get(userId) ?? []), { serviceType, serviceId, accountId: `ext-${n}`, facts: kept }]);
        }
        const read = [];
        let after: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await store.accounts.signInPage(5, after);
          read.push(...page);
          if (page.length < 5) break;
          after = page.at(-1)?.id;
        }
        expect(read).toStrictEqual(
          ids.map((id, i) => ({
            id,
            username: `user-${i}`,
            origin: 'admin_created',
            siteAdmin: false,
            serviceAccount: false,
            hasPassword: i % 4 === 0,
            identities: written.get(id) ?? [],
          })),
        );
      });
    });

    it('should refuse facts for an identity that is not linked, and forget them with the link', async () => {
      await withStore(open(), async (store) => {
        const a = await createUser(store, 'alice');
        expect((await store.accounts.recordIdentityFacts(ref('9'), facts, 1))._unsafeUnwrapErr()).toStrictEqual({
          code: 'unknown_external_account',
          serviceType: 'hosta',
          accountId: '9',
        });
        (await store.accounts.link(link(a, '1')))._unsafeUnwrap();
        (await store.accounts.recordIdentityFacts(ref('1'), facts, 1))._unsafeUnwrap();
        (await store.accounts.unlink(a, ref('1')))._unsafeUnwrap();
        (await store.accounts.link(link(a, '1')))._unsafeUnwrap();
        expect(await store.accounts.identitiesOf([a])).toStrictEqual([{ ...link(a, '1'), facts: null, factsAt: null }]);
      });
    });

    it('should keep no field beyond the documented facts, and undo them with a failed transaction', async () => {
      await withStore(open(), async (store) => {
        const a = await createUser(store, 'alice');
        (await store.accounts.link(link(a, '1')))._unsafeUnwrap();
        (await store.accounts.recordIdentityFacts(ref('1'), { ...facts, accessToken: 'gho_secret' } as never, 1))._unsafeUnwrap();
        const [kept] = await store.accounts.identitiesOf([a]);
        expect(JSON.stringify(kept)).not.toContain('gho_secret');
        const undone = await store.transaction(async (tx) => {
          (await tx.accounts.recordIdentityFacts(ref('1'), { username: 'x', emails: [] }, 2))._unsafeUnwrap();
          return err('undo');
        });
        expect(undone.isErr()).toBe(true);
        expect((await store.accounts.identitiesOf([a]))[0]?.facts).toStrictEqual(facts);
      });
    });

    it('should record the facts in the sign-in transaction, for a new account and for a returning identity', async () => {
      await withStore(open(), async (store) => {
        const config = parseSiteConfiguration('{"auth.providers": [{"type": "hosta", "clientID": "i", "clientSecret": "s", "allowSignup": true, "allowOrgs": ["acme"]}]}')._unsafeUnwrap();
        const provider = config.authProviders[0] as HostaProvider;
        const deps = { store, now: () => 100, randomBytes: (n: number) => new Uint8Array(n) };
        const identity = { accountId: '77', username: 'octo', emails: [{ address: 'octo@example.com', verified: true }], orgs: ['acme'], teams: [] };
        const first = (await runSignIn(deps, { provider, identity, signedInUserId: null }))._unsafeUnwrap();
        if (first.kind !== 'signed_in') throw new Error(first.kind);
        expect(await store.accounts.identitiesOf([first.userId])).toStrictEqual([
          { userId: first.userId, serviceType: 'hosta', serviceId: '', accountId: '77', createdAt: 100, facts: { username: 'octo', emails: identity.emails, orgs: ['acme'], teams: [] }, factsAt: 100 },
        ]);
        const again = (await runSignIn({ ...deps, now: () => 200 }, { provider, identity: { ...identity, orgs: ['acme', 'globex'] }, signedInUserId: null }))._unsafeUnwrap();
        expect(again.kind).toBe('signed_in');
        expect((await store.accounts.identitiesOf([first.userId]))[0]?.facts?.orgs).toStrictEqual(['acme', 'globex']);
        // a refused sign-in writes nothing
        const refused = (await runSignIn({ ...deps, now: () => 300 }, { provider, identity: { ...identity, orgs: ['globex'] }, signedInUserId: null }))._unsafeUnwrap();
        expect(refused.kind).toBe('denied');
        expect((await store.accounts.identitiesOf([first.userId]))[0]?.factsAt).toBe(200);
      });
    });
  });
}

describeFacts('memory', () => async () => ({ store: createMemoryStore(), close: async () => undefined }));

describe('on PGlite', () => {
  let driver: SqlDriver;
  let opener: () => Promise<{ store: Store; close: () => Promise<void> }>;
  beforeAll(async () => {
    driver = await openPgliteDriver({ memory: true });
    opener = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver.close();
  });
  describeFacts('PGlite', () => () => opener());
});

describe('migration 7 (identity_facts)', () => {
  it('should leave the identities linked before it without facts, and take facts afterwards', async () => {
    const old = await openPgliteDriver({ memory: true });
    try {
      (await applyMigrations(old, MIGRATIONS.filter((m) => m.version < 7)))._unsafeUnwrap();
      await old.query("INSERT INTO accounts (username, username_key, origin, site_admin, service_account, created_at) VALUES ('a', 'a', 'provider_signup', false, false, 1)");
      await old.query(`INSERT INTO external_accounts (external_key, account_id, service_type, service_id, external_id, created_at) VALUES ('["hosta","","1"]', 1, 'hosta', '', '1', 5)`);
      expect((await applyMigrations(old))._unsafeUnwrap().applied).toContainEqual({ version: 7, name: 'identity_facts' });
      const store = createPostgresStore(old);
      expect(await store.accounts.identitiesOf(['1'])).toStrictEqual([{ ...link('1', '1'), facts: null, factsAt: null }]);
      (await store.accounts.recordIdentityFacts(ref('1'), facts, 9))._unsafeUnwrap();
      expect((await store.accounts.signInPage(10))[0]?.identities).toStrictEqual([{ serviceType: 'hosta', serviceId: '', accountId: '1', facts }]);
    } finally {
      await old.close();
    }
  }, 60_000);
});

const availability = postgresServerAvailability();
if (!availability.run) console.log(`skipping identity facts on a PostgreSQL server: ${availability.reason}`);

describe.runIf(availability.run)('on a PostgreSQL server (needs a PostgreSQL server)', () => {
  let cluster: PostgresCluster;
  let driver: SqlDriver;
  let opener: () => Promise<{ store: Store; close: () => Promise<void> }>;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    driver = await openNodePostgresDriver({ connectionString: await cluster.createDatabase('facts') });
    opener = await reusingOpener(driver);
  }, 120_000);
  afterAll(async () => {
    await driver?.close();
    await cluster?.stop();
  });
  describeFacts('PostgreSQL server', () => () => opener());
});
