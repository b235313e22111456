/**
 * runSignIn against the memory store of the grouped contract: links, email matches, username matches, username
 * candidates taken first-free, service accounts, concurrent sign-ins, and agreement with the listing oracle.
 */
import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { type Account, type AccountOrigin, type ExternalAccountRef } from '../../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../../src/core/external-identity.js';
import { SIGN_IN_DENIAL_MESSAGES, type SignInDenialReason } from '../../../../src/core/sign-in/plan.js';
import { MAX_USERNAME_SUFFIX_ATTEMPTS, SUFFIX_RANDOM_BYTES } from '../../../../src/core/username.js';
import {
  ACCOUNT_NOT_FOR_BROWSER_MESSAGE,
  ACCOUNT_SUSPENDED_MESSAGE,
  runSignIn,
  type SignInFlowError,
  type SignInOutcome,
  type SignInStore,
} from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { accounts as accountsArb, authProvider, externalIdentity } from '../../../../test/arbitraries/identity.js';
import { seededRandomBytes } from '../fakes/app.js';
import { createMemorySignInStore, signInWithIdentity } from './sign-in-oracle.js';

// ---------------------------------------------------------------------------------------------
// Fixtures

const hosta = (allowSignup = false): AuthProvider => ({ type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup });
const hostcserver = (allowSignup = false): AuthProvider => ({
  type: 'hostcserver',
  url: 'https://hostc.example.com',
  clientID: 'id',
  clientSecret: 's',
  allowSignup,
});
const oidc: AuthProvider = { type: 'openidconnect', issuer: 'https://accounts.example.com', clientID: 'id', clientSecret: 's', allowSignup: true };
const proxy = (allowSignup = true): AuthProvider => ({ type: 'http-header', usernameHeader: 'X-User', emailHeader: 'X-Email', allowSignup });

const person = (extra: Partial<ExternalIdentity> = {}): ExternalIdentity => ({
  accountId: '1234',
  username: 'octo',
  emails: [{ address: 'octo@example.com', verified: true }],
  ...extra,
});

/** Bytes that make the k-th suffix five times the letter `fills[k]` (0 is `a`). */
const suffixesOf = (...fills: number[]): ((n: number) => Uint8Array) => {
  let call = 0;
  return (n) => new Uint8Array(n).fill(fills[call++] ?? 255);
};

interface Seed {
  readonly username: string;
  readonly origin?: AccountOrigin;
  readonly emails?: readonly { readonly email: string; readonly verified: boolean }[];
  readonly links?: readonly ExternalAccountRef[];
}

async function storeWith(seeds: readonly Seed[]): Promise<{ store: Store; ids: string[] }> {
  const store = createMemoryStore();
  const ids: string[] = [];
  for (const seed of seeds) {
    const origin = seed.origin ?? 'admin_created';
    const user = (
      await store.accounts.create({
        usernames: [seed.username],
        origin,
        siteAdmin: false,
        serviceAccount: origin === 'service_account',
        emails: seed.emails ?? [],
        passwordHash: null,
        createdAt: 0,
      })
    )._unsafeUnwrap();
    for (const link of seed.links ?? []) {
      (await store.accounts.link({ userId: user.id, serviceType: link.providerType, serviceId: link.serviceId, accountId: link.accountId, createdAt: 0 }))._unsafeUnwrap();
    }
    ids.push(user.id);
  }
  return { store, ids };
}

const run = (store: Store, provider: AuthProvider, identity: ExternalIdentity, signedInUserId: string | null = null, randomBytes = suffixesOf(0, 1, 2, 3, 4)) =>
  runSignIn({ store, now: () => 7, randomBytes }, { provider, identity, signedInUserId });

/** The outcome without the user record, with the username it landed in. */
const summary = (outcome: Result<SignInOutcome, SignInFlowError>) =>
  outcome.map((o) =>
    o.kind === 'signed_in' ? { kind: o.kind, userId: o.userId, username: o.user.username, created: o.created, linked: o.linked } : o,
  );
const denied = (reason: SignInDenialReason) => ok({ kind: 'denied', reason, message: SIGN_IN_DENIAL_MESSAGES[reason] });

const HOSTC: ExternalAccountRef = { providerType: 'hostcserver', serviceId: 'https://hostc.example.com', accountId: '1234' };

// ---------------------------------------------------------------------------------------------

describe('runSignIn', () => {
  it.each([
    {
      ref: '§5.4 rule 4: the linked account, nothing written',
      seeds: [{ username: 'octavia', links: [{ providerType: 'hosta', serviceId: '', accountId: '1234' }] }],
      provider: hosta(),
      expected: ok({ kind: 'signed_in', userId: '1', username: 'octavia', created: false, linked: false }),
    },
    {
      ref: '§5.4 rules 1–2: a verified email links (ASCII case ignored)',
      seeds: [{ username: 'octavia', emails: [{ email: 'OCTO@example.com', verified: true }] }],
      provider: hosta(),
      expected: ok({ kind: 'signed_in', userId: '1', username: 'octavia', created: false, linked: true }),
    },
    {
      ref: '§5.4 rule 2: an email unverified on the account never links',
      seeds: [{ username: 'octavia', emails: [{ email: 'octo@example.com', verified: false }] }],
      provider: hosta(),
      expected: denied('signup_not_allowed'),
    },
    {
      ref: '§5.4 rule 3: a code host without a verified email',
      seeds: [{ username: 'octo' }],
      provider: hostcserver(true),
      identity: person({ emails: [] }),
      expected: denied('verified_email_missing'),
    },
    {
      ref: '§5.4 rule 5: hostcserver finds an admin-created account by username',
      seeds: [{ username: 'Octo' }],
      provider: hostcserver(),
      identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }),
      expected: ok({ kind: 'signed_in', userId: '1', username: 'Octo', created: false, linked: true }),
    },
    {
      ref: '§5.4 rule 5: never an account signed up with a password (a suffixed new account instead)',
      seeds: [{ username: 'octo', origin: 'password_signup' }],
      provider: hostcserver(true),
      identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }),
      expected: ok({ kind: 'signed_in', userId: '2', username: 'octo-aaaaa', created: true, linked: true }),
    },
    {
      ref: '§5.4 rule 5: never an admin-created account already linked to this provider type',
      seeds: [{ username: 'octo', links: [{ ...HOSTC, accountId: '99' }] }],
      provider: hostcserver(),
      identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }),
      expected: denied('signup_not_allowed'),
    },
    {
      ref: '§5.3 http-header rule 3: a proxy without an email finds an admin-created account by username',
      seeds: [{ username: 'octo', links: [{ providerType: 'hosta', serviceId: '', accountId: '5' }] }],
      provider: proxy(false),
      identity: person({ accountId: 'octo', emails: [] }),
      expected: ok({ kind: 'signed_in', userId: '1', username: 'octo', created: false, linked: true }),
    },
    {
      ref: '§5.5 rule 8: admin@evil.example is not admin',
      seeds: [{ username: 'admin' }],
      provider: proxy(true),
      identity: person({ accountId: 'admin@evil.example', username: 'admin@evil.example', emails: [] }),
      expected: ok({ kind: 'signed_in', userId: '2', username: 'admin-aaaaa', created: true, linked: true }),
    },
    {
      ref: '§5.5 rule 8: the first free candidate, suffixes taken before it skipped',
      seeds: [{ username: 'octo' }, { username: 'OCTO-aaaaa' }, { username: 'octo-bbbbb' }],
      provider: oidc,
      expected: ok({ kind: 'signed_in', userId: '4', username: 'octo-ccccc', created: true, linked: true }),
    },
    {
      ref: '§5.5 rule 8: every candidate taken',
      seeds: ['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc', 'octo-ddddd', 'octo-eeeee'].map((username) => ({ username })),
      provider: oidc,
      expected: denied('username_unavailable'),
    },
    {
      ref: '§1: a service account never signs in from a browser',
      seeds: [{ username: 'robot', origin: 'service_account', links: [{ providerType: 'hosta', serviceId: '', accountId: '1234' }] }],
      provider: hosta(),
      expected: ok({ kind: 'denied', reason: 'account_not_for_browser', message: ACCOUNT_NOT_FOR_BROWSER_MESSAGE }),
    },
  ] satisfies { ref: string; seeds: Seed[]; provider: AuthProvider; identity?: ExternalIdentity; expected: unknown }[])(
    'should follow $ref',
    async ({ seeds, provider, identity, expected }) => {
      const { store } = await storeWith(seeds);
      expect(summary(await run(store, provider, identity ?? person()))).toStrictEqual(expected);
    },
  );

  it('should store the new account with its emails, its link and the first free name in one insert (§5.5 rule 8)', async () => {
    const { store } = await storeWith([{ username: 'octo' }]);
    const identity = person({ emails: [{ address: 'octo@example.com', verified: false }, { address: 'OCTO@example.com', verified: true }] });
    const outcome = (await run(store, oidc, identity))._unsafeUnwrap();
    expect(outcome.kind === 'signed_in' && outcome.user).toStrictEqual({
      id: '2',
      username: 'octo-aaaaa',
      origin: 'provider_signup',
      siteAdmin: false,
      serviceAccount: false,
      emails: [{ email: 'octo@example.com', verified: true }],
      passwordHash: null,
      createdAt: 7,
    });
    expect(await store.accounts.links('2')).toStrictEqual([
      { userId: '2', serviceType: 'openidconnect', serviceId: 'https://accounts.example.com', accountId: '1234', createdAt: 7 },
    ]);
  });

  it('should add the identity to the signed-in account (§5.4 rule 4), and refuse one linked elsewhere', async () => {
    const { store, ids } = await storeWith([{ username: 'me' }, { username: 'other' }]);
    const [me = '', other = ''] = ids;
    expect(summary(await run(store, hosta(), person(), me))).toStrictEqual(ok({ kind: 'signed_in', userId: me, username: 'me', created: false, linked: true }));
    expect(await run(store, hosta(), person(), other)).toStrictEqual(denied('identity_linked_to_other_user'));
  });

  it('should draw the suffix bytes outside the store, MAX_USERNAME_SUFFIX_ATTEMPTS chunks per attempt', async () => {
    const sizes: number[] = [];
    const { store } = await storeWith([]);
    await runSignIn({ store, now: () => 0, randomBytes: (n) => (sizes.push(n), new Uint8Array(n)) }, { provider: oidc, identity: person(), signedInUserId: null });
    expect(sizes).toStrictEqual(Array<number>(MAX_USERNAME_SUFFIX_ATTEMPTS).fill(SUFFIX_RANDOM_BYTES));
  });

  it('should create one account when the same new identity signs in twice at once', async () => {
    const { store } = await storeWith([]);
    const [a, b] = await Promise.all([run(store, oidc, person()), run(store, oidc, person())]);
    const outcomes = [a, b].map((o) => o._unsafeUnwrap());
    expect(outcomes.map((o) => o.kind === 'signed_in' && o.userId)).toStrictEqual(['1', '1']);
    expect(outcomes.map((o) => o.kind === 'signed_in' && o.created).sort()).toStrictEqual([false, true]);
    expect(await store.accounts.count()).toBe(1);
  });

  it('should give two new people with the same name two accounts, the second suffixed (§5.5 rule 8)', async () => {
    const { store } = await storeWith([]);
    const [a, b] = await Promise.all([
      run(store, proxy(), person({ accountId: 'octo', emails: [] })),
      run(store, oidc, person({ emails: [{ address: 'other@example.com', verified: true }] })),
    ]);
    const names = [a, b].map((o) => {
      const value = o._unsafeUnwrap();
      return value.kind === 'signed_in' ? value.user.username : value.reason;
    });
    expect(names.sort()).toStrictEqual(['octo', 'octo-aaaaa']);
    expect(await store.accounts.count()).toBe(2);
  });

  it('should decide again when a write conflicts, the store having changed underneath', async () => {
    const { store } = await storeWith([]);
    let raced = false;
    // A store without transactions whose first insert loses a race: a sign-in of the same identity created the
    // account between the lookups and the insert.
    const racing: SignInStore = {
      accounts: {
        ...store.accounts,
        create: async (input) => {
          if (!raced) {
            raced = true;
            await store.accounts.create({ ...input, usernames: ['winner'] });
          }
          return store.accounts.create(input);
        },
      },
      transaction: (work) => work(racing),
    };
    const outcome = await runSignIn({ store: racing, now: () => 7, randomBytes: suffixesOf() }, { provider: oidc, identity: person(), signedInUserId: null });
    expect(summary(outcome)).toStrictEqual(ok({ kind: 'signed_in', userId: '1', username: 'winner', created: false, linked: false }));
  });

  it('should give up with store_conflict after the last attempt', async () => {
    const { store } = await storeWith([]);
    const losing: SignInStore = {
      accounts: { ...store.accounts, create: async () => err({ code: 'external_account_taken', serviceType: 'openidconnect', accountId: '1234' }) },
      transaction: (work) => work(losing),
    };
    const outcome = await runSignIn({ store: losing, now: () => 7, randomBytes: suffixesOf(), attempts: 2 }, { provider: oidc, identity: person(), signedInUserId: null });
    expect(outcome).toStrictEqual(err({ code: 'store_conflict', conflict: { code: 'external_account_taken', serviceType: 'openidconnect', accountId: '1234' } }));
    expect(await store.accounts.count()).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Agreement with the listing oracle (`signInWithIdentity` over every account)

describe('runSignIn and the listing oracle', () => {
  test.prop(
    [
      accountsArb.map((list) => list.map((a): Account => ({ ...a, origin: a.origin === 'service_account' ? 'password_signup' : a.origin }))),
      fc.oneof(authProvider, fc.constantFrom(hostcserver(true), hostcserver(false), proxy(true), proxy(false))),
      externalIdentity,
      fc.constantFrom(null, null, null, 0, 1),
      fc.constantFrom('s1', 's2'),
    ],
    { numRuns: 200 },
  )('should decide and write as the oracle does on generated accounts', async (accounts, provider, identity, signedIn, seed) => {
    // the same accounts in both stores, in the same order (ids 1, 2, … in the memory store)
    const { store, ids } = await storeWith(
      accounts.map((a) => ({ username: a.username, origin: a.origin, emails: a.emails.map((e) => ({ email: e.address, verified: e.verified })), links: a.externalAccounts })),
    );
    const oracleAccounts = accounts.map((a, i) => ({ ...a, id: ids[i] ?? '' }));
    let next = accounts.length;
    const oracle = createMemorySignInStore(oracleAccounts, () => String(++next));
    const signedInUserId = signedIn === null ? null : (ids[signedIn] ?? null);
    const expected = await signInWithIdentity({ provider, identity, signedInUserId, store: oracle, randomBytes: seededRandomBytes(seed) });
    const actual = await runSignIn({ store, now: () => 0, randomBytes: seededRandomBytes(seed) }, { provider, identity, signedInUserId });
    const inOracleTerms = actual
      .map((o) => (o.kind === 'signed_in' ? { kind: o.kind, userId: o.userId, created: o.created, linked: o.linked } : o))
      .mapErr((e) => (e.code === 'store_conflict' ? { code: e.code, conflict: { code: e.conflict.code } } : e));
    expect(inOracleTerms).toStrictEqual(expected);
    // the same accounts afterwards: names, emails and links
    const after = await Promise.all(
      oracle.accounts().map(async (a) => {
        const user = await store.accounts.get(a.id);
        const links = await store.accounts.links(a.id);
        return {
          username: user?.username,
          emails: user?.emails.map((e) => ({ address: e.email, verified: e.verified })),
          links: links.map((l) => ({ providerType: l.serviceType, serviceId: l.serviceId, accountId: l.accountId })),
        };
      }),
    );
    expect(after).toStrictEqual(oracle.accounts().map((a) => ({ username: a.username, emails: a.emails, links: a.externalAccounts })));
    expect(await store.accounts.count()).toBe(oracle.accounts().length);
  });
});

describe('runSignIn: a suspended account has no way in, by any provider', () => {
  const saml: AuthProvider = { type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'MIIB', allowSignup: true };
  it.each([
    { name: 'hosta (a code host), by its link', provider: hosta(), ref: { providerType: 'hosta', serviceId: '', accountId: '1234' }, emails: [] },
    { name: 'hostcserver, by its link', provider: hostcserver(), ref: HOSTC, emails: [] },
    { name: 'OpenID Connect, by a verified email', provider: oidc, ref: null, emails: [{ email: 'octo@example.com', verified: true }] },
    { name: 'the http-header proxy, by a verified email', provider: proxy(), ref: null, emails: [{ email: 'octo@example.com', verified: true }] },
    { name: 'SAML, by a verified email', provider: saml, ref: null, emails: [{ email: 'octo@example.com', verified: true }] },
  ] satisfies { name: string; provider: AuthProvider; ref: ExternalAccountRef | null; emails: { email: string; verified: boolean }[] }[])(
    'should refuse $name while suspended, link nothing, and sign in again once reinstated',
    async ({ provider, ref, emails }) => {
      const { store, ids } = await storeWith([{ username: 'octavia', emails, ...(ref === null ? {} : { links: [ref] }) }]);
      const id = ids[0] ?? '';
      (await store.accounts.setSuspended(id, 5))._unsafeUnwrap();
      const linksBefore = await store.accounts.links(id);
      const refused = await run(store, provider, person());
      expect(refused).toStrictEqual(ok({ kind: 'denied', reason: 'account_suspended', message: ACCOUNT_SUSPENDED_MESSAGE }));
      expect(await store.accounts.links(id)).toStrictEqual(linksBefore);
      expect(await store.accounts.count()).toBe(1);
      (await store.accounts.setSuspended(id, null))._unsafeUnwrap();
      const signedIn = summary(await run(store, provider, person()));
      expect(signedIn.isOk() && signedIn.value.kind === 'signed_in' && signedIn.value.userId).toBe(id);
    },
  );
});
