/**
 * Checks a query's cost against the configured limits (spec §8) and words the errors; the messages are part of the
 * contract.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { isObject } from '../internal/guard.js';
import type { QueryCost, QueryCostError } from './analyze.js';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from './limits.js';

/**
 * The names of the five limits, in the order {@link checkQueryCost} reports them.
 *
 * @example
 * ```ts
 * QUERY_LIMIT_ORDER[0]; // 'maxAliases'
 * ```
 */
export const QUERY_LIMIT_ORDER: readonly ['maxAliases', 'maxFieldCount', 'maxDepth', 'maxDuplicateFieldCount', 'maxUniqueFieldCount'] =
  ['maxAliases', 'maxFieldCount', 'maxDepth', 'maxDuplicateFieldCount', 'maxUniqueFieldCount'] as const;

/** The message of one exceeded limit; its text is part of the contract. */
export type QueryLimitMessage =
  | 'Query exceeds maximum alias count limit'
  | 'Query exceeds maximum field count limit'
  | 'Query exceeds maximum query depth limit'
  | 'Query exceeds maximum duplicate field count limit'
  | 'Query exceeds maximum unique field count limit';

/** One limit a query exceeds. */
export interface ExceededQueryLimit {
  /** Which limit of {@link QueryLimits}. */
  readonly setting: keyof QueryLimits;
  /** The configured limit. */
  readonly limit: number;
  /** The query's cost, strictly greater than `limit`. */
  readonly actual: number;
  /** `Query exceeds maximum <alias count|field count|query depth|duplicate field count|unique field count> limit`. */
  readonly message: QueryLimitMessage;
}

/**
 * A query over its limits: every exceeded limit, in the order aliases, field count, depth, duplicate fields,
 * unique fields.
 */
export interface QueryLimitsExceeded {
  /** Always `query_limits_exceeded`. */
  readonly code: 'query_limits_exceeded';
  /** Every exceeded limit (never empty when returned by {@link checkQueryCost}). */
  readonly exceeded: readonly ExceededQueryLimit[];
}

const COST_OF_SETTING: Readonly<Record<keyof QueryLimits, keyof QueryCost>> = {
  maxAliases: 'aliasCount',
  maxFieldCount: 'fieldCount',
  maxDepth: 'depth',
  maxDuplicateFieldCount: 'highestDuplicateFieldCount',
  maxUniqueFieldCount: 'uniqueFieldCount',
};

function messageOf(setting: keyof QueryLimits): QueryLimitMessage {
  return match(setting)
    .returnType<QueryLimitMessage>()
    .with('maxAliases', () => 'Query exceeds maximum alias count limit')
    .with('maxFieldCount', () => 'Query exceeds maximum field count limit')
    .with('maxDepth', () => 'Query exceeds maximum query depth limit')
    .with('maxDuplicateFieldCount', () => 'Query exceeds maximum duplicate field count limit')
    .with('maxUniqueFieldCount', () => 'Query exceeds maximum unique field count limit')
    .exhaustive();
}

function readNumber(record: unknown, key: string): number | undefined {
  if (!isObject(record)) return undefined;
  const value: unknown = Object.getOwnPropertyDescriptor(record, key)?.value;
  return typeof value === 'number' && !Number.isNaN(value) ? value : undefined;
}

/**
 * Checks costs against limits (spec §8). A limit is exceeded only when the cost is strictly greater than it; every
 * exceeded limit is reported, in the order aliases, field count, depth, duplicate fields, unique fields.
 *
 * A limit that is not a number (possible only by breaking the type at run time) falls back to its default, and a
 * cost that is not a number counts as infinite, so a broken input never lets a query through unchecked.
 *
 * @param cost - The costs from {@link analyzeQueryCost}.
 * @param limits - The limits; {@link DEFAULT_QUERY_LIMITS} when absent.
 * @returns `ok(cost)` when within every limit, otherwise `err` listing each exceeded limit.
 *
 * @example
 * ```ts
 * checkQueryCost(
 *   { depth: 31, fieldCount: 40, aliasCount: 501, highestDuplicateFieldCount: 2, uniqueFieldCount: 20 },
 * );
 * // err({ code: 'query_limits_exceeded', exceeded: [
 * //   { setting: 'maxAliases', limit: 500, actual: 501, message: 'Query exceeds maximum alias count limit' },
 * //   { setting: 'maxDepth', limit: 30, actual: 31, message: 'Query exceeds maximum query depth limit' } ] })
 * ```
 */
export function checkQueryCost(cost: QueryCost, limits: QueryLimits = DEFAULT_QUERY_LIMITS): Result<QueryCost, QueryLimitsExceeded> {
  const exceeded: ExceededQueryLimit[] = [];
  for (const setting of QUERY_LIMIT_ORDER) {
    const limit = readNumber(limits, setting) ?? DEFAULT_QUERY_LIMITS[setting];
    const actual = readNumber(cost, COST_OF_SETTING[setting]) ?? Number.POSITIVE_INFINITY;
    if (actual > limit) exceeded.push({ setting, limit, actual, message: messageOf(setting) });
  }
  return exceeded.length > 0 ? err({ code: 'query_limits_exceeded', exceeded }) : ok(cost);
}

/**
 * A sentence a person can act on for an error of {@link analyzeQueryCost}, as servers show it (the rule and the
 * adapter answer with it).
 *
 * @param error - The analyzer's error.
 * @returns The message, starting `Query cost cannot be measured: `.
 *
 * @example
 * ```ts
 * queryCostErrorMessage({ code: 'fragment_cycle', fragmentName: 'F' });
 * // 'Query cost cannot be measured: fragment "F" spreads itself.'
 * ```
 */
export function queryCostErrorMessage(error: QueryCostError): string {
  return match(error)
    .returnType<string>()
    .with({ code: 'no_operation' }, () => 'Query cost cannot be measured: the document has no operation.')
    .with({ code: 'ambiguous_operation' }, () => 'Query cost cannot be measured: the document has several operations and no operation name.')
    .with({ code: 'unknown_operation' }, (e) => `Query cost cannot be measured: no operation is named "${e.operationName}".`)
    .with({ code: 'unknown_fragment' }, (e) => `Query cost cannot be measured: unknown fragment "${e.fragmentName}".`)
    .with({ code: 'fragment_cycle' }, (e) => `Query cost cannot be measured: fragment "${e.fragmentName}" spreads itself.`)
    .with({ code: 'duplicate_fragment' }, (e) => `Query cost cannot be measured: there are several fragments named "${e.fragmentName}".`)
    .with({ code: 'missing_variable' }, (e) => `Query cost cannot be measured: variable "$${e.variable}" is required by first/last but has no value.`)
    .with(
      { code: 'invalid_pagination_argument' },
      (e) => `Query cost cannot be measured: variable "$${e.variable}" used in ${e.argument} is not an integer.`,
    )
    .with({ code: 'invalid_variables' }, () => 'Query cost cannot be measured: variables must be an object.')
    .with(
      { code: 'page_size_out_of_range' },
      (e) => `Query cost cannot be measured: ${e.argument} on "${e.field}" must be from 0 to ${e.max}, but it is ${e.value}.`,
    )
    .with({ code: 'invalid_list_fields' }, (e) => `Query cost cannot be measured: the page sizes of list field "${e.field}" are not positive whole numbers.`)
    .with({ code: 'invalid_document' }, () => 'Query cost cannot be measured: the document is malformed.')
    .exhaustive();
}
