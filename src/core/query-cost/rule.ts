/**
 * A graphql-js validation rule enforcing the query cost limits of spec §8, for any graphql-js server.
 *
 * @module
 */
import { GraphQLError, Kind } from 'graphql';
import type { ASTVisitor, DocumentNode, OperationDefinitionNode, ValidationContext, ValidationRule } from 'graphql';
import { analyzeOperationCost, checkQueryCost, queryCostErrorMessage } from './analyze.js';
import { DEFAULT_QUERY_LIMITS } from './limits.js';
import type { QueryLimits } from './limits.js';
import type { ListFields } from './analyze.js';

/**
 * What a server knows about the request when it builds the rule. Both are optional: `validate()` itself sees only
 * the document.
 */
export interface QueryCostRuleOptions {
  /** Analyze only this operation; absent or `null`: analyze every operation of the document. */
  readonly operationName?: string | null;
  /**
   * The request's variables (`null`: the request has none). Absent: they are not known yet, so a variable in
   * `first`/`last` counts with its default, or does not multiply, and a missing non-null variable is not reported
   * (execution reports it).
   */
  readonly variables?: Readonly<Record<string, unknown>> | null;
  /** The schema's list fields and their page sizes (see `QueryCostOptions.listFields` of `analyzeQueryCost`). */
  readonly listFields?: ListFields | null;
}

/** The `extensions.code` of a graphql-js `GraphQLError` reported by {@link queryCostRule}. */
export type QueryCostErrorCode = 'QUERY_COST_LIMIT_EXCEEDED' | 'QUERY_COST_ANALYSIS_FAILED';

function reportOperation(
  context: ValidationContext,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limits: QueryLimits,
  variables: Readonly<Record<string, unknown>> | undefined,
  listFields: ListFields | null,
): void {
  const analyzed = analyzeOperationCost(document, operation, variables, listFields);
  if (analyzed.isErr()) {
    context.reportError(
      new GraphQLError(queryCostErrorMessage(analyzed.error), {
        nodes: operation,
        extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason: analyzed.error.code },
      }),
    );
    return;
  }
  const checked = checkQueryCost(analyzed.value, limits);
  if (checked.isOk()) return;
  for (const e of checked.error.exceeded) {
    context.reportError(
      new GraphQLError(e.message, {
        nodes: operation,
        extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: e.limit, actual: e.actual },
      }),
    );
  }
}

/**
 * A graphql-js `ValidationRule` that measures each operation with `analyzeQueryCost` and reports, on the
 * operation, one `GraphQLError` per exceeded limit (`extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit,
 * actual }`, message `Query exceeds maximum … limit`) or one per operation that could not be measured
 * (`extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason }`, `reason` the analyzer's error code). A query that
 * cannot be measured is never passed.
 *
 * `validate()` knows neither the request's `operationName` nor its variables, so by default every operation of the
 * document is checked (whichever one runs is then within the limits) and variables without a default do not
 * multiply `fieldCount`. A server that knows the request can build the rule per request with `options`, or call
 * `analyzeQueryCost` with the variables before execution. A document without operations reports nothing (there is
 * nothing to run). Errors graphql-js's own rules also report (unknown fragments, cycles) are reported here too, so
 * that the rule never passes a query it could not measure even when used alone.
 *
 * @param limits - The limits; {@link DEFAULT_QUERY_LIMITS} when absent.
 * @param options - The request's `operationName` and `variables`, when known.
 * @returns A rule to pass to graphql-js `validate(schema, document, [...specifiedRules, rule])`.
 *
 * @example
 * ```ts
 * const errors = validate(schema, parse('{ a { a { a } } }'), [queryCostRule({ ...DEFAULT_QUERY_LIMITS, maxDepth: 2 })]);
 * errors[0]?.extensions; // { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: 2, actual: 3 }
 * ```
 */
export function queryCostRule(limits: QueryLimits = DEFAULT_QUERY_LIMITS, options: QueryCostRuleOptions = {}): ValidationRule {
  const known: QueryCostRuleOptions = typeof options === 'object' && options !== null ? options : {};
  const operationName = typeof known.operationName === 'string' ? known.operationName : null;
  const variables = known.variables === undefined ? undefined : (known.variables ?? {});
  const listFields = known.listFields ?? null;
  return (context: ValidationContext): ASTVisitor => ({
    Document(document: DocumentNode): false {
      let found = false;
      for (const definition of document.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        if (operationName !== null && definition.name?.value !== operationName) continue;
        found = true;
        reportOperation(context, document, definition, limits, variables, listFields);
      }
      if (operationName !== null && !found) {
        context.reportError(
          new GraphQLError(queryCostErrorMessage({ code: 'unknown_operation', operationName }), {
            nodes: document,
            extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason: 'unknown_operation' },
          }),
        );
      }
      return false;
    },
  });
}
