/**
 * Duration strings in the notation of the Go standard library (`time.ParseDuration`), as the site options
 * `auth.sessionExpiry` and `auth.sessionIdleTimeout` take them: `"2160h"`, `"90m"`, `"1h30m"`, `"1.5h"`.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';

/**
 * Milliseconds per unit, by the unit names Go accepts (`µs` in both of its spellings, U+00B5 and U+03BC).
 *
 * @example
 * ```ts
 * DURATION_UNITS_MS.h; // 3_600_000
 * ```
 */
export const DURATION_UNITS_MS: Readonly<Record<string, number>> = Object.freeze({
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3,
  '\u03bcs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
});

/**
 * The longest duration accepted: Go's largest (`2562047h47m16.854775807s`, the most nanoseconds an int64 holds),
 * rounded down to whole hours.
 *
 * @example
 * ```ts
 * MAX_DURATION_MS; // 2562047 * 3_600_000
 * ```
 */
export const MAX_DURATION_MS: number = 2_562_047 * 3_600_000;

/** The most characters a duration string may have (Go's notation needs far fewer for any duration it holds). */
const MAX_DURATION_TEXT = 64;

/**
 * Why a text is not a duration.
 *
 * @example
 * ```ts
 * const e: DurationError = { code: 'invalid_duration', value: '3 days' };
 * ```
 */
export type DurationError =
  /** Not a string, not Go's notation, negative, or longer than {@link MAX_DURATION_MS}. */
  { readonly code: 'invalid_duration'; readonly value: string };

const PART = /^([0-9]*(?:\.[0-9]*)?)([a-zµμ]+)/u;

/**
 * Parses a non-negative Go duration string into milliseconds. Go's rules: a sequence of decimal numbers, each
 * with an optional fraction and a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), optionally signed; `"0"` alone
 * needs no unit. A negative duration is refused (no option here takes one). Never throws.
 *
 * @param text - The duration as written.
 * @returns The duration in milliseconds (fractions of a millisecond kept), or `invalid_duration`.
 *
 * @example
 * ```ts
 * parseDuration('2160h'); // ok(7_776_000_000)
 * parseDuration('1h30m'); // ok(5_400_000)
 * parseDuration('3 days'); // err({ code: 'invalid_duration', value: '3 days' })
 * ```
 */
export function parseDuration(text: unknown): Result<number, DurationError> {
  if (typeof text !== 'string') return err({ code: 'invalid_duration', value: describeNonString(text) });
  const refuse = err<number, DurationError>({ code: 'invalid_duration', value: text.slice(0, MAX_DURATION_TEXT) });
  if (text.length === 0 || text.length > MAX_DURATION_TEXT) return refuse;
  let rest = text.startsWith('+') ? text.slice(1) : text;
  if (rest === '0') return ok(0);
  if (rest === '') return refuse;
  let total = 0;
  while (rest !== '') {
    const part = PART.exec(rest);
    if (part === null) return refuse;
    const [whole, number = '', unit = ''] = part;
    const factor = DURATION_UNITS_MS[unit];
    if (number === '' || number === '.' || factor === undefined) return refuse;
    total += Number(number) * factor;
    rest = rest.slice(whole.length);
  }
  return Number.isFinite(total) && total <= MAX_DURATION_MS ? ok(total) : refuse;
}

/** Names a non-string value without calling its own `toString`, which may be missing or throw. */
function describeNonString(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${value}`;
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}

/**
 * Writes milliseconds in Go's notation, largest units first, zero parts left out: `7_776_000_000` → `"2160h"`,
 * `5_400_000` → `"1h30m"`, `0` → `"0s"`. Fractions of a millisecond are rounded to the nearest millisecond.
 *
 * @param ms - A non-negative duration in milliseconds.
 * @returns The duration as Go would accept it back.
 *
 * @example
 * ```ts
 * formatDuration(90 * 60_000); // '1h30m'
 * ```
 */
export function formatDuration(ms: number): string {
  const total = Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
  if (total === 0) return '0s';
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const seconds = millis % 1000 === 0 ? `${millis / 1000}s` : `${(millis / 1000).toFixed(3).replace(/0+$/, '')}s`;
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${millis > 0 ? seconds : ''}`;
}
