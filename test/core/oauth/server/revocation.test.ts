import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { TokenRequestInput } from '../../../../src/core/oauth/server/token-request.js';
import { decideTokenRevocation, readRevocationRequest } from '../../../../src/core/oauth/server/revocation.js';
import type { OAuthAccessTokenRecord, RefreshTokenRecord } from '../../../../src/core/oauth/server/records.js';

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
