/**
 * Where a browser may be sent after signing in: a path on this site only, never another origin (an open redirect
 * would let a link to this site forward a freshly signed-in person anywhere).
 *
 * @module
 */

/** The longest `returnTo` kept; a longer one is replaced by the fallback. */
export const MAX_RETURN_TO_LENGTH = 2048;

/**
 * Keeps `value` when it is a path on this site, else returns `fallback`. A path on this site starts with one `/`
 * (not `//` or `/\`, which browsers read as another host), holds no backslash anywhere (browsers read `\` as
 * `/`), only printable ASCII (a browser sends paths percent-encoded, and a `Location` header carries nothing
 * else), and is at most {@link MAX_RETURN_TO_LENGTH} characters long.
 *
 * @param value - The requested return path (a query parameter or form field), or `null`/`undefined` when absent.
 * @param fallback - Where to go instead (a path on this site).
 * @returns `value` or `fallback`.
 * @example
 * ```ts
 * safeReturnTo('/search?q=x', '/'); // '/search?q=x'
 * safeReturnTo('//evil.example/', '/'); // '/'
 * safeReturnTo(null, '/debug/console'); // '/debug/console'
 * ```
 */
export function safeReturnTo(value: string | null | undefined, fallback: string): string {
  if (value === null || value === undefined) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || value.length > MAX_RETURN_TO_LENGTH) return fallback;
  return /[^\u0020-\u007e]|\\/.test(value) ? fallback : value;
}
