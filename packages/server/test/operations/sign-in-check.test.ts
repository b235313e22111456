/**
 * The sign-in check against the store (memory and PostgreSQL on PGlite): the core's explanation with the store's
 * accounts, read-only; the decision it explains is the one the real sign-in flow then makes; and GraphQL's
 * `explainSignIn` for site administrators only.
 */
import { graphql } from 'graphql';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSiteConfiguration, type AuthProvider, type ExternalIdentity } from 'gatehouse-auth';
import { createGatehouseSchema, type GatehouseContext } from '../../src/api/schema.js';
import { checkSignIn, findCheckProvider } from '../../src/operations/sign-in-check.js';
import { runSignIn } from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { SqlDriver } from '../../src/store/postgres/driver.js';
import { openPgliteDriver } from '../../src/store/postgres/pglite.js';
import type { Store, UserRecord } from '../../src/store/types.js';
import { reusingOpener } from '../helpers/postgres-store.js';

const CONFIG = {
  externalURL: 'https://gatehouse.example.com',
  trustedProxies: ['127.0.0.1'],
  'auth.providers': [
    { type: 'hosta', clientID: 'id', clientSecret: 'hosta-client-secret', allowSignup: true, allowOrgs: ['acme'], allowOrgsMap: { globex: ['Core Team'] } },
    { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 's', allowGroups: ['acme/platform'] },
    { type: 'openidconnect', displayName: 'Company SSO', issuer: 'https://id.example.com', clientID: 'id', clientSecret: 's', requireEmailDomain: 'example.com', allowSignup: false },
    { type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email' },
  ],
};
const providers: readonly AuthProvider[] = parseSiteConfiguration(JSON.stringify(CONFIG))._unsafeUnwrap().authProviders;
const zeros = (n: number): Uint8Array => new Uint8Array(n);

/** Everything a check could have written: accounts (with links and emails) and the audit log. */
async function snapshot(store: Store): Promise<unknown> {
  const users = await store.accounts.list({ first: 1000 } as Parameters<Store['accounts']['list']>[0]);
  const links = await Promise.all(users.map((u) => store.accounts.links(u.id)));
  return { users, links, audit: await store.audit.list(1000) };
}

async function seed(store: Store): Promise<{ octavia: UserRecord; linked: UserRecord }> {
  const octavia = (
    await store.accounts.create({ usernames: ['octavia'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [{ email: 'octo@example.com', verified: true }], passwordHash: null, createdAt: 1 })
  )._unsafeUnwrap();
  const linked = (
    await store.accounts.create({
      usernames: ['linked'],
      origin: 'provider_signup',
      siteAdmin: false,
      serviceAccount: false,
      emails: [],
      passwordHash: null,
      createdAt: 1,
      externalAccount: { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '77', createdAt: 1 },
    })
  )._unsafeUnwrap();
  await store.accounts.create({ usernames: ['newbie'], origin: 'password_signup', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 });
  return { octavia, linked };
}

function describeCheck(name: string, open: () => Promise<{ store: Store; close: () => Promise<void> }>): void {
  describe(`checkSignIn on ${name}`, () => {
    it('should explain a hosta team-name mismatch (§5.3 hosta rule 5) and an admission by org before teams (rule 6), writing nothing', async () => {
      const { store, close } = await open();
      try {
        await seed(store);
        const before = await snapshot(store);
        const refused = (await checkSignIn(store, providers, { provider: 'hosta', username: 'octo', emails: [{ address: 'octo2@example.com', verified: true }], orgs: ['initech'], teams: [{ org: 'globex', name: 'core team' }] }, zeros))._unsafeUnwrap();
        expect(refused.explanation.decision).toMatchObject({ kind: 'deny', reason: 'not_in_allowed_orgs_or_teams' });
        expect(refused.explanation.trace.map((s) => [s.rule, s.outcome])).toStrictEqual([
          ['§5.3 hosta rule 4', 'not_admitted'],
          ['§5.3 hosta rule 6', 'teams_consulted'],
          ['§5.3 hosta rule 5', 'not_admitted'],
          ['§7 rule 3', 'deny'],
        ]);
        expect(refused.refusalReason).toMatch(/team names must match exactly/u);
        const admitted = (await checkSignIn(store, providers, { provider: 'hosta', username: 'newbie', emails: [{ address: 'n@example.com', verified: true }], orgs: ['ACME'], teams: [] }, zeros))._unsafeUnwrap();
        expect(admitted.explanation.trace.slice(0, 2).map((s) => [s.rule, s.outcome])).toStrictEqual([
          ['§5.3 hosta rule 4', 'admitted'],
          ['§5.3 hosta rule 6', 'teams_not_consulted'],
        ]);
        // the name is taken: the would-be account gets a suffix (§5.5 rule 8)
        expect(admitted.explanation.decision).toMatchObject({ kind: 'create', username: 'newbie-aaaaa' });
        expect(admitted.explanation.trace.find((s) => s.rule === '§5.5 rule 8')).toMatchObject({ facts: { taken: ['newbie'] } });
        expect(await snapshot(store)).toStrictEqual(before);
      } finally {
        await close();
      }
    });

    it('should land in the account a verified email matches, and in the linked account', async () => {
      const { store, close } = await open();
      try {
        const { octavia, linked } = await seed(store);
        const byEmail = (await checkSignIn(store, providers, { provider: 'Company SSO', username: 'octo', emails: [{ address: 'Octo@Example.com', verified: true }] }, zeros))._unsafeUnwrap();
        expect(byEmail.explanation.decision).toMatchObject({ kind: 'sign_in', via: 'verified_email', userId: octavia.id });
        expect(byEmail.account).toStrictEqual({ id: octavia.id, username: 'octavia', serviceAccount: false });
        // the hosta entry has no url: its namespace is the public host's
        const hosta = { ...(providers[0] as AuthProvider), url: 'https://hosta.example.com' } as AuthProvider;
        const byLink = (await checkSignIn(store, [hosta], { provider: 'hosta', accountId: '77', username: 'x', emails: [], orgs: ['acme'] }, zeros))._unsafeUnwrap();
        expect(byLink.explanation.decision).toMatchObject({ kind: 'sign_in', via: 'external_account', userId: linked.id });
        expect(byLink.account?.username).toBe('linked');
      } finally {
        await close();
      }
    });

    it('should read an http-header identity from the proxy headers, and refuse what it cannot judge', async () => {
      const { store, close } = await open();
      try {
        await seed(store);
        const proxied = (await checkSignIn(store, providers, { provider: 'http-header', headers: [{ name: 'X-Forwarded-User', value: 'octavia' }, { name: 'X-Forwarded-Email', value: 'octo@example.com' }] }, zeros))._unsafeUnwrap();
        expect(proxied.identity).toMatchObject({ username: 'octavia', emails: [{ address: 'octo@example.com', verified: true }] });
        expect(proxied.explanation.decision).toMatchObject({ kind: 'sign_in', via: 'verified_email' });
        expect((await checkSignIn(store, providers, { provider: 'http-header', headers: [] }, zeros))._unsafeUnwrapErr().code).toBe('invalid_identity');
        expect((await checkSignIn(store, providers, { provider: 'github' }, zeros))._unsafeUnwrapErr().code).toBe('unknown_provider');
        expect((await checkSignIn(store, providers, { provider: 'hosta', signedInUsername: 'nobody' }, zeros))._unsafeUnwrapErr().code).toBe('unknown_signed_in_user');
        expect((await checkSignIn(store, providers, { provider: 'hosta', orgs: Array.from({ length: 201 }, () => 'a') }, zeros))._unsafeUnwrapErr().code).toBe('too_long');
      } finally {
        await close();
      }
    });

    it('should explain the decision the real sign-in then makes, for generated identities', async () => {
      const identity = fc.record({
        accountId: fc.constantFrom('1', '2', '77'),
        username: fc.constantFrom('octo', 'octavia', 'newbie', 'linked'),
        emails: fc.array(fc.record({ address: fc.constantFrom('octo@example.com', 'n@example.com', 'x@other.org'), verified: fc.boolean() }), { maxLength: 2 }),
        orgs: fc.array(fc.constantFrom('acme', 'initech'), { maxLength: 2 }),
        teams: fc.array(fc.record({ org: fc.constantFrom('globex'), name: fc.constantFrom('Core Team', 'core team') }), { maxLength: 1 }),
        groups: fc.array(fc.record({ fullPath: fc.constantFrom('acme/platform', 'acme'), accessLevel: fc.constantFrom(5, 10, 30) }), { maxLength: 2 }),
      });
      const samples = fc.sample(fc.tuple(fc.constantFrom(0, 1, 2), identity), { numRuns: 25, seed: 22 });
      for (const [index, person] of samples) {
        const { store, close } = await open();
        try {
          await seed(store);
          const provider = providers[index] as AuthProvider;
          const checked = (await checkSignIn(store, providers, { provider: String(index), ...person }, zeros))._unsafeUnwrap();
          const done = (await runSignIn({ store, now: () => 2, randomBytes: zeros }, { provider, identity: person as ExternalIdentity, signedInUserId: null }))._unsafeUnwrap();
          const decision = checked.explanation.decision;
          if (decision.kind === 'deny') expect(done).toMatchObject({ kind: 'denied', reason: decision.reason });
          else if (decision.kind === 'create') expect(done).toMatchObject({ kind: 'signed_in', created: true, user: { username: decision.username } });
          else expect(done).toMatchObject({ kind: 'signed_in', created: false, userId: decision.userId });
        } finally {
          await close();
        }
      }
    });
  });
}

describeCheck('the memory store', async () => ({ store: createMemoryStore(), close: async () => {} }));

let driver: SqlDriver;
let openPg: () => Promise<{ store: Store; close: () => Promise<void> }>;
beforeAll(async () => {
  driver = await openPgliteDriver({ memory: true });
  openPg = await reusingOpener(driver);
}, 120_000);
afterAll(async () => {
  await driver.close();
});
describeCheck('PostgreSQL (PGlite)', () => openPg());

describe('findCheckProvider', () => {
  it.each([
    ['Company SSO', 2],
    ['hosta', 0],
    ['http-header', 3],
    ['1', 1],
    ['4', null],
    ['01', null],
    ['github', null],
  ])('should find %j at %j', (name, expected) => {
    expect(findCheckProvider(providers, name)).toBe(expected);
  });
});

describe('the GraphQL query explainSignIn', () => {
  const store = createMemoryStore();
  const schema = createGatehouseSchema({
    store,
    now: () => 1,
    randomBytes: zeros,
    search: async () => ({ matchCount: 0 }) as never,
    audit: async () => {},
    registerOAuthApp: async () => {
      throw new Error('not used');
    },
    authProviders: providers,
  });
  const user = (siteAdmin: boolean): UserRecord => ({ id: '9', username: 'root', origin: 'seeded', siteAdmin, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 });
  const run = (siteAdmin: boolean | null) =>
    graphql({
      schema,
      source: `query($identity: SignInIdentityInput!) { explainSignIn(provider: "hosta", identity: $identity) { decision reason refusalReason username account { username } trace { rule ruleText outcome note facts } } }`,
      variableValues: { identity: { username: 'octo', emails: [{ address: 'o@example.com', verified: true }], orgs: [], teams: [{ org: 'globex', name: 'core team' }] } },
      contextValue: { viewer: siteAdmin === null ? { kind: 'anonymous' } : { kind: 'user', user: user(siteAdmin), actor: user(siteAdmin), via: 'token' } } satisfies GatehouseContext,
    });

  it('should explain for a site administrator, with each rule\'s text and no secret', async () => {
    const answer = await run(true);
    expect(answer.errors).toBeUndefined();
    const data = answer.data?.['explainSignIn'] as { decision: string; reason: string; trace: { rule: string; ruleText: string; facts: string }[] };
    expect(data).toMatchObject({ decision: 'deny', reason: 'not_in_allowed_orgs_or_teams' });
    expect(data.trace.map((s) => s.rule)).toStrictEqual(['§5.3 hosta rule 4', '§5.3 hosta rule 6', '§5.3 hosta rule 5', '§7 rule 3']);
    expect(data.trace[2]?.ruleText).toMatch(/must match exactly/u);
    expect(JSON.parse(data.trace[2]?.facts ?? '{}')).toMatchObject({ nameMismatches: [{ org: 'globex', name: 'core team' }] });
    expect(JSON.stringify(answer)).not.toContain('hosta-client-secret');
  });

  it.each([
    [false, 'FORBIDDEN'],
    [null, 'UNAUTHENTICATED'],
  ])('should refuse a viewer who is no site administrator (site admin: %j) with %s', async (siteAdmin, code) => {
    const answer = await run(siteAdmin);
    expect(answer.errors?.[0]?.extensions['code']).toBe(code);
    expect(answer.data?.['explainSignIn']).toBeNull();
  });
});
