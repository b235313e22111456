import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  auditCoalescingKey,
  auditCoalescingNetwork,
  auditRetentionCutoff,
  auditWindowOf,
  coalesceAuditDetails,
  DEFAULT_AUDIT_COALESCE_MAX_NETWORKS,
  MAX_AUDITED_SCHEMES,
  OTHER_NETWORKS_CLIENT,
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

describe('auditCoalescingKey of an http-header sign-in refusal (§5.3 http-header rule 1)', () => {
  const refusal: CoalescableAuditFacts = {
    entity: 'auth.session',
    action: 'failed',
    reason: 'signup_not_allowed',
    actorUserId: null,
    subjectUserId: null,
    details: { provider: 'http-header', reference: 'K7QX2M9P', trace: '[]' },
  };

  it.each([
    { ref: 'another provider', entry: { ...refusal, details: { ...refusal.details, provider: 'hosta' } } },
    { ref: 'no reference', entry: { ...refusal, details: { provider: 'http-header', trace: '[]' } } },
    { ref: 'an empty reference', entry: { ...refusal, details: { ...refusal.details, reference: '' } } },
    { ref: 'an account involved', entry: { ...refusal, subjectUserId: '1' } },
    { ref: 'an actor', entry: { ...refusal, actorUserId: '1' } },
    { ref: 'a sign-in', entry: { ...refusal, action: 'signed_in' } },
    { ref: 'another entity', entry: { ...refusal, entity: 'auth.accessToken' } },
  ])('should not coalesce $ref', ({ entry }) => {
    expect(keyOf(entry, '203.0.113.7', 0)).toBeNull();
  });

  it('should give one key per reference code and window, whatever the client network', () => {
    const k = keyOf(refusal, '203.0.113.7', 60_000);
    expect(k).not.toBeNull();
    expect(keyOf(refusal, '198.51.100.1', 119_999)).toBe(k);
    expect(keyOf(refusal, '203.0.113.7', 120_000)).not.toBe(k);
    expect(keyOf({ ...refusal, details: { ...refusal.details, reference: 'K7QX2M9Q' } }, '203.0.113.7', 60_000)).not.toBe(k);
    expect(keyOf({ ...refusal, reason: 'username_unavailable' }, '203.0.113.7', 60_000)).not.toBe(k);
    // an untrusted peer's headers keep their own key (per client network)
    expect(keyOf({ ...refusal, reason: 'untrusted_proxy_headers', details: { provider: 'http-header' } }, '203.0.113.7', 60_000)).not.toBe(k);
  });

  test.prop([fc.string(), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 2 ** 40 }), fc.nat(120_000)])(
    'should give two refusals the same key exactly when reason, reference and window agree',
    (reason, reference, at, delta) => {
      const a = keyOf({ ...refusal, details: { ...refusal.details, reference } }, 'c', at);
      const b = keyOf({ ...refusal, reason, details: { ...refusal.details, reference } }, 'd', at + delta);
      expect(a === b).toBe(reason === refusal.reason && Math.floor(at / 60_000) === Math.floor((at + delta) / 60_000));
    },
  );
});

describe('auditCoalescingNetwork', () => {
  it.each([
    { ref: 'a known network keeps its entry, even at the bound', input: { network: 'n', known: true, networksInWindow: 3, maxNetworks: 3 }, expected: ok({ kind: 'own_entry', client: 'n' }) },
    { ref: 'a new network under the bound gets its own entry', input: { network: 'n', known: false, networksInWindow: 2, maxNetworks: 3 }, expected: ok({ kind: 'own_entry', client: 'n' }) },
    { ref: 'a new network at the bound shares other-networks', input: { network: 'n', known: false, networksInWindow: 3, maxNetworks: 3 }, expected: ok({ kind: 'other_networks', client: 'other-networks' }) },
    { ref: 'a zero bound is refused', input: { network: 'n', known: false, networksInWindow: 0, maxNetworks: 0 }, expected: err({ code: 'invalid_input', field: 'maxNetworks' }) },
    { ref: 'a negative count is refused', input: { network: 'n', known: false, networksInWindow: -1, maxNetworks: 3 }, expected: err({ code: 'invalid_input', field: 'networksInWindow' }) },
  ])('should decide: $ref (§6 rule 1)', ({ input, expected }) => {
    expect(auditCoalescingNetwork(input)).toStrictEqual(expected);
  });

  it('should default to 1,000 networks per window and name the shared entry other-networks', () => {
    expect(DEFAULT_AUDIT_COALESCE_MAX_NETWORKS).toBe(1_000);
    expect(OTHER_NETWORKS_CLIENT).toBe('other-networks');
  });

  test.prop([fc.anything()])('should never throw on any input', (input) => {
    expect(() => auditCoalescingNetwork(input as Parameters<typeof auditCoalescingNetwork>[0])).not.toThrow();
  });

  test.prop([fc.string(), fc.boolean(), fc.nat(2000), fc.integer({ min: 1, max: 2000 })])(
    'should give a network its own entry exactly when it is known or the window is under the bound',
    (network, known, networksInWindow, maxNetworks) => {
      const decision = auditCoalescingNetwork({ network, known, networksInWindow, maxNetworks })._unsafeUnwrap();
      expect(decision.kind === 'own_entry').toBe(known || networksInWindow < maxNetworks);
    },
  );
});

describe('auditWindowOf', () => {
  it('should number aligned windows', () => {
    expect([auditWindowOf(0, 60), auditWindowOf(59_999, 60), auditWindowOf(60_000, 60), auditWindowOf(120_500, 60)]).toStrictEqual([0, 0, 1, 2]);
  });
});

describe('coalesceAuditDetails', () => {
  it('should keep the first occurrence\'s details and list the distinct schemes seen, in order (§6 rule 1)', () => {
    let details: Record<string, string> = { scheme: 'basic', clientAddress: '203.0.113.7' };
    for (const scheme of ['digest', 'basic', 'other', 'digest']) details = coalesceAuditDetails(details, { scheme, clientAddress: '203.0.113.7' });
    expect(details).toStrictEqual({ scheme: 'basic', clientAddress: '203.0.113.7', schemes: 'basic,digest,other' });
  });

  it('should add no schemes detail when no scheme was seen', () => {
    expect(coalesceAuditDetails({}, {})).toStrictEqual({});
  });

  test.prop([fc.array(fc.string({ maxLength: 80 }), { minLength: 1, maxLength: 60 })])(
    'should keep the schemes detail bounded: at most 17 distinct lower-case names, the first scheme kept',
    (schemes) => {
      let details: Record<string, string> = { scheme: 'basic' };
      for (const scheme of schemes) details = coalesceAuditDetails(details, { scheme });
      expect(details['scheme']).toBe('basic');
      const names = (details['schemes'] ?? '').split(',');
      expect(names.length).toBeLessThanOrEqual(MAX_AUDITED_SCHEMES);
      expect(new Set(names).size).toBe(names.length);
      expect(names.every((n) => n === n.toLowerCase() && n.length <= 64)).toBe(true);
      expect(names[0]).toBe('basic');
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw on any input', (kept, next) => {
    expect(() => coalesceAuditDetails(kept as Record<string, string>, next as Record<string, string>)).not.toThrow();
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
