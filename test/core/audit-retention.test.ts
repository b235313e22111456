import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  auditCoalescingKey,
  auditRetentionCutoff,
  DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS,
  DEFAULT_AUDIT_RETENTION_DAYS,
  type CoalescableAuditFacts,
} from '../../src/core/audit-retention.js';

const unsupported: CoalescableAuditFacts = {
  entity: 'auth.accessToken',
  action: 'failed',
  reason: 'invalid Authorization header',
  actorUserId: null,
  subjectUserId: null,
  details: { scheme: 'basic', clientAddress: '203.0.113.7' },
};
const keyOf = (entry: CoalescableAuditFacts, client: string, at: number, windowSeconds = 60): string | null =>
  auditCoalescingKey({ entry, client, at, windowSeconds })._unsafeUnwrap();

describe('auditCoalescingKey', () => {
  it('should give the §6 rule 1 entry a key and every other entry none (§6 rule 1)', () => {
    expect(keyOf(unsupported, '203.0.113.7', 0)).not.toBeNull();
    for (const other of [
      { ...unsupported, action: 'sudo' },
      { ...unsupported, entity: 'auth.session' },
      { ...unsupported, reason: 'invalid username or password' },
      { ...unsupported, actorUserId: '1' },
      { ...unsupported, subjectUserId: '1' },
    ]) {
      expect(keyOf(other, '203.0.113.7', 0)).toBeNull();
    }
  });

  it('should give equal keys within one aligned window whatever the scheme, and different keys across windows and clients (§6 rule 1)', () => {
    const k = keyOf(unsupported, '203.0.113.7', 60_000);
    expect(keyOf(unsupported, '203.0.113.7', 119_999)).toBe(k);
    expect(keyOf(unsupported, '203.0.113.7', 120_000)).not.toBe(k);
    expect(keyOf(unsupported, '203.0.113.7', 59_999)).not.toBe(k);
    expect(keyOf(unsupported, '203.0.113.8', 60_000)).not.toBe(k);
    // the scheme is not part of the key: rotating schemes must not multiply the entries of one client and window
    expect(keyOf({ ...unsupported, details: { scheme: 'digest', clientAddress: '203.0.113.7' } }, '203.0.113.7', 60_000)).toBe(k);
  });

  it('should not depend on the order of the details keys', () => {
    const reordered = { ...unsupported, details: { clientAddress: '203.0.113.7', scheme: 'basic' } };
    expect(keyOf(reordered, 'c', 0)).toBe(keyOf(unsupported, 'c', 0));
  });

  it.each([
    { ref: 'time not finite', input: { entry: unsupported, client: 'c', at: Number.NaN, windowSeconds: 60 }, expected: err({ code: 'invalid_input', field: 'at' }) },
    { ref: 'zero window', input: { entry: unsupported, client: 'c', at: 0, windowSeconds: 0 }, expected: err({ code: 'invalid_input', field: 'windowSeconds' }) },
    { ref: 'fractional window', input: { entry: unsupported, client: 'c', at: 0, windowSeconds: 1.5 }, expected: err({ code: 'invalid_input', field: 'windowSeconds' }) },
  ])('should refuse $ref', ({ input, expected }) => {
    expect(auditCoalescingKey(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything(), fc.anything(), fc.anything(), fc.anything()])('should never throw on any input', (entry, client, at, windowSeconds) => {
    const input = { entry, client, at, windowSeconds } as unknown as Parameters<typeof auditCoalescingKey>[0];
    expect(() => auditCoalescingKey(input)).not.toThrow();
  });

  test.prop([fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 3600 }), fc.nat(3600 * 1000)])(
    'should give two times the same key exactly when they fall in the same window',
    (at, windowSeconds, delta) => {
      const same = Math.floor(at / (windowSeconds * 1000)) === Math.floor((at + delta) / (windowSeconds * 1000));
      expect(keyOf(unsupported, 'c', at, windowSeconds) === keyOf(unsupported, 'c', at + delta, windowSeconds)).toBe(same);
    },
  );

  it('should default to a 60-second window', () => {
    expect(DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS).toBe(60);
  });
});

describe('auditRetentionCutoff', () => {
  it('should keep entries for 90 days by default', () => {
    expect(DEFAULT_AUDIT_RETENTION_DAYS).toBe(90);
    expect(auditRetentionCutoff({ now: 100 * 86_400_000, retentionDays: DEFAULT_AUDIT_RETENTION_DAYS })).toStrictEqual(ok(10 * 86_400_000));
  });

  it.each([
    { ref: 'zero retention', input: { now: 0, retentionDays: 0 }, expected: err({ code: 'invalid_input', field: 'retentionDays' }) },
    { ref: 'infinite retention', input: { now: 0, retentionDays: Infinity }, expected: err({ code: 'invalid_input', field: 'retentionDays' }) },
    { ref: 'time not finite', input: { now: Number.NaN, retentionDays: 1 }, expected: err({ code: 'invalid_input', field: 'now' }) },
  ])('should refuse $ref', ({ input, expected }) => {
    expect(auditRetentionCutoff(input)).toStrictEqual(expected);
  });
});
