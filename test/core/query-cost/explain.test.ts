import { fc, test } from '@fast-check/vitest';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { analyzeQueryCost, checkQueryCost } from '../../../src/core/query-cost/analyze.js';
import type { ListFields } from '../../../src/core/query-cost/analyze.js';
import { explainQueryCost, MAX_EXPLAINED_LISTS } from '../../../src/core/query-cost/explain.js';
import type { ListFieldBound } from '../../../src/core/query-cost/explain.js';
import { DEFAULT_QUERY_LIMITS } from '../../../src/core/query-cost/limits.js';
import type { QueryLimits } from '../../../src/core/query-cost/limits.js';
import { documentModel, resolveSpreads, toDocument } from '../../arbitraries/graphql.js';
import type { DocumentModel, SelectionModel } from '../../arbitraries/graphql.js';

const LIST_FIELDS: ListFields = { users: { defaultPageSize: 20, maxPageSize: 100 }, repositories: { defaultPageSize: 10, maxPageSize: 50 } };

const limitsArbitrary: fc.Arbitrary<QueryLimits> = fc.record({
  maxDepth: fc.integer({ min: 1, max: 40 }),
  maxFieldCount: fc.integer({ min: 1, max: 1_000_000 }),
  maxAliases: fc.integer({ min: 1, max: 40 }),
  maxDuplicateFieldCount: fc.integer({ min: 1, max: 40 }),
  maxUniqueFieldCount: fc.integer({ min: 1, max: 40 }),
});

/**
 * The oracle of the list breakdown: the model walked recursively with every spread written out, each field with a
 * `first`/`last` listed with the larger of the two (at least 1) as its page, as spec §8's reading in analyze.ts says.
 * `null` when the expansion passes the explanation's bounds (then the breakdown is cut off, checked elsewhere).
 */
function oracleLists(model: DocumentModel): ListFieldBound[] | null {
  const out: ListFieldBound[] = [];
  let visits = 0;
  const walk = (list: readonly SelectionModel[], path: string, multiplier: number): boolean => {
    for (const s of list) {
      visits++;
      if (visits > 10_000 || out.length > MAX_EXPLAINED_LISTS) return false;
      if (s.kind === 'spread') {
        if (!walk(model.fragments[s.fragment] ?? [], path, multiplier)) return false;
      } else if (s.kind === 'inline') {
        if (!walk(s.children, path, multiplier)) return false;
      } else {
        const here = path === '' ? (s.alias ?? s.name) : `${path}.${s.alias ?? s.name}`;
        let inner = multiplier;
        if (s.first !== null || s.last !== null) {
          const pageSize = Math.max(1, s.first ?? 1, s.last ?? 1);
          inner = Math.min(multiplier * pageSize, Number.MAX_SAFE_INTEGER);
          const boundBy = s.last !== null && (s.first === null || s.last > s.first) ? 'last' : 'first';
          out.push({ path: here, field: s.name, first: s.first, last: s.last, pageSize, boundBy, maxPageSize: null, multiplier: inner });
        }
        if (!walk(s.children, here, inner)) return false;
      }
    }
    return true;
  };
  return walk(model.operation, '', 1) && out.length <= MAX_EXPLAINED_LISTS ? out : null;
}

describe('explainQueryCost (spec §8)', () => {
  it('should show how first bounded a list field, and the default page of one without first', () => {
    const explained = explainQueryCost(
      parse('{ users(first: 50) { name repositories { name } } other: users(last: 7, first: 3) { name } }'),
      { listFields: LIST_FIELDS },
    );
    expect(explained._unsafeUnwrap().fieldCount).toEqual({
      value: 2 + 50 * 2 + 50 * 10 + 7,
      limit: 500_000,
      setting: 'graphQLMaxFieldCount',
      listsTruncated: false,
      lists: [
        { path: 'users', field: 'users', first: 50, last: null, pageSize: 50, boundBy: 'first', maxPageSize: 100, multiplier: 50 },
        { path: 'users.repositories', field: 'repositories', first: null, last: null, pageSize: 10, boundBy: 'default_page_size', maxPageSize: 50, multiplier: 500 },
        { path: 'other', field: 'users', first: 3, last: 7, pageSize: 7, boundBy: 'last', maxPageSize: 100, multiplier: 7 },
      ],
    });
  });

  it('should name each measure by its rateLimits setting and report the exceeded limits', () => {
    const limits = { ...DEFAULT_QUERY_LIMITS, maxDepth: 2, maxAliases: 0 + 1 };
    const explained = explainQueryCost(parse('{ a { b { c } } x: a { id } y: a { id } }'), {}, limits)._unsafeUnwrap();
    expect(explained.depth).toEqual({ value: 3, limit: 2, setting: 'graphQLMaxDepth' });
    expect(explained.aliases).toEqual({ value: 2, limit: 1, setting: 'graphQLMaxAliases' });
    expect(explained.duplicateFieldCount).toEqual({ value: 3, limit: 500, setting: 'GraphqlMaxDuplicateFieldCount' });
    expect(explained.uniqueFieldCount).toEqual({ value: 4, limit: 500, setting: 'GraphqlMaxUniqueFieldCount' });
    expect(explained.exceeded.map((e) => e.setting)).toEqual(['maxAliases', 'maxDepth']);
  });

  it('should read first from a supplied variable and from a variable default', () => {
    const document = parse('query Q($n: Int = 4, $m: Int) { users(first: $n) { id } repositories(first: $m) { id } }');
    const lists = explainQueryCost(document, { variables: { m: 9 }, listFields: LIST_FIELDS })._unsafeUnwrap().fieldCount.lists;
    expect(lists.map((l) => [l.path, l.first, l.pageSize])).toEqual([['users', 4, 4], ['repositories', 9, 9]]);
  });

  it('should inline fragments in the path and cut the breakdown off on a fan-out, the measures staying exact', () => {
    const fragments = Array.from({ length: 16 }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`).join('\n');
    const document = parse(`{ ...F16 } fragment F0 on Query { users(first: 2) { id } }\n${fragments}`);
    const explained = explainQueryCost(document, { listFields: LIST_FIELDS })._unsafeUnwrap();
    expect(explained.fieldCount.value).toBe(analyzeQueryCost(document, { listFields: LIST_FIELDS })._unsafeUnwrap().fieldCount);
    expect(explained.fieldCount.lists).toHaveLength(MAX_EXPLAINED_LISTS);
    expect(explained.fieldCount.listsTruncated).toBe(true);
    expect(explained.fieldCount.lists[0]?.path).toBe('users');
  });

  it("should answer the analyzer's error when the cost cannot be measured", () => {
    expect(explainQueryCost(parse('{ ...F } fragment F on Query { ...F }'))._unsafeUnwrapErr()).toEqual({ code: 'fragment_cycle', fragmentName: 'F' });
    expect(explainQueryCost(parse('{ users(first: 500) { id } }'), { listFields: LIST_FIELDS })._unsafeUnwrapErr().code).toBe('page_size_out_of_range');
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw on any value', (document, options, limits) => {
    expect(() => explainQueryCost(document as never, options as never, limits as never)).not.toThrow();
  });

  test.prop([documentModel, limitsArbitrary])('should measure exactly what analyzeQueryCost and checkQueryCost answer', (model, limits) => {
    const document = toDocument(resolveSpreads(model, true));
    const analyzed = analyzeQueryCost(document);
    const explained = explainQueryCost(document, {}, limits);
    expect(explained.isOk()).toBe(analyzed.isOk());
    if (analyzed.isErr() || explained.isErr()) return;
    const e = explained.value;
    const cost = analyzed.value;
    expect([e.depth.value, e.fieldCount.value, e.aliases.value, e.duplicateFieldCount.value, e.uniqueFieldCount.value]).toEqual([
      cost.depth,
      cost.fieldCount,
      cost.aliasCount,
      cost.highestDuplicateFieldCount,
      cost.uniqueFieldCount,
    ]);
    expect([e.depth.limit, e.fieldCount.limit, e.aliases.limit, e.duplicateFieldCount.limit, e.uniqueFieldCount.limit]).toEqual([
      limits.maxDepth,
      limits.maxFieldCount,
      limits.maxAliases,
      limits.maxDuplicateFieldCount,
      limits.maxUniqueFieldCount,
    ]);
    expect(e.exceeded).toEqual(checkQueryCost(cost, limits).match(() => [], (x) => x.exceeded));
  });

  test.prop([documentModel])('should list the paginated fields a written-out walk of the model finds (model-based)', (raw) => {
    const model = resolveSpreads(raw, true);
    const expected = oracleLists(model);
    const explained = explainQueryCost(toDocument(model))._unsafeUnwrap();
    if (expected === null) {
      expect(explained.fieldCount.listsTruncated).toBe(true);
      return;
    }
    expect(explained.fieldCount.listsTruncated).toBe(false);
    expect(explained.fieldCount.lists).toEqual(expected);
  });

  test.prop([documentModel])('should give the same explanation twice (deterministic)', (raw) => {
    const document = toDocument(resolveSpreads(raw, true));
    expect(explainQueryCost(document)).toEqual(explainQueryCost(document));
  });
});
