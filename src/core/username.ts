/**
 * Username normalization, validation and collision suffixes for names coming from providers (spec §5.5).
 *
 * Every function here is total: it returns a neverthrow `Result` for every input, including values
 * that break their static type at run time, and runs in time linear in the input's length (a single
 * pass, no regular expressions). The randomness of {@link withRandomSuffix} is a parameter.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { usernameKey } from './store-keys.js';

/**
 * The longest username, in characters, that {@link validateUsername} accepts. Valid usernames are
 * ASCII, so this is also their length in UTF-8 bytes. {@link normalizeUsername} truncates to it.
 *
 * @example
 * ```ts
 * validateUsername('a'.repeat(USERNAME_MAX_LENGTH)).isOk(); // true
 * ```
 */
export const USERNAME_MAX_LENGTH = 255;

/**
 * How many lowercase letters {@link withRandomSuffix} appends (after a `-`).
 *
 * @example
 * ```ts
 * withRandomSuffix('alice', new Uint8Array([0, 1, 2, 3, 4])); // ok('alice-abcde'): SUFFIX_LENGTH letters
 * ```
 */
export const SUFFIX_LENGTH = 5;

/**
 * How many random bytes to pass to {@link withRandomSuffix}. Each byte is accepted with probability
 * 234/256, so 16 bytes yield the {@link SUFFIX_LENGTH} letters needed except with probability about
 * 2·10⁻¹⁰ (then the call returns `insufficient_random_bytes` and the caller draws fresh bytes).
 *
 * @example
 * ```ts
 * const bytes = crypto.getRandomValues(new Uint8Array(SUFFIX_RANDOM_BYTES)); // at the edge, not in the core
 * withRandomSuffix('alice', bytes); // ok('alice-' + five letters), almost surely
 * ```
 */
export const SUFFIX_RANDOM_BYTES = 16;

/**
 * Why {@link validateUsername} rejected a name, one value per rule of spec §5.5 that a name can break.
 *
 * @example
 * ```ts
 * INVALID_USERNAME_REASONS.includes('trailing_dot'); // true
 * ```
 */
export const INVALID_USERNAME_REASONS = [
  'contains_at',
  'invalid_character',
  'leading_separator',
  'consecutive_separators',
  'trailing_dot',
] as const;

/**
 * A reason of an `invalid_username` error:
 * `contains_at` (rules 2 and 3: an `@` is never kept),
 * `invalid_character` (rule 1: a code point outside `[A-Za-z0-9-._]`),
 * `leading_separator` (rule 5: starts with `.` or `-`),
 * `consecutive_separators` (rule 4: `..`, `--`, `.-` or `-.`),
 * `trailing_dot` (rule 6: ends with `.`).
 *
 * @example
 * ```ts
 * const reason: InvalidUsernameReason = 'leading_separator';
 * ```
 */
export type InvalidUsernameReason = (typeof INVALID_USERNAME_REASONS)[number];

/**
 * What `typeof` says about a value that had the wrong type at run time (`null` is reported as `'null'`).
 *
 * @example
 * ```ts
 * const received: RuntimeType = 'undefined';
 * ```
 */
export type RuntimeType = 'undefined' | 'null' | 'boolean' | 'number' | 'bigint' | 'string' | 'symbol' | 'object' | 'function';

/**
 * Why a username function could not produce a username. Errors carry no part of the input, so they
 * are safe to log (a provider name is often an email address).
 *
 * @example
 * ```ts
 * const e: UsernameError = { code: 'invalid_username', reason: 'trailing_dot', index: 4 };
 * ```
 */
export type UsernameError =
  /** The name given at run time is not a string primitive. */
  | { readonly code: 'not_a_string'; readonly received: RuntimeType }
  /** Normalization left nothing (for example `''`, `'@example.com'`, `'.-.'`), or validation was given `''`. */
  | { readonly code: 'empty_username' }
  /** Validation: the name is longer than {@link USERNAME_MAX_LENGTH} UTF-16 code units (`length`). */
  | { readonly code: 'too_long'; readonly length: number; readonly maxLength: typeof USERNAME_MAX_LENGTH }
  /** Validation: the name breaks a rule of spec §5.5; `index` is the UTF-16 index of the first offending character. */
  | { readonly code: 'invalid_username'; readonly reason: InvalidUsernameReason; readonly index: number }
  /** The random bytes given at run time are not a `Uint8Array`. */
  | { readonly code: 'not_a_byte_array'; readonly received: RuntimeType }
  /** The bytes ran out before {@link SUFFIX_LENGTH} letters were drawn (rejection sampling discards bytes ≥ 234). */
  | {
      readonly code: 'insufficient_random_bytes';
      readonly bytesProvided: number;
      readonly lettersDrawn: number;
      readonly lettersNeeded: typeof SUFFIX_LENGTH;
    };

// Character classes of ASCII code units: 0 = outside the set (becomes '-'), 1 = kept and not a
// separator, 2 = '.', 3 = '-'. Everything ≥ 128 is outside the set.
const OTHER = 0;
const KEPT = 1;
const DOT = 2;
const DASH = 3;
const CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0x30; c <= 0x39; c++) table[c] = KEPT;
  for (let c = 0x41; c <= 0x5a; c++) table[c] = KEPT;
  for (let c = 0x61; c <= 0x7a; c++) table[c] = KEPT;
  table[0x5f] = KEPT; // '_'
  table[0x2e] = DOT;
  table[0x2d] = DASH;
  return table;
})();
const AT = 0x40;
const DOT_CHAR = 0x2e;
const DASH_CHAR = 0x2d;

function classOf(c: number): number {
  return c < 128 ? (CLASS[c] ?? OTHER) : OTHER;
}

function runtimeType(value: unknown): RuntimeType {
  return value === null ? 'null' : typeof value;
}

/**
 * Normalizes a name coming from a provider (an email address, a display name, a code host login)
 * into a username, applying spec §5.5 rules 1–6 in this order:
 *
 * - exactly one `@`: only the part before it is kept (rule 2); two or more: each `@` becomes `-` (rule 3);
 * - every code point outside `[A-Za-z0-9-._]` becomes one `-` (rule 1: an emoji is one `-`, a lone
 *   surrogate is one code point); letters keep their case, underscores stay;
 * - a run of `-` and `.` collapses to one character: `.` if the run is all dots, else `-` (rule 4);
 * - a leading separator is removed (rule 5), a trailing `.` is removed (rule 6), a trailing `-` stays;
 * - a result longer than {@link USERNAME_MAX_LENGTH} is cut to that length, and a `.` left at the
 *   end by the cut is removed (so that rule 7 holds for the output).
 *
 * The output always passes {@link validateUsername}, so normalizing is idempotent.
 *
 * @param name - The name as the provider gave it.
 * @returns `ok(username)`, or `err` with `empty_username` when nothing is left, or `not_a_string`.
 * @see {@link validateUsername} for the names users choose themselves (rule 7).
 * @example Email addresses and odd characters
 * ```ts
 * normalizeUsername('alice@example.com'); // ok('alice')
 * normalizeUsername('a@b@c');             // ok('a-b-c')
 * normalizeUsername('John Doe 🚀..');     // ok('John-Doe-')
 * normalizeUsername('..jo..se.');         // ok('jo.se')
 * ```
 * @example Nothing left
 * ```ts
 * normalizeUsername('@example.com'); // err({ code: 'empty_username' })
 * ```
 */
export function normalizeUsername(name: string): Result<string, UsernameError> {
  if (typeof name !== 'string') return err({ code: 'not_a_string', received: runtimeType(name) });
  // Rules 2 and 3: with exactly one '@' keep what precedes it; otherwise each '@' is just a
  // character outside the set and becomes '-' below.
  const firstAt = name.indexOf('@');
  const end = firstAt !== -1 && name.indexOf('@', firstAt + 1) === -1 ? firstAt : name.length;

  // The output is built from verbatim slices of the input [segStart, segEnd) plus replacement
  // characters, so a name that needs no change costs one scan and no copy.
  let out = '';
  let segStart = 0;
  let segEnd = 0;
  let outLength = 0;
  // A pending run of separators and replaced code points, not yet emitted.
  let runStart = -1;
  let runAllDots = true;
  let truncated = false;

  let i = 0;
  while (i < end) {
    const c = name.charCodeAt(i);
    const cls = classOf(c);
    if (cls !== KEPT) {
      if (runStart === -1) {
        runStart = i;
        runAllDots = true;
      }
      if (cls !== DOT) runAllDots = false;
      // A surrogate pair is one code point (it only ever becomes '-', which collapses anyway).
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
        const next = name.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      i++;
      continue;
    }
    if (runStart !== -1) {
      // Rule 5: a leading run is dropped. Otherwise the run becomes one '.' or '-'.
      if (outLength > 0) {
        const sep = runAllDots ? DOT_CHAR : DASH_CHAR;
        if (i - runStart === 1 && name.charCodeAt(runStart) === sep && segEnd === runStart) {
          segEnd = i;
        } else {
          out += name.slice(segStart, segEnd) + (runAllDots ? '.' : '-');
          segStart = i;
          segEnd = i;
        }
        outLength++;
        if (outLength === USERNAME_MAX_LENGTH) {
          truncated = true;
          break;
        }
      }
      runStart = -1;
    }
    if (segEnd === i) {
      segEnd = i + 1;
    } else {
      out += name.slice(segStart, segEnd);
      segStart = i;
      segEnd = i + 1;
    }
    outLength++;
    i++;
    // The cut at 255 ends on a kept character here: nothing to remove, no pending run.
    if (outLength === USERNAME_MAX_LENGTH) break;
  }

  if (truncated) {
    out += name.slice(segStart, segEnd);
    // The cut may end on a '.' (never on two separators): rule 6 removes it.
    if (out.charCodeAt(out.length - 1) === DOT_CHAR) out = out.slice(0, -1);
    return ok(out);
  }
  // Rule 6: a trailing run of dots is removed; a trailing run with a '-' stays as one '-'.
  // Nothing follows the run, so it can never leave a '.' at the end.
  let tail = '';
  if (runStart !== -1 && outLength > 0 && !runAllDots) {
    if (i - runStart === 1 && name.charCodeAt(runStart) === DASH_CHAR && segEnd === runStart) segEnd = i;
    else tail = '-';
  }
  out = segStart === 0 && segEnd === name.length && out === '' ? name : out + name.slice(segStart, segEnd) + tail;
  return out === '' ? err({ code: 'empty_username' }) : ok(out);
}

/**
 * Checks a username chosen directly by a user (spec §5.5 rule 7): it is accepted exactly when
 * {@link normalizeUsername} would leave it unchanged, that is when it is 1 to
 * {@link USERNAME_MAX_LENGTH} characters of `[A-Za-z0-9-._]`, does not start with `.` or `-`, does
 * not end with `.`, and has no two separators (`.`, `-`) in a row.
 *
 * Checks run in this order: `not_a_string`, `empty_username`, `too_long`, then the first offending
 * character from the left decides the `invalid_username` reason (`@` is `contains_at`, any other
 * character outside the set is `invalid_character`), and finally `trailing_dot`.
 *
 * @param name - The username as typed.
 * @returns `ok(name)` unchanged, or `err` saying what is wrong and where.
 * @example
 * ```ts
 * validateUsername('john_doe.2');  // ok('john_doe.2')
 * validateUsername('john..doe');   // err({ code: 'invalid_username', reason: 'consecutive_separators', index: 5 })
 * validateUsername('josé');        // err({ code: 'invalid_username', reason: 'invalid_character', index: 3 })
 * validateUsername('');            // err({ code: 'empty_username' })
 * ```
 */
export function validateUsername(name: string): Result<string, UsernameError> {
  if (typeof name !== 'string') return err({ code: 'not_a_string', received: runtimeType(name) });
  const length = name.length;
  if (length === 0) return err({ code: 'empty_username' });
  if (length > USERNAME_MAX_LENGTH) return err({ code: 'too_long', length, maxLength: USERNAME_MAX_LENGTH });
  let previousIsSeparator = true; // so that a separator at index 0 is caught
  for (let i = 0; i < length; i++) {
    const c = name.charCodeAt(i);
    const cls = classOf(c);
    if (cls === KEPT) {
      previousIsSeparator = false;
      continue;
    }
    if (cls === OTHER) {
      return err({ code: 'invalid_username', reason: c === AT ? 'contains_at' : 'invalid_character', index: i });
    }
    if (previousIsSeparator) {
      return err({ code: 'invalid_username', reason: i === 0 ? 'leading_separator' : 'consecutive_separators', index: i });
    }
    previousIsSeparator = true;
  }
  if (name.charCodeAt(length - 1) === DOT_CHAR) {
    return err({ code: 'invalid_username', reason: 'trailing_dot', index: length - 1 });
  }
  return ok(name);
}

/**
 * Makes a username unique when several external accounts normalize to the same name (spec §5.5
 * rule 8): appends `-` and {@link SUFFIX_LENGTH} lowercase letters drawn from `randomBytes`.
 *
 * Letters are drawn without modulo bias by rejection sampling: bytes are read in order, a byte
 * below 234 (= 26 × 9) gives the letter `'a' + byte % 26` and a byte from 234 to 255 is skipped, so
 * each letter comes from exactly 9 of the 256 byte values. Pass {@link SUFFIX_RANDOM_BYTES} bytes
 * from a CSPRNG; on a collision, call again with fresh bytes (a bounded number of times).
 *
 * The base must be a valid username (it is checked with {@link validateUsername}). A trailing `-`
 * or `.` of the base is dropped before the `-` is added, so the result never has two separators in
 * a row, and a base too long for the suffix is first cut to
 * `USERNAME_MAX_LENGTH - SUFFIX_LENGTH - 1` characters. The result always validates.
 *
 * @param username - A valid username, usually the output of {@link normalizeUsername}.
 * @param randomBytes - Uniformly random bytes; only as many as needed are read.
 * @returns `ok(username-xxxxx)`, the base's validation error, `not_a_byte_array`, or
 * `insufficient_random_bytes` when fewer than five bytes below 234 were given.
 * @example
 * ```ts
 * withRandomSuffix('alice', new Uint8Array([0, 1, 250, 25, 26, 233])); // ok('alice-abzaz')
 * withRandomSuffix('alice-', new Uint8Array([0, 0, 0, 0, 0]));         // ok('alice-aaaaa')
 * withRandomSuffix('alice', new Uint8Array([255, 0]));
 * // err({ code: 'insufficient_random_bytes', bytesProvided: 2, lettersDrawn: 1, lettersNeeded: 5 })
 * ```
 */
export function withRandomSuffix(username: string, randomBytes: Uint8Array): Result<string, UsernameError> {
  const valid = validateUsername(username);
  if (valid.isErr()) return err(valid.error);
  // ArrayBuffer.isView is false for a Proxy without running any trap, so instanceof runs only on real views.
  if (!(ArrayBuffer.isView(randomBytes) && randomBytes instanceof Uint8Array)) {
    return err({ code: 'not_a_byte_array', received: runtimeType(randomBytes) });
  }
  let letters = '';
  let drawn = 0;
  const bytesProvided = randomBytes.length;
  for (let i = 0; i < bytesProvided && drawn < SUFFIX_LENGTH; i++) {
    const byte = randomBytes[i] ?? 255;
    if (byte < 234) {
      letters += String.fromCharCode(0x61 + (byte % 26));
      drawn++;
    }
  }
  if (drawn < SUFFIX_LENGTH) {
    return err({ code: 'insufficient_random_bytes', bytesProvided, lettersDrawn: drawn, lettersNeeded: SUFFIX_LENGTH });
  }
  let base = valid.value.slice(0, USERNAME_MAX_LENGTH - SUFFIX_LENGTH - 1);
  // A valid name never has two separators in a row, so one separator at most is left at the end.
  const last = base.charCodeAt(base.length - 1);
  if (last === DOT_CHAR || last === DASH_CHAR) base = base.slice(0, -1);
  return ok(`${base}-${letters}`);
}

/**
 * How many suffixed usernames a sign-in tries after the plain name is taken (spec §5.5 rule 8): the length of
 * {@link usernameCandidates}' list is at most one more than this.
 *
 * @example
 * ```ts
 * MAX_USERNAME_SUFFIX_ATTEMPTS; // 5
 * ```
 */
export const MAX_USERNAME_SUFFIX_ATTEMPTS = 5;

/**
 * The usernames a new account may take, in order of preference (spec §5.5 rules 1–6 and 8): the name normalized
 * first, then one name with a random suffix ({@link withRandomSuffix}) for each of the first
 * {@link MAX_USERNAME_SUFFIX_ATTEMPTS} chunks of `randomBytes`. A chunk that yields too few letters is an attempt
 * spent (it adds nothing); a suffix equal (ASCII case ignored) to an earlier candidate is left out. A store takes
 * the first candidate that is free, atomically with the insert.
 *
 * @param name - The name a provider gave (its username, else the primary email); normalized here.
 * @param randomBytes - Chunks of {@link SUFFIX_RANDOM_BYTES} random bytes, one per suffix attempt.
 * @returns `ok` with one to six candidates, or `err` when the name normalizes to nothing, is not a string, or a
 * chunk is not a `Uint8Array` (`not_a_byte_array`).
 * @example
 * ```ts
 * usernameCandidates('Octo Cat', [new Uint8Array(16).fill(0), new Uint8Array(16).fill(1)]);
 * // ok(['Octo-Cat', 'Octo-Cat-aaaaa', 'Octo-Cat-bbbbb'])
 * usernameCandidates('octo', []); // ok(['octo'])
 * usernameCandidates('@', []);    // err({ code: 'empty_username' })
 * ```
 */
export function usernameCandidates(name: string, randomBytes: readonly Uint8Array[]): Result<readonly string[], UsernameError> {
  const base = normalizeUsername(name);
  if (base.isErr()) return err(base.error);
  if (!Array.isArray(randomBytes)) return err({ code: 'not_a_byte_array', received: runtimeType(randomBytes) });
  const candidates = [base.value];
  const keys = new Set([usernameKey(base.value)]);
  for (const chunk of randomBytes.slice(0, MAX_USERNAME_SUFFIX_ATTEMPTS)) {
    const suffixed = withRandomSuffix(base.value, chunk);
    if (suffixed.isErr()) {
      if (suffixed.error.code === 'insufficient_random_bytes') continue;
      return err(suffixed.error);
    }
    const key = usernameKey(suffixed.value);
    if (keys.has(key)) continue;
    keys.add(key);
    candidates.push(suffixed.value);
  }
  return ok(candidates);
}
