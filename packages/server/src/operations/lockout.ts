/**
 * Account lockout (the site option `auth.lockout`) as the sign-in route, the unlock link's page, the site
 * administration page and the GraphQL API use it: the lock is read and counted with the core's `lockoutStatus` and
 * `recordFailedSignIn`, each change written with its audit entry in one store transaction.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { lockoutStatus, recordFailedSignIn } from 'gatehouse-auth';
import type { LockoutPolicy, LockoutStatus } from 'gatehouse-auth';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';
import type { AuditEvent, Store, UserRecord } from '../store/types.js';
import type { OperationFailure } from './failure.js';

/**
 * What the lockout operations need.
 *
 * @example
 * ```ts
 * const deps: LockoutDeps = { store, now: Date.now, audit };
 * ```
 */
export interface LockoutDeps {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Records an audit entry, in the change's transaction. */
  readonly audit: AuditSink;
}

/**
 * Whether the account is locked now (a malformed stored record reads as open: the store wrote it from a decision).
 *
 * @param deps - Store and clock.
 * @param userId - The account.
 * @param into - The store to read (a transaction's), default `deps.store`.
 * @returns `open`, or `locked` with its end.
 * @example
 * ```ts
 * (await accountLockStatus(deps, user.id)).kind; // 'open'
 * ```
 */
export async function accountLockStatus(deps: LockoutDeps, userId: string, into: Store = deps.store): Promise<LockoutStatus> {
  const state = await into.lockouts.get(userId);
  return lockoutStatus({ now: deps.now(), state }).unwrapOr<LockoutStatus>({ kind: 'open' });
}

/**
 * Records a failed password sign-in of an existing account: the refusal's audit entry (`auth.session`/`failed`)
 * and the counted failure are written in one transaction; the failure that reaches the threshold also writes
 * `user`/`locked` with the lock's end.
 *
 * @param deps - Store, clock and audit.
 * @param user - The account whose password failed.
 * @param policy - The effective `auth.lockout`.
 * @param failed - The refusal's audit entry.
 * @returns The lock's end when this failure locked the account, else `null`.
 * @example
 * ```ts
 * const lockedUntil = await countFailedSignIn(deps, user, configuration.lockout, failedEntry);
 * ```
 */
export async function countFailedSignIn(deps: LockoutDeps, user: UserRecord, policy: LockoutPolicy, failed: AuditEvent): Promise<number | null> {
  const written = await auditedTransaction(deps.store, async (tx): Promise<Result<number | null, never>> => {
    await deps.audit(failed, tx);
    const decided = recordFailedSignIn({ now: deps.now(), state: await tx.lockouts.get(user.id), policy });
    if (decided.isErr()) return ok(null);
    const stored = await tx.lockouts.put({ userId: user.id, ...decided.value.state });
    if (stored.isErr() || decided.value.kind !== 'locked') return ok(null);
    const lockedUntil = decided.value.lockedUntil;
    await deps.audit(
      {
        entity: 'user',
        action: 'locked',
        reason: `${String(policy.failedAttemptThreshold)} failed password sign-ins`,
        actorUserId: null,
        subjectUserId: user.id,
        details: { lockedUntil: new Date(lockedUntil).toISOString() },
      },
      tx,
    );
    return ok(lockedUntil);
  });
  return written.unwrapOr(null);
}

/**
 * Who unlocks an account: a site administrator, or the owner by the mailed unlock link.
 *
 * @example
 * ```ts
 * const by: UnlockActor = { kind: 'site_admin', admin };
 * ```
 */
export type UnlockActor = { readonly kind: 'site_admin'; readonly admin: UserRecord } | { readonly kind: 'unlock_link' };

/**
 * Unlocks an account and forgets its counted failures; audited `user`/`unlocked` (also when it was not locked, so
 * every administrator action leaves its entry). A non-administrator actor is refused.
 *
 * @param deps - Store, clock and audit.
 * @param by - Who unlocks.
 * @param userId - The account.
 * @returns Whether it was locked, or why nothing changed.
 * @example
 * ```ts
 * await unlockAccount(deps, { kind: 'site_admin', admin }, alice.id); // ok({ user: alice, wasLocked: true })
 * ```
 */
export async function unlockAccount(
  deps: LockoutDeps,
  by: UnlockActor,
  userId: string,
): Promise<Result<{ readonly user: UserRecord; readonly wasLocked: boolean }, OperationFailure>> {
  if (by.kind === 'site_admin' && !by.admin.siteAdmin) return err({ message: 'Only site administrators may unlock accounts.', code: 'FORBIDDEN' });
  return auditedTransaction(deps.store, async (tx) => {
    const user = await tx.accounts.get(userId);
    if (user === null) return err({ message: 'No such user.', code: 'NOT_FOUND' });
    const wasLocked = (await accountLockStatus(deps, userId, tx)).kind === 'locked';
    await tx.lockouts.clear(userId);
    await deps.audit(
      {
        entity: 'user',
        action: 'unlocked',
        reason: by.kind === 'site_admin' ? 'by a site administrator' : 'by the unlock link',
        actorUserId: by.kind === 'site_admin' ? by.admin.id : user.id,
        subjectUserId: user.id,
        details: { wasLocked: String(wasLocked) },
      },
      tx,
    );
    return ok({ user, wasLocked });
  });
}
