import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { PROVIDER_TYPES, type AuthProvider, type ProviderType } from '../../src/core/auth-providers.js';
import { callbackPathOf, callbackUrl, oauthScopes, reviewhostMatchesConnection, signInPageBehavior } from '../../src/core/provider-urls.js';
import { parseSiteConfiguration } from '../../src/core/site-configuration/parse.js';
import { httpUrl, providerEntry } from '../arbitraries/site-configuration.js';

const PROVIDERS: Readonly<Record<ProviderType, AuthProvider>> = {
  builtin: { type: 'builtin', allowSignup: false },
  hosta: { type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup: false },
  hostb: { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 's', allowSignup: true, apiScope: 'api' },
  hostccloud: { type: 'hostccloud', clientKey: 'k', clientSecret: 's', allowSignup: true },
  hostcserver: { type: 'hostcserver', url: 'https://hostc.example.com', clientID: 'id', clientSecret: 's', allowSignup: false },
  reviewhost: { type: 'reviewhost', url: 'https://review.example.com', allowSignup: false },
  openidconnect: { type: 'openidconnect', issuer: 'https://id.example.com', clientID: 'id', clientSecret: 's', allowSignup: true },
  'http-header': { type: 'http-header', emailHeader: 'X-Email', allowSignup: true },
  saml: { type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'MIIC', allowSignup: true },
};

const BASE = 'https://search.example.com';

describe('callbackUrl', () => {
  it.each([
    { ref: '§5.3 hosta rule 1', input: ['hosta', BASE], expected: ok(`${BASE}/.auth/hosta/callback`) },
    { ref: '§5.3 hostb rule 1', input: ['hostb', BASE], expected: ok(`${BASE}/.auth/hostb/callback`) },
    { ref: '§5.3 hostccloud', input: ['hostccloud', BASE], expected: ok(`${BASE}/.auth/hostccloud/callback`) },
    { ref: '§5.3 hostcserver', input: ['hostcserver', BASE], expected: ok(`${BASE}/.auth/hostcserver/callback`) },
    { ref: '§5.3 openidconnect rule 2', input: ['openidconnect', BASE], expected: ok(`${BASE}/.auth/callback`) },
    { ref: '§5.2 saml (reading: assertion consumer service)', input: ['saml', BASE], expected: ok(`${BASE}/.auth/saml/acs`) },
    { ref: '§4 (builtin has no callback)', input: ['builtin', BASE], expected: err({ code: 'no_callback', type: 'builtin' }) },
    { ref: '§4 (http-header has no callback)', input: ['http-header', BASE], expected: err({ code: 'no_callback', type: 'http-header' }) },
    { ref: '§4 (reviewhost has no callback)', input: ['reviewhost', BASE], expected: err({ code: 'no_callback', type: 'reviewhost' }) },
    { ref: 'one slash: base ends with /', input: ['hostb', `${BASE}/`], expected: ok(`${BASE}/.auth/hostb/callback`) },
    { ref: 'one slash: base ends with //', input: ['hostb', `${BASE}//`], expected: ok(`${BASE}/.auth/hostb/callback`) },
    { ref: 'path prefix kept', input: ['openidconnect', 'http://x/sg/'], expected: ok('http://x/sg/.auth/callback') },
    { ref: 'path prefix, no slash', input: ['hosta', 'http://x:3080/sg'], expected: ok('http://x:3080/sg/.auth/hosta/callback') },
    { ref: '§5.3 openidconnect rule 2 (externalURL unset)', input: ['openidconnect', undefined], expected: err({ code: 'external_url_required' }) },
    {
      ref: 'externalURL not absolute',
      input: ['hostb', 'search.example.com'],
      expected: err({ code: 'invalid_external_url', reason: 'not_absolute' }),
    },
    {
      ref: 'externalURL with a query',
      input: ['hostb', `${BASE}/?x=1`],
      expected: err({ code: 'invalid_external_url', reason: 'has_query_or_fragment' }),
    },
  ] as const)('$ref', ({ input: [type, base], expected }) => {
    expect(callbackUrl(PROVIDERS[type], base)).toStrictEqual(expected);
  });

  it('should reject a value that is not a provider or an externalURL that is not a string', () => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(callbackUrl({ type: 'github' }, BASE)).toStrictEqual(err({ code: 'invalid_provider' }));
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(callbackUrl(null, BASE)).toStrictEqual(err({ code: 'invalid_provider' }));
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(callbackUrl(PROVIDERS.hosta, 42)).toStrictEqual(err({ code: 'invalid_external_url', reason: 'not_a_string' }));
  });

  test.prop([httpUrl, fc.constantFrom('hosta', 'hostb', 'hostccloud', 'hostcserver', 'openidconnect', 'saml' as const)])(
    'should join base and path with exactly one slash and give a URL under the base',
    (base, type) => {
      const result = callbackUrl(PROVIDERS[type], base);
      const url = result.isOk() ? result.value : '';
      const trimmed = base.replace(/\/+$/, '');
      expect(url.startsWith(`${trimmed}/.auth/`)).toBe(true);
      expect(url.slice(trimmed.length)).not.toContain('//');
      expect(callbackUrl(PROVIDERS[type], `${trimmed}/`)).toStrictEqual(callbackUrl(PROVIDERS[type], trimmed));
      expect(new URL(url).pathname.endsWith(url.slice(url.indexOf('/.auth/')))).toBe(true);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (provider, base) => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(() => callbackUrl(provider, base)).not.toThrow();
  });
});

describe('callbackPathOf', () => {
  it.each([
    { ref: '§5.3 hosta rule 1', type: 'hosta', expected: '/.auth/hosta/callback' },
    { ref: '§5.3 hostb rule 1', type: 'hostb', expected: '/.auth/hostb/callback' },
    { ref: '§4 endpoint table', type: 'hostccloud', expected: '/.auth/hostccloud/callback' },
    { ref: '§4 endpoint table', type: 'hostcserver', expected: '/.auth/hostcserver/callback' },
    { ref: '§5.3 openidconnect rule 2', type: 'openidconnect', expected: '/.auth/callback' },
    { ref: '§5.2', type: 'saml', expected: '/.auth/saml/acs' },
    { ref: '§5.3 Built-in', type: 'builtin', expected: null },
    { ref: '§5.3 http-header', type: 'http-header', expected: null },
    { ref: '§5.3 reviewhost', type: 'reviewhost', expected: null },
  ] as const)('$ref: $type → $expected', ({ type, expected }) => {
    expect(callbackPathOf(type)).toBe(expected);
  });

  test.prop([fc.constantFrom(...PROVIDER_TYPES).chain((type) => fc.tuple(fc.constant(type), providerEntry(type)))])('should be the path callbackUrl puts after the base', ([type, entry]) => {
    const parsed = parseSiteConfiguration(JSON.stringify({ 'auth.providers': [entry] }));
    const provider = parsed.isOk() ? parsed.value.authProviders[0] : undefined;
    const path = provider === undefined ? null : callbackPathOf(provider.type);
    const url = provider === undefined ? null : callbackUrl(provider, 'https://search.example.com');
    if (provider !== undefined && url !== null) expect(url.isOk() ? url.value : null).toBe(path === null ? null : `https://search.example.com${path}`);
    expect(callbackPathOf(type) === null || callbackPathOf(type)?.startsWith('/.auth/')).toBe(true);
  });
});

describe('oauthScopes', () => {
  // Exhaustive over the types: the model table.
  const MODEL: readonly (readonly [ProviderType, ReturnType<typeof oauthScopes>])[] = [
    ['builtin', err({ code: 'not_an_oauth_provider', type: 'builtin' })],
    ['hosta', ok(['user:email', 'read:org'])],
    ['hostb', ok(['read_user', 'api'])],
    ['hostccloud', ok([])],
    ['hostcserver', ok([])],
    ['reviewhost', err({ code: 'not_an_oauth_provider', type: 'reviewhost' })],
    ['openidconnect', ok(['openid', 'email', 'profile'])],
    ['http-header', err({ code: 'not_an_oauth_provider', type: 'http-header' })],
    ['saml', err({ code: 'not_an_oauth_provider', type: 'saml' })],
  ];

  it('should have exactly one model row per provider type', () => {
    expect(MODEL.map(([type]) => type).sort()).toStrictEqual([...PROVIDER_TYPES].sort());
  });

  it.each(MODEL)('§5.3 hostb rule 1, openidconnect rule 1: scopes of %s', (type, expected) => {
    expect(oauthScopes(PROVIDERS[type])).toStrictEqual(expected);
  });

  it('§5.3 hostb rule 2: should request the configured apiScope besides read_user', () => {
    const hostb: AuthProvider = { type: 'hostb', url: 'https://h.example.com', clientID: 'i', clientSecret: 's', allowSignup: true, apiScope: 'read_api' };
    expect(oauthScopes(hostb)).toStrictEqual(ok(['read_user', 'read_api']));
  });

  it('§5.3 hostb rule 2: should request api when a parsed hostb leaves apiScope unset', () => {
    const parsed = parseSiteConfiguration(
      JSON.stringify({ 'auth.providers': [{ type: 'hostb', url: 'https://hostb.example.com', clientID: 'i', clientSecret: 's' }] }),
    );
    expect(parsed.andThen((c) => (c.authProviders[0] === undefined ? err('none') : oauthScopes(c.authProviders[0])))).toStrictEqual(
      ok(['read_user', 'api']),
    );
  });

  it('§5.3 hosta rule 8: should ask for read:org, so that the organisations the app was granted can be read (repository permissions themselves are out of scope)', () => {
    const scopes = oauthScopes(PROVIDERS.hosta);
    expect(scopes.map((list) => list.includes('read:org'))).toStrictEqual(ok(true));
    // only read access: no scope that writes to the organisations or their repositories
    expect(scopes.map((list) => list.filter((scope) => !/^(user:email|read:[a-z]+)$/u.test(scope)))).toStrictEqual(ok([]));
  });

  it('§5.3 openidconnect rule 6: should take the public provider as an ordinary issuer (web client, discovery, no JavaScript origins)', () => {
    const parsed = parseSiteConfiguration(
      JSON.stringify({
        externalURL: BASE,
        'auth.providers': [{ type: 'openidconnect', issuer: 'https://accounts.google.com', clientID: 'web-client', clientSecret: 's' }],
      }),
    );
    expect(parsed.isOk()).toBe(true);
    const provider = parsed.isOk() ? parsed.value.authProviders[0] : undefined;
    expect(provider).toMatchObject({ type: 'openidconnect', issuer: 'https://accounts.google.com', allowSignup: true });
    if (provider === undefined) return;
    expect(callbackUrl(provider, BASE)).toStrictEqual(ok(`${BASE}/.auth/callback`));
    expect(oauthScopes(provider)).toStrictEqual(ok(['openid', 'email', 'profile']));
    // a JavaScript-origins field is not part of the provider entry: the client is a web application
    const withOrigins = parseSiteConfiguration(
      JSON.stringify({
        externalURL: BASE,
        'auth.providers': [
          { type: 'openidconnect', issuer: 'https://accounts.google.com', clientID: 'c', clientSecret: 's', javascriptOrigins: [BASE] },
        ],
      }),
    );
    expect(withOrigins.isErr()).toBe(true);
  });

  test.prop([fc.anything()])('should never throw', (provider) => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(() => oauthScopes(provider)).not.toThrow();
  });
});

describe('reviewhostMatchesConnection', () => {
  const reviewhost = (url: string): AuthProvider & { type: 'reviewhost' } => ({ type: 'reviewhost', url, allowSignup: false });

  it.each([
    { ref: '§5.3 reviewhost (exact)', input: ['https://review.example.com', ['https://review.example.com']], expected: ok(true) },
    { ref: 'trailing slash ignored', input: ['https://review.example.com/', ['https://review.example.com']], expected: ok(true) },
    { ref: 'trailing slash ignored, other side', input: ['https://review.example.com/r', ['https://review.example.com/r/']], expected: ok(true) },
    { ref: 'scheme and host case-insensitive', input: ['HTTPS://Review.Example.COM', ['https://review.example.com']], expected: ok(true) },
    { ref: 'default port same as none', input: ['https://review.example.com:443', ['https://review.example.com']], expected: ok(true) },
    { ref: 'other port differs', input: ['https://review.example.com:8443', ['https://review.example.com']], expected: ok(false) },
    { ref: 'path case-sensitive', input: ['https://review.example.com/Team', ['https://review.example.com/team']], expected: ok(false) },
    { ref: 'scheme differs', input: ['http://review.example.com', ['https://review.example.com']], expected: ok(false) },
    { ref: 'host differs', input: ['https://review.example.com', ['https://review.example.org']], expected: ok(false) },
    { ref: 'one of several', input: ['https://b.example.com', ['https://a.example.com', 'not a url', 'https://B.example.com/']], expected: ok(true) },
    { ref: 'no connections', input: ['https://review.example.com', []], expected: ok(false) },
    { ref: 'invalid provider URL', input: ['review.example.com', ['review.example.com']], expected: err({ code: 'invalid_provider_url', reason: 'not_absolute' }) },
  ] as const)('$ref', ({ input: [url, connections], expected }) => {
    expect(reviewhostMatchesConnection(reviewhost(url), connections)).toStrictEqual(expected);
  });

  it('should reject inputs that bypass the static types', () => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(reviewhostMatchesConnection(PROVIDERS.hostb, [])).toStrictEqual(err({ code: 'invalid_provider' }));
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(reviewhostMatchesConnection(reviewhost(BASE), 'https://x')).toStrictEqual(err({ code: 'invalid_connection_urls' }));
  });

  const caseVariant = (s: string, flips: readonly boolean[]): string =>
    s
      .split('')
      .map((c, i) => (flips[i % Math.max(1, flips.length)] === true ? c.toUpperCase() : c))
      .join('');

  test.prop([httpUrl, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), fc.boolean()])(
    'should match the same URL with scheme and host case changed and a trailing slash added or removed',
    (url, flips, slash) => {
      const match = /^([^:]+:\/\/[^/]+)(.*)$/.exec(url);
      const origin = match?.[1] ?? url;
      const path = match?.[2] ?? '';
      const variant = `${caseVariant(origin, flips)}${path.replace(/\/+$/, '')}${slash ? '/' : ''}`;
      expect(reviewhostMatchesConnection(reviewhost(url), [variant])).toStrictEqual(ok(true));
    },
  );

  test.prop([httpUrl, fc.string({ minLength: 1, maxLength: 5 }).filter((s) => /^[a-z]+$/.test(s))])(
    'should not match when a path segment differs in case',
    (url, segment) => {
      const a = `${url.replace(/\/+$/, '')}/${segment}`;
      const b = `${url.replace(/\/+$/, '')}/${segment.toUpperCase()}`;
      expect(reviewhostMatchesConnection(reviewhost(a), [b])).toStrictEqual(ok(false));
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (provider, urls) => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(() => reviewhostMatchesConnection(provider, urls)).not.toThrow();
  });
});

describe('signInPageBehavior', () => {
  const REDIRECTING: readonly ProviderType[] = ['hosta', 'hostb', 'hostccloud', 'hostcserver', 'openidconnect', 'saml'];

  // The oracle, from §5.3 "Built-in" as read in docs/spec-readings.md: reviewhost is no sign-in method; a single
  // remaining method that redirects (OAuth code host, OpenID Connect, SAML) makes the page redirect.
  function oracle(types: readonly ProviderType[]): Result<unknown, never> {
    const methods = types.filter((t) => t !== 'reviewhost').map((t) => PROVIDERS[t]);
    const [only] = methods;
    if (methods.length === 1 && only !== undefined && REDIRECTING.includes(only.type)) {
      return ok({ kind: 'redirect', provider: only });
    }
    return ok({ kind: 'sign_in_page', providers: methods });
  }

  it.each([
    { ref: '§5.3 Built-in (single OAuth provider: redirect)', input: ['hostb'], expected: ok({ kind: 'redirect', provider: PROVIDERS.hostb }) },
    {
      ref: '§5.3 Built-in (built-in enabled as well: persistent page)',
      input: ['hostb', 'builtin'],
      expected: ok({ kind: 'sign_in_page', providers: [PROVIDERS.hostb, PROVIDERS.builtin] }),
    },
    { ref: 'single OpenID Connect: redirect', input: ['openidconnect'], expected: ok({ kind: 'redirect', provider: PROVIDERS.openidconnect }) },
    {
      ref: 'reviewhost is not a sign-in method',
      input: ['reviewhost', 'hosta'],
      expected: ok({ kind: 'redirect', provider: PROVIDERS.hosta }),
    },
    { ref: 'http-header alone: page', input: ['http-header'], expected: ok({ kind: 'sign_in_page', providers: [PROVIDERS['http-header']] }) },
    { ref: 'no providers: page', input: [], expected: ok({ kind: 'sign_in_page', providers: [] }) },
    {
      ref: 'two OAuth providers: page',
      input: ['hosta', 'hostb'],
      expected: ok({ kind: 'sign_in_page', providers: [PROVIDERS.hosta, PROVIDERS.hostb] }),
    },
  ] as const)('$ref', ({ input, expected }) => {
    expect(signInPageBehavior(input.map((t) => PROVIDERS[t]))).toStrictEqual(expected);
  });

  const lists: readonly (readonly ProviderType[])[] = [
    [],
    ...PROVIDER_TYPES.map((a) => [a]),
    ...PROVIDER_TYPES.flatMap((a) => PROVIDER_TYPES.map((b) => [a, b])),
  ];

  it('should enumerate every list of up to two providers (91 lists)', () => {
    expect(lists.length).toBe(1 + 9 + 81);
  });

  it.each(lists.map((types) => [types.join(', ') || '(none)', types] as const))(
    '§5.3 Built-in: should equal the oracle for [%s]',
    (_name, types) => {
      expect(signInPageBehavior(types.map((t) => PROVIDERS[t]))).toStrictEqual(oracle(types));
    },
  );

  test.prop([fc.array(fc.constantFrom(...PROVIDER_TYPES).chain((type) => providerEntry(type)), { maxLength: 4 })])(
    'should equal the oracle on parsed generated providers',
    (entries) => {
      const parsed = parseSiteConfiguration(JSON.stringify({ externalURL: BASE, 'auth.providers': entries }));
      // Duplicated types may be rejected as duplicate providers; only valid lists are compared.
      fc.pre(parsed.isOk());
      const providers = parsed.isOk() ? parsed.value.authProviders : [];
      const methods = providers.filter((p) => p.type !== 'reviewhost');
      const [only] = methods;
      const expected =
        methods.length === 1 && only !== undefined && REDIRECTING.includes(only.type)
          ? { kind: 'redirect', provider: only }
          : { kind: 'sign_in_page', providers: methods };
      expect(signInPageBehavior(providers)).toStrictEqual(ok(expected));
    },
  );

  test.prop([fc.anything()])('should never throw, and reject anything that is not a list of providers', (value) => {
    // @ts-expect-error -- the static type is bypassed on purpose
    const result = signInPageBehavior(value);
    const knownType = (entry: unknown): boolean =>
      typeof entry === 'object' && entry !== null && PROVIDER_TYPES.some((t) => Object.getOwnPropertyDescriptor(entry, 'type')?.value === t);
    const isList = Array.isArray(value) && value.every(knownType);
    expect(result.isErr()).toBe(!isList);
  });
});
