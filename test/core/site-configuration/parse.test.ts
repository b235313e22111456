import { deepStrictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { PROVIDER_TYPES, type AuthProvider, type ProviderType } from '../../../src/core/auth-providers.js';
import { DEFAULT_QUERY_LIMITS } from '../../../src/core/query-cost/limits.js';
import { DEFAULT_ALLOW_SIGNUP, PROVIDER_FIELDS } from '../../../src/core/site-configuration/providers.js';
import { MAX_SITE_CONFIGURATION_DEPTH, type SiteConfiguration, type SiteConfigurationError, type SiteConfigurationProblem } from '../../../src/core/site-configuration/types.js';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';
import { EMAIL_OFF } from '../../../src/core/site-configuration/email.js';
import { httpUrl, providerEntry, siteConfigurationObject, type RawEntry } from '../../arbitraries/site-configuration.js';
import { addressRange } from '../../arbitraries/address.js';

// ---------------------------------------------------------------------------------------------------------------
// Helpers: compare whole Results, with the human sentences (not a contract) left out.

type Stripped = Readonly<Record<string, unknown>>;

function strip(value: { readonly message: string; readonly segments: unknown }): Stripped {
  const { message: _message, segments: _segments, ...rest } = value;
  return rest;
}

function parsed(text: string): Result<Stripped, Stripped> {
  return parseSiteConfiguration(text)
    // the account lifecycle options and the account options have their own tables (account-lifecycle.test.ts, account-options.test.ts)
    .map(({ lockout: _l, passwordResetLinkExpiry: _p, unlockAccountLinkExpiry: _u, accountOptions: _accountOptions, ...config }): Stripped => ({ ...config, warnings: config.warnings.map(strip) }))
    .mapErr((error): Stripped => ({ code: error.code, problems: error.problems.map(strip) }));
}

const json = (value: unknown): string => JSON.stringify(value);
const EXTERNAL = 'https://search.example.com';

const MINIMAL: Readonly<Record<ProviderType, RawEntry>> = {
  builtin: { type: 'builtin' },
  hosta: { type: 'hosta', clientID: 'id', clientSecret: 'secret' },
  hostb: { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 'secret' },
  hostccloud: { type: 'hostccloud', clientKey: 'key', clientSecret: 'secret' },
  hostcserver: { type: 'hostcserver', url: 'https://hostc.example.com', clientID: 'id', clientSecret: 'secret' },
  reviewhost: { type: 'reviewhost', url: 'https://review.example.com' },
  openidconnect: { type: 'openidconnect', issuer: 'https://id.example.com', clientID: 'id', clientSecret: 'secret' },
  'http-header': { type: 'http-header', emailHeader: 'X-Forwarded-Email' },
  saml: { type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'MIIC' },
};

/** The trusted proxy every configuration with an `http-header` provider names (the provider needs one). */
const PROXY = '192.0.2.10';
const PROXY_RANGE = { text: PROXY, family: 4, bytes: [192, 0, 2, 10], prefixLength: 32 };
const hasProxyProvider = (providers: readonly unknown[]): boolean =>
  providers.some((p) => typeof p === 'object' && p !== null && (p as { readonly type?: unknown }).type === 'http-header');

function config(...providers: readonly unknown[]): string {
  return json({ externalURL: EXTERNAL, 'auth.providers': providers, ...(hasProxyProvider(providers) ? { trustedProxies: [PROXY] } : {}) });
}

function configured(...providers: readonly AuthProvider[]): Result<Stripped, Stripped> {
  const trustedProxies = hasProxyProvider(providers) ? [PROXY_RANGE] : [];
  return ok({ externalURL: EXTERNAL, authProviders: providers, queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies, email: EMAIL_OFF, warnings: [] });
}

function problems(...list: readonly Stripped[]): Result<Stripped, Stripped> {
  return err({ code: 'invalid_site_configuration', problems: list });
}

// ---------------------------------------------------------------------------------------------------------------

describe('parseSiteConfiguration', () => {
  describe('spec table: accepted configurations and defaults', () => {
    it.each([
      {
        ref: '§2.5 (absent auth.providers gives [], absent rateLimits gives the §8 defaults)',
        input: '{}',
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: 'JSONC: comments and trailing commas',
        input: `{
          // the public address
          "externalURL": "${EXTERNAL}", /* block comment */
          "auth.providers": [ { "type": "builtin", "allowSignup": true, }, ],
        }`,
        expected: configured({ type: 'builtin', allowSignup: true }),
      },
      {
        ref: 'unknown top-level keys are ignored: the site configuration holds many other settings',
        input: json({ 'search.index.enabled': true, 'experimentalFeatures': { x: [1] }, 'auth.providers': [] }),
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: '§5.3 hosta rule 2 (allowSignup false when unset; url empty = public hosted edition)',
        input: config(MINIMAL.hosta),
        expected: configured({ type: 'hosta', url: '', clientID: 'id', clientSecret: 'secret', allowSignup: false }),
      },
      {
        ref: '§5.3 hosta rules 4, 5, 7 (allowOrgs, allowOrgsMap, requiredSsoOrgs kept as written, [] included)',
        input: config({
          ...MINIMAL.hosta,
          url: 'https://hosta.example.com',
          allowSignup: true,
          allowOrgs: [],
          allowOrgsMap: { acme: ['Core Team', 'core-team/child'] },
          requiredSsoOrgs: ['123', '456'],
        }),
        expected: configured({
          type: 'hosta',
          url: 'https://hosta.example.com',
          clientID: 'id',
          clientSecret: 'secret',
          allowSignup: true,
          allowOrgs: [],
          allowOrgsMap: { acme: ['Core Team', 'core-team/child'] },
          requiredSsoOrgs: ['123', '456'],
        }),
      },
      {
        ref: '§5.3 hosta rule 7 (requiredSsoOrgs exactly ["all"]; [] means no requirement)',
        input: config({ ...MINIMAL.hosta, requiredSsoOrgs: ['all'] }, { ...MINIMAL.hosta, clientID: 'id2', requiredSsoOrgs: [] }),
        expected: configured(
          { type: 'hosta', url: '', clientID: 'id', clientSecret: 'secret', allowSignup: false, requiredSsoOrgs: ['all'] },
          { type: 'hosta', url: '', clientID: 'id2', clientSecret: 'secret', allowSignup: false, requiredSsoOrgs: [] },
        ),
      },
      {
        ref: '§5.3 hostb rule 2, rule 3 (apiScope api and allowSignup true when unset)',
        input: config(MINIMAL.hostb),
        expected: configured({
          type: 'hostb',
          url: 'https://hostb.example.com',
          clientID: 'id',
          clientSecret: 'secret',
          allowSignup: true,
          apiScope: 'api',
        }),
      },
      {
        ref: '§5.3 hostb rules 4, 6 (allowGroups full paths, ssoURL with token)',
        input: config({
          ...MINIMAL.hostb,
          apiScope: 'read_api',
          allowSignup: false,
          allowGroups: ['group/subgroup', 'a.b/c_d/e-f'],
          ssoURL: 'https://hostb.example.com/groups/acme/-/saml/sso?token=abc123',
          syncInternalRepoPermissions: false,
        }),
        expected: configured({
          type: 'hostb',
          url: 'https://hostb.example.com',
          clientID: 'id',
          clientSecret: 'secret',
          allowSignup: false,
          apiScope: 'read_api',
          allowGroups: ['group/subgroup', 'a.b/c_d/e-f'],
          ssoURL: 'https://hostb.example.com/groups/acme/-/saml/sso?token=abc123',
          syncInternalRepoPermissions: false,
        }),
      },
      {
        ref: '§5.3 hostccloud (clientKey, allowSignup true when unset)',
        input: config(MINIMAL.hostccloud),
        expected: configured({ type: 'hostccloud', clientKey: 'key', clientSecret: 'secret', allowSignup: true }),
      },
      {
        ref: '§5.3 openidconnect rules 2, 4, 5 (externalURL set, allowSignup true, requireEmailDomain)',
        input: config({ ...MINIMAL.openidconnect, configID: 'corp', requireEmailDomain: 'example.com' }),
        expected: configured({
          type: 'openidconnect',
          issuer: 'https://id.example.com',
          clientID: 'id',
          clientSecret: 'secret',
          configID: 'corp',
          requireEmailDomain: 'example.com',
          allowSignup: true,
        }),
      },
      {
        ref: '§5.3 http-header rules 1, 2 (both headers and a prefix)',
        input: config({ type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email', stripUsernameHeaderPrefix: 'accounts.example.com:' }),
        expected: configured({
          type: 'http-header',
          usernameHeader: 'X-Forwarded-User',
          emailHeader: 'X-Forwarded-Email',
          stripUsernameHeaderPrefix: 'accounts.example.com:',
          allowSignup: true,
        }),
      },
      {
        ref: '§5.3 http-header rule 3 (username only: allowed, with a warning)',
        input: config({ type: 'http-header', usernameHeader: 'X-Forwarded-User' }),
        expected: ok({
          externalURL: EXTERNAL,
          authProviders: [{ type: 'http-header', usernameHeader: 'X-Forwarded-User', allowSignup: true }],
          queryLimits: DEFAULT_QUERY_LIMITS,
          authPublic: false,
          trustedProxies: [PROXY_RANGE],
          email: EMAIL_OFF,
          warnings: [{ code: 'username_only_matching', path: 'auth.providers[0]' }],
        }),
      },
      {
        ref: '§5.3 reviewhost (allowSignup false is accepted)',
        input: config({ ...MINIMAL.reviewhost, allowSignup: false, displayName: 'Review' }),
        expected: configured({ type: 'reviewhost', displayName: 'Review', url: 'https://review.example.com', allowSignup: false }),
      },
      {
        ref: '§5.2 saml (fields of SamlProvider)',
        input: config({ ...MINIMAL.saml, configID: 'okta', serviceProviderIssuer: 'urn:gatehouse' }),
        expected: configured({
          type: 'saml',
          configID: 'okta',
          entryPoint: 'https://idp.example.com/sso',
          idpCertificate: 'MIIC',
          serviceProviderIssuer: 'urn:gatehouse',
          allowSignup: true,
        }),
      },
      {
        ref: '§5.2 several providers coexist (same type, different client)',
        input: config(MINIMAL.hostb, { ...MINIMAL.hostb, clientID: 'other' }),
        expected: configured(
          { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 'secret', allowSignup: true, apiScope: 'api' },
          { type: 'hostb', url: 'https://hostb.example.com', clientID: 'other', clientSecret: 'secret', allowSignup: true, apiScope: 'api' },
        ),
      },
      {
        ref: '§8 (rateLimits read into queryLimits)',
        input: json({ rateLimits: { graphQLMaxDepth: 12, graphQLMaxAliases: 7 } }),
        expected: ok({ authProviders: [], queryLimits: { ...DEFAULT_QUERY_LIMITS, maxDepth: 12, maxAliases: 7 }, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: '§2.2 search (auth.public true lets anonymous requests search)',
        input: json({ 'auth.public': true }),
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: true, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: '§2.2 search (auth.public false is the default, written out)',
        input: json({ 'auth.public': false }),
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: 'trustedProxies: addresses and CIDR ranges, IPv4 and IPv6 (an IPv4-mapped range is its IPv4 range)',
        input: json({ trustedProxies: ['10.0.0.0/8', '192.0.2.7', '2001:DB8::/32', '::1', '::ffff:172.16.0.0/108'] }),
        expected: ok({
          authProviders: [],
          queryLimits: DEFAULT_QUERY_LIMITS,
          authPublic: false,
          trustedProxies: [
            { text: '10.0.0.0/8', family: 4, bytes: [10, 0, 0, 0], prefixLength: 8 },
            { text: '192.0.2.7', family: 4, bytes: [192, 0, 2, 7], prefixLength: 32 },
            { text: '2001:DB8::/32', family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, ...Array<number>(12).fill(0)], prefixLength: 32 },
            { text: '::1', family: 6, bytes: [...Array<number>(15).fill(0), 1], prefixLength: 128 },
            { text: '::ffff:172.16.0.0/108', family: 4, bytes: [172, 16, 0, 0], prefixLength: 12 },
          ],
          email: EMAIL_OFF,
          warnings: [],
        }),
      },
      {
        ref: 'trustedProxies: an empty list is the default written out',
        input: json({ trustedProxies: [] }),
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
      {
        ref: 'a "__proto__" key is an ordinary unknown top-level key',
        input: '{"__proto__": {"auth.providers": [{"type": "nope"}]}}',
        expected: ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }),
      },
    ])('$ref', ({ input, expected }) => {
      expect(parsed(input)).toStrictEqual(expected);
    });
  });

  describe('defaults (§5.3): allowSignup for every type when unset, exhaustively', () => {
    // The model, written out from §5.3 and (not derived from the implementation).
    const MODEL: readonly (readonly [ProviderType, boolean])[] = [
      ['builtin', false],
      ['hosta', false],
      ['hostb', true],
      ['hostccloud', true],
      ['hostcserver', false],
      ['reviewhost', false],
      ['openidconnect', true],
      ['http-header', true],
      ['saml', true],
    ];

    it('should have exactly one model row per provider type', () => {
      expect(MODEL.map(([type]) => type).sort()).toStrictEqual([...PROVIDER_TYPES].sort());
    });

    it.each(MODEL)('should default allowSignup of %s to %s', (type, allowSignup) => {
      const result = parseSiteConfiguration(config(MINIMAL[type]));
      expect(result.map((c) => c.authProviders.map((p) => p.allowSignup))).toStrictEqual(ok([allowSignup]));
      expect(DEFAULT_ALLOW_SIGNUP[type]).toBe(allowSignup);
    });

    it.each(PROVIDER_TYPES.filter((t) => t !== 'reviewhost').flatMap((t) => [[t, true] as const, [t, false] as const]))(
      'should keep an explicit allowSignup of %s: %s',
      (type, allowSignup) => {
        const result = parseSiteConfiguration(config({ ...MINIMAL[type], allowSignup }));
        expect(result.map((c) => c.authProviders.map((p) => p.allowSignup))).toStrictEqual(ok([allowSignup]));
      },
    );
  });

  describe('spec table: every problem kind', () => {
    const at = (path: string, body: Stripped): Stripped => ({ ...body, path });
    const rows: readonly { ref: string; input: string; expected: Result<Stripped, Stripped> }[] = [
      {
        ref: 'syntax_error (with line and column)',
        input: '{\n  "externalURL": "x"\n  "auth.providers": []\n}',
        expected: problems({ code: 'syntax_error', error: 'CommaExpected', line: 3, column: 3, path: '' }),
      },
      {
        ref: 'syntax_error (empty text)',
        input: '',
        expected: problems({ code: 'syntax_error', error: 'ValueExpected', line: 1, column: 1, path: '' }),
      },
      {
        ref: 'too_deeply_nested',
        input: `{"x": ${'['.repeat(MAX_SITE_CONFIGURATION_DEPTH)}${']'.repeat(MAX_SITE_CONFIGURATION_DEPTH)}}`,
        expected: problems({
          code: 'too_deeply_nested',
          line: 1,
          column: 7 + MAX_SITE_CONFIGURATION_DEPTH - 1,
          maxDepth: MAX_SITE_CONFIGURATION_DEPTH,
          path: '',
        }),
      },
      {
        ref: 'wrong_type (the document is not an object)',
        input: '[]',
        expected: problems({ code: 'wrong_type', expected: 'object', actual: 'array', path: '' }),
      },
      {
        ref: '§2.2 search wrong_type (auth.public must be a boolean, not the string "true")',
        input: json({ 'auth.public': 'true' }),
        expected: problems({ code: 'wrong_type', expected: 'boolean', actual: 'string', path: 'auth.public' }),
      },
      {
        ref: '§2.2 search duplicate_key (auth.public twice)',
        input: '{"auth.public": false, "auth.public": true}',
        expected: problems({ code: 'duplicate_key', key: 'auth.public', path: 'auth.public' }),
      },
      {
        ref: 'duplicate_key',
        input: `{"auth.providers": [{"type": "builtin", "allowSignup": true, "allowSignup": false}]}`,
        expected: problems(at('auth.providers[0].allowSignup', { code: 'duplicate_key', key: 'allowSignup' })),
      },
      {
        ref: 'unknown_provider_type (with a suggestion)',
        input: config({ type: 'hostbb' }),
        expected: problems(at('auth.providers[0].type', { code: 'unknown_provider_type', type: 'hostbb', suggestion: 'hostb' })),
      },
      {
        ref: 'unknown_field (the allowSingup typo)',
        input: config({ ...MINIMAL.hosta, allowSingup: true }),
        expected: problems(at('auth.providers[0].allowSingup', { code: 'unknown_field', field: 'allowSingup', suggestion: 'allowSignup' })),
      },
      {
        ref: '§2.5 unknown_field (a field of another type)',
        input: config({ ...MINIMAL.hostcserver, allowGroups: ['a/b'] }),
        expected: problems(at('auth.providers[0].allowGroups', { code: 'unknown_field', field: 'allowGroups', suggestion: null })),
      },
      {
        ref: '§5.3 hostccloud unknown_field + missing_field (clientKey, not clientID)',
        input: config({ type: 'hostccloud', clientID: 'id', clientSecret: 'secret' }),
        expected: problems(
          at('auth.providers[0].clientID', { code: 'unknown_field', field: 'clientID', suggestion: 'clientKey' }),
          at('auth.providers[0].clientKey', { code: 'missing_field', fields: ['clientKey'] }),
        ),
      },
      {
        ref: '§2.5 unknown_field (clientKey on hostb)',
        input: config({ ...MINIMAL.hostb, clientKey: 'k' }),
        expected: problems(at('auth.providers[0].clientKey', { code: 'unknown_field', field: 'clientKey', suggestion: 'clientID' })),
      },
      {
        ref: 'missing_field (type)',
        input: config({ clientID: 'id' }),
        expected: problems(at('auth.providers[0].type', { code: 'missing_field', fields: ['type'] })),
      },
      {
        ref: '§2.5 missing_field (clientID and clientSecret of hosta)',
        input: config({ type: 'hosta' }),
        expected: problems(
          at('auth.providers[0].clientID', { code: 'missing_field', fields: ['clientID'] }),
          at('auth.providers[0].clientSecret', { code: 'missing_field', fields: ['clientSecret'] }),
        ),
      },
      {
        ref: '§2.5 missing_field (url of hostb, hostcserver, reviewhost)',
        input: config(
          { type: 'hostb', clientID: 'a', clientSecret: 'b' },
          { type: 'hostcserver', clientID: 'a', clientSecret: 'b' },
          { type: 'reviewhost' },
        ),
        expected: problems(
          at('auth.providers[0].url', { code: 'missing_field', fields: ['url'] }),
          at('auth.providers[1].url', { code: 'missing_field', fields: ['url'] }),
          at('auth.providers[2].url', { code: 'missing_field', fields: ['url'] }),
        ),
      },
      {
        ref: '§5.3 openidconnect missing_field (issuer)',
        input: config({ type: 'openidconnect', clientID: 'a', clientSecret: 'b' }),
        expected: problems(at('auth.providers[0].issuer', { code: 'missing_field', fields: ['issuer'] })),
      },
      {
        ref: '§5.3 http-header rule 1 missing_field (neither header)',
        input: config({ type: 'http-header', stripUsernameHeaderPrefix: 'x:' }),
        expected: problems(at('auth.providers[0]', { code: 'missing_field', fields: ['usernameHeader', 'emailHeader'] })),
      },
      {
        ref: '§5.2 saml missing_field (entryPoint, idpCertificate)',
        input: config({ type: 'saml' }),
        expected: problems(
          at('auth.providers[0].entryPoint', { code: 'missing_field', fields: ['entryPoint'] }),
          at('auth.providers[0].idpCertificate', { code: 'missing_field', fields: ['idpCertificate'] }),
        ),
      },
      {
        ref: '§2.5 wrong_type (allowSignup, type, an entry, auth.providers, externalURL)',
        input: json({ externalURL: 3, 'auth.providers': [{ type: 'builtin', allowSignup: 'yes' }, { type: 7 }, 'hosta'] }),
        expected: problems(
          at('externalURL', { code: 'wrong_type', expected: 'string', actual: 'number' }),
          at('auth.providers[0].allowSignup', { code: 'wrong_type', expected: 'boolean', actual: 'string' }),
          at('auth.providers[1].type', { code: 'wrong_type', expected: 'string', actual: 'number' }),
          at('auth.providers[2]', { code: 'wrong_type', expected: 'object', actual: 'string' }),
        ),
      },
      {
        ref: '§2.5 wrong_type (auth.providers not an array)',
        input: json({ 'auth.providers': { type: 'builtin' } }),
        expected: problems(at('auth.providers', { code: 'wrong_type', expected: 'array', actual: 'object' })),
      },
      {
        ref: '§2.5 wrong_type (allowOrgsMap must be an object of string arrays)',
        input: config({ ...MINIMAL.hosta, allowOrgsMap: { acme: 'core', beta: [1] }, allowOrgs: 'acme' }),
        expected: problems(
          at('auth.providers[0].allowOrgs', { code: 'wrong_type', expected: 'array', actual: 'string' }),
          at('auth.providers[0].allowOrgsMap.acme', { code: 'wrong_type', expected: 'array', actual: 'string' }),
          at('auth.providers[0].allowOrgsMap.beta[0]', { code: 'wrong_type', expected: 'string', actual: 'number' }),
        ),
      },
      {
        ref: '§2.5 wrong_type (allowOrgsMap an array)',
        input: config({ ...MINIMAL.hosta, allowOrgsMap: [['acme', 'core']] }),
        expected: problems(at('auth.providers[0].allowOrgsMap', { code: 'wrong_type', expected: 'object', actual: 'array' })),
      },
      {
        ref: '§2.5 empty_value (clientID, an org name)',
        input: config({ ...MINIMAL.hosta, clientID: '', allowOrgs: ['acme', ''] }),
        expected: problems(
          at('auth.providers[0].clientID', { code: 'empty_value' }),
          at('auth.providers[0].allowOrgs[1]', { code: 'empty_value' }),
        ),
      },
      {
        ref: '§2.5 invalid_url (externalURL, hostb url, issuer with a query, hosta relative url)',
        input: json({
          externalURL: 'search.example.com',
          'auth.providers': [
            { ...MINIMAL.hostb, url: 'ftp://hostb.example.com' },
            { ...MINIMAL.openidconnect, issuer: 'https://id.example.com/?tenant=1' },
            { ...MINIMAL.hosta, url: '/hosta' },
            { ...MINIMAL.reviewhost, url: 'https://user:pw@review.example.com' },
          ],
        }),
        expected: problems(
          at('externalURL', { code: 'invalid_url', value: 'search.example.com', reason: 'not_absolute' }),
          at('auth.providers[0].url', { code: 'invalid_url', value: 'ftp://hostb.example.com', reason: 'unsupported_scheme' }),
          at('auth.providers[1].issuer', { code: 'invalid_url', value: 'https://id.example.com/?tenant=1', reason: 'has_query_or_fragment' }),
          at('auth.providers[2].url', { code: 'invalid_url', value: '/hosta', reason: 'not_absolute' }),
          at('auth.providers[3].url', { code: 'invalid_url', value: 'https://user:pw@review.example.com', reason: 'has_credentials' }),
        ),
      },
      {
        ref: '§5.3 hosta rule 7 invalid_required_sso_orgs (["all","123"] and names)',
        input: config({ ...MINIMAL.hosta, requiredSsoOrgs: ['all', '123'] }, { ...MINIMAL.hosta, clientID: 'x', requiredSsoOrgs: ['acme'] }),
        expected: problems(
          at('auth.providers[0].requiredSsoOrgs', { code: 'invalid_required_sso_orgs', value: ['all', '123'] }),
          at('auth.providers[1].requiredSsoOrgs', { code: 'invalid_required_sso_orgs', value: ['acme'] }),
        ),
      },
      {
        ref: '§5.3 hostb rule 4 invalid_group_path',
        input: config({ ...MINIMAL.hostb, allowGroups: ['https://hostb.example.com/group', '/group/sub', 'group/sub/', 'group//sub', 'My Group/sub', 'ok/sub', 'toplevel'] }),
        expected: problems(
          at('auth.providers[0].allowGroups[0]', { code: 'invalid_group_path', value: 'https://hostb.example.com/group' }),
          at('auth.providers[0].allowGroups[1]', { code: 'invalid_group_path', value: '/group/sub' }),
          at('auth.providers[0].allowGroups[2]', { code: 'invalid_group_path', value: 'group/sub/' }),
          at('auth.providers[0].allowGroups[3]', { code: 'invalid_group_path', value: 'group//sub' }),
          at('auth.providers[0].allowGroups[4]', { code: 'invalid_group_path', value: 'My Group/sub' }),
        ),
      },
      {
        ref: '§5.3 hostb rule 6 sso_url_missing_token',
        input: config(
          { ...MINIMAL.hostb, ssoURL: 'https://hostb.example.com/groups/acme/-/saml/sso' },
          { ...MINIMAL.hostb, clientID: 'x', ssoURL: 'https://hostb.example.com/sso?token=' },
          { ...MINIMAL.hostb, clientID: 'y', ssoURL: 'https://hostb.example.com/sso?xtoken=1' },
        ),
        expected: problems(
          at('auth.providers[0].ssoURL', { code: 'sso_url_missing_token', value: 'https://hostb.example.com/groups/acme/-/saml/sso' }),
          at('auth.providers[1].ssoURL', { code: 'sso_url_missing_token', value: 'https://hostb.example.com/sso?token=' }),
          at('auth.providers[2].ssoURL', { code: 'sso_url_missing_token', value: 'https://hostb.example.com/sso?xtoken=1' }),
        ),
      },
      {
        ref: '§5.3 openidconnect rule 5 invalid_email_domain',
        input: config(
          ...['@example.com', 'https://example.com', 'example.com/x', 'example.com.', 'ex_ample.com', '-a.com', 'example.com:443'].map(
            (domain, i) => ({ ...MINIMAL.openidconnect, clientID: `c${String(i)}`, requireEmailDomain: domain }),
          ),
        ),
        expected: problems(
          ...['@example.com', 'https://example.com', 'example.com/x', 'example.com.', 'ex_ample.com', '-a.com', 'example.com:443'].map(
            (domain, i) => at(`auth.providers[${String(i)}].requireEmailDomain`, { code: 'invalid_email_domain', value: domain }),
          ),
        ),
      },
      {
        ref: '§5.3 http-header rule 1 invalid_header_name',
        input: config({ type: 'http-header', emailHeader: 'X Email:' }),
        expected: problems(at('auth.providers[0].emailHeader', { code: 'invalid_header_name', value: 'X Email:' })),
      },
      {
        ref: '§5.3 hostb rule 2 invalid_api_scope',
        input: config({ ...MINIMAL.hostb, apiScope: 'read_user api' }),
        expected: problems(at('auth.providers[0].apiScope', { code: 'invalid_api_scope', value: 'read_user api' })),
      },
      {
        ref: '§5.3 reviewhost signup_not_supported',
        input: config({ ...MINIMAL.reviewhost, allowSignup: true }),
        expected: problems(at('auth.providers[0].allowSignup', { code: 'signup_not_supported', type: 'reviewhost' })),
      },
      {
        ref: 'duplicate_provider (same type, URL and client; URL compared case-insensitively, trailing slash ignored)',
        input: config(MINIMAL.hostb, MINIMAL.builtin, { ...MINIMAL.hostb, url: 'HTTPS://HostB.example.com/', clientSecret: 'other' }, MINIMAL.builtin),
        expected: problems(
          at('auth.providers[2]', { code: 'duplicate_provider', duplicateOf: 0 }),
          at('auth.providers[3]', { code: 'duplicate_provider', duplicateOf: 1 }),
        ),
      },
      {
        ref: 'duplicate_config_id',
        input: config({ ...MINIMAL.openidconnect, configID: 'corp' }, { ...MINIMAL.saml, configID: 'corp' }),
        expected: problems(at('auth.providers[1].configID', { code: 'duplicate_config_id', configID: 'corp', duplicateOf: 0 })),
      },
      {
        ref: '§5.3 openidconnect rule 2 external_url_required (and saml)',
        input: json({ 'auth.providers': [MINIMAL.openidconnect, MINIMAL.saml] }),
        expected: problems(
          at('auth.providers[0]', { code: 'external_url_required', type: 'openidconnect' }),
          at('auth.providers[1]', { code: 'external_url_required', type: 'saml' }),
        ),
      },
      {
        ref: '§8 invalid_rate_limit (path rateLimits.<key>)',
        input: json({ rateLimits: { graphQLMaxDepth: 0, graphQLMaxDeph: 3 } }),
        expected: problems(
          at('rateLimits.graphQLMaxDepth', { code: 'invalid_rate_limit', reason: 'not_a_positive_integer' }),
          at('rateLimits.graphQLMaxDeph', { code: 'invalid_rate_limit', reason: 'unknown_key' }),
        ),
      },
      {
        ref: '§8 invalid_rate_limit (rateLimits not an object)',
        input: json({ rateLimits: [30] }),
        expected: problems(at('rateLimits', { code: 'invalid_rate_limit', reason: 'not_an_object' })),
      },
      {
        ref: 'invalid_address_range (host bits, not an address, prefix too long, a zone) and wrong_type, each at its path',
        input: json({ trustedProxies: ['10.0.0.1/8', 'proxy.example.com', '10.0.0.0/33', 'fe80::1%eth0', 7] }),
        expected: problems(
          at('trustedProxies[0]', { code: 'invalid_address_range', value: '10.0.0.1/8', reason: 'host_bits_set' }),
          at('trustedProxies[1]', { code: 'invalid_address_range', value: 'proxy.example.com', reason: 'invalid_address' }),
          at('trustedProxies[2]', { code: 'invalid_address_range', value: '10.0.0.0/33', reason: 'invalid_prefix_length' }),
          at('trustedProxies[3]', { code: 'invalid_address_range', value: 'fe80::1%eth0', reason: 'invalid_address' }),
          at('trustedProxies[4]', { code: 'wrong_type', expected: 'string', actual: 'number' }),
        ),
      },
      {
        ref: 'wrong_type (trustedProxies not a list)',
        input: json({ trustedProxies: '10.0.0.5' }),
        expected: problems(at('trustedProxies', { code: 'wrong_type', expected: 'array', actual: 'string' })),
      },
      {
        ref: 'trusted_proxies_required (an http-header provider without trustedProxies), at the provider\'s path',
        input: json({ 'auth.providers': [MINIMAL.builtin, MINIMAL['http-header']] }),
        expected: problems(at('auth.providers[1]', { code: 'trusted_proxies_required', type: 'http-header' })),
      },
      {
        ref: 'invalid_email_setting (email.smtp.port out of range)',
        input: json({ 'email.smtp': { host: 'smtp.example.com', port: 70000, authentication: 'none' }, 'email.address': 'noreply@example.com' }),
        expected: problems(at('email.smtp.port', { code: 'invalid_email_setting', value: '70000' })),
      },
      {
        ref: 'invalid_duration (auth.sessionExpiry not a Go duration)',
        input: json({ 'auth.sessionExpiry': '90 days' }),
        expected: problems(at('auth.sessionExpiry', { code: 'invalid_duration', value: '90 days' })),
      },
      {
        ref: 'out_of_range (auth.minPasswordLength below the floor)',
        input: json({ 'auth.minPasswordLength': 4 }),
        expected: problems(at('auth.minPasswordLength', { code: 'out_of_range', min: 8, max: 1024 })),
      },
      {
        ref: 'invalid_option_value (auth.accessTokens.allow)',
        input: json({ 'auth.accessTokens': { allow: 'everyone' } }),
        expected: problems(at('auth.accessTokens.allow', { code: 'invalid_option_value', value: 'everyone', allowed: ['all-users-create', 'site-admin-create', 'none'] })),
      },
      {
        ref: 'default_not_offered (auth.accessTokens.defaultExpirationDays)',
        input: json({ 'auth.accessTokens': { expirationOptionDays: [7, 30], defaultExpirationDays: 90 } }),
        expected: problems(at('auth.accessTokens.defaultExpirationDays', { code: 'default_not_offered', value: 90, offered: [7, 30] })),
      },
      {
        ref: 'trusted_proxies_required (trustedProxies empty)',
        input: json({ 'auth.providers': [MINIMAL['http-header']], trustedProxies: [] }),
        expected: problems(at('auth.providers[0]', { code: 'trusted_proxies_required', type: 'http-header' })),
      },
      {
        ref: 'out_of_range (auth.lockout.failedAttemptThreshold of 0)',
        input: json({ 'auth.lockout': { failedAttemptThreshold: 0 } }),
        expected: problems(at('auth.lockout.failedAttemptThreshold', { code: 'out_of_range', value: 0, min: 1, max: 1_000_000 })),
      },
    ];

    it.each(rows)('$ref', ({ input, expected }) => {
      expect(parsed(input)).toStrictEqual(expected);
    });

    it('should have a row for every problem code', () => {
      // A Record over the union: a new code fails to compile until it is listed here and gets a row. `internal_error`
      // comes from no text (it reports a defect in gatehouse's reader); parse-internal-error.test.ts forces it.
      const CODES: Readonly<Record<Exclude<SiteConfigurationProblem['code'], 'internal_error'>, true>> = {
        syntax_error: true,
        too_deeply_nested: true,
        duplicate_key: true,
        unknown_provider_type: true,
        unknown_field: true,
        missing_field: true,
        wrong_type: true,
        empty_value: true,
        invalid_url: true,
        invalid_required_sso_orgs: true,
        invalid_group_path: true,
        sso_url_missing_token: true,
        invalid_email_domain: true,
        invalid_header_name: true,
        invalid_api_scope: true,
        signup_not_supported: true,
        duplicate_provider: true,
        duplicate_config_id: true,
        external_url_required: true,
        invalid_rate_limit: true,
        invalid_address_range: true,
        trusted_proxies_required: true,
        out_of_range: true,
        invalid_email_setting: true,
        invalid_duration: true,
        invalid_option_value: true,
        default_not_offered: true,
      };
      // The rows' results are compared with `expected` above, so the codes of the actual results are the table's.
      const covered = new Set(
        rows.flatMap(({ input }) => parseSiteConfiguration(input).match(() => [], (e) => e.problems.map((p) => p.code))),
      );
      expect([...covered].sort()).toStrictEqual(Object.keys(CODES).sort());
    });
  });

  describe('messages and paths', () => {
    it('should list every problem (5 problems, 5 paths)', () => {
      const input = json({
        externalURL: 'not a url',
        'auth.providers': [
          { type: 'builtin', allowSingup: true },
          { type: 'hostccloud', clientKey: 'k' },
          { type: 'openidconnect', issuer: 'https://id.example.com', clientID: 'a', clientSecret: 'b', requireEmailDomain: 'a@b.com' },
        ],
        rateLimits: { graphQLMaxAliases: -1 },
      });
      const result = parseSiteConfiguration(input);
      expect(result.isErr()).toBe(true);
      const list = result.isErr() ? result.error.problems : [];
      expect(list.map((p) => [p.code, p.path])).toStrictEqual([
        ['invalid_url', 'externalURL'],
        ['unknown_field', 'auth.providers[0].allowSingup'],
        ['missing_field', 'auth.providers[1].clientSecret'],
        ['invalid_email_domain', 'auth.providers[2].requireEmailDomain'],
        ['invalid_rate_limit', 'rateLimits.graphQLMaxAliases'],
      ]);
      expect(list.map((p) => p.segments)).toStrictEqual([
        ['externalURL'],
        ['auth.providers', 0, 'allowSingup'],
        ['auth.providers', 1, 'clientSecret'],
        ['auth.providers', 2, 'requireEmailDomain'],
        ['rateLimits', 'graphQLMaxAliases'],
      ]);
    });

    // Exhaustive over every type, every field it accepts and every subset of its required fields left out.
    const FIELD_CASES = PROVIDER_TYPES.flatMap((type) => {
      const required = Object.keys(MINIMAL[type]).filter((key) => key !== 'type');
      const subsets = required.reduce<string[][]>((acc, key) => [...acc, ...acc.map((s) => [...s, key])], [[]]);
      return ['displayName', 'allowSignup', ...PROVIDER_FIELDS[type]].flatMap((field) =>
        subsets.map((removed) => ({ type, field, removed })),
      );
    });
    it.each(FIELD_CASES)(
      'should report a wrong-typed field ($type, $field) whatever else is missing ($removed) (every problem)',
      ({ type, field, removed }) => {
        const entry = Object.fromEntries(Object.entries(MINIMAL[type]).filter(([key]) => !removed.includes(key)));
        // No provider field takes a number, so 42 is always the wrong type.
        const result = parseSiteConfiguration(config({ ...entry, [field]: 42 }));
        const found = result.isErr() ? result.error.problems.map((p) => [p.code, p.path]) : [];
        expect(found).toContainEqual(['wrong_type', `auth.providers[0].${field}`]);
      },
    );

    it('should give the did-you-mean sentence the issue shows', () => {
      const result = parseSiteConfiguration(json({ 'auth.providers': [{ type: 'builtin', allowSingup: true }] }));
      expect(result.isErr() ? result.error.problems.map((p) => p.message) : []).toStrictEqual([
        'auth.providers[0] (builtin) has unknown field "allowSingup"; did you mean "allowSignup"?',
      ]);
    });

    it('should quote keys that are not identifiers in paths', () => {
      const result = parseSiteConfiguration(config({ ...MINIMAL.hosta, allowOrgsMap: { 'my org': [1] } }));
      expect(result.isErr() ? result.error.problems.map((p) => [p.path, p.segments]) : []).toStrictEqual([
        ['auth.providers[0].allowOrgsMap["my org"][0]', ['auth.providers', 0, 'allowOrgsMap', 'my org', 0]],
      ]);
    });

    it('should give every problem a non-empty sentence that names its path', () => {
      fc.assert(
        fc.property(fc.jsonValue(), fc.constantFrom(...PROVIDER_TYPES), (value, type) => {
          const result = parseSiteConfiguration(config({ ...MINIMAL[type], [PROVIDER_FIELDS[type][0] ?? 'displayName']: value }));
          for (const problem of result.isErr() ? result.error.problems : []) {
            expect(problem.message.length).toBeGreaterThan(0);
            expect(problem.path.startsWith('auth.providers[0]')).toBe(true);
            expect(problem.message).toContain('auth.providers[0]');
          }
        }),
      );
    });

    it('should report line and column of a syntax error after comments and CRLF line breaks', () => {
      const result = parseSiteConfiguration('{\r\n  // c\r\n  "a": 1,\r\n  "b" 2\r\n}');
      expect(result.isErr() ? result.error.problems.map((p) => [p.code, 'line' in p ? p.line : 0, 'column' in p ? p.column : 0]) : []).toStrictEqual([
        ['syntax_error', 4, 7],
      ]);
    });

    it('should accept a leading byte order mark', () => {
      expect(parsed('\uFEFF{}')).toStrictEqual(ok({ authProviders: [], queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], email: EMAIL_OFF, warnings: [] }));
    });
  });

  describe('packages/server/examples/site-config.jsonc', () => {
    const text = readFileSync(new URL('../../../packages/server/examples/site-config.jsonc', import.meta.url), 'utf8');

    it('should parse with zero problems and zero warnings: a builtin provider with sign-up, no externalURL (callbacks follow the listening address, so PORT may change)', () => {
      expect(parsed(text)).toStrictEqual(
        ok({
          authProviders: [{ type: 'builtin', allowSignup: true }],
          queryLimits: DEFAULT_QUERY_LIMITS,
          authPublic: false,
          trustedProxies: [],
          email: EMAIL_OFF,
          warnings: [],
        }),
      );
    });

    it('should still parse with zero problems when every commented-out entry is enabled, one of each type', () => {
      const enabled = text.replace(/^(\s*)\/\/ ([{}"]| {2})/gm, '$1$2');
      const result = parseSiteConfiguration(enabled);
      expect(result.map((c) => [c.authProviders.map((p) => p.type), c.warnings])).toStrictEqual(ok([[...PROVIDER_TYPES], []]));
    });
  });

  describe('properties', () => {
    test.prop([fc.string()])('should never throw on any string', (text) => {
      expect(() => parseSiteConfiguration(text)).not.toThrow();
    });

    test.prop([fc.json()])('should never throw on any JSON text', (text) => {
      expect(() => parseSiteConfiguration(text)).not.toThrow();
    });

    test.prop([fc.anything()])('should never throw on JSON.stringify of anything, nor on a non-string', (value) => {
      expect(() => parseSiteConfiguration(JSON.stringify(value) ?? '')).not.toThrow();
      // @ts-expect-error -- the static type is bypassed on purpose
      expect(parseSiteConfiguration(value).isErr() || typeof value === 'string').toBe(true);
    });

    test.prop([fc.jsonValue(), fc.jsonValue(), fc.constantFrom(...PROVIDER_TYPES)])(
      'should never throw on a provider entry with arbitrary values in its fields',
      (a, b, type) => {
        const fields = PROVIDER_FIELDS[type];
        const entry = { ...MINIMAL[type], [fields[0] ?? 'displayName']: a, [fields[fields.length - 1] ?? 'allowSignup']: b };
        expect(() => parseSiteConfiguration(config(entry))).not.toThrow();
      },
    );

    test.prop([siteConfigurationObject])('should accept every valid generated configuration', (object) => {
      const result = parseSiteConfiguration(json(object));
      expect(result.isOk()).toBe(true);
    });

    test.prop([siteConfigurationObject])('should keep every field an administrator wrote, unchanged', (object) => {
      const result = parseSiteConfiguration(json(object));
      const written = object['auth.providers'] ?? [];
      const providers: readonly AuthProvider[] = result.isOk() ? result.value.authProviders : [];
      expect(providers.length).toBe(written.length);
      written.forEach((entry, i) => expect(providers[i]).toMatchObject(entry));
    });

    test.prop([fc.array(addressRange, { maxLength: 5 })])('should read every trustedProxies entry to its network and prefix, in order', (ranges) => {
      const result = parseSiteConfiguration(json({ trustedProxies: ranges.map((r) => r.text) }));
      expect(result.map((c) => c.trustedProxies)).toStrictEqual(
        ok(ranges.map((r) => ({ text: r.text, family: r.family, bytes: r.network, prefixLength: r.prefixLength }))),
      );
    });

    test.prop([siteConfigurationObject])('should require trustedProxies for exactly the http-header providers, at their paths', (object) => {
      const { trustedProxies: _dropped, ...without } = object;
      const written = object['auth.providers'] ?? [];
      const expected = written.flatMap((entry, i) => (entry['type'] === 'http-header' ? [['trusted_proxies_required', `auth.providers[${String(i)}]`]] : []));
      const result = parseSiteConfiguration(json(without));
      expect(result.isErr() ? result.error.problems.map((p) => [p.code, p.path]) : []).toStrictEqual(expected);
    });

    test.prop([siteConfigurationObject])('should warn exactly for http-header providers without emailHeader', (object) => {
      const result = parseSiteConfiguration(json(object));
      const written = object['auth.providers'] ?? [];
      const expected = written.flatMap((entry, i) =>
        entry['type'] === 'http-header' && entry['emailHeader'] === undefined ? [`auth.providers[${String(i)}]`] : [],
      );
      expect(result.map((c) => c.warnings.map((w) => [w.code, w.path]))).toStrictEqual(
        ok(expected.map((path) => ['username_only_matching', path])),
      );
    });

    test.prop([siteConfigurationObject])(
      'should be idempotent: re-serialising the parsed providers and parsing again gives the same result',
      (object) => {
        const first = parseSiteConfiguration(json(object));
        const again = first.andThen((c) => parseSiteConfiguration(json({ ...object, 'auth.providers': c.authProviders })));
        // node's deep strict equality, not toStrictEqual: allowOrgsMap may hold a key named `constructor`, which
        // toStrictEqual reads as the object's type and compares by identity. It throws with a diff when they differ.
        deepStrictEqual(again, first);
      },
    );

    test.prop([siteConfigurationObject, fc.string({ maxLength: 20 }).map((s) => s.replace(/\*\//g, ''))])(
      'should not change its result when comments and trailing commas are added',
      (object, comment) => {
        const plain = json(object);
        const pretty = JSON.stringify(object, null, 2);
        const lines = pretty.split('\n');
        const withCommas = lines.map((line, i) => {
          const next = lines[i + 1]?.trim() ?? '';
          const closes = next === '}' || next === ']' || next === '},' || next === '],';
          return closes && !line.endsWith('{') && !line.endsWith('[') ? `${line},` : line;
        });
        const jsonc = withCommas.map((line) => `/*${comment}*/ ${line} // ${comment.replace(/[\r\n\u2028\u2029]/g, '')}`).join('\n');
        // node's deep strict equality, not toStrictEqual: a map may hold a key named `constructor`, which
        // toStrictEqual reads as the object's type and compares by identity. It throws with a diff when they differ.
        deepStrictEqual(parseSiteConfiguration(jsonc), parseSiteConfiguration(plain));
      },
    );

    test.prop([
      fc.constantFrom(...PROVIDER_TYPES).chain((type) => fc.tuple(fc.constant(type), providerEntry(type))),
      fc.string({ minLength: 1, maxLength: 12 }),
    ])('should report one unknown_field for one key that the type does not define', ([type, entry], key) => {
      fc.pre(![...PROVIDER_FIELDS[type], 'type', 'displayName', 'allowSignup'].includes(key));
      const result = parseSiteConfiguration(config({ ...entry, [key]: true }));
      expect(result.mapErr((e) => e.problems.map((p) => [p.code, p.segments]))).toStrictEqual(
        err([['unknown_field', ['auth.providers', 0, key]]]),
      );
    });

    test.prop([fc.oneof(httpUrl, fc.webUrl(), fc.string())])(
      'should accept an externalURL only if WHATWG URL parsing accepts it as http(s) with a host',
      (candidate) => {
        const accepted = parseSiteConfiguration(json({ externalURL: candidate })).isOk();
        if (accepted) {
          const url = new URL(candidate);
          expect(['http:', 'https:']).toContain(url.protocol);
          expect(url.hostname).not.toBe('');
        }
      },
    );

    test.prop([httpUrl])('should accept every generated http(s) URL as externalURL', (candidate) => {
      expect(parseSiteConfiguration(json({ externalURL: candidate })).map((c) => c.externalURL)).toStrictEqual(ok(candidate));
    });

    it('should report an error type carrying only plain data', () => {
      const result: Result<SiteConfiguration, SiteConfigurationError> = parseSiteConfiguration('{"auth.providers": 1}');
      expect(JSON.parse(JSON.stringify(result.isErr() ? result.error : null))).toStrictEqual(result.isErr() ? result.error : null);
    });
  });
});
