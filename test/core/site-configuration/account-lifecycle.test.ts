import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';

const json = (value: unknown): string => JSON.stringify(value);
const options = (text: string) =>
  parseSiteConfiguration(text).map((c) => ({ lockout: c.lockout, passwordResetLinkExpiry: c.passwordResetLinkExpiry, unlockAccountLinkExpiry: c.unlockAccountLinkExpiry }));
const problems = (text: string): unknown =>
  parseSiteConfiguration(text).match(
    () => [],
    (e) => e.problems.map(({ message: _m, segments: _s, ...rest }) => rest),
  );

const DEFAULTS = { lockout: { failedAttemptThreshold: 5, lockoutPeriod: 1800, consecutivePeriod: 3600 }, passwordResetLinkExpiry: 14_400, unlockAccountLinkExpiry: 300 };

describe('auth.lockout, auth.passwordResetLinkExpiry, auth.unlockAccountLinkExpiry', () => {
  it.each([
    { ref: 'absent: the spec service\'s defaults (5, 1800 s, 3600 s; 14400 s; 300 s)', input: {}, expected: DEFAULTS },
    { ref: 'an empty auth.lockout takes every default', input: { 'auth.lockout': {} }, expected: DEFAULTS },
    {
      ref: 'each key of auth.lockout alone; the others keep their defaults',
      input: { 'auth.lockout': { failedAttemptThreshold: 3 } },
      expected: { ...DEFAULTS, lockout: { ...DEFAULTS.lockout, failedAttemptThreshold: 3 } },
    },
    {
      ref: 'every key set',
      input: { 'auth.lockout': { failedAttemptThreshold: 10, lockoutPeriod: 60, consecutivePeriod: 120 }, 'auth.passwordResetLinkExpiry': 600, 'auth.unlockAccountLinkExpiry': 1 },
      expected: { lockout: { failedAttemptThreshold: 10, lockoutPeriod: 60, consecutivePeriod: 120 }, passwordResetLinkExpiry: 600, unlockAccountLinkExpiry: 1 },
    },
    {
      ref: 'the bounds: 365 days',
      input: { 'auth.lockout': { lockoutPeriod: 31_536_000 }, 'auth.passwordResetLinkExpiry': 31_536_000 },
      expected: { ...DEFAULTS, lockout: { ...DEFAULTS.lockout, lockoutPeriod: 31_536_000 }, passwordResetLinkExpiry: 31_536_000 },
    },
  ])('should read $ref', ({ input, expected }) => {
    expect(options(json(input))._unsafeUnwrap()).toStrictEqual(expected);
  });

  it.each([
    { ref: 'auth.lockout not an object', input: { 'auth.lockout': true }, expected: [{ code: 'wrong_type', expected: 'object', actual: 'boolean', path: 'auth.lockout' }] },
    {
      ref: 'a misspelt key with its suggestion',
      input: { 'auth.lockout': { failedAttemptTreshold: 3 } },
      expected: [{ code: 'unknown_field', field: 'failedAttemptTreshold', suggestion: 'failedAttemptThreshold', path: 'auth.lockout.failedAttemptTreshold' }],
    },
    { ref: 'a threshold of 0', input: { 'auth.lockout': { failedAttemptThreshold: 0 } }, expected: [{ code: 'out_of_range', value: 0, min: 1, max: 1_000_000, path: 'auth.lockout.failedAttemptThreshold' }] },
    { ref: 'a fractional period', input: { 'auth.lockout': { lockoutPeriod: 1.5 } }, expected: [{ code: 'out_of_range', value: 1.5, min: 1, max: 31_536_000, path: 'auth.lockout.lockoutPeriod' }] },
    { ref: 'a period as a string', input: { 'auth.lockout': { consecutivePeriod: '1h' } }, expected: [{ code: 'wrong_type', expected: 'number', actual: 'string', path: 'auth.lockout.consecutivePeriod' }] },
    { ref: 'a negative reset link expiry', input: { 'auth.passwordResetLinkExpiry': -1 }, expected: [{ code: 'out_of_range', value: -1, min: 1, max: 31_536_000, path: 'auth.passwordResetLinkExpiry' }] },
    { ref: 'an unlock link expiry past 365 days', input: { 'auth.unlockAccountLinkExpiry': 31_536_001 }, expected: [{ code: 'out_of_range', value: 31_536_001, min: 1, max: 31_536_000, path: 'auth.unlockAccountLinkExpiry' }] },
    { ref: 'an unlock link expiry of null', input: { 'auth.unlockAccountLinkExpiry': null }, expected: [{ code: 'wrong_type', expected: 'number', actual: 'null', path: 'auth.unlockAccountLinkExpiry' }] },
  ])('should report $ref at its path', ({ input, expected }) => {
    expect(problems(json(input))).toStrictEqual(expected);
  });

  it('should report a duplicated auth.lockout key', () => {
    expect(problems('{"auth.lockout": {}, "auth.lockout": {}}')).toStrictEqual([{ code: 'duplicate_key', key: 'auth.lockout', path: 'auth.lockout' }]);
  });

  test.prop([fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 31_536_000 }), fc.integer({ min: 1, max: 31_536_000 })])(
    'should read every whole number in range back unchanged',
    (failedAttemptThreshold, lockoutPeriod, consecutivePeriod) => {
      const input = { 'auth.lockout': { failedAttemptThreshold, lockoutPeriod, consecutivePeriod }, 'auth.unlockAccountLinkExpiry': lockoutPeriod };
      expect(options(json(input))._unsafeUnwrap()).toStrictEqual({ ...DEFAULTS, lockout: { failedAttemptThreshold, lockoutPeriod, consecutivePeriod }, unlockAccountLinkExpiry: lockoutPeriod });
    },
  );

  test.prop([fc.jsonValue()])('should never throw and either read or report auth.lockout', (value) => {
    const parsed = parseSiteConfiguration(json({ 'auth.lockout': value }));
    expect(parsed.isOk() || parsed.error.problems.every((p) => p.path.startsWith('auth.lockout'))).toBe(true);
  });
});
