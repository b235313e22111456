/**
 * The authorize request (`GET /.auth/idp/oauth/authorize`, RFC 6749 §4.1.1 with RFC 7636 PKCE).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { isObject, ownField } from '../../internal/guard.js';
import { collectParameters, isS256Challenge, isVisibleAscii, parseScope, scopeProblem, single } from './parameters.js';
import { type OAuthClient, type OAuthParameters, readClient, REQUIRED_OAUTH_SCOPE } from './records.js';

// ---------------------------------------------------------------------------------------------
// Authorize request

/**
 * Where an authorize error may be reported: the client's verified redirect URI, with `state`
 * echoed (RFC 6749 §4.1.2.1). `state` is `null` when the request had none (or repeated it).
 */
export interface AuthorizeErrorRedirect {
  /** The registered redirect URI the request named. */
  readonly redirectUri: string;
  /** The request's `state`, to echo. */
  readonly state: string | null;
}

/** Input of {@link validateAuthorizeRequest}. */
export interface AuthorizeRequestInput {
  /** The query parameters of `GET /.auth/idp/oauth/authorize`. */
  readonly params: OAuthParameters;
  /** The app whose id the request's `client_id` names, or `null` when there is none. */
  readonly client: OAuthClient | null;
}

/** A valid authorization request. */
export interface AuthorizeRequest {
  /** The client. */
  readonly clientId: string;
  /** Where to send the code: the URI named, or the app's only registered URI. */
  readonly redirectUri: string;
  /** Whether the request named `redirect_uri` (RFC 6749 §4.1.3: then the token request must repeat it). */
  readonly redirectUriGiven: boolean;
  /** The granted scopes (distinct, in request order; `['user:all']` when the request named none). */
  readonly scopes: readonly string[];
  /** The `state` to echo, or `null`. */
  readonly state: string | null;
  /** The PKCE S256 challenge. */
  readonly codeChallenge: string;
}

/**
 * Why an authorization request is refused. Members with `redirect` may be reported to the client
 * by redirecting there (RFC 6749 §4.1.2.1); the others (no trustworthy redirect URI) must be shown
 * to the user and never redirected.
 */
export type AuthorizeRequestError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'params' | 'client' }
  /** `client_id` is absent (or repeated). */
  | { readonly code: 'missing_client_id' }
  /** No registered app has this `client_id`. */
  | { readonly code: 'unknown_client' }
  /** `redirect_uri` is absent while the app registered several, or repeated. */
  | { readonly code: 'missing_redirect_uri' }
  /** `redirect_uri` is not exactly one of the app's registered URIs (RFC 9700 §4.1.3). */
  | { readonly code: 'redirect_uri_not_registered' }
  /** Another parameter is repeated (RFC 6749 §3.1). */
  | { readonly code: 'duplicate_parameter'; readonly parameter: string; readonly redirect: AuthorizeErrorRedirect }
  /** `response_type` is absent. */
  | { readonly code: 'missing_response_type'; readonly redirect: AuthorizeErrorRedirect }
  /** `response_type` is not `code`. */
  | { readonly code: 'unsupported_response_type'; readonly redirect: AuthorizeErrorRedirect }
  /** `code_challenge` is absent: PKCE is required. */
  | { readonly code: 'missing_code_challenge'; readonly redirect: AuthorizeErrorRedirect }
  /** `code_challenge_method` is absent (meaning `plain`), `plain`, or unknown: only `S256` is accepted. */
  | {
      readonly code: 'unsupported_code_challenge_method';
      readonly method: string | null;
      readonly redirect: AuthorizeErrorRedirect;
    }
  /** `code_challenge` is not 43 base64url characters. */
  | { readonly code: 'invalid_code_challenge'; readonly redirect: AuthorizeErrorRedirect }
  /** `scope` is malformed, names a scope the app does not hold, or lacks `user:all`. */
  | {
      readonly code: 'invalid_scope';
      readonly reason: 'malformed' | 'not_allowed' | 'missing_user_all';
      readonly redirect: AuthorizeErrorRedirect;
    }
  /** `state` holds characters outside `%x20-7E`. */
  | { readonly code: 'invalid_state'; readonly redirect: AuthorizeErrorRedirect };

/**
 * Validates `GET /.auth/idp/oauth/authorize` (RFC 6749 §4.1.1 with RFC 7636 PKCE). In order:
 * `client_id` present and registered; `redirect_uri` exactly one of the app's registered URIs
 * (optional only when the app registered exactly one; RFC 6749 §3.1.2.3) — failures up to here are
 * never redirected; then, reported by redirect: repeated parameters, `response_type=code`,
 * `code_challenge` present with `code_challenge_method=S256` (absent means `plain`, which is
 * refused), `scope` a subset of the app's scopes that includes `user:all` (absent means
 * `user:all`), `state` visible ASCII. Unknown parameters are ignored (RFC 6749 §3.1); an empty value
 * counts as absent.
 *
 * @param input - The query parameters and the app the `client_id` names.
 * @returns `ok(request)` to go on with (sign-in, consent, code), or `err` saying how to refuse.
 * @example
 * ```ts
 * validateAuthorizeRequest({ params: [['client_id', 'gai_x'], ['response_type', 'code'], ['code_challenge', c], ['code_challenge_method', 'S256']], client });
 * // ok({ clientId: 'gai_x', redirectUri: 'https://app.example/cb', redirectUriGiven: false, scopes: ['user:all'], state: null, codeChallenge: c })
 * validateAuthorizeRequest({ params: [['client_id', 'gai_x'], ['response_type', 'code'], ['code_challenge', c]], client });
 * // err({ code: 'unsupported_code_challenge_method', method: null, redirect: { redirectUri: 'https://app.example/cb', state: null } })
 * ```
 */
export function validateAuthorizeRequest(input: AuthorizeRequestInput): Result<AuthorizeRequest, AuthorizeRequestError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const params = collectParameters(ownField(raw, 'params'));
  if (params === null) return err({ code: 'invalid_input', field: 'params' });
  const client = readClient(ownField(raw, 'client'));
  if (client === undefined) return err({ code: 'invalid_input', field: 'client' });

  const clientId = single(params, 'client_id');
  if (clientId === undefined || clientId === null) return err({ code: 'missing_client_id' });
  if (client === null || client.clientId !== clientId) return err({ code: 'unknown_client' });

  const redirectParam = single(params, 'redirect_uri');
  if (redirectParam === null) return err({ code: 'missing_redirect_uri' });
  const only = client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
  const redirectUri = redirectParam ?? only;
  if (redirectUri === undefined) return err({ code: 'missing_redirect_uri' });
  if (!client.redirectUris.includes(redirectUri)) return err({ code: 'redirect_uri_not_registered' });

  const stateValue = single(params, 'state');
  const redirect: AuthorizeErrorRedirect = {
    redirectUri,
    state: typeof stateValue === 'string' && isVisibleAscii(stateValue, true) ? stateValue : null,
  };
  for (const [name, values] of params) {
    if (values.length > 1) return err({ code: 'duplicate_parameter', parameter: name, redirect });
  }

  const responseType = single(params, 'response_type');
  if (responseType === undefined) return err({ code: 'missing_response_type', redirect });
  if (responseType !== 'code') return err({ code: 'unsupported_response_type', redirect });

  const challenge = single(params, 'code_challenge');
  if (typeof challenge !== 'string') return err({ code: 'missing_code_challenge', redirect });
  const method = single(params, 'code_challenge_method');
  if (method !== 'S256') {
    return err({ code: 'unsupported_code_challenge_method', method: typeof method === 'string' ? method : null, redirect });
  }
  if (!isS256Challenge(challenge)) return err({ code: 'invalid_code_challenge', redirect });

  const scopeParam = single(params, 'scope');
  const scopes = typeof scopeParam === 'string' ? parseScope(scopeParam) : [REQUIRED_OAUTH_SCOPE];
  if (scopes === null) return err({ code: 'invalid_scope', reason: 'malformed', redirect });
  const problem = scopeProblem(scopes, client.scopes);
  if (problem !== null) return err({ code: 'invalid_scope', reason: problem, redirect });

  if (typeof stateValue === 'string' && redirect.state === null) return err({ code: 'invalid_state', redirect });

  return ok({
    clientId,
    redirectUri,
    redirectUriGiven: redirectParam !== undefined,
    scopes,
    state: redirect.state,
    codeChallenge: challenge,
  });
}
