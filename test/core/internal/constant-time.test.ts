import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from '../../../src/core/internal/constant-time.js';

const similarStrings = fc.oneof(
  fc.tuple(fc.string(), fc.string()),
  fc.string().map((s) => [s, s] as const),
  fc.tuple(fc.string(), fc.string(), fc.string()).map(([p, x, y]) => [p + x, p + y] as const),
  fc.string().map((s) => [s, s + '\u0000'] as const),
);
const similarBytes = fc.oneof(
  fc.tuple(fc.uint8Array({ maxLength: 8 }), fc.uint8Array({ maxLength: 8 })),
  fc.uint8Array().map((b) => [b, Uint8Array.from(b)] as const),
  fc.uint8Array().map((b) => [b, Uint8Array.from([...b, 0])] as const),
);

describe('constantTimeEqual', () => {
  it.each([
    { a: 'abc', b: 'abc', expected: true },
    { a: 'abc', b: 'abd', expected: false },
    { a: 'abc', b: 'abc\u0000', expected: false },
    { a: '', b: '', expected: true },
    { a: new Uint8Array([1, 2]), b: new Uint8Array([1, 2]), expected: true },
    { a: new Uint8Array([1, 2]), b: new Uint8Array([1, 2, 0]), expected: false },
    { a: new Uint8Array([]), b: '', expected: false },
  ])('should compare $a and $b', ({ a, b, expected }) => {
    expect(constantTimeEqual(a, b)).toBe(expected);
  });

  test.prop([similarStrings])('should equal === on strings', ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(a === b);
  });

  test.prop([similarBytes])('should equal element-wise equality on bytes', ([a, b]) => {
    expect(constantTimeEqual(a, b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
  });

  test.prop([fc.anything(), fc.anything()])('should never throw', (a, b) => {
    // @ts-expect-error -- deliberately breaks the static type
    expect(typeof constantTimeEqual(a, b)).toBe('boolean');
  });
});
