import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { base32DecodeGroups, base32DigitValue, base32Encode, bytesToHex, utf8Encode } from '../../../src/core/internal/encoding.js';

const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 40 });

describe('utf8Encode', () => {
  it.each([
    { ref: 'RFC 3629 §3 (1–4 byte forms)', input: 'a\u00e9\u20ac\u{1f600}', expected: [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80] },
    { ref: 'WHATWG Encoding (lone high surrogate → U+FFFD)', input: '\ud800x', expected: [0xef, 0xbf, 0xbd, 0x78] },
    { ref: 'WHATWG Encoding (lone low surrogate → U+FFFD)', input: '\udc00', expected: [0xef, 0xbf, 0xbd] },
    { ref: 'empty', input: '', expected: [] },
  ])('should follow $ref', ({ input, expected }) => {
    expect([...utf8Encode(input)]).toStrictEqual(expected);
  });

  test.prop([fc.oneof(fc.string({ unit: 'binary' }), anyUnits)])('should equal TextEncoder on every string', (text) => {
    expect(utf8Encode(text)).toStrictEqual(new TextEncoder().encode(text));
  });
});

describe('bytesToHex', () => {
  test.prop([fc.uint8Array()])('should equal Buffer hex', (bytes) => {
    expect(bytesToHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
  });
});

describe('base32', () => {
  it.each([
    { ref: 'RFC 4648 §10', input: '', expected: '' },
    { ref: 'RFC 4648 §10', input: 'f', expected: 'my' },
    { ref: 'RFC 4648 §10', input: 'fo', expected: 'mzxq' },
    { ref: 'RFC 4648 §10', input: 'foo', expected: 'mzxw6' },
    { ref: 'RFC 4648 §10', input: 'foob', expected: 'mzxw6yq' },
    { ref: 'RFC 4648 §10', input: 'fooba', expected: 'mzxw6ytb' },
    { ref: 'RFC 4648 §10', input: 'foobar', expected: 'mzxw6ytboi' },
  ])('should encode the $ref vector $input (lowercase, unpadded)', ({ input, expected }) => {
    expect(base32Encode(new TextEncoder().encode(input))).toBe(expected);
  });

  test.prop([fc.uint8Array({ maxLength: 40 }).map((b) => b.slice(0, b.length - (b.length % 5)))])(
    'should round-trip whole 5-byte groups',
    (bytes) => {
      expect(base32DecodeGroups(base32Encode(bytes))).toStrictEqual(bytes);
    },
  );

  it.each(['mzxw6yq', 'MZXW6YTB', 'mzxw6yt1', 'mzxw6yt='])('should refuse %s', (text) => {
    expect(base32DecodeGroups(text)).toBeNull();
  });

  it('should give every character its RFC 4648 value and -1 to all others', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    for (let code = 0; code < 0x10000; code++) {
      expect(base32DigitValue(code)).toBe(alphabet.indexOf(String.fromCharCode(code)));
    }
  });
});
