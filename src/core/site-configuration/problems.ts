/**
 * Collecting problems while reading the site configuration: JSON paths, JSON type names, did-you-mean suggestions.
 *
 * @internal
 *
 * @module
 */
import { match } from 'ts-pattern';
import type {
  JsonPathSegment,
  JsonTypeName,
  SiteConfigurationLocation,
  SiteConfigurationProblem,
  SiteConfigurationWarning,
} from './types.js';

/** A JSON path as its segments. */
export type Segments = readonly JsonPathSegment[];
/** A JSON object read from the configuration. */
export type JsonObject = Readonly<Record<string, unknown>>;
type ProblemBody = SiteConfigurationProblem extends infer T
  ? T extends SiteConfigurationProblem
    ? Omit<T, keyof SiteConfigurationLocation>
    : never
  : never;

/** The problems and warnings collected while reading. */
export interface Context {
  readonly problems: SiteConfigurationProblem[];
  readonly warnings: SiteConfigurationWarning[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const TOP_LEVEL_KEY = /^[A-Za-z_$][\w$.]*$/;

/** Formats path segments the way problems show them: `auth.providers[0].clientID`. */
export function formatPath(segments: Segments): string {
  let out = '';
  segments.forEach((segment, index) => {
    if (typeof segment === 'number') out += `[${String(segment)}]`;
    else if (index === 0 && TOP_LEVEL_KEY.test(segment)) out += segment;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  });
  return out;
}

/** Adds one problem with its path and message. */
export function report(ctx: Context, segments: Segments, body: ProblemBody, message: string): void {
  ctx.problems.push({ ...body, path: formatPath(segments), segments, message });
}

/** The JSON type name of a value, for `wrong_type` problems. */
export function jsonType(value: unknown): JsonTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return match(typeof value)
    .returnType<JsonTypeName>()
    .with('string', () => 'string')
    .with('number', 'bigint', () => 'number')
    .with('boolean', () => 'boolean')
    .with('object', 'function', 'symbol', 'undefined', () => 'object')
    .exhaustive();
}

/** `a string`, `an object`, `null`: the type name with its article, for messages. */
export function article(type: JsonTypeName): string {
  return match(type)
    .returnType<string>()
    .with('array', 'object', () => `an ${type}`)
    .with('null', () => 'null')
    .with('string', 'number', 'boolean', () => `a ${type}`)
    .exhaustive();
}

// ---------------------------------------------------------------------------------------------------------------
// Did-you-mean

function editDistance(a: string, b: string): number {
  // Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions cost 1.
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row: number[] = [];
    for (let j = 0; j <= b.length; j += 1) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const previous = rows[i - 1] ?? [];
      let best = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/** The candidate closest to `word` by edit distance, when close enough to be a likely typo. */
export function nearest(word: string, candidates: readonly string[]): string | null {
  if (word.length > 32) return null;
  const lower = word.toLowerCase();
  const threshold = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
