import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { hashAccessToken } from '../../src/core/access-token.js';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  MAX_REDIRECT_URIS,
  OAUTH_SECRET_KINDS,
  authenticateOAuthClient,
  decideAuthorizationCodeGrant,
  decideOAuthAccessTokenUse,
  decideRefreshTokenGrant,
  decideTokenRevocation,
  generateOAuthSecret,
  parseOAuthSecret,
  readRevocationRequest,
  readTokenRequest,
  resolveAccessTokenTtl,
  validateAuthorizeRequest,
  validateOAuthAppRegistration,
  type AuthorizationCodeGrant,
  type AuthorizationCodeRecord,
  type AuthorizeRequestError,
  type OAuthAccessTokenRecord,
  type OAuthAppRegistrationInput,
  type OAuthClient,
  type OAuthParameters,
  type RefreshTokenGrant,
  type RefreshTokenRecord,
  type TokenRequestInput,
} from '../../src/core/oauth-authorization.js';
import type { Result } from 'neverthrow';

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
const digest = (secret: string): string => hashAccessToken(secret, sha256)._unsafeUnwrap();
/** RFC 7636 §4.2 S256, written with node:crypto (independent of the module's own base64url). */
const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');
/** RFC 6749 §2.3.1 / oauth4webapi's client_secret_basic encoding. */
const formEncode = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
const basic = (id: string, secret: string): string =>
  'Basic ' + Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64');

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const CB = 'https://app.example/cb';
const CB2 = 'https://app.example/other';
const NOW = 1_700_000_000_000;

const client: OAuthClient = {
  clientId: 'gai_client',
  clientSecretHash: digest('gas_secret'),
  redirectUris: [CB],
  scopes: ['user:all'],
};
const twoUris: OAuthClient = { ...client, redirectUris: [CB, CB2] };

const base: OAuthParameters = [
  ['client_id', 'gai_client'],
  ['response_type', 'code'],
  ['code_challenge', CHALLENGE],
  ['code_challenge_method', 'S256'],
];
const without = (params: OAuthParameters, name: string): OAuthParameters => params.filter(([n]) => n !== name);
const withParam = (params: OAuthParameters, name: string, value: string): OAuthParameters => [
  ...without(params, name),
  [name, value],
];
const redirect = (state: string | null = null, redirectUri: string = CB) => ({ redirectUri, state });

// -----------------------------------------------------------------------------------------------

describe('validateOAuthAppRegistration', () => {
  const good: OAuthAppRegistrationInput = { name: 'CI bot', redirectUris: [CB], scopes: ['user:all'] };
  const rows: { ref: string; input: OAuthAppRegistrationInput; expected: Result<unknown, unknown> }[] = [
    { ref: '§2.4 (app registered with user:all)', input: good, expected: ok(good) },
    { ref: 'name trimmed', input: { ...good, name: '  CI  ' }, expected: ok({ ...good, name: 'CI' }) },
    { ref: 'name required', input: { ...good, name: '   ' }, expected: err({ code: 'invalid_name' }) },
    { ref: 'no control characters in name', input: { ...good, name: 'a\u0000b' }, expected: err({ code: 'invalid_name' }) },
    { ref: 'name at most 100', input: { ...good, name: 'x'.repeat(101) }, expected: err({ code: 'invalid_name' }) },
    { ref: 'name of 100', input: { ...good, name: 'x'.repeat(100) }, expected: ok({ ...good, name: 'x'.repeat(100) }) },
    { ref: 'RFC 6749 §3.1.2.2 (redirect URIs registered)', input: { ...good, redirectUris: [] }, expected: err({ code: 'missing_redirect_uris' }) },
    {
      ref: 'bounded list',
      input: { ...good, redirectUris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, i) => `${CB}${i}`) },
      expected: err({ code: 'too_many_redirect_uris', max: MAX_REDIRECT_URIS }),
    },
    {
      ref: 'RFC 9700 §4.1.3 (http only to loopback)',
      input: { ...good, redirectUris: ['http://app.example/cb'] },
      expected: err({ code: 'invalid_redirect_uri', index: 0, reason: 'insecure_http' }),
    },
    ...['http://127.0.0.1:8080/cb', 'http://localhost/cb', 'http://[::1]:9/cb', 'https://a.example', 'https://a.example:443/x?y=1'].map(
      (uri) => ({ ref: 'RFC 8252 §7.3 (loopback and https allowed)', input: { ...good, redirectUris: [uri] }, expected: ok({ ...good, redirectUris: [uri] }) }),
    ),
    ...(
      [
        ['https://app.example/cb#x', 'fragment'],
        ['https://user@app.example/cb', 'userinfo'],
        ['com.example.app:/cb', 'unsupported_scheme'],
        ['HTTPS://app.example/cb', 'unsupported_scheme'],
        ['ftp://app.example/cb', 'unsupported_scheme'],
        ['https://app.example/c b', 'invalid_characters'],
        ['https://app.example/é', 'invalid_characters'],
        ['https:///cb', 'missing_host'],
        ['https://app.example:x/cb', 'invalid_port'],
        ['https://[::1]x/cb', 'invalid_port'],
        [`https://a.example/${'x'.repeat(2000)}`, 'too_long'],
      ] as const
    ).map(([uri, reason]) => ({
      ref: `RFC 6749 §3.1.2 (${reason})`,
      input: { ...good, redirectUris: [CB, uri] },
      expected: err({ code: 'invalid_redirect_uri', index: 1, reason }),
    })),
    { ref: 'RFC 9700 §4.1.3 (exact list)', input: { ...good, redirectUris: [CB, CB] }, expected: err({ code: 'duplicate_redirect_uri', index: 1 }) },
    {
      ref: '§5.1 rule 2 (sudo is for personal access tokens only)',
      input: { ...good, scopes: ['user:all', 'site-admin:sudo'] },
      expected: err({ code: 'unknown_scope', scope: 'site-admin:sudo' }),
    },
    { ref: 'each scope once', input: { ...good, scopes: ['user:all', 'user:all'] }, expected: err({ code: 'duplicate_scope', scope: 'user:all' }) },
    { ref: '§2.4 (user:all required)', input: { ...good, scopes: [] }, expected: err({ code: 'missing_user_all_scope' }) },
  ];
  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(validateOAuthAppRegistration(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => validateOAuthAppRegistration(value as OAuthAppRegistrationInput)).not.toThrow();
  });

  test.prop([fc.webUrl({ withFragments: false, withQueryParameters: true })])(
    'should accept every https URL without fragment or userinfo and refuse the same with a fragment',
    (url) => {
      fc.pre(url.startsWith('https://') && !url.includes('@') && /^[\x21-\x7e]*$/.test(url) && url.length <= 2000);
      expect(validateOAuthAppRegistration({ ...good, redirectUris: [url] }).isOk()).toBe(true);
      expect(validateOAuthAppRegistration({ ...good, redirectUris: [`${url}#f`] })).toStrictEqual(
        err({ code: 'invalid_redirect_uri', index: 0, reason: 'fragment' }),
      );
    },
  );
});

// -----------------------------------------------------------------------------------------------

describe('validateAuthorizeRequest', () => {
  const rows: { ref: string; params: OAuthParameters; client?: OAuthClient | null; expected: Result<unknown, AuthorizeRequestError> }[] = [
    {
      ref: 'RFC 6749 §4.1.1 (one registered URI may be omitted; scope defaults to user:all)',
      params: base,
      expected: ok({ clientId: 'gai_client', redirectUri: CB, redirectUriGiven: false, scopes: ['user:all'], state: null, codeChallenge: CHALLENGE }),
    },
    {
      ref: 'RFC 6749 §4.1.1 (explicit redirect_uri, scope and state)',
      params: [...base, ['redirect_uri', CB], ['scope', 'user:all'], ['state', 'a b~']],
      expected: ok({ clientId: 'gai_client', redirectUri: CB, redirectUriGiven: true, scopes: ['user:all'], state: 'a b~', codeChallenge: CHALLENGE }),
    },
    { ref: 'RFC 6749 §3.1 (unknown parameters ignored)', params: [...base, ['nonce', 'n'], ['prompt', 'none']], expected: validateAuthorizeRequest({ params: base, client }) },
    { ref: 'RFC 6749 §4.1.2.1 (missing client_id not redirected)', params: without(base, 'client_id'), expected: err({ code: 'missing_client_id' }) },
    { ref: 'RFC 6749 §3.1 (repeated client_id)', params: [...base, ['client_id', 'gai_client']], expected: err({ code: 'missing_client_id' }) },
    { ref: 'RFC 6749 §4.1.2.1 (unknown client not redirected)', params: base, client: null, expected: err({ code: 'unknown_client' }) },
    { ref: 'client must be the one named', params: withParam(base, 'client_id', 'gai_other'), expected: err({ code: 'unknown_client' }) },
    {
      ref: 'RFC 9700 §4.1.3 (redirect_uri exact match, not redirected)',
      params: [...base, ['redirect_uri', `${CB}/`]],
      expected: err({ code: 'redirect_uri_not_registered' }),
    },
    { ref: 'RFC 9700 §4.1.3 (no prefix match)', params: [...base, ['redirect_uri', `${CB}?x=1`]], expected: err({ code: 'redirect_uri_not_registered' }) },
    { ref: 'RFC 9700 §4.1.3 (case-sensitive)', params: [...base, ['redirect_uri', CB.toUpperCase()]], expected: err({ code: 'redirect_uri_not_registered' }) },
    { ref: 'RFC 6749 §3.1.2.3 (several registered: required)', params: base, client: twoUris, expected: err({ code: 'missing_redirect_uri' }) },
    {
      ref: 'RFC 6749 §3.1.2.3 (several registered: either)',
      params: [...base, ['redirect_uri', CB2]],
      client: twoUris,
      expected: ok({ clientId: 'gai_client', redirectUri: CB2, redirectUriGiven: true, scopes: ['user:all'], state: null, codeChallenge: CHALLENGE }),
    },
    { ref: 'RFC 6749 §3.1 (repeated redirect_uri)', params: [...base, ['redirect_uri', CB], ['redirect_uri', CB]], expected: err({ code: 'missing_redirect_uri' }) },
    {
      ref: 'RFC 6749 §3.1 (repeated parameter redirected)',
      params: [...base, ['state', 's'], ['scope', 'user:all'], ['scope', 'user:all']],
      expected: err({ code: 'duplicate_parameter', parameter: 'scope', redirect: redirect('s') }),
    },
    { ref: 'RFC 6749 §3.1 (repeated state not echoed)', params: [...base, ['state', 's'], ['state', 't']], expected: err({ code: 'duplicate_parameter', parameter: 'state', redirect: redirect() }) },
    { ref: 'RFC 6749 §4.1.1 (response_type required)', params: [...without(base, 'response_type'), ['state', 's']], expected: err({ code: 'missing_response_type', redirect: redirect('s') }) },
    { ref: 'RFC 6749 §4.1.2.1 (implicit refused)', params: withParam(base, 'response_type', 'token'), expected: err({ code: 'unsupported_response_type', redirect: redirect() }) },
    { ref: 'RFC 9700 §2.1.1 (PKCE required)', params: without(base, 'code_challenge'), expected: err({ code: 'missing_code_challenge', redirect: redirect() }) },
    {
      ref: 'RFC 7636 §4.3 (absent method means plain: refused)',
      params: without(base, 'code_challenge_method'),
      expected: err({ code: 'unsupported_code_challenge_method', method: null, redirect: redirect() }),
    },
    {
      ref: 'plain refused, S256 only',
      params: withParam(base, 'code_challenge_method', 'plain'),
      expected: err({ code: 'unsupported_code_challenge_method', method: 'plain', redirect: redirect() }),
    },
    {
      ref: 'RFC 7636 §4.3 (method is case-sensitive)',
      params: withParam(base, 'code_challenge_method', 's256'),
      expected: err({ code: 'unsupported_code_challenge_method', method: 's256', redirect: redirect() }),
    },
    { ref: 'RFC 7636 §4.2 (43 characters)', params: withParam(base, 'code_challenge', CHALLENGE.slice(1)), expected: err({ code: 'invalid_code_challenge', redirect: redirect() }) },
    { ref: 'RFC 7636 §4.2 (base64url)', params: withParam(base, 'code_challenge', `${CHALLENGE.slice(1)}+`), expected: err({ code: 'invalid_code_challenge', redirect: redirect() }) },
    { ref: 'scope subset of app', params: [...base, ['scope', 'user:all site-admin:sudo']], expected: err({ code: 'invalid_scope', reason: 'not_allowed', redirect: redirect() }) },
    { ref: 'unknown scope', params: [...base, ['scope', 'openid']], expected: err({ code: 'invalid_scope', reason: 'not_allowed', redirect: redirect() }) },
    {
      ref: '§2.4 (user:all required)',
      params: [...base, ['scope', 'read']],
      client: { ...client, scopes: ['user:all', 'read'] },
      expected: err({ code: 'invalid_scope', reason: 'missing_user_all', redirect: redirect() }),
    },
    { ref: 'RFC 6749 §3.3 (scope syntax)', params: [...base, ['scope', 'user:all  user:all']], expected: err({ code: 'invalid_scope', reason: 'malformed', redirect: redirect() }) },
    {
      ref: 'RFC 6749 §3.3 (order and repetition do not matter)',
      params: [...base, ['scope', 'user:all user:all']],
      expected: ok({ clientId: 'gai_client', redirectUri: CB, redirectUriGiven: false, scopes: ['user:all'], state: null, codeChallenge: CHALLENGE }),
    },
    { ref: 'RFC 6749 App. A.5 (state is VSCHAR)', params: [...base, ['state', 'a\nb']], expected: err({ code: 'invalid_state', redirect: redirect() }) },
    {
      ref: 'RFC 6749 §3.1 (empty values are absent)',
      params: [...base, ['state', ''], ['scope', ''], ['redirect_uri', '']],
      expected: ok({ clientId: 'gai_client', redirectUri: CB, redirectUriGiven: false, scopes: ['user:all'], state: null, codeChallenge: CHALLENGE }),
    },
  ];
  it.each(rows)('should follow $ref', ({ params, client: c, expected }) => {
    expect(validateAuthorizeRequest({ params, client: c === undefined ? client : c })).toStrictEqual(expected);
  });

  // The complete space of response_type × code_challenge_method × scope, against a table of
  // expected outcomes written by hand from RFC 6749 §4.1.2.1, RFC 7636 §4.3/§4.4.1 and.
  const responseTypes = [undefined, 'code', 'token', 'code id_token'] as const;
  const methods = [undefined, 'S256', 'plain', 's256', 'RS256'] as const;
  const scopes = [undefined, 'user:all', 'user:all site-admin:sudo', 'openid', 'user:all\tx'] as const;
  type Outcome = 'ok' | AuthorizeRequestError['code'];
  const scopeOutcome: Record<string, Outcome> = {
    undefined: 'ok',
    'user:all': 'ok',
    'user:all site-admin:sudo': 'invalid_scope',
    openid: 'invalid_scope',
    'user:all\tx': 'invalid_scope',
  };
  const oracle = (rt: (typeof responseTypes)[number], m: (typeof methods)[number], s: (typeof scopes)[number]): Outcome => {
    if (rt === undefined) return 'missing_response_type';
    if (rt !== 'code') return 'unsupported_response_type';
    if (m !== 'S256') return 'unsupported_code_challenge_method';
    return scopeOutcome[String(s)] ?? 'ok';
  };
  const space = responseTypes.flatMap((rt) => methods.flatMap((m) => scopes.map((s) => ({ rt, m, s }))));
  it('should enumerate the whole response_type × method × scope space (100 rows)', () => {
    expect(space).toHaveLength(100);
  });
  it.each(space)('should decide response_type=$rt method=$m scope=$s as the table says', ({ rt, m, s }) => {
    let params: OAuthParameters = [['client_id', 'gai_client'], ['code_challenge', CHALLENGE]];
    if (rt !== undefined) params = [...params, ['response_type', rt]];
    if (m !== undefined) params = [...params, ['code_challenge_method', m]];
    if (s !== undefined) params = [...params, ['scope', s]];
    const result = validateAuthorizeRequest({ params, client });
    expect(result.match(() => 'ok' as Outcome, (e) => e.code)).toBe(oracle(rt, m, s));
  });

  test.prop([fc.anything(), fc.anything()])('should never throw', (params, c) => {
    expect(() => validateAuthorizeRequest({ params, client: c } as never)).not.toThrow();
    expect(() => validateAuthorizeRequest(params as never)).not.toThrow();
  });

  test.prop([fc.array(fc.string(), { maxLength: 4 }), fc.string()])(
    'should accept redirect_uri exactly when it is one of the registered URIs (RFC 9700 §4.1.3)',
    (registered, asked) => {
      const c = { ...client, redirectUris: registered };
      const result = validateAuthorizeRequest({ params: [...base, ['redirect_uri', asked]], client: c });
      if (asked === '') return; // empty means absent (RFC 6749 §3.1)
      expect(result.isOk()).toBe(registered.includes(asked));
      if (result.isErr()) expect(result.error.code).toBe('redirect_uri_not_registered');
    },
  );

  test.prop([fc.shuffledSubarray([...base, ['state', 'xyz'], ['redirect_uri', CB], ['scope', 'user:all'], ['foo', 'bar']] as const, { minLength: 8, maxLength: 8 })])(
    'should not depend on the order of parameters',
    (shuffled) => {
      expect(validateAuthorizeRequest({ params: shuffled, client })).toStrictEqual(
        ok({ clientId: 'gai_client', redirectUri: CB, redirectUriGiven: true, scopes: ['user:all'], state: 'xyz', codeChallenge: CHALLENGE }),
      );
    },
  );

  test.prop([fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 8 })])(
    'should only ever redirect to a registered URI',
    (extra) => {
      const result = validateAuthorizeRequest({ params: [...base, ...extra], client });
      if (result.isErr() && 'redirect' in result.error) expect(client.redirectUris).toContain(result.error.redirect.redirectUri);
      if (result.isOk()) expect(client.redirectUris).toContain(result.value.redirectUri);
    },
  );
});

// -----------------------------------------------------------------------------------------------

describe('readTokenRequest', () => {
  const codeParams: OAuthParameters = [
    ['grant_type', 'authorization_code'],
    ['code', 'gac_code'],
    ['redirect_uri', CB],
    ['code_verifier', VERIFIER],
  ];
  const post: OAuthParameters = [['client_id', 'gai_client'], ['client_secret', 'gas_secret']];
  const postCreds = { clientId: 'gai_client', clientSecret: 'gas_secret', method: 'client_secret_post' };
  const basicCreds = { ...postCreds, method: 'client_secret_basic' };
  const codeGrant = { kind: 'authorization_code', code: 'gac_code', redirectUri: CB, codeVerifier: VERIFIER };
  const rows: { ref: string; input: TokenRequestInput; expected: Result<unknown, unknown> }[] = [
    { ref: 'RFC 6749 §2.3.1 (client_secret_post)', input: { params: [...codeParams, ...post], authorization: undefined }, expected: ok({ client: postCreds, grant: codeGrant }) },
    {
      ref: 'RFC 6749 §2.3.1 (client_secret_basic)',
      input: { params: codeParams, authorization: basic('gai_client', 'gas_secret') },
      expected: ok({ client: basicCreds, grant: codeGrant }),
    },
    {
      ref: 'RFC 6749 §2.3.1 (Basic scheme case-insensitive; body client_id may repeat it)',
      input: { params: [...codeParams, ['client_id', 'gai_client']], authorization: basic('gai_client', 'gas_secret').replace('Basic', 'bASIC') },
      expected: ok({ client: basicCreds, grant: codeGrant }),
    },
    {
      ref: 'RFC 6749 §2.3.1 (Basic values are form-encoded)',
      input: { params: codeParams, authorization: basic('a b:c', 'x+y%z:é') },
      expected: ok({ client: { clientId: 'a b:c', clientSecret: 'x+y%z:é', method: 'client_secret_basic' }, grant: codeGrant }),
    },
    { ref: 'RFC 6749 §4.1.3 (redirect_uri optional)', input: { params: [...without(codeParams, 'redirect_uri'), ...post], authorization: undefined }, expected: ok({ client: postCreds, grant: { ...codeGrant, redirectUri: null } }) },
    {
      ref: 'RFC 6749 §6 (refresh, scope optional)',
      input: { params: [['grant_type', 'refresh_token'], ['refresh_token', 'gar_x'], ...post], authorization: undefined },
      expected: ok({ client: postCreds, grant: { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null } }),
    },
    {
      ref: 'RFC 6749 §6 (refresh with scope)',
      input: { params: [['grant_type', 'refresh_token'], ['refresh_token', 'gar_x'], ['scope', 'user:all'], ...post], authorization: undefined },
      expected: ok({ client: postCreds, grant: { kind: 'refresh_token', refreshToken: 'gar_x', scopes: ['user:all'] } }),
    },
    { ref: 'RFC 6749 §3.3 (scope syntax)', input: { params: [['grant_type', 'refresh_token'], ['refresh_token', 'gar_x'], ['scope', 'a"b'], ...post], authorization: undefined }, expected: err({ code: 'invalid_scope_syntax' }) },
    { ref: 'RFC 6749 §3.2 (no repeated parameters)', input: { params: [...codeParams, ...post, ['code', 'x']], authorization: undefined }, expected: err({ code: 'duplicate_parameter', parameter: 'code' }) },
    { ref: 'RFC 6749 §2.3 (one method only)', input: { params: [...codeParams, ...post], authorization: basic('gai_client', 'gas_secret') }, expected: err({ code: 'multiple_client_authentication' }) },
    { ref: 'RFC 6749 §3.2.1 (client must authenticate)', input: { params: codeParams, authorization: undefined }, expected: err({ code: 'missing_client_authentication' }) },
    { ref: 'RFC 6749 §3.2.1 (blank header is absent)', input: { params: codeParams, authorization: '  ' }, expected: err({ code: 'missing_client_authentication' }) },
    { ref: 'confidential clients only', input: { params: [...codeParams, ['client_id', 'gai_client']], authorization: undefined }, expected: err({ code: 'missing_client_secret' }) },
    { ref: 'RFC 6749 §2.3.1 (Basic only)', input: { params: codeParams, authorization: 'Bearer abc' }, expected: err({ code: 'unsupported_client_authentication' }) },
    { ref: 'RFC 7617 (base64)', input: { params: codeParams, authorization: 'Basic !!!' }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'RFC 7617 (no credentials)', input: { params: codeParams, authorization: 'Basic' }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'RFC 7617 (colon required)', input: { params: codeParams, authorization: `Basic ${Buffer.from('abc').toString('base64')}` }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'RFC 7617 (empty secret)', input: { params: codeParams, authorization: `Basic ${Buffer.from('abc:').toString('base64')}` }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'RFC 6749 §2.3.1 (bad percent-encoding)', input: { params: codeParams, authorization: `Basic ${Buffer.from('a:%zz').toString('base64')}` }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'RFC 4648 §3.5 (canonical base64)', input: { params: codeParams, authorization: 'Basic YTpi' + 'Yx==' }, expected: err({ code: 'malformed_client_authentication' }) },
    { ref: 'body client_id must match', input: { params: [...codeParams, ['client_id', 'gai_other']], authorization: basic('gai_client', 'gas_secret') }, expected: err({ code: 'client_id_mismatch' }) },
    { ref: 'RFC 9110 §11.6.2 (one header)', input: { params: codeParams, authorization: ['Basic a', 'Basic b'] }, expected: err({ code: 'duplicate_authorization_header' }) },
    { ref: 'RFC 6749 §4.1.3 (grant_type required)', input: { params: [...without(codeParams, 'grant_type'), ...post], authorization: undefined }, expected: err({ code: 'missing_grant_type' }) },
    { ref: 'RFC 6749 §5.2 (unsupported_grant_type)', input: { params: [['grant_type', 'password'], ...post], authorization: undefined }, expected: err({ code: 'unsupported_grant_type' }) },
    { ref: 'RFC 6749 §4.1.3 (code required)', input: { params: [...without(codeParams, 'code'), ...post], authorization: undefined }, expected: err({ code: 'missing_parameter', parameter: 'code' }) },
    { ref: 'RFC 7636 §4.5 (verifier required)', input: { params: [...without(codeParams, 'code_verifier'), ...post], authorization: undefined }, expected: err({ code: 'missing_parameter', parameter: 'code_verifier' }) },
    { ref: 'RFC 7636 §4.1 (43 at least)', input: { params: [...withParam(codeParams, 'code_verifier', 'a'.repeat(42)), ...post], authorization: undefined }, expected: err({ code: 'invalid_code_verifier' }) },
    { ref: 'RFC 7636 §4.1 (128 at most)', input: { params: [...withParam(codeParams, 'code_verifier', 'a'.repeat(129)), ...post], authorization: undefined }, expected: err({ code: 'invalid_code_verifier' }) },
    { ref: 'RFC 7636 §4.1 (unreserved only)', input: { params: [...withParam(codeParams, 'code_verifier', `${'a'.repeat(42)}+`), ...post], authorization: undefined }, expected: err({ code: 'invalid_code_verifier' }) },
    { ref: 'RFC 6749 §6 (refresh_token required)', input: { params: [['grant_type', 'refresh_token'], ...post], authorization: undefined }, expected: err({ code: 'missing_parameter', parameter: 'refresh_token' }) },
  ];
  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(readTokenRequest(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw', (params, authorization) => {
    expect(() => readTokenRequest({ params, authorization } as never)).not.toThrow();
    expect(() => readTokenRequest(params as never)).not.toThrow();
  });

  test.prop([fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 })])(
    'should read back any client id and secret sent with client_secret_basic',
    (id, secret) => {
      const result = readTokenRequest({ params: codeParams, authorization: basic(id, secret) });
      expect(result.map((r) => r.client)).toStrictEqual(ok({ clientId: id, clientSecret: secret, method: 'client_secret_basic' }));
    },
  );

  test.prop([fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/)])('should accept every RFC 7636 verifier', (verifier) => {
    const result = readTokenRequest({ params: [...withParam(codeParams, 'code_verifier', verifier), ...post], authorization: undefined });
    expect(result.map((r) => r.grant)).toStrictEqual(ok({ ...codeGrant, codeVerifier: verifier }));
  });
});

// -----------------------------------------------------------------------------------------------

describe('authenticateOAuthClient', () => {
  const creds = (clientId: string, clientSecret: string) => ({ clientId, clientSecret, method: 'client_secret_post' as const });
  const rows = [
    { ref: 'RFC 6749 §2.3.1 (right secret)', credentials: creds('gai_client', 'gas_secret'), c: client, expected: ok(client) },
    { ref: 'RFC 6749 §5.2 (wrong secret)', credentials: creds('gai_client', 'gas_secreT'), c: client, expected: err({ code: 'invalid_client' }) },
    { ref: 'RFC 6749 §5.2 (unknown client, same code)', credentials: creds('gai_client', 'gas_secret'), c: null, expected: err({ code: 'invalid_client' }) },
    { ref: 'RFC 6749 §5.2 (record of another client)', credentials: creds('gai_other', 'gas_secret'), c: client, expected: err({ code: 'invalid_client' }) },
  ];
  it.each(rows)('should follow $ref', ({ credentials, c, expected }) => {
    expect(authenticateOAuthClient({ credentials, client: c, sha256 })).toStrictEqual(expected);
  });
  it('should report a failing digest function', () => {
    const broken = (): Uint8Array => {
      throw new Error('boom');
    };
    expect(authenticateOAuthClient({ credentials: creds('gai_client', 'x'), client, sha256: broken })).toStrictEqual(err({ code: 'digest_failed' }));
  });
  test.prop([fc.string(), fc.string()])('should authenticate exactly when the secret is the registered one', (registered, presented) => {
    const c = { ...client, clientSecretHash: digest(registered) };
    expect(authenticateOAuthClient({ credentials: creds('gai_client', presented), client: c, sha256 }).isOk()).toBe(registered === presented);
  });
  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => authenticateOAuthClient(value as never)).not.toThrow();
  });
});

// -----------------------------------------------------------------------------------------------

const codeRecord: AuthorizationCodeRecord = {
  codeHash: 'h',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  redirectUri: CB,
  redirectUriGiven: true,
  scopes: ['user:all'],
  codeChallenge: CHALLENGE,
  expiresAt: NOW + 60_000,
  used: false,
};
const codeGrant: AuthorizationCodeGrant = { kind: 'authorization_code', code: 'gac_x', redirectUri: CB, codeVerifier: VERIFIER };
const issued = ok({ kind: 'issue', familyId: 'fam', clientId: 'gai_client', userId: 'u1', scopes: ['user:all'] });

describe('decideAuthorizationCodeGrant', () => {
  const rows: {
    ref: string;
    now?: number;
    clientId?: string;
    grant?: Partial<AuthorizationCodeGrant>;
    record?: Partial<AuthorizationCodeRecord> | null;
    expected: Result<unknown, unknown>;
  }[] = [
    { ref: 'RFC 6749 §4.1.3 (valid code)', expected: issued },
    { ref: 'RFC 6749 §5.2 (unknown code)', record: null, expected: err({ code: 'unknown_code' }) },
    { ref: 'RFC 6749 §4.1.3 (bound to the client)', clientId: 'gai_other', expected: err({ code: 'code_client_mismatch' }) },
    { ref: 'RFC 6749 §4.1.2 (reuse revokes its tokens)', record: { used: true }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'authorization_code_reused' }) },
    { ref: 'RFC 6749 §4.1.2 (reuse after expiry still revokes)', record: { used: true, expiresAt: NOW }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'authorization_code_reused' }) },
    { ref: 'RFC 6749 §4.1.2 (short TTL, boundary)', now: NOW + 60_000, expected: err({ code: 'code_expired' }) },
    { ref: 'RFC 6749 §4.1.2 (short TTL, last ms)', now: NOW + 59_999, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (redirect_uri identical)', grant: { redirectUri: `${CB}/` }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 6749 §4.1.3 (redirect_uri required when sent)', grant: { redirectUri: null }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: may be omitted)', grant: { redirectUri: null }, record: { redirectUriGiven: false }, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: may be repeated)', record: { redirectUriGiven: false }, expected: issued },
    { ref: 'RFC 6749 §4.1.3 (omitted at authorize: must still match)', grant: { redirectUri: CB2 }, record: { redirectUriGiven: false }, expected: err({ code: 'redirect_uri_mismatch' }) },
    { ref: 'RFC 7636 §4.6 (wrong verifier)', grant: { codeVerifier: VERIFIER.replace('d', 'e') }, expected: err({ code: 'code_verifier_mismatch' }) },
    { ref: 'RFC 7636 §4.6 (plain challenge never matches)', record: { codeChallenge: VERIFIER }, expected: err({ code: 'code_verifier_mismatch' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, clientId, grant, record, expected }) => {
    const r = record === null ? null : { ...codeRecord, ...record };
    expect(
      decideAuthorizationCodeGrant({ now: now ?? NOW, clientId: clientId ?? 'gai_client', grant: { ...codeGrant, ...grant }, record: r, sha256 }),
    ).toStrictEqual(expected);
  });

  // Every combination of the five conditions, against the table written from the doc comment.
  const bools = [false, true] as const;
  const combos = bools.flatMap((sameClient) =>
    bools.flatMap((used) =>
      bools.flatMap((expired) => bools.flatMap((redirectOk) => bools.map((verifierOk) => ({ sameClient, used, expired, redirectOk, verifierOk })))),
    ),
  );
  it('should enumerate 32 combinations', () => expect(combos).toHaveLength(32));
  it.each(combos)('should decide %o as the table says', ({ sameClient, used, expired, redirectOk, verifierOk }) => {
    const expected = !sameClient
      ? 'code_client_mismatch'
      : used
        ? 'revoke_family'
        : expired
          ? 'code_expired'
          : !redirectOk
            ? 'redirect_uri_mismatch'
            : !verifierOk
              ? 'code_verifier_mismatch'
              : 'issue';
    const result = decideAuthorizationCodeGrant({
      now: expired ? codeRecord.expiresAt : NOW,
      clientId: sameClient ? 'gai_client' : 'gai_other',
      grant: { ...codeGrant, redirectUri: redirectOk ? CB : CB2, codeVerifier: verifierOk ? VERIFIER : 'x'.repeat(43) },
      record: { ...codeRecord, used },
      sha256,
    });
    expect(result.match((d) => d.kind as string, (e) => e.code)).toBe(expected);
  });

  test.prop([fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/), fc.stringMatching(/^[A-Za-z0-9._~-]{43,128}$/)])(
    'should accept a verifier exactly when it hashes to the challenge (RFC 7636 §4.6)',
    (verifier, other) => {
      const record = { ...codeRecord, codeChallenge: s256(verifier) };
      const decide = (v: string) => decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: { ...codeGrant, codeVerifier: v }, record, sha256 });
      expect(decide(verifier)).toStrictEqual(issued);
      expect(decide(other).isOk()).toBe(other === verifier);
    },
  );

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw', (record, grant, now) => {
    expect(() => decideAuthorizationCodeGrant({ now, clientId: 'gai_client', grant, record, sha256 } as never)).not.toThrow();
    expect(() => decideAuthorizationCodeGrant(record as never)).not.toThrow();
  });
});

// -----------------------------------------------------------------------------------------------

const refreshRecord: RefreshTokenRecord = {
  tokenHash: 'rh',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  scopes: ['user:all'],
  expiresAt: NOW + 1000,
  used: false,
  familyRevoked: false,
};
const refreshGrant: RefreshTokenGrant = { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null };
const rotated = ok({
  kind: 'rotate',
  familyId: 'fam',
  clientId: 'gai_client',
  userId: 'u1',
  usedTokenHash: 'rh',
  accessTokenScopes: ['user:all'],
  refreshTokenScopes: ['user:all'],
});

describe('decideRefreshTokenGrant', () => {
  const rows: { ref: string; now?: number; clientId?: string; scopes?: string[]; record?: Partial<RefreshTokenRecord> | null; expected: Result<unknown, unknown> }[] = [
    { ref: 'rotate on every use', expected: rotated },
    { ref: 'RFC 6749 §5.2 (unknown token)', record: null, expected: err({ code: 'unknown_refresh_token' }) },
    { ref: 'RFC 6749 §6 (bound to the client)', clientId: 'gai_other', expected: err({ code: 'refresh_token_client_mismatch' }) },
    { ref: 'RFC 6749 §6 (bound to the client, even when used)', clientId: 'gai_other', record: { used: true }, expected: err({ code: 'refresh_token_client_mismatch' }) },
    { ref: 'RFC 9700 §4.14.2 (replay revokes the family)', record: { used: true }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'refresh_token_reused' }) },
    { ref: 'RFC 9700 §4.14.2 (replay after expiry revokes too)', record: { used: true, expiresAt: NOW }, expected: ok({ kind: 'revoke_family', familyId: 'fam', reason: 'refresh_token_reused' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family stays dead)', record: { familyRevoked: true }, expected: err({ code: 'family_revoked' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family, replay)', record: { familyRevoked: true, used: true }, expected: err({ code: 'family_revoked' }) },
    { ref: 'refresh tokens expire, boundary', now: NOW + 1000, expected: err({ code: 'refresh_token_expired' }) },
    { ref: 'refresh tokens expire, last ms', now: NOW + 999, expected: rotated },
    { ref: 'RFC 6749 §6 (same scope)', scopes: ['user:all'], expected: rotated },
    { ref: 'RFC 6749 §6 (no broader scope)', scopes: ['user:all', 'site-admin:sudo'], expected: err({ code: 'scope_not_granted' }) },
    {
      ref: 'RFC 6749 §6 (narrower access token, refresh token keeps the grant)',
      scopes: ['user:all'],
      record: { scopes: ['user:all', 'read'] },
      expected: ok({ ...rotated._unsafeUnwrap(), accessTokenScopes: ['user:all'], refreshTokenScopes: ['user:all', 'read'] }),
    },
    { ref: '§2.4 (user:all kept)', scopes: ['read'], record: { scopes: ['user:all', 'read'] }, expected: err({ code: 'missing_user_all_scope' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, clientId, scopes, record, expected }) => {
    const r = record === null ? null : { ...refreshRecord, ...record };
    expect(
      decideRefreshTokenGrant({ now: now ?? NOW, clientId: clientId ?? 'gai_client', grant: { ...refreshGrant, scopes: scopes ?? null }, record: r }),
    ).toStrictEqual(expected);
  });

  const bools = [false, true] as const;
  const combos = bools.flatMap((sameClient) =>
    bools.flatMap((familyRevoked) => bools.flatMap((used) => bools.map((expired) => ({ sameClient, familyRevoked, used, expired })))),
  );
  it.each(combos)('should decide %o as the table says', ({ sameClient, familyRevoked, used, expired }) => {
    const expected = !sameClient
      ? 'refresh_token_client_mismatch'
      : familyRevoked
        ? 'family_revoked'
        : used
          ? 'revoke_family'
          : expired
            ? 'refresh_token_expired'
            : 'rotate';
    const result = decideRefreshTokenGrant({
      now: expired ? refreshRecord.expiresAt : NOW,
      clientId: sameClient ? 'gai_client' : 'gai_other',
      grant: refreshGrant,
      record: { ...refreshRecord, used, familyRevoked },
    });
    expect(result.match((d) => d.kind as string, (e) => e.code)).toBe(expected);
  });

  test.prop([fc.integer({ min: NOW - 10_000, max: NOW + 10_000 }), fc.integer({ min: 0, max: 20_000 })])(
    'should be monotonic in time: refused at t means refused at every later t',
    (t, dt) => {
      const at = (now: number) => decideRefreshTokenGrant({ now, clientId: 'gai_client', grant: refreshGrant, record: refreshRecord }).isOk();
      if (!at(t)) expect(at(t + dt)).toBe(false);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (record, grant) => {
    expect(() => decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant, record } as never)).not.toThrow();
    expect(() => decideRefreshTokenGrant(record as never)).not.toThrow();
  });

  // --- Model-based test of a refresh-token family (RFC 9700 §4.14.2) ---------------------------
  // System: the module's decisions applied to a tiny in-memory store by the simplest possible
  // effects (mark used, insert successor, mark family revoked). Model: per family, the list of
  // refresh tokens handed out and a dead flag; only the newest token of a live family works, any
  // older one kills the family; access tokens work exactly while their family lives.
  interface Store {
    codes: Map<string, AuthorizationCodeRecord>;
    refresh: Map<string, Omit<RefreshTokenRecord, 'familyRevoked'>>;
    access: Map<string, Omit<OAuthAccessTokenRecord, 'familyRevoked'>>;
    revoked: Set<string>;
    counter: number;
  }
  interface Model {
    families: { code: string; refresh: string[]; access: string[]; dead: boolean }[];
  }
  interface Real {
    store: Store;
  }
  const issue = (s: Store, familyId: string) => {
    s.counter++;
    const r = `r${s.counter}`;
    const a = `a${s.counter}`;
    s.refresh.set(r, { tokenHash: r, familyId, clientId: 'gai_client', userId: 'u1', scopes: ['user:all'], expiresAt: NOW + 1000, used: false });
    s.access.set(a, { tokenHash: a, familyId, clientId: 'gai_client', userId: 'u1', scopes: ['user:all'], expiresAt: NOW + 1000 });
    return { r, a };
  };
  const redeem = (s: Store, code: string): { r: string; a: string } | null => {
    const record = s.codes.get(code) ?? null;
    const d = decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: { ...codeGrant, code }, record, sha256 });
    if (d.isErr()) return null;
    if (d.value.kind === 'revoke_family') {
      s.revoked.add(d.value.familyId);
      return null;
    }
    if (record !== null) s.codes.set(code, { ...record, used: true });
    return issue(s, d.value.familyId);
  };
  const refresh = (s: Store, token: string): { r: string; a: string } | null => {
    const row = s.refresh.get(token);
    const record = row === undefined ? null : { ...row, familyRevoked: s.revoked.has(row.familyId) };
    const d = decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant: { ...refreshGrant, refreshToken: token }, record });
    if (d.isErr()) return null;
    if (d.value.kind === 'revoke_family') {
      s.revoked.add(d.value.familyId);
      return null;
    }
    if (row !== undefined) s.refresh.set(token, { ...row, used: true });
    return issue(s, d.value.familyId);
  };
  const accessWorks = (s: Store, token: string): boolean => {
    const row = s.access.get(token);
    const record = row === undefined ? null : { ...row, familyRevoked: s.revoked.has(row.familyId) };
    return decideOAuthAccessTokenUse({ now: NOW, record })._unsafeUnwrap().kind === 'allow';
  };

  class StartFamily implements fc.Command<Model, Real> {
    check = (): boolean => true;
    run(m: Model, r: Real): void {
      const code = `c${m.families.length}`;
      r.store.codes.set(code, { ...codeRecord, codeHash: code, familyId: `f${m.families.length}` });
      const got = redeem(r.store, code);
      expect(got).not.toBeNull();
      if (got !== null) m.families.push({ code, refresh: [got.r], access: [got.a], dead: false });
    }
    toString = (): string => 'StartFamily';
  }
  class Refresh implements fc.Command<Model, Real> {
    readonly family: number;
    readonly token: number;
    constructor(family: number, token: number) {
      this.family = family;
      this.token = token;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      const i = this.token < 0 ? f.refresh.length - 1 : this.token % f.refresh.length;
      const presented = f.refresh[i] ?? '';
      const newest = i === f.refresh.length - 1;
      const got = refresh(r.store, presented);
      if (!f.dead && newest) {
        expect(got).not.toBeNull();
        if (got !== null) {
          f.refresh.push(got.r);
          f.access.push(got.a);
        }
      } else {
        expect(got).toBeNull();
        f.dead = true;
      }
    }
    toString = (): string => `Refresh(${this.family}, ${this.token})`;
  }
  class ReplayCode implements fc.Command<Model, Real> {
    readonly family: number;
    constructor(family: number) {
      this.family = family;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      expect(redeem(r.store, f.code)).toBeNull();
      f.dead = true;
    }
    toString = (): string => `ReplayCode(${this.family})`;
  }
  class PresentUnknown implements fc.Command<Model, Real> {
    readonly token: string;
    constructor(token: string) {
      this.token = token;
    }
    check = (): boolean => true;
    run(_m: Model, r: Real): void {
      expect(refresh(r.store, `unknown-${this.token}`)).toBeNull();
    }
    toString = (): string => `PresentUnknown(${JSON.stringify(this.token)})`;
  }
  class UseAccess implements fc.Command<Model, Real> {
    readonly family: number;
    readonly token: number;
    constructor(family: number, token: number) {
      this.family = family;
      this.token = token;
    }
    check = (m: Readonly<Model>): boolean => m.families.length > 0;
    run(m: Model, r: Real): void {
      const f = m.families[this.family % m.families.length];
      if (f === undefined) return;
      const token = f.access[this.token % f.access.length] ?? '';
      expect(accessWorks(r.store, token)).toBe(!f.dead);
    }
    toString = (): string => `UseAccess(${this.family}, ${this.token})`;
  }

  it('should rotate on every use and revoke the whole family on any replay (model-based)', () => {
    const commands = [
      fc.constant(new StartFamily()),
      fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })).map(([f, t]) => new Refresh(f, t)),
      fc.nat({ max: 4 }).map((f) => new Refresh(f, -1)), // the newest token
      fc.nat({ max: 4 }).map((f) => new Refresh(f, -1)),
      fc.nat({ max: 4 }).map((f) => new ReplayCode(f)),
      fc.string().map((t) => new PresentUnknown(t)),
      fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })).map(([f, t]) => new UseAccess(f, t)),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 60, size: '+1' }), (cmds) => {
        const setup = () => ({
          model: { families: [] } as Model,
          real: { store: { codes: new Map(), refresh: new Map(), access: new Map(), revoked: new Set<string>(), counter: 0 } },
        });
        fc.modelRun(setup, cmds);
      }),
      { numRuns: 200 },
    );
  });
});

// -----------------------------------------------------------------------------------------------

describe('decideOAuthAccessTokenUse', () => {
  const record: OAuthAccessTokenRecord = {
    tokenHash: 'ah',
    familyId: 'fam',
    clientId: 'gai_client',
    userId: 'u1',
    scopes: ['user:all'],
    expiresAt: NOW + 3_600_000,
    familyRevoked: false,
  };
  const rows = [
    { ref: '§5.1 (Bearer token works)', now: NOW, record, expected: ok({ kind: 'allow', userId: 'u1', clientId: 'gai_client', scopes: ['user:all'] }) },
    { ref: '§2.4 (short-lived, boundary)', now: NOW + 3_600_000, record, expected: ok({ kind: 'deny', reason: 'expired' }) },
    { ref: 'RFC 9700 §4.14.2 (revoked family)', now: NOW, record: { ...record, familyRevoked: true }, expected: ok({ kind: 'deny', reason: 'family_revoked' }) },
    { ref: '§5.1 (unknown token)', now: NOW, record: null, expected: ok({ kind: 'deny', reason: 'unknown_token' }) },
    { ref: 'time is a number', now: Number.NaN, record, expected: err({ code: 'invalid_input', field: 'now' }) },
  ];
  it.each(rows)('should follow $ref', ({ now, record: r, expected }) => {
    expect(decideOAuthAccessTokenUse({ now, record: r })).toStrictEqual(expected);
  });
  test.prop([fc.integer(), fc.nat()])('should be monotonic in time', (t, dt) => {
    const kind = (now: number) => decideOAuthAccessTokenUse({ now, record: { ...record, expiresAt: 0 } })._unsafeUnwrap().kind;
    if (kind(t) === 'deny') expect(kind(t + dt)).toBe('deny');
  });
  test.prop([fc.anything(), fc.anything()])('should never throw', (now, r) => {
    expect(() => decideOAuthAccessTokenUse({ now, record: r } as never)).not.toThrow();
    expect(() => decideOAuthAccessTokenUse(r as never)).not.toThrow();
  });
});

// -----------------------------------------------------------------------------------------------

describe('generateOAuthSecret and parseOAuthSecret', () => {
  const rows = [
    { ref: 'prefix per kind', kind: 'client_id', prefix: 'gai_' },
    { ref: 'prefix per kind', kind: 'client_secret', prefix: 'gas_' },
    { ref: 'prefix per kind', kind: 'authorization_code', prefix: 'gac_' },
    { ref: 'prefix per kind', kind: 'access_token', prefix: 'gao_' },
    { ref: 'prefix per kind', kind: 'refresh_token', prefix: 'gar_' },
  ] as const;
  it.each(rows)('should prefix $kind with $prefix ($ref)', ({ kind, prefix }) => {
    const secret = generateOAuthSecret(kind, new Uint8Array(20))._unsafeUnwrap();
    expect(secret.startsWith(prefix)).toBe(true);
    expect(secret).toHaveLength(43);
  });
  it('should refuse too few random bytes (§2.3: at least 160 bits)', () => {
    expect(generateOAuthSecret('access_token', new Uint8Array(19))).toStrictEqual(err({ code: 'insufficient_entropy', required: 20, received: 19 }));
  });
  test.prop([fc.constantFrom(...OAUTH_SECRET_KINDS), fc.constantFrom(...OAUTH_SECRET_KINDS), fc.uint8Array({ minLength: 20, maxLength: 20 })])(
    'should round-trip within a kind and refuse across kinds',
    (kind, other, bytes) => {
      const secret = generateOAuthSecret(kind, bytes)._unsafeUnwrap();
      expect(parseOAuthSecret(kind, secret)).toStrictEqual(ok(secret));
      expect(parseOAuthSecret(other, secret).isOk()).toBe(kind === other);
    },
  );
  test.prop([fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz234567')])(
    'should reject any single-character typo (checksum)',
    (bytes, at, ch) => {
      const secret = generateOAuthSecret('refresh_token', bytes)._unsafeUnwrap();
      const i = 4 + (at % 39);
      fc.pre(secret.charAt(i) !== ch);
      const typo = secret.slice(0, i) + ch + secret.slice(i + 1);
      expect(parseOAuthSecret('refresh_token', typo)).toStrictEqual(err({ code: 'malformed' }));
    },
  );
  test.prop([fc.anything(), fc.anything()])('should never throw', (a, b) => {
    expect(() => generateOAuthSecret(a as never, b as never)).not.toThrow();
    expect(() => parseOAuthSecret(a as never, b as never)).not.toThrow();
  });
});

describe('resolveAccessTokenTtl', () => {
  const rows = [
    { ref: 'default 3600', input: undefined, expected: ok(DEFAULT_ACCESS_TOKEN_TTL_SECONDS) },
    { ref: 'configurable', input: 60, expected: ok(60) },
    { ref: '§5.1 rule 3 (always short-lived)', input: MAX_ACCESS_TOKEN_TTL_SECONDS, expected: ok(MAX_ACCESS_TOKEN_TTL_SECONDS) },
    { ref: '§5.1 rule 3 (always short-lived)', input: MAX_ACCESS_TOKEN_TTL_SECONDS + 1, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'positive', input: 0, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'whole seconds', input: 1.5, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
    { ref: 'finite', input: Number.POSITIVE_INFINITY, expected: err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS }) },
  ];
  it.each(rows)('should follow $ref for $input', ({ input, expected }) => {
    expect(resolveAccessTokenTtl(input)).toStrictEqual(expected);
  });
  test.prop([fc.anything()])('should never throw', (v) => {
    expect(() => resolveAccessTokenTtl(v as never)).not.toThrow();
  });
});

describe('stored records the grant decisions read (malformed records are refused, never trusted)', () => {
  const without = <T extends object>(record: T, key: keyof T): Partial<T> => {
    const copy: Partial<T> = { ...record };
    delete copy[key];
    return copy;
  };
  const codeKeys = Object.keys(codeRecord) as (keyof AuthorizationCodeRecord)[];
  const refreshKeys = Object.keys(refreshRecord) as (keyof RefreshTokenRecord)[];

  it.each(codeKeys)('should refuse a code record without %s as invalid_input', (key) => {
    const decide = (record: unknown) => decideAuthorizationCodeGrant({ now: NOW, clientId: 'gai_client', grant: codeGrant, record: record as never, sha256 });
    expect(decide(without(codeRecord, key))).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
    expect(decide({ ...codeRecord, [key]: Symbol('wrong type') })).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
  });

  it.each(refreshKeys)('should refuse a refresh token record without %s as invalid_input', (key) => {
    const decide = (record: unknown) => decideRefreshTokenGrant({ now: NOW, clientId: 'gai_client', grant: refreshGrant, record: record as never });
    expect(decide(without(refreshRecord, key))).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
    expect(decide({ ...refreshRecord, [key]: Symbol('wrong type') })).toStrictEqual(err({ code: 'invalid_input', field: 'record' }));
  });
});

describe('readRevocationRequest (RFC 7009 §2.1)', () => {
  const post: [string, string][] = [
    ['client_id', 'gai_c'],
    ['client_secret', 'gas_s'],
  ];

  it('should read the token and authenticate the client as the token endpoint does', () => {
    expect(readRevocationRequest({ params: [['token', 'gar_x'], ['token_type_hint', 'refresh_token'], ...post], authorization: undefined })).toStrictEqual(
      ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_post' }, token: 'gar_x' }),
    );
    const basic = `Basic ${Buffer.from('gai_c:gas_s').toString('base64')}`;
    expect(readRevocationRequest({ params: [['token', 'gao_y']], authorization: basic })).toStrictEqual(
      ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_basic' }, token: 'gao_y' }),
    );
  });

  it.each([
    [{ params: post, authorization: undefined }, { code: 'missing_parameter', parameter: 'token' }],
    [{ params: [['token', '']], authorization: `Basic ${Buffer.from('gai_c:gas_s').toString('base64')}` }, { code: 'missing_parameter', parameter: 'token' }],
    [{ params: [['token', 'a'], ['token', 'b'], ...post], authorization: undefined }, { code: 'duplicate_parameter', parameter: 'token' }],
    [{ params: [['token', 'a']], authorization: undefined }, { code: 'missing_client_authentication' }],
    [{ params: [['token', 'a'], ['client_id', 'gai_c']], authorization: undefined }, { code: 'missing_client_secret' }],
    [{ params: [['token', 'a'], ...post], authorization: 'Basic Yzpz' }, { code: 'multiple_client_authentication' }],
    [{ params: [['token', 'a']], authorization: 'Bearer x' }, { code: 'unsupported_client_authentication' }],
  ] as const)('should refuse %j with %j', (input, error) => {
    expect(readRevocationRequest(input as unknown as TokenRequestInput)).toStrictEqual(err(error));
  });

  test.prop([fc.anything(), fc.anything()])('should never throw', (params, authorization) => {
    expect(() => readRevocationRequest({ params, authorization } as unknown as TokenRequestInput)).not.toThrow();
  });
});

describe('decideTokenRevocation (RFC 7009 §2.1, §2.2)', () => {
  const access: OAuthAccessTokenRecord = { tokenHash: 'ha', familyId: 'f', clientId: 'gai_c', userId: 'u', scopes: ['user:all'], expiresAt: 10, familyRevoked: false };
  const refresh: RefreshTokenRecord = { tokenHash: 'hr', familyId: 'f', clientId: 'gai_c', userId: 'u', scopes: ['user:all'], expiresAt: 10, used: false, familyRevoked: false };

  it('should revoke the family of a refresh token, the access token alone, and nothing for an unknown or dead token', () => {
    expect(decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'refresh_token', record: refresh } })).toStrictEqual(
      ok({ kind: 'revoke_family', familyId: 'f', userId: 'u' }),
    );
    // a used or expired refresh token still names a family whose access tokens may be live
    expect(decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'refresh_token', record: { ...refresh, used: true } } })._unsafeUnwrap().kind).toBe('revoke_family');
    expect(decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'access_token', record: access } })).toStrictEqual(
      ok({ kind: 'revoke_access_token', tokenHash: 'ha', userId: 'u' }),
    );
    expect(decideTokenRevocation({ clientId: 'gai_c', token: null })).toStrictEqual(ok({ kind: 'nothing' }));
    expect(decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'access_token', record: null } })).toStrictEqual(ok({ kind: 'nothing' }));
    expect(decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'refresh_token', record: { ...refresh, familyRevoked: true } } })).toStrictEqual(
      ok({ kind: 'nothing' }),
    );
  });

  it("should refuse another client's token", () => {
    expect(decideTokenRevocation({ clientId: 'gai_other', token: { kind: 'refresh_token', record: refresh } })).toStrictEqual(
      err({ code: 'token_of_another_client' }),
    );
    expect(decideTokenRevocation({ clientId: 'gai_other', token: { kind: 'access_token', record: access } })).toStrictEqual(
      err({ code: 'token_of_another_client' }),
    );
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => decideTokenRevocation(value as never)).not.toThrow();
  });
});
