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
import type { LockoutPolicy, LockoutState, LockoutStatus } from 'gatehouse-auth';
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

/**
 * The most usernames without a password account whose failures {@link countFailedSignInOfName} remembers at once;
 * a new one past it pushes out the one stored longest ago.
 *
 * @example
 * ```ts
 * MAX_NAME_LOCKOUT_RECORDS; // 100000
 * ```
 */
export const MAX_NAME_LOCKOUT_RECORDS = 100_000;

const NAME_GROUP = 'lockout';
const nameKey = (digest: string): string => `lockout:${digest}`;

/** Reads a remembered name's state (a malformed value reads as none). */
function readNameState(value: string): LockoutState | null {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { failures, lastFailureAt, lockedUntil } = parsed as Record<string, unknown>;
    if (typeof failures !== 'number' || (lastFailureAt !== null && typeof lastFailureAt !== 'number') || (lockedUntil !== null && typeof lockedUntil !== 'number')) return null;
    return { failures, lastFailureAt, lockedUntil };
  } catch {
    return null;
  }
}

/**
 * Whether a username that has no password account (none, or one without a password) reads as locked now: such a
 * name is counted exactly like an account, so the lock never tells which usernames have accounts.
 *
 * @param deps - Store and clock.
 * @param nameDigest - The digest of the normalised username (never the name itself).
 * @returns `open`, or `locked` with its end.
 * @example
 * ```ts
 * (await nameLockStatus(deps, sha256Hex(usernameKey('nobody')))).kind; // 'open'
 * ```
 */
export async function nameLockStatus(deps: LockoutDeps, nameDigest: string): Promise<LockoutStatus> {
  const now = deps.now();
  const entry = await deps.store.ephemeral.get('throttle', nameKey(nameDigest), now);
  const state = entry === null ? null : readNameState(entry.value);
  return lockoutStatus({ now, state }).unwrapOr<LockoutStatus>({ kind: 'open' });
}

/**
 * Counts a failed sign-in of a username without a password account, as {@link countFailedSignIn} counts an
 * account's (the same core decision), in the ephemeral store (kind `throttle`, group `lockout`, at most
 * {@link MAX_NAME_LOCKOUT_RECORDS}), kept until the count or the lock would end. Writes the refusal's entry.
 *
 * @param deps - Store, clock and audit.
 * @param nameDigest - The digest of the normalised username.
 * @param policy - The effective `auth.lockout`.
 * @param failed - The refusal's audit entry.
 * @returns The lock's end when this failure reached the threshold, else `null`.
 * @example
 * ```ts
 * await countFailedSignInOfName(deps, digest, configuration.lockout, failedEntry); // null
 * ```
 */
export async function countFailedSignInOfName(deps: LockoutDeps, nameDigest: string, policy: LockoutPolicy, failed: AuditEvent): Promise<number | null> {
  const now = deps.now();
  await deps.audit(failed, deps.store);
  const key = nameKey(nameDigest);
  const entry = await deps.store.ephemeral.get('throttle', key, now);
  const decided = recordFailedSignIn({ now, state: entry === null ? null : readNameState(entry.value), policy });
  if (decided.isErr()) return null;
  const { state } = decided.value;
  const expiresAt = Math.max(state.lockedUntil ?? 0, (state.lastFailureAt ?? 0) + policy.consecutivePeriod * 1000, now + 1);
  if (entry === null && (await deps.store.ephemeral.count('throttle', now, NAME_GROUP)) >= MAX_NAME_LOCKOUT_RECORDS) {
    await deps.store.ephemeral.deleteOldest('throttle', NAME_GROUP, now);
  }
  await deps.store.ephemeral.put({ kind: 'throttle', key, group: NAME_GROUP, value: JSON.stringify(state), expiresAt });
  return decided.value.kind === 'locked' ? decided.value.lockedUntil : null;
}
