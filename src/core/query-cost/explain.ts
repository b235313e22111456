/**
 * The query cost of spec §8 explained: the five measures of an operation beside their limits, and, for the field
 * count, how each list field's `first`/`last` (or its default page) bounded it. Plain data a server can answer with
 * and a client can print.
 *
 * @module
 */
import { Kind } from 'graphql';
import type { DocumentNode, FieldNode, OperationDefinitionNode, SelectionNode, SelectionSetNode, ValueNode } from 'graphql';
import { err, ok, Result } from 'neverthrow';
import { analyzeQueryCost, checkQueryCost } from './analyze.js';
import type { ListFieldPagination, QueryCost, QueryCostError, QueryCostOptions } from './analyze.js';
import type { ExceededQueryLimit } from './check.js';
import { DEFAULT_QUERY_LIMITS } from './limits.js';
import type { QueryLimits } from './limits.js';
import { isObject } from '../internal/guard.js';

/** One measure of spec §8 beside its configured limit; the query is refused when `value > limit`. */
export interface QueryCostMeasure {
  /** The query's cost. */
  readonly value: number;
  /** The configured limit. */
  readonly limit: number;
  /** The `rateLimits` setting of spec §8 that sets the limit (`graphQLMaxDepth`, …). */
  readonly setting: string;
}

/** How one list field's page bounded the field count. */
export interface ListFieldBound {
  /** The field's place in the response: response names (alias, else name) from the root, joined by `.`, fragments inlined. */
  readonly path: string;
  /** The field's name in the schema. */
  readonly field: string;
  /** Its `first` (literal, supplied variable or the variable's default); `null` when it has none. */
  readonly first: number | null;
  /** Its `last`, likewise. */
  readonly last: number | null;
  /** How many items its sub-selection is counted for. */
  readonly pageSize: number;
  /** What set `pageSize`: its `first`, its `last` (the larger when both), or the list's default page when neither. */
  readonly boundBy: 'first' | 'last' | 'default_page_size';
  /** The largest `first`/`last` the list accepts; `null` when it is not a known list field. */
  readonly maxPageSize: number | null;
  /** How many times each field of its sub-selection counts: its `pageSize` times the pages of the lists above it. */
  readonly multiplier: number;
}

/** The field count with the list fields that multiplied it. */
export interface FieldCountMeasure extends QueryCostMeasure {
  /** Every paginated field in response order, at most {@link MAX_EXPLAINED_LISTS}. */
  readonly lists: readonly ListFieldBound[];
  /** Whether more paginated fields exist than `lists` shows (a bounded walk of a document with many fragment uses). */
  readonly listsTruncated: boolean;
}

/** The five measures of spec §8 of one operation, each with its limit, and the limits it exceeds. */
export interface QueryCostExplanation {
  /** Nesting depth (`graphQLMaxDepth`). */
  readonly depth: QueryCostMeasure;
  /** Fields in the response, pagination counted (`graphQLMaxFieldCount`). */
  readonly fieldCount: FieldCountMeasure;
  /** Aliased fields (`graphQLMaxAliases`). */
  readonly aliases: QueryCostMeasure;
  /** The most times one field name is selected (`GraphqlMaxDuplicateFieldCount`). */
  readonly duplicateFieldCount: QueryCostMeasure;
  /** Distinct field names (`GraphqlMaxUniqueFieldCount`). */
  readonly uniqueFieldCount: QueryCostMeasure;
  /** Every exceeded limit, as `checkQueryCost` reports them; empty when the query is within its limits. */
  readonly exceeded: readonly ExceededQueryLimit[];
}

/**
 * The most list fields one explanation lists.
 *
 * @example
 * ```ts
 * MAX_EXPLAINED_LISTS; // 100
 * ```
 */
export const MAX_EXPLAINED_LISTS = 100;

/** The most selections the list walk visits (fragments are inlined there, so a fan-out is cut off, never followed). */
const MAX_VISITS = 10_000;
const MAX = Number.MAX_SAFE_INTEGER;

function clampInteger(n: number): number {
  return n > MAX ? MAX : n < -MAX ? -MAX : n;
}

function literal(value: ValueNode | undefined): number | null {
  return value !== undefined && value.kind === Kind.INT ? clampInteger(Number(value.value)) : null;
}

/** The page size argument as the analyzer reads it: a literal, the supplied variable, or the variable's default. */
function readArgument(value: ValueNode, defaults: ReadonlyMap<string, ValueNode | undefined>, variables: Readonly<Record<string, unknown>>): number | null {
  if (value.kind !== Kind.VARIABLE) return literal(value);
  const name = value.name.value;
  const supplied: unknown = Object.hasOwn(variables, name) ? Object.getOwnPropertyDescriptor(variables, name)?.value : undefined;
  if (typeof supplied === 'number' && Number.isInteger(supplied)) return clampInteger(supplied);
  if (supplied === undefined) return literal(defaults.get(name));
  return null;
}

function selectOperation(document: DocumentNode, operationName: string | null): OperationDefinitionNode | undefined {
  let chosen: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName === null || definition.name?.value === operationName) chosen = definition;
  }
  return chosen;
}

interface Frame {
  readonly selections: readonly SelectionNode[];
  next: number;
  readonly path: string;
  readonly multiplier: number;
}

/** The bound of one field, or `null` when neither its arguments nor the list fields paginate it. */
function boundOf(
  field: FieldNode,
  pagination: ListFieldPagination | undefined,
  defaults: ReadonlyMap<string, ValueNode | undefined>,
  variables: Readonly<Record<string, unknown>>,
): Pick<ListFieldBound, 'first' | 'last' | 'pageSize' | 'boundBy' | 'maxPageSize'> | null {
  let first: number | null = null;
  let last: number | null = null;
  for (const argument of field.arguments ?? []) {
    if (argument.name.value === 'first') first = readArgument(argument.value, defaults, variables);
    else if (argument.name.value === 'last') last = readArgument(argument.value, defaults, variables);
  }
  const maxPageSize = pagination?.maxPageSize ?? null;
  if (first === null && last === null) {
    return pagination === undefined ? null : { first, last, pageSize: pagination.defaultPageSize, boundBy: 'default_page_size', maxPageSize };
  }
  const byLast = last !== null && (first === null || last > first);
  const pageSize = Math.max(1, first ?? 1, last ?? 1);
  return { first, last, pageSize, boundBy: byLast ? 'last' : 'first', maxPageSize };
}

/** Every paginated field in response order, fragments inlined, within {@link MAX_VISITS} selections. */
function listBounds(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  options: QueryCostOptions,
): { readonly lists: readonly ListFieldBound[]; readonly truncated: boolean } {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const defaults = new Map<string, ValueNode | undefined>();
  for (const definition of operation.variableDefinitions ?? []) defaults.set(definition.variable.name.value, definition.defaultValue);
  const variables = options.variables ?? {};
  const listFields = options.listFields ?? {};
  const lists: ListFieldBound[] = [];
  let visits = 0;
  // A depth-first walk in document order with an explicit stack: each frame is a selection set and the next
  // selection to visit in it.
  const stack: Frame[] = [{ selections: operation.selectionSet.selections, next: 0, path: '', multiplier: 1 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame === undefined) break;
    const selection = frame.selections[frame.next];
    if (selection === undefined) {
      stack.pop();
      continue;
    }
    frame.next++;
    visits++;
    if (visits > MAX_VISITS) return { lists, truncated: true };
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const set = fragments.get(selection.name.value);
      if (set !== undefined) stack.push({ selections: set.selections, next: 0, path: frame.path, multiplier: frame.multiplier });
      continue;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      stack.push({ selections: selection.selectionSet.selections, next: 0, path: frame.path, multiplier: frame.multiplier });
      continue;
    }
    const name = selection.name.value;
    const responseName = (selection.alias ?? selection.name).value;
    const path = frame.path === '' ? responseName : `${frame.path}.${responseName}`;
    const pagination: ListFieldPagination | undefined = Object.hasOwn(listFields, name) ? listFields[name] : undefined;
    const bound = boundOf(selection, pagination, defaults, variables);
    let multiplier = frame.multiplier;
    if (bound !== null) {
      const product = frame.multiplier * bound.pageSize;
      multiplier = product > MAX ? MAX : product;
      if (lists.length >= MAX_EXPLAINED_LISTS) return { lists, truncated: true };
      lists.push({ path, field: name, ...bound, multiplier });
    }
    if (selection.selectionSet !== undefined) stack.push({ selections: selection.selectionSet.selections, next: 0, path, multiplier });
  }
  return { lists, truncated: false };
}

function measures(cost: QueryCost, limits: QueryLimits, lists: readonly ListFieldBound[], truncated: boolean): QueryCostExplanation {
  const exceeded = checkQueryCost(cost, limits).match(
    () => [],
    (e) => e.exceeded,
  );
  return {
    depth: { value: cost.depth, limit: limits.maxDepth, setting: 'graphQLMaxDepth' },
    fieldCount: { value: cost.fieldCount, limit: limits.maxFieldCount, setting: 'graphQLMaxFieldCount', lists, listsTruncated: truncated },
    aliases: { value: cost.aliasCount, limit: limits.maxAliases, setting: 'graphQLMaxAliases' },
    duplicateFieldCount: { value: cost.highestDuplicateFieldCount, limit: limits.maxDuplicateFieldCount, setting: 'GraphqlMaxDuplicateFieldCount' },
    uniqueFieldCount: { value: cost.uniqueFieldCount, limit: limits.maxUniqueFieldCount, setting: 'GraphqlMaxUniqueFieldCount' },
    exceeded,
  };
}

function explainUnsafe(document: DocumentNode, options: QueryCostOptions, limits: QueryLimits): Result<QueryCostExplanation, QueryCostError> {
  const cost = analyzeQueryCost(document, options);
  if (cost.isErr()) return err(cost.error);
  const operation = selectOperation(document, options.operationName ?? null);
  // The analyzer found the operation, so this holds; an empty breakdown is still a truthful (bounded) answer.
  const { lists, truncated } = operation === undefined ? { lists: [], truncated: true } : listBounds(document, operation, options);
  return ok(measures(cost.value, limits, lists, truncated));
}

const explainSafely = Result.fromThrowable(explainUnsafe, (): QueryCostError => ({ code: 'invalid_document' }));

/**
 * Explains the cost of the operation a request would run (spec §8): the five measures of {@link analyzeQueryCost}
 * (same operation, options and errors), each beside its limit and the `rateLimits` setting that sets it, the
 * limits exceeded (as `checkQueryCost` reports them), and how each paginated field bounded the field count: its
 * `first`/`last` or, for a list field of `options.listFields` without them, its default page.
 *
 * The list breakdown inlines fragments, so it is bounded: at most {@link MAX_EXPLAINED_LISTS} entries and a walk of at
 * most 10,000 selections; `listsTruncated` says when it was cut off. The measures themselves are always exact.
 * Never throws.
 *
 * @param document - A parsed GraphQL document.
 * @param options - The request's `operationName`, `variables` and the schema's `listFields`.
 * @param limits - The configured limits; the defaults of spec §8 when absent.
 * @returns `ok` with the explanation, or the analyzer's error.
 *
 * @example
 * ```ts
 * explainQueryCost(parse('{ users(first: 50) { name } }'), { listFields: { users: { defaultPageSize: 20, maxPageSize: 100 } } });
 * // ok({ depth: { value: 2, limit: 30, setting: 'graphQLMaxDepth' },
 * //      fieldCount: { value: 51, limit: 500000, setting: 'graphQLMaxFieldCount', listsTruncated: false,
 * //        lists: [{ path: 'users', field: 'users', first: 50, last: null, pageSize: 50, boundBy: 'first', maxPageSize: 100, multiplier: 50 }] },
 * //      aliases: { value: 0, … }, duplicateFieldCount: { value: 0, … }, uniqueFieldCount: { value: 2, … }, exceeded: [] })
 * ```
 */
export function explainQueryCost(
  document: DocumentNode,
  options: QueryCostOptions = {},
  limits: QueryLimits = DEFAULT_QUERY_LIMITS,
): Result<QueryCostExplanation, QueryCostError> {
  if (!isObject(options)) return err({ code: 'invalid_variables' });
  return explainSafely(document, options, limits).andThen((result) => result);
}
