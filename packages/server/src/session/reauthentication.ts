/**
 * Re-authentication before a sensitive change of one's own account (setting a first password, adding or changing
 * an email address, creating a `site-admin:sudo` token): the core's `decideReauthentication` decides from the
 * session's sign-in time and, when that is not recent, the current password given on the form. Wrong passwords
 * are throttled per account as failed sign-ins are, and each refusal is audited.
 *
 * @module
 */
import { match } from 'ts-pattern';
import { decideReauthentication, DEFAULT_SIGN_IN_THROTTLE_POLICY, MAX_PASSWORD_BYTES, signedInRecently } from 'gatehouse-auth';
import type { ReauthenticationDecision, SensitiveChange } from 'gatehouse-auth';
import { sha256Hex } from '../kernel/digest.js';
import type { AuditSink } from '../store/audited.js';
import { admitAttempt, clearFailures, type ThrottleTableSpec } from '../store/throttle.js';
import type { Store, UserRecord } from '../store/types.js';
import { verifyPassword, type SessionRequest, type Sessions } from './sessions.js';

/** Wrong passwords given to re-authenticate are throttled per account like failed sign-ins. */
const REAUTHENTICATION_THROTTLE: ThrottleTableSpec = Object.freeze({ name: 'reauthentication', policy: DEFAULT_SIGN_IN_THROTTLE_POLICY, maxEntries: 100_000 });

/**
 * What re-authentication reads and writes.
 *
 * @example
 * ```ts
 * const deps: ReauthenticationDeps = { store, now, sessions, audit };
 * ```
 */
export interface ReauthenticationDeps {
  /** The store (the throttle, the audit entry of a refusal). */
  readonly store: Store;
  /** The clock. */
  readonly now: () => number;
  /** The session layer: when the request's session signed in. */
  readonly sessions: Pick<Sessions, 'signedInAt'>;
  /** Records the audit entry of a refusal. */
  readonly audit: AuditSink;
}

/**
 * The outcome: the core's decision, or `throttled` when too many wrong passwords were given lately.
 *
 * @example
 * ```ts
 * const outcome: ReauthenticationOutcome = { kind: 'throttled', retryAfterSeconds: 4 };
 * ```
 */
export type ReauthenticationOutcome = ReauthenticationDecision | { readonly kind: 'throttled'; readonly retryAfterSeconds: number };

/**
 * Whether the request's session signed in recently enough that no password is asked (the forms show the
 * current-password field otherwise).
 *
 * @param deps - Clock and sessions.
 * @param request - The request.
 * @returns `true` within ten minutes of the session's sign-in.
 *
 * @example
 * ```ts
 * const ask = !(await recentlySignedIn(deps, ctx.request));
 * ```
 */
export async function recentlySignedIn(deps: Pick<ReauthenticationDeps, 'now' | 'sessions'>, request: SessionRequest): Promise<boolean> {
  const signedInAt = (await deps.sessions.signedInAt?.(request)) ?? null;
  return signedInRecently(deps.now(), signedInAt);
}

/**
 * Decides whether `user` may make `change` now: a recent sign-in, or the current password (`password`, from the
 * form; `null` or `''` when none was given). The password is checked only when the sign-in is not recent.
 *
 * @param deps - Store, clock, sessions and audit.
 * @param request - The request (its session cookie).
 * @param user - The signed-in account.
 * @param change - Which sensitive change (for the audit entry of a refusal).
 * @param password - The current password as typed, or `null`.
 * @returns The decision.
 *
 * @example
 * ```ts
 * const outcome = await reauthenticate(deps, ctx.request, ctx.viewer, 'first_password', form.get('current'));
 * if (outcome.kind !== 'allow') return refuse(403, reauthenticationMessage(outcome));
 * ```
 */
export async function reauthenticate(
  deps: ReauthenticationDeps,
  request: SessionRequest,
  user: UserRecord,
  change: SensitiveChange,
  password: string | null,
): Promise<ReauthenticationOutcome> {
  const now = deps.now();
  const signedInAt = (await deps.sessions.signedInAt?.(request)) ?? null;
  const given = password !== null && password !== '';
  let checked: 'absent' | 'correct' | 'wrong' = 'absent';
  if (!signedInRecently(now, signedInAt) && given && user.passwordHash !== null) {
    const slot = { table: REAUTHENTICATION_THROTTLE, key: sha256Hex(`reauthentication\u0000${user.id}`) };
    const checks = await admitAttempt(deps.store, { slots: [slot], failOpen: [false] }, now);
    const wait = checks.reduce((most, c) => (c.kind === 'allow' ? most : Math.max(most, c.retryAfterSeconds)), 0);
    if (wait > 0) return { kind: 'throttled', retryAfterSeconds: wait };
    const correct = Buffer.byteLength(password) <= MAX_PASSWORD_BYTES && (await verifyPassword(password, user.passwordHash));
    if (correct) await clearFailures(deps.store, slot, now);
    checked = correct ? 'correct' : 'wrong';
  }
  const decided = decideReauthentication({ now, signedInAt, hasPassword: user.passwordHash !== null, password: checked });
  const decision: ReauthenticationDecision = decided.isOk() ? decided.value : { kind: 'refuse', reason: 'sign_in_again' };
  if (decision.kind === 'refuse') {
    // a refusal changes nothing: it is recorded as an event
    await deps.audit(
      { entity: 'user.reauthentication', action: 'failed', reason: decision.reason, actorUserId: user.id, subjectUserId: user.id, details: { change } },
      deps.store,
    );
  }
  return decision;
}

/**
 * What to tell the person whose change re-authentication refused.
 *
 * @param outcome - A refusal or the throttle.
 * @returns A sentence.
 *
 * @example
 * ```ts
 * reauthenticationMessage({ kind: 'refuse', reason: 'password_required' });
 * // 'For your security, enter your current password: you signed in more than 10 minutes ago.'
 * ```
 */
export function reauthenticationMessage(outcome: Exclude<ReauthenticationOutcome, { readonly kind: 'allow' }>): string {
  return match(outcome)
    .returnType<string>()
    .with({ kind: 'throttled' }, (o) => `Too many wrong passwords. Try again in ${o.retryAfterSeconds} ${o.retryAfterSeconds === 1 ? 'second' : 'seconds'}.`)
    .with({ kind: 'refuse', reason: 'password_required' }, () => 'For your security, enter your current password: you signed in more than 10 minutes ago.')
    .with({ kind: 'refuse', reason: 'wrong_password' }, () => 'Your current password is not correct. Nothing was changed.')
    .with({ kind: 'refuse', reason: 'sign_in_again' }, () => 'For your security, sign out and sign in again, then make this change within 10 minutes.')
    .exhaustive();
}
