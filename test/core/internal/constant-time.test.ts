import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from '../../../src/core/internal/constant-time.js';

const similarStrings = fc.oneof(
  fc.tuple(fc.string(), fc.string()),
  fc.string().map((s) => [s, s] as const),
  fc.tuple(fc.string(), fc.string(), fc.string()).map(([p, x, y]) => [p + x, p + y] as const),
  fc.string().map((s) => [s, s + '\u0000'] as const),
);

describe('constantTimeEqual', () => {
  it.each([
    { a: 'abc', b: 'abc', expected: true },
    { a: 'abc', b: 'abd', expected: false },
    { a: 'abc', b: 'xbc', expected: false },
    { a: 'abc', b: 'abc\u0000', expected: false },
    { a: 'abc\u0000', b: 'abc', expected: false },
    { a: '', b: '\u0000', expected: false },
    { a: '', b: '', expected: true },
  ])('should compare $a and $b', ({ a, b, expected }) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
  });

  it.each([
    { ref: 'differ at the first position', a: 'x'.repeat(64), b: 'y' + 'x'.repeat(63) },
    { ref: 'differ at the last position', a: 'x'.repeat(64), b: 'x'.repeat(63) + 'y' },
    { ref: 'equal', a: 'x'.repeat(64), b: 'x'.repeat(64) },
    { ref: 'shorter first argument', a: 'x', b: 'x'.repeat(64) },
    { ref: 'shorter second argument', a: 'y'.repeat(64), b: '' },
  ])('should read every position of the longer string, with no early exit ($ref)', ({ a, b }) => {
    // Count the code-unit reads by wrapping String.prototype.charCodeAt for the duration of one call.
    const original = String.prototype.charCodeAt;
    let reads = 0;
    String.prototype.charCodeAt = function (this: string, index: number): number {
      reads++;
      return original.call(this, index);
    };
    try {
      constantTimeEqual(a, b);
    } finally {
      String.prototype.charCodeAt = original;
    }
    expect(reads).toBe(2 * 64);
  });

  test.prop([similarStrings])('should equal === on strings', ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(a === b);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw, and be false unless both are equal strings', (a, b) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(constantTimeEqual(a, b)).toBe(typeof a === 'string' && a === b);
  });
});
