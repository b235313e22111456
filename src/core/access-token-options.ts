/**
 * The site option `auth.accessTokens`: who may create access tokens, which lifetimes they may have, and how many
 * one account may hold. The same names and defaults as the service the spec describes; the per-account limit may
 * only lower the hard bound {@link MAX_ACCESS_TOKENS_PER_ACCOUNT} that keeps what an account makes the server
 * hold bounded.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { MAX_ACCESS_TOKENS_PER_ACCOUNT } from './access-token.js';

/**
 * The values of `auth.accessTokens.allow`: every account may create tokens, only site administrators may (for
 * themselves and for others), or nobody may.
 *
 * @example
 * ```ts
 * ACCESS_TOKEN_ALLOW_VALUES.includes('none'); // true
 * ```
 */
export const ACCESS_TOKEN_ALLOW_VALUES = ['all-users-create', 'site-admin-create', 'none'] as const;

/** A value of `auth.accessTokens.allow`. */
export type AccessTokenAllow = (typeof ACCESS_TOKEN_ALLOW_VALUES)[number];

/**
 * The parsed `auth.accessTokens`, every default applied.
 *
 * @example
 * ```ts
 * const options: AccessTokenOptions = { ...DEFAULT_ACCESS_TOKEN_OPTIONS, allow: 'none' };
 * ```
 */
export interface AccessTokenOptions {
  /** Who may create tokens. Default `all-users-create`. */
  readonly allow: AccessTokenAllow;
  /** Whether a token may be created without an expiry. Default `true`. */
  readonly allowNoExpiration: boolean;
  /** The lifetimes (days) offered, ascending, without repeats; the longest is the longest a token may have. Default 7, 14, 30, 60, 90. */
  readonly expirationOptionDays: readonly number[];
  /** The lifetime (days) chosen when the person chooses none; one of `expirationOptionDays`. Default 90. */
  readonly defaultExpirationDays: number;
  /** The most tokens one account may hold, at most {@link MAX_ACCESS_TOKENS_PER_ACCOUNT}. Default that bound (100). */
  readonly maxTokensPerUser: number;
}

/**
 * The defaults of `auth.accessTokens`.
 *
 * @example
 * ```ts
 * DEFAULT_ACCESS_TOKEN_OPTIONS.expirationOptionDays; // [7, 14, 30, 60, 90]
 * ```
 */
export const DEFAULT_ACCESS_TOKEN_OPTIONS: AccessTokenOptions = Object.freeze({
  allow: 'all-users-create',
  allowNoExpiration: true,
  expirationOptionDays: Object.freeze([7, 14, 30, 60, 90]),
  defaultExpirationDays: 90,
  maxTokensPerUser: MAX_ACCESS_TOKENS_PER_ACCOUNT,
});

/**
 * The longest lifetime, in days, `expirationOptionDays` may offer (100 years).
 *
 * @example
 * ```ts
 * MAX_EXPIRATION_OPTION_DAYS; // 36500
 * ```
 */
export const MAX_EXPIRATION_OPTION_DAYS = 36_500;

const DAY_SECONDS = 86_400;

/**
 * One token creation as the option sees it.
 *
 * @example
 * ```ts
 * const input: AccessTokenOptionsInput = { actorSiteAdmin: false, lifetimeSeconds: 7 * 86_400, existingTokenCount: 3 };
 * ```
 */
export interface AccessTokenOptionsInput {
  /** Whether the account asking is a site administrator. */
  readonly actorSiteAdmin: boolean;
  /** The token's lifetime in seconds, or `null` for a token that never expires. */
  readonly lifetimeSeconds: number | null;
  /** How many tokens the token's account holds already. */
  readonly existingTokenCount: number;
}

/**
 * Why the option refuses a creation: nobody may create tokens (`access_tokens_disabled`), only site
 * administrators may (`site_admin_only`), the account holds `maxTokensPerUser` tokens (`token_limit_reached`), the
 * token must expire (`expiration_required`), or it would live longer than the longest offered lifetime
 * (`expiration_too_long`).
 *
 * @example
 * ```ts
 * ACCESS_TOKEN_OPTION_REFUSALS.length; // 5
 * ```
 */
export const ACCESS_TOKEN_OPTION_REFUSALS = [
  'access_tokens_disabled',
  'site_admin_only',
  'token_limit_reached',
  'expiration_required',
  'expiration_too_long',
] as const;

/** One reason of {@link ACCESS_TOKEN_OPTION_REFUSALS}. */
export type AccessTokenOptionRefusal = (typeof ACCESS_TOKEN_OPTION_REFUSALS)[number];

/**
 * The option's decision on one creation; a refusal carries the limit that applies (`maxTokensPerUser`, or the
 * longest lifetime in days).
 *
 * @example
 * ```ts
 * const d: AccessTokenOptionsDecision = { kind: 'refuse', reason: 'token_limit_reached', limit: 10 };
 * ```
 */
export type AccessTokenOptionsDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'refuse'; readonly reason: 'access_tokens_disabled' | 'site_admin_only' | 'expiration_required' }
  | { readonly kind: 'refuse'; readonly reason: 'token_limit_reached'; readonly limit: number }
  | { readonly kind: 'refuse'; readonly reason: 'expiration_too_long'; readonly maxDays: number };

/**
 * A malformed input (a lifetime that is not a positive finite number or `null`, a count that is not a
 * non-negative integer).
 *
 * @example
 * ```ts
 * const e: AccessTokenOptionsError = { code: 'invalid_input', path: 'lifetimeSeconds', expected: 'positive number or null' };
 * ```
 */
export type AccessTokenOptionsError =
  | { readonly code: 'invalid_input'; readonly path: 'lifetimeSeconds'; readonly expected: 'positive number or null' }
  | { readonly code: 'invalid_input'; readonly path: 'existingTokenCount'; readonly expected: 'non-negative integer' }
  | { readonly code: 'invalid_input'; readonly path: 'actorSiteAdmin'; readonly expected: 'boolean' };

/**
 * The longest lifetime a token may have under the options, in days: the longest offered option.
 *
 * @param options - The parsed `auth.accessTokens`.
 * @returns Days.
 *
 * @example
 * ```ts
 * longestTokenLifetimeDays(DEFAULT_ACCESS_TOKEN_OPTIONS); // 90
 * ```
 */
export function longestTokenLifetimeDays(options: AccessTokenOptions): number {
  return options.expirationOptionDays.reduce((most, days) => Math.max(most, days), 0);
}

/**
 * Decides whether `auth.accessTokens` lets a token be created; checked in this order: `allow`, the per-account
 * limit, then the lifetime (`null` needs `allowNoExpiration`; a lifetime may be shorter than an offered option
 * but never longer than the longest). The other rules of token creation (scopes, §2.3) are
 * `authorizeAccessTokenCreation`'s. Never throws.
 *
 * @param options - The parsed `auth.accessTokens`.
 * @param input - The creation.
 * @returns `allow` or `refuse` with the reason, or `invalid_input`.
 *
 * @example
 * ```ts
 * decideAccessTokenOptions({ ...DEFAULT_ACCESS_TOKEN_OPTIONS, allow: 'none' }, { actorSiteAdmin: true, lifetimeSeconds: null, existingTokenCount: 0 });
 * // ok({ kind: 'refuse', reason: 'access_tokens_disabled' })
 * decideAccessTokenOptions(DEFAULT_ACCESS_TOKEN_OPTIONS, { actorSiteAdmin: false, lifetimeSeconds: 365 * 86_400, existingTokenCount: 0 });
 * // ok({ kind: 'refuse', reason: 'expiration_too_long', maxDays: 90 })
 * ```
 */
export function decideAccessTokenOptions(
  options: AccessTokenOptions,
  input: AccessTokenOptionsInput,
): Result<AccessTokenOptionsDecision, AccessTokenOptionsError> {
  // a malformed input is refused field by field, never thrown on
  const { actorSiteAdmin, lifetimeSeconds, existingTokenCount }: Partial<AccessTokenOptionsInput> = typeof input === 'object' && input !== null ? input : {};
  if (typeof actorSiteAdmin !== 'boolean') return err({ code: 'invalid_input', path: 'actorSiteAdmin', expected: 'boolean' });
  if (lifetimeSeconds === undefined || (lifetimeSeconds !== null && (typeof lifetimeSeconds !== 'number' || !Number.isFinite(lifetimeSeconds) || lifetimeSeconds <= 0))) {
    return err({ code: 'invalid_input', path: 'lifetimeSeconds', expected: 'positive number or null' });
  }
  if (typeof existingTokenCount !== 'number' || !Number.isSafeInteger(existingTokenCount) || existingTokenCount < 0) {
    return err({ code: 'invalid_input', path: 'existingTokenCount', expected: 'non-negative integer' });
  }
  const allowed = match(options.allow)
    .returnType<AccessTokenOptionsDecision | null>()
    .with('none', () => ({ kind: 'refuse', reason: 'access_tokens_disabled' }))
    .with('site-admin-create', () => (actorSiteAdmin ? null : { kind: 'refuse', reason: 'site_admin_only' }))
    .with('all-users-create', () => null)
    .exhaustive();
  if (allowed !== null) return ok(allowed);
  if (existingTokenCount >= options.maxTokensPerUser) return ok({ kind: 'refuse', reason: 'token_limit_reached', limit: options.maxTokensPerUser });
  if (lifetimeSeconds === null) return ok(options.allowNoExpiration ? { kind: 'allow' } : { kind: 'refuse', reason: 'expiration_required' });
  const maxDays = longestTokenLifetimeDays(options);
  return ok(lifetimeSeconds <= maxDays * DAY_SECONDS ? { kind: 'allow' } : { kind: 'refuse', reason: 'expiration_too_long', maxDays });
}

/**
 * What the token form offers: each lifetime of `expirationOptionDays`, "never" when `allowNoExpiration`, and the
 * one chosen at first.
 *
 * @param options - The parsed `auth.accessTokens`.
 * @returns The choices, in the order they are shown.
 *
 * @example
 * ```ts
 * accessTokenExpiryChoices(DEFAULT_ACCESS_TOKEN_OPTIONS);
 * // { days: [7, 14, 30, 60, 90], never: true, defaultDays: 90 }
 * ```
 */
export function accessTokenExpiryChoices(options: AccessTokenOptions): {
  readonly days: readonly number[];
  readonly never: boolean;
  readonly defaultDays: number;
} {
  return { days: options.expirationOptionDays, never: options.allowNoExpiration, defaultDays: options.defaultExpirationDays };
}

/**
 * Whether an account may create tokens at all under `allow` (what the pages use to offer the form).
 *
 * @param options - The parsed `auth.accessTokens`.
 * @param actorSiteAdmin - Whether the account is a site administrator.
 * @returns `true` when `allow` lets this account create tokens.
 *
 * @example
 * ```ts
 * mayCreateAccessTokens({ ...DEFAULT_ACCESS_TOKEN_OPTIONS, allow: 'site-admin-create' }, false); // false
 * ```
 */
export function mayCreateAccessTokens(options: AccessTokenOptions, actorSiteAdmin: boolean): boolean {
  return match(options.allow)
    .returnType<boolean>()
    .with('all-users-create', () => true)
    .with('site-admin-create', () => actorSiteAdmin)
    .with('none', () => false)
    .exhaustive();
}
