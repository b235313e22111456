/**
 * When a stored credential stops working (spec §2.3 access tokens, browser sessions): at its expiry time, not
 * after it. A credential without an expiry time never expires.
 *
 * @module
 */

/**
 * Whether a credential has expired at `now`.
 *
 * @param expiresAt - Its expiry time in milliseconds since the epoch, or `null` for none.
 * @param now - The time of the request, milliseconds since the epoch.
 * @returns `true` at and after `expiresAt`.
 *
 * @example
 * ```ts
 * isExpired(1_000, 1_000); // true
 * isExpired(null, 1_000); // false
 * ```
 */
export function isExpired(expiresAt: number | null, now: number): boolean {
  return expiresAt !== null && expiresAt <= now;
}
