import { test } from '@fast-check/vitest';
import { buildSchema, parse, print, specifiedRules, validate } from 'graphql';
import { analyzeQueryCost, checkQueryCost } from '../../../src/core/query-cost/analyze.js';
import type { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { queryCostRule } from '../../../src/core/query-cost/rule.js';
import type { QueryCostRuleOptions } from '../../../src/core/query-cost/rule.js';
import { DEFAULT_QUERY_LIMITS, queryLimitsFromRateLimits } from '../../../src/core/query-cost/limits.js';
import type { QueryLimits } from '../../../src/core/query-cost/limits.js';
import { anyDocument } from '../../arbitraries/graphql.js';

const schema = buildSchema(`
  type Query {
    currentUser: User
    users(first: Int, last: Int): [User!]!
    search(query: String!): SearchResults
  }
  type User {
    id: ID!
    username: String!
    friends(first: Int, last: Int): [User!]!
  }
  type SearchResults { matchCount: Int! }
`);

/** What a client sees of each error: its message and extensions. */
const seen = (errors: readonly GraphQLError[]) => errors.map((e) => ({ message: e.message, extensions: e.extensions }));
const run = (query: string, limits?: QueryLimits, options?: QueryCostRuleOptions) =>
  seen(validate(schema, parse(query), [queryCostRule(limits, options)]));
const limits = (overrides: Partial<QueryLimits>): QueryLimits => ({ ...DEFAULT_QUERY_LIMITS, ...overrides });
const exceeded = (_setting: keyof QueryLimits, limit: number, actual: number, message: string) => ({
  message,
  extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit, actual },
});
const failed = (reason: string) => ({ message: expect.stringMatching(/^Query cost cannot be measured: /), extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason } });

describe('queryCostRule', () => {
  it.each([
    { ref: '§2.2 currentUser { username } is within the defaults', input: { query: '{ currentUser { username } }' }, expected: [] },
    {
      ref: '§8 row 1 graphQLMaxDepth, rule: depth over a configured limit',
      input: { query: '{ currentUser { friends { username } } }', limits: limits({ maxDepth: 2 }) },
      expected: [exceeded('maxDepth', 2, 3, 'Query exceeds maximum query depth limit')],
    },
    {
      ref: '§8 rows 1–5, rule: every exceeded limit, in the issue order',
      input: { query: '{ a: currentUser { id } b: currentUser { id } }', limits: { maxDepth: 1, maxFieldCount: 3, maxAliases: 1, maxDuplicateFieldCount: 1, maxUniqueFieldCount: 1 } },
      expected: [
        exceeded('maxAliases', 1, 2, 'Query exceeds maximum alias count limit'),
        exceeded('maxFieldCount', 3, 4, 'Query exceeds maximum field count limit'),
        exceeded('maxDepth', 1, 2, 'Query exceeds maximum query depth limit'),
        exceeded('maxDuplicateFieldCount', 1, 2, 'Query exceeds maximum duplicate field count limit'),
        exceeded('maxUniqueFieldCount', 1, 2, 'Query exceeds maximum unique field count limit'),
      ],
    },
    {
      ref: '§8 row 2 graphQLMaxFieldCount, rule: pagination counts toward maxFieldCount',
      input: { query: '{ users(first: 100) { friends(first: 100) { id } } }', limits: limits({ maxFieldCount: 10_000 }) },
      expected: [exceeded('maxFieldCount', 10_000, 10_101, 'Query exceeds maximum field count limit')],
    },
    {
      ref: 'defect: cyclic or duplicated fragment looped (a cycle is reported, not let through)',
      input: { query: '{ ...A } fragment A on Query { currentUser { ...B } } fragment B on User { friends { ...A } }' },
      expected: [failed('fragment_cycle')],
    },
    { ref: 'defect: failed estimate ran unlimited (an unknown fragment is reported)', input: { query: '{ ...Missing }' }, expected: [failed('unknown_fragment')] },
    {
      ref: 'defect: named fragments added no depth (§8 row 1 graphQLMaxDepth, in the rule)',
      input: { query: '{ currentUser { ...F } } fragment F on User { friends { username } }', limits: limits({ maxDepth: 2 }) },
      expected: [exceeded('maxDepth', 2, 3, 'Query exceeds maximum query depth limit')],
    },
    {
      ref: 'rule: every operation is checked when validate() has no operationName',
      input: { query: 'query A { currentUser { id } } query B { currentUser { friends { id } } }', limits: limits({ maxDepth: 2 }) },
      expected: [exceeded('maxDepth', 2, 3, 'Query exceeds maximum query depth limit')],
    },
    {
      ref: 'rule: only the named operation with options.operationName',
      input: { query: 'query A { currentUser { id } } query B { currentUser { friends { id } } }', limits: limits({ maxDepth: 2 }), options: { operationName: 'A' } },
      expected: [],
    },
    {
      ref: 'rule: an unknown options.operationName is reported',
      input: { query: 'query A { currentUser { id } }', options: { operationName: 'Z' } },
      expected: [failed('unknown_operation')],
    },
    {
      ref: 'rule: unknown variables do not multiply and are not missing',
      input: { query: 'query($n: Int!) { users(first: $n) { id } }', limits: limits({ maxFieldCount: 2 }) },
      expected: [],
    },
    {
      ref: 'rule: a variable default multiplies',
      input: { query: 'query($n: Int = 50) { users(first: $n) { id } }', limits: limits({ maxFieldCount: 50 }) },
      expected: [exceeded('maxFieldCount', 50, 51, 'Query exceeds maximum field count limit')],
    },
    {
      ref: 'rule: supplied variables multiply',
      input: { query: 'query($n: Int!) { users(first: $n) { id } }', limits: limits({ maxFieldCount: 100 }), options: { variables: { n: 1000 } } },
      expected: [exceeded('maxFieldCount', 100, 1001, 'Query exceeds maximum field count limit')],
    },
    {
      ref: 'defect: failed estimate ran unlimited (a missing non-null variable is reported)',
      input: { query: 'query($n: Int!) { users(first: $n) { id } }', options: { variables: null } },
      expected: [failed('missing_variable')],
    },
    {
      ref: 'defect: failed estimate ran unlimited (a non-integer variable is reported)',
      input: { query: 'query($n: Int) { users(first: $n) { id } }', options: { variables: { n: 'abc' } } },
      expected: [failed('invalid_pagination_argument')],
    },
    {
      ref: 'defect: cyclic or duplicated fragment looped (a duplicated fragment name is reported)',
      input: { query: '{ ...F } fragment F on Query { currentUser { id } } fragment F on Query { currentUser { ...F } }' },
      expected: [failed('duplicate_fragment')],
    },
    {
      ref: 'defect: first leaked into the next sibling (§8 row 2 graphQLMaxFieldCount, in the rule)',
      input: { query: '{ users(first: 100) { id } currentUser { id username } }', limits: limits({ maxFieldCount: 104 }) },
      expected: [],
    },
    {
      ref: 'defect: 64-bit wraparound (§8 row 2 graphQLMaxFieldCount, in the rule)',
      input: { query: '{ users(first: 65536) { friends(first: 65536) { friends(first: 65536) { friends(first: 65536) { id } } } } }' },
      expected: [exceeded('maxFieldCount', 500_000, Number.MAX_SAFE_INTEGER, 'Query exceeds maximum field count limit')],
    },
  ])('should follow $ref', ({ input, expected }) => {
    const { query } = input;
    const l = 'limits' in input ? input.limits : undefined;
    const o = 'options' in input ? input.options : undefined;
    expect(run(query, l, o)).toStrictEqual(expected);
  });

  it('should use DEFAULT_QUERY_LIMITS when none are given (31 levels fail, 30 pass)', () => {
    const nested = (levels: number) => `{ currentUser ${'{ friends '.repeat(levels - 2)}{ id }${' }'.repeat(levels - 2)} }`;
    expect(run(nested(30))).toStrictEqual([]);
    expect(run(nested(31))).toStrictEqual([exceeded('maxDepth', 30, 31, 'Query exceeds maximum query depth limit')]);
  });

  it('should apply limits read from rateLimits (defect: positive configured limits ignored, §8 row 3 graphQLMaxAliases)', () => {
    const configured = queryLimitsFromRateLimits({ graphQLMaxAliases: 1 })._unsafeUnwrap();
    expect(run('{ a: currentUser { id } b: currentUser { id } }', configured)).toStrictEqual([
      exceeded('maxAliases', 1, 2, 'Query exceeds maximum alias count limit'),
    ]);
  });

  it('should sit beside graphql-js specifiedRules, and locate its error on the operation', () => {
    // Arrange
    const document = parse('query Deep {\n  currentUser { friends { friends { id } } }\n}');
    // Act
    const errors = validate(schema, document, [...specifiedRules, queryCostRule(limits({ maxDepth: 3 }))]);
    // Assert
    expect(seen(errors)).toStrictEqual([exceeded('maxDepth', 3, 4, 'Query exceeds maximum query depth limit')]);
    expect(errors[0]?.locations).toStrictEqual([{ line: 1, column: 1 }]);
  });

  test.prop([anyDocument])(
    'should pass exactly the documents analyzeQueryCost measures within the limits (defect: failed estimate ran unlimited)',
    (document) => {
      // Arrange
      const printed = parse(print(document));
      const configured = limits({ maxDepth: 3, maxFieldCount: 20 });
      // Act
      const errors = validate(schema, printed, [queryCostRule(configured)]);
      // Assert
      const within = analyzeQueryCost(printed).andThen((c) => checkQueryCost(c, configured)).isOk();
      expect(errors.length === 0).toBe(within);
    },
  );

  test.prop([anyDocument])('should never throw inside validate() and report each failure with a known code', (document) => {
    const errors = validate(schema, parse(print(document)), [queryCostRule(limits({ maxDepth: 3, maxFieldCount: 20 }))]);
    for (const e of errors) {
      expect(['QUERY_COST_LIMIT_EXCEEDED', 'QUERY_COST_ANALYSIS_FAILED']).toContain(e.extensions['code']);
    }
  });
});

describe('queryCostRule with listFields', () => {
  const listFields = { users: { defaultPageSize: 20, maxPageSize: 100 }, friends: { defaultPageSize: 20, maxPageSize: 100 } };

  it('should count a list without first at its default page (§8: 1 + 20 + 20 × 20 = 421 > 400)', () => {
    expect(run('{ users { friends { id } } }', limits({ maxFieldCount: 400 }), { listFields })).toStrictEqual([
      exceeded('maxFieldCount', 400, 421, 'Query exceeds maximum field count limit'),
    ]);
    expect(run('{ users { friends { id } } }', limits({ maxFieldCount: 400 }))).toStrictEqual([]);
  });

  it('should refuse a first above the maximum page (§8)', () => {
    expect(run('{ users(first: 101) { id } }', undefined, { listFields })).toStrictEqual([failed('page_size_out_of_range')]);
  });
});
