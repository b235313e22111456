import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { basic, CB, client, digest, sha256, VERIFIER, without, withParam } from './fixtures.js';
import { authenticateOAuthClient, readTokenRequest, type TokenRequestInput } from '../../../../src/core/oauth/server/token-request.js';
import type { OAuthParameters } from '../../../../src/core/oauth/server/records.js';

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
