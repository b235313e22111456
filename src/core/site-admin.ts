/**
 * "Never the last site administrator": a change to who administers the site may not leave it without one.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, ownField } from './internal/guard.js';

/**
 * The changes to an account that {@link decideSiteAdminChange} decides: grant or revoke site administration,
 * or delete the account.
 *
 * @example
 * ```ts
 * SITE_ADMIN_CHANGES.includes('revoke'); // true
 * ```
 */
export const SITE_ADMIN_CHANGES = ['grant', 'revoke', 'delete'] as const;

/**
 * One of {@link SITE_ADMIN_CHANGES}.
 *
 * @example
 * ```ts
 * const change: SiteAdminChange = 'delete';
 * ```
 */
export type SiteAdminChange = (typeof SITE_ADMIN_CHANGES)[number];

/**
 * Input of {@link decideSiteAdminChange}: the change, the account it is about as it is now, and how many site
 * administrators the site has now (the target included when it is one), read in the same store transaction as
 * the write that follows.
 *
 * @example
 * ```ts
 * const input: SiteAdminChangeInput = { change: 'revoke', target: { siteAdmin: true }, siteAdminCount: 2 };
 * ```
 */
export interface SiteAdminChangeInput {
  /** What is about to happen to the account. */
  readonly change: SiteAdminChange;
  /** The account, as stored now. */
  readonly target: {
    /** Whether it is a site administrator now. */
    readonly siteAdmin: boolean;
  };
  /** How many accounts are site administrators now, the target included. */
  readonly siteAdminCount: number;
}

/**
 * What {@link decideSiteAdminChange} says.
 *
 * @example
 * ```ts
 * const decision: SiteAdminChangeDecision = { kind: 'deny', reason: 'last_site_admin' };
 * ```
 */
export type SiteAdminChangeDecision =
  /** Make the change. */
  | { readonly kind: 'allow' }
  /** Refuse: the target is the only site administrator, and the change would leave the site with none. */
  | { readonly kind: 'deny'; readonly reason: 'last_site_admin' };

/**
 * Why {@link decideSiteAdminChange} could not decide.
 *
 * @example
 * ```ts
 * const e: SiteAdminChangeError = { code: 'inconsistent_count', siteAdminCount: 0 };
 * ```
 */
export type SiteAdminChangeError =
  /** A field is missing or of the wrong type at run time (the count must be a non-negative safe integer). */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'change' | 'target' | 'target.siteAdmin' | 'siteAdminCount' }
  /** The target is a site administrator, yet the count says there is none: the facts were not read together. */
  | { readonly code: 'inconsistent_count'; readonly siteAdminCount: number };

/** The change of `raw`, when it is one of {@link SITE_ADMIN_CHANGES}. */
function changeOf(raw: unknown): SiteAdminChange | null {
  return SITE_ADMIN_CHANGES.find((c) => c === raw) ?? null;
}

/**
 * Decides whether an account may be granted or revoked site administration, or deleted, so that a site that has
 * a site administrator keeps one. Only site administrators manage accounts and create `site-admin:sudo` tokens
 * (spec §1, §2.3, §5.1 rule 2): a site left without one could never get one back through its own API.
 *
 * Granting is always allowed. Revoking or deleting an account that is not a site administrator is allowed (it
 * changes nothing about who administers the site). Revoking or deleting a site administrator is allowed only while
 * another one remains. The caller reads the count and the target and writes the change inside one store
 * transaction, so two concurrent demotions of the last two administrators cannot both pass.
 *
 * @param input - The change, the target as stored now, and the number of site administrators now.
 * @returns `allow`, or `deny` with `last_site_admin`; `err` when the input is malformed or inconsistent.
 * @example
 * ```ts
 * decideSiteAdminChange({ change: 'revoke', target: { siteAdmin: true }, siteAdminCount: 1 });
 * // ok({ kind: 'deny', reason: 'last_site_admin' })
 * decideSiteAdminChange({ change: 'delete', target: { siteAdmin: true }, siteAdminCount: 2 });
 * // ok({ kind: 'allow' })
 * decideSiteAdminChange({ change: 'revoke', target: { siteAdmin: true }, siteAdminCount: 0 });
 * // err({ code: 'inconsistent_count', siteAdminCount: 0 })
 * ```
 */
export function decideSiteAdminChange(input: SiteAdminChangeInput): Result<SiteAdminChangeDecision, SiteAdminChangeError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const change = changeOf(ownField(raw, 'change'));
  if (change === null) return err({ code: 'invalid_input', field: 'change' });
  const target = ownField(raw, 'target');
  if (!isObject(target)) return err({ code: 'invalid_input', field: 'target' });
  const siteAdmin = ownField(target, 'siteAdmin');
  if (typeof siteAdmin !== 'boolean') return err({ code: 'invalid_input', field: 'target.siteAdmin' });
  const count = ownField(raw, 'siteAdminCount');
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return err({ code: 'invalid_input', field: 'siteAdminCount' });
  if (siteAdmin && count < 1) return err({ code: 'inconsistent_count', siteAdminCount: count });
  // Site administrators other than the target: they remain whatever happens to it.
  const othersRemain = count - (siteAdmin ? 1 : 0) > 0;
  return ok(
    match([change, siteAdmin, othersRemain] as const)
      .returnType<SiteAdminChangeDecision>()
      .with(['grant', P._, P._], () => ({ kind: 'allow' }))
      .with([P.union('revoke', 'delete'), false, P._], () => ({ kind: 'allow' }))
      .with([P.union('revoke', 'delete'), true, true], () => ({ kind: 'allow' }))
      .with([P.union('revoke', 'delete'), true, false], () => ({ kind: 'deny', reason: 'last_site_admin' }))
      .exhaustive(),
  );
}
