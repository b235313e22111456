import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS,
  clientNetwork,
  decidePendingSignIn,
  DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
  purgeCutoffs,
  type PendingSignInDecision,
} from '../../src/core/quotas.js';

describe('decidePendingSignIn', () => {
  /** The model: one row per combination of "the client is at its bound" and "the server is at its bound". */
  const model: readonly { clientFull: boolean; totalFull: boolean; expected: PendingSignInDecision['kind'] }[] = [
    { clientFull: false, totalFull: false, expected: 'store' },
    { clientFull: false, totalFull: true, expected: 'refuse' },
    { clientFull: true, totalFull: false, expected: 'replace_oldest' },
    { clientFull: true, totalFull: true, expected: 'replace_oldest' },
  ];

  it.each(model)('should decide $expected when clientFull=$clientFull, totalFull=$totalFull', ({ clientFull, totalFull, expected }) => {
    const input = { pendingForClient: clientFull ? 3 : 2, pendingTotal: totalFull ? 10 : 9, maxPerClient: 3, maxTotal: 10 };
    expect(decidePendingSignIn(input)).toStrictEqual(ok({ kind: expected }));
  });

  test.prop([fc.nat(200), fc.nat(2000), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 2000 })])(
    'should equal the model for every count, and never refuse a client that holds one to replace',
    (pendingForClient, extra, maxPerClient, maxTotal) => {
      const pendingTotal = pendingForClient + extra;
      const row = model.find((r) => r.clientFull === pendingForClient >= maxPerClient && r.totalFull === pendingTotal >= maxTotal);
      expect(decidePendingSignIn({ pendingForClient, pendingTotal, maxPerClient, maxTotal })).toStrictEqual(ok({ kind: row?.expected }));
    },
  );

  it.each([
    { ref: 'negative count', input: { pendingForClient: -1, pendingTotal: 0, maxPerClient: 1, maxTotal: 1 }, field: 'pendingForClient' },
    { ref: 'zero bound', input: { pendingForClient: 0, pendingTotal: 0, maxPerClient: 0, maxTotal: 1 }, field: 'maxPerClient' },
    { ref: 'fractional total', input: { pendingForClient: 0, pendingTotal: 0.5, maxPerClient: 1, maxTotal: 1 }, field: 'pendingTotal' },
    { ref: 'NaN bound', input: { pendingForClient: 0, pendingTotal: 0, maxPerClient: 1, maxTotal: Number.NaN }, field: 'maxTotal' },
  ])('should refuse $ref', ({ input, field }) => {
    expect(decidePendingSignIn(input)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  test.prop([fc.anything(), fc.anything(), fc.anything(), fc.anything()])('should never throw', (a, b, c, d) => {
    const input = { pendingForClient: a, pendingTotal: b, maxPerClient: c, maxTotal: d } as unknown as Parameters<typeof decidePendingSignIn>[0];
    expect(() => decidePendingSignIn(input)).not.toThrow();
  });
});

describe('purgeCutoffs', () => {
  it('should purge sessions at expiry, codes after the replay grace and audit entries after the retention', () => {
    const now = 100 * 86_400_000;
    expect(purgeCutoffs({ now, auditRetentionDays: 90 })).toStrictEqual(
      ok({ sessionsExpiredBy: now, authorizationCodesExpiredBy: now - AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS * 1000, auditBefore: 10 * 86_400_000 }),
    );
  });

  it.each([
    { ref: 'retention zero', input: { now: 0, auditRetentionDays: 0 }, field: 'auditRetentionDays' },
    { ref: 'time not finite', input: { now: Infinity, auditRetentionDays: 1 }, field: 'now' },
  ])('should refuse $ref', ({ input, field }) => {
    expect(purgeCutoffs(input)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  it('should hold 50 sessions per account by default', () => {
    expect(DEFAULT_MAX_SESSIONS_PER_ACCOUNT).toBe(50);
  });
});

describe('clientNetwork', () => {
  it.each([
    { input: '203.0.113.7', expected: '203.0.113.7' },
    { input: '::ffff:203.0.113.7', expected: '203.0.113.7' },
    { input: '::FFFF:cb00:7107', expected: '203.0.113.7' },
    { input: '0:0:0:0:0:ffff:203.0.113.7', expected: '203.0.113.7' },
    { input: '2001:db8:1:2:aaaa:bbbb:cccc:1', expected: '2001:db8:1:2::/64' },
    { input: '2001:DB8:0001:0002::1', expected: '2001:db8:1:2::/64' },
    { input: '2001:db8::1', expected: '2001:db8:0:0::/64' },
    { input: 'fe80::1%eth0', expected: 'fe80:0:0:0::/64' },
    { input: '::1', expected: '0:0:0:0::/64' },
    { input: '64:ff9b::198.51.100.7', expected: '64:ff9b:0:0::/64' },
    { input: 'unknown', expected: 'unknown' },
    { input: '1:2:3', expected: '1:2:3' },
  ])('should map $input to $expected', ({ input, expected }) => {
    expect(clientNetwork(input)).toStrictEqual(ok(expected));
  });

  test.prop([fc.ipV6(), fc.array(fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16)), { minLength: 4, maxLength: 4 })])(
    'should map every address of one /64 alike, and never throw',
    (address, low) => {
      const groups = clientNetwork(address)._unsafeUnwrap();
      // an IPv4-mapped address (prefix 0:0:0:0, then 0:ffff) counts as its IPv4 address instead
      if (!groups.endsWith('::/64') || groups === '0:0:0:0::/64') return;
      const prefix = groups.slice(0, -'::/64'.length);
      expect(clientNetwork(`${prefix}:${low.join(':')}`)).toStrictEqual(ok(groups));
    },
  );

  test.prop([fc.string()])('should be total and bounded on any string', (s) => {
    expect(clientNetwork(s)._unsafeUnwrap().length).toBeLessThanOrEqual(64);
  });
});
