/**
 * The built-in provider's password rule (spec §5.3 "Built-in"): a new password has at least
 * {@link MIN_PASSWORD_LENGTH} characters and at most {@link MAX_PASSWORD_BYTES} bytes of UTF-8 (the bound keeps
 * the hashing cost of a request bounded). One rule for sign-up, the settings page and the command line.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';

/**
 * The fewest characters (UTF-16 code units, as a browser's `minlength` counts) a new password has.
 *
 * @example
 * ```ts
 * `<input minlength="${MIN_PASSWORD_LENGTH}">`;
 * ```
 */
export const MIN_PASSWORD_LENGTH = 8;

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
 * const e: NewPasswordError = { code: 'password_too_short', min: 8 };
 * ```
 */
export type NewPasswordError =
  /** Not a string. */
  | { readonly code: 'invalid_input'; readonly path: ''; readonly expected: 'string' }
  /** Fewer than `min` characters. */
  | { readonly code: 'password_too_short'; readonly min: number }
  /** More than `maxBytes` bytes of UTF-8. */
  | { readonly code: 'password_too_long'; readonly maxBytes: number };

/** The UTF-8 length of a string (a lone surrogate counts as the three bytes of U+FFFD, as an encoder writes it). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * Checks a new password against the rule.
 *
 * @param password - The password as typed (not trimmed: spaces are characters).
 * @returns The password, or why it is refused.
 *
 * @example
 * ```ts
 * checkNewPassword('correct horse'); // ok('correct horse')
 * checkNewPassword('short'); // err({ code: 'password_too_short', min: 8 })
 * ```
 */
export function checkNewPassword(password: unknown): Result<string, NewPasswordError> {
  if (typeof password !== 'string') return err({ code: 'invalid_input', path: '', expected: 'string' });
  if (password.length < MIN_PASSWORD_LENGTH) return err({ code: 'password_too_short', min: MIN_PASSWORD_LENGTH });
  if (utf8Length(password) > MAX_PASSWORD_BYTES) return err({ code: 'password_too_long', maxBytes: MAX_PASSWORD_BYTES });
  return ok(password);
}
