/**
 * The five query cost limits of spec §8, their defaults, and how they are read from the site option `rateLimits`.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { isRecord } from '../internal/guard.js';

/**
 * The five query cost limits of spec §8. A query is refused when one of its costs is strictly greater than
 * the matching limit (see `checkQueryCost`).
 */
export interface QueryLimits {
  /** Maximum nesting depth of a query (`graphQLMaxDepth`). */
  readonly maxDepth: number;
  /** Maximum number of fields in a response, an upper bound that counts pagination (`graphQLMaxFieldCount`). */
  readonly maxFieldCount: number;
  /** Maximum number of aliases in one query (`graphQLMaxAliases`). */
  readonly maxAliases: number;
  /** Maximum number of times one field name may be selected (`GraphqlMaxDuplicateFieldCount`). */
  readonly maxDuplicateFieldCount: number;
  /** Maximum number of distinct field names in one query (`GraphqlMaxUniqueFieldCount`). */
  readonly maxUniqueFieldCount: number;
}

/**
 * The defaults of spec §8: depth 30, 500,000 fields, 500 aliases, 500 duplicates of one field, 500 distinct fields.
 *
 * @example
 * ```ts
 * DEFAULT_QUERY_LIMITS.maxDepth; // 30
 * ```
 */
export const DEFAULT_QUERY_LIMITS: QueryLimits = Object.freeze({
  maxDepth: 30,
  maxFieldCount: 500_000,
  maxAliases: 500,
  maxDuplicateFieldCount: 500,
  maxUniqueFieldCount: 500,
});

/**
 * Every key `rateLimits` may hold, in the order of spec §8. The last two settings are accepted in both the
 * spelling the spec prints (`GraphqlMax…`) and the spelling of the first three (`graphQLMax…`).
 *
 * @example
 * ```ts
 * RATE_LIMIT_KEYS.includes('graphQLMaxDepth'); // true
 * ```
 */
export const RATE_LIMIT_KEYS = [
  'graphQLMaxDepth',
  'graphQLMaxFieldCount',
  'graphQLMaxAliases',
  'GraphqlMaxDuplicateFieldCount',
  'graphQLMaxDuplicateFieldCount',
  'GraphqlMaxUniqueFieldCount',
  'graphQLMaxUniqueFieldCount',
] as const;

/** A key of `rateLimits` (spec §8). */
export type RateLimitKey = (typeof RATE_LIMIT_KEYS)[number];

/**
 * One thing wrong with `rateLimits`. `key` is the offending key inside `rateLimits` (`null` for `rateLimits`
 * itself), so a configuration parser can point at `rateLimits.<key>`; `message` is a sentence a person can act on.
 */
export type RateLimitsProblem =
  /** `rateLimits` is present but is not a JSON object (an array, a string, `null`, …). */
  | { readonly code: 'not_an_object'; readonly key: null; readonly value: unknown; readonly message: string }
  /** A known key holds something other than a positive safe integer (0, -1, 1.5, "30", null, …). */
  | { readonly code: 'not_a_positive_integer'; readonly key: RateLimitKey; readonly value: unknown; readonly message: string }
  /** Both spellings of one setting are present with different values. */
  | {
      readonly code: 'conflicting_keys';
      readonly key: RateLimitKey;
      readonly otherKey: RateLimitKey;
      readonly value: number;
      readonly otherValue: number;
      readonly message: string;
    }
  /** A key that is not a setting of spec §8 (often a typo). */
  | { readonly code: 'unknown_key'; readonly key: string; readonly message: string };

/** Why `rateLimits` could not be read: every problem found, in the order of the keys in the object. */
export interface RateLimitsError {
  /** Always `invalid_rate_limits`. */
  readonly code: 'invalid_rate_limits';
  /** Every problem found (never empty when returned by {@link queryLimitsFromRateLimits}). */
  readonly problems: readonly RateLimitsProblem[];
}

type LimitName = keyof QueryLimits;

const SETTING_OF_KEY: Readonly<Record<RateLimitKey, LimitName>> = {
  graphQLMaxDepth: 'maxDepth',
  graphQLMaxFieldCount: 'maxFieldCount',
  graphQLMaxAliases: 'maxAliases',
  GraphqlMaxDuplicateFieldCount: 'maxDuplicateFieldCount',
  graphQLMaxDuplicateFieldCount: 'maxDuplicateFieldCount',
  GraphqlMaxUniqueFieldCount: 'maxUniqueFieldCount',
  graphQLMaxUniqueFieldCount: 'maxUniqueFieldCount',
};

const SPELLING_PAIRS: readonly (readonly [RateLimitKey, RateLimitKey])[] = [
  ['GraphqlMaxDuplicateFieldCount', 'graphQLMaxDuplicateFieldCount'],
  ['GraphqlMaxUniqueFieldCount', 'graphQLMaxUniqueFieldCount'],
];

function isRateLimitKey(key: string): key is RateLimitKey {
  return Object.hasOwn(SETTING_OF_KEY, key);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'number':
      return String(value);
    case 'boolean':
      return String(value);
    case 'bigint':
      return String(value);
    case 'object':
      return 'an object';
    default:
      return `a value of type ${typeof value}`;
  }
}

function notAPositiveIntegerMessage(key: RateLimitKey, value: unknown): string {
  const fallback = DEFAULT_QUERY_LIMITS[SETTING_OF_KEY[key]];
  const hint =
    typeof value === 'string' && /^\s*\d+\s*$/.test(value)
      ? ' Write the number without quotes.'
      : ` Use a whole number from 1 to ${Number.MAX_SAFE_INTEGER}, or remove the key to keep the default ${fallback}.`;
  return `rateLimits.${key} must be a positive whole number, but it is ${describeValue(value)}.${hint}`;
}

/** Levenshtein distance; only called on strings whose lengths differ by at most {@link SUGGESTION_DISTANCE}. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** A key this close to a setting (ignoring case) is taken for a typo of it. */
const SUGGESTION_DISTANCE = 2;

/** The setting an unknown key most likely meant: nearest ignoring case, then nearest with case; `undefined` if none is close. */
function suggestKey(key: string): RateLimitKey | undefined {
  let best: RateLimitKey | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const known of RATE_LIMIT_KEYS) {
    if (Math.abs(known.length - key.length) > SUGGESTION_DISTANCE) continue;
    const folded = editDistance(known.toLowerCase(), key.toLowerCase());
    if (folded > SUGGESTION_DISTANCE) continue;
    const score = folded * 100 + editDistance(known, key);
    if (score < bestScore) {
      best = known;
      bestScore = score;
    }
  }
  return best;
}

function unknownKeyMessage(key: string): string {
  const near = suggestKey(key);
  const suggestion =
    near === undefined ? ` The settings are ${RATE_LIMIT_KEYS.join(', ')}.` : ` Did you mean "${near}"?`;
  return `rateLimits has no setting ${JSON.stringify(key)}.${suggestion}`;
}

function readRateLimits(rateLimits: unknown): Result<QueryLimits, RateLimitsError> {
  if (rateLimits === undefined) return ok(DEFAULT_QUERY_LIMITS);
  if (!isRecord(rateLimits)) {
    return err({
      code: 'invalid_rate_limits',
      problems: [
        {
          code: 'not_an_object',
          key: null,
          value: rateLimits,
          message: `rateLimits must be an object such as {"graphQLMaxDepth": 30}, but it is ${describeValue(rateLimits)}.`,
        },
      ],
    });
  }
  const problems: RateLimitsProblem[] = [];
  const valid = new Map<RateLimitKey, number>();
  for (const key of Object.keys(rateLimits)) {
    const value = Object.getOwnPropertyDescriptor(rateLimits, key)?.value;
    if (!isRateLimitKey(key)) {
      problems.push({ code: 'unknown_key', key, message: unknownKeyMessage(key) });
    } else if (value === undefined) {
      // An own key holding `undefined` (possible from JavaScript, never from JSON) counts as omitted.
    } else if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
      valid.set(key, value);
    } else {
      problems.push({ code: 'not_a_positive_integer', key, value, message: notAPositiveIntegerMessage(key, value) });
    }
  }
  for (const [printed, camel] of SPELLING_PAIRS) {
    const a = valid.get(printed);
    const b = valid.get(camel);
    if (a !== undefined && b !== undefined && a !== b) {
      problems.push({
        code: 'conflicting_keys',
        key: camel,
        otherKey: printed,
        value: b,
        otherValue: a,
        message: `rateLimits.${camel} is ${b} but rateLimits.${printed} is ${a}; they are two spellings of one setting, so keep only one of them.`,
      });
    }
  }
  if (problems.length > 0) return err({ code: 'invalid_rate_limits', problems });
  const limits: Record<LimitName, number> = { ...DEFAULT_QUERY_LIMITS };
  for (const [key, value] of valid) limits[SETTING_OF_KEY[key]] = value;
  return ok(Object.freeze(limits));
}

const safeReadRateLimits = Result.fromThrowable(
  readRateLimits,
  (): RateLimitsError => ({
    code: 'invalid_rate_limits',
    problems: [
      {
        code: 'not_an_object',
        key: null,
        value: undefined,
        message: 'rateLimits could not be read as a plain object; write it as a JSON object such as {"graphQLMaxDepth": 30}.',
      },
    ],
  }),
);

/**
 * Reads the site option `rateLimits` (spec §8) into {@link QueryLimits}.
 *
 * An absent `rateLimits` (`undefined`) gives {@link DEFAULT_QUERY_LIMITS}. Each omitted key keeps its default and each
 * positive safe integer replaces it; anything else is a problem naming the key: 0, a negative or fractional number,
 * a string, `null`, an unknown key, or both spellings of one setting (`GraphqlMaxDuplicateFieldCount` and
 * `graphQLMaxDuplicateFieldCount`, `GraphqlMaxUniqueFieldCount` and `graphQLMaxUniqueFieldCount`) with different
 * values. Every problem is reported, not just the first. Never throws.
 *
 * @param rateLimits - The value of `rateLimits` in the site configuration, or `undefined` when it is absent.
 * @returns `ok` with the limits, or `err` with `code: 'invalid_rate_limits'` and every problem found.
 * @see {@link RateLimitsProblem} for how to turn a problem into a JSON path.
 *
 * @example Custom depth, other limits at their defaults
 * ```ts
 * queryLimitsFromRateLimits({ graphQLMaxDepth: 12 });
 * // ok({ maxDepth: 12, maxFieldCount: 500000, maxAliases: 500, maxDuplicateFieldCount: 500, maxUniqueFieldCount: 500 })
 * ```
 *
 * @example Every problem is reported
 * ```ts
 * queryLimitsFromRateLimits({ graphQLMaxDepth: 0, graphQLMaxDeph: 3 });
 * // err({ code: 'invalid_rate_limits', problems: [
 * //   { code: 'not_a_positive_integer', key: 'graphQLMaxDepth', value: 0, message: '…' },
 * //   { code: 'unknown_key', key: 'graphQLMaxDeph', message: '…' } ] })
 * ```
 */
export function queryLimitsFromRateLimits(rateLimits: unknown): Result<QueryLimits, RateLimitsError> {
  return safeReadRateLimits(rateLimits).andThen((result) => result);
}
