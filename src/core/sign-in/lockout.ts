/**
 * Account lockout (the site option `auth.lockout`): an account whose password fails `failedAttemptThreshold` times
 * in a row, each failure within `consecutivePeriod` of the one before, is locked for `lockoutPeriod`. While it is
 * locked a password sign-in is refused before the password is checked. A success or an unlock forgets the state.
 *
 * Unlike the sign-in throttle (per username and per client address, a short wait that grows), a lockout holds the
 * account itself, whoever tries, until the period ends, the owner follows the unlock link or an administrator
 * unlocks it.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, ownField } from '../internal/guard.js';

/** The option `auth.lockout`: the spec's service's keys. Periods are in seconds. */
export interface LockoutPolicy {
  /** Failures in a row that lock the account (a safe integer ≥ 1). */
  readonly failedAttemptThreshold: number;
  /** How long a lock lasts, in seconds (a safe integer ≥ 1). */
  readonly lockoutPeriod: number;
  /** A failure more than this many seconds after the previous one starts the count again (a safe integer ≥ 1). */
  readonly consecutivePeriod: number;
}

/**
 * The defaults of `auth.lockout`: 5 failures, each within an hour of the previous, lock the account for 30 minutes.
 *
 * @example
 * ```ts
 * DEFAULT_LOCKOUT_POLICY.failedAttemptThreshold; // 5
 * ```
 */
export const DEFAULT_LOCKOUT_POLICY: LockoutPolicy = Object.freeze({
  failedAttemptThreshold: 5,
  lockoutPeriod: 1800,
  consecutivePeriod: 3600,
});

/** What is remembered about one account's failed password sign-ins. Times are milliseconds since the epoch. */
export interface LockoutState {
  /** Failures in a row counted towards the threshold (a safe integer ≥ 0; 0 right after a lock starts). */
  readonly failures: number;
  /** When the last counted failure happened, or `null` when none is counted. */
  readonly lastFailureAt: number | null;
  /** Until when the account is locked (exclusive), or `null` when no lock was set. */
  readonly lockedUntil: number | null;
}

/** Whether an account may try its password now. */
export type LockoutStatus =
  /** Not locked. */
  | { readonly kind: 'open' }
  /** Locked until `lockedUntil` (milliseconds since the epoch, later than now). */
  | { readonly kind: 'locked'; readonly lockedUntil: number };

/** What a failed password sign-in does to the account. */
export type FailedSignInDecision =
  /** Counted; the account stays open. `state` is what to store. */
  | { readonly kind: 'counted'; readonly state: LockoutState }
  /** This failure reached the threshold: the account is locked until `lockedUntil`. `state` is what to store. */
  | { readonly kind: 'locked'; readonly state: LockoutState; readonly lockedUntil: number };

/** Why a lockout function cannot decide: a field is missing or out of range at run time. */
export type LockoutError = {
  readonly code: 'invalid_input';
  readonly field:
    | 'input'
    | 'now'
    | 'state'
    | 'state.failures'
    | 'state.lastFailureAt'
    | 'state.lockedUntil'
    | 'policy'
    | 'policy.failedAttemptThreshold'
    | 'policy.lockoutPeriod'
    | 'policy.consecutivePeriod';
};

/** Input of {@link lockoutStatus} and {@link recordFailedSignIn}. */
export interface LockoutInput {
  /** The time, milliseconds since the epoch. */
  readonly now: number;
  /** The stored state, or `null` when the account has none. */
  readonly state: LockoutState | null;
  /** The policy (default {@link DEFAULT_LOCKOUT_POLICY}). */
  readonly policy?: LockoutPolicy;
}

type Field = LockoutError['field'];
const invalid = (field: Field): Result<never, LockoutError> => err({ code: 'invalid_input', field });
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isPositive = (value: unknown): value is number => isCount(value) && value >= 1;

function readPolicy(raw: unknown): Result<LockoutPolicy, LockoutError> {
  if (raw === undefined) return ok(DEFAULT_LOCKOUT_POLICY);
  if (!isObject(raw)) return invalid('policy');
  const failedAttemptThreshold = ownField(raw, 'failedAttemptThreshold');
  const lockoutPeriod = ownField(raw, 'lockoutPeriod');
  const consecutivePeriod = ownField(raw, 'consecutivePeriod');
  if (!isPositive(failedAttemptThreshold)) return invalid('policy.failedAttemptThreshold');
  if (!isPositive(lockoutPeriod)) return invalid('policy.lockoutPeriod');
  if (!isPositive(consecutivePeriod)) return invalid('policy.consecutivePeriod');
  return ok({ failedAttemptThreshold, lockoutPeriod, consecutivePeriod });
}

function readState(raw: unknown): Result<LockoutState | null, LockoutError> {
  if (raw === null || raw === undefined) return ok(null);
  if (!isObject(raw)) return invalid('state');
  const failures = ownField(raw, 'failures');
  const lastFailureAt = ownField(raw, 'lastFailureAt');
  const lockedUntil = ownField(raw, 'lockedUntil');
  if (!isCount(failures)) return invalid('state.failures');
  if (lastFailureAt !== null && !isTime(lastFailureAt)) return invalid('state.lastFailureAt');
  if (lockedUntil !== null && !isTime(lockedUntil)) return invalid('state.lockedUntil');
  return ok({ failures, lastFailureAt, lockedUntil });
}

interface Checked {
  readonly now: number;
  readonly state: LockoutState | null;
  readonly policy: LockoutPolicy;
}

function readInput(raw: unknown): Result<Checked, LockoutError> {
  if (!isObject(raw)) return invalid('input');
  const now = ownField(raw, 'now');
  if (!isTime(now)) return invalid('now');
  return readState(ownField(raw, 'state')).andThen((state) => readPolicy(ownField(raw, 'policy')).map((policy) => ({ now, state, policy })));
}

function statusOf(now: number, state: LockoutState | null): LockoutStatus {
  return match(state)
    .returnType<LockoutStatus>()
    .with({ lockedUntil: P.number.gt(now) }, (s) => ({ kind: 'locked', lockedUntil: s.lockedUntil }))
    .otherwise(() => ({ kind: 'open' }));
}

/**
 * Whether the account is locked at `now`: it is while `now` is before the stored `lockedUntil`.
 *
 * @param input - The time and the stored state (`policy` is not needed and ignored when valid).
 * @returns `open` or `locked` with its end; `err` when a field is malformed.
 *
 * @example
 * ```ts
 * lockoutStatus({ now: 1_000, state: { failures: 0, lastFailureAt: null, lockedUntil: 5_000 } });
 * // ok({ kind: 'locked', lockedUntil: 5_000 })
 * lockoutStatus({ now: 5_000, state: { failures: 0, lastFailureAt: null, lockedUntil: 5_000 } });
 * // ok({ kind: 'open' })
 * ```
 */
export function lockoutStatus(input: LockoutInput): Result<LockoutStatus, LockoutError> {
  return readInput(input).map(({ now, state }) => statusOf(now, state));
}

/**
 * Counts one failed password sign-in of an open account. A failure more than `consecutivePeriod` seconds after the
 * counted one before starts the count at 1 (a clock that went back counts as no time elapsed); the failure that
 * brings the count to `failedAttemptThreshold` locks the account for `lockoutPeriod` seconds from `now` and
 * starts the count again at 0. On an account that is locked at `now` nothing changes (`counted` with the state as
 * given): a locked account's attempts are refused before the password is checked and never extend the lock.
 *
 * @param input - The time, the stored state and the policy.
 * @returns What to store, and whether this failure locked the account; `err` when a field is malformed.
 *
 * @example
 * ```ts
 * recordFailedSignIn({ now: 0, state: { failures: 4, lastFailureAt: -1_000, lockedUntil: null } });
 * // ok({ kind: 'locked', lockedUntil: 1_800_000, state: { failures: 0, lastFailureAt: null, lockedUntil: 1_800_000 } })
 * ```
 */
export function recordFailedSignIn(input: LockoutInput): Result<FailedSignInDecision, LockoutError> {
  return readInput(input).map(({ now, state, policy }): FailedSignInDecision => {
    if (state !== null && statusOf(now, state).kind === 'locked') return { kind: 'counted', state };
    const last = state?.lastFailureAt ?? null;
    const inRow = state !== null && last !== null && Math.max(0, now - last) <= policy.consecutivePeriod * 1000;
    const failures = (inRow ? state.failures : 0) + 1;
    if (failures >= policy.failedAttemptThreshold) {
      const lockedUntil = now + policy.lockoutPeriod * 1000;
      return { kind: 'locked', lockedUntil, state: { failures: 0, lastFailureAt: null, lockedUntil } };
    }
    return { kind: 'counted', state: { failures, lastFailureAt: now, lockedUntil: null } };
  });
}
