/**
 * A site administrator's controls over an account, shared by the GraphQL mutations and the Users page so that each
 * rule and each audit entry exists once: suspend, reinstate, end every session, revoke every token (access tokens
 * and OAuth tokens). Each reads the account and the number of active site administrators, asks the core's
 * `decideAccountControl`, writes and audits, all in one store transaction (never the last active site
 * administrator). A suspension takes effect at once on every instance: the store's change feed makes each
 * instance forget what it cached of the account (token-cache.ts), and every way in reads the account's state.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { decideAccountControl } from 'gatehouse-auth';
import type { AccountControl, AccountControlError } from 'gatehouse-auth';
import { match } from 'ts-pattern';
import type { AuditEvent, Store, StoreError, UserRecord } from '../store/types.js';
import { auditedTransaction } from '../store/audited.js';
import type { AdminOperationDeps } from './accounts.js';
import { storeFailure } from './failure.js';
import type { OperationFailure } from './failure.js';

/**
 * What an account control did: the account as it is now, whether anything changed, and how many sessions or
 * tokens went (0 for suspend and reinstate).
 *
 * @example
 * ```ts
 * const done: AccountControlOutcome = { user, changed: true, removed: 3 };
 * ```
 */
export interface AccountControlOutcome {
  /** The account after the control. */
  readonly user: UserRecord;
  /** Whether the control changed anything (`false`: suspended already, or not suspended, or nothing to remove). */
  readonly changed: boolean;
  /** How many sessions (`end_sessions`) or access and OAuth tokens (`revoke_tokens`) were removed. */
  readonly removed: number;
}

/**
 * Why an account control was refused; it changed nothing.
 *
 * @example
 * ```ts
 * const e: AccountControlOperationError = { code: 'last_site_admin' };
 * ```
 */
export type AccountControlOperationError =
  /** The account is the only active site administrator. */
  | { readonly code: 'last_site_admin' }
  /** The core could not decide (the facts read were inconsistent). */
  | { readonly code: 'undecided'; readonly cause: AccountControlError }
  /** The store refused (the account is gone). */
  | { readonly code: 'store_refused'; readonly cause: StoreError };

/** The audit action of each control. */
const AUDIT_ACTIONS: Readonly<Record<AccountControl, string>> = {
  suspend: 'suspended',
  reinstate: 'reinstated',
  end_sessions: 'sessions_ended',
  revoke_tokens: 'tokens_revoked',
};

/** What a control writes: the account after it, and the facts its audit entry records. */
interface Written {
  readonly user: UserRecord;
  readonly removed: number;
  readonly details: Readonly<Record<string, string>>;
}

/** The write of each control, inside the transaction. */
async function write(tx: Store, control: AccountControl, target: UserRecord, now: number): Promise<Result<Written, StoreError>> {
  return match(control)
    .returnType<Promise<Result<Written, StoreError>>>()
    .with('suspend', async () => (await tx.accounts.setSuspended(target.id, now)).map((user) => ({ user, removed: 0, details: {} })))
    .with('reinstate', async () => (await tx.accounts.setSuspended(target.id, null)).map((user) => ({ user, removed: 0, details: {} })))
    .with('end_sessions', async () => {
      const sessions = await tx.sessions.deleteForUser(target.id);
      return ok({ user: target, removed: sessions, details: { sessions: String(sessions) } });
    })
    .with('revoke_tokens', async () => {
      const accessTokens = await tx.accessTokens.deleteForUser(target.id);
      const oauthTokens = await tx.oauth.revokeForUser(target.id);
      return ok({ user: target, removed: accessTokens + oauthTokens, details: { accessTokens: String(accessTokens), oauthTokens: String(oauthTokens) } });
    })
    .exhaustive();
}

/**
 * Applies a site administrator's control to an account: in one store transaction, reads the account and the number
 * of active site administrators, asks the core's `decideAccountControl`, writes, and records the audit entry
 * `user`/`suspended`, `reinstated`, `sessions_ended` (with the count) or `tokens_revoked` (with both counts).
 * A control that changes nothing (suspending a suspended account, reinstating an active one) writes and audits
 * nothing.
 *
 * @param deps - Store, clock and audit (entries attributed to the acting administrator).
 * @param admin - The site administrator acting.
 * @param userId - The account.
 * @param control - What to do.
 * @returns What it did, or why nothing changed.
 *
 * @example
 * ```ts
 * await controlAccount(deps, root, alice.id, 'suspend'); // ok({ user: { …, suspendedAt: 1_700_000_000_000 }, changed: true, removed: 0 })
 * await controlAccount(deps, root, root.id, 'suspend');  // err({ code: 'last_site_admin' }) when root is the only active one
 * ```
 */
export async function controlAccount(
  deps: AdminOperationDeps,
  admin: UserRecord,
  userId: string,
  control: AccountControl,
): Promise<Result<AccountControlOutcome, AccountControlOperationError>> {
  const now = deps.now();
  return auditedTransaction(deps.store, async (tx): Promise<Result<AccountControlOutcome, AccountControlOperationError>> => {
    const target = await tx.accounts.get(userId);
    if (target === null) return err({ code: 'store_refused', cause: { code: 'unknown_user', userId } });
    const decision = decideAccountControl({
      control,
      target: { siteAdmin: target.siteAdmin, suspended: target.suspendedAt !== undefined },
      activeSiteAdminCount: await tx.accounts.countActiveSiteAdmins(),
    });
    if (decision.isErr()) return err({ code: 'undecided', cause: decision.error });
    if (decision.value.kind === 'deny') return err({ code: decision.value.reason });
    if (decision.value.kind === 'unchanged') return ok({ user: target, changed: false, removed: 0 });
    const written = await write(tx, control, target, now);
    if (written.isErr()) return err({ code: 'store_refused', cause: written.error });
    const event: AuditEvent = {
      entity: 'user',
      action: AUDIT_ACTIONS[control],
      reason: null,
      actorUserId: admin.id,
      subjectUserId: target.id,
      details: { username: target.username, ...written.value.details },
    };
    await deps.audit(event, tx);
    const changed = control === 'suspend' || control === 'reinstate' || written.value.removed > 0;
    return ok({ user: written.value.user, changed, removed: written.value.removed });
  });
}

/**
 * How a refused account control is told, to the API and to the Users page alike.
 *
 * @param error - The refusal.
 * @returns The message and the stable code (`LAST_SITE_ADMIN`, `NOT_FOUND`, `INTERNAL`).
 *
 * @example
 * ```ts
 * accountControlFailure({ code: 'last_site_admin' }).code; // 'LAST_SITE_ADMIN'
 * ```
 */
export function accountControlFailure(error: AccountControlOperationError): OperationFailure {
  return match(error)
    .returnType<OperationFailure>()
    .with({ code: 'last_site_admin' }, () => ({
      message: 'This is the only active site administrator: make another account a site administrator (or reinstate one) first.',
      code: 'LAST_SITE_ADMIN',
    }))
    .with({ code: 'undecided' }, () => ({ message: 'Could not decide; try again.', code: 'INTERNAL' }))
    .with({ code: 'store_refused' }, (e) => storeFailure(e.cause))
    .exhaustive();
}
