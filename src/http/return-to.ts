/**
 * Where a browser goes after signing in: only a path on this site, never another origin (an open redirect).
 *
 * @module
 */

/** Where a browser goes when it names nowhere safe. */
const DEFAULT_RETURN_TO = '/debug/console';

/**
 * The `returnTo` of a sign-in form or link when it is a path on this site; otherwise the console.
 *
 * @param value - The `returnTo` the request carries.
 * @returns A path starting with one `/`, printable ASCII only.
 *
 * @example
 * ```ts
 * safeReturnTo('//evil.example/'); // '/debug/console'
 * ```
 */
export function safeReturnTo(value: string | undefined | null): string {
  if (value === undefined || value === null) return DEFAULT_RETURN_TO;
  // only printable ASCII: a browser sends paths percent-encoded, and Node refuses other characters in `Location`
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[^\u0020-\u007e]/.test(value)) {
    return DEFAULT_RETURN_TO;
  }
  return value;
}
