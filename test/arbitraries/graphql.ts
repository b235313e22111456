/**
 * fast-check generators of GraphQL documents for the query cost analyzer: a small model (fields, inline fragments,
 * fragment spreads, `first`/`last` literals) generated with `fc.letrec`, and its translation to a graphql-js AST.
 */
import fc from 'fast-check';
import { Kind, OperationTypeNode } from 'graphql';
import type { ArgumentNode, DefinitionNode, DocumentNode, SelectionNode, SelectionSetNode } from 'graphql';

/** A field: its name, optional alias, optional `first`/`last` integer literals and sub-selections. */
export interface FieldModel {
  readonly kind: 'field';
  readonly name: string;
  readonly alias: string | null;
  readonly first: number | null;
  readonly last: number | null;
  readonly children: readonly SelectionModel[];
}
/** An inline fragment `... { … }` (no type condition). */
export interface InlineModel {
  readonly kind: 'inline';
  readonly children: readonly SelectionModel[];
}
/** A fragment spread; `fragment` is resolved to a fragment index by {@link toDocument}. */
export interface SpreadModel {
  readonly kind: 'spread';
  readonly fragment: number;
}
export type SelectionModel = FieldModel | InlineModel | SpreadModel;

/** An operation and its fragments (fragment `i` is named `F<i>`). */
export interface DocumentModel {
  readonly operation: readonly SelectionModel[];
  readonly fragments: readonly (readonly SelectionModel[])[];
}

/** Field names drawn from a small set, so that duplicates are frequent. */
export const fieldName: fc.Arbitrary<string> = fc.constantFrom('a', 'b', 'c', 'id', 'node', '__typename');
const aliasName: fc.Arbitrary<string> = fc.constantFrom('x', 'y', 'z');
const pagination: fc.Arbitrary<number | null> = fc.option(fc.integer({ min: -3, max: 50 }), { nil: null });

/** Selection lists generated with `fc.letrec`; leaves are fields without sub-selections. */
export const selections: fc.Arbitrary<readonly SelectionModel[]> = fc.letrec<{
  selections: readonly SelectionModel[];
  selection: SelectionModel;
  leaf: FieldModel;
  field: FieldModel;
  inline: InlineModel;
  spread: SpreadModel;
}>((tie) => ({
  selections: fc.array(tie('selection'), { minLength: 1, maxLength: 4 }),
  selection: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('field'), tie('inline'), tie('spread')),
  leaf: fc.record(
    { kind: fc.constant('field'), name: fieldName, alias: fc.option(aliasName, { nil: null }), first: fc.constant(null), last: fc.constant(null), children: fc.constant([]) },
    { noNullPrototype: true },
  ),
  field: fc.record(
    { kind: fc.constant('field'), name: fieldName, alias: fc.option(aliasName, { nil: null }), first: pagination, last: pagination, children: tie('selections') },
    { noNullPrototype: true },
  ),
  inline: fc.record({ kind: fc.constant('inline'), children: tie('selections') }, { noNullPrototype: true }),
  spread: fc.record({ kind: fc.constant('spread'), fragment: fc.nat(7) }, { noNullPrototype: true }),
})).selections;

/** A document model with zero to four fragments. */
export const documentModel: fc.Arbitrary<DocumentModel> = fc.record(
  { operation: selections, fragments: fc.array(selections, { maxLength: 4 }) },
  { noNullPrototype: true },
);

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;

function intArgument(argument: string, value: number): ArgumentNode {
  return { kind: Kind.ARGUMENT, name: name(argument), value: { kind: Kind.INT, value: String(value) } };
}

/**
 * Resolves a spread's fragment number in the selections of `owner` (`null` for the operation, `i` for fragment i).
 * Acyclic: the operation may spread any fragment, fragment i only fragments j < i. Otherwise any fragment (cycles
 * possible). `null` when there is no fragment to spread.
 */
function target(fragment: number, owner: number | null, count: number, acyclic: boolean): number | null {
  const bound = acyclic && owner !== null ? owner : count;
  return bound === 0 ? null : fragment % bound;
}

/** Resolves every spread of the model to a concrete fragment index (a spread with no target becomes field `a`). */
export function resolveSpreads(model: DocumentModel, acyclic = true): DocumentModel {
  const count = model.fragments.length;
  const resolve = (list: readonly SelectionModel[], owner: number | null): readonly SelectionModel[] =>
    list.map((s): SelectionModel => {
      if (s.kind === 'field') return { ...s, children: resolve(s.children, owner) };
      if (s.kind === 'inline') return { ...s, children: resolve(s.children, owner) };
      const t = target(s.fragment, owner, count, acyclic);
      return t === null ? { kind: 'field', name: 'a', alias: null, first: null, last: null, children: [] } : { kind: 'spread', fragment: t };
    });
  return { operation: resolve(model.operation, null), fragments: model.fragments.map((f, i) => resolve(f, i)) };
}

function selectionSet(list: readonly SelectionModel[]): SelectionSetNode {
  return {
    kind: Kind.SELECTION_SET,
    selections: list.map((s): SelectionNode => {
      if (s.kind === 'spread') return { kind: Kind.FRAGMENT_SPREAD, name: name(`F${s.fragment}`) };
      if (s.kind === 'inline') return { kind: Kind.INLINE_FRAGMENT, selectionSet: selectionSet(s.children) };
      const args: ArgumentNode[] = [];
      if (s.first !== null) args.push(intArgument('first', s.first));
      if (s.last !== null) args.push(intArgument('last', s.last));
      return {
        kind: Kind.FIELD,
        ...(s.alias === null ? {} : { alias: name(s.alias) }),
        name: name(s.name),
        arguments: args,
        ...(s.children.length === 0 ? {} : { selectionSet: selectionSet(s.children) }),
      };
    }),
  };
}

/** The graphql-js AST of a model whose spreads are resolved ({@link resolveSpreads}). */
export function toDocument(model: DocumentModel): DocumentNode {
  const definitions: DefinitionNode[] = [
    { kind: Kind.OPERATION_DEFINITION, operation: OperationTypeNode.QUERY, selectionSet: selectionSet(model.operation) },
    ...model.fragments.map(
      (f, i): DefinitionNode => ({
        kind: Kind.FRAGMENT_DEFINITION,
        name: name(`F${i}`),
        typeCondition: { kind: Kind.NAMED_TYPE, name: name('Query') },
        selectionSet: selectionSet(f),
      }),
    ),
  ];
  return { kind: Kind.DOCUMENT, definitions };
}

/** Acyclic documents (every spread resolves), as graphql-js ASTs. */
export const acyclicDocument: fc.Arbitrary<DocumentNode> = documentModel.map((m) => toDocument(resolveSpreads(m, true)));

/** Documents whose fragments may spread each other in cycles. */
export const anyDocument: fc.Arbitrary<DocumentNode> = documentModel.map((m) => toDocument(resolveSpreads(m, false)));
