/**
 * Comparison of secrets (digests, tokens) whose running time does not depend on their content.
 *
 * @internal
 * @module
 */

/**
 * Whether `a` and `b` are the same string, in time that depends only on the longer length: every
 * position is visited and the differences of the UTF-16 code units are OR-ed together, with no
 * early exit. A length difference is folded into the result rather than returned early. Anything
 * that is not a string at run time is never equal.
 *
 * @param a - A string, such as a stored digest.
 * @param b - Another string, such as the digest of a presented secret.
 * @returns Exactly `a === b` for two strings; `false` otherwise.
 * @example
 * ```ts
 * constantTimeEqual('ba78', 'ba78'); // true
 * constantTimeEqual('ba78', 'ba7');  // false, after visiting all four positions
 * ```
 * @internal
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const rawA: unknown = a;
  const rawB: unknown = b;
  if (typeof rawA !== 'string' || typeof rawB !== 'string') return false;
  const n = Math.max(rawA.length, rawB.length);
  // Two different lengths always leave a non-zero bit here.
  let diff = rawA.length ^ rawB.length;
  // charCodeAt past the end is NaN, which a bitwise operator reads as 0; the length term above
  // already records the mismatch.
  for (let i = 0; i < n; i++) diff |= rawA.charCodeAt(i) ^ rawB.charCodeAt(i);
  return diff === 0;
}
