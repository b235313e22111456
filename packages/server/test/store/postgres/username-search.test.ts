/**
 * The patterns of the username substring search on PostgreSQL: the longest whole word first (its own trigram index
 * key), then the whole query, each escaped for `LIKE … ESCAPE '\'`; a username matches them all exactly when it
 * holds the query.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeLiteral, usernameSubstringPatterns, wholeWordOf } from '../../../src/store/postgres/username-search.js';

/** What `LIKE pattern ESCAPE '\'` says of `text`, for the `%literal%` patterns the search writes. */
function likeHolds(text: string, pattern: string): boolean {
  expect(pattern.startsWith('%') && pattern.endsWith('%')).toBe(true);
  const literal = pattern.slice(1, -1).replace(/\\(.)/gu, '$1');
  return text.includes(literal);
}

/** An independent oracle: every letter-and-digit run with a non-word character on each side, the first longest. */
function longestWholeWord(key: string): string | null {
  let best: { readonly length: number; readonly piece: string } | null = null;
  for (const m of key.matchAll(/(?<=([^\p{L}\p{N}]))([\p{L}\p{N}]+)(?=([^\p{L}\p{N}]))/gu)) {
    const length = [...(m[2] ?? '')].length;
    if (best === null || length > best.length) best = { length, piece: `${m[1] ?? ''}${m[2] ?? ''}${m[3] ?? ''}` };
  }
  return best?.piece ?? null;
}

const keyArbitrary = fc.string({ unit: fc.constantFrom('a', 'b', '5', 'é', '-', '.', '_', '%', '\\', ' '), maxLength: 14 });

describe('username search patterns', () => {
  it.each([
    ['member-555-', ['%-555-%', '%member-555-%']],
    ['member-555', ['%member-555%']],
    ['alice', ['%alice%']],
    ['-555-', ['%-555-%']],
    ['a-bb-ccc-d', ['%-ccc-%', '%a-bb-ccc-d%']],
    ['a-bb-cc-d', ['%-bb-%', '%a-bb-cc-d%']],
    ['x_ann_l', ['%\\_ann\\_%', '%x\\_ann\\_l%']],
    ['50%-off', ['%50\\%-off%']],
    ['a.é-b', ['%.é-%', '%a.é-b%']],
  ] as const)('should search %j with the patterns %j', (key, patterns) => {
    expect(usernameSubstringPatterns(key)).toStrictEqual(patterns);
  });

  it('should escape the wildcards and the escape character', () => {
    expect(likeLiteral('50%_off\\')).toBe('50\\%\\_off\\\\');
  });

  it('should pick the longest whole word as the independent oracle does', () => {
    fc.assert(
      fc.property(keyArbitrary, (key) => {
        expect(wholeWordOf(key)).toBe(longestWholeWord(key));
      }),
    );
  });

  it('should end with the whole query, and match a username exactly when it holds the query', () => {
    fc.assert(
      fc.property(keyArbitrary, fc.array(keyArbitrary, { maxLength: 8 }), (key, others) => {
        const patterns = usernameSubstringPatterns(key);
        expect(patterns.at(-1)).toBe(`%${likeLiteral(key)}%`);
        expect(patterns.length).toBeLessThanOrEqual(2);
        // every pattern is a part of the query, so the conjunction is the query's own test
        for (const text of [key, ...others, ...others.map((o) => `${o}${key}${o}`)]) {
          expect(patterns.every((p) => likeHolds(text, p))).toBe(text.includes(key));
        }
      }),
    );
  });
});
