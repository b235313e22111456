/**
 * Whether a `token-sudo` request may act as the user it names (spec §5.1 rule 2).
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import type { AccessTokenScope } from './access-token.js';
import { booleanTable } from './internal/decision-table.js';
import { isObject, ownField } from './internal/guard.js';

/**
 * Input of {@link authorizeSudo}: the presented token's record, its owner as they are now, and the
 * account named in `user="…"` as the caller looked it up.
 *
 * @typeParam T - The caller's account type (for example `{ id: string; username: string }`).
 */
export interface SudoInput<T extends NonNullable<unknown>> {
  /** The stored record of the presented access token. */
  readonly token: {
    /** The token's scopes. */
    readonly scopes: readonly AccessTokenScope[];
  };
  /** The token's owner, read at the time of use (not when the token was created). */
  readonly tokenOwner: {
    /** Whether the owner is a site admin now. */
    readonly siteAdmin: boolean;
  };
  /** The account named in `user="…"`, or `null` when no such account exists. */
  readonly target: T | null;
}

/** Why {@link authorizeSudo} refuses (or cannot decide). */
export type SudoError =
  /** The token lacks the `site-admin:sudo` scope (spec §5.1 rule 2). */
  | { readonly code: 'missing_sudo_scope' }
  /** The token's owner is not (or no longer) a site admin. */
  | { readonly code: 'owner_not_site_admin' }
  /** No account has the username named in `user="…"`. */
  | { readonly code: 'unknown_user' }
  /** A field is missing or of the wrong type at run time. */
  | {
      readonly code: 'invalid_input';
      readonly field: 'input' | 'token' | 'token.scopes' | 'tokenOwner' | 'tokenOwner.siteAdmin';
    };

/**
 * Decides a `token-sudo user="…",token="…"` request (spec §5.1 rule 2): it may act as `target` only
 * when the token carries `site-admin:sudo`, its owner is a site admin at the time of use (an owner
 * demoted after creating the token loses sudo) and the target account exists.
 *
 * The checks run in a fixed order and the first failure is returned: input shape, then
 * `missing_sudo_scope`, then `owner_not_site_admin`, then `unknown_user`. Checking the target last
 * means only a working sudo token can learn whether a username exists. A `target` of `undefined` at
 * run time counts as absent, like `null`.
 *
 * @typeParam T - The caller's account type.
 * @param input - The token's scopes, its owner now, and the looked-up target.
 * @returns `ok(target)` (the effective user) or `err` with the reason (a frozen object, except `invalid_input`'s).
 * @example
 * ```ts
 * authorizeSudo({ token: { scopes: ['user:all', 'site-admin:sudo'] }, tokenOwner: { siteAdmin: true }, target: alice });
 * // ok(alice)
 * authorizeSudo({ token: { scopes: ['user:all', 'site-admin:sudo'] }, tokenOwner: { siteAdmin: false }, target: alice });
 * // err({ code: 'owner_not_site_admin' })
 * authorizeSudo({ token: { scopes: ['user:all'] }, tokenOwner: { siteAdmin: true }, target: null });
 * // err({ code: 'missing_sudo_scope' })
 * ```
 */
export function authorizeSudo<T extends NonNullable<unknown>>(input: SudoInput<T>): Result<T, SudoError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const token = ownField(raw, 'token');
  if (!isObject(token)) return err({ code: 'invalid_input', field: 'token' });
  const scopes = ownField(token, 'scopes');
  if (!Array.isArray(scopes)) return err({ code: 'invalid_input', field: 'token.scopes' });
  const owner = ownField(raw, 'tokenOwner');
  if (!isObject(owner)) return err({ code: 'invalid_input', field: 'tokenOwner' });
  const siteAdmin = ownField(owner, 'siteAdmin');
  if (typeof siteAdmin !== 'boolean') return err({ code: 'invalid_input', field: 'tokenOwner.siteAdmin' });

  let hasSudoScope = false;
  for (let i = 0; i < scopes.length; i++) {
    const scope: unknown = scopes[i];
    if (scope === 'site-admin:sudo') hasSudoScope = true;
  }
  // `ownField` never runs a getter; when `target` is an own data property, reading it again through
  // the typed parameter returns the same value and keeps its type `T`. `undefined` counts as absent.
  const target: T | null = ownField(raw, 'target') === undefined ? null : input.target;

  const refused = sudoRefusal(hasSudoScope, siteAdmin);
  if (refused !== null) return err(refused);
  return target === null ? err(UNKNOWN_USER) : ok(target);
}

/**
 * Why a token with or without the sudo scope, owned by a site admin or not, may not act as another user (§5.1
 * rule 2), or `null` when it may. Every `token-sudo` request asks, so the match's four answers are read from a
 * table it filled once.
 */
const sudoRefusal = booleanTable((hasSudoScope, ownerIsSiteAdmin): SudoError | null =>
  match([hasSudoScope, ownerIsSiteAdmin] as const)
    .returnType<SudoError | null>()
    .with([false, P._], () => ({ code: 'missing_sudo_scope' }))
    .with([true, false], () => ({ code: 'owner_not_site_admin' }))
    .with([true, true], () => null)
    .exhaustive(),
);

const UNKNOWN_USER: SudoError = Object.freeze({ code: 'unknown_user' });
