/**
 * Comparison of secrets (digests, tokens) whose running time does not depend on their content.
 *
 * @internal
 * @module
 */

/**
 * Whether `a` and `b` hold the same characters (two strings) or the same bytes (two `Uint8Array`s),
 * in time that depends only on the longer length: every position is visited and differences are
 * OR-ed together, with no early exit. A length difference is folded into the result rather than
 * returned early. Two values of different kinds (or anything that is neither a string nor a
 * `Uint8Array`, at run time) are never equal.
 *
 * @param a - A string or bytes.
 * @param b - A string or bytes.
 * @returns For strings, exactly `a === b`; for bytes, element-wise equality.
 * @internal
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    const n = Math.max(a.length, b.length);
    let diff = a.length ^ b.length;
    // charCodeAt past the end is NaN, which a bitwise operator reads as 0; the length term above
    // already records the mismatch.
    for (let i = 0; i < n; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return diff === 0;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.max(a.length, b.length);
    let diff = a.length ^ b.length;
    for (let i = 0; i < n; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
    return diff === 0;
  }
  return false;
}
