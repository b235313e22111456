/**
 * The built-in provider's password rule (spec §5.3 "Built-in"): a new password has at least `auth.minPasswordLength`
 * characters (default {@link MIN_PASSWORD_LENGTH}) and at most {@link MAX_PASSWORD_BYTES} bytes of UTF-8 (the bound
 * keeps the hashing cost of a request bounded) and, when `auth.passwordPolicy.enabled`, the special characters,
 * digit and mixed case that policy asks for. One rule for sign-up, the settings page, password reset and the
 * command line: each passes the site's {@link PasswordRule} to {@link checkNewPassword}.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * The default of `auth.minPasswordLength` (as in the service the spec describes): the fewest characters (UTF-16
 * code units, as a browser's `minlength` counts) a new password has.
 *
 * @example
 * ```ts
 * `<input minlength="${MIN_PASSWORD_LENGTH}">`;
 * ```
 */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * The lowest `auth.minPasswordLength` a site may set (NIST SP 800-63B's floor for chosen passwords).
 *
 * @example
 * ```ts
 * LOWEST_MIN_PASSWORD_LENGTH; // 8
 * ```
 */
export const LOWEST_MIN_PASSWORD_LENGTH = 8;

/**
 * The site option `auth.passwordPolicy`: extra character classes a new password needs when `enabled`.
 *
 * @example
 * ```ts
 * const policy: PasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, enabled: true };
 * ```
 */
export interface PasswordPolicy {
  /** Whether the policy applies. Default `false`. */
  readonly enabled: boolean;
  /** How many special characters (Unicode punctuation or symbols) at least. Default 2. */
  readonly numberOfSpecialCharacters: number;
  /** Whether a digit (any Unicode number) is needed. Default `true`. */
  readonly requireAtLeastOneNumber: boolean;
  /** Whether an upper case and a lower case letter are needed. Default `true`. */
  readonly requireUpperandLowerCase: boolean;
}

/**
 * The defaults of `auth.passwordPolicy` (as in the service the spec describes): off; when enabled, 2 special
 * characters, a number, upper and lower case.
 *
 * @example
 * ```ts
 * DEFAULT_PASSWORD_POLICY.enabled; // false
 * ```
 */
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = Object.freeze({
  enabled: false,
  numberOfSpecialCharacters: 2,
  requireAtLeastOneNumber: true,
  requireUpperandLowerCase: true,
});

/**
 * The whole rule a site applies to new passwords: `auth.minPasswordLength` and `auth.passwordPolicy`.
 *
 * @example
 * ```ts
 * const rule: PasswordRule = { minLength: 16, policy: DEFAULT_PASSWORD_POLICY };
 * ```
 */
export interface PasswordRule {
  /** `auth.minPasswordLength`. */
  readonly minLength: number;
  /** `auth.passwordPolicy`. */
  readonly policy: PasswordPolicy;
}

/**
 * The rule of a site that sets neither option.
 *
 * @example
 * ```ts
 * DEFAULT_PASSWORD_RULE.minLength; // 12
 * ```
 */
export const DEFAULT_PASSWORD_RULE: PasswordRule = Object.freeze({ minLength: MIN_PASSWORD_LENGTH, policy: DEFAULT_PASSWORD_POLICY });

/**
 * The most bytes of UTF-8 a password has.
 *
 * @example
 * ```ts
 * MAX_PASSWORD_BYTES; // 1024
 * ```
 */
export const MAX_PASSWORD_BYTES = 1024;

/**
 * Why a new password is refused.
 *
 * @example
 * ```ts
 * const e: NewPasswordError = { code: 'password_too_short', min: 12 };
 * ```
 */
export type NewPasswordError =
  /** Not a string. */
  | { readonly code: 'invalid_input'; readonly path: ''; readonly expected: 'string' }
  /** Fewer than `min` characters. */
  | { readonly code: 'password_too_short'; readonly min: number }
  /** More than `maxBytes` bytes of UTF-8. */
  | { readonly code: 'password_too_long'; readonly maxBytes: number }
  /** Fewer than `min` special characters (the policy is enabled). */
  | { readonly code: 'password_needs_special_characters'; readonly min: number }
  /** No number (the policy is enabled and asks for one). */
  | { readonly code: 'password_needs_number' }
  /** Not both an upper and a lower case letter (the policy is enabled and asks for both). */
  | { readonly code: 'password_needs_upper_and_lower_case' };

/** The UTF-8 length of a string (a lone surrogate counts as the three bytes of U+FFFD, as an encoder writes it). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

const SPECIAL = /[\p{P}\p{S}]/gu;
const NUMBER = /\p{N}/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;

/**
 * Checks a new password against the site's rule, in this order: a string, the length, the byte bound, then (when
 * the policy is enabled) special characters, a number, upper and lower case. The first failure is returned.
 *
 * @param password - The password as typed (not trimmed: spaces are characters).
 * @param rule - The site's rule (`auth.minPasswordLength`, `auth.passwordPolicy`); the defaults when left out.
 * @returns The password, or why it is refused.
 *
 * @example
 * ```ts
 * checkNewPassword('correct horse'); // ok('correct horse')
 * checkNewPassword('short'); // err({ code: 'password_too_short', min: 12 })
 * checkNewPassword('correct horse', { minLength: 12, policy: { ...DEFAULT_PASSWORD_POLICY, enabled: true } });
 * // err({ code: 'password_needs_special_characters', min: 2 })
 * ```
 */
export function checkNewPassword(password: unknown, rule: PasswordRule = DEFAULT_PASSWORD_RULE): Result<string, NewPasswordError> {
  if (typeof password !== 'string') return err({ code: 'invalid_input', path: '', expected: 'string' });
  if (password.length < rule.minLength) return err({ code: 'password_too_short', min: rule.minLength });
  if (utf8Length(password) > MAX_PASSWORD_BYTES) return err({ code: 'password_too_long', maxBytes: MAX_PASSWORD_BYTES });
  const { policy } = rule;
  if (!policy.enabled) return ok(password);
  if ((password.match(SPECIAL) ?? []).length < policy.numberOfSpecialCharacters) {
    return err({ code: 'password_needs_special_characters', min: policy.numberOfSpecialCharacters });
  }
  if (policy.requireAtLeastOneNumber && !NUMBER.test(password)) return err({ code: 'password_needs_number' });
  if (policy.requireUpperandLowerCase && !(UPPER.test(password) && LOWER.test(password))) return err({ code: 'password_needs_upper_and_lower_case' });
  return ok(password);
}

/**
 * The rule as one sentence, for the hint under a new-password field.
 *
 * @param rule - The site's rule.
 * @returns Such as `At least 12 characters.` or `At least 12 characters, with 2 special characters, a number, and upper and lower case letters.`
 *
 * @example
 * ```ts
 * describePasswordRule(DEFAULT_PASSWORD_RULE); // 'At least 12 characters.'
 * ```
 */
export function describePasswordRule(rule: PasswordRule): string {
  const { policy } = rule;
  const needs: string[] = [];
  if (policy.enabled && policy.numberOfSpecialCharacters > 0) {
    needs.push(`${policy.numberOfSpecialCharacters} special ${policy.numberOfSpecialCharacters === 1 ? 'character' : 'characters'} (such as ! or #)`);
  }
  if (policy.enabled && policy.requireAtLeastOneNumber) needs.push('a number');
  if (policy.enabled && policy.requireUpperandLowerCase) needs.push('upper and lower case letters');
  const list = needs.length <= 1 ? needs.join('') : `${needs.slice(0, -1).join(', ')}, and ${needs[needs.length - 1] ?? ''}`;
  return `At least ${rule.minLength} characters${list === '' ? '' : `, with ${list}`}.`;
}

/**
 * What to tell a person whose new password the rule refused.
 *
 * @param error - Why {@link checkNewPassword} refused it.
 * @returns A sentence.
 *
 * @example
 * ```ts
 * newPasswordMessage({ code: 'password_needs_number' }); // 'The new password needs a number.'
 * ```
 */
export function newPasswordMessage(error: NewPasswordError): string {
  return match(error)
    .returnType<string>()
    .with({ code: 'invalid_input' }, () => 'Enter a new password.')
    .with({ code: 'password_too_short' }, (e) => `The new password is too short: passwords have at least ${e.min} characters.`)
    .with({ code: 'password_too_long' }, (e) => `The new password is too long: passwords have at most ${e.maxBytes} bytes.`)
    .with({ code: 'password_needs_special_characters' }, (e) =>
      `The new password needs at least ${e.min} special ${e.min === 1 ? 'character' : 'characters'} (punctuation or symbols such as ! or #).`)
    .with({ code: 'password_needs_number' }, () => 'The new password needs a number.')
    .with({ code: 'password_needs_upper_and_lower_case' }, () => 'The new password needs both an upper case and a lower case letter.')
    .exhaustive();
}
