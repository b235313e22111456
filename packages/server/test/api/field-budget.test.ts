/**
 * Execution stops once a response passes spec §8's field count: a budget per request, one error, no data.
 */
import { execute, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { countResolvedFields, cutOffResult, withFieldBudget } from '../../src/api/field-budget.js';

/** A schema whose one list returns `size` items regardless of any argument (what the analyzer cannot see). */
function schemaWithList(size: number): { readonly schema: GraphQLSchema; readonly resolved: { count: number } } {
  const resolved = { count: 0 };
  const Item = new GraphQLObjectType({
    name: 'Item',
    fields: {
      name: {
        type: new GraphQLNonNull(GraphQLString),
        resolve: () => {
          resolved.count += 1;
          return 'x';
        },
      },
      other: { type: GraphQLString },
    },
  });
  const Query = new GraphQLObjectType({
    name: 'Query',
    fields: { items: { type: new GraphQLList(new GraphQLNonNull(Item)), resolve: () => Array.from({ length: size }, () => ({ other: 'y' })) } },
  });
  return { schema: countResolvedFields(new GraphQLSchema({ query: Query })), resolved };
}

async function run(schema: GraphQLSchema, source: string, limit: number | null): Promise<ExecutionResult> {
  const contextValue = limit === null ? {} : withFieldBudget({}, limit);
  const result = await execute({ schema, document: parse(source), contextValue });
  return cutOffResult(contextValue) ?? result;
}

describe('countResolvedFields and cutOffResult', () => {
  it('should answer normally within the budget (§8 graphQLMaxFieldCount)', async () => {
    const { schema } = schemaWithList(3);
    // items + 3 × (name + other) = 7 fields: 7 is within, 6 is not (graphql-js builds null-prototype objects).
    expect(await run(schema, '{ items { name other } }', 7)).toEqual({
      data: { items: [{ name: 'x', other: 'y' }, { name: 'x', other: 'y' }, { name: 'x', other: 'y' }] },
    });
    expect((await run(schema, '{ items { name other } }', 6)).data).toBeNull();
  });

  it('should cut a response past the budget off with one error and no data (§8 graphQLMaxFieldCount)', async () => {
    const { schema, resolved } = schemaWithList(10_000);
    const result = await run(schema, '{ a: items { name other } b: items { name other } }', 100);
    expect(result.data).toBeNull();
    expect(result.errors?.map((e) => ({ message: e.message, extensions: e.extensions }))).toStrictEqual([
      { message: 'Response exceeds maximum field count limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 100 } },
    ]);
    // Past the limit no resolver of ours runs: only the fields within the budget were resolved.
    expect(resolved.count).toBeLessThanOrEqual(100);
    expect(JSON.stringify(result).length).toBeLessThan(500);
  });

  it('should count nothing for a context without a budget', async () => {
    const { schema } = schemaWithList(50);
    const result = await run(schema, '{ items { name } }', null);
    expect(result.errors).toBeUndefined();
    expect((result.data as { items: unknown[] }).items).toHaveLength(50);
  });
});
