import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { booleanTable } from '../../../src/core/internal/decision-table.js';
import { ACCOUNT_USES, authorizeSudo, decideAccountUse, decideOAuthAccessTokenUse } from '../../../src/index.js';

const PAIRS = [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
] as const;

describe('booleanTable', () => {
  it.each(PAIRS)('should answer (%s, %s) as the decision does, asking it once per pair in all', (a, b) => {
    const asked: string[] = [];
    const table = booleanTable((x, y) => {
      asked.push(`${String(x)},${String(y)}`);
      return { x, y };
    });
    expect(table(a, b)).toEqual({ x: a, y: b });
    expect(table(a, b)).toBe(table(a, b));
    expect([...asked].sort()).toEqual(['false,false', 'false,true', 'true,false', 'true,true']);
  });

  it('should freeze an object answer and leave a primitive or null as it is', () => {
    const table = booleanTable((a, b) => (a ? { code: 'refused' } : b ? null : 'ok'));
    expect(Object.isFrozen(table(true, false))).toBe(true);
    expect(table(false, true)).toBeNull();
    expect(table(false, false)).toBe('ok');
  });

  // model: any decision over two booleans (fast-check's fc.func is the oracle) reads back unchanged
  test.prop([fc.func(fc.oneof(fc.integer(), fc.constant(null), fc.string())), fc.boolean(), fc.boolean()])(
    'should agree with any decision it tabulates',
    (decide, a, b) => {
      expect(booleanTable(decide)(a, b)).toBe(decide(a, b));
    },
  );
});

// The decisions asked on every request read their answers from such a table: an answer is shared by every caller, so
// it must be frozen, and an answer that carries the caller's data must be a new object each time.
describe('the decisions that read a table', () => {
  it.each(ACCOUNT_USES.flatMap((use) => [true, false].map((suspended) => ({ use, suspended }))))(
    'decideAccountUse($suspended, $use) should give one frozen answer',
    (input) => {
      const answer = decideAccountUse(input);
      expect(Object.isFrozen(answer)).toBe(true);
      expect(decideAccountUse({ ...input })).toBe(answer);
    },
  );

  it.each([
    { scopes: ['user:all'], siteAdmin: true, code: 'missing_sudo_scope' },
    { scopes: ['site-admin:sudo'], siteAdmin: false, code: 'owner_not_site_admin' },
  ])('authorizeSudo should refuse $code with a frozen error', ({ scopes, siteAdmin, code }) => {
    const refused = authorizeSudo({ token: { scopes: scopes as never }, tokenOwner: { siteAdmin }, target: { id: '1' } });
    expect(refused._unsafeUnwrapErr()).toEqual({ code });
    expect(Object.isFrozen(refused._unsafeUnwrapErr())).toBe(true);
  });

  it('decideOAuthAccessTokenUse should answer a refusal frozen, and an allow as a new object with its own scopes', () => {
    const record = { tokenHash: 'h', familyId: 'f', clientId: 'c', userId: 'u', scopes: ['user:all'], expiresAt: 10, familyRevoked: false };
    const expired = decideOAuthAccessTokenUse({ now: 10, record })._unsafeUnwrap();
    expect(expired).toEqual({ kind: 'deny', reason: 'expired' });
    expect(Object.isFrozen(expired)).toBe(true);
    const first = decideOAuthAccessTokenUse({ now: 9, record })._unsafeUnwrap();
    const second = decideOAuthAccessTokenUse({ now: 9, record })._unsafeUnwrap();
    expect(first).toEqual({ kind: 'allow', userId: 'u', clientId: 'c', scopes: ['user:all'] });
    expect(first).not.toBe(second);
    expect(first.kind === 'allow' && first.scopes).not.toBe(record.scopes);
  });
});
