/**
 * Who may rename their own account (§5.5 rule 7 validates the name; §5.3 hosta rule 2 and §5.4 rule 5 make an
 * account a site administrator created findable by a provider's username, so its name stays as given).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ACCOUNT_ORIGINS } from '../../src/core/account-directory.js';
import { decideUsernameChange } from '../../src/core/username-change.js';

describe('decideUsernameChange (§5.3 hosta rule 2, §5.4 rule 5, §5.5 rule 7)', () => {
  // the whole decision space: every origin
  test.each([
    ['admin_created', { kind: 'deny', reason: 'claimable_by_username' }],
    ['service_account', { kind: 'deny', reason: 'service_account' }],
    ['password_signup', { kind: 'allow' }],
    ['provider_signup', { kind: 'allow' }],
    ['seeded', { kind: 'allow' }],
  ] as const)('%s → %o', (origin, decision) => {
    expect(decideUsernameChange({ origin })._unsafeUnwrap()).toEqual(decision);
  });

  test('covers every origin there is', () => {
    for (const origin of ACCOUNT_ORIGINS) expect(decideUsernameChange({ origin }).isOk()).toBe(true);
  });

  test.prop([fc.anything()])('never throws; anything but an origin is invalid_input', (value) => {
    const decided = decideUsernameChange({ origin: value });
    const known = (ACCOUNT_ORIGINS as readonly unknown[]).includes(value);
    expect(decided.isOk()).toBe(known);
    if (!known) expect(decided._unsafeUnwrapErr()).toEqual({ code: 'invalid_input', path: 'origin', expected: 'account origin' });
  });
});
