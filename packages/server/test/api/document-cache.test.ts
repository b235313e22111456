/**
 * The document cache: hits and misses, the bounds and the eviction order, what it remembers of a cost check, and
 * that the GraphQL endpoint answers every request exactly as it does without the cache (spec §8's checks included).
 */
import { Buffer } from 'node:buffer';
import { fc, test } from '@fast-check/vitest';
import { GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, print } from 'graphql';
import type { DocumentNode, GraphQLFieldConfigArgumentMap, OperationDefinitionNode } from 'graphql';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import type { Response as GraphQLHttpResponse } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../../../src/core/query-cost/limits.js';
import type { QueryLimits } from '../../../../src/core/query-cost/limits.js';
import { createDocumentCache, DEFAULT_DOCUMENT_CACHE_OPTIONS } from '../../src/api/document-cache.js';
import type { AdmissionSteps, DocumentCacheOptions, DocumentRequest } from '../../src/api/document-cache.js';
import { createGraphQLEndpoint, DEFAULT_DOCUMENT_LIMITS } from '../../src/api/endpoint.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { documentModel, resolveSpreads, toDocument } from '../../../../test/arbitraries/graphql.js';

// ---------------------------------------------------------------------------------------------
// The cache alone, with steps that count their calls

interface Calls {
  parse: number;
  checkCost: number;
  validate: number;
}

/** Steps over graphql-js `parse`: a text containing `bad-cost` or `bad-valid` is refused at that step. */
function countingSteps(): { readonly steps: AdmissionSteps<string>; readonly calls: Calls } {
  const calls: Calls = { parse: 0, checkCost: 0, validate: 0 };
  const steps: AdmissionSteps<string> = {
    parse: (text): Result<DocumentNode, string> => {
      calls.parse++;
      try {
        return ok(parse(text));
      } catch {
        return err('syntax');
      }
    },
    checkCost: (document) => {
      calls.checkCost++;
      return print(document).includes('badCost') ? err('cost') : ok(undefined);
    },
    validate: (document) => {
      calls.validate++;
      return print(document).includes('badValid') ? err('invalid') : ok(undefined);
    },
  };
  return { steps, calls };
}

const schema = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { a: { type: GraphQLString } } }) });

describe('createDocumentCache', () => {
  it('should parse, check and validate on a miss and do none of it on a hit', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const first = cache.admit({ query: '{ a }' }, steps);
    const second = cache.admit({ query: '{ a }' }, steps);
    expect(first.isOk()).toBe(true);
    expect(second).toStrictEqual(first);
    expect(second._unsafeUnwrap()).toBe(first._unsafeUnwrap());
    expect(calls).toStrictEqual({ parse: 1, checkCost: 1, validate: 1 });
    expect(cache.stats()).toStrictEqual({ hits: 1, misses: 1, evictions: 0, entries: 1, bytes: 5 + JSON.stringify([null, null]).length });
  });

  it('should run the steps in order and stop at the first refusal', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    expect(cache.admit({ query: '{ a' }, steps)).toStrictEqual(err('syntax'));
    expect(cache.admit({ query: '{ badCost badValid }' }, steps)).toStrictEqual(err('cost'));
    expect(cache.admit({ query: '{ badValid }' }, steps)).toStrictEqual(err('invalid'));
    expect(calls).toStrictEqual({ parse: 3, checkCost: 2, validate: 1 });
  });

  it.each([
    { step: 'parse', query: '{ a' },
    { step: 'checkCost', query: '{ badCost }' },
    { step: 'validate', query: '{ badValid }' },
  ])('should keep no document refused by $step: the same refusal is worked out again', ({ query }) => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const first = cache.admit({ query }, steps);
    const second = cache.admit({ query }, steps);
    expect(first.isErr()).toBe(true);
    expect(second).toStrictEqual(first);
    expect(calls.parse).toBe(2);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 2, entries: 0, bytes: 0 });
  });

  it('should check the cost again for other variables of a document that declares variables (§8 pagination by variable)', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const query = 'query Q($n: Int) { a }';
    cache.admit({ query, variables: { n: 1 } }, steps);
    cache.admit({ query, variables: { n: 1 } }, steps);
    expect(calls).toStrictEqual({ parse: 1, checkCost: 1, validate: 1 });
    cache.admit({ query, variables: { n: 2 } }, steps);
    cache.admit({ query, variables: { n: 2 } }, steps);
    expect(calls).toStrictEqual({ parse: 1, checkCost: 2, validate: 1 });
    cache.admit({ query, operationName: 'Q', variables: { n: 2 } }, steps);
    expect(calls).toStrictEqual({ parse: 1, checkCost: 3, validate: 1 });
  });

  it('should ignore the variables of a document that declares none, but not its operation name', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const query = 'query Q { a } query R { a }';
    cache.admit({ query, operationName: 'Q', variables: { n: 1 } }, steps);
    cache.admit({ query, operationName: 'Q', variables: { n: 2 } }, steps);
    cache.admit({ query, operationName: 'Q' }, steps);
    expect(calls.checkCost).toBe(1);
    cache.admit({ query, operationName: 'R' }, steps);
    expect(calls).toStrictEqual({ parse: 1, checkCost: 2, validate: 1 });
  });

  it('should check the cost again, and keep the document, when the check that was not remembered refuses', () => {
    const cache = createDocumentCache(schema);
    const calls = { checkCost: 0 };
    const base = countingSteps().steps;
    const steps = (refuse: boolean): AdmissionSteps<string> => ({
      ...base,
      checkCost: () => {
        calls.checkCost++;
        return refuse ? err('cost') : ok(undefined);
      },
    });
    const query = 'query Q($n: Int) { a }';
    cache.admit({ query, variables: { n: 1 } }, steps(false));
    expect(cache.admit({ query, variables: { n: 1000 } }, steps(true))).toStrictEqual(err('cost'));
    expect(cache.admit({ query, variables: { n: 1000 } }, steps(true))).toStrictEqual(err('cost'));
    expect(calls.checkCost).toBe(3);
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 1, entries: 1 });
  });

  it('should remember at most 8 cost verdicts per document, forgetting the oldest first', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const query = 'query Q($n: Int) { a }';
    for (let n = 0; n < 9; n++) cache.admit({ query, variables: { n } }, steps);
    expect(calls.checkCost).toBe(9);
    cache.admit({ query, variables: { n: 8 } }, steps);
    cache.admit({ query, variables: { n: 1 } }, steps);
    expect(calls.checkCost).toBe(9);
    cache.admit({ query, variables: { n: 0 } }, steps);
    expect(calls.checkCost).toBe(10);
  });

  it('should not remember a verdict whose variables are longer than 1 KiB', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    const query = 'query Q($s: String) { a }';
    const variables = { s: 'x'.repeat(2_000) };
    cache.admit({ query, variables }, steps);
    cache.admit({ query, variables }, steps);
    expect(calls).toStrictEqual({ parse: 1, checkCost: 2, validate: 1 });
    expect(cache.stats().bytes).toBe(query.length);
  });

  it('should evict the least recently used document beyond maxEntries', () => {
    const cache = createDocumentCache(schema, { maxEntries: 2 });
    const { steps, calls } = countingSteps();
    cache.admit({ query: '{ a }' }, steps);
    cache.admit({ query: '{ b: a }' }, steps);
    cache.admit({ query: '{ a }' }, steps); // now `{ b: a }` is the least recently used
    cache.admit({ query: '{ c: a }' }, steps);
    expect(cache.stats()).toMatchObject({ entries: 2, evictions: 1, hits: 1, misses: 3 });
    cache.admit({ query: '{ a }' }, steps);
    cache.admit({ query: '{ c: a }' }, steps);
    expect(calls.parse).toBe(3);
    cache.admit({ query: '{ b: a }' }, steps);
    expect(calls.parse).toBe(4);
  });

  it('should keep the UTF-8 bytes of texts and verdicts within maxBytes, and never keep a text larger than that', () => {
    const verdict = JSON.stringify([null, null]).length;
    const texts = ['{ a }', '{ a(s: "é") }', '{ b: a }', '{ c: a }'];
    const [t1, t2, t3, t4] = texts.map((t) => Buffer.byteLength(t));
    expect(t2).toBe(texts[1]?.length === undefined ? 0 : texts[1].length + 1);
    const kept = (t2 ?? 0) + (t3 ?? 0) + (t4 ?? 0) + 3 * verdict;
    const cache = createDocumentCache(schema, { maxBytes: kept });
    const { steps, calls } = countingSteps();
    for (const query of texts) cache.admit({ query }, steps);
    expect(t1).toBeLessThan(t2 ?? 0);
    expect(cache.stats()).toMatchObject({ entries: 3, evictions: 1, bytes: kept });
    const large = `{ ${'a '.repeat(50)}}`;
    cache.admit({ query: large }, steps);
    cache.admit({ query: large }, steps);
    expect(cache.stats()).toMatchObject({ entries: 3, evictions: 1, bytes: kept });
    expect(calls.parse).toBe(6);
  });

  it('should keep nothing with maxEntries 0 (the cache turned off)', () => {
    const cache = createDocumentCache(schema, { maxEntries: 0 });
    const { steps, calls } = countingSteps();
    cache.admit({ query: '{ a }' }, steps);
    cache.admit({ query: '{ a }' }, steps);
    expect(calls).toStrictEqual({ parse: 2, checkCost: 2, validate: 2 });
    expect(cache.stats()).toStrictEqual({ hits: 0, misses: 2, evictions: 0, entries: 0, bytes: 0 });
  });

  it('should forget every document on clear', () => {
    const cache = createDocumentCache(schema);
    const { steps, calls } = countingSteps();
    cache.admit({ query: '{ a }' }, steps);
    cache.clear();
    cache.admit({ query: '{ a }' }, steps);
    expect(calls.parse).toBe(2);
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 2 });
  });

  it('should belong to the one schema it was made for', () => {
    expect(createDocumentCache(schema).schema).toBe(schema);
    expect(DEFAULT_DOCUMENT_CACHE_OPTIONS).toStrictEqual({ maxEntries: 1_000, maxBytes: 512 * 1024 });
  });

  test.prop([fc.array(fc.tuple(fc.nat(5), fc.boolean()), { maxLength: 60 }), fc.integer({ min: 1, max: 4 })])(
    'should hit exactly when the text is among the maxEntries most recently admitted (an LRU model)',
    (requests, maxEntries) => {
      const cache = createDocumentCache(schema, { maxEntries });
      const { steps } = countingSteps();
      let model: string[] = []; // most recent last
      for (const [i, bad] of requests) {
        const query = bad ? `{ badValid${i} }` : `{ a${i}: a }`;
        const hitsBefore = cache.stats().hits;
        const expectHit = model.includes(query);
        cache.admit({ query }, steps);
        expect(cache.stats().hits - hitsBefore).toBe(expectHit ? 1 : 0);
        if (!bad) model = [...model.filter((q) => q !== query), query].slice(-maxEntries);
        expect(cache.stats().entries).toBe(model.length);
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------
// The endpoint with and without the cache

/** Which operation node each resolved request ran: the same object for two requests means one parsed document. */
const operations: OperationDefinitionNode[] = [];

function listArgs(): GraphQLFieldConfigArgumentMap {
  return { first: { type: GraphQLInt }, last: { type: GraphQLInt } };
}

/** Fields named as the generated documents name them: leaves, objects, and paginated lists. */
const Node: GraphQLObjectType = new GraphQLObjectType({
  name: 'Node',
  fields: () => ({
    a: { type: GraphQLString, resolve: () => 'x' },
    b: { type: GraphQLString, resolve: () => 'y' },
    c: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Node))), args: listArgs(), resolve: (_s, args: { first?: number | null }) => listOf(args.first) },
    id: { type: new GraphQLNonNull(GraphQLID), resolve: () => 'n1' },
    node: { type: Node, resolve: () => ({}) },
  }),
});

function listOf(first: number | null | undefined): object[] {
  return Array.from({ length: Math.max(0, Math.min(first ?? 2, 3)) }, () => ({}));
}

const endpointSchema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      a: {
        type: GraphQLString,
        resolve: (_s, _a, _c, info) => {
          operations.push(info.operation);
          return 'A';
        },
      },
      b: { type: GraphQLString, resolve: () => 'B' },
      c: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Node))), args: listArgs(), resolve: (_s, args: { first?: number | null }) => listOf(args.first) },
      id: { type: GraphQLID, resolve: () => 'q1' },
      node: { type: Node, resolve: () => ({}) },
    },
  }),
});

/** Tight limits, so that generated documents are refused by each of §8's checks as well as admitted. */
const LIMITS: QueryLimits = { ...DEFAULT_QUERY_LIMITS, maxDepth: 5, maxFieldCount: 60, maxAliases: 3, maxDuplicateFieldCount: 12, maxUniqueFieldCount: 5 };

/** The route request a POST of `body` with `headers` reaches the endpoint as. */
function postRequest(headers: Readonly<Record<string, string>>, body: string): RouteRequest {
  return {
    method: 'POST',
    url: new URL('/.api/graphql', 'http://gatehouse.test'),
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'r1',
    body,
  };
}

interface Endpoint {
  readonly ask: (request: DocumentRequest, accept?: string) => Promise<GraphQLHttpResponse>;
  readonly exceeded: string[];
}

function endpoint(documentCache: DocumentCacheOptions): Endpoint {
  const exceeded: string[] = [];
  const handler = createGraphQLEndpoint({
    schema: endpointSchema,
    queryLimits: LIMITS,
    documentLimits: { ...DEFAULT_DOCUMENT_LIMITS, maxTokens: 400 },
    onLimitExceeded: (limit) => exceeded.push(limit),
    documentCache,
  });
  const ask = async (request: DocumentRequest, accept = 'application/graphql-response+json'): Promise<GraphQLHttpResponse> => {
    const headers = { 'content-type': 'application/json', accept };
    const body = JSON.stringify(request);
    return handler({ method: 'POST', url: '/.api/graphql', headers, body, raw: postRequest(headers, body), context: { kind: 'anonymous' } });
  };
  return { ask, exceeded };
}

/** The answer's body, parsed. */
function bodyOf(answer: GraphQLHttpResponse): unknown {
  return JSON.parse(answer[0] ?? 'null');
}

/** Selection sets of this schema (leaves `a`, `b`, `id`; objects `c`, `node`): mostly valid, some over the limits. */
const selectionSet: fc.Arbitrary<string> = fc.letrec<{ set: string; selection: string }>((tie) => ({
  set: fc.array(tie('selection'), { minLength: 1, maxLength: 3 }).map((list) => `{ ${list.join(' ')} }`),
  selection: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('a', 'b', 'id', '__typename', 'x: a'),
    fc.tuple(fc.constantFrom('node', 'c', 'c(first: 2)', 'c(last: 40)'), tie('set')).map(([field, set]) => `${field} ${set}`),
    tie('set').map((set) => `... ${set}`),
  ),
})).set;

/** The text of a generated model document: rarely valid for this schema; sometimes cut short (a syntax error). */
const modelText: fc.Arbitrary<string> = fc
  .tuple(documentModel, fc.boolean(), fc.option(fc.nat(200), { nil: null }))
  .map(([model, acyclic, cut]) => {
    const text = print(toDocument(resolveSpreads(model, acyclic)));
    return cut === null || cut >= text.length ? text : text.slice(0, cut);
  });

/** A request: a selection set, a model document, or a document paginated by the variable `$n` (§8). */
const requests: fc.Arbitrary<DocumentRequest> = fc.oneof(
  fc.oneof(selectionSet, modelText).map((query) => ({ query })),
  fc
    .tuple(fc.option(selectionSet, { nil: null }), fc.integer({ min: -1, max: 40 }), fc.constantFrom('Q', 'R'))
    .map(([set, n, operationName]) => ({
      query: `query Q($n: Int) { c(first: $n) { id a } }${set === null ? '' : ` query R ${set}`}`,
      operationName,
      variables: { n },
    })),
);

describe('createGraphQLEndpoint with its document cache', () => {
  it('should run the cached document on a repeated request, and a fresh one without the cache', async () => {
    const cached = endpoint({});
    const uncached = endpoint({ maxEntries: 0 });
    operations.length = 0;
    await cached.ask({ query: '{ a }' });
    await cached.ask({ query: '{ a }' });
    expect(operations).toHaveLength(2);
    expect(operations[1]).toBe(operations[0]);
    await uncached.ask({ query: '{ a }' });
    await uncached.ask({ query: '{ a }' });
    expect(operations[3]).not.toBe(operations[2]);
  });

  it.each([
    { ref: 'validation (graphql-js specified rules)', query: '{ a { b } nope }' },
    { ref: 'syntax', query: '{ a ' },
    { ref: '§8 graphQLMaxDepth', query: '{ node { node { node { node { node { id } } } } } }' },
    { ref: '§8 graphQLMaxAliases', query: '{ x: a y: a z: a w: a }' },
    { ref: 'maxTokens', query: `{ ${'a '.repeat(500)}}` },
  ])('should answer a refused request ($ref) with the same errors every time, with or without the cache', async ({ query }) => {
    const cached = endpoint({});
    const uncached = endpoint({ maxEntries: 0 });
    const expected = await uncached.ask({ query });
    expect(bodyOf(expected)).toHaveProperty('errors');
    expect(bodyOf(expected)).not.toHaveProperty('data');
    expect(await cached.ask({ query })).toStrictEqual(expected);
    expect(await cached.ask({ query })).toStrictEqual(expected);
    expect(cached.exceeded).toStrictEqual([...uncached.exceeded, ...uncached.exceeded]);
  });

  it('should never serve a document admitted under one schema to an endpoint of another', async () => {
    const other = createGraphQLEndpoint({ schema, queryLimits: LIMITS, documentLimits: DEFAULT_DOCUMENT_LIMITS });
    const query = '{ node { id } }';
    const ours = endpoint({});
    expect(bodyOf(await ours.ask({ query }))).toStrictEqual({ data: { node: { id: 'n1' } } });
    expect(bodyOf(await ours.ask({ query }))).toStrictEqual({ data: { node: { id: 'n1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const body = JSON.stringify({ query });
    const answer = await other({ method: 'POST', url: '/.api/graphql', headers, body, raw: postRequest(headers, body), context: { kind: 'anonymous' } });
    expect(bodyOf(answer)).toMatchObject({ errors: [{ message: 'Cannot query field "node" on type "Query".' }] });
  });

  it('should check §8 pagination by variable for each request of a cached document', async () => {
    const cached = endpoint({});
    const query = 'query Q($n: Int) { c(first: $n) { c(first: $n) { id } } }';
    const admitted = await cached.ask({ query, variables: { n: 3 } });
    expect(bodyOf(admitted)).not.toHaveProperty('errors');
    const refused = await cached.ask({ query, variables: { n: 30 } });
    expect(bodyOf(refused)).toMatchObject({ errors: [{ extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED' } }] });
    expect(await cached.ask({ query, variables: { n: 3 } })).toStrictEqual(admitted);
    expect(cached.exceeded).toStrictEqual(['maxFieldCount']);
  });

  // one cached endpoint for every run, small enough that documents are evicted and admitted again
  const shared = endpoint({ maxEntries: 8, maxBytes: 2_048 });
  test.prop([fc.array(requests, { minLength: 1, maxLength: 4 }), fc.constantFrom('application/json', 'application/graphql-response+json')], { numRuns: 60 })(
    'should answer every generated request as the endpoint without a cache does, on a miss and on a hit',
    async (batch, accept) => {
      const uncached = endpoint({ maxEntries: 0 });
      for (const request of [...batch, ...batch]) {
        const before = shared.exceeded.length;
        const answer = await shared.ask(request, accept);
        expect(answer).toStrictEqual(await uncached.ask(request, accept));
        expect(shared.exceeded.slice(before)).toStrictEqual(uncached.exceeded.splice(0));
      }
    },
  );
});
