import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countLiteralMatches } from '../../src/api/search.js';

describe('countLiteralMatches (spec §2.2 search results.matchCount)', () => {
  it.each([
    { ref: 'non-overlapping', input: ['aaaa', 'aa'], expected: 2 },
    { ref: 'none', input: ['abc', 'x'], expected: 0 },
    { ref: 'empty needle matches nothing', input: ['abc', ''], expected: 0 },
    { ref: 'case-sensitive', input: ['Aa aa', 'aa'], expected: 1 },
  ])('$ref', ({ input, expected }) => {
    expect(countLiteralMatches(input[0] ?? '', input[1] ?? '')).toBe(expected);
  });

  test.prop([fc.array(fc.string({ maxLength: 5 }), { maxLength: 8 }), fc.constantFrom('#', '§§')])(
    'should count a separator that the pieces do not contain exactly once per join',
    (pieces, needle) => {
      const clean = pieces.map((p) => p.replaceAll('#', '').replaceAll('§', ''));
      expect(countLiteralMatches(clean.join(needle), needle)).toBe(Math.max(0, clean.length - 1));
    },
  );
});
