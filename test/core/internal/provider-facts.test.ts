import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { PROVIDER_TYPES } from '../../../src/core/auth-providers.js';
import { isProviderType, readProviderFacts } from '../../../src/core/internal/provider-facts.js';
import { authProvider } from '../../arbitraries/identity.js';

const NONE = { kind: 'none' } as const;

describe('isProviderType', () => {
  it.each([...PROVIDER_TYPES])('should know %s (§2.5)', (type) => {
    expect(isProviderType(type)).toBe(true);
  });

  it.each(['github', 'HOSTA', '', null, 1, ['hosta']])('should not know %s', (value) => {
    expect(isProviderType(value)).toBe(false);
  });
});

describe('readProviderFacts', () => {
  it.each([
    { ref: '§5.3 hosta rule 3 (no restriction, public hosted edition)', input: { type: 'hosta', url: '', allowSignup: true }, expected: ok({ type: 'hosta', allowSignup: true, serviceId: '', gate: NONE }) },
    { ref: '§5.3 hosta rules 4–5 (org names lowercased, team names kept)', input: { type: 'hosta', url: 'https://h.example.com/', allowSignup: false, allowOrgs: ['ACME'], allowOrgsMap: { Globex: ['Core Team'] } }, expected: ok({ type: 'hosta', allowSignup: false, serviceId: 'https://h.example.com', gate: { kind: 'orgs_and_teams', orgs: ['acme'], teams: [{ org: 'globex', name: 'Core Team' }] } }) },
    { ref: '§5.3 hosta rule 5 (a map listing no team is no restriction)', input: { type: 'hosta', url: '', allowSignup: true, allowOrgs: [], allowOrgsMap: { acme: [] } }, expected: ok({ type: 'hosta', allowSignup: true, serviceId: '', gate: NONE }) },
    { ref: '§5.3 hostb rule 4', input: { type: 'hostb', url: 'https://b.example.com', allowSignup: true, allowGroups: ['a/b'] }, expected: ok({ type: 'hostb', allowSignup: true, serviceId: 'https://b.example.com', gate: { kind: 'groups', paths: ['a/b'] } }) },
    { ref: '§5.3 hostb rule 4 (empty)', input: { type: 'hostb', url: 'https://b.example.com', allowSignup: true, allowGroups: [] }, expected: ok({ type: 'hostb', allowSignup: true, serviceId: 'https://b.example.com', gate: NONE }) },
    { ref: '§5.3 hostccloud (url optional)', input: { type: 'hostccloud', allowSignup: true }, expected: ok({ type: 'hostccloud', allowSignup: true, serviceId: '', gate: NONE }) },
    { ref: '§5.4 rule 5 hostcserver', input: { type: 'hostcserver', url: 'https://c.example.com', allowSignup: false }, expected: ok({ type: 'hostcserver', allowSignup: false, serviceId: 'https://c.example.com', gate: NONE }) },
    { ref: '§5.3 openidconnect rule 5 (domain lowercased)', input: { type: 'openidconnect', issuer: 'https://id.example.com/', allowSignup: true, requireEmailDomain: 'Example.COM' }, expected: ok({ type: 'openidconnect', allowSignup: true, serviceId: 'https://id.example.com', gate: { kind: 'email_domain', domain: 'example.com' } }) },
    { ref: '§5.2 saml', input: { type: 'saml', entryPoint: 'https://idp.example.com/sso', allowSignup: true }, expected: ok({ type: 'saml', allowSignup: true, serviceId: 'https://idp.example.com/sso', gate: NONE }) },
    { ref: '§5.3 http-header', input: { type: 'http-header', allowSignup: true }, expected: ok({ type: 'http-header', allowSignup: true, serviceId: '', gate: NONE }) },
    { ref: 'unknown type', input: { type: 'github', allowSignup: true }, expected: err({ path: 'type', expected: `one of ${PROVIDER_TYPES.join(', ')}` }) },
    { ref: 'allowSignup not defaulted', input: { type: 'builtin' }, expected: err({ path: 'allowSignup', expected: 'boolean' }) },
    { ref: 'hostb without url', input: { type: 'hostb', allowSignup: true }, expected: err({ path: 'url', expected: 'string' }) },
    { ref: 'not an object', input: [], expected: err({ path: '', expected: 'object' }) },
  ])('should follow $ref', ({ input, expected }) => {
    expect(readProviderFacts(input)).toStrictEqual(expected);
  });

  test.prop([authProvider])('should read every generated provider', (provider) => {
    expect(readProviderFacts(provider).map((facts) => [facts.type, facts.allowSignup])).toStrictEqual(
      ok([provider.type, provider.allowSignup]),
    );
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => readProviderFacts(value)).not.toThrow();
  });
});
