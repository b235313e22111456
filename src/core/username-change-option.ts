/**
 * The site option `auth.enableUsernameChanges` (default `false`, as in the service the spec describes): whether
 * people may change their own username. The spec warns that a mutable username lets a user elevate privileges
 * where accounts are matched by username (§5.3 http-header rule 3), so renaming oneself is off unless a site
 * administrator turns it on. Site administrators may always rename accounts (their own included), as in that
 * service. The account's own rule (`decideUsernameChange`) still applies on top.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';

/**
 * The default of `auth.enableUsernameChanges`.
 *
 * @example
 * ```ts
 * DEFAULT_ENABLE_USERNAME_CHANGES; // false
 * ```
 */
export const DEFAULT_ENABLE_USERNAME_CHANGES = false;

/**
 * The option's decision on a rename.
 *
 * @example
 * ```ts
 * const d: UsernameChangeOptionDecision = { kind: 'refuse', reason: 'username_changes_disabled' };
 * ```
 */
export type UsernameChangeOptionDecision = { readonly kind: 'allow' } | { readonly kind: 'refuse'; readonly reason: 'username_changes_disabled' };

/**
 * A malformed input.
 *
 * @example
 * ```ts
 * const e: UsernameChangeOptionError = { code: 'invalid_input', path: 'actorSiteAdmin', expected: 'boolean' };
 * ```
 */
export type UsernameChangeOptionError = { readonly code: 'invalid_input'; readonly path: 'enableUsernameChanges' | 'actorSiteAdmin'; readonly expected: 'boolean' };

/**
 * Whether `auth.enableUsernameChanges` lets the actor rename an account: a site administrator always may; anyone
 * else only when the option is on. Never throws.
 *
 * @param input - The option's value and whether the actor is a site administrator.
 * @returns `allow`, or `refuse` with `username_changes_disabled`; `invalid_input` for non-booleans.
 *
 * @example
 * ```ts
 * decideUsernameChangeOption({ enableUsernameChanges: false, actorSiteAdmin: false });
 * // ok({ kind: 'refuse', reason: 'username_changes_disabled' })
 * ```
 */
export function decideUsernameChangeOption(input: {
  readonly enableUsernameChanges: boolean;
  readonly actorSiteAdmin: boolean;
}): Result<UsernameChangeOptionDecision, UsernameChangeOptionError> {
  // a malformed input is refused field by field, never thrown on
  const { enableUsernameChanges, actorSiteAdmin }: { readonly enableUsernameChanges?: unknown; readonly actorSiteAdmin?: unknown } =
    typeof input === 'object' && input !== null ? input : {};
  if (typeof enableUsernameChanges !== 'boolean') return err({ code: 'invalid_input', path: 'enableUsernameChanges', expected: 'boolean' });
  if (typeof actorSiteAdmin !== 'boolean') return err({ code: 'invalid_input', path: 'actorSiteAdmin', expected: 'boolean' });
  return ok(
    match({ enableUsernameChanges, actorSiteAdmin })
      .returnType<UsernameChangeOptionDecision>()
      .with({ actorSiteAdmin: true }, () => ({ kind: 'allow' }))
      .with({ actorSiteAdmin: false, enableUsernameChanges: true }, () => ({ kind: 'allow' }))
      .with({ actorSiteAdmin: false, enableUsernameChanges: false }, () => ({ kind: 'refuse', reason: 'username_changes_disabled' }))
      .exhaustive(),
  );
}
