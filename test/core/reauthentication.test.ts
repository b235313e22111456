/**
 * Re-authentication before sensitive changes (a first password, an email, a `site-admin:sudo` token): a sign-in
 * within ten minutes, or the current password.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { decideReauthentication, REAUTHENTICATION_WINDOW_MS, signedInRecently } from '../../src/core/reauthentication.js';

const MIN = 60_000;
const NOW = 1_000 * MIN;

describe('decideReauthentication (the whole decision space)', () => {
  const signIns = [
    ['signed in just now', NOW],
    ['9 min 59 s ago', NOW - 10 * MIN + 1000],
    ['exactly 10 min ago', NOW - 10 * MIN],
    ['an hour ago', NOW - 60 * MIN],
    ['no session', null],
    ['a sign-in time in the future', NOW + MIN],
  ] as const;
  const recent = new Set<number | null>([NOW, NOW - 10 * MIN + 1000]);
  const rows = signIns.flatMap(([when, signedInAt]) =>
    [true, false].flatMap((hasPassword) =>
      (['absent', 'correct', 'wrong'] as const).map((password) => {
        const expected = recent.has(signedInAt)
          ? { kind: 'allow', by: 'recent_sign_in' }
          : !hasPassword
            ? { kind: 'refuse', reason: 'sign_in_again' }
            : password === 'correct'
              ? { kind: 'allow', by: 'password' }
              : password === 'wrong'
                ? { kind: 'refuse', reason: 'wrong_password' }
                : { kind: 'refuse', reason: 'password_required' };
        return [`${when}, ${hasPassword ? 'has a password' : 'no password'}, password ${password}`, signedInAt, hasPassword, password, expected] as const;
      }),
    ),
  );

  test.each(rows)('%s', (_name, signedInAt, hasPassword, password, expected) => {
    expect(decideReauthentication({ now: NOW, signedInAt, hasPassword, password })._unsafeUnwrap()).toStrictEqual(expected);
  });

  test.each([
    ['now', { now: Number.NaN, signedInAt: 0, hasPassword: true, password: 'absent' as const }],
    ['signedInAt', { now: 0, signedInAt: Number.NaN, hasPassword: true, password: 'absent' as const }],
    ['hasPassword', { now: 0, signedInAt: 0, hasPassword: 1 as unknown as boolean, password: 'absent' as const }],
    ['password', { now: 0, signedInAt: 0, hasPassword: true, password: 'hunter2' as unknown as 'absent' }],
  ])('invalid_input: %s', (path, input) => {
    expect(decideReauthentication(input)._unsafeUnwrapErr()).toMatchObject({ code: 'invalid_input', path });
  });

  test.prop([fc.integer(), fc.option(fc.integer(), { nil: null }), fc.boolean(), fc.constantFrom('absent', 'correct', 'wrong' as const)])(
    'a recent sign-in never needs the password; an old one never passes without a correct password',
    (now, signedInAt, hasPassword, password) => {
      const d = decideReauthentication({ now, signedInAt, hasPassword, password })._unsafeUnwrap();
      const isRecent = signedInAt !== null && signedInAt <= now && now - signedInAt < REAUTHENTICATION_WINDOW_MS;
      expect(signedInRecently(now, signedInAt)).toBe(isRecent);
      if (isRecent) expect(d).toStrictEqual({ kind: 'allow', by: 'recent_sign_in' });
      else expect(d.kind === 'allow').toBe(hasPassword && password === 'correct');
    },
  );
});

describe('malformed inputs', () => {
  test.prop([fc.anything()])('decideReauthentication never throws on any input', (input) => {
    expect(() => decideReauthentication(input as never)).not.toThrow();
  });
});
