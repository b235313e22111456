import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { base, CB, CB2, CHALLENGE, client, redirect, twoUris, without, withParam } from './fixtures.js';
import { type AuthorizeRequestError, validateAuthorizeRequest } from '../../../../src/core/oauth/server/authorize.js';
import type { OAuthClient, OAuthParameters } from '../../../../src/core/oauth/server/records.js';

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
