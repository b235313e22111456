/**
 * Whether a password sign-in attempt may run now, or must wait: an exponential backoff after a few free failures.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, ownField } from '../internal/guard.js';

/** How sign-in failures are throttled. Durations are in milliseconds. */
export interface SignInThrottlePolicy {
  /** How many failures in a row cost no wait (a non-negative safe integer). */
  readonly freeFailures: number;
  /** The wait after the last free failure; each further failure doubles it (finite, ≥ 0). */
  readonly baseDelayMs: number;
  /** The longest wait (finite, ≥ 0). */
  readonly maxDelayMs: number;
  /** Failures are forgotten after this long without a new one (finite, ≥ 0); no wait ever outlasts it. */
  readonly forgetAfterMs: number;
}

/**
 * The default policy: 5 free failures, then 1 s doubling up to 15 minutes; failures forgotten after 15 quiet minutes.
 *
 * @example
 * ```ts
 * decideSignInAttempt({ now, failures, policy: DEFAULT_SIGN_IN_THROTTLE_POLICY });
 * ```
 */
export const DEFAULT_SIGN_IN_THROTTLE_POLICY: SignInThrottlePolicy = Object.freeze({
  freeFailures: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 15 * 60_000,
});

/** The failures remembered for one key (a normalised username, a client address). */
export interface SignInFailures {
  /** Failures in a row since the last success or the last quiet period (a safe integer ≥ 1 once recorded). */
  readonly count: number;
  /** When the last failure happened, milliseconds since the epoch. */
  readonly lastFailureAt: number;
}

/** Input of {@link decideSignInAttempt}. */
export interface SignInAttemptInput {
  /** The time of the attempt, milliseconds since the epoch. */
  readonly now: number;
  /** The failures remembered for the key, or `null` when there are none. */
  readonly failures: SignInFailures | null;
  /** The policy (default {@link DEFAULT_SIGN_IN_THROTTLE_POLICY}). */
  readonly policy?: SignInThrottlePolicy;
}

/** What {@link decideSignInAttempt} decides. */
export type SignInAttemptDecision =
  /** The attempt may check the password now. */
  | { readonly kind: 'allow' }
  /** The attempt is refused without checking the password; retrying after `retryAfterSeconds` (≥ 1) is allowed. */
  | { readonly kind: 'throttle'; readonly retryAfterSeconds: number };

/** Why the throttle cannot decide: a field is missing or out of range at run time. */
export type SignInThrottleError =
  /** `field` is missing, of the wrong type, negative, or not finite (a `count` must be a safe integer). */
  {
    readonly code: 'invalid_input';
    readonly field:
      | 'input'
      | 'now'
      | 'failures'
      | 'failures.count'
      | 'failures.lastFailureAt'
      | 'previous'
      | 'previous.count'
      | 'previous.lastFailureAt'
      | 'policy'
      | 'policy.freeFailures'
      | 'policy.baseDelayMs'
      | 'policy.maxDelayMs'
      | 'policy.forgetAfterMs';
  };

type Field = SignInThrottleError['field'];

const invalid = (field: Field): Result<never, SignInThrottleError> => err({ code: 'invalid_input', field });

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isDuration = (value: unknown): value is number => isFiniteNumber(value) && value >= 0;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function readPolicy(raw: unknown): Result<SignInThrottlePolicy, SignInThrottleError> {
  if (raw === undefined) return ok(DEFAULT_SIGN_IN_THROTTLE_POLICY);
  if (!isObject(raw)) return invalid('policy');
  const freeFailures = ownField(raw, 'freeFailures');
  const baseDelayMs = ownField(raw, 'baseDelayMs');
  const maxDelayMs = ownField(raw, 'maxDelayMs');
  const forgetAfterMs = ownField(raw, 'forgetAfterMs');
  if (!isCount(freeFailures)) return invalid('policy.freeFailures');
  if (!isDuration(baseDelayMs)) return invalid('policy.baseDelayMs');
  if (!isDuration(maxDelayMs)) return invalid('policy.maxDelayMs');
  if (!isDuration(forgetAfterMs)) return invalid('policy.forgetAfterMs');
  return ok({ freeFailures, baseDelayMs, maxDelayMs, forgetAfterMs });
}

function readFailures(raw: unknown, key: 'failures' | 'previous'): Result<SignInFailures | null, SignInThrottleError> {
  if (raw === null || raw === undefined) return ok(null);
  if (!isObject(raw)) return invalid(key);
  const count = ownField(raw, 'count');
  const lastFailureAt = ownField(raw, 'lastFailureAt');
  if (!isCount(count)) return invalid(key === 'failures' ? 'failures.count' : 'previous.count');
  if (!isFiniteNumber(lastFailureAt)) return invalid(key === 'failures' ? 'failures.lastFailureAt' : 'previous.lastFailureAt');
  return ok({ count, lastFailureAt });
}

interface Checked {
  readonly now: number;
  readonly failures: SignInFailures | null;
  readonly policy: SignInThrottlePolicy;
}

function readInput(raw: unknown, failuresKey: 'failures' | 'previous'): Result<Checked, SignInThrottleError> {
  if (!isObject(raw)) return invalid('input');
  const now = ownField(raw, 'now');
  if (!isFiniteNumber(now)) return invalid('now');
  return readFailures(ownField(raw, failuresKey), failuresKey).andThen((failures) =>
    readPolicy(ownField(raw, 'policy')).map((policy) => ({ now, failures, policy })),
  );
}

/** The wait the policy imposes after `count` failures in a row, before the quiet-period bound. */
function backoffMs(count: number, policy: SignInThrottlePolicy): number {
  if (count < policy.freeFailures || count === 0 || policy.baseDelayMs === 0) return 0;
  const doublings = count - policy.freeFailures;
  // 2^60 × any finite base dwarfs any cap that matters; stopping there keeps the product finite
  const delay = doublings >= 60 ? policy.maxDelayMs : policy.baseDelayMs * 2 ** doublings;
  return Math.min(delay, policy.maxDelayMs);
}

/** Milliseconds since the last failure; a clock that went back counts as no time elapsed. */
const elapsedMs = (now: number, failures: SignInFailures): number => Math.max(0, now - failures.lastFailureAt);

/**
 * Decides whether a password sign-in attempt may check the password now. The first
 * `policy.freeFailures` failures in a row cost no wait; after that the attempt must wait
 * `baseDelayMs × 2^(count − freeFailures)` (at most `maxDelayMs`) from the last failure. Failures older
 * than `forgetAfterMs` are forgotten, so no wait ever outlasts the quiet period. Decide before running the
 * password hash, and apply the same decision to unknown usernames as to known ones.
 *
 * @param input - The time of the attempt, the failures remembered for the key, and the policy.
 * @returns `ok({ kind: 'allow' })`, `ok({ kind: 'throttle', retryAfterSeconds })`, or `err` when a field is malformed.
 * @example
 * ```ts
 * decideSignInAttempt({ now: 10_000, failures: null });
 * // ok({ kind: 'allow' })
 * decideSignInAttempt({ now: 10_000, failures: { count: 4, lastFailureAt: 10_000 } });
 * // ok({ kind: 'allow' })                         (4 of 5 free failures used)
 * decideSignInAttempt({ now: 10_500, failures: { count: 7, lastFailureAt: 10_000 } });
 * // ok({ kind: 'throttle', retryAfterSeconds: 4 }) (wait 4 s from the last failure, 3.5 s left)
 * decideSignInAttempt({ now: Number.NaN, failures: null });
 * // err({ code: 'invalid_input', field: 'now' })
 * ```
 */
export function decideSignInAttempt(input: SignInAttemptInput): Result<SignInAttemptDecision, SignInThrottleError> {
  return readInput(input, 'failures').map(({ now, failures, policy }) => {
    const elapsed = failures === null ? 0 : elapsedMs(now, failures);
    const forgotten = failures !== null && elapsed >= policy.forgetAfterMs;
    const waitMs = failures === null ? 0 : Math.min(backoffMs(failures.count, policy), policy.forgetAfterMs);
    const remainingMs = waitMs - elapsed;
    return match([failures !== null, forgotten, remainingMs > 0] as const)
      .returnType<SignInAttemptDecision>()
      .with([false, P._, P._], () => ({ kind: 'allow' }))
      .with([true, true, P._], () => ({ kind: 'allow' }))
      .with([true, false, false], () => ({ kind: 'allow' }))
      .with([true, false, true], () => ({ kind: 'throttle', retryAfterSeconds: Math.ceil(remainingMs / 1000) }))
      .exhaustive();
  });
}

/** Input of {@link recordSignInFailure} and {@link expireSignInFailures}. */
export interface SignInFailureInput {
  /** The time of the failure (or of the check), milliseconds since the epoch. */
  readonly now: number;
  /** The failures remembered for the key so far, or `null`. */
  readonly previous: SignInFailures | null;
  /** The policy (default {@link DEFAULT_SIGN_IN_THROTTLE_POLICY}). */
  readonly policy?: SignInThrottlePolicy;
}

/**
 * Records one failed sign-in attempt for a key: the count goes up by one (saturating at the largest safe
 * integer), or starts again at 1 when the earlier failures are forgotten (`forgetAfterMs` of quiet). On a
 * successful sign-in the caller forgets the key's failures (stores `null`).
 *
 * @param input - The time of the failure, the failures so far, and the policy.
 * @returns `ok` with the new failures, or `err` when a field is malformed.
 * @example
 * ```ts
 * recordSignInFailure({ now: 5_000, previous: null });
 * // ok({ count: 1, lastFailureAt: 5_000 })
 * recordSignInFailure({ now: 6_000, previous: { count: 1, lastFailureAt: 5_000 } });
 * // ok({ count: 2, lastFailureAt: 6_000 })
 * recordSignInFailure({ now: 5_000 + 15 * 60_000, previous: { count: 9, lastFailureAt: 5_000 } });
 * // ok({ count: 1, lastFailureAt: 905_000 })     (15 quiet minutes: forgotten)
 * ```
 */
export function recordSignInFailure(input: SignInFailureInput): Result<SignInFailures, SignInThrottleError> {
  return readInput(input, 'previous').map(({ now, failures, policy }): SignInFailures => {
    const live = failures !== null && elapsedMs(now, failures) < policy.forgetAfterMs ? failures : null;
    return live === null
      ? { count: 1, lastFailureAt: now }
      : {
          count: Math.min(live.count + 1, Number.MAX_SAFE_INTEGER),
          // a clock that went back never moves the last failure earlier
          lastFailureAt: Math.max(now, live.lastFailureAt),
        };
  });
}

/**
 * Drops failures that are forgotten (`forgetAfterMs` of quiet), so that a bounded table of keys can let
 * them go: `ok(null)` when forgotten, else `ok(previous)` unchanged.
 *
 * @param input - The time of the check, the failures remembered, and the policy.
 * @returns `ok(null)` or `ok(previous)`, or `err` when a field is malformed.
 * @example
 * ```ts
 * expireSignInFailures({ now: 1_000_000, previous: { count: 3, lastFailureAt: 0 } });
 * // ok(null)
 * expireSignInFailures({ now: 1_000, previous: { count: 3, lastFailureAt: 0 } });
 * // ok({ count: 3, lastFailureAt: 0 })
 * ```
 */
export function expireSignInFailures(input: SignInFailureInput): Result<SignInFailures | null, SignInThrottleError> {
  return readInput(input, 'previous').map(({ now, failures, policy }) =>
    failures !== null && elapsedMs(now, failures) < policy.forgetAfterMs ? failures : null,
  );
}

/** Input of {@link withdrawSignInFailure}. */
export interface SignInFailureWithdrawal {
  /** The failures remembered for the key, including the provisional one to take back; or `null`. */
  readonly previous: SignInFailures | null;
}

/**
 * Takes back one failure that was counted provisionally, before the attempt's outcome was known (so that
 * concurrent attempts see each other), once the attempt turned out to succeed. For keys whose failures a
 * success must not clear (a client address shared by many people); a username's failures are simply
 * forgotten on success. `lastFailureAt` is kept: the quiet period is not shortened.
 *
 * @param input - The failures remembered for the key.
 * @returns `ok` with one failure fewer (`null` when none remain), or `err` when a field is malformed.
 * @example
 * ```ts
 * withdrawSignInFailure({ previous: { count: 3, lastFailureAt: 5_000 } });
 * // ok({ count: 2, lastFailureAt: 5_000 })
 * withdrawSignInFailure({ previous: { count: 1, lastFailureAt: 5_000 } });
 * // ok(null)
 * ```
 */
export function withdrawSignInFailure(input: SignInFailureWithdrawal): Result<SignInFailures | null, SignInThrottleError> {
  const raw: unknown = input;
  if (!isObject(raw)) return invalid('input');
  return readFailures(ownField(raw, 'previous'), 'previous').map((failures) =>
    failures === null || failures.count <= 1 ? null : { count: failures.count - 1, lastFailureAt: failures.lastFailureAt },
  );
}
