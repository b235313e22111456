import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { asciiLowercase, emailDomain, emailMatchKey } from '../../../src/core/internal/email-address.js';

const asciiUppercase = (text: string): string => text.replace(/[a-z]/g, (c) => c.toUpperCase());

describe('asciiLowercase', () => {
  it.each([
    { ref: 'ASCII case-insensitive', input: 'Alice@Example.COM', expected: 'alice@example.com' },
    { ref: 'non-ASCII letters kept', input: 'ÄBC-İ-K', expected: 'Äbc-İ-k' },
    { ref: 'nothing to change', input: 'a.b_c', expected: 'a.b_c' },
    { ref: 'empty', input: '', expected: '' },
  ])('should follow $ref', ({ input, expected }) => {
    expect(asciiLowercase(input)).toBe(expected);
  });

  test.prop([fc.string({ unit: 'grapheme' })])('should change only A–Z, one code unit each, and be idempotent', (text) => {
    const lowered = asciiLowercase(text);
    expect(lowered.length).toBe(text.length);
    for (let i = 0; i < text.length; i++) {
      const before = text.charCodeAt(i);
      const expected = before >= 0x41 && before <= 0x5a ? before + 0x20 : before;
      expect(lowered.charCodeAt(i)).toBe(expected);
    }
    expect(asciiLowercase(lowered)).toBe(lowered);
  });
});

describe('emailMatchKey', () => {
  test.prop([fc.emailAddress()])('should be the same for ASCII case variants of an address (§5.4 rule 2)', (address) => {
    expect(emailMatchKey(asciiUppercase(address))).toBe(emailMatchKey(address));
  });
});

describe('emailDomain', () => {
  it.each([
    { ref: '§5.3 openidconnect rule 5', input: 'a@Example.COM', expected: 'example.com' },
    { ref: '§5.3 openidconnect rule 5 (subdomain kept as written)', input: 'a@sub.example.com', expected: 'sub.example.com' },
    { ref: 'two @ is not an email', input: 'x@evil.com@example.com', expected: null },
    { ref: 'empty local part', input: '@example.com', expected: null },
    { ref: 'empty domain', input: 'a@', expected: null },
    { ref: 'no @', input: 'example.com', expected: null },
    { ref: 'empty', input: '', expected: null },
  ])('should follow $ref', ({ input, expected }) => {
    expect(emailDomain(input)).toBe(expected);
  });

  test.prop([fc.string({ unit: fc.constantFrom('a', 'B', '@', '.', 'é') })])(
    'should give a domain exactly when there is one @ with text on both sides (oracle: split)',
    (text) => {
      const parts = text.split('@');
      const oracle = parts.length === 2 && parts[0] !== '' && parts[1] !== '' ? asciiLowercase(parts[1] ?? '') : null;
      expect(emailDomain(text)).toBe(oracle);
    },
  );
});
