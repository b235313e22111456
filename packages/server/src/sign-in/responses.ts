/**
 * The response values of the provider routes: redirects, the flow's refusals and the sign-in outcome, each a
 * {@link RouteResponse} the server's writer turns into bytes.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { messagePage } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { ResponseCookie, RouteResponse } from '../kernel/route.js';
import type { SignInFlowError, SignInOutcome } from './flow.js';

export { htmlResponse, redirectResponse } from '../kernel/respond.js';
export { messagePage } from '../pages/page-routes.js';

/**
 * Why a flow stopped before the sign-in decision (nothing written anywhere).
 *
 * @example
 * ```ts
 * const e: ProviderFlowError = { code: 'invalid_state' };
 * ```
 */
export type ProviderFlowError =
  /** The callback carries no `state` (or `RelayState`). */
  | { readonly code: 'missing_state' }
  /** The `state` is unknown, expired, already used, or was issued for another provider. */
  | { readonly code: 'invalid_state' }
  /** The `state` (or the SAML flow) was not issued to this browser (its cookie is missing or different). */
  | { readonly code: 'state_mismatch' }
  /** The provider answered with an `error` (the person cancelled, or the app is misconfigured). */
  | { readonly code: 'provider_error' }
  /** The callback carries no `code`. */
  | { readonly code: 'missing_code' }
  /** The provider refused the code, or the response failed a check (signature, nonce, audience…). */
  | { readonly code: 'response_rejected' }
  /** The provider could not be reached or answered nonsense. */
  | { readonly code: 'upstream_failed' }
  /** The provider cannot be used as configured (for example no URL for a public edition). */
  | { readonly code: 'not_configured' }
  /** The request itself is malformed (wrong method, unreadable body). */
  | { readonly code: 'bad_request' }
  /** Too many sign-ins are pending on this server (the server-wide bound); nothing was kept. */
  | { readonly code: 'too_many_pending' };

/**
 * The page a flow's refusal is answered with.
 *
 * @param error - Why the flow stopped.
 * @returns The response (400, 502 or 503; `Retry-After: 60` with `too_many_pending`).
 * @example
 * ```ts
 * flowErrorResponse({ code: 'invalid_state' }).status; // 400
 * ```
 */
export function flowErrorResponse(error: ProviderFlowError): RouteResponse {
  const [status, message] = match(error)
    .returnType<readonly [number, string]>()
    .with({ code: 'missing_state' }, () => [400, 'The sign-in response has no state. Start signing in again.'])
    .with({ code: 'invalid_state' }, () => [400, 'This sign-in link expired or was already used. Start signing in again.'])
    .with({ code: 'state_mismatch' }, () => [400, 'This sign-in was not started in this browser. Start signing in again.'])
    .with({ code: 'provider_error' }, () => [400, 'The provider did not sign you in (cancelled or refused).'])
    .with({ code: 'missing_code' }, () => [400, 'The sign-in response has no authorization code.'])
    .with({ code: 'response_rejected' }, () => [400, 'The sign-in response from the provider was refused.'])
    .with({ code: 'upstream_failed' }, () => [502, 'The provider could not be reached. Try again later.'])
    .with({ code: 'not_configured' }, () => [503, 'This sign-in provider is not usable as configured.'])
    .with({ code: 'bad_request' }, () => [400, 'Malformed sign-in request.'])
    .with({ code: 'too_many_pending' }, () => [503, 'Too many sign-ins are in progress. Try again in a minute.'])
    .exhaustive();
  return messagePage(status, 'Sign-in failed', message, error.code === 'too_many_pending' ? { 'retry-after': '60' } : {});
}

/**
 * The response to a sign-in: a `303` to `returnTo` with `cookies` (such as the session cookie) when signed in,
 * a `403` page showing the denial's message, `409` or `500` otherwise.
 *
 * @param result - What the sign-in flow returned.
 * @param returnTo - Where to send a signed-in person (a path on this site).
 * @param cookies - Cookies to set with the redirect; `alwaysCookies` are set with every answer.
 * @param alwaysCookies - Cookies every answer sets (such as clearing the flow's `state` cookie).
 * @returns The response.
 * @example
 * ```ts
 * signInOutcomeResponse(ok({ kind: 'signed_in', userId: '1', created: false, linked: false }), '/search').status; // 303
 * ```
 */
export function signInOutcomeResponse(
  result: Result<SignInOutcome, SignInFlowError>,
  returnTo: string,
  cookies: readonly ResponseCookie[] = [],
  alwaysCookies: readonly ResponseCookie[] = [],
): RouteResponse {
  const response = result.match(
    (outcome) =>
      match(outcome)
        .returnType<RouteResponse>()
        .with({ kind: 'signed_in' }, () => redirectResponse(returnTo, cookies))
        .with({ kind: 'denied' }, (d) => messagePage(403, 'Sign-in refused', d.message))
        .exhaustive(),
    (error) =>
      match(error)
        .returnType<RouteResponse>()
        .with({ code: 'store_conflict' }, () => messagePage(409, 'Sign-in failed', 'Your account changed while signing in. Try again.'))
        .with({ code: 'sign_in_error' }, () =>
          messagePage(500, 'Sign-in failed', 'Sign-in failed because of an internal error.'),
        )
        .exhaustive(),
  );
  const all = [...(response.cookies ?? []), ...alwaysCookies];
  return all.length === 0 ? response : { ...response, cookies: all };
}
