/**
 * The site options of the account lifecycle, with the spec's service's names and defaults: `auth.lockout`
 * (`failedAttemptThreshold`, `lockoutPeriod`, `consecutivePeriod`), `auth.passwordResetLinkExpiry` and
 * `auth.unlockAccountLinkExpiry` (seconds).
 *
 * @internal
 *
 * @module
 */
import { isRecord, ownField } from '../internal/guard.js';
import { DEFAULT_LOCKOUT_POLICY, type LockoutPolicy } from '../sign-in/lockout.js';
import { wrongType } from './fields.js';
import { type Context, formatPath, nearest, report, type Segments } from './problems.js';

/**
 * The default of `auth.passwordResetLinkExpiry`: 4 hours, in seconds.
 *
 * @example
 * ```ts
 * DEFAULT_PASSWORD_RESET_LINK_EXPIRY; // 14400
 * ```
 */
export const DEFAULT_PASSWORD_RESET_LINK_EXPIRY = 14_400;
/**
 * The default of `auth.unlockAccountLinkExpiry`: 5 minutes, in seconds.
 *
 * @example
 * ```ts
 * DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY; // 300
 * ```
 */
export const DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY = 300;
/** The longest period any of these options accepts: 365 days, in seconds. */
export const MAX_ACCOUNT_LIFECYCLE_SECONDS = 31_536_000;
/** The most failures `auth.lockout.failedAttemptThreshold` accepts. */
export const MAX_FAILED_ATTEMPT_THRESHOLD = 1_000_000;

const LOCKOUT_KEYS: readonly (keyof LockoutPolicy)[] = ['failedAttemptThreshold', 'lockoutPeriod', 'consecutivePeriod'];

/** The account lifecycle options read, every default applied. */
export interface AccountLifecycleOptions {
  readonly lockout: LockoutPolicy;
  readonly passwordResetLinkExpiry: number;
  readonly unlockAccountLinkExpiry: number;
}

/** Reads a whole number from `min` to `max`; reports and gives `undefined` when it is anything else. */
function readWholeNumber(ctx: Context, segments: Segments, value: unknown, min: number, max: number, unit: string): number | undefined {
  const path = formatPath(segments);
  if (typeof value !== 'number') {
    wrongType(ctx, segments, 'number', value, path);
    return undefined;
  }
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    report(ctx, segments, { code: 'out_of_range', value, min, max }, `${path} must be a whole number of ${unit} from ${min} to ${max}, but it is ${String(value)}.`);
    return undefined;
  }
  return value;
}

function readLockout(ctx: Context, value: unknown): LockoutPolicy {
  if (value === undefined) return DEFAULT_LOCKOUT_POLICY;
  if (!isRecord(value)) {
    wrongType(ctx, ['auth.lockout'], 'object', value, 'auth.lockout');
    return DEFAULT_LOCKOUT_POLICY;
  }
  for (const key of Object.keys(value)) {
    if ((LOCKOUT_KEYS as readonly string[]).includes(key)) continue;
    const suggestion = nearest(key, LOCKOUT_KEYS);
    report(
      ctx,
      ['auth.lockout', key],
      { code: 'unknown_field', field: key, suggestion },
      `auth.lockout has unknown field ${JSON.stringify(key)}${suggestion === null ? `; its fields are ${LOCKOUT_KEYS.join(', ')}.` : `; did you mean "${suggestion}"?`}`,
    );
  }
  const field = (key: keyof LockoutPolicy, max: number, unit: string): number => {
    const raw = ownField(value, key);
    if (raw === undefined) return DEFAULT_LOCKOUT_POLICY[key];
    return readWholeNumber(ctx, ['auth.lockout', key], raw, 1, max, unit) ?? DEFAULT_LOCKOUT_POLICY[key];
  };
  return {
    failedAttemptThreshold: field('failedAttemptThreshold', MAX_FAILED_ATTEMPT_THRESHOLD, 'failures'),
    lockoutPeriod: field('lockoutPeriod', MAX_ACCOUNT_LIFECYCLE_SECONDS, 'seconds'),
    consecutivePeriod: field('consecutivePeriod', MAX_ACCOUNT_LIFECYCLE_SECONDS, 'seconds'),
  };
}

function readExpiry(ctx: Context, key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  return readWholeNumber(ctx, [key], value, 1, MAX_ACCOUNT_LIFECYCLE_SECONDS, 'seconds') ?? fallback;
}

/**
 * Reads `auth.lockout` (an object; each absent key takes its default: 5 failures, 1800 s, 3600 s),
 * `auth.passwordResetLinkExpiry` (default 14400 s) and `auth.unlockAccountLinkExpiry` (default 300 s) from the
 * configuration's root object. Every value is a whole number from 1 (periods up to 365 days); a bad one is a
 * problem at its path and reads as its default.
 *
 * @param ctx - Where problems go.
 * @param root - The configuration's root object.
 * @returns The options, defaults applied.
 */
export function readAccountLifecycle(ctx: Context, root: Readonly<Record<string, unknown>>): AccountLifecycleOptions {
  return {
    lockout: readLockout(ctx, ownField(root, 'auth.lockout')),
    passwordResetLinkExpiry: readExpiry(ctx, 'auth.passwordResetLinkExpiry', ownField(root, 'auth.passwordResetLinkExpiry'), DEFAULT_PASSWORD_RESET_LINK_EXPIRY),
    unlockAccountLinkExpiry: readExpiry(ctx, 'auth.unlockAccountLinkExpiry', ownField(root, 'auth.unlockAccountLinkExpiry'), DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY),
  };
}
