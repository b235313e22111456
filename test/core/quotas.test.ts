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
  /**
   * The model: one row per combination of "the client is at its bound", "the server is at its bound" and "some
   * network holds more than the client will with the new one".
   */
  const model: readonly { clientFull: boolean; totalFull: boolean; heavier: boolean; expected: PendingSignInDecision['kind'] }[] = [
    { clientFull: false, totalFull: false, heavier: false, expected: 'store' },
    { clientFull: false, totalFull: false, heavier: true, expected: 'store' },
    { clientFull: false, totalFull: true, heavier: false, expected: 'refuse' },
    { clientFull: false, totalFull: true, heavier: true, expected: 'replace_heaviest_oldest' },
    { clientFull: true, totalFull: false, heavier: false, expected: 'replace_oldest' },
    { clientFull: true, totalFull: true, heavier: false, expected: 'replace_oldest' },
  ];

  it.each(model)('should decide $expected when clientFull=$clientFull, totalFull=$totalFull, heavier=$heavier', ({ clientFull, totalFull, heavier, expected }) => {
    const pendingForClient = clientFull ? 3 : 1;
    const input = { pendingForClient, pendingForHeaviestClient: heavier ? 3 : pendingForClient, pendingTotal: totalFull ? 10 : 9, maxPerClient: 3, maxTotal: 10 };
    expect(decidePendingSignIn(input)).toStrictEqual(ok({ kind: expected }));
  });

  it('should take a place from a flooding network for a newcomer, but never make a network lighter than the newcomer (server-wide bound)', () => {
    const full = { pendingTotal: 9, maxPerClient: 3, maxTotal: 9 };
    expect(decidePendingSignIn({ ...full, pendingForClient: 0, pendingForHeaviestClient: 3 })).toStrictEqual(ok({ kind: 'replace_heaviest_oldest' }));
    expect(decidePendingSignIn({ ...full, pendingForClient: 0, pendingForHeaviestClient: 2 })).toStrictEqual(ok({ kind: 'replace_heaviest_oldest' }));
    // the heaviest would hold 0 and the newcomer 1: the places only change hands, so refuse
    expect(decidePendingSignIn({ ...full, pendingForClient: 0, pendingForHeaviestClient: 1 })).toStrictEqual(ok({ kind: 'refuse' }));
    expect(decidePendingSignIn({ ...full, pendingForClient: 1, pendingForHeaviestClient: 2 })).toStrictEqual(ok({ kind: 'refuse' }));
  });

  test.prop([fc.nat(200), fc.nat(200), fc.nat(2000), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 2000 })])(
    'should equal the model for every count, and never refuse a client that holds one to replace',
    (pendingForClient, heavierBy, extra, maxPerClient, maxTotal) => {
      const pendingForHeaviestClient = pendingForClient + heavierBy;
      const pendingTotal = pendingForHeaviestClient + extra;
      const clientFull = pendingForClient >= maxPerClient && pendingForClient > 0;
      const totalFull = pendingTotal >= maxTotal;
      const heavier = pendingForHeaviestClient > pendingForClient + 1;
      const row = model.find((r) => r.clientFull === clientFull && r.totalFull === totalFull && (clientFull || r.heavier === heavier));
      const decision = decidePendingSignIn({ pendingForClient, pendingForHeaviestClient, pendingTotal, maxPerClient, maxTotal });
      expect(decision).toStrictEqual(ok({ kind: row?.expected }));
      // whoever loses a place still holds at least as many as the newcomer then does
      if (decision.isOk() && decision.value.kind === 'replace_heaviest_oldest') expect(pendingForHeaviestClient - 1).toBeGreaterThanOrEqual(pendingForClient + 1);
    },
  );

  it.each([
    { ref: 'negative count', input: { pendingForClient: -1, pendingForHeaviestClient: 0, pendingTotal: 0, maxPerClient: 1, maxTotal: 1 }, field: 'pendingForClient' },
    { ref: 'heaviest below the client', input: { pendingForClient: 2, pendingForHeaviestClient: 1, pendingTotal: 3, maxPerClient: 5, maxTotal: 5 }, field: 'pendingForHeaviestClient' },
    { ref: 'zero bound', input: { pendingForClient: 0, pendingForHeaviestClient: 0, pendingTotal: 0, maxPerClient: 0, maxTotal: 1 }, field: 'maxPerClient' },
    { ref: 'fractional total', input: { pendingForClient: 0, pendingForHeaviestClient: 0, pendingTotal: 0.5, maxPerClient: 1, maxTotal: 1 }, field: 'pendingTotal' },
    { ref: 'NaN bound', input: { pendingForClient: 0, pendingForHeaviestClient: 0, pendingTotal: 0, maxPerClient: 1, maxTotal: Number.NaN }, field: 'maxTotal' },
  ])('should refuse $ref', ({ input, field }) => {
    expect(decidePendingSignIn(input)).toStrictEqual(err({ code: 'invalid_input', field }));
  });

  test.prop([fc.anything(), fc.anything(), fc.anything(), fc.anything(), fc.anything()])('should never throw', (a, b, c, d, e) => {
    const input = { pendingForClient: a, pendingForHeaviestClient: e, pendingTotal: b, maxPerClient: c, maxTotal: d } as unknown as Parameters<typeof decidePendingSignIn>[0];
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
