/**
 * Bounded length checks on strings, counted in characters (Unicode code points) as people count them.
 *
 * @module
 */

/**
 * Whether `text` has more than `max` Unicode code points. Stops counting past `max`, so a huge string costs
 * no more than a short one.
 *
 * @param text - The string.
 * @param max - The most code points allowed.
 * @returns `true` when `text` is longer than `max` characters.
 * @example
 * ```ts
 * longerThan('😀😀', 2); // false (4 UTF-16 units, 2 characters)
 * longerThan('abc', 2);  // true
 * ```
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (const _ of text) {
    count++;
    if (count > max) return true;
  }
  return false;
}
