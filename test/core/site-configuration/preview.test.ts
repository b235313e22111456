import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';
import {
  configurationChanges,
  emptyPreviewTally,
  identityFacts,
  locksOutSiteAdmins,
  previewSignInPage,
  tallyPreviewPage,
  type IdentityFacts,
  type PreviewAccount,
  type PreviewTally,
  type SignInState,
} from '../../../src/core/site-configuration/preview.js';
import type { SiteConfiguration } from '../../../src/core/site-configuration/types.js';
import { resolveSignIn } from '../../../src/core/sign-in/resolve.js';
import { ACCESS_DENIAL_REASONS } from '../../../src/core/provider-access.js';
import type { Account } from '../../../src/core/account-directory.js';

const HOSTB = 'https://hostb.example';
const ISSUER = 'https://id.example';

/** The small space of configurations the properties draw from, as the administrator writes them. */
interface ConfigModel {
  readonly builtin: boolean;
  readonly hosta: null | { readonly allowOrgs: readonly string[]; readonly allowSignup: boolean };
  readonly hostb: null | { readonly allowGroups: readonly string[] };
  readonly oidc: null | { readonly domain: string | null };
  readonly proxy: boolean;
  readonly maxDepth: number;
}

function configText(m: ConfigModel): string {
  const providers: unknown[] = [];
  if (m.builtin) providers.push({ type: 'builtin' });
  if (m.hosta !== null) {
    providers.push({ type: 'hosta', clientID: 'id', clientSecret: 's', allowSignup: m.hosta.allowSignup, ...(m.hosta.allowOrgs.length > 0 ? { allowOrgs: m.hosta.allowOrgs } : {}) });
  }
  if (m.hostb !== null) providers.push({ type: 'hostb', url: HOSTB, clientID: 'id', clientSecret: 's', ...(m.hostb.allowGroups.length > 0 ? { allowGroups: m.hostb.allowGroups } : {}) });
  if (m.oidc !== null) providers.push({ type: 'openidconnect', issuer: ISSUER, clientID: 'id', clientSecret: 's', ...(m.oidc.domain === null ? {} : { requireEmailDomain: m.oidc.domain }) });
  if (m.proxy) providers.push({ type: 'http-header', usernameHeader: 'X-User' });
  return JSON.stringify({
    externalURL: 'https://gatehouse.example',
    trustedProxies: ['127.0.0.1'],
    'auth.providers': providers,
    rateLimits: { graphQLMaxDepth: m.maxDepth },
  });
}

function configOf(m: ConfigModel): SiteConfiguration {
  return parseSiteConfiguration(configText(m))._unsafeUnwrap();
}

const ORGS = ['acme', 'globex', 'initech'] as const;
const GROUPS = ['eng', 'ops'] as const;

const configModel: fc.Arbitrary<ConfigModel> = fc.record({
  builtin: fc.boolean(),
  hosta: fc.option(fc.record({ allowOrgs: fc.subarray([...ORGS]), allowSignup: fc.boolean() }), { nil: null }),
  hostb: fc.option(fc.record({ allowGroups: fc.subarray([...GROUPS]) }), { nil: null }),
  oidc: fc.option(fc.record({ domain: fc.option(fc.constantFrom('example.com', 'corp.example'), { nil: null }) }), { nil: null }),
  proxy: fc.boolean(),
  maxDepth: fc.constantFrom(10, 30),
});

type IdentityModel =
  | { readonly type: 'hosta'; readonly orgs: readonly string[] | null }
  | { readonly type: 'hostb'; readonly groups: readonly { readonly path: string; readonly level: number }[] | null }
  | { readonly type: 'openidconnect'; readonly email: { readonly domain: string; readonly verified: boolean } | null | 'no_facts' }
  | { readonly type: 'http-header' }
  | { readonly type: 'gone' };

const identityModel: fc.Arbitrary<IdentityModel> = fc.oneof(
  fc.record({ type: fc.constant('hosta' as const), orgs: fc.option(fc.subarray(['ACME', 'globex', 'umbrella']), { nil: null }) }),
  fc.record({
    type: fc.constant('hostb' as const),
    groups: fc.option(fc.array(fc.record({ path: fc.constantFrom(...GROUPS, 'other'), level: fc.constantFrom(5, 10, 30) }), { maxLength: 3 }), { nil: null }),
  }),
  fc.record({
    type: fc.constant('openidconnect' as const),
    email: fc.oneof(fc.constant('no_facts' as const), fc.option(fc.record({ domain: fc.constantFrom('example.com', 'corp.example', 'sub.example.com'), verified: fc.boolean() }), { nil: null })),
  }),
  fc.constant({ type: 'http-header' as const }),
  fc.constant({ type: 'gone' as const }),
);

interface AccountModel {
  readonly siteAdmin: boolean;
  readonly serviceAccount: boolean;
  readonly password: boolean;
  readonly identities: readonly IdentityModel[];
}

const accountModel: fc.Arbitrary<AccountModel> = fc.record({
  siteAdmin: fc.boolean(),
  serviceAccount: fc.boolean(),
  password: fc.boolean(),
  identities: fc.array(identityModel, { maxLength: 3 }),
});

function identityOf(m: IdentityModel, i: number): PreviewAccount['identities'][number] {
  const accountId = `ext-${i}`;
  const base = { username: `u${i}`, emails: [] };
  switch (m.type) {
    case 'hosta':
      return { serviceType: 'hosta', serviceId: '', accountId, facts: m.orgs === null ? null : { ...base, orgs: m.orgs, teams: [] } };
    case 'hostb':
      return {
        serviceType: 'hostb',
        serviceId: HOSTB,
        accountId,
        facts: m.groups === null ? null : { ...base, groups: m.groups.map((g) => ({ fullPath: g.path, accessLevel: g.level })) },
      };
    case 'openidconnect': {
      const facts: IdentityFacts | null =
        m.email === 'no_facts' ? null : { ...base, emails: m.email === null ? [] : [{ address: `p@${m.email.domain}`, verified: m.email.verified }] };
      return { serviceType: 'openidconnect', serviceId: ISSUER, accountId, facts };
    }
    case 'http-header':
      return { serviceType: 'http-header', serviceId: '', accountId, facts: null };
    case 'gone':
      return { serviceType: 'hostz', serviceId: '', accountId, facts: base };
  }
}

function accountsOf(models: readonly AccountModel[]): PreviewAccount[] {
  return models.map((m, i) => ({
    id: String(i + 1),
    username: `user${i + 1}`,
    origin: 'provider_signup',
    siteAdmin: m.siteAdmin,
    serviceAccount: m.serviceAccount,
    passwordHash: m.password ? 'scrypt$x' : null,
    identities: m.identities.map((id, j) => identityOf(id, i * 10 + j)),
  }));
}

/** The oracle: each way's answer, written from the spec's rules without the core's code. */
function oracleWay(config: ConfigModel, way: IdentityModel | 'password'): SignInState {
  if (way === 'password') return config.builtin ? 'allowed' : 'denied';
  switch (way.type) {
    case 'hosta': {
      if (config.hosta === null) return 'denied';
      if (config.hosta.allowOrgs.length === 0) return 'allowed';
      if (way.orgs === null) return 'unknown';
      return way.orgs.some((o) => config.hosta?.allowOrgs.includes(o.toLowerCase())) ? 'allowed' : 'denied';
    }
    case 'hostb': {
      if (config.hostb === null) return 'denied';
      if (config.hostb.allowGroups.length === 0) return 'allowed';
      if (way.groups === null) return 'unknown';
      return way.groups.some((g) => config.hostb?.allowGroups.includes(g.path) && g.level >= 10) ? 'allowed' : 'denied';
    }
    case 'openidconnect': {
      if (config.oidc === null) return 'denied';
      if (config.oidc.domain === null) return 'allowed';
      if (way.email === 'no_facts') return 'unknown';
      return way.email !== null && way.email.domain === config.oidc.domain && way.email.verified ? 'allowed' : 'denied';
    }
    case 'http-header':
      return config.proxy ? 'allowed' : 'denied';
    case 'gone':
      return 'denied';
  }
}

const overall = (states: readonly SignInState[]): SignInState =>
  states.includes('allowed') ? 'allowed' : states.includes('unknown') ? 'unknown' : 'denied';

function tallyOf(current: SiteConfiguration, candidate: SiteConfiguration, accounts: readonly PreviewAccount[], pageSize: number): PreviewTally {
  let tally = emptyPreviewTally(5);
  for (let at = 0; at < accounts.length; at += pageSize) {
    tally = tallyPreviewPage(tally, previewSignInPage(current, candidate, accounts.slice(at, at + pageSize))._unsafeUnwrap());
  }
  return tally;
}

describe('previewSignInPage', () => {
  test.prop([configModel, configModel, fc.array(accountModel, { maxLength: 6 })])(
    'should answer every way in as an independent reading of §5.3 and §5.4 does (model-based)',
    (before, after, models) => {
      const accounts = accountsOf(models);
      const previews = previewSignInPage(configOf(before), configOf(after), accounts)._unsafeUnwrap();
      const browserModels = models.filter((m) => !m.serviceAccount);
      expect(previews).toHaveLength(browserModels.length);
      previews.forEach((preview, i) => {
        const model = browserModels[i];
        if (model === undefined) throw new Error('no model');
        const ways: (IdentityModel | 'password')[] = [...(model.password ? ['password' as const] : []), ...model.identities];
        expect(preview.ways.map((w) => w.current)).toStrictEqual(ways.map((w) => oracleWay(before, w)));
        expect(preview.ways.map((w) => w.candidate)).toStrictEqual(ways.map((w) => oracleWay(after, w)));
        expect(preview.current).toBe(overall(ways.map((w) => oracleWay(before, w))));
        expect(preview.candidate).toBe(overall(ways.map((w) => oracleWay(after, w))));
      });
    },
  );

  test.prop([configModel, fc.array(accountModel, { maxLength: 8 }), fc.integer({ min: 1, max: 4 })])(
    'should change nothing when the candidate equals the current configuration',
    (model, models, pageSize) => {
      const current = configOf(model);
      const same = configOf(model);
      const tally = tallyOf(current, same, accountsOf(models), pageSize);
      expect(tally.losing.count + tally.gaining.count + tally.unknown.count + tally.accountsLockedOut.count).toBe(0);
      expect(locksOutSiteAdmins(tally)).toBe(false);
      expect(configurationChanges(current, same)).toStrictEqual({ providers: [], limits: [] });
    },
  );

  test.prop([configModel, configModel, fc.array(accountModel, { maxLength: 8 })])(
    'should swap who loses and who gains when the two configurations swap',
    (a, b, models) => {
      const accounts = accountsOf(models);
      const forward = tallyOf(configOf(a), configOf(b), accounts, 3);
      const backward = tallyOf(configOf(b), configOf(a), accounts, 3);
      expect(forward.losing.count).toBe(backward.gaining.count);
      expect(forward.gaining.count).toBe(backward.losing.count);
      expect(forward.unknown.count).toBe(backward.unknown.count);
    },
  );

  test.prop([configModel, configModel, fc.array(accountModel, { maxLength: 10 }), fc.integer({ min: 1, max: 10 })])(
    'should tally the same counts however the accounts are paged, and keep at most the cap of names',
    (a, b, models, pageSize) => {
      const accounts = accountsOf(models);
      const whole = tallyOf(configOf(a), configOf(b), accounts, Math.max(1, accounts.length));
      const paged = tallyOf(configOf(a), configOf(b), accounts, pageSize);
      expect(paged).toStrictEqual(whole);
      expect(paged.losing.first.length).toBeLessThanOrEqual(5);
      expect(paged.losing.first.length).toBe(Math.min(5, paged.losing.count));
    },
  );

  test.prop([
    configModel,
    configModel,
    fc.array(fc.record({ model: accountModel, name: fc.constantFrom('a', 'b'), domain: fc.constantFrom('example.com', 'corp.example') }), { maxLength: 12 }),
  ])('should answer a page exactly as it answers each of its accounts alone (the page memo changes nothing)', (a, b, drawn) => {
    const accounts = accountsOf(drawn.map((d) => d.model)).map((account, i) => {
      const d = drawn[i];
      if (d === undefined) throw new Error('no draw');
      // accounts share facts often (few names, domains and memberships), so the page memo answers many identities
      return {
        ...account,
        identities: account.identities.map((identity) =>
          identity.facts === null ? identity : { ...identity, facts: { ...identity.facts, username: d.name, emails: identity.facts.emails.length > 0 ? identity.facts.emails : [{ address: `${d.name}@${d.domain}`, verified: true }] } },
        ),
      };
    });
    const current = configOf(a);
    const candidate = configOf(b);
    const page = previewSignInPage(current, candidate, accounts)._unsafeUnwrap();
    const alone = accounts.flatMap((account) => previewSignInPage(current, candidate, [account])._unsafeUnwrap());
    expect(page).toStrictEqual(alone);
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw, whatever it is given', (a, b, c) => {
    const run = () => previewSignInPage(a as SiteConfiguration, b as SiteConfiguration, c as PreviewAccount[]);
    expect(run).not.toThrow();
  });

  it('should refuse a page that is not a list of accounts', () => {
    const config = configOf({ builtin: true, hosta: null, hostb: null, oidc: null, proxy: false, maxDepth: 30 });
    expect(previewSignInPage(config, config, [{ id: '' }] as never)._unsafeUnwrapErr()).toStrictEqual({ code: 'invalid_preview_input', path: 'accounts' });
    expect(previewSignInPage({} as never, config, [])._unsafeUnwrapErr().path).toBe('current');
  });
});

describe('the preview of removing an org from allowOrgs (§5.3 hosta rule 3, §7 rule 3)', () => {
  const before = configOf({ builtin: true, hosta: { allowOrgs: ['acme', 'globex'], allowSignup: false }, hostb: null, oidc: null, proxy: false, maxDepth: 30 });
  const after = configOf({ builtin: true, hosta: { allowOrgs: ['acme'], allowSignup: false }, hostb: null, oidc: null, proxy: false, maxDepth: 30 });
  const account = (id: string, orgs: readonly string[] | null, password = false): PreviewAccount => ({
    id,
    username: `user${id}`,
    origin: 'provider_signup',
    siteAdmin: false,
    serviceAccount: false,
    passwordHash: password ? 'scrypt$x' : null,
    identities: [{ serviceType: 'hosta', serviceId: '', accountId: `h${id}`, facts: orgs === null ? null : { username: `gh${id}`, emails: [], orgs } }],
  });

  it('should list exactly the members of the removed org only, and count those without facts as unknown', () => {
    const tally = tallyPreviewPage(
      emptyPreviewTally(),
      previewSignInPage(before, after, [account('1', ['acme']), account('2', ['globex']), account('3', ['acme', 'globex']), account('4', null), account('5', ['GLOBEX'], true)])._unsafeUnwrap(),
    );
    expect(tally.losing.first.map((c) => [c.username, c.providerUsername, c.reason, c.accountStillSignsIn])).toStrictEqual([
      ['user2', 'gh2', 'not_in_allowed_orgs_or_teams', false],
      ['user5', 'gh5', 'not_in_allowed_orgs_or_teams', true],
    ]);
    expect(tally.gaining.count).toBe(0);
    expect(tally.unknown.first.map((c) => c.username)).toStrictEqual(['user4']);
    expect(tally.identitiesWithoutFacts).toBe(1);
    expect(tally.accountsLockedOut.first.map((a) => a.username)).toStrictEqual(['user2']);
  });
});

describe('locksOutSiteAdmins', () => {
  const admin = (password: boolean, orgs: readonly string[] | null): PreviewAccount => ({
    id: '1',
    username: 'admin',
    origin: 'admin_created',
    siteAdmin: true,
    serviceAccount: false,
    passwordHash: password ? 'scrypt$x' : null,
    identities: orgs === undefined ? [] : [{ serviceType: 'hosta', serviceId: '', accountId: 'a1', facts: orgs === null ? null : { username: 'adm', emails: [], orgs } }],
  });
  const withBuiltin = configOf({ builtin: true, hosta: { allowOrgs: ['acme'], allowSignup: false }, hostb: null, oidc: null, proxy: false, maxDepth: 30 });
  const hostaOnly = configOf({ builtin: false, hosta: { allowOrgs: ['acme'], allowSignup: false }, hostb: null, oidc: null, proxy: false, maxDepth: 30 });
  const cases: readonly (readonly [string, PreviewAccount, boolean])[] = [
    ['password removed, the admin is in no allowed org', admin(true, ['globex']), true],
    ['password removed, the admin is in an allowed org', admin(true, ['acme']), false],
    ['password removed, the admin identity has no facts (may still sign in)', admin(true, null), false],
  ];
  it.each(cases)('%s', (_name, account, lockedOut) => {
    const tally = tallyPreviewPage(emptyPreviewTally(), previewSignInPage(withBuiltin, hostaOnly, [account])._unsafeUnwrap());
    expect(locksOutSiteAdmins(tally)).toBe(lockedOut);
  });

  it('should not call it a lockout when no administrator can sign in now either', () => {
    const tally = tallyPreviewPage(emptyPreviewTally(), previewSignInPage(hostaOnly, hostaOnly, [admin(false, ['globex'])])._unsafeUnwrap());
    expect(tally.siteAdmins).toBe(1);
    expect(locksOutSiteAdmins(tally)).toBe(false);
  });
});

describe('configurationChanges (§8 limits, allowSignup)', () => {
  it('should report providers added, removed, opening sign-up, and each limit that changes', () => {
    const before = configOf({ builtin: true, hosta: { allowOrgs: [], allowSignup: false }, hostb: { allowGroups: [] }, oidc: null, proxy: false, maxDepth: 30 });
    const after = configOf({ builtin: false, hosta: { allowOrgs: [], allowSignup: true }, hostb: { allowGroups: ['eng'] }, oidc: { domain: null }, proxy: false, maxDepth: 10 });
    expect(configurationChanges(before, after)).toStrictEqual({
      providers: [
        { kind: 'signup', type: 'hosta', serviceId: '', signupBefore: false, signupAfter: true },
        { kind: 'added', type: 'openidconnect', serviceId: ISSUER, signupBefore: null, signupAfter: true },
        { kind: 'removed', type: 'builtin', serviceId: '', signupBefore: false, signupAfter: null },
      ],
      limits: [{ setting: 'graphQLMaxDepth', before: 30, after: 10 }],
    });
  });
});

describe('identityFacts', () => {
  it('should keep everything but the account id, and nothing else', () => {
    const facts = identityFacts({
      accountId: '7',
      username: 'octo',
      emails: [{ address: 'o@x.io', verified: true }],
      orgs: ['acme'],
      teams: [{ org: 'acme', name: 'Core' }],
      groups: [{ fullPath: 'g', accessLevel: 30 }],
      membershipComplete: false,
      token: 'secret',
    } as never);
    expect(facts).toStrictEqual({
      username: 'octo',
      emails: [{ address: 'o@x.io', verified: true }],
      orgs: ['acme'],
      teams: [{ org: 'acme', name: 'Core' }],
      groups: [{ fullPath: 'g', accessLevel: 30 }],
      membershipComplete: false,
    });
  });
});

describe('previewSignInPage decides as resolveSignIn does, identity by identity', () => {
  const SERVICE_IDS: Readonly<Record<string, string>> = { hosta: '', hostb: HOSTB, openidconnect: ISSUER, 'http-header': '' };
  const variedFacts = (m: IdentityModel, i: number, name: string, email: string): PreviewAccount['identities'][number] => {
    const base = identityOf(m, i);
    if (base.facts === null) return base;
    const emails = base.facts.emails.length > 0 ? base.facts.emails : [{ address: email, verified: i % 2 === 0 }];
    return { ...base, facts: { ...base.facts, username: name, emails } };
  };
  /** The reference: resolveSignIn itself for every identity and every provider entry, no grouping. */
  function reference(config: SiteConfiguration, account: PreviewAccount, identity: PreviewAccount['identities'][number]): SignInState {
    const asCore: Account = {
      id: account.id,
      username: account.username,
      origin: account.origin,
      emails: [],
      externalAccounts: account.identities.map((x) => ({ providerType: x.serviceType as never, serviceId: x.serviceId, accountId: x.accountId })),
    };
    let best: SignInState = 'denied';
    for (const provider of config.authProviders) {
      if (provider.type !== identity.serviceType || SERVICE_IDS[provider.type] !== identity.serviceId) continue;
      const decided = resolveSignIn({
        provider,
        identity: identity.facts === null ? { accountId: identity.accountId, username: null, emails: [] } : { ...identity.facts, accountId: identity.accountId },
        signedInUserId: null,
        randomBytes: (n) => new Uint8Array(n),
        directory: {
          findByExternalAccount: (ref) => (ref.accountId === identity.accountId && ref.providerType === identity.serviceType ? asCore : null),
          findByVerifiedEmail: () => null,
          findByUsername: () => null,
          isUsernameTaken: () => true,
        },
      })._unsafeUnwrap();
      const state: SignInState =
        decided.kind === 'sign_in' && decided.userId === account.id
          ? 'allowed'
          : decided.kind === 'deny' && identity.facts === null && (ACCESS_DENIAL_REASONS as readonly string[]).includes(decided.reason)
            ? 'unknown'
            : 'denied';
      if (state === 'allowed' || (state === 'unknown' && best === 'denied')) best = state;
    }
    return best;
  }

  test.prop([
    configModel,
    fc.array(fc.record({ model: accountModel, names: fc.array(fc.string({ maxLength: 6 }), { minLength: 3, maxLength: 3 }), domain: fc.constantFrom('example.com', 'corp.example', 'x.io') }), { maxLength: 12 }),
  ])('should give every identity the answer resolveSignIn gives it alone, whatever usernames and emails the grouped identities have', (model, drawn) => {
    const config = configOf(model);
    const accounts: PreviewAccount[] = drawn.map((d, i) => ({
      id: String(i + 1),
      username: `user${i + 1}`,
      origin: 'provider_signup',
      siteAdmin: false,
      serviceAccount: false,
      passwordHash: null,
      identities: d.model.identities.filter((m) => m.type !== 'gone').map((m, j) => variedFacts(m, i * 10 + j, d.names[j % 3] ?? 'x', `p${i}@${d.domain}`)),
    }));
    const previews = previewSignInPage(config, config, accounts)._unsafeUnwrap();
    previews.forEach((preview, i) => {
      const account = accounts[i];
      if (account === undefined) throw new Error('no account');
      expect(preview.ways.map((w) => w.current)).toStrictEqual(account.identities.map((identity) => reference(config, account, identity)));
    });
  });
});
