/** The provider registry: one spec per provider type, and what each spec says (spec §2.5, §4, §5.3). */
import { describe, expect, it } from 'vitest';
import { PROVIDER_TYPES } from '../../../src/core/auth-providers.js';
import { PROVIDER_SPECS } from '../../../src/core/providers/index.js';

describe('PROVIDER_SPECS', () => {
  it('should hold one spec per provider type, under its own name', () => {
    expect(Object.keys(PROVIDER_SPECS).sort()).toStrictEqual([...PROVIDER_TYPES].sort());
    for (const type of PROVIDER_TYPES) expect(PROVIDER_SPECS[type].type).toBe(type);
  });

  it.each([
    ['builtin', false, null, null],
    ['hosta', false, '.auth/hosta/callback', ['user:email', 'read:org']],
    ['hostb', true, '.auth/hostb/callback', ['read_user', 'api']],
    ['hostccloud', true, '.auth/hostccloud/callback', []],
    ['hostcserver', false, '.auth/hostcserver/callback', []],
    ['reviewhost', false, null, null],
    ['openidconnect', true, '.auth/callback', ['openid', 'email', 'profile']],
    ['http-header', true, null, null],
    ['saml', true, '.auth/saml/acs', null],
  ] as const)('%s: allowSignup default %s, callback %s, scopes %j', (type, allowSignup, callback, scopes) => {
    const spec = PROVIDER_SPECS[type];
    expect(spec.defaultAllowSignup).toBe(allowSignup);
    expect(spec.callbackPath).toBe(callback);
    expect(spec.scopes === null ? null : spec.scopes({})).toStrictEqual(scopes);
  });

  it('should read the membership rule of each type (§5.3 hosta rule 4, hostb rule 4, openidconnect rule 5)', () => {
    expect(PROVIDER_SPECS.hosta.gate({ allowOrgs: ['Acme'] })._unsafeUnwrap()).toStrictEqual({ kind: 'orgs_and_teams', orgs: ['acme'], teams: [] });
    expect(PROVIDER_SPECS.hostb.gate({ allowGroups: ['a/b'] })._unsafeUnwrap()).toStrictEqual({ kind: 'groups', paths: ['a/b'] });
    expect(PROVIDER_SPECS.openidconnect.gate({ requireEmailDomain: 'Example.com' })._unsafeUnwrap()).toStrictEqual({
      kind: 'email_domain',
      domain: 'example.com',
    });
    expect(PROVIDER_SPECS.hostb.gate({ allowGroups: [1] })._unsafeUnwrapErr()).toStrictEqual({ path: 'allowGroups[0]', expected: 'string' });
    for (const type of ['builtin', 'hostccloud', 'hostcserver', 'reviewhost', 'http-header', 'saml'] as const) {
      expect(PROVIDER_SPECS[type].gate({})._unsafeUnwrap()).toStrictEqual({ kind: 'none' });
    }
  });

  it('should use the configured apiScope of a hostb entry (§5.3 hostb rule 2)', () => {
    expect(PROVIDER_SPECS.hostb.scopes({ apiScope: 'read_api' })).toStrictEqual(['read_user', 'read_api']);
  });
});
