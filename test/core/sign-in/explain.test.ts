import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  accountDirectoryFromArray,
  type Account,
  type AccountDirectory,
  type AccountEmail,
  type ExternalAccountRef,
} from '../../../src/core/account-directory.js';
import type { AuthProvider, HostaProvider, HostbProvider, HttpHeaderProvider, OpenIdConnectProvider } from '../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../src/core/external-identity.js';
import { explainSignIn, signInRefusalReason, type SignInTraceStep } from '../../../src/core/sign-in/explain.js';
import { resolveSignIn, SIGN_IN_DENIAL_REASONS, type SignInInput } from '../../../src/core/sign-in/resolve.js';
import { isSignInRuleId, SIGN_IN_RULES, type SignInRuleId } from '../../../src/core/sign-in/rules.js';
import * as index from '../../../src/index.js';
import { accounts as accountsArb, authProvider, externalIdentity } from '../../arbitraries/identity.js';

// ---------------------------------------------------------------------------------------------
// Fixtures (the same shapes as test/core/provider-access.test.ts)

const hosta = (extra: Partial<HostaProvider> = {}): HostaProvider => ({ type: 'hosta', url: '', clientID: 'id', clientSecret: 'secret', allowSignup: false, ...extra });
const hostb = (extra: Partial<HostbProvider> = {}): HostbProvider => ({
  type: 'hostb',
  url: 'https://hostb.example.com',
  clientID: 'id',
  clientSecret: 'secret',
  apiScope: 'api',
  allowSignup: true,
  ...extra,
});
const oidc = (extra: Partial<OpenIdConnectProvider> = {}): OpenIdConnectProvider => ({
  type: 'openidconnect',
  issuer: 'https://accounts.example.com',
  clientID: 'id',
  clientSecret: 'secret',
  allowSignup: true,
  ...extra,
});
const proxy: HttpHeaderProvider = { type: 'http-header', usernameHeader: 'X-User', allowSignup: true };
const person = (extra: Partial<ExternalIdentity> = {}): ExternalIdentity => ({
  accountId: '1',
  username: 'octo',
  emails: [{ address: 'octo@example.com', verified: true }],
  ...extra,
});
const teams = (...names: string[]) => names.map((name) => ({ org: 'acme', name }));
const groups = (...memberships: [string, number][]) => memberships.map(([fullPath, accessLevel]) => ({ fullPath, accessLevel }));
const inbox = (address: string, verified = true) => [{ address, verified }];
const account = (id: string, username: string, emails: AccountEmail[] = [], links: ExternalAccountRef[] = [], origin: Account['origin'] = 'admin_created'): Account => ({
  id,
  username,
  origin,
  emails,
  externalAccounts: links,
});
const directoryOf = (list: readonly Account[]): AccountDirectory => accountDirectoryFromArray(list)._unsafeUnwrap();
const zeros = (n: number): Uint8Array => new Uint8Array(n);

const input = (provider: AuthProvider, identity: ExternalIdentity, accounts: readonly Account[] = [], signedInUserId: string | null = null): SignInInput => ({
  provider,
  identity,
  signedInUserId,
  directory: directoryOf(accounts),
  randomBytes: zeros,
});

const rulesOf = (trace: readonly SignInTraceStep[]): readonly string[] => trace.map((s) => s.rule);
const explain = (i: SignInInput) => explainSignIn(i)._unsafeUnwrap();

// ---------------------------------------------------------------------------------------------
// The gating tables: every row of the hosta, hostb and openidconnect tables of test/core/provider-access.test.ts,
// with the rule the row names (its `ref` up to `:` or ` (`), unless `cites` says which rule decides it.

interface GatingRow {
  readonly ref: string;
  readonly provider: AuthProvider;
  readonly identity: ExternalIdentity;
  readonly cites?: SignInRuleId;
}

const GATING_ROWS: readonly GatingRow[] = [
  // hosta
  { ref: '§5.3 hosta rule 3', provider: hosta({ allowSignup: true }), identity: person() },
  { ref: '§5.3 hosta rule 4: empty allowOrgs', provider: hosta({ allowOrgs: [] }), identity: person({ orgs: [] }) },
  { ref: '§5.3 hosta rule 4', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['globex', 'acme'] }) },
  { ref: '§5.3 hosta rule 4 (org names case-insensitive)', provider: hosta({ allowOrgs: ['ACME'] }), identity: person({ orgs: ['Acme'] }) },
  { ref: '§5.3 hosta rule 4: not in a listed org', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['globex'] }) },
  { ref: '§5.3 hosta rule 4: sign-in restricted with allowSignup false', provider: hosta({ allowSignup: false, allowOrgs: ['acme'] }), identity: person({ orgs: [] }) },
  { ref: '§5.3 hosta rule 4: sign-up restricted with allowSignup true', provider: hosta({ allowSignup: true, allowOrgs: ['acme'] }), identity: person({ orgs: [] }) },
  { ref: '§5.3 hosta rule 5: empty allowOrgsMap', provider: hosta({ allowOrgsMap: {} }), identity: person({ teams: [] }) },
  { ref: '§5.3 hosta rule 5: a map listing no team', provider: hosta({ allowOrgsMap: { acme: [] } }), identity: person({ teams: [] }) },
  { ref: '§5.3 hosta rule 5', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Ops', 'Core Team') }) },
  { ref: '§5.3 hosta rule 5: display name case differs', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('core team') }) },
  { ref: '§5.3 hosta rule 5: display name must match exactly', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Core Team ') }) },
  { ref: '§5.3 hosta rule 5: a listed parent does not admit a child-team member', provider: hosta({ allowOrgsMap: { acme: ['Engineering'] } }), identity: person({ teams: teams('Engineering/Core') }) },
  { ref: '§5.3 hosta rule 5: a listed child does not admit a parent-team member', provider: hosta({ allowOrgsMap: { acme: ['Engineering/Core'] } }), identity: person({ teams: teams('Engineering') }) },
  { ref: '§5.3 hosta rule 5: same team name in another org', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: [{ org: 'globex', name: 'Core Team' }] }) },
  { ref: '§5.3 hosta rule 5 (org key case-insensitive, like allowOrgs)', provider: hosta({ allowOrgsMap: { ACME: ['Core Team'] } }), identity: person({ teams: [{ org: 'acme', name: 'Core Team' }] }) },
  { ref: '§5.3 hosta rule 6: org checked first', provider: hosta({ allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Core Team') }) },
  { ref: '§5.3 hosta rule 6: teams when in no listed org', provider: hosta({ allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Core Team') }) },
  { ref: '§5.3 hosta rule 6: neither', provider: hosta({ allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Ops') }) },
  { ref: '§5.3 hosta rule 6: teams not needed when an org admits', provider: hosta({ allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'] }) },
  { ref: '§7 rule 3: team-name mismatch', provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Core team') }) },
  // hostb
  { ref: '§5.3 hostb rule 4: unset allowGroups', provider: hostb(), identity: person() },
  { ref: '§5.3 hostb rule 4: empty allowGroups', provider: hostb({ allowGroups: [] }), identity: person({ groups: [] }) },
  { ref: '§5.3 hostb rule 4', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['acme/platform', 30]) }) },
  { ref: '§5.3 hostb rule 4: not in a listed group', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['globex', 50]) }) },
  { ref: '§5.3 hostb rule 4: full path matched exactly (parent listed)', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme/platform', 50]) }) },
  { ref: '§5.3 hostb rule 4: full path matched exactly (subgroup listed)', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['acme', 50]) }) },
  { ref: '§5.3 hostb rule 4: full path matched exactly (case)', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['Acme/Platform', 50]) }) },
  { ref: '§5.3 hostb rule 5: Guest is enough', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 10]) }) },
  { ref: '§5.3 hostb rule 5: Minimal Access', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5]) }) },
  { ref: '§5.3 hostb rule 5: Minimal Access in a listed group, Guest in an unlisted one', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5], ['globex', 10]) }) },
  { ref: '§5.3 hostb rule 5: workaround, Guest in a listed subgroup', provider: hostb({ allowGroups: ['acme', 'acme/platform'] }), identity: person({ groups: groups(['acme', 5], ['acme/platform', 10]) }) },
  { ref: '§5.3 hostb rule 5: no access level', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 0]) }) },
  // An Owner is admitted by rule 5 (Guest or above); rule 7 is about which repositories the person then sees.
  { ref: '§5.3 hostb rule 7: an Owner is admitted like a Guest', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 50]) }), cites: '§5.3 hostb rule 5' },
  { ref: '§7 rule 4', provider: hostb({ allowSignup: false, allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5]) }) },
  { ref: '§7 rule 3: outside allowGroups', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [] }) },
  // openidconnect
  { ref: '§5.3 openidconnect rule 5: no requirement', provider: oidc(), identity: person({ emails: inbox('a@elsewhere.org', false) }) },
  { ref: '§5.3 openidconnect rule 5', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@example.com') }) },
  { ref: '§5.3 openidconnect rule 5: domain ASCII case-insensitive', provider: oidc({ requireEmailDomain: 'Example.COM' }), identity: person({ emails: inbox('a@EXAMPLE.com') }) },
  { ref: '§5.3 openidconnect rule 5: subdomains excluded', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@sub.example.com') }) },
  { ref: '§5.3 openidconnect rule 5: suffix is not a domain', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@badexample.com') }) },
  { ref: '§5.3 openidconnect rule 5: two @ is not an email', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('x@evil.com@example.com') }) },
  { ref: '§5.3 openidconnect rule 5: empty local part', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('@example.com') }) },
  { ref: '§5.3 openidconnect rule 5: no email', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: [] }) },
  { ref: '§5.3 openidconnect rule 5: unverified', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@example.com', false) }) },
  { ref: '§5.3 openidconnect rule 5: the primary email decides', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: [...inbox('a@other.org'), ...inbox('a@example.com')] }) },
  { ref: '§5.3 openidconnect rule 5: non-ASCII case is not folded', provider: oidc({ requireEmailDomain: 'exämple.com' }), identity: person({ emails: inbox('a@EXÄMPLE.com') }) },
];

/** The rule a row's `ref` names: up to the first `:` or ` (`. */
const ruleOfRef = (ref: string): string => ref.split(/:| \(/u)[0] ?? ref;

describe('explainSignIn: the gating tables', () => {
  it.each(GATING_ROWS)('should cite the rule of "$ref", and deny exactly when gating denies', (row) => {
    const { decision, trace } = explain(input(row.provider, row.identity));
    const rule = row.cites ?? ruleOfRef(row.ref);
    expect(isSignInRuleId(rule)).toBe(true);
    expect(rulesOf(trace)).toContain(rule);
    const gating = index.decideProviderAccess(row.provider, row.identity)._unsafeUnwrap();
    if (gating.kind === 'deny') expect(decision).toMatchObject({ kind: 'deny', reason: gating.reason });
    else expect(decision.kind === 'deny' ? decision.reason : 'passed gating').not.toMatch(/allowed_orgs|allowed_groups|minimal_access|email_domain|unverified_email/u);
  });

  it('should walk every row of the hosta, hostb and openidconnect tables of the provider-access test', () => {
    // the tables there are the source: a row added there without one here fails this test
    const source = readFileSync(new URL('../provider-access.test.ts', import.meta.url), 'utf8');
    const refs = [...source.matchAll(/ref: '(§(?:5\.3 (?:hosta|hostb|openidconnect)|7) [^']*)'/gu)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(40);
    expect(GATING_ROWS.map((row) => row.ref)).toStrictEqual(expect.arrayContaining(refs));
  });

  it('should explain a team-name mismatch in allowOrgsMap by rule 5, naming the mismatched team (§5.3 hosta rule 5)', () => {
    const { decision, trace } = explain(input(hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), person({ teams: teams('core team') })));
    expect(decision).toMatchObject({ kind: 'deny', reason: 'not_in_allowed_orgs_or_teams' });
    const rule5 = trace.find((s) => s.rule === '§5.3 hosta rule 5');
    expect(rule5).toMatchObject({ outcome: 'not_admitted', facts: { nameMismatches: [{ org: 'acme', name: 'core team' }], allowOrgsMap: [{ org: 'acme', name: 'Core Team' }] } });
    expect(trace.at(-1)).toMatchObject({ rule: '§7 rule 3', outcome: 'deny' });
    expect(signInRefusalReason(trace, 'hosta')).toMatch(/team names must match exactly/u);
  });

  it('should explain an admission by org membership before teams (§5.3 hosta rule 6), never consulting teams', () => {
    const provider = hosta({ allowSignup: true, allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core Team'] } });
    const { decision, trace } = explain(input(provider, person({ orgs: ['acme'], teams: teams('Ops') })));
    expect(decision.kind).toBe('create');
    expect(trace.slice(0, 2)).toMatchObject([
      { rule: '§5.3 hosta rule 4', outcome: 'admitted', facts: { matched: ['acme'] } },
      { rule: '§5.3 hosta rule 6', outcome: 'teams_not_consulted' },
    ]);
    expect(rulesOf(trace)).not.toContain('§5.3 hosta rule 5');
  });
});

// ---------------------------------------------------------------------------------------------
// Linking and naming (§5.3 sign-up rules, §5.4, §5.5, §7)

describe('explainSignIn: linking, sign-up and naming', () => {
  const admin = account('u1', 'octavia', [{ address: 'octo@example.com', verified: true }]);
  it.each([
    { ref: '§5.3 hosta rule 2: sign-up off, no matching account', i: input(hosta(), person({ emails: inbox('new@example.com') })), cites: ['§5.3 hosta rule 2', '§7 rule 3'], outcome: 'deny' },
    { ref: '§5.3 hosta rule 2: the admin-created account matched by a verified email', i: input(hosta(), person(), [admin]), cites: ['§5.4 rule 2'], outcome: 'sign_in' },
    { ref: '§5.3 hostb rule 3: sign-up off', i: input(hostb({ allowSignup: false }), person()), cites: ['§5.3 hostb rule 3', '§7 rule 3'], outcome: 'deny' },
    { ref: '§5.3 hostb rule 3: sign-up on by default', i: input(hostb(), person()), cites: ['§5.3 hostb rule 3', '§5.4 rule 2'], outcome: 'create' },
    { ref: '§5.3 openidconnect rule 4: sign-up on', i: input(oidc(), person()), cites: ['§5.3 openidconnect rule 4'], outcome: 'create' },
    { ref: '§5.3 openidconnect rule 4: sign-up off', i: input(oidc({ allowSignup: false }), person()), cites: ['§5.3 openidconnect rule 4', '§7 rule 3'], outcome: 'deny' },
    { ref: '§5.4 rule 2', i: input(oidc(), person(), [admin]), cites: ['§5.4 rule 2'], outcome: 'sign_in' },
    { ref: '§5.4 rule 3 and §7 rule 2', i: input(hosta({ allowSignup: true }), person({ emails: inbox('octo@example.com', false) }), [account('u1', 'octo')]), cites: ['§5.4 rule 3', '§7 rule 2'], outcome: 'deny' },
    { ref: '§5.4 rule 4: already linked', i: input(hosta(), person(), [account('u1', 'o', [], [{ providerType: 'hosta', serviceId: '', accountId: '1' }])]), cites: ['§5.4 rule 4'], outcome: 'sign_in' },
    { ref: '§5.4 rule 4: added to the signed-in account', i: input(hosta(), person(), [account('u7', 'me')], 'u7'), cites: ['§5.4 rule 4'], outcome: 'sign_in' },
    { ref: '§5.4 rule 4: linked to another user', i: input(hosta(), person(), [account('u1', 'o', [], [{ providerType: 'hosta', serviceId: '', accountId: '1' }]), account('u7', 'me')], 'u7'), cites: ['§5.4 rule 4'], outcome: 'deny' },
    { ref: '§5.4 rule 5', i: input({ type: 'hostcserver', url: 'https://c.example.com', clientID: 'i', clientSecret: 's', allowSignup: false }, person({ emails: inbox('other@example.com') }), [account('u1', 'octo')]), cites: ['§5.4 rule 5'], outcome: 'sign_in' },
    { ref: '§5.3 http-header rule 3', i: input(proxy, person({ emails: [] }), [account('u1', 'octo')]), cites: ['§5.3 http-header rule 3'], outcome: 'sign_in' },
    { ref: '§5.3 http-header rule 3: someone else\'s name', i: input(proxy, person({ emails: [] }), [account('u1', 'octo', [], [], 'password_signup')]), cites: ['§5.3 http-header rule 3', '§5.5 rule 8'], outcome: 'create' },
    { ref: '§5.5 rule 2', i: input(oidc(), person({ username: null, emails: inbox('jane_doe@example.com') })), cites: ['§5.5 rule 2'], outcome: 'create' },
    { ref: '§5.5 rule 8', i: input(oidc(), person({ emails: inbox('x@example.org', false) }), [account('u1', 'octo')]), cites: ['§5.5 rule 8'], outcome: 'create' },
    { ref: '§5.3 reviewhost', i: input({ type: 'reviewhost', url: 'https://r.example.com', allowSignup: false }, person()), cites: ['§5.3 reviewhost'], outcome: 'deny' },
  ] satisfies { ref: string; i: SignInInput; cites: SignInRuleId[]; outcome: string }[])('should cite $cites for $ref', ({ i, cites, outcome }) => {
    const { decision, trace } = explain(i);
    expect(rulesOf(trace)).toStrictEqual(expect.arrayContaining(cites));
    expect(trace.at(-1)?.outcome).toBe(outcome);
    expect(decision.kind).toBe(outcome);
  });

  it('should name the account a new person would get, after §5.5, and the names it found taken', () => {
    const { decision, trace } = explain(input(oidc(), person({ username: 'Octo Cat' }), [account('u1', 'Octo-Cat')]));
    expect(decision).toMatchObject({ kind: 'create', username: 'Octo-Cat-aaaaa' });
    expect(trace.find((s) => s.rule === '§5.5 rule 1')).toMatchObject({ facts: { name: 'Octo Cat', normalized: 'Octo-Cat' } });
    expect(trace.find((s) => s.rule === '§5.5 rule 8')).toMatchObject({ outcome: 'suffixed', facts: { taken: ['Octo-Cat'], chosen: 'Octo-Cat-aaaaa' } });
  });

  it('should have the spec\'s text for every rule id, and export it all from the package', () => {
    for (const [id, text] of Object.entries(SIGN_IN_RULES)) {
      expect(id).toMatch(/^§\d/u);
      expect(text.length).toBeGreaterThan(10);
    }
    expect(index.explainSignIn).toBe(explainSignIn);
    expect(index.signInRefusalReason).toBe(signInRefusalReason);
    expect(index.SIGN_IN_RULES).toBe(SIGN_IN_RULES);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Two random sources that return the same bytes in the same order: one for each of the two runs compared. */
const twinBytes = fc.array(fc.uint8Array({ minLength: 16, maxLength: 16 }), { minLength: 1, maxLength: 6 }).map((pool) => () => {
  let call = 0;
  return (n: number): Uint8Array => {
    const bytes = new Uint8Array(n);
    bytes.set((pool[call++ % pool.length] ?? new Uint8Array(16)).subarray(0, n));
    return bytes;
  };
});
const signedInUser = fc.constantFrom(null, 'u0', 'u1', 'u9');

describe('explainSignIn properties', () => {
  test.prop([fc.anything()])('should never throw, and fail exactly as resolveSignIn does', (value) => {
    // @ts-expect-error -- arbitrary values at run time
    const explained = explainSignIn(value);
    // @ts-expect-error -- arbitrary values at run time
    expect(explained.map((e) => e.decision)).toStrictEqual(resolveSignIn(value));
  });

  test.prop([
    fc.oneof(authProvider, fc.anything()),
    fc.oneof(externalIdentity, fc.anything()),
    fc.oneof(signedInUser, fc.anything()),
    fc.oneof(accountsArb.map(directoryOf), fc.anything()),
    twinBytes,
  ])('should decide what resolveSignIn decides when any field is anything', (provider, identity, signedInUserId, directory, bytes) => {
    // @ts-expect-error -- arbitrary values at run time
    const explained = explainSignIn({ provider, identity, signedInUserId, directory, randomBytes: bytes() });
    // @ts-expect-error -- arbitrary values at run time
    const resolved = resolveSignIn({ provider, identity, signedInUserId, directory, randomBytes: bytes() });
    expect(explained.map((e) => e.decision)).toStrictEqual(resolved);
  });

  test.prop([authProvider, externalIdentity, signedInUser, accountsArb, twinBytes], { numRuns: 500 })(
    'should decide what resolveSignIn decides, with a trace of known rules ending in the decision; every deny names a rule',
    (provider, identity, signedInUserId, accounts, bytes) => {
      const directory = directoryOf(accounts);
      const { decision, trace } = explainSignIn({ provider, identity, signedInUserId, directory, randomBytes: bytes() })._unsafeUnwrap();
      expect(decision).toStrictEqual(resolveSignIn({ provider, identity, signedInUserId, directory, randomBytes: bytes() })._unsafeUnwrap());
      expect(trace.length).toBeGreaterThan(1);
      for (const s of trace) expect(isSignInRuleId(s.rule)).toBe(true);
      const last = trace.at(-1);
      expect(last?.outcome).toBe(decision.kind);
      if (decision.kind === 'deny') {
        expect(last?.facts['reason']).toBe(decision.reason);
        expect(SIGN_IN_RULES[last?.rule ?? '§5.2']).toBeTruthy();
        expect(signInRefusalReason(trace, 'the provider')).toMatch(/\.$/u);
      } else {
        expect(signInRefusalReason(trace, 'the provider')).toBeNull();
      }
      // plain data: what is serialized is what is there
      expect(JSON.parse(JSON.stringify(trace))).toStrictEqual(trace);
    },
  );

  test.prop([authProvider, externalIdentity, signedInUser, accountsArb])('should be deterministic (the same input explains the same way twice)', (provider, identity, signedInUserId, accounts) => {
    const i = { provider, identity, signedInUserId, directory: directoryOf(accounts), randomBytes: zeros };
    expect(explainSignIn(i)).toStrictEqual(explainSignIn(i));
  });

  // A secret-looking token in every field that could carry one: the provider's credentials and URLs, extra fields
  // of the provider, the identity and the accounts (a raw profile with its token, a password hash).
  const secret = fc.stringMatching(/^[A-Za-z0-9]{12}$/u).map((s) => `gh0_SECRET${s}`);
  const withSecrets = fc.tuple(authProvider, externalIdentity, accountsArb, secret).map(([provider, identity, accounts, token]) => {
    const inUrl = (value: unknown): unknown => (typeof value === 'string' && value.startsWith('https://') ? value.replace('https://', `https://user:${token}@`) : value);
    const p: Record<string, unknown> = { ...provider };
    for (const key of ['url', 'issuer', 'entryPoint']) if (key in p) p[key] = inUrl(p[key]);
    for (const key of ['clientSecret', 'clientID', 'clientKey', 'idpCertificate', 'spPrivateKey']) if (key in p) p[key] = token;
    p['accessToken'] = token;
    const person = { ...identity, accessToken: token, refreshToken: token, password: token, profile: { token } };
    const found = accounts.map((a) => ({ ...a, passwordHash: token, sessionToken: token }));
    return { provider: p, identity: person, accounts: found, token };
  });

  test.prop([withSecrets, signedInUser], { numRuns: 300 })('should never put a secret into a trace', ({ provider, identity, accounts, token }, signedInUserId) => {
    const directory = accountDirectoryFromArray(accounts);
    if (directory.isErr()) return;
    // @ts-expect-error -- a provider entry with extra fields, as a raw configuration could hold
    const explained = explainSignIn({ provider, identity, signedInUserId, directory: directory.value, randomBytes: zeros });
    expect(explained.isOk()).toBe(true);
    expect(JSON.stringify(explained.map((e) => e.trace))).not.toContain(token);
    expect(JSON.stringify(explained.map((e) => e.trace))).not.toContain('SECRET');
  });

  test.prop([fc.constantFrom(...SIGN_IN_DENIAL_REASONS), fc.string({ maxLength: 20 })])(
    'should give every refusal a reason naming the provider, and nothing else of the trace',
    (reason, name) => {
      const sentence = signInRefusalReason([{ rule: '§7 rule 3', facts: { reason }, outcome: 'deny', note: '' }], name);
      expect(sentence).not.toBeNull();
      if (reason !== 'username_unavailable') expect(sentence).toContain(name);
    },
  );
});
