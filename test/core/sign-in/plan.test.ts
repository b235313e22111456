import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { accountDirectoryFromArray, type Account, type AccountDirectory, type AccountEmail, type ExternalAccountRef } from '../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../src/core/external-identity.js';
import {
  decideSignIn,
  planSignIn,
  SIGN_IN_DENIAL_MESSAGES,
  type SignInDenialReason,
  type SignInFacts,
  type SignInPlan,
  type SignInPlanDecision,
  type SignInVia,
} from '../../../src/core/sign-in/plan.js';
import { resolveSignIn, type SignInDecision } from '../../../src/core/sign-in/resolve.js';
import { externalAccountKey, usernameKey } from '../../../src/core/store-keys.js';
import { MAX_USERNAME_SUFFIX_ATTEMPTS, SUFFIX_RANDOM_BYTES, usernameCandidates, validateUsername } from '../../../src/core/username.js';
import { accounts as accountsArb, authProvider, externalIdentity } from '../../arbitraries/identity.js';

// ---------------------------------------------------------------------------------------------
// Fixtures

const hosta = (allowSignup = false, allowOrgs?: string[]): AuthProvider => ({
  type: 'hosta',
  url: '',
  clientID: 'id',
  clientSecret: 's',
  allowSignup,
  ...(allowOrgs === undefined ? {} : { allowOrgs }),
});
const hostcserver = (allowSignup = false): AuthProvider => ({
  type: 'hostcserver',
  url: 'https://hostc.example.com',
  clientID: 'id',
  clientSecret: 's',
  allowSignup,
});
const oidc: AuthProvider = { type: 'openidconnect', issuer: 'https://accounts.example.com', clientID: 'id', clientSecret: 's', allowSignup: true };
const proxy = (allowSignup = true): AuthProvider => ({ type: 'http-header', usernameHeader: 'X-User', emailHeader: 'X-Email', allowSignup });
const reviewhost: AuthProvider = { type: 'reviewhost', url: 'https://review.example.com', allowSignup: false };

const octoEmail = (verified = true): AccountEmail => ({ address: 'octo@example.com', verified });
const person = (extra: Partial<ExternalIdentity> = {}): ExternalIdentity => ({ accountId: '1234', username: 'octo', emails: [octoEmail()], ...extra });
const account = (id: string, username: string, emails: AccountEmail[] = [], links: ExternalAccountRef[] = [], origin: Account['origin'] = 'admin_created'): Account => ({
  id,
  username,
  origin,
  emails,
  externalAccounts: links,
});
const HOSTA: ExternalAccountRef = { providerType: 'hosta', serviceId: '', accountId: '1234' };
const HOSTC: ExternalAccountRef = { providerType: 'hostcserver', serviceId: 'https://hostc.example.com', accountId: '1234' };
const OIDC: ExternalAccountRef = { providerType: 'openidconnect', serviceId: 'https://accounts.example.com', accountId: '1234' };
const keyOf = (ref: ExternalAccountRef): string => externalAccountKey(ref.providerType, ref.serviceId, ref.accountId);
const bytes = (fill: number): Uint8Array => new Uint8Array(SUFFIX_RANDOM_BYTES).fill(fill);
const NOTHING: SignInFacts = { externalAccount: null, verifiedEmails: [], username: null };

const plan = (provider: AuthProvider, identity: ExternalIdentity = person(), signedInUserId: string | null = null, suffixBytes: Uint8Array[] = []): SignInPlan =>
  planSignIn({ provider, identity, signedInUserId, suffixBytes })._unsafeUnwrap();
const deny = (reason: SignInDenialReason): SignInPlanDecision => ({ kind: 'deny', reason, message: SIGN_IN_DENIAL_MESSAGES[reason] });
const signIn = (userId: string, via: SignInVia, linkExternalAccount: boolean, externalAccount: ExternalAccountRef): SignInPlanDecision => ({
  kind: 'sign_in',
  userId,
  via,
  linkExternalAccount,
  externalAccount,
});

// ---------------------------------------------------------------------------------------------

describe('usernameCandidates', () => {
  it.each([
    { ref: '§5.5 rules 1–6: the plain normalized name first', name: 'John Doe', chunks: [], expected: ok(['John-Doe']) },
    { ref: '§5.5 rule 2: an email gives its local part', name: 'octo@example.com', chunks: [], expected: ok(['octo']) },
    { ref: '§5.5 rule 8: one suffixed name per chunk, in order', name: 'octo', chunks: [bytes(0), bytes(1), bytes(2)], expected: ok(['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc']) },
    { ref: '§5.5 rule 8: a chunk with too few letters is an attempt spent', name: 'octo', chunks: [bytes(255), bytes(1)], expected: ok(['octo', 'octo-bbbbb']) },
    { ref: '§5.5 rule 8: a repeated suffix is tried once', name: 'octo', chunks: [bytes(3), bytes(3)], expected: ok(['octo', 'octo-ddddd']) },
    { ref: '§5.5 rule 8: at most MAX_USERNAME_SUFFIX_ATTEMPTS suffixes', name: 'octo', chunks: [0, 1, 2, 3, 4, 5, 6].map(bytes), expected: ok(['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc', 'octo-ddddd', 'octo-eeeee']) },
    { ref: '§5.5: nothing left after normalizing', name: '@example.com', chunks: [bytes(0)], expected: err({ code: 'empty_username' }) },
  ])('should follow $ref', ({ name, chunks, expected }) => {
    expect(usernameCandidates(name, chunks)).toStrictEqual(expected);
  });

  it('should refuse chunks that are not bytes', () => {
    // @ts-expect-error -- malformed at run time
    expect(usernameCandidates('octo', [[1, 2, 3]])).toStrictEqual(err({ code: 'not_a_byte_array', received: 'object' }));
    // @ts-expect-error -- malformed at run time
    expect(usernameCandidates('octo', 'bytes')).toStrictEqual(err({ code: 'not_a_byte_array', received: 'string' }));
  });

  test.prop([fc.string(), fc.array(fc.uint8Array({ minLength: 0, maxLength: 20 }), { maxLength: 8 })])(
    'should list valid, distinct names, the normalized name first, at most one per attempt (§5.5 rules 7–8)',
    (name, chunks) => {
      const result = usernameCandidates(name, chunks);
      if (result.isErr()) return;
      const candidates = result.value;
      expect(candidates.length).toBeLessThanOrEqual(1 + MAX_USERNAME_SUFFIX_ATTEMPTS);
      expect(candidates.every((candidate) => validateUsername(candidate).isOk())).toBe(true);
      expect(new Set(candidates.map(usernameKey)).size).toBe(candidates.length);
      expect(candidates.slice(1).every((candidate) => /-[a-z]{5}$/.test(candidate))).toBe(true);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (name, chunks) => {
    // @ts-expect-error -- arbitrary values at run time
    expect(() => usernameCandidates(name, chunks)).not.toThrow();
  });
});

describe('planSignIn', () => {
  it.each([
    {
      ref: '§5.4 rules 1–2, 4: the link and the verified emails, primary first, one per email match key',
      plan: plan(hosta(), person({ emails: [{ address: 'Octo@Example.com', verified: true }, { address: 'b@example.com', verified: false }, octoEmail(), { address: 'c@example.com', verified: true }] })),
      lookups: {
        externalAccount: { ref: HOSTA, key: keyOf(HOSTA) },
        verifiedEmails: [{ address: 'Octo@Example.com', key: 'octo@example.com' }, { address: 'c@example.com', key: 'c@example.com' }],
        username: null,
      },
    },
    {
      ref: '§5.4 rule 4: a signed-in user needs only the link looked up',
      plan: plan(hostcserver(), person(), 'u1'),
      lookups: { externalAccount: { ref: HOSTC, key: keyOf(HOSTC) }, verifiedEmails: [], username: null },
    },
    {
      ref: '§5.4 rule 5: hostcserver looks the username up by its key',
      plan: plan(hostcserver(), person({ username: 'Octo' })),
      lookups: { externalAccount: { ref: HOSTC, key: keyOf(HOSTC) }, verifiedEmails: [{ address: 'octo@example.com', key: 'octo@example.com' }], username: { name: 'Octo', key: 'octo' } },
    },
    {
      ref: '§5.4 rule 3: a code host without a verified email needs no username',
      plan: plan(hostcserver(), person({ emails: [octoEmail(false)] })),
      lookups: { externalAccount: { ref: HOSTC, key: keyOf(HOSTC) }, verifiedEmails: [], username: null },
    },
    {
      ref: '§5.3 http-header rule 3: a proxy sending an email matches no username',
      plan: plan(proxy(), person({ accountId: 'octo' })),
      lookups: {
        externalAccount: { ref: { providerType: 'http-header', serviceId: '', accountId: 'octo' }, key: externalAccountKey('http-header', '', 'octo') },
        verifiedEmails: [{ address: 'octo@example.com', key: 'octo@example.com' }],
        username: null,
      },
    },
    {
      ref: '§5.5 rule 8: a name that only normalizes to a valid one is not looked up',
      plan: plan(proxy(), person({ accountId: 'x', username: 'admin@evil.example', emails: [] })),
      lookups: {
        externalAccount: { ref: { providerType: 'http-header', serviceId: '', accountId: 'x' }, key: externalAccountKey('http-header', '', 'x') },
        verifiedEmails: [],
        username: null,
      },
    },
  ])('should say what to look up: $ref', ({ plan: planned, lookups }) => {
    expect(planned.kind === 'look_up' && planned.lookups).toStrictEqual(lookups);
  });

  it.each([
    { ref: '§5.4 rule 3, §7 rule 2', plan: plan(hosta(true), person({ emails: [] })), expected: deny('verified_email_missing') },
    { ref: '§7 rule 3', plan: plan(hosta(false)), expected: deny('signup_not_allowed') },
    { ref: '§5.5 (nothing to name the account)', plan: plan(oidc, person({ username: null, emails: [] })), expected: deny('username_missing') },
    {
      ref: '§5.5 rule 8: the candidates, plain name first',
      plan: plan(oidc, person({ username: 'Octo Cat' }), null, [bytes(0), bytes(1)]),
      expected: { kind: 'create', usernames: ['Octo-Cat', 'Octo-Cat-aaaaa', 'Octo-Cat-bbbbb'], emails: [octoEmail()], externalAccount: OIDC },
    },
  ])('should hold the outcome when nothing is found: $ref', ({ plan: planned, expected }) => {
    expect(planned.kind === 'look_up' && planned.whenNoAccount).toStrictEqual(expected);
  });

  it.each([
    { ref: '§5.3 hosta rule 4: gating denies before any lookup', provider: hosta(true, ['acme']), signedInUserId: null, expected: 'not_in_allowed_orgs_or_teams' },
    { ref: '§5.3 reviewhost: never signs in', provider: reviewhost, signedInUserId: null, expected: 'provider_not_for_sign_in' },
  ])('should decide without lookups: $ref', ({ provider, signedInUserId, expected }) => {
    expect(planSignIn({ provider, identity: person({ orgs: [] }), signedInUserId, suffixBytes: [] })).toStrictEqual(ok({ kind: 'denied', reason: expected }));
  });

  it.each([
    { ref: 'input', value: null, expected: err({ code: 'invalid_sign_in_input', path: 'input' }) },
    { ref: 'signedInUserId', value: { provider: oidc, identity: person(), signedInUserId: '', suffixBytes: [] }, expected: err({ code: 'invalid_sign_in_input', path: 'signedInUserId' }) },
    { ref: 'suffixBytes', value: { provider: oidc, identity: person(), signedInUserId: null, suffixBytes: [[0]] }, expected: err({ code: 'invalid_sign_in_input', path: 'suffixBytes' }) },
    { ref: 'identity', value: { provider: oidc, identity: { accountId: '' }, signedInUserId: null, suffixBytes: [] }, expected: err({ code: 'invalid_identity', path: 'accountId', expected: 'non-empty string' }) },
  ])('should not plan on malformed input: $ref', ({ value, expected }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(planSignIn(value)).toStrictEqual(expected);
  });

  it('should return a frozen plan', () => {
    const planned = plan(oidc);
    expect(Object.isFrozen(planned)).toBe(true);
    expect(planned.kind === 'look_up' && Object.isFrozen(planned.lookups.verifiedEmails)).toBe(true);
  });

  test.prop([fc.anything()])('should never throw on anything', (value) => {
    // @ts-expect-error -- arbitrary values at run time
    expect(() => planSignIn(value)).not.toThrow();
  });
});

describe('decideSignIn', () => {
  const octavia = account('u-octavia', 'octavia', [octoEmail()]);
  it.each([
    { ref: '§5.4 rule 4: the linked account', plan: plan(hosta()), facts: { ...NOTHING, externalAccount: account('u1', 'x', [], [HOSTA]) }, expected: signIn('u1', 'external_account', false, HOSTA) },
    { ref: '§5.4 rule 4: linked to the signed-in user', plan: plan(hosta(), person(), 'u1'), facts: { ...NOTHING, externalAccount: account('u1', 'x', [], [HOSTA]) }, expected: signIn('u1', 'external_account', false, HOSTA) },
    { ref: '§5.4 rule 4: linked to someone else', plan: plan(hosta(), person(), 'u2'), facts: { ...NOTHING, externalAccount: account('u1', 'x', [], [HOSTA]) }, expected: deny('identity_linked_to_other_user') },
    { ref: '§5.4 rule 4: added to the signed-in user', plan: plan(hosta(), person(), 'u2'), facts: NOTHING, expected: signIn('u2', 'signed_in_user', true, HOSTA) },
    { ref: '§5.4 rules 1–2: a verified email', plan: plan(hosta()), facts: { ...NOTHING, verifiedEmails: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 2: an answer where the email is unverified never links', plan: plan(hosta()), facts: { ...NOTHING, verifiedEmails: [account('u1', 'x', [octoEmail(false)])] }, expected: deny('signup_not_allowed') },
    { ref: '§5.4 rule 2: primary first', plan: plan(hosta(), person({ emails: [{ address: 'b@example.com', verified: true }, octoEmail()] })), facts: { ...NOTHING, verifiedEmails: [account('u-b', 'b', [{ address: 'B@example.com', verified: true }]), octavia] }, expected: signIn('u-b', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 5: an admin-created account of that name', plan: plan(hostcserver()), facts: { ...NOTHING, username: account('u-octo', 'OCTO') }, expected: signIn('u-octo', 'username', true, HOSTC) },
    { ref: '§5.4 rule 5: a verified email wins over the username', plan: plan(hostcserver()), facts: { ...NOTHING, verifiedEmails: [octavia], username: account('u-octo', 'octo') }, expected: signIn('u-octavia', 'verified_email', true, HOSTC) },
    { ref: '§5.4 rule 5: not an account signed up with a password', plan: plan(hostcserver()), facts: { ...NOTHING, username: account('u-octo', 'octo', [], [], 'password_signup') }, expected: deny('signup_not_allowed') },
    { ref: '§5.4 rule 5: not an account linked to this provider type', plan: plan(hostcserver()), facts: { ...NOTHING, username: account('u-octo', 'octo', [], [{ ...HOSTC, accountId: '9' }]) }, expected: deny('signup_not_allowed') },
    { ref: '§5.5 rule 8: an answer naming another account is not a match', plan: plan(hostcserver()), facts: { ...NOTHING, username: account('u-admin', 'admin') }, expected: deny('signup_not_allowed') },
    { ref: '§5.4 rule 3: a code host without a verified email', plan: plan(hosta(true), person({ emails: [] })), facts: NOTHING, expected: deny('verified_email_missing') },
    { ref: '§5.5 rule 8: a new account with its candidates', plan: plan(oidc, person(), null, [bytes(0)]), facts: NOTHING, expected: { kind: 'create', usernames: ['octo', 'octo-aaaaa'], emails: [octoEmail()], externalAccount: OIDC } },
    { ref: '§5.3 hosta rule 4: decided by the plan', plan: plan(hosta(true, ['acme']), person({ orgs: [] })), facts: NOTHING, expected: deny('not_in_allowed_orgs_or_teams') },
  ] satisfies { ref: string; plan: SignInPlan; facts: SignInFacts; expected: SignInPlanDecision }[])('should follow $ref', ({ plan: planned, facts, expected }) => {
    expect(decideSignIn(planned, facts)).toStrictEqual(ok(expected));
  });

  it.each([
    { ref: 'a plan planSignIn did not make', plan: structuredClone(plan(oidc)), facts: NOTHING, expected: err({ code: 'invalid_sign_in_input', path: 'plan' }) },
    { ref: 'facts not an object', plan: plan(oidc), facts: 'none', expected: err({ code: 'invalid_sign_in_input', path: 'facts' }) },
    { ref: 'emails not a list', plan: plan(oidc), facts: { ...NOTHING, verifiedEmails: 'x' }, expected: err({ code: 'invalid_sign_in_input', path: 'facts' }) },
    { ref: 'a malformed link answer', plan: plan(oidc), facts: { ...NOTHING, externalAccount: { id: 'u1' } }, expected: err({ code: 'directory_failed', operation: 'findByExternalAccount', cause: 'malformed_result' }) },
    { ref: 'a malformed email answer', plan: plan(oidc), facts: { ...NOTHING, verifiedEmails: [7] }, expected: err({ code: 'directory_failed', operation: 'findByVerifiedEmail', cause: 'malformed_result' }) },
  ])('should not decide on $ref', ({ plan: planned, facts, expected }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(decideSignIn(planned, facts)).toStrictEqual(expected);
  });

  test.prop([fc.oneof(fc.anything(), fc.constant(plan(oidc)), fc.constant(plan(hostcserver()))), fc.anything()])(
    'should never throw on anything',
    (planned, facts) => {
      // @ts-expect-error -- arbitrary values at run time
      expect(() => decideSignIn(planned, facts)).not.toThrow();
    },
  );
});

// ---------------------------------------------------------------------------------------------
// resolveSignIn is plan → lookups → decide

/** A random source over a pool of chunks, cycled by call: two sources over one pool draw the same bytes. */
const sourceOf = (pool: readonly Uint8Array[]): ((n: number) => Uint8Array) => {
  let call = 0;
  return (n) => {
    const out = new Uint8Array(n);
    out.set((pool[call++ % pool.length] ?? new Uint8Array(16)).subarray(0, n));
    return out;
  };
};
const bytePool = fc.array(fc.uint8Array({ minLength: 16, maxLength: 16 }), { minLength: 1, maxLength: 6 });

/** The two steps run by hand: every lookup through the directory, then the first candidate the directory has free. */
function twoSteps(
  provider: AuthProvider,
  identity: ExternalIdentity,
  signedInUserId: string | null,
  directory: AccountDirectory,
  randomBytes: (n: number) => Uint8Array,
): SignInDecision {
  const suffixBytes = Array.from({ length: MAX_USERNAME_SUFFIX_ATTEMPTS }, () => randomBytes(SUFFIX_RANDOM_BYTES));
  const planned = planSignIn({ provider, identity, signedInUserId, suffixBytes })._unsafeUnwrap();
  const facts: SignInFacts =
    planned.kind === 'denied'
      ? NOTHING
      : {
          externalAccount: directory.findByExternalAccount(planned.lookups.externalAccount.ref),
          verifiedEmails: planned.lookups.verifiedEmails.map((email) => directory.findByVerifiedEmail(email.address)),
          username: planned.lookups.username === null ? null : directory.findByUsername(planned.lookups.username.name),
        };
  const decision = decideSignIn(planned, facts)._unsafeUnwrap();
  if (decision.kind !== 'create') return decision;
  const free = decision.usernames.find((name) => !directory.isUsernameTaken(name));
  return free === undefined
    ? { kind: 'deny', reason: 'username_unavailable', message: SIGN_IN_DENIAL_MESSAGES.username_unavailable }
    : { kind: 'create', username: free, emails: decision.emails, externalAccount: decision.externalAccount };
}

const usernameMatcher = fc.constantFrom<AuthProvider>(hostcserver(true), hostcserver(false), proxy(true), proxy(false));
const provider = fc.oneof(authProvider, usernameMatcher);
const signedInUser = fc.constantFrom(null, null, null, 'u0', 'u1', 'u9');
const namedIdentity = fc.record(
  {
    accountId: fc.constantFrom('1', '2', 'octo'),
    username: fc.constantFrom('octo', 'Octo', 'alice', 'x_y', 'octo@evil.example', 'Octo-abcde', null),
    emails: fc.array(fc.record({ address: fc.constantFrom('octo@example.com', 'ALICE@example.com', 'new@corp.example'), verified: fc.boolean() }, { noNullPrototype: true }), { maxLength: 2 }),
  },
  { noNullPrototype: true },
);
/** Accounts whose names are often taken by the candidates: the plain names and the suffixes of bytes filled with 0–2. */
const crowdedAccounts = fc
  .uniqueArray(fc.constantFrom('octo', 'octo-aaaaa', 'octo-bbbbb', 'alice', 'x_y', 'x_y-aaaaa', 'Octo-abcde'), { maxLength: 6, comparator: (a, b) => a.toLowerCase() === b.toLowerCase() })
  .chain((names) =>
    fc.tuple(...names.map((name, i) => fc.record({ origin: fc.constantFrom('admin_created', 'password_signup'), linked: fc.boolean() }, { noNullPrototype: true }).map(({ origin, linked }) => account(`u${i}`, name, [], linked ? [{ ...HOSTC, accountId: `h${i}` }] : [], origin)))),
  );
/** Chunks whose suffixes are `aaaaa`, `bbbbb` or `ccccc`, or none at all. */
const smallPool = fc.array(fc.constantFrom(bytes(0), bytes(1), bytes(2), bytes(255)), { minLength: 1, maxLength: 3 });

describe('resolveSignIn as plan → lookups → decide', () => {
  test.prop([provider, externalIdentity, signedInUser, accountsArb, bytePool], { numRuns: 500 })(
    'should equal the two steps on generated directories and inputs',
    (p, identity, signedInUserId, accounts, pool) => {
      const directory = accountDirectoryFromArray(accounts)._unsafeUnwrap();
      expect(resolveSignIn({ provider: p, identity, signedInUserId, directory, randomBytes: sourceOf(pool) })).toStrictEqual(
        ok(twoSteps(p, identity, signedInUserId, directory, sourceOf(pool))),
      );
    },
  );

  test.prop([provider, namedIdentity, signedInUser, crowdedAccounts, smallPool], { numRuns: 500 })(
    'should equal the two steps where names and suffixes collide (§5.4 rule 5, §5.5 rule 8)',
    (p, identity, signedInUserId, accounts, pool) => {
      const directory = accountDirectoryFromArray(accounts)._unsafeUnwrap();
      expect(resolveSignIn({ provider: p, identity, signedInUserId, directory, randomBytes: sourceOf(pool) })).toStrictEqual(
        ok(twoSteps(p, identity, signedInUserId, directory, sourceOf(pool))),
      );
    },
  );
});
