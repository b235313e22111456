import { fc, test } from '@fast-check/vitest';
import { Kind, parse, print, visit } from 'graphql';
import type { DocumentNode, SelectionSetNode, VariableDefinitionNode } from 'graphql';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { analyzeQueryCost, checkQueryCost, countFieldSelections, QUERY_LIMIT_ORDER, queryCostErrorMessage } from '../../../src/core/query-cost/analyze.js';
import type { ListFields, QueryCost, QueryCostError, QueryCostOptions } from '../../../src/core/query-cost/analyze.js';
import { DEFAULT_QUERY_LIMITS } from '../../../src/core/query-cost/limits.js';
import type { QueryLimits } from '../../../src/core/query-cost/limits.js';
import {
  acyclicDocument,
  anyDocument,
  documentModel,
  fieldName,
  resolveSpreads,
  toDocument,
} from '../../arbitraries/graphql.js';
import type { DocumentModel, FieldModel, SelectionModel } from '../../arbitraries/graphql.js';

const MAX = Number.MAX_SAFE_INTEGER;
/** Deliberately breaks the static type, to check the functions are total at run time. */
const unsafe = <T>(value: unknown): T => value as T;

const cost = (
  depth: number,
  fieldCount: number,
  aliasCount: number,
  highestDuplicateFieldCount: number,
  uniqueFieldCount: number,
): QueryCost => ({ depth, fieldCount, aliasCount, highestDuplicateFieldCount, uniqueFieldCount });

/** 20 fragments, each spreading the previous one twice: F20 is used once, F0 2^20 times. */
function fanOut(levels: number, base: string): string {
  let text = `fragment F0 on Query { ${base} }\n`;
  for (let i = 1; i <= levels; i++) text += `fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }\n`;
  return `{ ...F${levels} }\n${text}`;
}

/** `{ a { a { … { leaf } } } }` with `levels` fields named `a`, built without recursion (parse cannot go this deep). */
function deepDocument(levels: number): DocumentNode {
  let set: SelectionSetNode = {
    kind: Kind.SELECTION_SET,
    selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'leaf' } }],
  };
  for (let i = 0; i < levels; i++) {
    set = {
      kind: Kind.SELECTION_SET,
      selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'a' }, selectionSet: set }],
    };
  }
  return { kind: Kind.DOCUMENT, definitions: [{ kind: Kind.OPERATION_DEFINITION, operation: unsafe('query'), selectionSet: set }] };
}

interface Row {
  readonly ref: string;
  readonly input: { readonly query: string; readonly options?: QueryCostOptions };
  readonly expected: ReturnType<typeof analyzeQueryCost>;
}

const rows: readonly Row[] = [
  // depth
  { ref: '§8 row 1 graphQLMaxDepth, depth: { a } is 1', input: { query: '{ a }' }, expected: ok(cost(1, 1, 0, 0, 1)) },
  { ref: '§8 row 1 graphQLMaxDepth, depth: currentUser { username } is 2', input: { query: '{ currentUser { username } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 1 graphQLMaxDepth, depth: a fragment counts where used', input: { query: '{ a { ...F } } fragment F on T { b { c } }' }, expected: ok(cost(3, 3, 0, 0, 3)) },
  { ref: '§8 row 1 graphQLMaxDepth, depth: inline fragments add no level', input: { query: '{ a { ... on T { b } ... { c } } }' }, expected: ok(cost(2, 3, 0, 0, 3)) },
  { ref: '§8 row 1 graphQLMaxDepth, depth: a spread at the root adds no level', input: { query: '{ ...F } fragment F on Query { a }' }, expected: ok(cost(1, 1, 0, 0, 1)) },
  { ref: '§8 row 1 graphQLMaxDepth, depth: the deepest path wins', input: { query: '{ a { b } c { d { e } } }' }, expected: ok(cost(3, 5, 0, 0, 5)) },
  { ref: 'defect: named fragments added no depth (§8 row 1 graphQLMaxDepth)', input: { query: '{ a { ...F } } fragment F on T { b { ...G } } fragment G on T { c { d } }' }, expected: ok(cost(4, 4, 0, 0, 4)) },
  { ref: 'defect: named fragments added no depth (§8 row 1 graphQLMaxDepth, spreads nested in inline fragments)', input: { query: '{ a { ... on T { ...F } } } fragment F on T { ... { b { c { d } } } }' }, expected: ok(cost(4, 4, 0, 0, 4)) },
  { ref: 'defect: named fragments added no depth (§8 row 1 graphQLMaxDepth, each spread counts at its own level)', input: { query: '{ ...F a { b { ...F } } } fragment F on T { x { y } }' }, expected: ok(cost(4, 6, 0, 2, 4)) },
  // fieldCount
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: the worked example is 13', input: { query: '{ a(first: 10) { x } b { y } }' }, expected: ok(cost(2, 13, 0, 0, 4)) },
  { ref: 'defect: first leaked into the next sibling (§8 row 2 graphQLMaxFieldCount, leaf)', input: { query: '{ a(first: 100) b { c } }' }, expected: ok(cost(2, 3, 0, 0, 3)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: last multiplies', input: { query: '{ a(last: 7) { x } }' }, expected: ok(cost(2, 8, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: the larger of first and last', input: { query: '{ a(first: 3, last: 9) { x } }' }, expected: ok(cost(2, 10, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: products of nested first', input: { query: '{ a(first: 10) { b(first: 10) { c } d } }' }, expected: ok(cost(3, 121, 0, 0, 4)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: 0 does not multiply', input: { query: '{ a(first: 0) { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a negative literal does not multiply', input: { query: '{ a(first: -5) { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a float literal does not multiply', input: { query: '{ a(first: 2.5) { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a string literal does not multiply', input: { query: '{ a(first: "9") { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: other arguments do not multiply', input: { query: '{ a(count: 9, after: 5) { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: __typename is a field', input: { query: '{ __typename a { __typename } }' }, expected: ok(cost(2, 3, 0, 2, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: supplied variable', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: 4 } } }, expected: ok(cost(2, 5, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: variable default', input: { query: 'query($n: Int = 6) { a(first: $n) { x } }' }, expected: ok(cost(2, 7, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a supplied value beats the default', input: { query: 'query($n: Int = 6) { a(first: $n) { x } }', options: { variables: { n: 2 } } }, expected: ok(cost(2, 3, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: non-null variable with a default, not supplied', input: { query: 'query($n: Int! = 6) { a(first: $n) { x } }' }, expected: ok(cost(2, 7, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: an absent nullable variable does not multiply', input: { query: 'query($n: Int) { a(first: $n) { x } }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a null nullable variable does not multiply', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: null } } }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a supplied 0 does not multiply', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: 0 } } }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a supplied negative does not multiply', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: -3 } } }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: variables inside fragments', input: { query: 'query($n: Int = 5) { ...F } fragment F on Query { a(first: $n) { b } }' }, expected: ok(cost(2, 6, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a spread under pagination is multiplied', input: { query: '{ a(first: 3) { ...F } } fragment F on T { b c }' }, expected: ok(cost(2, 7, 0, 0, 3)) },
  { ref: 'defect: 64-bit wraparound (§8 row 2 graphQLMaxFieldCount, 2^64 saturates)', input: { query: '{ a(first: 65536) { b(first: 65536) { c(first: 65536) { d(first: 65536) { e } } } } }' }, expected: ok(cost(5, MAX, 0, 0, 5)) },
  { ref: 'defect: 64-bit wraparound (§8 row 2 graphQLMaxFieldCount, int32 products saturate)', input: { query: '{ a(first: 2147483647) { b(first: 2147483647) { c(first: 2147483647) { d } } } }' }, expected: ok(cost(4, MAX, 0, 0, 4)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a literal beyond 2^53 saturates', input: { query: '{ a(first: 100000000000000000000000000000) { b } }' }, expected: ok(cost(2, MAX, 0, 0, 2)) },
  { ref: 'defect: first leaked into the next sibling (§8 row 2 graphQLMaxFieldCount, sibling with a selection)', input: { query: '{ a(first: 100) { x } b { y } }' }, expected: ok(cost(2, 103, 0, 0, 4)) },
  { ref: 'defect: first leaked into the next sibling (§8 row 2 graphQLMaxFieldCount, through a spread)', input: { query: '{ a(first: 10) { ...F } ...F } fragment F on T { b }' }, expected: ok(cost(2, 12, 0, 2, 2)) },
  { ref: 'defect: first leaked into the next sibling (§8 row 2 graphQLMaxFieldCount, into the parent\'s next field)', input: { query: '{ a { b(first: 50) { c } } d { e } }' }, expected: ok(cost(3, 54, 0, 0, 5)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: an explicit null overrides the default and does not multiply', input: { query: 'query($n: Int = 6) { a(first: $n) { x } }', options: { variables: { n: null } } }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a supplied value beyond 2^53 saturates', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: 2 ** 60 } } }, expected: ok(cost(2, MAX, 0, 0, 2)) },
  { ref: '§8 row 2 graphQLMaxFieldCount, fieldCount: a variable in both first and last takes the larger', input: { query: 'query($n: Int, $m: Int = 4) { a(first: $n, last: $m) { x } }', options: { variables: { n: 3 } } }, expected: ok(cost(2, 5, 0, 0, 2)) },
  // aliasCount
  { ref: '§8 row 3 graphQLMaxAliases, aliasCount: aliased fields', input: { query: '{ x: a y: b c }' }, expected: ok(cost(1, 3, 2, 0, 3)) },
  { ref: '§8 row 3 graphQLMaxAliases, aliasCount: an alias equal to the name is an alias', input: { query: '{ a: a }' }, expected: ok(cost(1, 1, 1, 0, 1)) },
  { ref: '§8 row 3 graphQLMaxAliases, aliasCount: each spread counts the fragment again', input: { query: '{ ...F ...F b { ...F } } fragment F on Query { x: a }' }, expected: ok(cost(2, 4, 3, 3, 2)) },
  { ref: '§8 row 3 graphQLMaxAliases, aliasCount: pagination does not multiply aliases', input: { query: '{ a(first: 10) { x: b } }' }, expected: ok(cost(2, 11, 1, 0, 2)) },
  // duplicates and unique
  { ref: '§8 row 4 GraphqlMaxDuplicateFieldCount, duplicates: 0 when no name occurs twice', input: { query: '{ a b c }' }, expected: ok(cost(1, 3, 0, 0, 3)) },
  { ref: '§8 row 4 GraphqlMaxDuplicateFieldCount, duplicates: names, not aliases, across the operation', input: { query: '{ x: a y: a b { a } }' }, expected: ok(cost(2, 4, 2, 3, 2)) },
  { ref: '§8 row 4 GraphqlMaxDuplicateFieldCount, duplicates: a fragment spread twice counts twice', input: { query: '{ ...F b { ...F } } fragment F on Query { a c }' }, expected: ok(cost(2, 5, 0, 2, 3)) },
  { ref: '§8 row 4 GraphqlMaxDuplicateFieldCount, duplicates: pagination does not multiply duplicates', input: { query: '{ a(first: 10) { b } b }' }, expected: ok(cost(2, 12, 0, 2, 2)) },
  { ref: '§8 rows 2–4, fan-out: 2^20 uses of F0, computed without expansion', input: { query: fanOut(20, 'x: a b') }, expected: ok(cost(1, 2 ** 21, 2 ** 20, 2 ** 20, 2)) },
  { ref: 'defect: 64-bit wraparound (§8 rows 2–4, fan-out: 2^60 uses saturate at MAX_SAFE_INTEGER)', input: { query: fanOut(60, 'x: a') }, expected: ok(cost(1, MAX, MAX, MAX, 1)) },
  // operation selection
  { ref: 'operation: the one named', input: { query: 'query A { a } query B { b c }', options: { operationName: 'B' } }, expected: ok(cost(1, 2, 0, 0, 2)) },
  { ref: 'operation: the only one', input: { query: 'query A { a { b } } fragment F on Q { c }' }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: 'operation: null operationName means the only one', input: { query: '{ a }', options: { operationName: null, variables: null } }, expected: ok(cost(1, 1, 0, 0, 1)) },
  { ref: 'operation: unused fragments do not count', input: { query: '{ a } fragment F on Q { b { c { d } } }' }, expected: ok(cost(1, 1, 0, 0, 1)) },
  { ref: 'operation: mutations are analyzed', input: { query: 'mutation { a(first: 2) { b } }' }, expected: ok(cost(2, 3, 0, 0, 2)) },
  { ref: 'operation: of two operations with one name, the last (the one graphql-js execution runs)', input: { query: 'query A { a } query A { b { c } }', options: { operationName: 'A' } }, expected: ok(cost(2, 2, 0, 0, 2)) },
  { ref: '§8 row 5 GraphqlMaxUniqueFieldCount, unique: distinct names, aliases not counted', input: { query: '{ x: a y: b a { __typename c } }' }, expected: ok(cost(2, 5, 2, 2, 4)) },
  // errors
  { ref: 'errors: ambiguous operation', input: { query: 'query A { a } query B { b }' }, expected: err({ code: 'ambiguous_operation', operationCount: 2 }) },
  { ref: 'errors: unknown operation', input: { query: 'query A { a }', options: { operationName: 'B' } }, expected: err({ code: 'unknown_operation', operationName: 'B' }) },
  { ref: 'errors: an anonymous operation has no name', input: { query: '{ a }', options: { operationName: '' } }, expected: err({ code: 'unknown_operation', operationName: '' }) },
  { ref: 'errors: no operation', input: { query: 'fragment F on Q { a }' }, expected: err({ code: 'no_operation' }) },
  { ref: 'errors: unknown fragment', input: { query: '{ a { ...G } }' }, expected: err({ code: 'unknown_fragment', fragmentName: 'G' }) },
  { ref: 'defect: cyclic or duplicated fragment looped (a self-spreading fragment is an error)', input: { query: '{ ...F } fragment F on Query { a ...F }' }, expected: err({ code: 'fragment_cycle', fragmentName: 'F' }) },
  { ref: 'defect: cyclic or duplicated fragment looped (a two-fragment cycle is an error)', input: { query: '{ ...A } fragment A on Query { b { ...B } } fragment B on Query { c { ...A } }' }, expected: err({ code: 'fragment_cycle', fragmentName: 'A' }) },
  { ref: 'defect: cyclic or duplicated fragment looped (a duplicated fragment name is an error)', input: { query: '{ ...F } fragment F on Query { a } fragment F on Query { ...F }' }, expected: err({ code: 'duplicate_fragment', fragmentName: 'F' }) },
  { ref: 'defect: cyclic or duplicated fragment looped (a cycle through inline fragments)', input: { query: '{ ...A } fragment A on Q { ... on Q { b { ...B } } } fragment B on Q { ... { ...A } }' }, expected: err({ code: 'fragment_cycle', fragmentName: 'A' }) },
  { ref: 'defect: cyclic or duplicated fragment looped (a duplicated name is an error even when unused)', input: { query: '{ a } fragment F on Q { b } fragment F on Q { c }' }, expected: err({ code: 'duplicate_fragment', fragmentName: 'F' }) },
  { ref: 'defect: failed estimate ran unlimited (an unknown fragment under pagination is err, never ok)', input: { query: '{ a(first: 1000) { ...Missing } }' }, expected: err({ code: 'unknown_fragment', fragmentName: 'Missing' }) },
  { ref: 'defect: failed estimate ran unlimited (a missing variable is err, never a count of 1)', input: { query: 'query($n: Int!) { a(first: $n) { b(first: $n) { c } } }', options: { variables: {} } }, expected: err({ code: 'missing_variable', variable: 'n' }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied Infinity', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: Infinity } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'first', variable: 'n', value: Infinity }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a missing non-null variable in first', input: { query: 'query($n: Int!) { a(first: $n) { x } }' }, expected: err({ code: 'missing_variable', variable: 'n' }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a null non-null variable in last', input: { query: 'query($n: Int!) { a(last: $n) { x } }', options: { variables: { n: null } } }, expected: err({ code: 'missing_variable', variable: 'n' }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied string', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: 'abc' } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'first', variable: 'n', value: 'abc' }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied numeric string', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: '10' } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'first', variable: 'n', value: '10' }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied boolean', input: { query: 'query($n: Int) { a(last: $n) { x } }', options: { variables: { n: true } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'last', variable: 'n', value: true }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied fraction', input: { query: 'query($n: Int) { a(first: $n) { x } }', options: { variables: { n: 1.5 } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'first', variable: 'n', value: 1.5 }) },
  { ref: '§8 row 2 graphQLMaxFieldCount, errors: a supplied non-integer on a leaf is still an error', input: { query: 'query($n: Int) { a(first: $n) }', options: { variables: { n: 'x' } } }, expected: err({ code: 'invalid_pagination_argument', argument: 'first', variable: 'n', value: 'x' }) },
  { ref: 'errors: invalid variables', input: { query: '{ a }', options: { variables: unsafe(['n']) } }, expected: err({ code: 'invalid_variables' }) },
];

describe('analyzeQueryCost', () => {
  it.each(rows)('should follow $ref', ({ input, expected }) => {
    // Arrange
    const document = parse(input.query);
    // Act
    const actual = analyzeQueryCost(document, input.options);
    // Assert
    expect(actual).toStrictEqual(expected);
  });

  it.each([
    { ref: 'never throws: null', input: null },
    { ref: 'never throws: empty object', input: {} },
    { ref: 'never throws: definitions not an array', input: { definitions: 'query' } },
    { ref: 'never throws: a selection set that is a number', input: { definitions: [{ kind: 'OperationDefinition', selectionSet: 5 }] } },
    { ref: 'never throws: an unknown selection kind', input: { definitions: [{ kind: 'OperationDefinition', selectionSet: { selections: [{ kind: 'Bogus' }] } }] } },
    { ref: 'never throws: a field without a name', input: { definitions: [{ kind: 'OperationDefinition', selectionSet: { selections: [{ kind: 'Field' }] } }] } },
    { ref: 'never throws: a field with arguments not an array', input: { definitions: [{ kind: 'OperationDefinition', selectionSet: { selections: [{ kind: 'Field', name: { value: 'a' }, arguments: 3 }] } }] } },
  ])('should return invalid_document for $ref', ({ input }) => {
    expect(analyzeQueryCost(unsafe(input))).toStrictEqual(err({ code: 'invalid_document' }));
  });

  it('should return invalid_document for a selection set that contains itself (a cyclic object, not a fragment)', () => {
    // Arrange
    const set: { kind: string; selections: unknown[] } = { kind: Kind.SELECTION_SET, selections: [] };
    set.selections.push({ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'a' }, selectionSet: set });
    // Act / Assert
    expect(analyzeQueryCost(unsafe({ kind: Kind.DOCUMENT, definitions: [{ kind: Kind.OPERATION_DEFINITION, selectionSet: set }] }))).toStrictEqual(
      err({ code: 'invalid_document' }),
    );
  });

  it('should analyze 1,000 fields deep from parsed text (bench case)', () => {
    const query = `${'{ a '.repeat(1000)}${'}'.repeat(1000)}`;
    expect(analyzeQueryCost(parse(query))).toStrictEqual(ok(cost(1000, 1000, 0, 1000, 1)));
  });

  it('should analyze 100,000 fields deep without overflowing the stack (iterative walk)', () => {
    expect(analyzeQueryCost(deepDocument(100_000))).toStrictEqual(ok(cost(100_001, 100_001, 0, 100_000, 2)));
  });

  it('should analyze 10,000 aliases and 10,000 __typename', () => {
    const aliases = `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: a`).join(' ')} }`;
    expect(analyzeQueryCost(parse(aliases))).toStrictEqual(ok(cost(1, 10_000, 10_000, 10_000, 1)));
    expect(analyzeQueryCost(parse(`{ ${'__typename '.repeat(10_000)}}`))).toStrictEqual(ok(cost(1, 10_000, 0, 10_000, 1)));
  });

  it('should return invalid_document for one selection set object used at two places (parse never shares one)', () => {
    // Arrange: one SelectionSetNode object under two fields, as an AST transform may produce.
    const shared: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: 'x' } }] };
    const field = (name: string) => ({ kind: Kind.FIELD, name: { kind: Kind.NAME, value: name }, selectionSet: shared }) as const;
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [{ kind: Kind.OPERATION_DEFINITION, operation: unsafe('query'), selectionSet: { kind: Kind.SELECTION_SET, selections: [field('a'), field('b')] } }],
    };
    // Act / Assert
    expect(analyzeQueryCost(document)).toStrictEqual(err({ code: 'invalid_document' }));
  });
});

// ---------------------------------------------------------------------------------------------
// Model transforms written for the tests (independent of the analyzer).

/** Replaces every spread of fragment `target` by the fragment's selections, spliced in place. */
function inlineFragment(model: DocumentModel, target: number, wrap: boolean): DocumentModel {
  const body = model.fragments[target] ?? [];
  const inline = (list: readonly SelectionModel[]): SelectionModel[] =>
    list.flatMap((s): SelectionModel[] => {
      if (s.kind === 'spread') return s.fragment === target ? (wrap ? [{ kind: 'inline', children: inline(body) }] : inline(body)) : [s];
      return [{ ...s, children: inline(s.children) }];
    });
  return { operation: inline(model.operation), fragments: model.fragments.map((f) => inline(f)) };
}

/** Inserts `field` at the start of the `n`-th selection list of the operation (pre-order, modulo their number). */
function addField(model: DocumentModel, n: number, field: FieldModel): DocumentModel {
  const lists: number[] = [];
  let counter = 0;
  const count = (list: readonly SelectionModel[]): void => {
    lists.push(counter++);
    for (const s of list) if (s.kind !== 'spread' && s.children.length > 0) count(s.children);
  };
  count(model.operation);
  const chosen = n % lists.length;
  counter = 0;
  const insert = (list: readonly SelectionModel[]): SelectionModel[] => {
    const here = counter++ === chosen;
    const mapped = list.map((s): SelectionModel => (s.kind === 'spread' ? s : { ...s, children: s.children.length === 0 ? [] : insert(s.children) }));
    return here ? [field, ...mapped] : mapped;
  };
  return { ...model, operation: insert(model.operation) };
}

/** Raises the `first` of the `n`-th field (pre-order over operation then fragments, modulo their number) by `delta`. */
function raiseFirst(model: DocumentModel, n: number, delta: number): DocumentModel {
  let fields = 0;
  const countFields = (list: readonly SelectionModel[]): void => {
    for (const s of list) {
      if (s.kind === 'field') fields++;
      if (s.kind !== 'spread') countFields(s.children);
    }
  };
  countFields(model.operation);
  model.fragments.forEach(countFields);
  if (fields === 0) return model;
  const chosen = n % fields;
  let counter = 0;
  const raise = (list: readonly SelectionModel[]): SelectionModel[] =>
    list.map((s): SelectionModel => {
      if (s.kind === 'spread') return s;
      if (s.kind === 'inline') return { ...s, children: raise(s.children) };
      const first = counter++ === chosen ? (s.first === null ? delta : s.first + delta) : s.first;
      return { ...s, first, children: raise(s.children) };
    });
  return { operation: raise(model.operation), fragments: model.fragments.map(raise) };
}

/**
 * The oracle: expands every spread by recursion on the model (exponential, fine for small models) and counts the
 * issue's definitions literally. Written independently of the analyzer, which never expands.
 */
function expandedCost(model: DocumentModel): QueryCost {
  let depth = 0;
  let fieldCount = 0;
  let aliasCount = 0;
  const names = new Map<string, number>();
  const positive = (n: number | null): number => (n !== null && n > 0 ? n : 1);
  const walk = (list: readonly SelectionModel[], level: number, multiplier: number): void => {
    for (const s of list) {
      if (s.kind === 'spread') walk(model.fragments[s.fragment] ?? [], level, multiplier);
      else if (s.kind === 'inline') walk(s.children, level, multiplier);
      else {
        depth = Math.max(depth, level + 1);
        fieldCount += multiplier;
        if (s.alias !== null) aliasCount += 1;
        names.set(s.name, (names.get(s.name) ?? 0) + 1);
        walk(s.children, level + 1, multiplier * Math.max(positive(s.first), positive(s.last)));
      }
    }
  };
  walk(model.operation, 0, 1);
  const highest = Math.max(0, ...names.values());
  return { depth, fieldCount: Math.min(fieldCount, MAX), aliasCount, highestDuplicateFieldCount: highest >= 2 ? highest : 0, uniqueFieldCount: names.size };
}

/**
 * Moves every integer `first`/`last` literal into a fresh operation variable: supplied in `variables` (declared
 * `Int!` or `Int`), or written as the variable's default and not supplied.
 */
function literalsToVariables(document: DocumentNode, how: 'supplied_non_null' | 'supplied_nullable' | 'default'): { document: DocumentNode; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {};
  const definitions: VariableDefinitionNode[] = [];
  const named = (value: string) => ({ kind: Kind.NAME, value }) as const;
  const withVariables = visit(document, {
    Argument(node) {
      if ((node.name.value !== 'first' && node.name.value !== 'last') || node.value.kind !== Kind.INT) return undefined;
      const name = `v${definitions.length}`;
      const type = { kind: Kind.NAMED_TYPE, name: named('Int') } as const;
      definitions.push({
        kind: Kind.VARIABLE_DEFINITION,
        variable: { kind: Kind.VARIABLE, name: named(name) },
        type: how === 'supplied_non_null' ? { kind: Kind.NON_NULL_TYPE, type } : type,
        ...(how === 'default' ? { defaultValue: node.value } : {}),
      });
      if (how !== 'default') variables[name] = Number(node.value.value);
      return { ...node, value: { kind: Kind.VARIABLE, name: named(name) } };
    },
  });
  const withDefinitions = visit(withVariables, {
    OperationDefinition: (node) => ({ ...node, variableDefinitions: definitions }),
  });
  return { document: parse(print(withDefinitions)), variables };
}

const resolvedModel = documentModel.map((m) => resolveSpreads(m, true));
const costOf = (document: DocumentNode): QueryCost => analyzeQueryCost(document)._unsafeUnwrap();
const KEYS = ['depth', 'fieldCount', 'aliasCount', 'highestDuplicateFieldCount', 'uniqueFieldCount'] as const;

describe('analyzeQueryCost properties', () => {
  test.prop([fc.anything(), fc.anything()])('should never throw on any value', (document, options) => {
    expect(() => analyzeQueryCost(unsafe(document), unsafe(options))).not.toThrow();
  });

  test.prop([anyDocument])('should never throw on documents whose fragments may form cycles, and answer ok or fragment_cycle', (document) => {
    const result = analyzeQueryCost(parse(print(document)));
    expect(result.isOk() || result._unsafeUnwrapErr().code === 'fragment_cycle').toBe(true);
  });

  test.prop([acyclicDocument])('should give non-negative safe integers for every cost of a printed document', (document) => {
    const c = costOf(parse(print(document)));
    for (const key of KEYS) {
      expect(Number.isSafeInteger(c[key]) && c[key] >= 0).toBe(true);
    }
  });

  test.prop([acyclicDocument])('should keep the cost through parse(print(doc))', (document) => {
    expect(analyzeQueryCost(parse(print(document)))).toStrictEqual(analyzeQueryCost(document));
  });

  test.prop([resolvedModel, fc.nat(), fc.boolean()])('should keep every cost when a fragment is inlined by hand', (model, n, wrap) => {
    // Arrange
    const target = model.fragments.length === 0 ? 0 : n % model.fragments.length;
    const inlined = inlineFragment(model, target, wrap);
    // Act / Assert
    expect(analyzeQueryCost(parse(print(toDocument(inlined))))).toStrictEqual(analyzeQueryCost(toDocument(model)));
  });

  test.prop([resolvedModel])('should keep every cost when every fragment is inlined and removed', (model) => {
    let inlined = model;
    for (let i = model.fragments.length - 1; i >= 0; i--) inlined = inlineFragment(inlined, i, false);
    const alone: DocumentModel = { operation: inlined.operation, fragments: [] };
    expect(analyzeQueryCost(toDocument(alone))).toStrictEqual(analyzeQueryCost(toDocument(model)));
  });

  test.prop([
    resolvedModel,
    fc.nat(),
    fc.record({ kind: fc.constant('field' as const), name: fieldName, alias: fc.option(fc.constantFrom('x', 'q'), { nil: null }), first: fc.constant(null), last: fc.constant(null), children: fc.constant([]) }, { noNullPrototype: true }),
  ])('should never lower any cost when a field is added', (model, n, field) => {
    const before = costOf(toDocument(model));
    const after = costOf(toDocument(addField(model, n, field)));
    for (const key of KEYS) expect(after[key]).toBeGreaterThanOrEqual(before[key]);
    expect(after.fieldCount).toBeGreaterThan(before.fieldCount);
  });

  test.prop([resolvedModel, fc.nat(), fc.integer({ min: 1, max: 1000 })])('should never lower fieldCount when a first is raised', (model, n, delta) => {
    const before = costOf(toDocument(model));
    const after = costOf(toDocument(raiseFirst(model, n, delta)));
    expect(after.fieldCount).toBeGreaterThanOrEqual(before.fieldCount);
    expect({ ...after, fieldCount: 0 }).toStrictEqual({ ...before, fieldCount: 0 });
  });

  test.prop([resolvedModel])('should equal the oracle that expands every fragment (model-based)', (model) => {
    expect(analyzeQueryCost(parse(print(toDocument(model))))).toStrictEqual(ok(expandedCost(model)));
  });

  test.prop([acyclicDocument, fc.constantFrom('supplied_non_null' as const, 'supplied_nullable' as const, 'default' as const)])(
    'should read first/last from a supplied variable or a default exactly as from a literal',
    (document, how) => {
      const moved = literalsToVariables(document, how);
      expect(analyzeQueryCost(moved.document, { variables: moved.variables })).toStrictEqual(analyzeQueryCost(document));
    },
  );

  test.prop([fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 10 })])('should count 2^levels uses of a fan-out exactly (oracle: powers of two)', (levels, width) => {
    const base = Array.from({ length: width }, (_, i) => `f${i}`).join(' ');
    expect(analyzeQueryCost(parse(fanOut(levels, base)))).toStrictEqual(
      ok(cost(1, 2 ** levels * width, 0, 2 ** levels, width)),
    );
  });
});

// ---------------------------------------------------------------------------------------------

const MESSAGES: Readonly<Record<keyof QueryLimits, string>> = {
  maxAliases: 'Query exceeds maximum alias count limit',
  maxFieldCount: 'Query exceeds maximum field count limit',
  maxDepth: 'Query exceeds maximum query depth limit',
  maxDuplicateFieldCount: 'Query exceeds maximum duplicate field count limit',
  maxUniqueFieldCount: 'Query exceeds maximum unique field count limit',
};
const COST_KEY: Readonly<Record<keyof QueryLimits, keyof QueryCost>> = {
  maxAliases: 'aliasCount',
  maxFieldCount: 'fieldCount',
  maxDepth: 'depth',
  maxDuplicateFieldCount: 'highestDuplicateFieldCount',
  maxUniqueFieldCount: 'uniqueFieldCount',
};

describe('checkQueryCost', () => {
  it.each([
    { ref: '§8 defaults, check: at every default limit passes', input: cost(30, 500_000, 500, 500, 500), expected: ok(cost(30, 500_000, 500, 500, 500)) },
    {
      ref: '§8 defaults, check: one over every default fails, in the issue order',
      input: cost(31, 500_001, 501, 501, 501),
      expected: err({
        code: 'query_limits_exceeded',
        exceeded: [
          { setting: 'maxAliases', limit: 500, actual: 501, message: 'Query exceeds maximum alias count limit' },
          { setting: 'maxFieldCount', limit: 500_000, actual: 500_001, message: 'Query exceeds maximum field count limit' },
          { setting: 'maxDepth', limit: 30, actual: 31, message: 'Query exceeds maximum query depth limit' },
          { setting: 'maxDuplicateFieldCount', limit: 500, actual: 501, message: 'Query exceeds maximum duplicate field count limit' },
          { setting: 'maxUniqueFieldCount', limit: 500, actual: 501, message: 'Query exceeds maximum unique field count limit' },
        ],
      }),
    },
    {
      ref: 'defect: positive configured limits ignored (§8 row 1 graphQLMaxDepth: a limit of 5 is applied)',
      input: cost(6, 1, 0, 0, 1),
      limits: { ...DEFAULT_QUERY_LIMITS, maxDepth: 5 },
      expected: err({ code: 'query_limits_exceeded', exceeded: [{ setting: 'maxDepth', limit: 5, actual: 6, message: 'Query exceeds maximum query depth limit' }] }),
    },
  ])('should follow $ref', ({ input, limits, expected }) => {
    expect(checkQueryCost(input, limits)).toStrictEqual(expected);
  });

  // Complete enumeration: each of the five costs at limit - 1, limit and limit + 1 (3^5 = 243 cases).
  const offsets = [-1, 0, 1] as const;
  const combos: (readonly number[])[] = [[]];
  for (let i = 0; i < 5; i++) {
    const next = combos.splice(0).flatMap((c) => offsets.map((o) => [...c, o]));
    combos.push(...next);
  }
  const limits: QueryLimits = { maxDepth: 7, maxFieldCount: 100, maxAliases: 3, maxDuplicateFieldCount: 4, maxUniqueFieldCount: 9 };
  it.each(combos.map((c) => ({ offsets: c })))('should report exactly the costs above their limits: $offsets', ({ offsets: o }) => {
    // Arrange: offsets are in QUERY_LIMIT_ORDER
    const values: Record<keyof QueryCost, number> = { depth: 0, fieldCount: 0, aliasCount: 0, highestDuplicateFieldCount: 0, uniqueFieldCount: 0 };
    QUERY_LIMIT_ORDER.forEach((setting, i) => {
      values[COST_KEY[setting]] = limits[setting] + (o[i] ?? 0);
    });
    const exceeded = QUERY_LIMIT_ORDER.filter((_, i) => o[i] === 1).map((setting) => ({
      setting,
      limit: limits[setting],
      actual: limits[setting] + 1,
      message: MESSAGES[setting],
    }));
    // Act / Assert
    expect(checkQueryCost(values, limits)).toStrictEqual(exceeded.length === 0 ? ok(values) : err({ code: 'query_limits_exceeded', exceeded }));
  });

  it('should use DEFAULT_QUERY_LIMITS when no limits are given', () => {
    expect(checkQueryCost(cost(31, 0, 0, 0, 0))._unsafeUnwrapErr().exceeded.map((e) => e.setting)).toStrictEqual(['maxDepth']);
  });

  it('should fall back to the default for a limit that is not a number, and fail a cost that is not a number', () => {
    expect(checkQueryCost(cost(31, 0, 0, 0, 0), unsafe({ ...DEFAULT_QUERY_LIMITS, maxDepth: 'x' }))._unsafeUnwrapErr().exceeded[0]).toStrictEqual({
      setting: 'maxDepth',
      limit: 30,
      actual: 31,
      message: MESSAGES.maxDepth,
    });
    expect(checkQueryCost(unsafe({ ...cost(1, 1, 0, 0, 1), depth: Number.NaN }))._unsafeUnwrapErr().exceeded.map((e) => e.setting)).toStrictEqual(['maxDepth']);
  });

  test.prop([fc.anything(), fc.anything()])('should never throw on any value', (c, l) => {
    expect(() => checkQueryCost(unsafe(c), unsafe(l))).not.toThrow();
  });
});

describe('queryCostErrorMessage', () => {
  // One row per error code (the `satisfies` keeps the table exhaustive when a code is added).
  const rows = {
    no_operation: [{ code: 'no_operation' }, 'the document has no operation'],
    ambiguous_operation: [{ code: 'ambiguous_operation', operationCount: 2 }, 'several operations'],
    unknown_operation: [{ code: 'unknown_operation', operationName: 'Op' }, '"Op"'],
    unknown_fragment: [{ code: 'unknown_fragment', fragmentName: 'F' }, 'unknown fragment "F"'],
    fragment_cycle: [{ code: 'fragment_cycle', fragmentName: 'G' }, 'fragment "G" spreads itself'],
    duplicate_fragment: [{ code: 'duplicate_fragment', fragmentName: 'H' }, '"H"'],
    missing_variable: [{ code: 'missing_variable', variable: 'n' }, '"$n"'],
    invalid_pagination_argument: [{ code: 'invalid_pagination_argument', argument: 'last', variable: 'm', value: 'x' }, '"$m" used in last'],
    invalid_variables: [{ code: 'invalid_variables' }, 'variables must be an object'],
    invalid_document: [{ code: 'invalid_document' }, 'malformed'],
    page_size_out_of_range: [{ code: 'page_size_out_of_range', field: 'a', argument: 'first', value: 101, max: 100 }, 'first on "a" must be from 0 to 100'],
    invalid_list_fields: [{ code: 'invalid_list_fields', field: 'a' }, 'list field "a"'],
  } satisfies { [C in QueryCostError['code']]: readonly [Extract<QueryCostError, { code: C }>, string] };

  it.each(Object.entries(rows))('should say what went wrong for %s (an analysis error is reported, never passed)', (_, [error, part]) => {
    const message = queryCostErrorMessage(error);
    expect(message.startsWith('Query cost cannot be measured: ')).toBe(true);
    expect(message).toContain(part);
  });
});

describe('analyzeQueryCost with listFields (§8: pagination keeps a response under the field count)', () => {
  const listFields: ListFields = {
    tokens: { defaultPageSize: 20, maxPageSize: 100 },
    scopes: { defaultPageSize: 20, maxPageSize: 100 },
  };
  const measure = (query: string, variables: Record<string, unknown> = {}) =>
    analyzeQueryCost(parse(query), { listFields, variables });

  it.each([
    { ref: '§8 a list without first counts its default page', query: '{ u { tokens { note } } }', fieldCount: 2 + 20 },
    { ref: '§8 aliases each count their page', query: '{ a: u { tokens { note } } b: u { tokens { note } } }', fieldCount: 2 * (2 + 20) },
    { ref: '§8 a literal first replaces the default', query: '{ u { tokens(first: 3) { note } } }', fieldCount: 2 + 3 },
    { ref: '§8 first: 0 counts the sub-selection once', query: '{ u { tokens(first: 0) { note } } }', fieldCount: 2 + 1 },
    { ref: '§8 first: 100, the maximum', query: '{ u { tokens(first: 100) { note } } }', fieldCount: 2 + 100 },
    { ref: '§8 nested lists multiply', query: '{ tokens { scopes { x } } }', fieldCount: 1 + 20 + 20 * 20 },
    { ref: '§8 a leaf list counts once', query: '{ tokens { scopes } }', fieldCount: 1 + 20 },
    { ref: '§8 other names are not lists', query: '{ u { other { note } } }', fieldCount: 3 },
    { ref: '§8 a prototype name is not a list', query: '{ constructor { toString { x } } }', fieldCount: 3 },
  ])('should count $ref', ({ query, fieldCount }) => {
    expect(measure(query)._unsafeUnwrap().fieldCount).toBe(fieldCount);
  });

  it.each([
    { ref: 'a variable first', variables: { n: 7 }, fieldCount: 2 + 7 },
    { ref: 'an absent variable: the default page', variables: {}, fieldCount: 2 + 20 },
    { ref: 'a null variable: the default page', variables: { n: null }, fieldCount: 2 + 20 },
  ])('should count first: $var at its value ($ref) (§8)', ({ variables, fieldCount }) => {
    expect(measure('query ($n: Int) { u { tokens(first: $n) { note } } }', variables)._unsafeUnwrap().fieldCount).toBe(fieldCount);
  });

  it.each([
    { ref: 'a literal above the maximum', query: '{ tokens(first: 101) { x } }', variables: {}, argument: 'first', value: 101 },
    { ref: 'a negative literal', query: '{ tokens(first: -1) { x } }', variables: {}, argument: 'first', value: -1 },
    { ref: 'last above the maximum', query: '{ tokens(last: 1000) { x } }', variables: {}, argument: 'last', value: 1000 },
    { ref: 'a variable above the maximum', query: 'query ($n: Int) { tokens(first: $n) { x } }', variables: { n: 500 }, argument: 'first', value: 500 },
    { ref: 'a default above the maximum', query: 'query ($n: Int = 200) { tokens(first: $n) { x } }', variables: {}, argument: 'first', value: 200 },
    { ref: 'on a leaf list', query: '{ tokens { scopes(first: 101) } }', variables: {}, argument: 'first', value: 101, field: 'scopes' },
  ])('should refuse $ref with page_size_out_of_range (§8)', ({ query, variables, argument, value, field }) => {
    expect(measure(query, variables)).toStrictEqual(
      err({ code: 'page_size_out_of_range', field: field ?? 'tokens', argument, value, max: 100 }),
    );
  });

  it.each([
    { ref: 'a zero default', listFields: { a: { defaultPageSize: 0, maxPageSize: 100 } }, field: 'a' },
    { ref: 'a maximum below the default', listFields: { a: { defaultPageSize: 20, maxPageSize: 10 } }, field: 'a' },
    { ref: 'a fractional size', listFields: { b: { defaultPageSize: 1.5, maxPageSize: 10 } }, field: 'b' },
    { ref: 'a missing entry', listFields: { c: null }, field: 'c' },
    { ref: 'not an object', listFields: 'tokens', field: '' },
  ])('should refuse malformed listFields: $ref', ({ listFields: bad, field }) => {
    expect(analyzeQueryCost(parse('{ a { x } }'), { listFields: unsafe<ListFields>(bad) })).toStrictEqual(
      err({ code: 'invalid_list_fields', field }),
    );
  });

  test.prop([acyclicDocument])('should measure as before when listFields is empty or null (existing calls unchanged)', (document) => {
    const before = analyzeQueryCost(document);
    expect(analyzeQueryCost(document, { listFields: {} })).toStrictEqual(before);
    expect(analyzeQueryCost(document, { listFields: null })).toStrictEqual(before);
  });

  test.prop([acyclicDocument, fc.integer({ min: 1, max: 50 })])(
    'should never count less when a name is a list with a default page (or refuse a negative first)',
    (document, size) => {
      const plain = analyzeQueryCost(document);
      const listed = analyzeQueryCost(document, { listFields: { node: { defaultPageSize: size, maxPageSize: 1000 } } });
      if (listed.isErr()) {
        expect(listed.error).toMatchObject({ code: 'page_size_out_of_range', field: 'node' });
        expect(listed.error.code === 'page_size_out_of_range' && listed.error.value < 0).toBe(true);
        return;
      }
      expect(listed._unsafeUnwrap().fieldCount).toBeGreaterThanOrEqual(plain._unsafeUnwrap().fieldCount);
      // A default page of 1 is exactly "counts once".
      if (size === 1) expect(listed).toStrictEqual(plain);
    },
  );
});

describe('countFieldSelections', () => {
  it.each([
    { ref: 'none', query: '{ a }', count: 0 },
    { ref: 'aliases each count', query: '{ x: search y: search z: search }', count: 3 },
    { ref: 'a spread counts its fragment again', query: '{ ...F ...F } fragment F on Query { search }', count: 2 },
    { ref: 'nested spreads multiply', query: '{ ...G ...G } fragment G on Query { ...F ...F } fragment F on Query { search }', count: 4 },
    { ref: 'pagination does not multiply', query: '{ a(first: 100) { search } }', count: 1 },
    { ref: 'inline fragments count', query: '{ ... on Query { search } search }', count: 2 },
  ])('should count the selections of a name: $ref (§2.2 search)', ({ query, count }) => {
    expect(countFieldSelections(parse(query), 'search')).toStrictEqual(ok(count));
  });

  it('should report the errors analyzeQueryCost reports', () => {
    expect(countFieldSelections(parse('{ ...F } fragment F on Query { ...F }'), 'search')).toStrictEqual(
      err({ code: 'fragment_cycle', fragmentName: 'F' }),
    );
    expect(countFieldSelections(unsafe<DocumentNode>(null), 'search')).toStrictEqual(err({ code: 'invalid_document' }));
  });

  test.prop([acyclicDocument])('should agree with highestDuplicateFieldCount on the most selected name', (document) => {
    const cost = analyzeQueryCost(document)._unsafeUnwrap();
    const counts = ['a', 'b', 'c', 'id', 'node', '__typename'].map((name) => countFieldSelections(document, name)._unsafeUnwrap());
    const highest = Math.max(...counts);
    expect(highest >= 2 ? highest : 0).toBe(cost.highestDuplicateFieldCount);
    expect(counts.filter((c) => c > 0)).toHaveLength(cost.uniqueFieldCount);
  });
});
