/**
 * The authorization server's error mapping (spec §2.4; RFC 6749 §4.1.2.1, §5.2; RFC 7009): each core code to an
 * HTTP status and an OAuth error, exhaustively, so a new code cannot ship without a status.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type {
  AuthorizationCodeGrantError,
  AuthorizeRequestError,
  ClientAuthenticationError,
  OAuthAppRegistrationError,
  RefreshTokenGrantError,
  RevocationRequestError,
  TokenRequestError,
  TokenRevocationError,
} from 'gatehouse-auth';
import { jsonResponse } from '../kernel/respond.js';
import type { RouteResponse } from '../kernel/route.js';

/**
 * Answers a refused token or revocation request: RFC 6749 §5.2's error, never cached.
 *
 * @param failure - Why the request was refused.
 * @returns The response value.
 *
 * @example
 * ```ts
 * tokenEndpointError({ code: 'unsupported_content_type' }).status; // 400
 * ```
 */
export function tokenEndpointError(failure: TokenEndpointFailure): RouteResponse {
  const e = tokenError(failure);
  const headers: Record<string, string> = { 'cache-control': 'no-store', pragma: 'no-cache' };
  if (e.status === 405) headers['allow'] = 'POST';
  // RFC 6749 §5.2: invalid_client is a 401 naming the supported scheme.
  if (e.status === 401) headers['www-authenticate'] = 'Basic realm="gatehouse", charset="UTF-8"';
  return jsonResponse(e.status, { error: e.error, error_description: e.description }, headers);
}

/** Failures of the token endpoint found by the adapter itself. */
type AdapterFailure =
  | { readonly code: 'method_not_allowed' }
  | { readonly code: 'unsupported_content_type' }
  | { readonly code: 'body_too_large' }
  | { readonly code: 'invalid_body' }
  | { readonly code: 'authorization_code_reused' }
  | { readonly code: 'refresh_token_reused' }
  | { readonly code: 'internal_error' };

/**
 * Why a token or revocation request was refused: the core's codes and the adapter's own.
 *
 * @example
 * ```ts
 * const failure: TokenEndpointFailure = { code: 'internal_error' };
 * ```
 */
export type TokenEndpointFailure =
  | TokenRequestError
  | RevocationRequestError
  | TokenRevocationError
  | ClientAuthenticationError
  | AuthorizationCodeGrantError
  | RefreshTokenGrantError
  | AdapterFailure;

type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'server_error';

interface OAuthErrorResponse {
  readonly status: number;
  readonly error: OAuthErrorCode;
  readonly description: string;
}

function tokenError(failure: TokenEndpointFailure): OAuthErrorResponse {
  const e = (status: number, error: OAuthErrorCode, description: string): OAuthErrorResponse => ({ status, error, description });
  return match(failure.code)
    .returnType<OAuthErrorResponse>()
    .with('method_not_allowed', () => e(405, 'invalid_request', 'This endpoint accepts POST only.'))
    .with('unsupported_content_type', () => e(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.'))
    .with('body_too_large', () => e(413, 'invalid_request', 'The request body is too large.'))
    .with('invalid_body', () => e(400, 'invalid_request', 'The request body could not be read.'))
    .with('duplicate_parameter', () => e(400, 'invalid_request', 'A parameter is repeated.'))
    .with('duplicate_authorization_header', () => e(400, 'invalid_request', 'More than one Authorization header.'))
    .with('multiple_client_authentication', () => e(400, 'invalid_request', 'Use one client authentication method only.'))
    .with('client_id_mismatch', () => e(400, 'invalid_request', 'client_id does not match the Authorization header.'))
    .with('missing_grant_type', () => e(400, 'invalid_request', 'grant_type is required.'))
    .with('missing_parameter', () => e(400, 'invalid_request', 'A required parameter is missing.'))
    .with('invalid_code_verifier', () => e(400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters.'))
    .with('unsupported_grant_type', () => e(400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.'))
    .with('invalid_scope_syntax', () => e(400, 'invalid_scope', 'The scope parameter is malformed.'))
    .with('scope_not_granted', () => e(400, 'invalid_scope', 'The requested scope exceeds the original grant.'))
    .with('missing_user_all_scope', () => e(400, 'invalid_scope', 'The scope must include user:all.'))
    .with(
      'missing_client_authentication',
      'missing_client_secret',
      'unsupported_client_authentication',
      'malformed_client_authentication',
      'invalid_client',
      () => e(401, 'invalid_client', 'Client authentication failed.'),
    )
    .with('unknown_code', 'code_client_mismatch', 'code_expired', () =>
      e(400, 'invalid_grant', 'The authorization code is invalid or expired.'),
    )
    .with('authorization_code_reused', () =>
      e(400, 'invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked.'),
    )
    .with('redirect_uri_mismatch', () => e(400, 'invalid_grant', 'redirect_uri does not match the authorization request.'))
    .with('code_verifier_mismatch', () => e(400, 'invalid_grant', 'The code_verifier does not match the code_challenge.'))
    .with('unknown_refresh_token', 'refresh_token_client_mismatch', 'refresh_token_expired', 'family_revoked', () =>
      e(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked.'),
    )
    .with('token_of_another_client', () => e(400, 'unauthorized_client', 'The token was issued to another client.'))
    .with('refresh_token_reused', () =>
      e(400, 'invalid_grant', 'The refresh token was already used; every token of its grant is revoked.'),
    )
    .with('invalid_input', 'digest_failed', 'internal_error', () => e(500, 'server_error', 'Internal error.'))
    .exhaustive();
}

/**
 * The RFC 6749 §4.1.2.1 error of the authorization endpoint.
 *
 * @param failure - Why the authorization request was refused.
 * @returns The error code and its description.
 *
 * @example
 * ```ts
 * authorizeError(failure).error; // 'invalid_request'
 * ```
 */
export function authorizeError(failure: AuthorizeRequestError): { readonly error: string; readonly description: string } {
  return match(failure)
    .returnType<{ readonly error: string; readonly description: string }>()
    .with({ code: 'invalid_input' }, () => ({ error: 'server_error', description: 'Internal error.' }))
    .with({ code: 'missing_client_id' }, () => ({ error: 'invalid_request', description: 'client_id is missing.' }))
    .with({ code: 'unknown_client' }, () => ({ error: 'invalid_request', description: 'Unknown client_id.' }))
    .with({ code: 'missing_redirect_uri' }, () => ({ error: 'invalid_request', description: 'redirect_uri is required.' }))
    .with({ code: 'redirect_uri_not_registered' }, () => ({
      error: 'invalid_request',
      description: 'redirect_uri is not registered for this app.',
    }))
    .with({ code: 'duplicate_parameter' }, () => ({ error: 'invalid_request', description: 'A parameter is repeated.' }))
    .with({ code: 'missing_response_type' }, () => ({ error: 'invalid_request', description: 'response_type is required.' }))
    .with({ code: 'unsupported_response_type' }, () => ({
      error: 'unsupported_response_type',
      description: 'Only response_type=code is supported.',
    }))
    .with({ code: 'missing_code_challenge' }, () => ({ error: 'invalid_request', description: 'PKCE code_challenge is required.' }))
    .with({ code: 'unsupported_code_challenge_method' }, () => ({
      error: 'invalid_request',
      description: 'code_challenge_method must be S256.',
    }))
    .with({ code: 'invalid_code_challenge' }, () => ({ error: 'invalid_request', description: 'code_challenge is malformed.' }))
    .with({ code: 'invalid_scope' }, () => ({ error: 'invalid_scope', description: 'The scope must be user:all (and allowed for this app).' }))
    .with({ code: 'invalid_state' }, () => ({ error: 'invalid_request', description: 'state must be printable ASCII.' }))
    .exhaustive();
}

/**
 * What an administrator is told when an app cannot be registered.
 *
 * @param e - Why.
 * @returns The message.
 *
 * @example
 * ```ts
 * registrationMessage({ code: 'invalid_owner' }); // 'The owner must be a user id.'
 * ```
 */
export function registrationMessage(e: OAuthAppRegistrationError | { readonly code: 'invalid_owner' | 'internal_error' }): string {
  return match(e)
    .returnType<string>()
    .with({ code: 'invalid_input' }, (x) => `The field ${x.field} has the wrong type.`)
    .with({ code: 'invalid_name' }, () => 'The name must be 1 to 100 printable characters.')
    .with({ code: 'missing_redirect_uris' }, () => 'At least one redirect URI is required.')
    .with({ code: 'too_many_redirect_uris' }, (x) => `At most ${x.max} redirect URIs may be registered.`)
    .with(
      { code: 'invalid_redirect_uri' },
      (x) => `Redirect URI ${x.index + 1} is not usable (${x.reason.replace(/_/g, ' ')}); use https, or http to a loopback address.`,
    )
    .with({ code: 'duplicate_redirect_uri' }, (x) => `Redirect URI ${x.index + 1} is listed twice.`)
    .with({ code: 'unknown_scope' }, (x) => `Unknown scope ${JSON.stringify(x.scope)}: OAuth apps may hold user:all only.`)
    .with({ code: 'duplicate_scope' }, (x) => `The scope ${JSON.stringify(x.scope)} is listed twice.`)
    .with({ code: 'missing_user_all_scope' }, () => 'An OAuth app must have the scope user:all.')
    .with({ code: 'invalid_owner' }, () => 'The owner must be a user id.')
    .with({ code: 'internal_error' }, () => 'The app could not be registered.')
    .exhaustive();
}

