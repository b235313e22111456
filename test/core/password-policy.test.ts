/**
 * The built-in provider's password rule (spec §5.3 "Built-in"): at least 8 characters, at most 1024 bytes of UTF-8.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { checkNewPassword, MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from '../../src/core/password-policy.js';

describe('checkNewPassword (§5.3 "Built-in")', () => {
  test.each([
    ['7 characters', 'abcdefg', { code: 'password_too_short', min: 8 }],
    ['8 characters', 'abcdefgh', null],
    ['spaces count', '        ', null],
    ['1024 ASCII bytes', 'a'.repeat(1024), null],
    ['1025 ASCII bytes', 'a'.repeat(1025), { code: 'password_too_long', maxBytes: 1024 }],
    ['342 three-byte characters (1026 bytes)', '€'.repeat(342), { code: 'password_too_long', maxBytes: 1024 }],
    ['256 four-byte characters (1024 bytes)', '😀'.repeat(256), null],
    ['not a string', 12345678, { code: 'invalid_input', path: '', expected: 'string' }],
  ])('%s', (_name, input, refusal) => {
    const checked = checkNewPassword(input);
    if (refusal === null) expect(checked._unsafeUnwrap()).toBe(input);
    else expect(checked._unsafeUnwrapErr()).toEqual(refusal);
  });

  // An independent oracle: Node's own UTF-8 encoder.
  test.prop([fc.oneof(fc.string({ maxLength: 1100 }), fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 600 }))])(
    'agrees with the rule computed by TextEncoder, and never throws',
    (password) => {
      const bytes = new TextEncoder().encode(password).length;
      const expected = password.length < MIN_PASSWORD_LENGTH ? 'password_too_short' : bytes > MAX_PASSWORD_BYTES ? 'password_too_long' : 'ok';
      const checked = checkNewPassword(password);
      expect(checked.isOk() ? 'ok' : checked.error.code).toBe(expected);
    },
  );
});
