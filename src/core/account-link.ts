/**
 * Account links: single-use, expiring links mailed to a person (or copied by a site administrator) that verify an
 * email address, reset a password, let the first administrator set a password, or unlock an account. The server
 * keeps only the SHA-256 digest of a link's random token; this module decides whether a stored link may be used now,
 * reads a token from a URL, and computes expiries. Pure: the clock is passed in.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * What a link does: verify an email address, reset a password, set the first administrator's password, unlock
 * a locked account.
 *
 * @example
 * ```ts
 * ACCOUNT_LINK_PURPOSES; // ['verify_email', 'reset_password', 'first_admin', 'unlock_account']
 * ```
 */
export const ACCOUNT_LINK_PURPOSES = ['verify_email', 'reset_password', 'first_admin', 'unlock_account'] as const;

/** One of {@link ACCOUNT_LINK_PURPOSES}. */
export type AccountLinkPurpose = (typeof ACCOUNT_LINK_PURPOSES)[number];

/**
 * How long an email verification link works: 24 hours.
 *
 * @example
 * ```ts
 * VERIFY_EMAIL_LINK_TTL_SECONDS; // 86_400
 * ```
 */
export const VERIFY_EMAIL_LINK_TTL_SECONDS = 86_400;

/**
 * Random bytes in a link's token (256 bits), written as 43 base64url characters.
 *
 * @example
 * ```ts
 * ACCOUNT_LINK_TOKEN_BYTES; // 32
 * ```
 */
export const ACCOUNT_LINK_TOKEN_BYTES = 32;

const TOKEN = /^[A-Za-z0-9_-]{43}$/u;

/** What the decision reads of a stored link. */
export interface AccountLinkState {
  /** What the link was made for. */
  readonly purpose: AccountLinkPurpose;
  /** When it stops working, milliseconds since the epoch: at this instant it no longer works. */
  readonly expiresAt: number;
  /** When it was used, or `null` while unused. */
  readonly usedAt: number | null;
}

/**
 * Why a link cannot be used: no stored link has its digest (never made, malformed, or superseded by a newer link of
 * the same purpose for the same account), it was used already, it expired, or it was made for something else.
 */
export type AccountLinkRefusalReason = 'unknown_link' | 'link_used' | 'link_expired' | 'wrong_purpose';

/** Whether the link may be used now. */
export type AccountLinkUse = { readonly kind: 'usable' } | { readonly kind: 'refused'; readonly reason: AccountLinkRefusalReason };

/** The decision's input was not a link, a purpose and a time. */
export interface AccountLinkInputError {
  /** Always `invalid_input`. */
  readonly code: 'invalid_input';
  /** Which argument. */
  readonly field: 'link' | 'purpose' | 'now' | 'ttlSeconds';
}

const isPurpose = (value: unknown): value is AccountLinkPurpose => ACCOUNT_LINK_PURPOSES.some((p) => p === value);
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Decides whether a stored link may be used for `purpose` at `now`. The order of the checks is the answer's: no link
 * (`unknown_link`); a link of another purpose (`wrong_purpose`, which says nothing about its state); used
 * (`link_used`); `now` at or after `expiresAt` (`link_expired`); else usable.
 *
 * @param link - The stored link, or `null` when none has the token's digest.
 * @param purpose - What the page following the link does.
 * @param now - The time, milliseconds since the epoch.
 * @returns `ok` with the decision, or `err` when an argument is not of its type. Never throws.
 *
 * @example
 * ```ts
 * decideAccountLinkUse({ purpose: 'verify_email', expiresAt: 2_000, usedAt: null }, 'verify_email', 1_000); // ok({ kind: 'usable' })
 * decideAccountLinkUse({ purpose: 'verify_email', expiresAt: 2_000, usedAt: null }, 'verify_email', 2_000); // ok({ kind: 'refused', reason: 'link_expired' })
 * decideAccountLinkUse(null, 'reset_password', 0); // ok({ kind: 'refused', reason: 'unknown_link' })
 * ```
 */
export function decideAccountLinkUse(link: AccountLinkState | null, purpose: AccountLinkPurpose, now: number): Result<AccountLinkUse, AccountLinkInputError> {
  if (!isPurpose(purpose)) return err({ code: 'invalid_input', field: 'purpose' });
  if (!isTime(now)) return err({ code: 'invalid_input', field: 'now' });
  if (link === null) return ok({ kind: 'refused', reason: 'unknown_link' });
  if (typeof link !== 'object' || !isPurpose(link.purpose) || !isTime(link.expiresAt) || !(link.usedAt === null || isTime(link.usedAt))) {
    return err({ code: 'invalid_input', field: 'link' });
  }
  const state = link.purpose !== purpose ? 'wrong_purpose' : link.usedAt !== null ? 'used' : now >= link.expiresAt ? 'expired' : 'live';
  return ok(
    match(state)
      .returnType<AccountLinkUse>()
      .with('wrong_purpose', () => ({ kind: 'refused', reason: 'wrong_purpose' }))
      .with('used', () => ({ kind: 'refused', reason: 'link_used' }))
      .with('expired', () => ({ kind: 'refused', reason: 'link_expired' }))
      .with('live', () => ({ kind: 'usable' }))
      .exhaustive(),
  );
}

/**
 * When a link made at `now` stops working.
 *
 * @param now - The time it is made, milliseconds since the epoch.
 * @param ttlSeconds - How long it works, in seconds (more than 0).
 * @returns `ok(now + ttlSeconds * 1000)`, or `err` when either is not a finite number or the lifetime is not positive.
 *
 * @example
 * ```ts
 * accountLinkExpiry(0, VERIFY_EMAIL_LINK_TTL_SECONDS); // ok(86_400_000)
 * ```
 */
export function accountLinkExpiry(now: number, ttlSeconds: number): Result<number, AccountLinkInputError> {
  if (!isTime(now)) return err({ code: 'invalid_input', field: 'now' });
  if (!isTime(ttlSeconds) || ttlSeconds <= 0) return err({ code: 'invalid_input', field: 'ttlSeconds' });
  return ok(now + ttlSeconds * 1000);
}

/**
 * Whether `text` has the shape of a link token (43 base64url characters): anything else is refused as
 * `unknown_link` without a store lookup.
 *
 * @param text - The token as it came in the URL or form.
 * @returns `true` for a well-formed token.
 *
 * @example
 * ```ts
 * isAccountLinkToken('A'.repeat(43)); // true
 * isAccountLinkToken('A'.repeat(42)); // false
 * ```
 */
export function isAccountLinkToken(text: unknown): text is string {
  return typeof text === 'string' && TOKEN.test(text);
}
