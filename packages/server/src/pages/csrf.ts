/**
 * Cross-site form posts are refused three ways, each enough on its own in the browsers that support it: the
 * `Sec-Fetch-Site` header (only `same-origin` or `none`), the `Origin` header (this site's origin), and a form
 * token. The token is an HMAC of the browser's session cookie under a random `gatehouse_csrf` cookie
 * (`HttpOnly`, `SameSite=Lax`): another site can neither read that cookie nor compute the token, and a token
 * stops working when the session changes. It also covers a person signed in through an authentication proxy,
 * who has no session cookie for a cross-site post to ride on but whose proxy would vouch for it.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { err, ok, type Result } from 'neverthrow';
import type { ResponseCookie, RouteRequest } from '../kernel/route.js';
import { SESSION_COOKIE, originAllowed } from '../session/sessions.js';

/**
 * The name of the cookie the form tokens are derived from.
 *
 * @example
 * ```ts
 * request.cookies.get(CSRF_COOKIE);
 * ```
 */
export const CSRF_COOKIE = 'gatehouse_csrf';

/**
 * The name of the hidden form field that carries the token.
 *
 * @example
 * ```ts
 * form.get(CSRF_FIELD);
 * ```
 */
export const CSRF_FIELD = '_csrf';

const COOKIE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The token of a form for this cookie and session. */
function tokenOf(csrfCookie: string, sessionCookie: string): string {
  return createHmac('sha256', csrfCookie).update(`gatehouse form\0${sessionCookie}`).digest('base64url');
}

/** The request's CSRF cookie when it has the shape this server sets, else `null`. */
function csrfCookieOf(request: Pick<RouteRequest, 'cookies'>): string | null {
  const value = request.cookies.get(CSRF_COOKIE);
  return value !== undefined && COOKIE_PATTERN.test(value) ? value : null;
}

/**
 * The token a page puts in its forms, and the cookie to set with the page when the browser has none yet.
 *
 * @example
 * ```ts
 * const issued: FormToken = formToken(request, randomBytes, false);
 * ```
 */
export interface FormToken {
  /** The value of the hidden `_csrf` field. */
  readonly token: string;
  /** The `gatehouse_csrf` cookie to set, or `null` when the request carried a usable one. */
  readonly cookie: ResponseCookie | null;
}

/**
 * The form token for a page answering `request`: derived from its CSRF cookie, or from a new one (returned to be
 * set with the page).
 *
 * @param request - The page request.
 * @param randomBytes - The random source (32 bytes for a new cookie).
 * @param secure - Whether cookies get `Secure`.
 * @returns The token and the cookie to set, if any.
 *
 * @example
 * ```ts
 * const { token, cookie } = formToken(request, randomBytes, false);
 * ```
 */
export function formToken(request: Pick<RouteRequest, 'cookies'>, randomBytes: (n: number) => Uint8Array, secure: boolean): FormToken {
  const session = request.cookies.get(SESSION_COOKIE) ?? '';
  const existing = csrfCookieOf(request);
  if (existing !== null) return { token: tokenOf(existing, session), cookie: null };
  const fresh = Buffer.from(randomBytes(32)).toString('base64url');
  return {
    token: tokenOf(fresh, session),
    // Lax, not Strict: a person arriving from another site (an OAuth app sending them to the consent page) still
    // brings it, so the page derives its token from the same cookie and the forms open in other tabs keep working;
    // a cross-site post never carries it either way
    cookie: { name: CSRF_COOKIE, value: fresh, path: '/', sameSite: 'Lax', secure, httpOnly: true },
  };
}

/**
 * Why a form post was refused as cross-site.
 *
 * @example
 * ```ts
 * const refusal: CrossSiteRefusal = { code: 'csrf_token_mismatch' };
 * ```
 */
export type CrossSiteRefusal =
  /** `Sec-Fetch-Site` names another site, or `Origin` another origin. */
  | { readonly code: 'cross_site_request' }
  /** The form's token is missing or not the one this browser's cookies give. */
  | { readonly code: 'csrf_token_mismatch' };

/**
 * Whether a form post comes from one of this site's own pages.
 *
 * @param request - The post.
 * @param presented - The form's `_csrf` value (`null` when absent).
 * @param siteOrigin - The site's origin (`externalURL`'s), or `null`.
 * @returns `ok` for a post of this site's page, else why not.
 *
 * @example
 * ```ts
 * checkFormPost(request, form.get(CSRF_FIELD), 'https://search.example.com').isOk();
 * ```
 */
export function checkFormPost(request: RouteRequest, presented: string | null, siteOrigin: string | null): Result<void, CrossSiteRefusal> {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return err({ code: 'cross_site_request' });
  if (!originAllowed(request, siteOrigin)) return err({ code: 'cross_site_request' });
  const cookie = csrfCookieOf(request);
  if (cookie === null || presented === null) return err({ code: 'csrf_token_mismatch' });
  const expected = Buffer.from(tokenOf(cookie, request.cookies.get(SESSION_COOKIE) ?? ''), 'utf8');
  const given = Buffer.from(presented, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected) ? ok(undefined) : err({ code: 'csrf_token_mismatch' });
}
