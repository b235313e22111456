/**
 * `auth.sessionExpiry` (default "2160h", as the service the spec describes) and gatehouse's own
 * `auth.sessionIdleTimeout` (default "168h"): a session ends at the earlier of its written end and
 * `createdAt + expiry`, or after the idle timeout; its last-seen time is refreshed at most once a minute.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { decideSession, DEFAULT_SESSION_LIFETIME_OPTIONS, SESSION_TOUCH_INTERVAL_MS, type SessionLifetimeOptions } from '../../src/core/session-lifetime.js';

const H = 3_600_000;
const D = DEFAULT_SESSION_LIFETIME_OPTIONS;
const fresh = { createdAt: 0, expiresAt: 2160 * H, lastSeenAt: 0 };

describe('session lifetime defaults', () => {
  test.each([
    ['auth.sessionExpiry', D.expiryMs, 2160 * H],
    ['auth.sessionIdleTimeout', D.idleTimeoutMs, 168 * H],
    ['last-seen refresh interval', SESSION_TOUCH_INTERVAL_MS, 60_000],
  ])('%s', (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('decideSession', () => {
  test.each<[string, SessionLifetimeOptions, { createdAt: number; expiresAt: number; lastSeenAt: number }, number, unknown]>([
    ['just started', D, fresh, 0, { kind: 'valid', touch: false }],
    ['59 s later: no write', D, fresh, 59_999, { kind: 'valid', touch: false }],
    ['a minute later: last seen refreshed', D, fresh, 60_000, { kind: 'valid', touch: true }],
    ['used daily, day 89', D, { ...fresh, lastSeenAt: 89 * 24 * H - 1000 }, 89 * 24 * H, { kind: 'valid', touch: false }],
    ['used daily, at 2160 h', D, { ...fresh, lastSeenAt: 2160 * H - 1000 }, 2160 * H, { kind: 'ended', reason: 'expired' }],
    ['idle for 168 h', D, fresh, 168 * H, { kind: 'ended', reason: 'idle' }],
    ['idle for 168 h less a millisecond', D, fresh, 168 * H - 1, { kind: 'valid', touch: true }],
    ['no idle limit ("0")', { ...D, idleTimeoutMs: null }, fresh, 1000 * H, { kind: 'valid', touch: true }],
    ['a shorter auth.sessionExpiry applies at once', { ...D, expiryMs: 24 * H }, fresh, 24 * H, { kind: 'ended', reason: 'expired' }],
    ['a longer auth.sessionExpiry does not extend a written end', { expiryMs: 9000 * H, idleTimeoutMs: null }, fresh, 2160 * H, { kind: 'ended', reason: 'expired' }],
    ['the expiry wins over idleness at the same time', { expiryMs: 10 * H, idleTimeoutMs: 10 * H }, fresh, 10 * H, { kind: 'ended', reason: 'expired' }],
  ])('%s', (_name, options, session, now, expected) => {
    expect(decideSession(options, session, now)._unsafeUnwrap()).toStrictEqual(expected);
  });

  test.each([
    ['createdAt', { ...fresh, createdAt: Number.NaN }],
    ['expiresAt', { ...fresh, expiresAt: Number.POSITIVE_INFINITY }],
    ['lastSeenAt', { ...fresh, lastSeenAt: 'x' as unknown as number }],
  ])('invalid_input: %s', (path, session) => {
    expect(decideSession(D, session, 0)._unsafeUnwrapErr()).toStrictEqual({ code: 'invalid_input', path, expected: 'finite number' });
  });

  const times = fc.record({ createdAt: fc.nat({ max: 1e12 }), span: fc.nat({ max: 1e10 }), seen: fc.nat({ max: 1e10 }), after: fc.nat({ max: 1e11 }) });
  const options = fc.record({ expiryMs: fc.integer({ min: 60_000, max: 1e11 }), idleTimeoutMs: fc.option(fc.integer({ min: 300_000, max: 1e11 }), { nil: null }) });

  // Oracle: the documented rule, evaluated directly.
  test.prop([times, options])('matches the documented rule and never throws', (t, o) => {
    const session = { createdAt: t.createdAt, expiresAt: t.createdAt + t.span, lastSeenAt: t.createdAt + t.seen };
    const now = t.createdAt + t.after;
    const expired = now >= Math.min(session.expiresAt, session.createdAt + o.expiryMs);
    const idle = o.idleTimeoutMs !== null && now - session.lastSeenAt >= o.idleTimeoutMs;
    const d = decideSession(o, session, now)._unsafeUnwrap();
    expect(d).toStrictEqual(expired ? { kind: 'ended', reason: 'expired' } : idle ? { kind: 'ended', reason: 'idle' } : { kind: 'valid', touch: now - session.lastSeenAt >= 60_000 });
  });

  test.prop([times, options])('a refreshed session never ends by idleness within the interval', (t, o) => {
    const session = { createdAt: t.createdAt, expiresAt: t.createdAt + 1e12, lastSeenAt: t.createdAt + t.seen };
    const now = session.lastSeenAt + (t.after % SESSION_TOUCH_INTERVAL_MS);
    const d = decideSession(o, session, now)._unsafeUnwrap();
    if (d.kind === 'ended') expect(d.reason).toBe('expired');
  });
});

describe('malformed inputs', () => {
  test.prop([fc.anything(), fc.anything()])('decideSession never throws on any session or time', (session, now) => {
    expect(() => decideSession(D, session as never, now as never)).not.toThrow();
  });
});
