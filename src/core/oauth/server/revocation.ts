/**
 * Token revocation (RFC 7009 §2.1, §2.2).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { isObject, ownField } from '../../internal/guard.js';
import type { OAuthAccessTokenRecord, RefreshTokenRecord } from './records.js';
import { type ClientCredentials, type ClientPartError, readClientPart, type TokenRequestInput } from './token-request.js';

// ---------------------------------------------------------------------------------------------
// Token revocation (RFC 7009)

/** A well-formed revocation request (RFC 7009 §2.1). */
export interface RevocationRequest {
  /** The client's credentials (not yet checked). */
  readonly client: ClientCredentials;
  /** The token to revoke, an access or a refresh token (its prefix says which; `token_type_hint` is not needed). */
  readonly token: string;
}

/**
 * Why a revocation request is malformed: the client-authentication problems of {@link TokenRequestError}, or
 * no `token`.
 */
export type RevocationRequestError =
  | ClientPartError
  /** No `token` parameter. */
  | { readonly code: 'missing_parameter'; readonly parameter: 'token' };

/**
 * Reads `POST /.auth/idp/oauth/revoke` (RFC 7009 §2.1) into a typed request, checking syntax only: client
 * authentication exactly as at the token endpoint, then `token`. `token_type_hint` is read by nobody: the
 * token's own prefix says what it is, and RFC 7009 §2.1 lets the server ignore the hint.
 *
 * @param input - The form parameters and the `Authorization` header.
 * @returns `ok(request)` or `err` with the first problem.
 * @example
 * ```ts
 * readRevocationRequest({ params: [['token', 'gar_x'], ['client_id', 'gai_c'], ['client_secret', 'gas_s']], authorization: undefined });
 * // ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_post' }, token: 'gar_x' })
 * readRevocationRequest({ params: [], authorization: 'Basic Yzpz' });
 * // err({ code: 'missing_parameter', parameter: 'token' })
 * ```
 */
export function readRevocationRequest(input: TokenRequestInput): Result<RevocationRequest, RevocationRequestError> {
  const read = readClientPart(input);
  if (read.isErr()) return err(read.error);
  const token = read.value.get('token');
  if (token === undefined) return err({ code: 'missing_parameter', parameter: 'token' });
  return ok({ client: read.value.client, token });
}

/** What a revocation does (RFC 7009 §2.1, §2.2). */
export type TokenRevocationDecision =
  /** A refresh token: revoke its family, so every access and refresh token of the grant stops working. */
  | { readonly kind: 'revoke_family'; readonly familyId: string; readonly userId: string }
  /** An access token: revoke that token only; the client's refresh token keeps working. */
  | { readonly kind: 'revoke_access_token'; readonly tokenHash: string; readonly userId: string }
  /** An unknown, malformed or already dead token: nothing to do, and the answer is still 200 (RFC 7009 §2.2). */
  | { readonly kind: 'nothing' };

/** Why {@link decideTokenRevocation} refuses or cannot decide. */
export type TokenRevocationError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'clientId' | 'token' }
  /** The token was issued to another client: RFC 7009 §2.1 has the request refused. */
  | { readonly code: 'token_of_another_client' };

/**
 * Input of {@link decideTokenRevocation}: the authenticated client and the presented token's record, looked up
 * by the digest of the token as the kind its prefix names.
 */
export interface TokenRevocationInput {
  /** The authenticated client's id. */
  readonly clientId: string;
  /** The presented token: its kind and record (`null`: not found), or `null` when it is neither kind. */
  readonly token:
    | { readonly kind: 'access_token'; readonly record: OAuthAccessTokenRecord | null }
    | { readonly kind: 'refresh_token'; readonly record: RefreshTokenRecord | null }
    | null;
}

/**
 * Decides a revocation request after client authentication (RFC 7009 §2.1): a token the server does not
 * know (or one already revoked) needs nothing; a token of another client is refused; a refresh token revokes
 * its whole family (RFC 7009 §2.1: the access tokens of the same grant SHOULD go too); an access token revokes
 * itself only.
 *
 * @param input - The authenticated client and the presented token's record.
 * @returns `ok(decision)`, or `err` for another client's token or a malformed input.
 * @example
 * ```ts
 * decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'refresh_token', record } });
 * // ok({ kind: 'revoke_family', familyId: record.familyId, userId: record.userId }) when record.clientId is 'gai_c'
 * decideTokenRevocation({ clientId: 'gai_c', token: null }); // ok({ kind: 'nothing' })
 * ```
 */
export function decideTokenRevocation(input: TokenRevocationInput): Result<TokenRevocationDecision, TokenRevocationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const clientId = ownField(raw, 'clientId');
  if (typeof clientId !== 'string' || clientId === '') return err({ code: 'invalid_input', field: 'clientId' });
  const token = ownField(raw, 'token');
  if (token === null) return ok({ kind: 'nothing' });
  const kind = ownField(token, 'kind');
  const record = ownField(token, 'record');
  if ((kind !== 'access_token' && kind !== 'refresh_token') || record === undefined) return err({ code: 'invalid_input', field: 'token' });
  if (record === null) return ok({ kind: 'nothing' });
  const owner = ownField(record, 'clientId');
  const familyId = ownField(record, 'familyId');
  const userId = ownField(record, 'userId');
  const tokenHash = ownField(record, 'tokenHash');
  const familyRevoked = ownField(record, 'familyRevoked');
  if (
    typeof owner !== 'string' ||
    typeof familyId !== 'string' ||
    typeof userId !== 'string' ||
    typeof tokenHash !== 'string' ||
    typeof familyRevoked !== 'boolean'
  ) {
    return err({ code: 'invalid_input', field: 'token' });
  }
  if (owner !== clientId) return err({ code: 'token_of_another_client' });
  if (familyRevoked) return ok({ kind: 'nothing' });
  return ok(
    kind === 'refresh_token' ? { kind: 'revoke_family', familyId, userId } : { kind: 'revoke_access_token', tokenHash, userId },
  );
}
