import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { findUnstorableText, findUnstorableValue, isStorableText } from '../../src/core/storable-text.js';
import type { UnstorableText } from '../../src/core/storable-text.js';

// ---------------------------------------------------------------------------------------------
// An independent oracle: one regular expression over UTF-16 code units (no `u` flag), matching NUL, a high
// surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function oracle(text: string): UnstorableText | null {
  const m = UNSTORABLE.exec(text);
  if (m === null) return null;
  return { index: m.index, problem: m[0] === '\u0000' ? 'nul' : 'unpaired_surrogate' };
}

/** Strings of any UTF-16 code units, leaning on the ones that matter here. */
const units = fc.array(
  fc.oneof(
    fc.constantFrom(0x0000, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0x0001, 0x001f, 0x007f, 0xfffd, 0xffff, 0x0061),
    fc.integer({ min: 0, max: 0xffff }),
  ),
  { maxLength: 40 },
).map((codes) => String.fromCharCode(...codes));

describe('findUnstorableText', () => {
  it.each([
    ['', null],
    ['plain', null],
    ['café 😀 \u0001\u001f\u007f\ufffd\uffff', null],
    ['a\u0000b', { index: 1, problem: 'nul' }],
    ['\u0000', { index: 0, problem: 'nul' }],
    ['a\ud800b', { index: 1, problem: 'unpaired_surrogate' }],
    ['\ud83d', { index: 0, problem: 'unpaired_surrogate' }],
    ['x\ude00', { index: 1, problem: 'unpaired_surrogate' }],
    ['\ude00\ud83d', { index: 0, problem: 'unpaired_surrogate' }],
    ['😀\ud83d\ude00\ud83d', { index: 4, problem: 'unpaired_surrogate' }],
    ['\ud83d\u0000', { index: 0, problem: 'unpaired_surrogate' }],
    ['ok\ud83d\ude00\u0000', { index: 4, problem: 'nul' }],
  ] as const)('%j → %j', (text, expected) => {
    expect(findUnstorableText(text)).toStrictEqual(expected);
    expect(isStorableText(text)).toBe(expected === null);
  });

  test.prop([units], { numRuns: 2_000 })('should agree with the regular expression oracle', (text) => {
    expect(findUnstorableText(text)).toStrictEqual(oracle(text));
  });

  test.prop([fc.string({ unit: 'grapheme', maxLength: 50 })])('should find nothing in well-formed text without NUL', (text) => {
    fc.pre(!text.includes('\u0000'));
    expect(findUnstorableText(text)).toBeNull();
  });

  test.prop([units])('should agree with what survives a UTF-8 round trip, NUL aside', (text) => {
    // an unpaired surrogate has no UTF-8 form: the encoder replaces it, so the text comes back changed
    const roundTrip = new TextDecoder().decode(new TextEncoder().encode(text));
    expect(findUnstorableText(text.replaceAll('\u0000', 'x')) === null).toBe(roundTrip.replaceAll('\u0000', 'x') === text.replaceAll('\u0000', 'x'));
  });

  it('should be total: a value that is not a string is not text to refuse', () => {
    expect(findUnstorableText(42 as unknown as string)).toBeNull();
  });
});

describe('findUnstorableValue', () => {
  it.each([
    [{ a: 'x', b: ['y', { c: 'z' }] }, null],
    [null, null],
    [42, null],
    ['a\u0000', ''],
    [{ note: 'a\u0000b' }, 'note'],
    [{ input: { emails: ['ok', 'x\udc00'] } }, 'input.emails[1]'],
    [['ok', 'x\ud800'], '[1]'],
    [{ first: 'x\u0000', second: 'y\u0000' }, 'first'],
    [{ outer: { 'bad\u0000key': 'fine' } }, 'outer'],
    [{ 'bad\u0000key': 'fine' }, ''],
  ] as const)('%j → %j', (value, expected) => {
    expect(findUnstorableValue(value)).toBe(expected);
  });

  it('should walk a value nested 100,000 deep without running out of stack', () => {
    let value: unknown = 'a\u0000';
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(findUnstorableValue(value)).toBe('[0]'.repeat(100_000));
  });

  it('should walk a value with a cycle once', () => {
    const value: Record<string, unknown> = { a: 'fine' };
    value['self'] = value;
    expect(findUnstorableValue(value)).toBeNull();
  });

  test.prop([fc.jsonValue()], { numRuns: 500 })('should find something exactly when some string or key of the JSON text holds NUL or an unpaired surrogate', (value) => {
    const strings: string[] = [];
    JSON.stringify(value, (key, v: unknown) => {
      strings.push(key);
      if (typeof v === 'string') strings.push(v);
      return v;
    });
    expect(findUnstorableValue(value) !== null).toBe(strings.some((s) => oracle(s) !== null));
  });
});
