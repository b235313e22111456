/**
 * How long a browser session lasts: the site options `auth.sessionExpiry` (from sign-in, the name and default of
 * the service the spec describes, `"2160h"`) and gatehouse's own `auth.sessionIdleTimeout` (since the session last
 * served a request; default `"168h"`, the seven days sessions lasted before the options existed). The session's
 * last-seen time is refreshed at most once a {@link SESSION_TOUCH_INTERVAL_MS}, so browsing does not write on
 * every request.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';

/**
 * The parsed session options, in milliseconds.
 *
 * @example
 * ```ts
 * const options: SessionLifetimeOptions = { expiryMs: 3_600_000, idleTimeoutMs: null };
 * ```
 */
export interface SessionLifetimeOptions {
  /** `auth.sessionExpiry`: how long a session lasts from sign-in. */
  readonly expiryMs: number;
  /** `auth.sessionIdleTimeout`: how long a session lasts unused; `null` when the option is `"0"` (no idle limit). */
  readonly idleTimeoutMs: number | null;
}

/**
 * How stale a session's last-seen time may grow before a request refreshes it (one minute).
 *
 * @example
 * ```ts
 * SESSION_TOUCH_INTERVAL_MS; // 60_000
 * ```
 */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;

/**
 * The shortest `auth.sessionIdleTimeout` accepted (five minutes): the last-seen time lags a request by up to
 * {@link SESSION_TOUCH_INTERVAL_MS}, so a shorter timeout would end sessions that are in use.
 *
 * @example
 * ```ts
 * MIN_SESSION_IDLE_TIMEOUT_MS; // 300_000
 * ```
 */
export const MIN_SESSION_IDLE_TIMEOUT_MS: number = 5 * SESSION_TOUCH_INTERVAL_MS;

/**
 * The shortest `auth.sessionExpiry` accepted (one minute).
 *
 * @example
 * ```ts
 * MIN_SESSION_EXPIRY_MS; // 60_000
 * ```
 */
export const MIN_SESSION_EXPIRY_MS = 60_000;

/**
 * The defaults: sessions last 2160 hours (90 days) from sign-in and end after 168 hours (7 days) unused.
 *
 * @example
 * ```ts
 * DEFAULT_SESSION_LIFETIME_OPTIONS.expiryMs; // 2160 * 3_600_000
 * ```
 */
export const DEFAULT_SESSION_LIFETIME_OPTIONS: SessionLifetimeOptions = Object.freeze({ expiryMs: 2160 * 3_600_000, idleTimeoutMs: 168 * 3_600_000 });

/**
 * A stored session's times, milliseconds since the epoch.
 *
 * @example
 * ```ts
 * const s: SessionTimes = { createdAt: 0, expiresAt: 7_776_000_000, lastSeenAt: 0 };
 * ```
 */
export interface SessionTimes {
  /** When the session started (the sign-in). */
  readonly createdAt: number;
  /** The end written when it started (the expiry in force then). */
  readonly expiresAt: number;
  /** When it last served a request (coarse: refreshed at most once a minute). */
  readonly lastSeenAt: number;
}

/**
 * The decision on a session presented at a time: valid (and whether to refresh its last-seen time), or ended —
 * past its expiry (`expired`: the one written at sign-in, or a shorter `auth.sessionExpiry` applied since) or
 * unused too long (`idle`).
 *
 * @example
 * ```ts
 * const d: SessionDecision = { kind: 'valid', touch: false };
 * ```
 */
export type SessionDecision = { readonly kind: 'valid'; readonly touch: boolean } | { readonly kind: 'ended'; readonly reason: 'expired' | 'idle' };

/**
 * A malformed input: a time that is not a finite number.
 *
 * @example
 * ```ts
 * const e: SessionDecisionError = { code: 'invalid_input', path: 'lastSeenAt', expected: 'finite number' };
 * ```
 */
export type SessionDecisionError = {
  readonly code: 'invalid_input';
  readonly path: 'createdAt' | 'expiresAt' | 'lastSeenAt' | 'now';
  readonly expected: 'finite number';
};

/**
 * Decides whether a session still signs its browser in. It has ended when `now` reaches the earlier of the end
 * written at sign-in and `createdAt + expiryMs` (a shorter `auth.sessionExpiry` applies at once to every
 * session; a longer one to sessions started after it), or when `now - lastSeenAt` reaches `idleTimeoutMs`. A
 * valid session is touched when its last-seen time is {@link SESSION_TOUCH_INTERVAL_MS} old or older. Never
 * throws.
 *
 * @param options - The parsed session options.
 * @param session - The stored times.
 * @param now - The clock's time.
 * @returns The decision, or `invalid_input`.
 *
 * @example
 * ```ts
 * decideSession(DEFAULT_SESSION_LIFETIME_OPTIONS, { createdAt: 0, expiresAt: 7_776_000_000, lastSeenAt: 0 }, 8 * 86_400_000);
 * // ok({ kind: 'ended', reason: 'idle' })
 * ```
 */
export function decideSession(options: SessionLifetimeOptions, session: SessionTimes, now: number): Result<SessionDecision, SessionDecisionError> {
  // a malformed input is refused field by field, never thrown on
  const times: Partial<SessionTimes> = typeof session === 'object' && session !== null ? session : {};
  for (const [path, value] of [['createdAt', times.createdAt], ['expiresAt', times.expiresAt], ['lastSeenAt', times.lastSeenAt], ['now', now]] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return err({ code: 'invalid_input', path, expected: 'finite number' });
  }
  const end = Math.min(session.expiresAt, session.createdAt + options.expiryMs);
  if (now >= end) return ok({ kind: 'ended', reason: 'expired' });
  if (options.idleTimeoutMs !== null && now - session.lastSeenAt >= options.idleTimeoutMs) return ok({ kind: 'ended', reason: 'idle' });
  return ok({ kind: 'valid', touch: now - session.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS });
}
