import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type {
  AuthProvider,
  HostaProvider,
  HostbProvider,
  OpenIdConnectProvider,
} from '../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../src/core/external-identity.js';
import { ACCESS_DENIAL_REASONS, decideProviderAccess } from '../../src/core/provider-access.js';
import {
  authProvider,
  externalIdentity,
  hostaProvider,
  hostbProvider,
  identityReordered,
  providerReordered,
} from '../arbitraries/identity.js';

const hosta = (extra: Partial<HostaProvider> = {}): HostaProvider => ({
  type: 'hosta',
  url: '',
  clientID: 'id',
  clientSecret: 'secret',
  allowSignup: false,
  ...extra,
});
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
const person = (extra: Partial<ExternalIdentity> = {}): ExternalIdentity => ({
  accountId: '1',
  username: 'octo',
  emails: [{ address: 'octo@example.com', verified: true }],
  ...extra,
});
const allow = (admittedBy: 'unrestricted' | 'org' | 'team' | 'group' | 'email_domain') => ok({ kind: 'allow', admittedBy });
const deny = (reason: (typeof ACCESS_DENIAL_REASONS)[number]) => ok({ kind: 'deny', reason });
const teams = (...names: string[]) => names.map((name) => ({ org: 'acme', name }));
const groups = (...memberships: [string, number][]) => memberships.map(([fullPath, accessLevel]) => ({ fullPath, accessLevel }));
const inbox = (address: string, verified = true) => [{ address, verified }];

describe('decideProviderAccess', () => {
  it.each([
    // hosta
    { ref: '§5.3 hosta rule 3', provider: hosta({ allowSignup: true }), identity: person(), expected: allow('unrestricted') },
    { ref: '§5.3 hosta rule 4: empty allowOrgs', provider: hosta({ allowOrgs: [] }), identity: person({ orgs: [] }), expected: allow('unrestricted') },
    { ref: '§5.3 hosta rule 4', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['globex', 'acme'] }), expected: allow('org') },
    { ref: '§5.3 hosta rule 4 (org names case-insensitive)', provider: hosta({ allowOrgs: ['ACME'] }), identity: person({ orgs: ['Acme'] }), expected: allow('org') },
    { ref: '§5.3 hosta rule 4: not in a listed org', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['globex'] }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 4: sign-in restricted with allowSignup false', provider: hosta({ allowSignup: false, allowOrgs: ['acme'] }), identity: person({ orgs: [] }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 4: sign-up restricted with allowSignup true', provider: hosta({ allowSignup: true, allowOrgs: ['acme'] }), identity: person({ orgs: [] }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5: empty allowOrgsMap', provider: hosta({ allowOrgsMap: {} }), identity: person({ teams: [] }), expected: allow('unrestricted') },
    { ref: '§5.3 hosta rule 5: a map listing no team', provider: hosta({ allowOrgsMap: { acme: [] } }), identity: person({ teams: [] }), expected: allow('unrestricted') },
    { ref: '§5.3 hosta rule 5', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Ops', 'Core Team') }), expected: allow('team') },
    { ref: '§5.3 hosta rule 5: display name case differs', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('core team') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5: display name must match exactly', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Core Team ') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5: a listed parent does not admit a child-team member', provider: hosta({ allowOrgsMap: { acme: ['Engineering'] } }), identity: person({ teams: teams('Engineering/Core') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5: a listed child does not admit a parent-team member', provider: hosta({ allowOrgsMap: { acme: ['Engineering/Core'] } }), identity: person({ teams: teams('Engineering') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5: same team name in another org', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: [{ org: 'globex', name: 'Core Team' }] }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5 (org key case-insensitive, like allowOrgs)', provider: hosta({ allowOrgsMap: { ACME: ['Core Team'] } }), identity: person({ teams: [{ org: 'acme', name: 'Core Team' }] }), expected: allow('team') },
    { ref: '§5.3 hosta rule 6: org checked first', provider: hosta({ allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Core Team') }), expected: allow('org') },
    { ref: '§5.3 hosta rule 6: teams when in no listed org', provider: hosta({ allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Core Team') }), expected: allow('team') },
    { ref: '§5.3 hosta rule 6: neither', provider: hosta({ allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: teams('Ops') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 6: teams not needed when an org admits', provider: hosta({ allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'] }), expected: allow('org') },
    { ref: '§7 rule 3: team-name mismatch', provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Core team') }), expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: 'org list cut short', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['globex'], membershipComplete: false }), expected: deny('membership_unknown') },
    { ref: 'org list cut short but already admitted', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['acme'], membershipComplete: false }), expected: allow('org') },
    { ref: 'org list absent', provider: hosta({ allowOrgs: ['acme'] }), identity: person(), expected: deny('membership_unknown') },
    { ref: 'team list absent', provider: hosta({ allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: [] }), expected: deny('membership_unknown') },
    { ref: 'team list cut short but already admitted', provider: hosta({ allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: teams('Core Team'), membershipComplete: false }), expected: allow('team') },
    { ref: 'complete lists', provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: [], membershipComplete: true }), expected: deny('not_in_allowed_orgs_or_teams') },
    // hostb
    { ref: '§5.3 hostb rule 4: unset allowGroups', provider: hostb(), identity: person(), expected: allow('unrestricted') },
    { ref: '§5.3 hostb rule 4: empty allowGroups', provider: hostb({ allowGroups: [] }), identity: person({ groups: [] }), expected: allow('unrestricted') },
    { ref: '§5.3 hostb rule 4', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['acme/platform', 30]) }), expected: allow('group') },
    { ref: '§5.3 hostb rule 4: not in a listed group', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['globex', 50]) }), expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 4: full path matched exactly (parent listed)', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme/platform', 50]) }), expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 4: full path matched exactly (subgroup listed)', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['acme', 50]) }), expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 4: full path matched exactly (case)', provider: hostb({ allowGroups: ['acme/platform'] }), identity: person({ groups: groups(['Acme/Platform', 50]) }), expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 5: Guest is enough', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 10]) }), expected: allow('group') },
    { ref: '§5.3 hostb rule 5: Minimal Access', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5]) }), expected: deny('minimal_access') },
    { ref: '§5.3 hostb rule 5: Minimal Access in a listed group, Guest in an unlisted one', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5], ['globex', 10]) }), expected: deny('minimal_access') },
    { ref: '§5.3 hostb rule 5: workaround, Guest in a listed subgroup', provider: hostb({ allowGroups: ['acme', 'acme/platform'] }), identity: person({ groups: groups(['acme', 5], ['acme/platform', 10]) }), expected: allow('group') },
    { ref: '§5.3 hostb rule 5: no access level', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 0]) }), expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 7: an Owner is admitted like a Guest', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 50]) }), expected: allow('group') },
    { ref: '§7 rule 4', provider: hostb({ allowSignup: false, allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5]) }), expected: deny('minimal_access') },
    { ref: '§7 rule 3: outside allowGroups', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [] }), expected: deny('not_in_allowed_groups') },
    { ref: 'group list cut short', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 5]), membershipComplete: false }), expected: deny('membership_unknown') },
    { ref: 'group list cut short but already admitted', provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: groups(['acme', 20]), membershipComplete: false }), expected: allow('group') },
    { ref: 'group list absent', provider: hostb({ allowGroups: ['acme'] }), identity: person(), expected: deny('membership_unknown') },
    // openidconnect
    { ref: '§5.3 openidconnect rule 5: no requirement', provider: oidc(), identity: person({ emails: inbox('a@elsewhere.org', false) }), expected: allow('unrestricted') },
    { ref: '§5.3 openidconnect rule 5', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@example.com') }), expected: allow('email_domain') },
    { ref: '§5.3 openidconnect rule 5: domain ASCII case-insensitive', provider: oidc({ requireEmailDomain: 'Example.COM' }), identity: person({ emails: inbox('a@EXAMPLE.com') }), expected: allow('email_domain') },
    { ref: '§5.3 openidconnect rule 5: subdomains excluded', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@sub.example.com') }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: suffix is not a domain', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@badexample.com') }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: two @ is not an email', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('x@evil.com@example.com') }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: empty local part', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('@example.com') }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: no email', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: [] }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: unverified', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: inbox('a@example.com', false) }), expected: deny('unverified_email') },
    { ref: '§5.3 openidconnect rule 5: the primary email decides', provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: [...inbox('a@other.org'), ...inbox('a@example.com')] }), expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: non-ASCII case is not folded', provider: oidc({ requireEmailDomain: 'exämple.com' }), identity: person({ emails: inbox('a@EXÄMPLE.com') }), expected: deny('email_domain_not_allowed') },
    // Types without membership rules
    { ref: '§5.3 hostccloud', provider: { type: 'hostccloud', clientKey: 'k', clientSecret: 's', allowSignup: true }, identity: person(), expected: allow('unrestricted') },
    { ref: '§5.3 hostcserver', provider: { type: 'hostcserver', url: 'https://c.example.com', clientID: 'i', clientSecret: 's', allowSignup: false }, identity: person(), expected: allow('unrestricted') },
    { ref: '§5.3 reviewhost', provider: { type: 'reviewhost', url: 'https://r.example.com', allowSignup: false }, identity: person(), expected: allow('unrestricted') },
    { ref: '§5.3 http-header', provider: { type: 'http-header', usernameHeader: 'X-User', allowSignup: true }, identity: person(), expected: allow('unrestricted') },
    { ref: '§5.2 saml', provider: { type: 'saml', entryPoint: 'https://idp.example.com', idpCertificate: 'c', allowSignup: true }, identity: person(), expected: allow('unrestricted') },
    { ref: '§5.2 builtin', provider: { type: 'builtin', allowSignup: false }, identity: person(), expected: allow('unrestricted') },
  ] satisfies { ref: string; provider: AuthProvider; identity: ExternalIdentity; expected: unknown }[])(
    'should follow $ref',
    ({ provider, identity, expected }) => {
      expect(decideProviderAccess(provider, identity)).toStrictEqual(expected);
    },
  );

  it.each([
    { ref: 'unknown type', provider: { type: 'github', allowSignup: true }, identity: person(), expected: err({ code: 'invalid_provider', path: 'type', expected: 'one of builtin, hosta, hostb, hostccloud, hostcserver, reviewhost, openidconnect, http-header, saml' }) },
    { ref: 'not an object', provider: null, identity: person(), expected: err({ code: 'invalid_provider', path: '', expected: 'object' }) },
    { ref: 'allowSignup missing', provider: { type: 'hostccloud', clientKey: 'k', clientSecret: 's' }, identity: person(), expected: err({ code: 'invalid_provider', path: 'allowSignup', expected: 'boolean' }) },
    { ref: 'allowOrgs element', provider: { ...hosta(), allowOrgs: ['acme', 7] }, identity: person(), expected: err({ code: 'invalid_provider', path: 'allowOrgs[1]', expected: 'string' }) },
    { ref: 'allowOrgsMap value', provider: { ...hosta(), allowOrgsMap: { acme: 'Core Team' } }, identity: person(), expected: err({ code: 'invalid_provider', path: 'allowOrgsMap["acme"]', expected: 'array' }) },
    { ref: 'allowOrgsMap an array', provider: { ...hosta(), allowOrgsMap: [] }, identity: person(), expected: err({ code: 'invalid_provider', path: 'allowOrgsMap', expected: 'object' }) },
    { ref: 'allowGroups', provider: { ...hostb(), allowGroups: 'acme' }, identity: person(), expected: err({ code: 'invalid_provider', path: 'allowGroups', expected: 'array' }) },
    { ref: 'requireEmailDomain empty', provider: oidc({ requireEmailDomain: '' }), identity: person(), expected: err({ code: 'invalid_provider', path: 'requireEmailDomain', expected: 'non-empty string' }) },
    { ref: 'identity not an object', provider: hosta(), identity: 'octo', expected: err({ code: 'invalid_identity', path: '', expected: 'object' }) },
    { ref: 'email verified flag', provider: hosta(), identity: { ...person(), emails: [{ address: 'a@b.c', verified: 'yes' }] }, expected: err({ code: 'invalid_identity', path: 'emails[0].verified', expected: 'boolean' }) },
    { ref: 'access level', provider: hostb(), identity: { ...person(), groups: [{ fullPath: 'acme', accessLevel: Number.NaN }] }, expected: err({ code: 'invalid_identity', path: 'groups[0].accessLevel', expected: 'finite number' }) },
  ])('should refuse to judge malformed input: $ref', ({ provider, identity, expected }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(decideProviderAccess(provider, identity)).toStrictEqual(expected);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw, whatever it is given', (provider, identity) => {
    // @ts-expect-error -- arbitrary values at run time
    const result = decideProviderAccess(provider, identity);
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([authProvider, fc.anything()])('should never throw on a valid provider and any identity', (provider, identity) => {
    // @ts-expect-error -- arbitrary values at run time
    expect(() => decideProviderAccess(provider, identity)).not.toThrow();
  });

  test.prop([authProvider, externalIdentity])('should judge every well-formed input', (provider, identity) => {
    expect(decideProviderAccess(provider, identity).isOk()).toBe(true);
  });

  test.prop([providerReordered, identityReordered], { numRuns: 1000 })(
    'should not depend on the order of orgs, teams or groups, in the identity or in the provider',
    ([provider, reorderedProvider], [identity, reorderedIdentity]) => {
      expect(decideProviderAccess(reorderedProvider, reorderedIdentity)).toStrictEqual(decideProviderAccess(provider, identity));
    },
  );

  test.prop([fc.oneof(hostaProvider, hostbProvider), externalIdentity])(
    'should keep every admission when lists are cut short, and turn list-based denials into membership_unknown',
    (provider, identity) => {
      const complete = decideProviderAccess(provider, { ...identity, membershipComplete: true })._unsafeUnwrap();
      const partial = decideProviderAccess(provider, { ...identity, membershipComplete: false })._unsafeUnwrap();
      expect(partial).toStrictEqual(complete.kind === 'allow' ? complete : { kind: 'deny', reason: 'membership_unknown' });
    },
  );

  test.prop([fc.oneof(hostaProvider, hostbProvider), externalIdentity, fc.constantFrom('acme', 'globex'), fc.constantFrom('Core Team', 'Ops')])(
    'should never deny someone it admitted once they gain a membership (lists only add)',
    (provider, identity, org, team) => {
      const before = decideProviderAccess(provider, identity)._unsafeUnwrap();
      const more: ExternalIdentity = {
        ...identity,
        orgs: [...(identity.orgs ?? []), org],
        teams: [...(identity.teams ?? []), { org, name: team }],
        groups: [...(identity.groups ?? []), { fullPath: org, accessLevel: 30 }],
      };
      const after = decideProviderAccess(provider, more)._unsafeUnwrap();
      if (before.kind === 'allow') expect(after.kind).toBe('allow');
    },
  );

  test.prop([fc.oneof(hostaProvider, hostbProvider), externalIdentity])(
    'should decide sign-in and sign-up alike: allowSignup never changes gating (§5.3 hosta rule 4, hostb rule 4)',
    (provider, identity) => {
      expect(decideProviderAccess({ ...provider, allowSignup: true }, identity)).toStrictEqual(
        decideProviderAccess({ ...provider, allowSignup: false }, identity),
      );
    },
  );
});
