/**
 * Bounds execution itself by spec §8's field count: every field of gatehouse's own types that execution resolves
 * is counted in the request's {@link FieldBudget}, and once the count passes the limit every further field fails at
 * once, so a response that would exceed `graphQLMaxFieldCount` is cut off with one error instead of being built.
 * The cost analyzer already refuses such a query before it runs; this holds even if a list returns more than the
 * analyzer assumed.
 *
 * @module
 */
import { defaultFieldResolver, GraphQLError, isObjectType } from 'graphql';
import type { ExecutionResult, GraphQLFieldResolver, GraphQLSchema } from 'graphql';

/** The fields one request may still resolve. */
interface FieldBudget {
  /** The limit (`graphQLMaxFieldCount`). */
  readonly limit: number;
  /** Fields resolved so far. */
  used: number;
  /**
   * The one error every field past the limit fails with (located at the root, so graphql-js reuses it); built the
   * first time the limit is passed, since building a `GraphQLError` (its stack trace) costs more than the rest of a
   * small request's bookkeeping.
   */
  error: GraphQLError | null;
}

function exceeded(budget: FieldBudget): GraphQLError {
  budget.error ??= new GraphQLError('Response exceeds maximum field count limit', {
    path: [],
    extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit: budget.limit },
  });
  return budget.error;
}

/** The budget of each request's context object (a context object is made per request). */
const budgets = new WeakMap<object, FieldBudget>();

/**
 * Gives one request's context a fresh budget of `limit` fields.
 *
 * @param context - The request's GraphQL context object (one per request).
 * @param limit - The most fields the response may hold.
 * @returns The same context.
 *
 * @example
 * ```ts
 * const contextValue = withFieldBudget({ viewer }, queryLimits.maxFieldCount);
 * ```
 */
export function withFieldBudget<C extends object>(context: C, limit: number): C {
  budgets.set(context, { limit, used: 0, error: null });
  return context;
}

function budgetOf(context: unknown): FieldBudget | undefined {
  return typeof context === 'object' && context !== null ? budgets.get(context) : undefined;
}

/**
 * Makes every field of the schema's own object types (not the shared introspection types) count itself in the
 * request's budget ({@link withFieldBudget}), failing with the budget's error once past the limit. The schema is changed in place and
 * returned; a context without a budget counts nothing.
 *
 * @param schema - A schema whose types belong to it alone (built per server).
 * @returns The same schema.
 *
 * @example
 * ```ts
 * const schema = countResolvedFields(new GraphQLSchema({ query }));
 * ```
 */
export function countResolvedFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        const budget = budgetOf(context);
        if (budget !== undefined) {
          budget.used += 1;
          // graphql-js reports an error a resolver returns as the field's error: the one shared error (it already has
          // a path, so graphql-js keeps it as it is), never a new one per field.
          if (budget.used > budget.limit) return exceeded(budget);
        }
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}

/**
 * The answer of an execution whose budget ran out: no data (what was resolved before is dropped) and one error.
 *
 * @param context - The request's GraphQL context.
 * @returns `undefined` when within the budget (or without one), else the result to answer instead.
 *
 * @example
 * ```ts
 * onOperation: (_req, args) => cutOffResult(args.contextValue),
 * ```
 */
export function cutOffResult(context: unknown): ExecutionResult | undefined {
  const budget = budgetOf(context);
  if (budget === undefined || budget.used <= budget.limit) return undefined;
  return { data: null, errors: [exceeded(budget)] };
}
