import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExpired } from '../../src/core/credential-expiry.js';

describe('isExpired (§2.3, §3: a credential stops working at its expiry time, and stays stopped)', () => {
  it.each([
    { ref: 'before its expiry', expiresAt: 1_001, now: 1_000, expired: false },
    { ref: 'at its expiry', expiresAt: 1_000, now: 1_000, expired: true },
    { ref: 'after its expiry', expiresAt: 999, now: 1_000, expired: true },
    { ref: 'no expiry time', expiresAt: null, now: Number.MAX_SAFE_INTEGER, expired: false },
  ])('should say $expired $ref', ({ expiresAt, now, expired }) => {
    expect(isExpired(expiresAt, now)).toBe(expired);
  });

  it('should stay expired once expired (monotone in time)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), fc.nat(), (expiresAt, now, later) => {
        if (isExpired(expiresAt, now)) expect(isExpired(expiresAt, now + later)).toBe(true);
      }),
    );
  });
});
