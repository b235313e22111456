import { fc, test } from '@fast-check/vitest';
import { parse } from 'graphql';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { analyzeQueryCost, checkQueryCost } from '../../../src/core/query-cost/analyze.js';
import { DEFAULT_QUERY_LIMITS, queryLimitsFromRateLimits, RATE_LIMIT_KEYS } from '../../../src/core/query-cost/limits.js';
import type { QueryLimits, RateLimitKey, RateLimitsError } from '../../../src/core/query-cost/limits.js';

const MAX = Number.MAX_SAFE_INTEGER;
const limits = (overrides: Partial<QueryLimits>): QueryLimits => ({ ...DEFAULT_QUERY_LIMITS, ...overrides });

/** Problems without their human sentence: tests assert codes and keys, never messages. */
type Stripped = Result<QueryLimits, { readonly code: 'invalid_rate_limits'; readonly problems: readonly Record<string, unknown>[] }>;
function strip(result: Result<QueryLimits, RateLimitsError>): Stripped {
  return result.mapErr((e) => ({
    code: e.code,
    problems: e.problems.map((p) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'message'))),
  }));
}
const problems = (...list: readonly Record<string, unknown>[]): Stripped => err({ code: 'invalid_rate_limits', problems: list });
const notPositive = (key: RateLimitKey, value: unknown) => ({ code: 'not_a_positive_integer', key, value });

describe('DEFAULT_QUERY_LIMITS', () => {
  it('should hold the defaults of §8 rows 1–5', () => {
    expect(DEFAULT_QUERY_LIMITS).toStrictEqual({ maxDepth: 30, maxFieldCount: 500_000, maxAliases: 500, maxDuplicateFieldCount: 500, maxUniqueFieldCount: 500 });
    expect(Object.isFrozen(DEFAULT_QUERY_LIMITS)).toBe(true);
  });
});

describe('queryLimitsFromRateLimits', () => {
  it.each([
    { ref: '§8 rows 1–5 defaults: absent rateLimits gives the defaults', input: undefined, expected: ok(DEFAULT_QUERY_LIMITS) },
    { ref: '§8 rows 1–5 defaults: an empty object gives the defaults', input: {}, expected: ok(DEFAULT_QUERY_LIMITS) },
    { ref: '§8 note (rateLimits as shown by default holds rows 1–3)', input: { graphQLMaxDepth: 30, graphQLMaxFieldCount: 500000, graphQLMaxAliases: 500 }, expected: ok(DEFAULT_QUERY_LIMITS) },
    { ref: 'defect: positive configured limits ignored (§8 row 1 graphQLMaxDepth: 12 replaces 30)', input: { graphQLMaxDepth: 12 }, expected: ok(limits({ maxDepth: 12 })) },
    { ref: 'defect: positive configured limits ignored (§8 row 3 graphQLMaxAliases: 1 is kept)', input: { graphQLMaxAliases: 1 }, expected: ok(limits({ maxAliases: 1 })) },
    { ref: '§8 row 2 graphQLMaxFieldCount', input: { graphQLMaxFieldCount: 10 }, expected: ok(limits({ maxFieldCount: 10 })) },
    { ref: '§8 row 2 graphQLMaxFieldCount: the largest safe integer', input: { graphQLMaxFieldCount: MAX }, expected: ok(limits({ maxFieldCount: MAX })) },
    { ref: '§8 row 4 GraphqlMaxDuplicateFieldCount as printed', input: { GraphqlMaxDuplicateFieldCount: 7 }, expected: ok(limits({ maxDuplicateFieldCount: 7 })) },
    { ref: '§8 note (placement not shown), §8 row 4 GraphqlMaxDuplicateFieldCount: the graphQLMaxDuplicateFieldCount spelling', input: { graphQLMaxDuplicateFieldCount: 8 }, expected: ok(limits({ maxDuplicateFieldCount: 8 })) },
    { ref: '§8 row 5 GraphqlMaxUniqueFieldCount as printed', input: { GraphqlMaxUniqueFieldCount: 9 }, expected: ok(limits({ maxUniqueFieldCount: 9 })) },
    { ref: '§8 note (placement not shown), §8 row 5 GraphqlMaxUniqueFieldCount: the graphQLMaxUniqueFieldCount spelling', input: { graphQLMaxUniqueFieldCount: 10 }, expected: ok(limits({ maxUniqueFieldCount: 10 })) },
    { ref: '§8 row 5 GraphqlMaxUniqueFieldCount, both spellings with one value', input: { GraphqlMaxUniqueFieldCount: 11, graphQLMaxUniqueFieldCount: 11 }, expected: ok(limits({ maxUniqueFieldCount: 11 })) },
    { ref: 'an own key holding undefined counts as omitted', input: { graphQLMaxDepth: undefined }, expected: ok(DEFAULT_QUERY_LIMITS) },
    {
      ref: '§8 rows 1–5: all five settings',
      input: { graphQLMaxDepth: 1, graphQLMaxFieldCount: 2, graphQLMaxAliases: 3, GraphqlMaxDuplicateFieldCount: 4, graphQLMaxUniqueFieldCount: 5 },
      expected: ok({ maxDepth: 1, maxFieldCount: 2, maxAliases: 3, maxDuplicateFieldCount: 4, maxUniqueFieldCount: 5 }),
    },
  ])('should follow $ref', ({ input, expected }) => {
    expect(queryLimitsFromRateLimits(input)).toStrictEqual(expected);
  });

  it.each([
    { ref: '§8 row 1 graphQLMaxDepth, 0 is an error', input: { graphQLMaxDepth: 0 }, expected: problems(notPositive('graphQLMaxDepth', 0)) },
    { ref: '§8 row 3 graphQLMaxAliases, a negative number is an error', input: { graphQLMaxAliases: -1 }, expected: problems(notPositive('graphQLMaxAliases', -1)) },
    { ref: '§8 row 2 graphQLMaxFieldCount, a fraction is an error', input: { graphQLMaxFieldCount: 1.5 }, expected: problems(notPositive('graphQLMaxFieldCount', 1.5)) },
    { ref: '§8 row 1 graphQLMaxDepth, a string is an error', input: { graphQLMaxDepth: '30' }, expected: problems(notPositive('graphQLMaxDepth', '30')) },
    { ref: 'null is an error', input: { graphQLMaxDepth: null }, expected: problems(notPositive('graphQLMaxDepth', null)) },
    { ref: 'a boolean is an error', input: { graphQLMaxDepth: true }, expected: problems(notPositive('graphQLMaxDepth', true)) },
    { ref: 'NaN is an error', input: { graphQLMaxDepth: Number.NaN }, expected: problems(notPositive('graphQLMaxDepth', Number.NaN)) },
    { ref: 'Infinity is an error', input: { graphQLMaxDepth: Infinity }, expected: problems(notPositive('graphQLMaxDepth', Infinity)) },
    { ref: 'beyond the safe integers is an error', input: { graphQLMaxFieldCount: MAX + 1 }, expected: problems(notPositive('graphQLMaxFieldCount', MAX + 1)) },
    { ref: 'an object is an error', input: { GraphqlMaxUniqueFieldCount: { value: 3 } }, expected: problems(notPositive('GraphqlMaxUniqueFieldCount', { value: 3 })) },
    {
      ref: '§8 row 4 GraphqlMaxDuplicateFieldCount, both spellings with different values',
      input: { GraphqlMaxDuplicateFieldCount: 5, graphQLMaxDuplicateFieldCount: 6 },
      expected: problems({ code: 'conflicting_keys', key: 'graphQLMaxDuplicateFieldCount', otherKey: 'GraphqlMaxDuplicateFieldCount', value: 6, otherValue: 5 }),
    },
    {
      ref: '§8 row 5 GraphqlMaxUniqueFieldCount, both spellings, one invalid: only the invalid one is reported',
      input: { GraphqlMaxUniqueFieldCount: 5, graphQLMaxUniqueFieldCount: 0 },
      expected: problems(notPositive('graphQLMaxUniqueFieldCount', 0)),
    },
    { ref: 'unknown keys are errors', input: { graphQLMaxDeph: 3 }, expected: problems({ code: 'unknown_key', key: 'graphQLMaxDeph' }) },
    { ref: 'keys are case-sensitive', input: { graphqlmaxdepth: 3 }, expected: problems({ code: 'unknown_key', key: 'graphqlmaxdepth' }) },
    {
      ref: 'every problem is reported, in key order',
      input: { graphQLMaxDepth: 0, extra: 1, graphQLMaxAliases: 'many', graphQLMaxFieldCount: 5, GraphqlMaxUniqueFieldCount: 1, graphQLMaxUniqueFieldCount: 2 },
      expected: problems(
        notPositive('graphQLMaxDepth', 0),
        { code: 'unknown_key', key: 'extra' },
        notPositive('graphQLMaxAliases', 'many'),
        { code: 'conflicting_keys', key: 'graphQLMaxUniqueFieldCount', otherKey: 'GraphqlMaxUniqueFieldCount', value: 2, otherValue: 1 },
      ),
    },
    { ref: 'rateLimits null is not an object', input: null, expected: problems({ code: 'not_an_object', key: null, value: null }) },
    { ref: 'rateLimits array is not an object', input: [30], expected: problems({ code: 'not_an_object', key: null, value: [30] }) },
    { ref: 'rateLimits string is not an object', input: 'graphQLMaxDepth', expected: problems({ code: 'not_an_object', key: null, value: 'graphQLMaxDepth' }) },
    { ref: 'rateLimits number is not an object', input: 30, expected: problems({ code: 'not_an_object', key: null, value: 30 }) },
  ])('should report $ref', ({ input, expected }) => {
    expect(strip(queryLimitsFromRateLimits(input))).toStrictEqual(expected);
  });

  it('should give every problem a sentence that names the key', () => {
    const result = queryLimitsFromRateLimits({ graphQLMaxDepth: 0, graphQLMaxDeph: 1, GraphqlMaxUniqueFieldCount: 1, graphQLMaxUniqueFieldCount: 2, graphQLMaxAliases: '10' });
    for (const p of result._unsafeUnwrapErr().problems) {
      expect(p.message).toMatch(/^rateLimits.*[.?]$/);
      expect(p.message).toContain(String(p.key));
    }
  });

  it.each([
    { ref: 'unknown keys: a key that differs only in case', input: 'graphqlMaxDepth', expected: '"graphQLMaxDepth"' },
    { ref: 'unknown keys: a typo (edit distance 1)', input: 'graphQLMaxDeph', expected: '"graphQLMaxDepth"' },
    { ref: 'unknown keys: a typo (edit distance 2)', input: 'graphQLMaxAlaises', expected: '"graphQLMaxAliases"' },
    { ref: 'unknown keys: the case-insensitive match wins over the other spelling', input: 'GraphQLMaxUniqueFieldCount', expected: '"graphQLMaxUniqueFieldCount"' },
    { ref: 'unknown keys: nothing close lists every setting', input: 'maxDepth', expected: 'The settings are graphQLMaxDepth, ' },
  ])('should suggest a setting for $ref', ({ input, expected }) => {
    const [problem] = queryLimitsFromRateLimits({ [input]: 3 })._unsafeUnwrapErr().problems;
    expect(problem?.message).toContain(expected);
  });

  it('should apply a configured depth limit end to end (defect: positive configured limits ignored, §8 row 1 graphQLMaxDepth)', () => {
    // Arrange
    const configured = queryLimitsFromRateLimits({ graphQLMaxDepth: 2 })._unsafeUnwrap();
    // Act
    const checked = checkQueryCost(analyzeQueryCost(parse('{ a { b { c } } }'))._unsafeUnwrap(), configured);
    // Assert
    expect(checked._unsafeUnwrapErr().exceeded.map((e) => [e.setting, e.limit, e.actual])).toStrictEqual([['maxDepth', 2, 3]]);
  });

  test.prop([fc.anything()])('should never throw on any value', (value) => {
    expect(() => queryLimitsFromRateLimits(value)).not.toThrow();
  });

  // Model: each known key absent, valid or invalid, plus unknown keys; the oracle below is written independently.
  const invalidValue = fc.oneof(
    fc.constantFrom(0, -1, 1.5, Number.NaN, Infinity, MAX + 1, null, true, '12', [], {}),
    fc.integer({ max: 0 }),
    fc.string(),
  );
  const entry = fc.oneof(
    fc.constant({ kind: 'absent' as const }),
    fc.integer({ min: 1, max: MAX }).map((value) => ({ kind: 'valid' as const, value })),
    invalidValue.map((value) => ({ kind: 'invalid' as const, value })),
  );
  const SETTING: Readonly<Record<RateLimitKey, keyof QueryLimits>> = {
    graphQLMaxDepth: 'maxDepth',
    graphQLMaxFieldCount: 'maxFieldCount',
    graphQLMaxAliases: 'maxAliases',
    GraphqlMaxDuplicateFieldCount: 'maxDuplicateFieldCount',
    graphQLMaxDuplicateFieldCount: 'maxDuplicateFieldCount',
    GraphqlMaxUniqueFieldCount: 'maxUniqueFieldCount',
    graphQLMaxUniqueFieldCount: 'maxUniqueFieldCount',
  };
  test.prop([fc.tuple(...RATE_LIMIT_KEYS.map(() => entry)), fc.uniqueArray(fc.string().map((s) => `x${s}`), { maxLength: 2 })])(
    'should equal the model for every mix of absent, valid, invalid and unknown keys',
    (entries, unknown) => {
      // Arrange
      const input: Record<string, unknown> = {};
      const expectedProblems: Record<string, unknown>[] = [];
      const values = new Map<RateLimitKey, number>();
      RATE_LIMIT_KEYS.forEach((key, i) => {
        const e = entries[i];
        if (e === undefined || e.kind === 'absent') return;
        input[key] = e.value;
        if (e.kind === 'valid') values.set(key, e.value);
        else expectedProblems.push({ code: 'not_a_positive_integer', key, value: e.value });
      });
      for (const key of unknown) {
        input[key] = 1;
        expectedProblems.push({ code: 'unknown_key', key });
      }
      for (const [a, b] of [['GraphqlMaxDuplicateFieldCount', 'graphQLMaxDuplicateFieldCount'], ['GraphqlMaxUniqueFieldCount', 'graphQLMaxUniqueFieldCount']] as const) {
        const va = values.get(a);
        const vb = values.get(b);
        if (va !== undefined && vb !== undefined && va !== vb) expectedProblems.push({ code: 'conflicting_keys', key: b, otherKey: a, value: vb, otherValue: va });
      }
      const expectedLimits: Record<string, number> = { ...DEFAULT_QUERY_LIMITS };
      for (const [key, value] of values) expectedLimits[SETTING[key]] = value;
      // Act / Assert
      expect(strip(queryLimitsFromRateLimits(input))).toStrictEqual(
        expectedProblems.length === 0 ? ok(expectedLimits) : problems(...expectedProblems),
      );
    },
  );
});
