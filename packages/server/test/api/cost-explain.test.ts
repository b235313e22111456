/**
 * `X-Gatehouse-Cost` (spec §8 made visible): `explain` adds `extensions.cost` to the answer, `dry-run` answers it
 * without executing, and a query refused by a limit of §8 always carries it. Real server on 127.0.0.1.
 */
import { test } from '@fast-check/vitest';
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../../../src/core/query-cost/limits.js';
import { costMode, withCostExtension } from '../../src/api/cost-explain.js';
import type { CostExtension } from '../../src/api/cost-explain.js';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/api/endpoint.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { COST_DOCUMENTS, expectedMeasures, gatehouseDocument } from '../helpers/cost-documents.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

function tokens(text: string): number {
  const lexer = new Lexer(new Source(text));
  let n = 0;
  for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) n++;
  return n;
}

function expectedCost(query: string, limits = DEFAULT_QUERY_LIMITS, variables: Record<string, unknown> | null = null) {
  return { ...expectedMeasures(query, limits, variables), tokenCount: { value: tokens(query), limit: DEFAULT_DOCUMENT_LIMITS.maxTokens, setting: 'maxTokens' } };
}

/** A refusal to a request without the header carries the measures without `fieldCount.lists`. */
function withoutLists<T extends { fieldCount: object }>(cost: T): T {
  const { lists: _lists, listsTruncated: _truncated, ...fieldCount } = cost.fieldCount as { lists: unknown; listsTruncated: unknown };
  return { ...cost, fieldCount };
}

function costOf(body: unknown): unknown {
  return (body as { extensions?: { cost?: unknown } }).extensions?.cost;
}

let server: TestServer;
let auth: Record<string, string>;

beforeAll(async () => {
  server = await startServer();
  const alice = await server.user('alice', false, 'alice@example.com');
  auth = { authorization: `token ${(await server.token(alice)).token}` };
});
afterAll(() => server.close());

describe('X-Gatehouse-Cost: explain (spec §8)', () => {
  it.each(COST_DOCUMENTS)('should answer the data and the five measures the analyzer gives: $shape', async ({ query, variables }) => {
    const answer = await gql(server.url, query, { headers: { ...auth, 'x-gatehouse-cost': 'explain' }, ...(variables === undefined ? {} : { variables }) });
    expect(answer.status).toBe(200);
    expect((answer.body as { data?: unknown }).data).toBeTruthy();
    expect(costOf(answer.body)).toEqual(expectedCost(query, DEFAULT_QUERY_LIMITS, variables ?? null));
  });

  it('should show how first bounded each list field of the fan-out', async () => {
    const fanOut = COST_DOCUMENTS.find((d) => d.shape === 'list fan-out')?.query ?? '';
    const answer = await gql(server.url, fanOut, { headers: { ...auth, 'x-gatehouse-cost': 'explain' } });
    const lists = (costOf(answer.body) as CostExtension).fieldCount.lists;
    expect(lists.map((l) => [l.path, l.first, l.pageSize, l.boundBy, l.multiplier])).toEqual([
      ['currentUser.accessTokens', 100, 100, 'first', 100],
      ['currentUser.accessTokens.scopes', 100, 100, 'first', 10_000],
      ['currentUser.externalAccounts', 50, 50, 'first', 50],
      ['currentUser.emails', 10, 10, 'first', 10],
    ]);
  });

  it('should add nothing without the header, or with a value it does not know', async () => {
    for (const headers of [auth, { ...auth, 'x-gatehouse-cost': 'verbose' }]) {
      const answer = await gql(server.url, '{ currentUser { username } }', { headers });
      expect(answer.body).toEqual({ data: { currentUser: { username: 'alice' } } });
    }
  });

  test.prop([gatehouseDocument], { numRuns: 40 })('should carry exactly what the core analyzer answers for generated documents', async (query) => {
    const answer = await gql(server.url, query, { headers: { ...auth, 'x-gatehouse-cost': 'explain' } });
    expect(answer.status).toBe(200);
    expect(costOf(answer.body)).toEqual(expectedCost(query));
  });
});

describe('X-Gatehouse-Cost: dry-run (spec §8)', () => {
  it('should answer the cost and run nothing: a mutation changes nothing in the store', async () => {
    const count = async (): Promise<number> => {
      const answer = await gql(server.url, '{ currentUser { accessTokens(first: 100) { id } } }', { headers: auth });
      return (answer.body as { data: { currentUser: { accessTokens: unknown[] } } }).data.currentUser.accessTokens.length;
    };
    const before = await count();
    const mutation = 'mutation { createAccessToken(scopes: ["user:all"], note: "dry") { id token } }';
    const answer = await gql(server.url, mutation, { headers: { ...auth, 'x-gatehouse-cost': 'dry-run' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ extensions: { cost: expectedCost(mutation) } });
    expect(await count()).toBe(before);
    // the same mutation without the header does run (so the check above can fail)
    await gql(server.url, mutation, { headers: auth });
    expect(await count()).toBe(before + 1);
  });

  it.each(COST_DOCUMENTS)('should answer the same measures as the analyzer without data: $shape', async ({ query, variables }) => {
    const answer = await gql(server.url, query, { headers: { ...auth, 'x-gatehouse-cost': 'dry-run' }, ...(variables === undefined ? {} : { variables }) });
    expect(answer.body).toEqual({ extensions: { cost: expectedCost(query, DEFAULT_QUERY_LIMITS, variables ?? null) } });
  });

  it('should still refuse a document that does not validate, running nothing', async () => {
    const answer = await gql(server.url, '{ currentUser { nope } }', { headers: { ...auth, 'x-gatehouse-cost': 'dry-run' } });
    // graphql-http answers a validation error 200 under application/json (its legacy media type)
    expect(Object.keys(answer.body as object)).toEqual(['errors']);
    expect((answer.body as { errors: { message: string }[] }).errors[0]?.message).toMatch(/Cannot query field "nope"/);
  });
});

describe('a query refused by a limit of spec §8', () => {
  let strict: TestServer;
  const limits = { ...DEFAULT_QUERY_LIMITS, maxDepth: 3, maxAliases: 2 };
  beforeAll(async () => {
    strict = await startServer({ siteConfiguration: '{ "rateLimits": { "graphQLMaxDepth": 3, "graphQLMaxAliases": 2 } }' });
  });
  afterAll(() => strict.close());

  it.each(COST_DOCUMENTS)('should carry the measures with its errors, without any header: $shape', async ({ query, variables }) => {
    const answer = await gql(strict.url, query, variables === undefined ? {} : { variables });
    const expected = expectedCost(query, limits, variables ?? null);
    const over = expected.depth.value > 3 || expected.aliases.value > 2;
    expect(answer.status).toBe(over ? 400 : 200);
    if (over) expect(costOf(answer.body)).toEqual(withoutLists(expected));
  });

  it('should carry the list breakdown too when the refused request asked for it', async () => {
    const query = COST_DOCUMENTS.find((d) => d.shape === 'aliased')?.query ?? '';
    for (const mode of ['explain', 'dry-run']) {
      const answer = await gql(strict.url, query, { headers: { 'x-gatehouse-cost': mode } });
      expect(answer.status).toBe(400);
      expect(costOf(answer.body)).toEqual(expectedCost(query, limits));
    }
  });

  it('should refuse the aliased document (5 aliases over 2) with the measures beside the error', async () => {
    const query = COST_DOCUMENTS.find((d) => d.shape === 'aliased')?.query ?? '';
    const answer = await gql(strict.url, query);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      errors: [{ message: 'Query exceeds maximum alias count limit', extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 2, actual: 5 } }],
      extensions: { cost: withoutLists(expectedCost(query, limits)) },
    });
  });
});

describe('costMode and withCostExtension', () => {
  const request = (value: string | undefined): RouteRequest => ({ headers: value === undefined ? {} : { 'x-gatehouse-cost': value } }) as unknown as RouteRequest;
  it.each([
    [undefined, null],
    ['explain', 'explain'],
    [' Dry-Run ', 'dry-run'],
    ['yes', null],
  ] as const)('should read %s as %s', (value, mode) => {
    expect(costMode(request(value))).toBe(mode);
  });

  it('should carry the cost on an execution cut off by the field count, worked out after execution', () => {
    const cost = { depth: { value: 1, limit: 30, setting: 'graphQLMaxDepth' } } as unknown as CostExtension;
    const cut = { data: null, errors: [new GraphQLError('Response exceeds maximum field count limit')] };
    expect(withCostExtension({}, cut, { data: {} }, true, () => cost)).toEqual({ ...cut, extensions: { cost } });
    // not cut off and not asked for: the answer is left as it is and nothing is worked out
    expect(withCostExtension({}, undefined, { data: {} }, false, () => { throw new Error('not called'); })).toBeUndefined();
  });
});
