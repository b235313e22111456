/**
 * The query cost analyzer of spec §8: the five costs of a GraphQL operation, measured on the graphql-js AST, and
 * their check against {@link QueryLimits}.
 *
 * @module
 */
import { Kind } from 'graphql';
import type {
  ArgumentNode,
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  OperationDefinitionNode,
  SelectionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';
import { err, ok, Result } from 'neverthrow';
import type { QueryLimits } from './limits.js';
import { isObject } from '../internal/guard.js';

/**
 * The five costs of one operation (spec §8). Every value is a non-negative safe integer; counts saturate at
 * `Number.MAX_SAFE_INTEGER` instead of wrapping.
 *
 * Each fragment spread counts as if the fragment were written at its place (without expanding it).
 */
export interface QueryCost {
  /** The greatest number of fields on one path from the root to a leaf: `{ a }` is 1, `{ a { b } }` is 2. */
  readonly depth: number;
  /**
   * An upper bound on the number of fields in the response: each field counts once times the product of the
   * positive integer `first`/`last` arguments (the larger when both) of the fields above it.
   */
  readonly fieldCount: number;
  /** The number of aliased fields (`b: a` counts, so does `a: a`). */
  readonly aliasCount: number;
  /** The largest number of times one field name is selected; 0 when no name is selected twice. */
  readonly highestDuplicateFieldCount: number;
  /** The number of distinct field names selected (`__typename` included). */
  readonly uniqueFieldCount: number;
}

/**
 * Options of {@link analyzeQueryCost}: which operation runs and with which variables, as in a GraphQL request
 * (spec §2.1).
 */
export interface QueryCostOptions {
  /** The operation to analyze; `null` or absent means the document's only operation. */
  readonly operationName?: string | null;
  /** The request's variables; `null` or absent means none were supplied. */
  readonly variables?: Readonly<Record<string, unknown>> | null;
  /**
   * The list fields of the schema by field name, with their page sizes: a field of one of these names counts its
   * sub-selection `defaultPageSize` times when it has no `first`/`last`, and a `first`/`last` outside
   * `0…maxPageSize` is `page_size_out_of_range`. `null` or absent: every field without `first`/`last` counts once.
   */
  readonly listFields?: ListFields | null;
}

/** How one list field is paginated: how many items it returns without `first`/`last`, and the most it returns. */
export interface ListFieldPagination {
  /** Items returned when the query gives no `first`/`last` (a positive safe integer). */
  readonly defaultPageSize: number;
  /** The largest `first`/`last` accepted (a safe integer, at least `defaultPageSize`). */
  readonly maxPageSize: number;
}

/**
 * The list fields of a schema by field name (for {@link QueryCostOptions.listFields}). The analyzer sees no types,
 * so a name stands for every field of that name: give each name the largest page sizes any field of that name has.
 */
export type ListFields = Readonly<Record<string, ListFieldPagination>>;

/** Why a document's cost could not be measured. The analyzer never passes a query it could not measure. */
export type QueryCostError =
  /** The document has no operation (and no `operationName` was given). */
  | { readonly code: 'no_operation' }
  /** The document has several operations and no `operationName` was given. */
  | { readonly code: 'ambiguous_operation'; readonly operationCount: number }
  /** No operation is named `operationName`. */
  | { readonly code: 'unknown_operation'; readonly operationName: string }
  /** The operation (directly or through a fragment) spreads a fragment the document does not define. */
  | { readonly code: 'unknown_fragment'; readonly fragmentName: string }
  /** A fragment used by the operation spreads itself, directly or through other fragments. */
  | { readonly code: 'fragment_cycle'; readonly fragmentName: string }
  /** Two fragments of the document share one name. */
  | { readonly code: 'duplicate_fragment'; readonly fragmentName: string }
  /** A non-null variable used in `first`/`last` was not supplied (or was `null`) and has no default. */
  | { readonly code: 'missing_variable'; readonly variable: string }
  /** A supplied variable used in `first`/`last` is not an integer at all (`"abc"`, `true`, `1.5`). */
  | {
      readonly code: 'invalid_pagination_argument';
      readonly argument: 'first' | 'last';
      readonly variable: string;
      readonly value: unknown;
    }
  /** `variables` is neither an object, `null` nor absent. */
  | { readonly code: 'invalid_variables' }
  /** A list field's `first`/`last` (literal or variable) is negative or above its `maxPageSize`. */
  | {
      readonly code: 'page_size_out_of_range';
      readonly field: string;
      readonly argument: 'first' | 'last';
      readonly value: number;
      readonly max: number;
    }
  /** `listFields` is not an object of `{ defaultPageSize, maxPageSize }` positive safe integers (the first bad name). */
  | { readonly code: 'invalid_list_fields'; readonly field: string }
  /** The document is not a graphql-js `DocumentNode` (a malformed object, a cyclic selection set, …). */
  | { readonly code: 'invalid_document' };

const MAX = Number.MAX_SAFE_INTEGER;

function satAdd(a: number, b: number): number {
  const s = a + b;
  return s > MAX ? MAX : s;
}

function satMul(a: number, b: number): number {
  const p = a * b;
  return p > MAX ? MAX : p;
}

/** How variables are known: supplied by the request, or unknown (validation time, before variables are seen). */
type VariableSource = { readonly kind: 'supplied'; readonly values: Readonly<Record<string, unknown>> } | { readonly kind: 'unknown' };

interface VariableDeclaration {
  readonly nonNull: boolean;
  readonly defaultValue: ValueNode | undefined;
}

/** The integer a literal gives, or `null` when it is not an integer literal (validation reports its type). */
function literalValue(value: ValueNode): number | null {
  if (value.kind !== Kind.INT) return null;
  const n = Number(value.value);
  return n > MAX ? MAX : n < -MAX ? -MAX : n;
}

/** An integer page size as written or supplied (any sign), `null` when none is given, or why it cannot be read. */
type PageSize = number | null | QueryCostError;

function argumentValue(
  argument: 'first' | 'last',
  value: ValueNode,
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: VariableSource,
): PageSize {
  if (!isObject(value)) return { code: 'invalid_document' };
  if (value.kind !== Kind.VARIABLE) return literalValue(value);
  const name = value.name.value;
  if (typeof name !== 'string') return { code: 'invalid_document' };
  const declaration = declarations.get(name);
  const supplied =
    variables.kind === 'supplied' && Object.hasOwn(variables.values, name)
      ? Object.getOwnPropertyDescriptor(variables.values, name)?.value
      : undefined;
  if (supplied === undefined) {
    if (declaration?.defaultValue !== undefined) return literalValue(declaration.defaultValue);
    if (declaration?.nonNull === true && variables.kind === 'supplied') return { code: 'missing_variable', variable: name };
    return null;
  }
  if (supplied === null) return declaration?.nonNull === true ? { code: 'missing_variable', variable: name } : null;
  if (typeof supplied === 'number' && Number.isInteger(supplied)) return Math.max(-MAX, Math.min(supplied, MAX));
  return { code: 'invalid_pagination_argument', argument, variable: name, value: supplied };
}

/** A multiplier (≥ 1) or the reason it cannot be computed. Plain union, no allocation on the hot path. */
type Multiplier = number | QueryCostError;

/**
 * The multiplier of a field's sub-selection: the larger positive `first`/`last`, else (for a list field of
 * `pagination`) its default page size, else 1. A list field's `first`/`last` outside `0…maxPageSize` is an error.
 */
function fieldMultiplier(
  field: FieldNode,
  name: string,
  pagination: ListFieldPagination | undefined,
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: VariableSource,
): Multiplier {
  const args = field.arguments;
  let multiplier = 1;
  let given = false;
  if (args !== undefined && args !== null) {
    if (!Array.isArray(args)) return { code: 'invalid_document' };
    const list: readonly ArgumentNode[] = args;
    for (const arg of list) {
      if (!isObject(arg) || !isObject(arg.name)) return { code: 'invalid_document' };
      const argument = arg.name.value;
      if (argument !== 'first' && argument !== 'last') continue;
      const value = argumentValue(argument, arg.value, declarations, variables);
      if (value === null) continue;
      if (typeof value !== 'number') return value;
      if (pagination !== undefined && (value < 0 || value > pagination.maxPageSize)) {
        return { code: 'page_size_out_of_range', field: name, argument, value, max: pagination.maxPageSize };
      }
      given = true;
      if (value > multiplier) multiplier = value;
    }
  }
  return !given && pagination !== undefined ? pagination.defaultPageSize : multiplier;
}

/** The `listFields` option as a map, or the first name whose page sizes are not positive safe integers. */
function listFieldMap(listFields: unknown): Result<ReadonlyMap<string, ListFieldPagination>, QueryCostError> {
  const map = new Map<string, ListFieldPagination>();
  if (listFields === undefined || listFields === null) return ok(map);
  if (!isObject(listFields) || Array.isArray(listFields)) return err({ code: 'invalid_list_fields', field: '' });
  for (const name of Object.keys(listFields)) {
    const entry: unknown = Object.getOwnPropertyDescriptor(listFields, name)?.value;
    const size: unknown = isObject(entry) ? Object.getOwnPropertyDescriptor(entry, 'defaultPageSize')?.value : undefined;
    const max: unknown = isObject(entry) ? Object.getOwnPropertyDescriptor(entry, 'maxPageSize')?.value : undefined;
    if (typeof size !== 'number' || typeof max !== 'number' || !Number.isSafeInteger(size) || !Number.isSafeInteger(max) || size < 1 || max < size) {
      return err({ code: 'invalid_list_fields', field: name });
    }
    map.set(name, { defaultPageSize: size, maxPageSize: max });
  }
  return ok(map);
}

function variableDeclarations(operation: OperationDefinitionNode): Result<Map<string, VariableDeclaration>, QueryCostError> {
  const declarations = new Map<string, VariableDeclaration>();
  const defs = operation.variableDefinitions;
  if (defs === undefined || defs === null) return ok(declarations);
  if (!Array.isArray(defs)) return err({ code: 'invalid_document' });
  for (const def of defs) {
    const name = def.variable.name.value;
    if (typeof name !== 'string' || !isObject(def.type)) return err({ code: 'invalid_document' });
    declarations.set(name, { nonNull: def.type.kind === Kind.NON_NULL_TYPE, defaultValue: def.defaultValue ?? undefined });
  }
  return ok(declarations);
}

/**
 * What one container (the operation's selection set or one fragment's) holds by itself, fragment spreads not
 * followed: its fields' greatest level, its fields' count weighted by the pagination above them, its aliases, how
 * often each field name occurs, and each spread with its level and the pagination product above it.
 */
interface Container {
  readonly depth: number;
  readonly unit: number;
  readonly aliases: number;
  readonly names: ReadonlyMap<string, number>;
  readonly spreadNames: readonly string[];
  readonly spreadLevels: readonly number[];
  readonly spreadMultipliers: readonly number[];
}

/** Whether a field has an argument list to read (an empty list, the common case, is skipped without a call). */
function hasArguments(field: FieldNode): boolean {
  const args: unknown = field.arguments;
  return args !== undefined && args !== null && !(Array.isArray(args) && args.length === 0);
}

/** A selection by its `kind`; its other members are checked where they are read. */
function isSelection(value: unknown): value is SelectionNode {
  if (!isObject(value) || !('kind' in value)) return false;
  const kind = value.kind;
  return kind === Kind.FIELD || kind === Kind.INLINE_FRAGMENT || kind === Kind.FRAGMENT_SPREAD;
}

/**
 * Walks one container's selection tree with an explicit stack (no recursion, so no nesting depth can overflow the
 * call stack). Every selection set object is walked at most once per analysis (`seen`): a parsed document never
 * shares one, and a hand-made object that contains itself would otherwise be walked forever.
 */
function walkContainer(
  root: SelectionSetNode,
  seen: Set<object>,
  declarations: ReadonlyMap<string, VariableDeclaration>,
  variables: VariableSource,
  listFields: ReadonlyMap<string, ListFieldPagination>,
): Container | QueryCostError {
  let depth = 0;
  let unit = 0;
  let aliases = 0;
  const names = new Map<string, number>();
  const spreadNames: string[] = [];
  const spreadLevels: number[] = [];
  const spreadMultipliers: number[] = [];
  const stackSets: unknown[] = [root];
  const stackBases: number[] = [0];
  const stackMultipliers: number[] = [1];
  while (stackSets.length > 0) {
    const set = stackSets.pop();
    const base = stackBases.pop() ?? 0;
    const multiplier = stackMultipliers.pop() ?? 1;
    if (!isObject(set) || seen.has(set)) return { code: 'invalid_document' };
    seen.add(set);
    const selections: unknown = 'selections' in set ? set.selections : undefined;
    if (!Array.isArray(selections)) return { code: 'invalid_document' };
    const level = base + 1;
    const list: readonly unknown[] = selections;
    for (const node of list) {
      if (!isSelection(node)) return { code: 'invalid_document' };
      if (node.kind === Kind.FIELD) {
        const name = isObject(node.name) ? node.name.value : undefined;
        if (typeof name !== 'string') return { code: 'invalid_document' };
        if (level > depth) depth = level;
        unit = satAdd(unit, multiplier);
        if (node.alias !== undefined && node.alias !== null) aliases += 1;
        names.set(name, (names.get(name) ?? 0) + 1);
        // A field's own first/last (or a list field's default page size) multiplies only its sub-selection; on a
        // leaf it multiplies nothing, but a supplied value that is not an integer is an error there too.
        const pagination = listFields.size === 0 ? undefined : listFields.get(name);
        const own = hasArguments(node) || pagination !== undefined ? fieldMultiplier(node, name, pagination, declarations, variables) : 1;
        if (typeof own !== 'number') return own;
        const sub = node.selectionSet;
        if (sub !== undefined && sub !== null) {
          stackSets.push(sub);
          stackBases.push(level);
          stackMultipliers.push(satMul(multiplier, own));
        }
      } else if (node.kind === Kind.INLINE_FRAGMENT) {
        stackSets.push(node.selectionSet);
        stackBases.push(base);
        stackMultipliers.push(multiplier);
      } else if (node.kind === Kind.FRAGMENT_SPREAD) {
        const name = isObject(node.name) ? node.name.value : undefined;
        if (typeof name !== 'string') return { code: 'invalid_document' };
        spreadNames.push(name);
        spreadLevels.push(base);
        spreadMultipliers.push(multiplier);
      } else {
        return { code: 'invalid_document' };
      }
    }
  }
  return { depth, unit, aliases, names, spreadNames, spreadLevels, spreadMultipliers };
}

const GRAY = 1;
const BLACK = 2;

/**
 * The analysis proper. The operation and each fragment it uses are containers; each container's tree is walked
 * once ({@link walkContainer}), then the graph of spreads between containers is searched depth-first with an
 * explicit stack and three colours (a grey target is a cycle). In post-order each container's summary (depth, field
 * count per use, aliases) is its own plus its spreads' fragments'; in reverse post-order (a topological order) each
 * fragment's number of uses, once inlined, is propagated, and each field name counted that many times. Time and
 * memory are linear in the document's size, whatever the fan-out.
 */
function analyzeOperation(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: VariableSource,
  listFields: ReadonlyMap<string, ListFieldPagination>,
): Result<Analysis, QueryCostError> {
  const fragmentsResult = fragmentMap(document);
  if (fragmentsResult.isErr()) return err(fragmentsResult.error);
  const fragments = fragmentsResult.value;
  const declarationsResult = variableDeclarations(operation);
  if (declarationsResult.isErr()) return err(declarationsResult.error);
  const declarations = declarationsResult.value;
  if (!isObject(operation.selectionSet)) return err({ code: 'invalid_document' });

  const seen = new Set<object>();
  // Container 0 is the operation; the others are fragments, numbered as they are reached.
  const containers: Container[] = [];
  const fragmentIndex = new Map<string, number>();
  const state: number[] = [];
  const cursor: number[] = [];
  const depth: number[] = [];
  const unit: number[] = [];
  const aliases: number[] = [];
  const order: number[] = [];

  const enter = (set: SelectionSetNode): QueryCostError | number => {
    const walked = walkContainer(set, seen, declarations, variables, listFields);
    if ('code' in walked) return walked;
    const id = containers.length;
    containers.push(walked);
    state.push(GRAY);
    cursor.push(0);
    depth.push(0);
    unit.push(0);
    aliases.push(0);
    return id;
  };

  const rootId = enter(operation.selectionSet);
  if (typeof rootId !== 'number') return err(rootId);
  const stack: number[] = [rootId];
  while (stack.length > 0) {
    const id = stack[stack.length - 1] ?? 0;
    const container = containers[id];
    if (container === undefined) return err({ code: 'invalid_document' });
    const k = cursor[id] ?? 0;
    if (k < container.spreadNames.length) {
      cursor[id] = k + 1;
      const fragmentName = container.spreadNames[k] ?? '';
      const known = fragmentIndex.get(fragmentName);
      if (known === undefined) {
        const fragment = fragments.get(fragmentName);
        if (fragment === undefined) return err({ code: 'unknown_fragment', fragmentName });
        if (!isObject(fragment.selectionSet)) return err({ code: 'invalid_document' });
        const child = enter(fragment.selectionSet);
        if (typeof child !== 'number') return err(child);
        fragmentIndex.set(fragmentName, child);
        stack.push(child);
      } else if (state[known] === GRAY) {
        return err({ code: 'fragment_cycle', fragmentName });
      }
      continue;
    }
    // Every fragment this container spreads is summarised: summarise it.
    let d = container.depth;
    let u = container.unit;
    let a = container.aliases;
    for (let s = 0; s < container.spreadNames.length; s++) {
      const child = fragmentIndex.get(container.spreadNames[s] ?? '') ?? 0;
      const childDepth = (container.spreadLevels[s] ?? 0) + (depth[child] ?? 0);
      if (childDepth > d) d = childDepth;
      u = satAdd(u, satMul(container.spreadMultipliers[s] ?? 1, unit[child] ?? 0));
      a = satAdd(a, aliases[child] ?? 0);
    }
    depth[id] = d;
    unit[id] = u;
    aliases[id] = a;
    state[id] = BLACK;
    order.push(id);
    stack.pop();
  }

  // Uses once every fragment is inlined, in reverse post-order (a topological order of the spread graph).
  const uses: number[] = new Array<number>(containers.length).fill(0);
  uses[rootId] = 1;
  for (let i = order.length - 1; i >= 0; i--) {
    const id = order[i] ?? 0;
    const u = uses[id] ?? 0;
    for (const fragmentName of containers[id]?.spreadNames ?? []) {
      const child = fragmentIndex.get(fragmentName) ?? 0;
      uses[child] = satAdd(uses[child] ?? 0, u);
    }
  }
  let counts: ReadonlyMap<string, number> = containers[0]?.names ?? new Map<string, number>();
  if (containers.length > 1) {
    const combined = new Map<string, number>();
    for (const [id, container] of containers.entries()) {
      const u = uses[id] ?? 0;
      for (const [name, count] of container.names) combined.set(name, satAdd(combined.get(name) ?? 0, satMul(count, u)));
    }
    counts = combined;
  }
  let highest = 0;
  for (const count of counts.values()) if (count > highest) highest = count;
  const cost: QueryCost = {
    depth: depth[rootId] ?? 0,
    fieldCount: unit[rootId] ?? 0,
    aliasCount: aliases[rootId] ?? 0,
    highestDuplicateFieldCount: highest >= 2 ? highest : 0,
    uniqueFieldCount: counts.size,
  };
  return ok({ cost, counts });
}

/** The costs of one operation and how often each field name is selected in it, fragments inlined. */
interface Analysis {
  readonly cost: QueryCost;
  readonly counts: ReadonlyMap<string, number>;
}

function fragmentMap(document: DocumentNode): Result<Map<string, FragmentDefinitionNode>, QueryCostError> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (!isObject(definition)) return err({ code: 'invalid_document' });
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const name = definition.name.value;
    if (typeof name !== 'string') return err({ code: 'invalid_document' });
    if (fragments.has(name)) return err({ code: 'duplicate_fragment', fragmentName: name });
    fragments.set(name, definition);
  }
  return ok(fragments);
}

function selectOperation(document: DocumentNode, operationName: string | null): Result<OperationDefinitionNode, QueryCostError> {
  const operations: OperationDefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (isObject(definition) && definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  if (operationName !== null) {
    // Of several operations with this name graphql-js execution runs the last one, so that is the one measured.
    let named: OperationDefinitionNode | undefined;
    for (const operation of operations) if (operation.name?.value === operationName) named = operation;
    return named === undefined ? err({ code: 'unknown_operation', operationName }) : ok(named);
  }
  const [only, ...rest] = operations;
  if (only === undefined) return err({ code: 'no_operation' });
  if (rest.length > 0) return err({ code: 'ambiguous_operation', operationCount: operations.length });
  return ok(only);
}

function isDocument(document: unknown): document is DocumentNode {
  return isObject(document) && 'definitions' in document && Array.isArray(document.definitions);
}

function analyzeUnsafe(document: DocumentNode, options: QueryCostOptions | undefined): Result<Analysis, QueryCostError> {
  if (!isDocument(document)) return err({ code: 'invalid_document' });
  if (options !== undefined && options !== null && !isObject(options)) return err({ code: 'invalid_variables' });
  const operationName = options?.operationName ?? null;
  if (typeof operationName !== 'string' && operationName !== null) return err({ code: 'invalid_document' });
  const values = options?.variables ?? {};
  if (!isObject(values) || Array.isArray(values)) return err({ code: 'invalid_variables' });
  return listFieldMap(options?.listFields).andThen((listFields) =>
    selectOperation(document, operationName).andThen((operation) =>
      analyzeOperation(document, operation, { kind: 'supplied', values }, listFields),
    ),
  );
}

const analyzeSafely = Result.fromThrowable(analyzeUnsafe, (): QueryCostError => ({ code: 'invalid_document' }));

/**
 * Measures the five costs of spec §8 of the operation a request would run.
 *
 * The operation is the one named `operationName` (the last of several with that name, the one graphql-js execution
 * runs), or the document's only one (otherwise `no_operation`, `ambiguous_operation` or `unknown_operation`, as
 * graphql-js execution would answer). Every fragment spread counts
 * as if the fragment were written at its place, but fragments are never expanded: each one is summarised once, so
 * time and memory are linear in the document's size (20 fragments each spreading the previous one twice are
 * 2^20 uses and 40 edges).
 *
 * - `depth`: the greatest number of fields on one path from the root to a leaf. Inline fragments and spreads add no
 *   level; the fields inside them count at the level where they are used.
 * - `fieldCount`: each field (`__typename` included) counts once times the product of the positive integer
 *   `first`/`last` arguments of the fields above it (the larger when both); a field's own `first`/`last` multiplies
 *   only its own sub-selection. A value is a literal, the variable's supplied value, or the variable's default;
 *   anything that is not a positive integer does not multiply, but a supplied value that is not an integer
 *   (`"abc"`, `true`, `1.5`) is `invalid_pagination_argument`, and a non-null variable neither supplied nor
 *   defaulted is `missing_variable`. With `options.listFields`, a field of a listed name without `first`/`last`
 *   multiplies its sub-selection by its `defaultPageSize` (the page its resolver returns), and its
 *   `first`/`last` must be from 0 to its `maxPageSize` (`page_size_out_of_range` otherwise), so that every list
 *   of the response is counted at the size it can have (spec §8: pagination keeps a response under the limit).
 * - `aliasCount`: the number of aliased fields (`a: a` included), each spread counting the fragment's aliases again.
 * - `highestDuplicateFieldCount`: the largest number of times one field name (not alias) is selected anywhere in the
 *   operation, whatever its parent, each spread counting the fragment's fields again; 0 when no name is selected
 *   twice. `uniqueFieldCount`: the number of distinct field names (`__typename` included). Pagination multiplies only
 *   `fieldCount`: these three count selections in the (fragment-inlined) text.
 *
 * Directives (`@skip`, `@include`) are ignored: the cost is an upper bound. Counts saturate at
 * `Number.MAX_SAFE_INTEGER`. Errors for fragments (`unknown_fragment`, `fragment_cycle`) concern those the
 * operation uses; `duplicate_fragment` concerns the whole document. Never throws: a malformed object is
 * `invalid_document`, and so is one selection set object used at two places (`parse` never shares one; a
 * hand-built AST that does could contain itself).
 *
 * @param document - A parsed GraphQL document (graphql-js `parse`).
 * @param options - The request's `operationName` and `variables` (spec §2.1).
 * @returns `ok` with the costs, or `err` saying why they could not be measured.
 *
 * @example Pagination multiplies only the sub-selection
 * ```ts
 * analyzeQueryCost(parse('{ a(first: 10) { x } b { y } }'));
 * // ok({ depth: 2, fieldCount: 13, aliasCount: 0, highestDuplicateFieldCount: 0, uniqueFieldCount: 4 })
 * ```
 *
 * @example Fragments add the depth of their fields
 * ```ts
 * analyzeQueryCost(parse('{ a { ...F } } fragment F on T { b { c } }'));
 * // ok({ depth: 3, fieldCount: 3, aliasCount: 0, highestDuplicateFieldCount: 0, uniqueFieldCount: 3 })
 * ```
 *
 * @example A cycle is an error, never a loop
 * ```ts
 * analyzeQueryCost(parse('{ ...F } fragment F on Query { ...F }'));
 * // err({ code: 'fragment_cycle', fragmentName: 'F' })
 * ```
 *
 * @example A list field without first counts its default page
 * ```ts
 * analyzeQueryCost(parse('{ a { x } }'), { listFields: { a: { defaultPageSize: 20, maxPageSize: 100 } } });
 * // ok({ depth: 2, fieldCount: 21, aliasCount: 0, highestDuplicateFieldCount: 0, uniqueFieldCount: 2 })
 * ```
 */
export function analyzeQueryCost(document: DocumentNode, options?: QueryCostOptions): Result<QueryCost, QueryCostError> {
  return analyzeSafely(document, options).andThen((result) => result.map((analysis) => analysis.cost));
}

/**
 * Counts how often a field name is selected in the operation a request would run, each fragment spread counting
 * the fragment's selections again (as `highestDuplicateFieldCount` counts them); pagination does not multiply.
 * The operation, the options and the errors are those of {@link analyzeQueryCost}.
 *
 * @param document - A parsed GraphQL document (graphql-js `parse`).
 * @param fieldName - The field name to count, such as `search`.
 * @param options - The request's `operationName`, `variables` and the schema's `listFields`.
 * @returns `ok` with the count, or `err` saying why the document could not be measured.
 *
 * @example
 * ```ts
 * countFieldSelections(parse('{ a: search(query: "x") { n } ...F } fragment F on Query { search(query: "y") { n } }'), 'search');
 * // ok(2)
 * ```
 */
export function countFieldSelections(document: DocumentNode, fieldName: string, options?: QueryCostOptions): Result<number, QueryCostError> {
  return analyzeSafely(document, options).andThen((result) => result.map((analysis) => analysis.counts.get(fieldName) ?? 0));
}

/**
 * Measures the costs of one given operation of a document, for {@link queryCostRule}. With `variables` `undefined`
 * the request's variables are not known yet (validation time): a variable without a supplied value uses its
 * default or does not multiply, and is never `missing_variable`.
 *
 * @internal
 * @param document - The whole document (for its fragments).
 * @param operation - One of its operations.
 * @param variables - The request's variables, or `undefined` when not known.
 * @param listFields - The schema's list fields ({@link QueryCostOptions.listFields}), if any.
 * @returns The costs or why they could not be measured.
 * @example
 * ```ts
 * analyzeOperationCost(document, document.definitions[0], undefined);
 * ```
 */
export function analyzeOperationCost(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | undefined,
  listFields?: ListFields | null,
): Result<QueryCost, QueryCostError> {
  return safeAnalyzeOperation(document, operation, variables, listFields).andThen((result) => result);
}

const safeAnalyzeOperation = Result.fromThrowable(
  (
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Readonly<Record<string, unknown>> | undefined,
    listFields: ListFields | null | undefined,
  ): Result<QueryCost, QueryCostError> => {
    if (!isDocument(document) || !isObject(operation)) return err({ code: 'invalid_document' });
    if (variables !== undefined && (!isObject(variables) || Array.isArray(variables))) return err({ code: 'invalid_variables' });
    return listFieldMap(listFields).andThen((fields) =>
      analyzeOperation(
        document,
        operation,
        variables === undefined ? { kind: 'unknown' } : { kind: 'supplied', values: variables },
        fields,
      ).map((analysis) => analysis.cost),
    );
  },
  (): QueryCostError => ({ code: 'invalid_document' }),
);

export { checkQueryCost, QUERY_LIMIT_ORDER, queryCostErrorMessage } from './check.js';
export type { ExceededQueryLimit, QueryLimitMessage, QueryLimitsExceeded } from './check.js';
