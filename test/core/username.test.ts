import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  INVALID_USERNAME_REASONS,
  SUFFIX_LENGTH,
  SUFFIX_RANDOM_BYTES,
  USERNAME_MAX_LENGTH,
  normalizeUsername,
  validateUsername,
  withRandomSuffix,
} from '../../src/core/username.js';
import type { InvalidUsernameReason, RuntimeType, UsernameError } from '../../src/core/username.js';

// ---------------------------------------------------------------------------------------------
// Helpers and independent oracles (regular expressions are fine here; the module has none).

/** Deliberately breaks the static type, to check the functions are total at run time. */
const unsafe = <T>(value: unknown): T => value as T;

const invalid = (reason: InvalidUsernameReason, index: number): Result<string, UsernameError> =>
  err({ code: 'invalid_username', reason, index });
const empty: Result<string, UsernameError> = err({ code: 'empty_username' });
const a = (n: number): string => 'a'.repeat(n);

/** §5.5 rules 1–6 as a chain of regular expressions, plus this library's cut at 255 characters. */
function oracleNormalize(name: string): Result<string, UsernameError> {
  const ats = name.split('@').length - 1;
  let s = ats === 1 ? name.slice(0, name.indexOf('@')) : name;
  s = s.replace(/[^A-Za-z0-9._-]/gu, '-');
  s = s.replace(/[.-]{2,}/g, (run) => (/^\.+$/.test(run) ? '.' : '-'));
  s = s.replace(/^[.-]/, '').replace(/\.$/, '');
  if (s.length > 255) s = s.slice(0, 255).replace(/\.$/, '');
  return s === '' ? empty : ok(s);
}

/** Rule 7 as "the leftmost broken rule", each rule a regular expression tried at every index. */
function oracleValidate(name: string): Result<string, UsernameError> {
  if (name === '') return empty;
  if (name.length > 255) return err({ code: 'too_long', length: name.length, maxLength: 255 });
  for (let i = 0; i < name.length; i++) {
    const rest = name.slice(i);
    if (rest.startsWith('@')) return invalid('contains_at', i);
    if (/^[^A-Za-z0-9._-]/.test(rest)) return invalid('invalid_character', i);
    if (/^[.-]/.test(rest) && i === 0) return invalid('leading_separator', i);
    if (/^[.-]/.test(rest) && /[.-]$/.test(name.slice(0, i))) return invalid('consecutive_separators', i);
  }
  if (name.endsWith('.')) return invalid('trailing_dot', name.length - 1);
  return ok(name);
}

function runtimeTypeOf(value: unknown): RuntimeType {
  return value === null ? 'null' : typeof value;
}

const swapAsciiCase = (s: string): string =>
  s.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

// ---------------------------------------------------------------------------------------------
// Arbitraries: biased towards the characters the rules care about, so valid names, single `@`,
// runs of separators and surrogates all come up often.

const outsideChar = fc.oneof(
  fc.integer({ min: 0xff01, max: 0xff5e }).map((cp) => String.fromCodePoint(cp)), // fullwidth forms
  fc.constantFrom(' ', '+', '/', '\u0000', 'é', '🚀', '\uD800', '\uDFFF', '＠'),
  fc.integer({ min: 0x80, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)), // incl. lone surrogates
);
const usernameChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'Z', '0', '9', '_') },
  { weight: 3, arbitrary: fc.constantFrom('.', '-') },
  { weight: 1, arbitrary: fc.constant('@') },
  { weight: 2, arbitrary: outsideChar },
);
const providerName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: usernameChar, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: usernameChar, minLength: 240, maxLength: 600 }) },
  { weight: 1, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
);
/** Names that follow rule 7 by construction (a grammar, not the module). */
const grammarValidName = fc
  .stringMatching(/^[A-Za-z0-9_]+([.-][A-Za-z0-9_]+)*-?$/)
  .filter((s) => s.length <= USERNAME_MAX_LENGTH);
/** Always-valid bases, including long ones, from normalizing anything after a kept character. */
const normalizedName = providerName.map((s) => normalizeUsername(`x${s}`)._unsafeUnwrap());
const anyName = fc.oneof(providerName, grammarValidName, normalizedName);

// ---------------------------------------------------------------------------------------------

describe('normalizeUsername', () => {
  it.each([
    { ref: '§5.5 rule 2', input: 'alice@example.com', expected: ok('alice') },
    { ref: '§5.5 rule 2', input: 'x@', expected: ok('x') },
    { ref: '§5.5 rule 2', input: '@example.com', expected: empty },
    { ref: '§5.5 rule 2', input: '@', expected: empty },
    { ref: '§5.5 rules 2 and 1', input: 'John Smith@example.com', expected: ok('John-Smith') },
    { ref: '§5.5 rule 3', input: 'a@b@c', expected: ok('a-b-c') },
    { ref: '§5.5 rule 3', input: 'a@b@c.com', expected: ok('a-b-c.com') },
    { ref: '§5.5 rules 3 and 4', input: 'a@@b', expected: ok('a-b') },
    { ref: '§5.5 rules 3 and 5', input: '@@a', expected: ok('a') },
    { ref: '§5.5 rules 3 and 5', input: '@@', expected: empty },
    { ref: '§5.5 rule 1', input: 'A-Z_09.x', expected: ok('A-Z_09.x') },
    { ref: '§5.5 rule 1', input: 'Alice', expected: ok('Alice') },
    { ref: '§5.5 rule 1', input: 'a b', expected: ok('a-b') },
    { ref: '§5.5 rule 1', input: 'a+tag', expected: ok('a-tag') },
    { ref: '§5.5 rule 1', input: 'a/b\\c', expected: ok('a-b-c') },
    { ref: '§5.5 rule 1', input: 'a\u0000b', expected: ok('a-b') },
    { ref: '§5.5 rule 1 (a code point is one character)', input: 'a🚀b', expected: ok('a-b') },
    { ref: '§5.5 rule 1 (a code point is one character)', input: 'José', expected: ok('Jos-') },
    { ref: '§5.5 rule 1 (a code point is one character)', input: 'Jose\u0301', expected: ok('Jose-') },
    { ref: '§5.5 rule 1 (lone surrogate)', input: 'a\uD800b\uDFFFc', expected: ok('a-b-c') },
    { ref: '§5.5 rule 1 (fullwidth is not ASCII)', input: 'Ａｌｉｃｅ', expected: empty },
    { ref: '§5.5 rule 1 (fullwidth is not ASCII)', input: 'bob＠example.com', expected: ok('bob-example.com') },
    { ref: '§5.5 rule 4', input: 'a..b', expected: ok('a.b') },
    { ref: '§5.5 rule 4', input: 'a...b', expected: ok('a.b') },
    { ref: '§5.5 rule 4', input: 'a--b', expected: ok('a-b') },
    { ref: '§5.5 rule 4', input: 'a.-b', expected: ok('a-b') },
    { ref: '§5.5 rule 4', input: 'a-.b', expected: ok('a-b') },
    { ref: '§5.5 rule 4', input: 'a.-.b', expected: ok('a-b') },
    { ref: '§5.5 rules 1 and 4', input: 'a. b', expected: ok('a-b') },
    { ref: '§5.5 rules 1 and 4', input: 'a 🚀 b', expected: ok('a-b') },
    { ref: '§5.5 rule 5', input: '..a', expected: ok('a') },
    { ref: '§5.5 rule 5', input: '-a', expected: ok('a') },
    { ref: '§5.5 rule 5', input: '.-a', expected: ok('a') },
    { ref: '§5.5 rule 5', input: '-._', expected: ok('_') },
    { ref: '§5.5 rules 1 and 5', input: ' 🚀a', expected: ok('a') },
    { ref: '§5.5 rule 6', input: 'a.', expected: ok('a') },
    { ref: '§5.5 rule 6', input: 'a..', expected: ok('a') },
    { ref: '§5.5 rule 6 (a trailing - stays)', input: 'a-', expected: ok('a-') },
    { ref: '§5.5 rule 6 (a trailing - stays)', input: 'a.-', expected: ok('a-') },
    { ref: '§5.5 rule 6 (a trailing - stays)', input: 'a-.', expected: ok('a-') },
    { ref: '§5.5 rules 1 and 6', input: 'a 🚀', expected: ok('a-') },
    { ref: '§5.5 rules 5 and 6', input: '.', expected: empty },
    { ref: '§5.5 rules 5 and 6', input: '-', expected: empty },
    { ref: '§5.5 rules 5 and 6', input: '.-.', expected: empty },
    { ref: 'empty result', input: '', expected: empty },
    { ref: '§5.5 rule 9 (reading: rule 1 keeps _)', input: 'first_last@example.com', expected: ok('first_last') },
    { ref: '§5.5 rule 9', input: 'first.last+ci@example.com', expected: ok('first.last-ci') },
    { ref: '§5.5 rule 9', input: 'first last@example.com', expected: ok('first-last') },
    { ref: 'cut at 255', input: a(300), expected: ok(a(255)) },
    { ref: 'cut at 255', input: a(255), expected: ok(a(255)) },
    { ref: 'cut at 255', input: `${a(255)}.`, expected: ok(a(255)) },
    { ref: 'cut at 255', input: `${a(255)}-`, expected: ok(a(255)) },
    { ref: 'cut at 255', input: `${a(254)}-`, expected: ok(`${a(254)}-`) },
    { ref: 'cut at 255, rule 6', input: `${a(254)}.b`, expected: ok(a(254)) },
    { ref: 'cut at 255, rule 6', input: `${a(254)}..b`, expected: ok(a(254)) },
    { ref: 'cut at 255', input: `${a(254)}-b`, expected: ok(`${a(254)}-`) },
    { ref: 'cut at 255', input: `${a(253)}🚀b`, expected: ok(`${a(253)}-b`) },
    { ref: 'cut at 255, rule 5', input: `${'.'.repeat(10)}${a(300)}`, expected: ok(a(255)) },
    { ref: 'cut after rule 2', input: `${a(300)}@example.com`, expected: ok(a(255)) },
    { ref: 'hostile, linear', input: '.-'.repeat(1 << 19), expected: empty },
    { ref: 'hostile, linear', input: '@'.repeat(1 << 16), expected: empty },
    { ref: 'hostile, linear', input: 'a@'.repeat(1 << 15), expected: ok('a-'.repeat(128).slice(0, 255)) },
    { ref: 'hostile, linear', input: '🚀'.repeat(1 << 16), expected: empty },
  ])('should normalize $input per $ref', ({ input, expected }) => {
    expect(normalizeUsername(input)).toStrictEqual(expected);
  });

  it.each([
    { ref: 'total', input: null, expected: err({ code: 'not_a_string', received: 'null' }) },
    { ref: 'total', input: undefined, expected: err({ code: 'not_a_string', received: 'undefined' }) },
    { ref: 'total', input: 42, expected: err({ code: 'not_a_string', received: 'number' }) },
    { ref: 'total', input: { name: 'alice' }, expected: err({ code: 'not_a_string', received: 'object' }) },
    { ref: 'total', input: ['alice'], expected: err({ code: 'not_a_string', received: 'object' }) },
    { ref: 'total', input: Object('alice'), expected: err({ code: 'not_a_string', received: 'object' }) },
  ])('should reject the non-string $input per $ref', ({ input, expected }) => {
    expect(normalizeUsername(unsafe<string>(input))).toStrictEqual(expected);
    expect(validateUsername(unsafe<string>(input))).toStrictEqual(expected);
  });

  it('should agree with the regex oracle on every string of up to 4 characters over a 9-character alphabet', () => {
    const alphabet = ['a', 'Z', '_', '.', '-', '@', 'é', '\uD83D', '\uDE80'];
    let words = [''];
    let checked = 0;
    for (let length = 0; length <= 4; length++) {
      for (const word of words) {
        expect(normalizeUsername(word)).toStrictEqual(oracleNormalize(word));
        checked++;
      }
      words = words.flatMap((w) => alphabet.map((c) => w + c));
    }
    expect(checked).toBe(1 + 9 + 81 + 729 + 6561);
  });

  test.prop([providerName])('should equal the regex oracle (model)', (name) => {
    expect(normalizeUsername(name)).toStrictEqual(oracleNormalize(name));
  });

  test.prop([providerName])('should be idempotent', (name) => {
    const once = normalizeUsername(name);
    expect(once.andThen(normalizeUsername)).toStrictEqual(once);
  });

  test.prop([providerName])('should always produce a name that validates', (name) => {
    const once = normalizeUsername(name);
    expect(once.andThen(validateUsername)).toStrictEqual(once);
  });

  test.prop([providerName])('should produce 1 to 255 ASCII characters of [A-Za-z0-9-._]', (name) => {
    const result = normalizeUsername(name);
    if (result.isErr()) {
      expect(result.error).toStrictEqual({ code: 'empty_username' });
      return;
    }
    expect(result.value).toMatch(/^[A-Za-z0-9._-]{1,255}$/);
  });

  test.prop([providerName])('should commute with ASCII case changes (letters keep their case)', (name) => {
    expect(normalizeUsername(swapAsciiCase(name))).toStrictEqual(normalizeUsername(name).map(swapAsciiCase));
  });

  test.prop([
    fc.array(fc.oneof(usernameChar.map((c) => ({ kept: c })), fc.tuple(outsideChar, outsideChar)), { maxLength: 40 }),
  ])('should treat every character outside the set alike, fullwidth forms included', (tokens) => {
    const left = tokens.map((t) => ('kept' in t ? t.kept : t[0])).join('');
    const right = tokens.map((t) => ('kept' in t ? t.kept : t[1])).join('');
    expect(normalizeUsername(left)).toStrictEqual(normalizeUsername(right));
  });

  test.prop([fc.string({ unit: 'grapheme-ascii', maxLength: 40 })])(
    'should leave nothing of a name written entirely in fullwidth forms (they are outside ASCII)',
    (name) => {
      const wide = name.replace(/[\x21-\x7e]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
      expect(normalizeUsername(wide)).toStrictEqual(empty);
    },
  );

  test.prop([fc.anything()])('should never throw and type-check its input at run time', (value) => {
    const expected = typeof value === 'string' ? oracleNormalize(value) : err({ code: 'not_a_string', received: runtimeTypeOf(value) });
    expect(normalizeUsername(unsafe<string>(value))).toStrictEqual(expected);
  });
});

describe('validateUsername', () => {
  it.each([
    { ref: '§5.5 rule 7', input: 'alice', expected: ok('alice') },
    { ref: '§5.5 rule 7', input: 'john_doe', expected: ok('john_doe') },
    { ref: '§5.5 rule 7', input: 'A.b-C_9', expected: ok('A.b-C_9') },
    { ref: '§5.5 rule 7', input: '_', expected: ok('_') },
    { ref: '§5.5 rule 7 (trailing - allowed)', input: 'a-', expected: ok('a-') },
    { ref: '§5.5 rule 7 (255 characters)', input: a(255), expected: ok(a(255)) },
    { ref: '§5.5 rule 7 (too long)', input: a(256), expected: err({ code: 'too_long', length: 256, maxLength: 255 }) },
    { ref: '§5.5 rule 7 (too long first)', input: ` ${a(300)}`, expected: err({ code: 'too_long', length: 301, maxLength: 255 }) },
    { ref: '§5.5 rules 5 and 7', input: '', expected: empty },
    { ref: '§5.5 rules 2 and 7', input: 'alice@example.com', expected: invalid('contains_at', 5) },
    { ref: '§5.5 rules 3 and 7', input: 'a@b@c', expected: invalid('contains_at', 1) },
    { ref: '§5.5 rules 1 and 7', input: 'a b', expected: invalid('invalid_character', 1) },
    { ref: '§5.5 rules 1 and 7', input: 'josé', expected: invalid('invalid_character', 3) },
    { ref: '§5.5 rules 1 and 7', input: '🚀', expected: invalid('invalid_character', 0) },
    { ref: '§5.5 rules 1 and 7', input: 'Ａlice', expected: invalid('invalid_character', 0) },
    { ref: '§5.5 rules 1 and 7', input: 'a\uDFFF', expected: invalid('invalid_character', 1) },
    { ref: '§5.5 rules 5 and 7', input: '.a', expected: invalid('leading_separator', 0) },
    { ref: '§5.5 rules 5 and 7', input: '-a', expected: invalid('leading_separator', 0) },
    { ref: '§5.5 rules 4 and 7', input: 'a..b', expected: invalid('consecutive_separators', 2) },
    { ref: '§5.5 rules 4 and 7', input: 'a--b', expected: invalid('consecutive_separators', 2) },
    { ref: '§5.5 rules 4 and 7', input: 'a-.b', expected: invalid('consecutive_separators', 2) },
    { ref: '§5.5 rules 4 and 7', input: 'a--', expected: invalid('consecutive_separators', 2) },
    { ref: '§5.5 rules 6 and 7', input: 'a.', expected: invalid('trailing_dot', 1) },
    { ref: '§5.5 rules 6 and 7', input: 'a.b.', expected: invalid('trailing_dot', 3) },
    { ref: '§5.5 rule 7 (leftmost wins)', input: 'a..b c.', expected: invalid('consecutive_separators', 2) },
    { ref: '§5.5 rule 7 (leftmost wins)', input: 'a b..c', expected: invalid('invalid_character', 1) },
    { ref: '§5.5 rule 7 (leftmost wins)', input: '.a@b', expected: invalid('leading_separator', 0) },
  ])('should answer $expected for $input per $ref', ({ input, expected }) => {
    expect(validateUsername(input)).toStrictEqual(expected);
  });

  it('should list every reason it can report', () => {
    expect([...INVALID_USERNAME_REASONS].sort()).toStrictEqual(
      ['consecutive_separators', 'contains_at', 'invalid_character', 'leading_separator', 'trailing_dot'],
    );
  });

  it('should agree with the oracle, and with normalization, on every string of up to 4 characters over a 9-character alphabet', () => {
    const alphabet = ['a', 'Z', '_', '.', '-', '@', 'é', '\uD83D', '\uDE80'];
    let words = [''];
    const reasons = new Set<string>();
    for (let length = 0; length <= 4; length++) {
      for (const word of words) {
        const result = validateUsername(word);
        expect(result).toStrictEqual(oracleValidate(word));
        expect(result.isOk()).toBe(normalizeUsername(word).isOk() && normalizeUsername(word)._unsafeUnwrap() === word);
        if (result.isErr()) reasons.add(result.error.code === 'invalid_username' ? result.error.reason : result.error.code);
      }
      words = words.flatMap((w) => alphabet.map((c) => w + c));
    }
    // the enumeration reaches every outcome, so the comparison above is not vacuous
    expect([...reasons].sort()).toStrictEqual([...INVALID_USERNAME_REASONS, 'empty_username'].sort());
  });

  test.prop([anyName])('should accept exactly the names normalization leaves unchanged, up to 255 characters', (name) => {
    const accepted = validateUsername(name).isOk();
    const unchanged = normalizeUsername(name).map((n) => n === name).unwrapOr(false);
    expect(accepted).toBe(unchanged && name.length <= USERNAME_MAX_LENGTH);
  });

  test.prop([anyName])('should equal the leftmost-rule oracle (model)', (name) => {
    expect(validateUsername(name)).toStrictEqual(oracleValidate(name));
  });

  test.prop([grammarValidName])('should accept every name of the rule 7 grammar unchanged', (name) => {
    expect(validateUsername(name)).toStrictEqual(ok(name));
  });

  test.prop([fc.anything()])('should never throw and type-check its input at run time', (value) => {
    const expected = typeof value === 'string' ? oracleValidate(value) : err({ code: 'not_a_string', received: runtimeTypeOf(value) });
    expect(validateUsername(unsafe<string>(value))).toStrictEqual(expected);
  });
});

describe('withRandomSuffix', () => {
  const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
  it.each([
    { ref: '§5.5 rule 8', base: 'alice', random: bytes(0, 1, 2, 3, 4), expected: ok('alice-abcde') },
    { ref: '§5.5 rule 8', base: 'alice', random: bytes(25, 26, 51, 52, 233), expected: ok('alice-zazaz') },
    { ref: '§5.5 rule 8 (bytes ≥ 234 skipped)', base: 'alice', random: bytes(234, 255, 0, 240, 1, 2, 3, 4), expected: ok('alice-abcde') },
    { ref: '§5.5 rule 8 (extra bytes unread)', base: 'alice', random: bytes(0, 1, 2, 3, 4, 5, 6), expected: ok('alice-abcde') },
    { ref: '§5.5 rule 8 (no double separator)', base: 'a-', random: bytes(0, 0, 0, 0, 0), expected: ok('a-aaaaa') },
    { ref: '§5.5 rule 8', base: 'a.b', random: bytes(0, 0, 0, 0, 0), expected: ok('a.b-aaaaa') },
    { ref: '§5.5 rule 8 (cut to 249)', base: a(255), random: bytes(0, 1, 2, 3, 4), expected: ok(`${a(249)}-abcde`) },
    { ref: '§5.5 rule 8 (cut to 249)', base: a(250), random: bytes(0, 1, 2, 3, 4), expected: ok(`${a(249)}-abcde`) },
    { ref: '§5.5 rule 8 (cut to 249)', base: a(249), random: bytes(0, 1, 2, 3, 4), expected: ok(`${a(249)}-abcde`) },
    { ref: '§5.5 rule 8 (cut leaves .)', base: `${a(248)}.bcd`, random: bytes(0, 1, 2, 3, 4), expected: ok(`${a(248)}-abcde`) },
    { ref: '§5.5 rule 8 (cut leaves -)', base: `${a(248)}-bcd`, random: bytes(0, 1, 2, 3, 4), expected: ok(`${a(248)}-abcde`) },
    { ref: '§5.5 rule 7 (base must validate)', base: 'a.', random: bytes(0, 1, 2, 3, 4), expected: invalid('trailing_dot', 1) },
    { ref: '§5.5 rule 7 (base must validate)', base: 'alice@example.com', random: bytes(0, 1, 2, 3, 4), expected: invalid('contains_at', 5) },
    { ref: '§5.5 rule 7 (base must validate)', base: '', random: bytes(0, 1, 2, 3, 4), expected: empty },
    { ref: '§5.5 rule 7 (base must validate)', base: a(256), random: bytes(0, 1, 2, 3, 4), expected: err({ code: 'too_long', length: 256, maxLength: 255 }) },
    {
      ref: 'bytes run out',
      base: 'alice',
      random: bytes(),
      expected: err({ code: 'insufficient_random_bytes', bytesProvided: 0, lettersDrawn: 0, lettersNeeded: 5 }),
    },
    {
      ref: 'bytes run out',
      base: 'alice',
      random: bytes(255, 0, 1, 234, 2, 3),
      expected: err({ code: 'insufficient_random_bytes', bytesProvided: 6, lettersDrawn: 4, lettersNeeded: 5 }),
    },
    {
      ref: 'bytes run out',
      base: 'alice',
      random: new Uint8Array(SUFFIX_RANDOM_BYTES).fill(234),
      expected: err({ code: 'insufficient_random_bytes', bytesProvided: 16, lettersDrawn: 0, lettersNeeded: 5 }),
    },
  ])('should give $expected for $base per $ref', ({ base, random, expected }) => {
    expect(withRandomSuffix(base, random)).toStrictEqual(expected);
  });

  it.each([
    { ref: 'total', random: [0, 1, 2, 3, 4], expected: err({ code: 'not_a_byte_array', received: 'object' }) },
    { ref: 'total', random: null, expected: err({ code: 'not_a_byte_array', received: 'null' }) },
    { ref: 'total', random: 'abcde', expected: err({ code: 'not_a_byte_array', received: 'string' }) },
    { ref: 'total', random: Uint16Array.of(0, 1, 2, 3, 4), expected: err({ code: 'not_a_byte_array', received: 'object' }) },
    { ref: 'total', random: Uint8ClampedArray.of(0, 1, 2, 3, 4), expected: err({ code: 'not_a_byte_array', received: 'object' }) },
    { ref: 'total', random: new DataView(new ArrayBuffer(8)), expected: err({ code: 'not_a_byte_array', received: 'object' }) },
    { ref: 'a Buffer is a Uint8Array', random: Buffer.from([0, 1, 2, 3, 4]), expected: ok('alice-abcde') },
  ])('should check the random bytes at run time: $random per $ref', ({ random, expected }) => {
    expect(withRandomSuffix('alice', unsafe<Uint8Array>(random))).toStrictEqual(expected);
  });

  it('should map every byte value without modulo bias: each letter from exactly 9 bytes, 22 bytes skipped', () => {
    const byLetter = new Map<string, number[]>();
    const skipped: number[] = [];
    for (let byte = 0; byte < 256; byte++) {
      const result = withRandomSuffix('a', bytes(byte, 0, 0, 0, 0));
      if (result.isErr()) {
        expect(result.error).toStrictEqual({ code: 'insufficient_random_bytes', bytesProvided: 5, lettersDrawn: 4, lettersNeeded: 5 });
        skipped.push(byte);
        continue;
      }
      expect(result.value).toMatch(/^a-[a-z]aaaa$/);
      const letter = result.value.charAt(2);
      byLetter.set(letter, [...(byLetter.get(letter) ?? []), byte]);
    }
    expect(skipped).toStrictEqual(Array.from({ length: 22 }, (_, i) => 234 + i));
    expect([...byLetter.keys()].sort().join('')).toBe('abcdefghijklmnopqrstuvwxyz');
    for (const values of byLetter.values()) expect(values).toHaveLength(9);
  });

  it('should draw every letter in every suffix position from the same bytes', () => {
    for (let position = 0; position < SUFFIX_LENGTH; position++) {
      for (let byte = 0; byte < 234; byte++) {
        const random = new Uint8Array(SUFFIX_LENGTH);
        random[position] = byte;
        const letter = withRandomSuffix('a', random).map((s) => s.charAt(2 + position));
        expect(letter).toStrictEqual(ok(String.fromCharCode(97 + (byte % 26))));
      }
    }
  });

  test.prop([fc.oneof(grammarValidName, normalizedName), fc.uint8Array({ maxLength: 24 })])(
    'should give a valid name: the base, a -, and the first five accepted bytes as letters',
    (base, random) => {
      const accepted = [...random].filter((b) => b < 234);
      const result = withRandomSuffix(base, random);
      if (accepted.length < SUFFIX_LENGTH) {
        expect(result).toStrictEqual(
          err({ code: 'insufficient_random_bytes', bytesProvided: random.length, lettersDrawn: accepted.length, lettersNeeded: 5 }),
        );
        return;
      }
      const letters = accepted.slice(0, SUFFIX_LENGTH).map((b) => String.fromCharCode(97 + (b % 26))).join('');
      const value = result._unsafeUnwrap();
      expect(validateUsername(value)).toStrictEqual(ok(value));
      expect(value.endsWith(`-${letters}`)).toBe(true);
      const kept = value.slice(0, -(SUFFIX_LENGTH + 1));
      expect(base.startsWith(kept)).toBe(true);
      // only what the cut or the separator rule requires is dropped from the base
      expect(kept.length).toBeGreaterThanOrEqual(Math.min(base.length, USERNAME_MAX_LENGTH - SUFFIX_LENGTH - 1) - 1);
      expect(value.length).toBeLessThanOrEqual(USERNAME_MAX_LENGTH);
    },
  );

  test.prop([grammarValidName, fc.uint8Array({ minLength: 5, maxLength: 16 }), fc.uint8Array({ maxLength: 8 })])(
    'should not read bytes it does not need (appending bytes keeps an ok result)',
    (base, random, more) => {
      const result = withRandomSuffix(base, random);
      if (result.isOk()) expect(withRandomSuffix(base, Uint8Array.from([...random, ...more]))).toStrictEqual(result);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw', (base, random) => {
    // fc.anything() never builds a Uint8Array, so the bytes are rejected once the base passes
    const expected = validateUsername(unsafe<string>(base)).andThen(() =>
      err<string, UsernameError>({ code: 'not_a_byte_array', received: runtimeTypeOf(random) }),
    );
    expect(withRandomSuffix(unsafe<string>(base), unsafe<Uint8Array>(random))).toStrictEqual(expected);
  });
});
