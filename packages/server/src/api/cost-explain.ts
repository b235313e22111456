/**
 * The query cost of a request made visible (spec §8): with the request header `X-Gatehouse-Cost: explain` the answer
 * carries `extensions.cost`, the five measures of the operation beside their limits (and the document's token count
 * beside gatehouse's token bound); with `X-Gatehouse-Cost: dry-run` the document is admitted as usual (bounds,
 * parse, cost, validation) and answered with `extensions.cost` alone, without executing it: no resolver runs. A query
 * refused by a limit of §8 carries `extensions.cost` whatever the header says. Without the header nothing here runs
 * on the way of a request but one header read and one `WeakMap` look-up.
 *
 * @module
 */
import { Lexer, Source, TokenKind } from 'graphql';
import type { DocumentNode, ExecutionResult } from 'graphql';
import type { Response as GraphQLHttpResponse } from 'graphql-http';
import { explainQueryCost } from 'gatehouse-auth';
import type { QueryCostExplanation, QueryCostMeasure, QueryCostOptions, QueryLimits } from 'gatehouse-auth';
import type { RouteRequest } from '../kernel/route.js';

/**
 * The request header that asks for the cost (lower case, as Node hands headers over).
 *
 * @example
 * ```ts
 * request.headers[COST_HEADER]; // 'explain'
 * ```
 */
export const COST_HEADER = 'x-gatehouse-cost';

/** What `X-Gatehouse-Cost` asks for: the cost beside the answer, or the cost instead of running the query. */
export type CostMode = 'explain' | 'dry-run';

/**
 * The mode a request asks for, or `null` without the header (or with any other value, which is ignored as an
 * unknown header would be).
 *
 * @param request - The API request.
 * @returns `explain`, `dry-run` or `null`.
 * @example
 * ```ts
 * costMode({ ...request, headers: { 'x-gatehouse-cost': 'dry-run' } }); // 'dry-run'
 * ```
 */
export function costMode(request: RouteRequest): CostMode | null {
  const value = request.headers[COST_HEADER];
  if (value === undefined) return null;
  const mode = value.trim().toLowerCase();
  return mode === 'explain' || mode === 'dry-run' ? mode : null;
}

/**
 * `extensions.cost` of an answer: the five measures of spec §8 (`depth`, `fieldCount` with its `lists`, `aliases`,
 * `duplicateFieldCount`, `uniqueFieldCount`), each `{ value, limit, setting }`, and `tokenCount`, the document's
 * lexical tokens beside gatehouse's bound on them.
 */
export type CostExtension = Omit<QueryCostExplanation, 'exceeded'> & {
  /** Lexical tokens of the document (comments excluded), beside the `maxTokens` bound applied before parsing. */
  readonly tokenCount: QueryCostMeasure;
};

/** Lexical tokens of an admitted text (so already within the bound: the loop is bounded by it). */
function countTokens(text: string): number {
  try {
    const lexer = new Lexer(new Source(text));
    let tokens = 0;
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) tokens++;
    return tokens;
  } catch {
    return 0;
  }
}

/** What the cost of a request is measured against. */
export interface CostContext {
  /** The site's limits (spec §8). */
  readonly queryLimits: QueryLimits;
  /** gatehouse's bound on the document's tokens. */
  readonly maxTokens: number;
}

/**
 * The cost extension of a document, or `null` when its cost cannot be measured (the analyzer's refusal says why).
 *
 * @param context - Limits.
 * @param text - The document's text (for the token count).
 * @param document - The parsed document.
 * @param options - The request's operation name, variables and the schema's list fields.
 * @returns The extension, or `null`.
 * @example
 * ```ts
 * costExtension({ queryLimits, maxTokens: 10_000 }, text, parse(text), { listFields })?.depth; // { value: 2, limit: 30, setting: 'graphQLMaxDepth' }
 * ```
 */
export function costExtension(context: CostContext, text: string, document: DocumentNode, options: QueryCostOptions): CostExtension | null {
  const explained = explainQueryCost(document, options, context.queryLimits);
  if (explained.isErr()) return null;
  const { exceeded: _exceeded, ...measures } = explained.value;
  return { ...measures, tokenCount: { value: countTokens(text), limit: context.maxTokens, setting: 'maxTokens' } };
}

/** The cost extension waiting for the execution of an `explain` request, by its context object. */
const pending = new WeakMap<object, CostExtension>();

/**
 * After admission: a `dry-run` request is answered at once with its cost (HTTP 200, `{ "extensions": { "cost" } }`,
 * no `data`: nothing ran); an `explain` request keeps its cost for {@link withCostExtension}.
 *
 * @param mode - What the request asks for.
 * @param cost - The request's cost extension (`null` when it cannot be measured: then nothing is added).
 * @param contextValue - The request's GraphQL context object.
 * @param mediaType - The media type of the answer.
 * @returns The dry-run answer, or `undefined` to execute.
 * @example
 * ```ts
 * const answer = admittedWithCost('dry-run', cost, contextValue, 'application/json; charset=utf-8'); // [body, { status: 200, … }]
 * ```
 */
export function admittedWithCost(mode: CostMode, cost: CostExtension | null, contextValue: object, mediaType: string): GraphQLHttpResponse | undefined {
  if (mode === 'dry-run') {
    return [JSON.stringify({ extensions: { cost } }), { status: 200, statusText: 'OK', headers: { 'content-type': mediaType } }];
  }
  if (cost !== null) pending.set(contextValue, cost);
  return undefined;
}

/**
 * The result to answer once executed: with `extensions.cost` when the request asked for it ({@link admittedWithCost})
 * or when execution was cut off by the field count (a refusal of §8 always carries the measures, worked out then
 * from the executed document).
 *
 * @param contextValue - The request's GraphQL context object.
 * @param answer - The result the endpoint would answer instead of `result` (`undefined`: `result` itself).
 * @param result - The execution's result.
 * @param cutOff - Whether `answer` is the field count's cut-off.
 * @param late - Works the extension out when it was not kept before (the cut-off case).
 * @returns The result to answer, or `answer` unchanged.
 * @example
 * ```ts
 * onOperation: (_req, args, result) => withCostExtension(args.contextValue, masked, result, false, () => null),
 * ```
 */
export function withCostExtension(
  contextValue: unknown,
  answer: ExecutionResult | undefined,
  result: ExecutionResult,
  cutOff: boolean,
  late: () => CostExtension | null,
): ExecutionResult | undefined {
  const kept = typeof contextValue === 'object' && contextValue !== null ? pending.get(contextValue) : undefined;
  if (kept === undefined && !cutOff) return answer;
  const cost = kept ?? late();
  if (cost === null) return answer;
  const base = answer ?? result;
  return { ...base, extensions: { ...base.extensions, cost } };
}

/**
 * The cost a refusal carries: the whole extension when the request asked for it, else the measures without the
 * list breakdown (`fieldCount.lists`), so that every refusal stays a few hundred bytes whatever the document.
 *
 * @param mode - What the request asked for (`null`: nothing).
 * @param cost - The request's cost extension, or `null` when it cannot be measured.
 * @returns The cost to put in the refusal's `extensions.cost`, or `null`.
 * @example
 * ```ts
 * refusalCost(null, cost)?.fieldCount; // { value: 4400, limit: 4000, setting: 'graphQLMaxFieldCount' }
 * ```
 */
export function refusalCost(mode: CostMode | null, cost: CostExtension | null): CostExtension | RefusalCost | null {
  if (cost === null || mode !== null) return cost;
  const { lists: _lists, listsTruncated: _truncated, ...fieldCount } = cost.fieldCount;
  return { ...cost, fieldCount };
}

/** The cost of a refusal to a request that did not ask for it: the measures, without the list breakdown. */
export type RefusalCost = Omit<CostExtension, 'fieldCount'> & { readonly fieldCount: QueryCostMeasure };
