/**
 * Re-authentication before a sensitive change of one's own account: setting a first password, adding or
 * changing an email address, creating a token with `site-admin:sudo`. A session that signed in within
 * {@link REAUTHENTICATION_WINDOW_MS} may make the change; an older one must give the account's current password.
 * A stolen session cookie alone then cannot take over the account (a password or address of the thief's) or
 * mint a credential that outlives the session.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * How recent a sign-in makes a session trusted for sensitive changes: ten minutes.
 *
 * @example
 * ```ts
 * REAUTHENTICATION_WINDOW_MS; // 600_000
 * ```
 */
export const REAUTHENTICATION_WINDOW_MS: number = 10 * 60_000;

/**
 * The changes that ask for re-authentication.
 *
 * @example
 * ```ts
 * SENSITIVE_CHANGES.includes('sudo_token'); // true
 * ```
 */
export const SENSITIVE_CHANGES = ['first_password', 'email', 'sudo_token'] as const;

/** One of {@link SENSITIVE_CHANGES}. */
export type SensitiveChange = (typeof SENSITIVE_CHANGES)[number];

/**
 * What the request shows: when its session signed in (`null` when it has no session, such as a request the
 * authentication proxy vouches for), whether the account has a password, and the password given on the form:
 * none, or the outcome of checking it.
 *
 * @example
 * ```ts
 * const input: ReauthenticationInput = { now: 1_000_000, signedInAt: 900_000, hasPassword: true, password: 'absent' };
 * ```
 */
export interface ReauthenticationInput {
  /** The clock's time, milliseconds since the epoch. */
  readonly now: number;
  /** When the request's session signed in, or `null`. */
  readonly signedInAt: number | null;
  /** Whether the account has a password to give. */
  readonly hasPassword: boolean;
  /** The password on the form: not given, or given and checked. */
  readonly password: 'absent' | 'correct' | 'wrong';
}

/**
 * The decision: allowed by a recent sign-in or by the password; or refused because the password is needed, was
 * wrong, or (an account without a password whose sign-in is old) only a new sign-in will do.
 *
 * @example
 * ```ts
 * const d: ReauthenticationDecision = { kind: 'refuse', reason: 'password_required' };
 * ```
 */
export type ReauthenticationDecision =
  | { readonly kind: 'allow'; readonly by: 'recent_sign_in' | 'password' }
  | { readonly kind: 'refuse'; readonly reason: 'password_required' | 'wrong_password' | 'sign_in_again' };

/**
 * A malformed input.
 *
 * @example
 * ```ts
 * const e: ReauthenticationError = { code: 'invalid_input', path: 'now', expected: 'finite number' };
 * ```
 */
export type ReauthenticationError =
  | { readonly code: 'invalid_input'; readonly path: 'now' | 'signedInAt'; readonly expected: 'finite number' }
  | { readonly code: 'invalid_input'; readonly path: 'hasPassword'; readonly expected: 'boolean' }
  | { readonly code: 'invalid_input'; readonly path: 'password'; readonly expected: "'absent', 'correct' or 'wrong'" };

/**
 * Whether the session's sign-in is recent enough by itself (then the form's password is not checked at all).
 *
 * @param now - The clock's time.
 * @param signedInAt - When the session signed in, or `null`.
 * @returns `true` within {@link REAUTHENTICATION_WINDOW_MS} of the sign-in (a sign-in time in the future is not trusted).
 *
 * @example
 * ```ts
 * signedInRecently(1_000_000, 500_000); // true
 * ```
 */
export function signedInRecently(now: number, signedInAt: number | null): boolean {
  return signedInAt !== null && Number.isFinite(signedInAt) && Number.isFinite(now) && signedInAt <= now && now - signedInAt < REAUTHENTICATION_WINDOW_MS;
}

/**
 * Decides whether a sensitive change may go ahead: a sign-in within {@link REAUTHENTICATION_WINDOW_MS} allows it;
 * otherwise a correct current password does; a wrong one is refused (`wrong_password`), a missing one asks for
 * it (`password_required`), and an account with no password must sign in again (`sign_in_again`). Never throws.
 *
 * @param input - The request's sign-in time and password.
 * @returns The decision, or `invalid_input`.
 *
 * @example
 * ```ts
 * decideReauthentication({ now: 3_600_000, signedInAt: 0, hasPassword: true, password: 'absent' });
 * // ok({ kind: 'refuse', reason: 'password_required' })
 * decideReauthentication({ now: 3_600_000, signedInAt: 3_000_000, hasPassword: false, password: 'absent' });
 * // ok({ kind: 'allow', by: 'recent_sign_in' })
 * ```
 */
export function decideReauthentication(input: ReauthenticationInput): Result<ReauthenticationDecision, ReauthenticationError> {
  // a malformed input is refused field by field, never thrown on
  const { now, signedInAt = null, hasPassword, password }: Partial<ReauthenticationInput> = typeof input === 'object' && input !== null ? input : {};
  if (typeof now !== 'number' || !Number.isFinite(now)) return err({ code: 'invalid_input', path: 'now', expected: 'finite number' });
  if (signedInAt !== null && (typeof signedInAt !== 'number' || !Number.isFinite(signedInAt))) {
    return err({ code: 'invalid_input', path: 'signedInAt', expected: 'finite number' });
  }
  if (typeof hasPassword !== 'boolean') return err({ code: 'invalid_input', path: 'hasPassword', expected: 'boolean' });
  if (password !== 'absent' && password !== 'correct' && password !== 'wrong') {
    return err({ code: 'invalid_input', path: 'password', expected: "'absent', 'correct' or 'wrong'" });
  }
  if (signedInRecently(now, signedInAt)) return ok({ kind: 'allow', by: 'recent_sign_in' });
  return ok(
    match({ hasPassword, password })
      .returnType<ReauthenticationDecision>()
      .with({ hasPassword: false }, () => ({ kind: 'refuse', reason: 'sign_in_again' }))
      .with({ hasPassword: true, password: 'correct' }, () => ({ kind: 'allow', by: 'password' }))
      .with({ hasPassword: true, password: 'wrong' }, () => ({ kind: 'refuse', reason: 'wrong_password' }))
      .with({ hasPassword: true, password: 'absent' }, () => ({ kind: 'refuse', reason: 'password_required' }))
      .exhaustive(),
  );
}
