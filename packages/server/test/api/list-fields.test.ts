/**
 * Every list field of gatehouse's schema can be bounded by the cost analyzer (spec §8: "pagination is used to stay
 * under" the field count): the walk over the schema finds no list without `first`.
 */
import { err, ok } from 'neverthrow';
import {
  getIntrospectionQuery,
  getNullableType,
  GraphQLInt,
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { analyzeQueryCost } from '../../../../src/core/query-cost/analyze.js';
import { DEFAULT_QUERY_LIMITS } from '../../../../src/core/query-cost/limits.js';
import { DEFAULT_PAGE_SIZE, listFieldsOfSchema, MAX_PAGE_SIZE, pageSize } from '../../src/api/list-fields.js';
import { createGatehouseSchema } from '../../src/api/schema.js';
import { createMemoryStore } from '../../src/store/memory/store.js';

const schema = createGatehouseSchema({
  store: createMemoryStore(),
  now: () => 0,
  randomBytes: (n) => new Uint8Array(n),
  search: async () => ({ matchCount: 0 }),
  audit: async () => undefined,
  registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }),
});

describe('listFieldsOfSchema', () => {
  it('should find no unbounded list field in gatehouse schema (§8: every list takes first)', () => {
    expect(listFieldsOfSchema(schema).unbounded).toStrictEqual([]);
  });

  it('should see first (Int, default 20) on every list field of gatehouse own types, walking the schema (§8)', () => {
    const lists: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if ((!isObjectType(type) && !isInterfaceType(type)) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isListType(getNullableType(field.type))) continue;
        lists.push(`${type.name}.${field.name}`);
        const first = field.args.find((a) => a.name === 'first');
        expect(first?.type, `${type.name}.${field.name}`).toBe(GraphQLInt);
        expect(first?.defaultValue, `${type.name}.${field.name}`).toBe(DEFAULT_PAGE_SIZE);
      }
    }
    expect(lists.sort()).toStrictEqual([
      'AccessToken.scopes',
      'CreatedAccessToken.scopes',
      'Query.auditLog',
      'SignInExplanation.trace',
      'User.accessTokens',
      'User.emails',
      'User.externalAccounts',
    ]);
    const { listFields } = listFieldsOfSchema(schema);
    for (const name of ['accessTokens', 'emails', 'externalAccounts', 'scopes', 'auditLog']) {
      expect(listFields[name]).toStrictEqual({ defaultPageSize: DEFAULT_PAGE_SIZE, maxPageSize: MAX_PAGE_SIZE });
    }
  });

  it('should report a list field without first as unbounded (the walk can fail)', () => {
    const Query = new GraphQLObjectType({
      name: 'Query',
      fields: {
        ok: { type: new GraphQLList(GraphQLString), args: { first: { type: GraphQLInt, defaultValue: 5 } } },
        bad: { type: new GraphQLList(GraphQLString) },
        nested: { type: new GraphQLList(new GraphQLList(GraphQLString)), args: { first: { type: GraphQLInt, defaultValue: 5 } } },
        noDefault: { type: new GraphQLList(GraphQLString), args: { first: { type: GraphQLInt } } },
      },
    });
    const walked = listFieldsOfSchema(new GraphQLSchema({ query: Query }));
    expect(walked.unbounded).toStrictEqual([
      { type: 'Query', field: 'bad' },
      { type: 'Query', field: 'nested' },
      { type: 'Query', field: 'noDefault' },
    ]);
    expect(walked.listFields['ok']).toStrictEqual({ defaultPageSize: 5, maxPageSize: MAX_PAGE_SIZE });
  });

  it('should bound the introspection lists by the schema, keeping GraphiQL introspection under the default limit (§8)', () => {
    const { listFields } = listFieldsOfSchema(schema);
    const types = Object.keys(schema.getTypeMap()).length;
    expect(listFields['types']).toStrictEqual({ defaultPageSize: types, maxPageSize: types });
    const cost = analyzeQueryCost(parse(getIntrospectionQuery()), { listFields });
    expect(cost.isOk()).toBe(true);
    expect(cost._unsafeUnwrap().fieldCount).toBeLessThan(DEFAULT_QUERY_LIMITS.maxFieldCount);
    // 500 aliased copies of the introspection would answer 500 schemas: counted, they exceed the limit.
    const fields = Array.from({ length: 500 }, (_, i) => `s${i}: __schema { types { name fields { name args { name } } } }`);
    const aliased = analyzeQueryCost(parse(`{ ${fields.join(' ')} }`), { listFields });
    expect(aliased._unsafeUnwrap().fieldCount).toBeGreaterThan(DEFAULT_QUERY_LIMITS.maxFieldCount);
  });
});

describe('pageSize', () => {
  it.each([
    { ref: 'absent: the default', input: {}, expected: 20 },
    { ref: 'given', input: { first: 7 }, expected: 7 },
    { ref: 'zero', input: { first: 0 }, expected: 0 },
    { ref: 'never above the maximum', input: { first: 1000 }, expected: 100 },
    { ref: 'never negative', input: { first: -3 }, expected: 0 },
    { ref: 'not an integer: the default', input: { first: 'x' }, expected: 20 },
  ])('should take $ref', ({ input, expected }) => {
    expect(pageSize(input)).toBe(expected);
  });

  it('should pass the analyzer the same page sizes the resolvers use', () => {
    const { listFields } = listFieldsOfSchema(schema);
    expect(analyzeQueryCost(parse('{ currentUser { accessTokens { note } } }'), { listFields })).toStrictEqual(
      ok({ depth: 3, fieldCount: 2 + pageSize({}), aliasCount: 0, highestDuplicateFieldCount: 0, uniqueFieldCount: 3 }),
    );
  });
});
