/**
 * The token request (`POST /.auth/idp/oauth/token`, RFC 6749 §3.2, §4.1.3, §6) and client authentication (RFC 6749 §2.3.1).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { base64Decode } from '../../internal/encoding.js';
import { hashAccessToken } from '../../access-token.js';
import { constantTimeEqual } from '../../internal/constant-time.js';
import { isObject, isStringArray, ownField } from '../../internal/guard.js';
import { collectParameters, formDecode, isCodeVerifier, parseScope, single } from './parameters.js';
import { type OAuthClient, type OAuthParameters, readClient, type Sha256 } from './records.js';
import { asciiLowercase } from '../../internal/email-address.js';

// ---------------------------------------------------------------------------------------------
// Token request

/** How the client authenticated at the token endpoint (RFC 6749 §2.3.1). */
export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post';

/** The client credentials a token request carries. */
export interface ClientCredentials {
  /** The presented client id. */
  readonly clientId: string;
  /** The presented client secret. */
  readonly clientSecret: string;
  /** How they were presented. */
  readonly method: ClientAuthenticationMethod;
}

/** `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5). */
export interface AuthorizationCodeGrant {
  /** Which grant. */
  readonly kind: 'authorization_code';
  /** The presented code. */
  readonly code: string;
  /** The presented `redirect_uri`, or `null` when absent. */
  readonly redirectUri: string | null;
  /** The PKCE verifier (syntax already checked). */
  readonly codeVerifier: string;
}

/** `grant_type=refresh_token` (RFC 6749 §6). */
export interface RefreshTokenGrant {
  /** Which grant. */
  readonly kind: 'refresh_token';
  /** The presented refresh token. */
  readonly refreshToken: string;
  /** The narrower scopes asked for, or `null` for the original grant. */
  readonly scopes: readonly string[] | null;
}

/** A well-formed token request. */
export interface TokenRequest {
  /** The client's credentials (not yet checked). */
  readonly client: ClientCredentials;
  /** The grant. */
  readonly grant: AuthorizationCodeGrant | RefreshTokenGrant;
}

/** Input of {@link readTokenRequest}. */
export interface TokenRequestInput {
  /** The form parameters of the `POST` body. */
  readonly params: OAuthParameters;
  /** The `Authorization` header: absent, one value, or several. */
  readonly authorization: string | readonly string[] | undefined;
}

/**
 * Why the client-authentication part of a token or revocation request is malformed (RFC 6749 §2.3.1, §3.2;
 * RFC 7009 §2.1).
 */
export type ClientPartError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'params' | 'authorization' }
  /** A parameter is repeated (RFC 6749 §3.2). */
  | { readonly code: 'duplicate_parameter'; readonly parameter: string }
  /** Several `Authorization` header values. */
  | { readonly code: 'duplicate_authorization_header' }
  /** Credentials both in the header and in the body (RFC 6749 §2.3: only one method per request). */
  | { readonly code: 'multiple_client_authentication' }
  /** No client credentials at all. */
  | { readonly code: 'missing_client_authentication' }
  /** `client_id` in the body without `client_secret` (public clients are not supported). */
  | { readonly code: 'missing_client_secret' }
  /** An `Authorization` scheme other than `Basic`. */
  | { readonly code: 'unsupported_client_authentication' }
  /** A `Basic` header that is not base64 of `id:secret` form-encoded. */
  | { readonly code: 'malformed_client_authentication' }
  /** A body `client_id` that differs from the `Basic` one. */
  | { readonly code: 'client_id_mismatch' };

/** Why a token request is malformed. The adapter maps each to an RFC 6749 §5.2 error. */
export type TokenRequestError =
  | ClientPartError
  /** No `grant_type`. */
  | { readonly code: 'missing_grant_type' }
  /** A `grant_type` other than `authorization_code` and `refresh_token`. */
  | { readonly code: 'unsupported_grant_type' }
  /** A parameter the grant requires is absent. */
  | { readonly code: 'missing_parameter'; readonly parameter: 'code' | 'code_verifier' | 'refresh_token' }
  /** `code_verifier` is not 43 to 128 unreserved characters (RFC 7636 §4.1). */
  | { readonly code: 'invalid_code_verifier' }
  /** `scope` is malformed (RFC 6749 §3.3). */
  | { readonly code: 'invalid_scope_syntax' };

function readBasic(header: string): Result<{ clientId: string; clientSecret: string }, ClientPartError> {
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  const scheme = space < 0 ? trimmed : trimmed.slice(0, space);
  if (asciiLowercase(scheme) !== 'basic') return err({ code: 'unsupported_client_authentication' });
  const decoded = base64Decode(trimmed.slice(space + 1).trim());
  if (space < 0 || decoded === null) return err({ code: 'malformed_client_authentication' });
  let text = '';
  for (const byte of decoded) {
    if (byte < 0x20 || byte > 0x7e) return err({ code: 'malformed_client_authentication' });
    text += String.fromCharCode(byte);
  }
  const colon = text.indexOf(':');
  if (colon < 0) return err({ code: 'malformed_client_authentication' });
  const id = formDecode(text.slice(0, colon));
  const secret = formDecode(text.slice(colon + 1));
  if (id.isErr() || secret.isErr() || id.value === '' || secret.value === '') {
    return err({ code: 'malformed_client_authentication' });
  }
  return ok({ clientId: id.value, clientSecret: secret.value });
}

/** The client-authentication part shared by the token and the revocation endpoints (RFC 6749 §2.3.1, RFC 7009 §2.1).
 *
 * @internal
 */
export function readClientPart(
  input: TokenRequestInput,
): Result<{ readonly client: ClientCredentials; readonly get: (name: string) => string | undefined }, ClientPartError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const params = collectParameters(ownField(raw, 'params'));
  if (params === null) return err({ code: 'invalid_input', field: 'params' });
  const authorizationRaw = ownField(raw, 'authorization');
  let authorization: string | undefined;
  if (authorizationRaw === undefined || typeof authorizationRaw === 'string') authorization = authorizationRaw;
  else if (isStringArray(authorizationRaw)) {
    if (authorizationRaw.length > 1) return err({ code: 'duplicate_authorization_header' });
    authorization = authorizationRaw[0];
  } else return err({ code: 'invalid_input', field: 'authorization' });
  if (authorization !== undefined && authorization.trim() === '') authorization = undefined;

  for (const [name, values] of params) {
    if (values.length > 1) return err({ code: 'duplicate_parameter', parameter: name });
  }
  const get = (name: string): string | undefined => single(params, name) ?? undefined;

  const bodyId = get('client_id');
  const bodySecret = get('client_secret');
  if (authorization !== undefined) {
    if (bodySecret !== undefined) return err({ code: 'multiple_client_authentication' });
    const basic = readBasic(authorization);
    if (basic.isErr()) return err(basic.error);
    if (bodyId !== undefined && bodyId !== basic.value.clientId) return err({ code: 'client_id_mismatch' });
    return ok({ client: { ...basic.value, method: 'client_secret_basic' }, get });
  }
  if (bodyId !== undefined) {
    if (bodySecret === undefined) return err({ code: 'missing_client_secret' });
    return ok({ client: { clientId: bodyId, clientSecret: bodySecret, method: 'client_secret_post' }, get });
  }
  return err({ code: 'missing_client_authentication' });
}

/**
 * Reads `POST /.auth/idp/oauth/token` (RFC 6749 §3.2, §4.1.3, §6) into a typed request, checking
 * syntax only (no lookup). Order: repeated parameters; client authentication (`Basic` header or
 * `client_id` + `client_secret` in the body, never both); `grant_type`; the grant's parameters.
 *
 * @param input - The form parameters and the `Authorization` header.
 * @returns `ok(request)` or `err` with the first problem.
 * @example
 * ```ts
 * readTokenRequest({ params: [['grant_type', 'refresh_token'], ['refresh_token', 'gar_x'], ['client_id', 'gai_c'], ['client_secret', 'gas_s']], authorization: undefined });
 * // ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_post' }, grant: { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null } })
 * readTokenRequest({ params: [['grant_type', 'password']], authorization: 'Basic Yzpz' });
 * // err({ code: 'unsupported_grant_type' })
 * ```
 */
export function readTokenRequest(input: TokenRequestInput): Result<TokenRequest, TokenRequestError> {
  const read = readClientPart(input);
  if (read.isErr()) return err(read.error);
  const { client, get } = read.value;

  const grantType = get('grant_type');
  if (grantType === undefined) return err({ code: 'missing_grant_type' });
  if (grantType === 'authorization_code') {
    const code = get('code');
    if (code === undefined) return err({ code: 'missing_parameter', parameter: 'code' });
    const codeVerifier = get('code_verifier');
    if (codeVerifier === undefined) return err({ code: 'missing_parameter', parameter: 'code_verifier' });
    if (!isCodeVerifier(codeVerifier)) return err({ code: 'invalid_code_verifier' });
    return ok({ client, grant: { kind: 'authorization_code', code, redirectUri: get('redirect_uri') ?? null, codeVerifier } });
  }
  if (grantType === 'refresh_token') {
    const refreshToken = get('refresh_token');
    if (refreshToken === undefined) return err({ code: 'missing_parameter', parameter: 'refresh_token' });
    const scope = get('scope');
    const scopes = scope === undefined ? null : parseScope(scope);
    if (scope !== undefined && scopes === null) return err({ code: 'invalid_scope_syntax' });
    return ok({ client, grant: { kind: 'refresh_token', refreshToken, scopes } });
  }
  return err({ code: 'unsupported_grant_type' });
}

// ---------------------------------------------------------------------------------------------
// Client authentication

/**
 * Why client authentication failed. Unknown client and wrong secret share one code so the response
 * does not reveal which client ids exist.
 */
export type ClientAuthenticationError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'credentials' | 'client' | 'sha256' }
  /** No such client, or the secret does not match. */
  | { readonly code: 'invalid_client' }
  /** The digest function failed. */
  | { readonly code: 'digest_failed' };

/** Input of {@link authenticateOAuthClient}. */
export interface ClientAuthenticationInput {
  /** The credentials from {@link readTokenRequest}. */
  readonly credentials: ClientCredentials;
  /** The app with that client id, or `null`. */
  readonly client: OAuthClient | null;
  /** SHA-256 over bytes. */
  readonly sha256: Sha256;
}

/**
 * Authenticates a confidential client: the app exists and the digest of the presented secret equals
 * the stored one (compared in constant time; the digest is computed even for an unknown client).
 *
 * @param input - Credentials, the looked-up app and SHA-256.
 * @returns `ok(client)` or `err({ code: 'invalid_client' })`.
 * @example
 * ```ts
 * authenticateOAuthClient({ credentials: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_basic' }, client, sha256 });
 * // ok(client) when hashAccessToken('gas_s', sha256) equals client.clientSecretHash, else err({ code: 'invalid_client' })
 * ```
 */
export function authenticateOAuthClient(input: ClientAuthenticationInput): Result<OAuthClient, ClientAuthenticationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const credentials = ownField(raw, 'credentials');
  const clientId = ownField(credentials, 'clientId');
  const clientSecret = ownField(credentials, 'clientSecret');
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') {
    return err({ code: 'invalid_input', field: 'credentials' });
  }
  const client = readClient(ownField(raw, 'client'));
  if (client === undefined) return err({ code: 'invalid_input', field: 'client' });
  const sha256 = ownField(raw, 'sha256');
  if (typeof sha256 !== 'function') return err({ code: 'invalid_input', field: 'sha256' });
  const digest = hashAccessToken(clientSecret, (bytes) => {
    const out: unknown = Reflect.apply(sha256, undefined, [bytes]);
    return out instanceof Uint8Array ? out : new Uint8Array(0);
  });
  if (digest.isErr()) return err({ code: 'digest_failed' });
  const stored = client?.clientSecretHash ?? '';
  const secretMatches = constantTimeEqual(digest.value, stored);
  return client !== null && client.clientId === clientId && secretMatches && stored !== ''
    ? ok(client)
    : err({ code: 'invalid_client' });
}
