/**
 * The built-in provider's password rule (spec §5.3 "Built-in") with the site options `auth.minPasswordLength`
 * (default 12, as the service the spec describes) and `auth.passwordPolicy` (off by default; when enabled, 2
 * special characters, a number, upper and lower case): at most 1024 bytes of UTF-8 always.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  checkNewPassword,
  DEFAULT_PASSWORD_POLICY,
  DEFAULT_PASSWORD_RULE,
  describePasswordRule,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_LENGTH,
  newPasswordMessage,
  type PasswordRule,
} from '../../src/core/password-policy.js';

describe('checkNewPassword with the default rule (§5.3 "Built-in"; auth.minPasswordLength 12, auth.passwordPolicy off)', () => {
  test.each([
    ['11 characters', 'abcdefghijk', { code: 'password_too_short', min: 12 }],
    ['12 characters', 'abcdefghijkl', null],
    ['spaces count', '            ', null],
    ['1024 ASCII bytes', 'a'.repeat(1024), null],
    ['1025 ASCII bytes', 'a'.repeat(1025), { code: 'password_too_long', maxBytes: 1024 }],
    ['342 three-byte characters (1026 bytes)', '€'.repeat(342), { code: 'password_too_long', maxBytes: 1024 }],
    ['256 four-byte characters (1024 bytes)', '😀'.repeat(256), null],
    ['not a string', 123456789012, { code: 'invalid_input', path: '', expected: 'string' }],
  ])('%s', (_name, input, refusal) => {
    const checked = checkNewPassword(input);
    if (refusal === null) expect(checked._unsafeUnwrap()).toBe(input);
    else expect(checked._unsafeUnwrapErr()).toEqual(refusal);
  });

  test.each([
    ['the defaults of the options', DEFAULT_PASSWORD_RULE, { minLength: 12, policy: { enabled: false, numberOfSpecialCharacters: 2, requireAtLeastOneNumber: true, requireUpperandLowerCase: true } }],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toStrictEqual(expected);
    expect(MIN_PASSWORD_LENGTH).toBe(12);
  });
});

const ENABLED: PasswordRule = { minLength: 8, policy: { ...DEFAULT_PASSWORD_POLICY, enabled: true } };

describe('checkNewPassword with auth.passwordPolicy enabled (its defaults: 2 special characters, a number, upper and lower case)', () => {
  test.each([
    ['no special character', 'Abcdefg1', { code: 'password_needs_special_characters', min: 2 }],
    ['one special character', 'Abcdef1!', { code: 'password_needs_special_characters', min: 2 }],
    ['two special characters, no number', 'Abcdef!#', { code: 'password_needs_number' }],
    ['no upper case', 'abcde1!#', { code: 'password_needs_upper_and_lower_case' }],
    ['no lower case', 'ABCDE1!#', { code: 'password_needs_upper_and_lower_case' }],
    ['everything', 'Abcde1!#', null],
    ['Unicode: symbols, another script\'s digits and case', 'Éclair٣€€', null],
    ['too short wins over the policy', 'Ab1!#', { code: 'password_too_short', min: 8 }],
  ])('%s', (_name, input, refusal) => {
    const checked = checkNewPassword(input, ENABLED);
    if (refusal === null) expect(checked._unsafeUnwrap()).toBe(input);
    else expect(checked._unsafeUnwrapErr()).toEqual(refusal);
  });

  test.each([
    ['numberOfSpecialCharacters 0', { numberOfSpecialCharacters: 0 }, 'Abcdefg1', null],
    ['requireAtLeastOneNumber false', { requireAtLeastOneNumber: false }, 'Abcdef!#', null],
    ['requireUpperandLowerCase false', { requireUpperandLowerCase: false }, 'abcde1!#', null],
    ['disabled: nothing but the length', { enabled: false }, 'aaaaaaaa', null],
  ])('%s', (_name, change, input, refusal) => {
    const checked = checkNewPassword(input, { minLength: 8, policy: { ...ENABLED.policy, ...change } });
    if (refusal === null) expect(checked._unsafeUnwrap()).toBe(input);
    else expect(checked._unsafeUnwrapErr()).toEqual(refusal);
  });

  test.each([
    ['the default rule', DEFAULT_PASSWORD_RULE, 'At least 12 characters.'],
    ['the enabled policy', ENABLED, 'At least 8 characters, with 2 special characters (such as ! or #), a number, and upper and lower case letters.'],
    ['one requirement', { minLength: 10, policy: { ...ENABLED.policy, numberOfSpecialCharacters: 0, requireUpperandLowerCase: false } }, 'At least 10 characters, with a number.'],
  ])('describePasswordRule: %s', (_name, rule, sentence) => {
    expect(describePasswordRule(rule)).toBe(sentence);
  });
});

const rules = fc.record({
  minLength: fc.integer({ min: 8, max: 64 }),
  policy: fc.record({
    enabled: fc.boolean(),
    numberOfSpecialCharacters: fc.integer({ min: 0, max: 5 }),
    requireAtLeastOneNumber: fc.boolean(),
    requireUpperandLowerCase: fc.boolean(),
  }),
});
const passwords = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ maxLength: 1100 }),
);

describe('checkNewPassword properties', () => {
  // An independent oracle: Node's UTF-8 encoder and character-by-character classification.
  test.prop([passwords, rules])('agrees with an oracle, never throws, and its message is a sentence', (password, rule) => {
    const chars = [...password];
    const bytes = new TextEncoder().encode(password).length;
    const specials = chars.filter((c) => /[\p{P}\p{S}]/u.test(c)).length;
    const { policy } = rule;
    const expected =
      password.length < rule.minLength
        ? 'password_too_short'
        : bytes > MAX_PASSWORD_BYTES
          ? 'password_too_long'
          : !policy.enabled
            ? 'ok'
            : specials < policy.numberOfSpecialCharacters
              ? 'password_needs_special_characters'
              : policy.requireAtLeastOneNumber && !chars.some((c) => /\p{N}/u.test(c))
                ? 'password_needs_number'
                : policy.requireUpperandLowerCase && !(chars.some((c) => /\p{Lu}/u.test(c)) && chars.some((c) => /\p{Ll}/u.test(c)))
                  ? 'password_needs_upper_and_lower_case'
                  : 'ok';
    const checked = checkNewPassword(password, rule);
    expect(checked.isOk() ? 'ok' : checked.error.code).toBe(expected);
    if (checked.isErr()) expect(newPasswordMessage(checked.error)).toMatch(/^The new password .+\.$|^Enter a new password\.$/u);
  });

  test.prop([passwords, rules])('a stricter rule never accepts what a looser one refuses (monotone in minLength)', (password, rule) => {
    const looser = checkNewPassword(password, rule);
    const stricter = checkNewPassword(password, { ...rule, minLength: rule.minLength + 1 });
    if (looser.isErr()) expect(stricter.isErr()).toBe(true);
  });
});
