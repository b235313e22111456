/**
 * A site administrator's controls over an account (suspend, reinstate, end every session, revoke every token) and
 * what a suspended account may still do: nothing. Two pure decisions, read by the server before it writes.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, ownField } from './internal/guard.js';

/**
 * The controls {@link decideAccountControl} decides: suspend or reinstate an account, end every session of it,
 * revoke every token of it (access tokens and OAuth tokens).
 *
 * @example
 * ```ts
 * ACCOUNT_CONTROLS.includes('suspend'); // true
 * ```
 */
export const ACCOUNT_CONTROLS = ['suspend', 'reinstate', 'end_sessions', 'revoke_tokens'] as const;

/**
 * One of {@link ACCOUNT_CONTROLS}.
 *
 * @example
 * ```ts
 * const control: AccountControl = 'end_sessions';
 * ```
 */
export type AccountControl = (typeof ACCOUNT_CONTROLS)[number];

/**
 * Input of {@link decideAccountControl}: the control, the account as stored now, and how many active (not
 * suspended) site administrators the site has now, the target included when it is one; read in the same store
 * transaction as the write that follows.
 *
 * @example
 * ```ts
 * const input: AccountControlInput = { control: 'suspend', target: { siteAdmin: false, suspended: false }, activeSiteAdminCount: 1 };
 * ```
 */
export interface AccountControlInput {
  /** What a site administrator asks for. */
  readonly control: AccountControl;
  /** The account, as stored now. */
  readonly target: {
    /** Whether it is a site administrator. */
    readonly siteAdmin: boolean;
    /** Whether it is suspended. */
    readonly suspended: boolean;
  };
  /** How many site administrators are not suspended, the target included when it is one of them. */
  readonly activeSiteAdminCount: number;
}

/**
 * What {@link decideAccountControl} says.
 *
 * @example
 * ```ts
 * const decision: AccountControlDecision = { kind: 'unchanged' };
 * ```
 */
export type AccountControlDecision =
  /** Make the change. */
  | { readonly kind: 'apply' }
  /** Nothing to do: the account is suspended already (`suspend`) or not suspended (`reinstate`). */
  | { readonly kind: 'unchanged' }
  /**
   * Refuse: the target is the only active site administrator, and the control would leave nobody able to
   * administer the site through it (suspended, or without its sessions or tokens).
   */
  | { readonly kind: 'deny'; readonly reason: 'last_site_admin' };

/**
 * Why {@link decideAccountControl} could not decide.
 *
 * @example
 * ```ts
 * const e: AccountControlError = { code: 'inconsistent_count', activeSiteAdminCount: 0 };
 * ```
 */
export type AccountControlError =
  /** A field is missing or of the wrong type at run time (the count must be a non-negative safe integer). */
  | {
      readonly code: 'invalid_input';
      readonly field: 'input' | 'control' | 'target' | 'target.siteAdmin' | 'target.suspended' | 'activeSiteAdminCount';
    }
  /** The target is an active site administrator, yet the count says there is none: the facts were not read together. */
  | { readonly code: 'inconsistent_count'; readonly activeSiteAdminCount: number };

const controlOf = (raw: unknown): AccountControl | null => ACCOUNT_CONTROLS.find((c) => c === raw) ?? null;

/**
 * Decides a site administrator's control over an account. Only site administrators manage accounts (spec §1,
 * §2.3, §5.1 rule 2), and a suspended one can do nothing; so the one active site administrator is never
 * suspended, nor stripped of its sessions or tokens (it may be its only way in). Reinstating is always allowed (a
 * suspended account is never the active administrator). Suspending a suspended account, or reinstating one that
 * is not, changes nothing (`unchanged`). Ending sessions and revoking tokens apply to suspended accounts too.
 *
 * @param input - The control, the target as stored now, and the number of active site administrators now.
 * @returns `apply`, `unchanged`, or `deny` with `last_site_admin`; `err` when the input is malformed or inconsistent.
 * @example
 * ```ts
 * decideAccountControl({ control: 'suspend', target: { siteAdmin: true, suspended: false }, activeSiteAdminCount: 1 });
 * // ok({ kind: 'deny', reason: 'last_site_admin' })
 * decideAccountControl({ control: 'suspend', target: { siteAdmin: false, suspended: true }, activeSiteAdminCount: 1 });
 * // ok({ kind: 'unchanged' })
 * decideAccountControl({ control: 'reinstate', target: { siteAdmin: true, suspended: true }, activeSiteAdminCount: 1 });
 * // ok({ kind: 'apply' })
 * ```
 */
export function decideAccountControl(input: AccountControlInput): Result<AccountControlDecision, AccountControlError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const control = controlOf(ownField(raw, 'control'));
  if (control === null) return err({ code: 'invalid_input', field: 'control' });
  const target = ownField(raw, 'target');
  if (!isObject(target)) return err({ code: 'invalid_input', field: 'target' });
  const siteAdmin = ownField(target, 'siteAdmin');
  if (typeof siteAdmin !== 'boolean') return err({ code: 'invalid_input', field: 'target.siteAdmin' });
  const suspended = ownField(target, 'suspended');
  if (typeof suspended !== 'boolean') return err({ code: 'invalid_input', field: 'target.suspended' });
  const count = ownField(raw, 'activeSiteAdminCount');
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return err({ code: 'invalid_input', field: 'activeSiteAdminCount' });
  const active = siteAdmin && !suspended;
  if (active && count < 1) return err({ code: 'inconsistent_count', activeSiteAdminCount: count });
  // the target is the one active site administrator: nobody else could undo what the control does to it
  const lastActive = active && count === 1;
  return ok(
    match([control, suspended, lastActive] as const)
      .returnType<AccountControlDecision>()
      .with(['reinstate', false, P._], () => ({ kind: 'unchanged' }))
      .with(['reinstate', true, P._], () => ({ kind: 'apply' }))
      .with(['suspend', true, P._], () => ({ kind: 'unchanged' }))
      .with([P.union('suspend', 'end_sessions', 'revoke_tokens'), P._, true], () => ({ kind: 'deny', reason: 'last_site_admin' }))
      .with([P.union('suspend', 'end_sessions', 'revoke_tokens'), P._, false], () => ({ kind: 'apply' }))
      .exhaustive(),
  );
}

/**
 * The ways an account is used, each refused while it is suspended: a browser session (cookie or authentication
 * proxy), an access token (`token`), either side of `token-sudo` (the token's owner, the account acted as), an
 * OAuth access or refresh token, an OAuth authorization, and a sign-in by any provider.
 *
 * @example
 * ```ts
 * ACCOUNT_USES.includes('sudo_target'); // true
 * ```
 */
export const ACCOUNT_USES = ['session', 'access_token', 'sudo_owner', 'sudo_target', 'oauth_token', 'oauth_authorize', 'sign_in'] as const;

/**
 * One of {@link ACCOUNT_USES}.
 *
 * @example
 * ```ts
 * const use: AccountUse = 'oauth_token';
 * ```
 */
export type AccountUse = (typeof ACCOUNT_USES)[number];

/**
 * What {@link decideAccountUse} says.
 *
 * @example
 * ```ts
 * const decision: AccountUseDecision = { kind: 'deny', reason: 'account_suspended' };
 * ```
 */
export type AccountUseDecision = { readonly kind: 'allow' } | { readonly kind: 'deny'; readonly reason: 'account_suspended' };

/**
 * Whether an account may be used in this way now. A suspended account has no way in: every use is refused, and
 * nothing of it is deleted, so reinstating it restores every session and token that has not expired. Malformed
 * input (not a boolean `suspended`, an unknown use) is refused as if suspended: a check that cannot read its
 * facts never lets a request through.
 *
 * @param input - Whether the account is suspended, and the use.
 * @returns `allow`, or `deny` with `account_suspended`: a frozen object, the same one for the same answer.
 * @example
 * ```ts
 * decideAccountUse({ suspended: true, use: 'session' });      // { kind: 'deny', reason: 'account_suspended' }
 * decideAccountUse({ suspended: false, use: 'oauth_token' }); // { kind: 'allow' }
 * ```
 */
export function decideAccountUse(input: { readonly suspended: boolean; readonly use: AccountUse }): AccountUseDecision {
  const raw: unknown = input;
  const suspended = ownField(raw, 'suspended');
  const given = ownField(raw, 'use');
  if (typeof suspended !== 'boolean') return DENY_MALFORMED;
  return (suspended ? WHEN_SUSPENDED : WHEN_ACTIVE).get(given) ?? DENY_MALFORMED;
}

/** The decision for one account state and use: the policy, as an exhaustive match. */
function accountUseDecision(suspended: boolean, use: AccountUse): AccountUseDecision {
  return match([suspended, use] as const)
    .returnType<AccountUseDecision>()
    .with([false, P._], () => ({ kind: 'allow' }))
    .with([true, P._], () => ({ kind: 'deny', reason: 'account_suspended' }))
    .exhaustive();
}

/**
 * {@link accountUseDecision} for every use, evaluated once per account state: the space is 2 × 7, and every API
 * request asks it once or twice, so the request reads the answer from a table the match filled.
 */
const decisionsWhen = (suspended: boolean): ReadonlyMap<unknown, AccountUseDecision> =>
  new Map(ACCOUNT_USES.map((use) => [use, Object.freeze(accountUseDecision(suspended, use))]));
const WHEN_ACTIVE = decisionsWhen(false);
const WHEN_SUSPENDED = decisionsWhen(true);
const DENY_MALFORMED: AccountUseDecision = Object.freeze({ kind: 'deny', reason: 'account_suspended' });
