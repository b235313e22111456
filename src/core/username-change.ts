/**
 * Who may change their own username (spec §5.5 rule 7 validates the name; this rule decides the account). A
 * provider's username may claim an account a site administrator created (§5.3 hosta rule 2, §5.4 rule 5): such an
 * account keeps the name it was given, or its holder could rename it to another person's name and have that
 * person's provider identity linked into it at their first sign-in. A service account is managed by site
 * administrators. Every other account may rename itself.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { isAccountOrigin, type AccountOrigin } from './account-directory.js';

/**
 * The decision on a self-service rename.
 *
 * @example
 * ```ts
 * const d: UsernameChangeDecision = { kind: 'deny', reason: 'claimable_by_username' };
 * ```
 */
export type UsernameChangeDecision =
  /** The account may rename itself. */
  | { readonly kind: 'allow' }
  /** It may not: its name is how a provider sign-in finds it, or it is a service account. */
  | { readonly kind: 'deny'; readonly reason: 'claimable_by_username' | 'service_account' };

/**
 * Why the input cannot be decided on.
 *
 * @example
 * ```ts
 * const e: UsernameChangeError = { code: 'invalid_input', path: 'origin', expected: 'account origin' };
 * ```
 */
export type UsernameChangeError = { readonly code: 'invalid_input'; readonly path: 'origin'; readonly expected: 'account origin' };

/**
 * Whether an account may change its own username.
 *
 * @param input - The account's origin.
 * @returns `allow`, or `deny` with the reason; `err` for an origin that is not one of `ACCOUNT_ORIGINS`.
 *
 * @example
 * ```ts
 * decideUsernameChange({ origin: 'password_signup' }); // ok({ kind: 'allow' })
 * decideUsernameChange({ origin: 'admin_created' }); // ok({ kind: 'deny', reason: 'claimable_by_username' })
 * ```
 */
export function decideUsernameChange(input: { readonly origin: unknown }): Result<UsernameChangeDecision, UsernameChangeError> {
  const origin: unknown = typeof input === 'object' && input !== null ? input.origin : undefined;
  if (!isAccountOrigin(origin)) return err({ code: 'invalid_input', path: 'origin', expected: 'account origin' });
  return ok(
    match<AccountOrigin, UsernameChangeDecision>(origin)
      .with('admin_created', () => ({ kind: 'deny', reason: 'claimable_by_username' }))
      .with('service_account', () => ({ kind: 'deny', reason: 'service_account' }))
      .with('password_signup', 'provider_signup', 'seeded', () => ({ kind: 'allow' }))
      .exhaustive(),
  );
}
