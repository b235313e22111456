/**
 * A decision over two booleans, evaluated once for each of its four inputs, so that a check on every request reads
 * the answer instead of matching again. The decision stays the one place the policy is written (an exhaustive
 * ts-pattern match); the table only remembers what it said.
 *
 * @module
 */

/**
 * Evaluates `decide` for the four pairs of booleans now and returns a lookup of those answers. The answers are
 * shared by every caller, so they are frozen (an object answer is frozen one level deep).
 *
 * @param decide - The decision; pure.
 * @returns A function with the same answers as `decide`.
 *
 * @example
 * ```ts
 * const both = booleanTable((a, b) => a && b);
 * both(true, false); // false
 * ```
 */
export function booleanTable<R>(decide: (a: boolean, b: boolean) => R): (a: boolean, b: boolean) => Readonly<R> {
  const ff = frozen(decide(false, false));
  const ft = frozen(decide(false, true));
  const tf = frozen(decide(true, false));
  const tt = frozen(decide(true, true));
  return (a, b) => (a ? (b ? tt : tf) : b ? ft : ff);
}

function frozen<R>(value: R): R {
  return typeof value === 'object' && value !== null ? Object.freeze(value) : value;
}
