/**
 * OAuth access-token lifetimes: reading a token response strictly, deciding when to refresh, and merging a refresh response (spec §2.4, §5.1 rule 3).
 *
 * Times are epoch milliseconds passed in by the caller; the core never reads a clock.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, ownField } from '../../internal/guard.js';
import { asciiLowercase } from '../../internal/email-address.js';

/** An OAuth access token as gatehouse keeps it: the response's fields plus absolute times. */
export interface OAuthToken {
  /** The access token, sent as `Authorization: Bearer <accessToken>`; an RFC 6750 `b64token`. */
  readonly accessToken: string;
  /** When the token request started (epoch ms; an ECMAScript time value, at most 8.64e15 ms either side of the epoch); the lifetime counts from here. */
  readonly issuedAt: number;
  /** When the token stops working (epoch ms): `issuedAt + expires_in * 1000`, after the cap. */
  readonly expiresAt: number;
  /** The refresh token, when the server issued one. */
  readonly refreshToken?: string;
  /** The granted scopes, when the server said (each once, in the server's order). */
  readonly scope?: readonly string[];
}

/** Options of {@link parseTokenResponse}. */
export interface TokenResponseOptions {
  /** Longer `expires_in` values are clamped to this many seconds; a positive safe integer. Defaults to one year. */
  readonly maxLifetimeSeconds?: number;
}

/**
 * The default cap on a token's lifetime: one year of 365 days, in seconds.
 *
 * @example
 * ```ts
 * DEFAULT_MAX_TOKEN_LIFETIME_SECONDS === 31_536_000; // true
 * ```
 */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 31_536_000;

/** A member of the token response that {@link parseTokenResponse} reads. */
export type TokenResponseField = 'access_token' | 'token_type' | 'expires_in' | 'refresh_token' | 'scope';

/**
 * Why a token response was rejected. Checked in this order: arguments, `error`, then the fields in
 * the order `access_token`, `token_type`, `expires_in`, `refresh_token`, `scope`.
 */
export type TokenResponseError =
  /** The body is not a JSON object, the start time is not a valid time value, or an option is malformed. */
  | { readonly code: 'invalid_input'; readonly field: 'body' | 'requestStartedAt' | 'options' | 'options.maxLifetimeSeconds' }
  /** The body is an RFC 6749 §5.2 error response (it has a string `error` member). */
  | { readonly code: 'error_response'; readonly error: string }
  /** A required member is absent. */
  | { readonly code: 'missing_field'; readonly field: 'access_token' | 'token_type' | 'expires_in' }
  /** A member is present but malformed (wrong type, empty, not canonical, not positive, …). */
  | { readonly code: 'invalid_field'; readonly field: TokenResponseField }
  /** `token_type` is a string other than `Bearer` (compared case-insensitively). */
  | { readonly code: 'unsupported_token_type'; readonly tokenType: string };

function isTimeValue(value: unknown): value is number {
  // The range of ECMAScript time values (±100,000,000 days around the epoch).
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 8.64e15;
}

function isB64Token(value: string): boolean {
  // RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
  let i = 0;
  for (; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const body =
      (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) ||
      c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e || c === 0x2b || c === 0x2f;
    if (!body) break;
  }
  if (i === 0) return false;
  for (; i < value.length; i++) if (value.charCodeAt(i) !== 0x3d) return false;
  return true;
}

function isBearer(value: string): boolean {
  return asciiLowercase(value) === 'bearer';
}

/** Seconds from `expires_in`, before the cap, or null when it is not a positive integer. */
function readExpiresIn(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string' || value.length === 0) return null;
  // Canonical decimal: digits only, no leading zero, no sign, no exponent, no fraction, no blanks.
  if (value.charCodeAt(0) === 0x30) return null;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return null;
  }
  return Number(value); // may be Infinity for hundreds of digits; the cap applies next
}

/** RFC 6749 §3.3 scope, or the empty string for "no scopes"; null when malformed. */
function readScope(value: string): readonly string[] | null {
  if (value === '') return [];
  const scopes: string[] = [];
  for (const part of value.split(' ')) {
    if (part === '') return null;
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      // scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
      if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) return null;
    }
    if (!scopes.includes(part)) scopes.push(part);
  }
  return scopes;
}

/**
 * Reads an OAuth token response (RFC 6749 §5.1) strictly and stamps absolute times (spec §2.4,
 * §5.1 rule 3: OAuth tokens are always short-lived).
 *
 * - `access_token`: a non-empty RFC 6750 `b64token` (it must fit in `Authorization: Bearer`).
 * - `token_type`: `Bearer`, case-insensitively.
 * - `expires_in`: required; a positive integer number of seconds, either a JSON number or a
 *   canonical decimal string (`"3600"`; not `"03600"`, `"+60"`, `" 60"`, `"1e3"`, `"60.5"`).
 *   Fractions are rejected (RFC 6749 Appendix A.14: `expires-in = 1*DIGIT`), as are 0,
 *   negatives, `NaN`, `Infinity` and `null`: a missing or malformed lifetime is an error, never
 *   "never expires". Values above `options.maxLifetimeSeconds` (default one year) are clamped to it.
 * - `refresh_token`: optional; when present, a non-empty string.
 * - `scope`: optional; space-separated RFC 6749 §3.3 scope tokens (the empty string means none),
 *   kept once each in order.
 *
 * `expiresAt` is `requestStartedAt + lifetime * 1000`: counting from when the request *started*
 * errs on the early side, whatever the network delay.
 *
 * @param body - The parsed JSON body of the token endpoint's response.
 * @param requestStartedAt - When the token request was sent (epoch ms).
 * @param options - The lifetime cap.
 * @returns `ok(token)` or `err` with the first problem.
 * @example
 * ```ts
 * parseTokenResponse({ access_token: 'at', token_type: 'bearer', expires_in: 3600, refresh_token: 'rt' }, 1_000_000);
 * // ok({ accessToken: 'at', issuedAt: 1_000_000, expiresAt: 4_600_000, refreshToken: 'rt' })
 * parseTokenResponse({ access_token: 'at', token_type: 'Bearer' }, 1_000_000);
 * // err({ code: 'missing_field', field: 'expires_in' })
 * parseTokenResponse({ access_token: 'at', token_type: 'Bearer', expires_in: '1e3' }, 1_000_000);
 * // err({ code: 'invalid_field', field: 'expires_in' })
 * ```
 */
export function parseTokenResponse(
  body: unknown,
  requestStartedAt: number,
  options?: TokenResponseOptions,
): Result<OAuthToken, TokenResponseError> {
  const startedAt: unknown = requestStartedAt;
  if (!isTimeValue(startedAt)) return err({ code: 'invalid_input', field: 'requestStartedAt' });
  const rawOptions: unknown = options;
  if (rawOptions !== undefined && !isObject(rawOptions)) return err({ code: 'invalid_input', field: 'options' });
  const rawCap = ownField(rawOptions, 'maxLifetimeSeconds');
  const cap = rawCap === undefined ? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS : rawCap;
  if (typeof cap !== 'number' || !Number.isSafeInteger(cap) || cap <= 0) {
    return err({ code: 'invalid_input', field: 'options.maxLifetimeSeconds' });
  }
  if (!isObject(body) || Array.isArray(body)) return err({ code: 'invalid_input', field: 'body' });

  const error = ownField(body, 'error');
  if (typeof error === 'string') return err({ code: 'error_response', error });

  const accessToken = ownField(body, 'access_token');
  if (accessToken === undefined) return err({ code: 'missing_field', field: 'access_token' });
  if (typeof accessToken !== 'string' || !isB64Token(accessToken)) {
    return err({ code: 'invalid_field', field: 'access_token' });
  }

  const tokenType = ownField(body, 'token_type');
  if (tokenType === undefined) return err({ code: 'missing_field', field: 'token_type' });
  if (typeof tokenType !== 'string') return err({ code: 'invalid_field', field: 'token_type' });
  if (!isBearer(tokenType)) return err({ code: 'unsupported_token_type', tokenType });

  const rawExpiresIn = ownField(body, 'expires_in');
  if (rawExpiresIn === undefined) return err({ code: 'missing_field', field: 'expires_in' });
  const expiresIn = readExpiresIn(rawExpiresIn);
  if (expiresIn === null) return err({ code: 'invalid_field', field: 'expires_in' });

  const refreshToken = ownField(body, 'refresh_token');
  if (refreshToken !== undefined && (typeof refreshToken !== 'string' || refreshToken === '')) {
    return err({ code: 'invalid_field', field: 'refresh_token' });
  }

  const rawScope = ownField(body, 'scope');
  const scope = rawScope === undefined ? undefined : typeof rawScope === 'string' ? readScope(rawScope) : null;
  if (scope === null) return err({ code: 'invalid_field', field: 'scope' });

  const lifetimeSeconds = Math.min(expiresIn, cap);
  return ok({
    accessToken,
    issuedAt: startedAt,
    expiresAt: startedAt + lifetimeSeconds * 1000,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
  });
}

/** A field of {@link OAuthToken}, or `token` for the value as a whole. */
export type OAuthTokenField = 'token' | 'accessToken' | 'issuedAt' | 'expiresAt' | 'refreshToken' | 'scope';

/** Validates a token at run time and copies it; returns the first bad field otherwise. */
function readToken(value: unknown): Result<OAuthToken, OAuthTokenField> {
  if (!isObject(value) || Array.isArray(value)) return err('token');
  const accessToken = ownField(value, 'accessToken');
  if (typeof accessToken !== 'string' || accessToken === '') return err('accessToken');
  const issuedAt = ownField(value, 'issuedAt');
  // A time value, as parseTokenResponse requires of its start time: this also keeps the lifetime
  // (expiresAt - issuedAt) finite, so the refresh point is always a finite time.
  if (!isTimeValue(issuedAt)) return err('issuedAt');
  const expiresAt = ownField(value, 'expiresAt');
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt) || expiresAt <= issuedAt) return err('expiresAt');
  const refreshToken = ownField(value, 'refreshToken');
  if (refreshToken !== undefined && (typeof refreshToken !== 'string' || refreshToken === '')) return err('refreshToken');
  const rawScope = ownField(value, 'scope');
  let scope: readonly string[] | undefined;
  if (rawScope !== undefined) {
    if (!Array.isArray(rawScope)) return err('scope');
    const copy: string[] = [];
    for (let i = 0; i < rawScope.length; i++) {
      const item: unknown = rawScope[i];
      if (typeof item !== 'string') return err('scope');
      copy.push(item);
    }
    scope = copy;
  }
  return ok({
    accessToken,
    issuedAt,
    expiresAt,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
  });
}

/** The smallest margin before expiry at which a refresh starts, when the lifetime allows it. */
const MIN_REFRESH_MARGIN_MS = 60_000;

/** Why {@link decideTokenRefresh} or {@link computeRefreshAt} could not decide. */
export type TokenRefreshError =
  /** The input is not an object, or `now` is not a finite number. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'now' }
  /** The token is malformed at run time (`issuedAt` must be a time value and `expiresAt` a finite time after it). */
  | { readonly code: 'invalid_token'; readonly field: OAuthTokenField };

/**
 * When a token should be refreshed (epoch ms): `expiresAt - margin`, where, with
 * `lifetime = expiresAt - issuedAt`,
 * `margin = min(max(60 000, floor(lifetime / 10)), floor(lifetime / 2))`.
 * So the margin is a tenth of the lifetime, but at least 60 s, and never more than half the
 * lifetime (which wins for lifetimes under two minutes). Examples: 1 h → 6 min; 10 min → 60 s;
 * 2 min → 60 s; 1 min → 30 s.
 *
 * @param token - The token.
 * @returns `ok(refreshAt)`, or `err` for a malformed token.
 * @example
 * ```ts
 * computeRefreshAt({ accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000 }); // ok(3_240_000)
 * ```
 */
export function computeRefreshAt(token: OAuthToken): Result<number, TokenRefreshError> {
  return readToken(token)
    .mapErr((field): TokenRefreshError => ({ code: 'invalid_token', field }))
    .map(refreshAtOf);
}

function refreshAtOf(token: OAuthToken): number {
  const lifetime = token.expiresAt - token.issuedAt;
  const margin = Math.min(Math.max(MIN_REFRESH_MARGIN_MS, Math.floor(lifetime / 10)), Math.floor(lifetime / 2));
  return token.expiresAt - margin;
}

/** Input of {@link decideTokenRefresh}. */
export interface TokenRefreshInput {
  /** The current time (epoch ms), read by the caller. */
  readonly now: number;
  /** The token in hand. */
  readonly token: OAuthToken;
}

/** What to do with a token now. */
export type TokenRefreshDecision =
  /** Keep using the token: the refresh point has not been reached. */
  | { readonly kind: 'use' }
  /** Refresh it now with this refresh token (it is near or past expiry). */
  | { readonly kind: 'refresh'; readonly refreshToken: string }
  /** It is near or past expiry and there is no refresh token: run the authorization flow again. */
  | { readonly kind: 'reauthenticate' };

/**
 * Decides whether to use, refresh or replace an OAuth token (spec §2.4, §5.1 rule 3: refresh with
 * the refresh token before expiry). Before {@link computeRefreshAt}'s point it is `use`; from that
 * point on (including after expiry) it is `refresh` when the token has a refresh token and
 * `reauthenticate` when it has none. The outcome is monotonic in time: once not `use`, never
 * `use` again for the same token.
 *
 * @param input - The current time and the token.
 * @returns `ok(decision)`, or `err` for a malformed time or token.
 * @example
 * ```ts
 * const token = { accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000, refreshToken: 'rt' };
 * decideTokenRefresh({ now: 3_239_999, token }); // ok({ kind: 'use' })
 * decideTokenRefresh({ now: 3_240_000, token }); // ok({ kind: 'refresh', refreshToken: 'rt' })
 * const noRefresh = { accessToken: 'at', issuedAt: 0, expiresAt: 3_600_000 };
 * decideTokenRefresh({ now: 3_240_000, token: noRefresh }); // ok({ kind: 'reauthenticate' })
 * ```
 */
export function decideTokenRefresh(input: TokenRefreshInput): Result<TokenRefreshDecision, TokenRefreshError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const now = ownField(raw, 'now');
  if (typeof now !== 'number' || !Number.isFinite(now)) return err({ code: 'invalid_input', field: 'now' });
  const token = readToken(ownField(raw, 'token'));
  if (token.isErr()) return err({ code: 'invalid_token', field: token.error });
  return ok(
    match([now >= refreshAtOf(token.value), token.value.refreshToken] as const)
      .returnType<TokenRefreshDecision>()
      .with([false, P._], () => ({ kind: 'use' }))
      .with([true, undefined], () => ({ kind: 'reauthenticate' }))
      .with([true, P.string], ([, refreshToken]) => ({ kind: 'refresh', refreshToken }))
      .exhaustive(),
  );
}

/** Why {@link mergeRefreshedToken} could not merge. */
export type TokenMergeError =
  /** One of the two tokens is malformed at run time. */
  | { readonly code: 'invalid_token'; readonly token: 'previous' | 'refreshed'; readonly field: OAuthTokenField };

/**
 * Combines the token in hand with the one a refresh returned (RFC 6749 §6): the access token and
 * times come from `refreshed`; the refresh token and scope come from `refreshed` when it has them,
 * and are kept from `previous` when the response omitted them (a server need not rotate the
 * refresh token, and an omitted scope means "unchanged").
 *
 * @param previous - The token that was refreshed.
 * @param refreshed - The parsed refresh response ({@link parseTokenResponse}).
 * @returns `ok(merged)`, or `err` when either token is malformed.
 * @example
 * ```ts
 * mergeRefreshedToken(
 *   { accessToken: 'old', issuedAt: 0, expiresAt: 3_600_000, refreshToken: 'rt', scope: ['user:all'] },
 *   { accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000 },
 * );
 * // ok({ accessToken: 'new', issuedAt: 3_300_000, expiresAt: 6_900_000, refreshToken: 'rt', scope: ['user:all'] })
 * ```
 */
export function mergeRefreshedToken(previous: OAuthToken, refreshed: OAuthToken): Result<OAuthToken, TokenMergeError> {
  const old = readToken(previous);
  if (old.isErr()) return err({ code: 'invalid_token', token: 'previous', field: old.error });
  const next = readToken(refreshed);
  if (next.isErr()) return err({ code: 'invalid_token', token: 'refreshed', field: next.error });
  const refreshToken = next.value.refreshToken ?? old.value.refreshToken;
  const scope = next.value.scope ?? old.value.scope;
  return ok({
    accessToken: next.value.accessToken,
    issuedAt: next.value.issuedAt,
    expiresAt: next.value.expiresAt,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(scope === undefined ? {} : { scope }),
  });
}
