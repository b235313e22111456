import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_LINK_PURPOSES,
  accountLinkExpiry,
  decideAccountLinkUse,
  isAccountLinkToken,
  VERIFY_EMAIL_LINK_TTL_SECONDS,
  type AccountLinkPurpose,
  type AccountLinkState,
} from '../../src/core/account-link.js';

const live = (purpose: AccountLinkPurpose = 'verify_email'): AccountLinkState => ({ purpose, expiresAt: 2_000, usedAt: null });

describe('decideAccountLinkUse', () => {
  it.each([
    { ref: 'no stored link', link: null, purpose: 'verify_email', now: 0, expected: ok({ kind: 'refused', reason: 'unknown_link' }) },
    { ref: 'live, right purpose', link: live(), purpose: 'verify_email', now: 1_999, expected: ok({ kind: 'usable' }) },
    { ref: 'at its expiry (24 h links end at the instant)', link: live(), purpose: 'verify_email', now: 2_000, expected: ok({ kind: 'refused', reason: 'link_expired' }) },
    { ref: 'used', link: { ...live(), usedAt: 1_000 }, purpose: 'verify_email', now: 1_500, expected: ok({ kind: 'refused', reason: 'link_used' }) },
    { ref: 'used and expired: used first', link: { ...live(), usedAt: 1_000 }, purpose: 'verify_email', now: 9_000, expected: ok({ kind: 'refused', reason: 'link_used' }) },
    { ref: 'another purpose says nothing of its state', link: { ...live('reset_password'), usedAt: 1 }, purpose: 'verify_email', now: 9_000, expected: ok({ kind: 'refused', reason: 'wrong_purpose' }) },
    { ref: 'a purpose that is none', link: live(), purpose: 'nope', now: 0, expected: err({ code: 'invalid_input', field: 'purpose' }) },
    { ref: 'a time that is none', link: live(), purpose: 'verify_email', now: Number.NaN, expected: err({ code: 'invalid_input', field: 'now' }) },
  ])('$ref', ({ link, purpose, now, expected }) => {
    expect(decideAccountLinkUse(link, purpose as AccountLinkPurpose, now)).toStrictEqual(expected);
  });

  // the whole decision space (purpose pairs × used × expired), against an oracle written as a table
  const cases = ACCOUNT_LINK_PURPOSES.flatMap((stored) =>
    ACCOUNT_LINK_PURPOSES.flatMap((asked) => [false, true].flatMap((used) => [false, true].map((expired) => ({ stored, asked, used, expired })))),
  );
  it.each(cases)('$stored asked as $asked, used $used, expired $expired', ({ stored, asked, used, expired }) => {
    const reason = stored !== asked ? 'wrong_purpose' : used ? 'link_used' : expired ? 'link_expired' : null;
    const link: AccountLinkState = { purpose: stored, expiresAt: 1_000, usedAt: used ? 10 : null };
    expect(decideAccountLinkUse(link, asked, expired ? 1_000 : 999)).toStrictEqual(ok(reason === null ? { kind: 'usable' } : { kind: 'refused', reason }));
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw', (link, purpose, now) => {
    expect(() => decideAccountLinkUse(link as AccountLinkState, purpose as AccountLinkPurpose, now as number)).not.toThrow();
  });

  test.prop([fc.constantFrom(...ACCOUNT_LINK_PURPOSES), fc.integer(), fc.integer()])('should be usable exactly before the expiry when unused', (purpose, expiresAt, now) => {
    const decided = decideAccountLinkUse({ purpose, expiresAt, usedAt: null }, purpose, now)._unsafeUnwrap();
    expect(decided.kind === 'usable').toBe(now < expiresAt);
  });
});

describe('accountLinkExpiry and isAccountLinkToken', () => {
  it.each([
    { now: 0, ttl: VERIFY_EMAIL_LINK_TTL_SECONDS, expected: ok(86_400_000) },
    { now: 5, ttl: 300, expected: ok(300_005) },
    { now: 0, ttl: 0, expected: err({ code: 'invalid_input', field: 'ttlSeconds' }) },
    { now: Number.POSITIVE_INFINITY, ttl: 1, expected: err({ code: 'invalid_input', field: 'now' }) },
  ])('accountLinkExpiry($now, $ttl)', ({ now, ttl, expected }) => {
    expect(accountLinkExpiry(now, ttl)).toStrictEqual(expected);
  });

  it.each([
    { token: 'A'.repeat(43), expected: true },
    { token: '_-'.repeat(21) + 'a', expected: true },
    { token: 'A'.repeat(42), expected: false },
    { token: 'A'.repeat(44), expected: false },
    { token: `${'A'.repeat(42)}=`, expected: false },
    { token: null, expected: false },
  ])('isAccountLinkToken($token) is $expected', ({ token, expected }) => {
    expect(isAccountLinkToken(token)).toBe(expected);
  });

  test.prop([fc.uint8Array({ minLength: 32, maxLength: 32 })])('should accept every 32-byte token written in base64url', (bytes) => {
    expect(isAccountLinkToken(Buffer.from(bytes).toString('base64url'))).toBe(true);
  });
});
