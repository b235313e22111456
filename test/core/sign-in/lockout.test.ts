import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LOCKOUT_POLICY,
  type FailedSignInDecision,
  lockoutStatus,
  recordFailedSignIn,
  type LockoutPolicy,
  type LockoutState,
} from '../../../src/core/sign-in/lockout.js';

const T = 1_700_000_000_000;
const S = 1_000;
const open = ok({ kind: 'open' });
const state = (failures: number, lastFailureAt: number | null, lockedUntil: number | null = null): LockoutState => ({ failures, lastFailureAt, lockedUntil });

describe('DEFAULT_LOCKOUT_POLICY', () => {
  it('should have the spec service\'s defaults of auth.lockout: 5 failures, 1800 s, 3600 s', () => {
    expect(DEFAULT_LOCKOUT_POLICY).toStrictEqual({ failedAttemptThreshold: 5, lockoutPeriod: 1800, consecutivePeriod: 3600 });
  });
});

describe('lockoutStatus', () => {
  it.each([
    { ref: 'no state', input: { now: T, state: null }, expected: open },
    { ref: 'failures counted, never locked', input: { now: T, state: state(4, T) }, expected: open },
    { ref: 'locked until later', input: { now: T, state: state(0, null, T + 1) }, expected: ok({ kind: 'locked', lockedUntil: T + 1 }) },
    { ref: 'the lock ends at lockedUntil (exclusive)', input: { now: T + 1, state: state(0, null, T + 1) }, expected: open },
    { ref: 'a lock long over', input: { now: T, state: state(0, null, 0) }, expected: open },
  ])('should answer $ref', ({ input, expected }) => {
    expect(lockoutStatus(input)).toStrictEqual(expected);
  });
});

describe('recordFailedSignIn with the defaults of auth.lockout', () => {
  it.each([
    { ref: 'a first failure counts 1', input: { now: T, state: null }, expected: ok({ kind: 'counted', state: state(1, T) }) },
    { ref: 'the 4th failure in a row still counts', input: { now: T, state: state(3, T - 60 * S) }, expected: ok({ kind: 'counted', state: state(4, T) }) },
    {
      ref: 'the 5th failure within 3600 s of the 4th locks for 1800 s',
      input: { now: T, state: state(4, T - 3600 * S) },
      expected: ok({ kind: 'locked', lockedUntil: T + 1800 * S, state: state(0, null, T + 1800 * S) }),
    },
    { ref: 'a failure more than 3600 s after the last starts again at 1', input: { now: T, state: state(4, T - 3600 * S - 1) }, expected: ok({ kind: 'counted', state: state(1, T) }) },
    { ref: 'a clock that went back counts as no time elapsed', input: { now: T - 10 * S, state: state(2, T) }, expected: ok({ kind: 'counted', state: state(3, T - 10 * S) }) },
    { ref: 'a locked account is left as it is', input: { now: T, state: state(0, null, T + 5) }, expected: ok({ kind: 'counted', state: state(0, null, T + 5) }) },
    { ref: 'after the lock ends the count starts again', input: { now: T, state: state(0, null, T) }, expected: ok({ kind: 'counted', state: state(1, T) }) },
  ])('should decide: $ref', ({ input, expected }) => {
    expect(recordFailedSignIn(input)).toStrictEqual(expected);
  });

  it('should lock on the 5th of five failures a minute apart, and not before', () => {
    let current: LockoutState | null = null;
    const kinds: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const decided: FailedSignInDecision = recordFailedSignIn({ now: T + i * 60 * S, state: current })._unsafeUnwrap();
      kinds.push(decided.kind);
      current = decided.state;
    }
    expect(kinds).toStrictEqual(['counted', 'counted', 'counted', 'counted', 'locked']);
    expect(lockoutStatus({ now: T + 4 * 60 * S + 1799 * S, state: current })).toStrictEqual(ok({ kind: 'locked', lockedUntil: T + 4 * 60 * S + 1800 * S }));
    expect(lockoutStatus({ now: T + 4 * 60 * S + 1800 * S, state: current })).toStrictEqual(open);
  });
});

describe('lockout input checks', () => {
  it.each([
    { ref: 'not an object', input: null, field: 'input' },
    { ref: 'now not finite', input: { now: Number.NaN, state: null }, field: 'now' },
    { ref: 'state not an object', input: { now: T, state: 3 }, field: 'state' },
    { ref: 'negative failures', input: { now: T, state: { failures: -1, lastFailureAt: null, lockedUntil: null } }, field: 'state.failures' },
    { ref: 'fractional failures', input: { now: T, state: { failures: 1.5, lastFailureAt: null, lockedUntil: null } }, field: 'state.failures' },
    { ref: 'lastFailureAt a string', input: { now: T, state: { failures: 1, lastFailureAt: '1', lockedUntil: null } }, field: 'state.lastFailureAt' },
    { ref: 'lockedUntil infinite', input: { now: T, state: { failures: 1, lastFailureAt: null, lockedUntil: Infinity } }, field: 'state.lockedUntil' },
    { ref: 'policy not an object', input: { now: T, state: null, policy: 'x' }, field: 'policy' },
    { ref: 'threshold 0', input: { now: T, state: null, policy: { ...DEFAULT_LOCKOUT_POLICY, failedAttemptThreshold: 0 } }, field: 'policy.failedAttemptThreshold' },
    { ref: 'lockoutPeriod 0', input: { now: T, state: null, policy: { ...DEFAULT_LOCKOUT_POLICY, lockoutPeriod: 0 } }, field: 'policy.lockoutPeriod' },
    { ref: 'consecutivePeriod fractional', input: { now: T, state: null, policy: { ...DEFAULT_LOCKOUT_POLICY, consecutivePeriod: 0.5 } }, field: 'policy.consecutivePeriod' },
  ])('should refuse $ref with invalid_input at $field', ({ input, field }) => {
    // the cases feed malformed values on purpose, as a caller without types could
    const raw = input as unknown as Parameters<typeof recordFailedSignIn>[0];
    expect(recordFailedSignIn(raw)).toStrictEqual(err({ code: 'invalid_input', field }));
    expect(lockoutStatus(raw)).toStrictEqual(err({ code: 'invalid_input', field }));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Properties against an independent oracle: the history of failures replayed from scratch.

const policyArb: fc.Arbitrary<LockoutPolicy> = fc.record(
  { failedAttemptThreshold: fc.integer({ min: 1, max: 8 }), lockoutPeriod: fc.integer({ min: 1, max: 50 }), consecutivePeriod: fc.integer({ min: 1, max: 50 }) },
  { noNullPrototype: true },
);
/** Gaps between attempts, in seconds (0 to 120), so windows and locks are crossed often. */
const gapsArb = fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 40 });

/**
 * The oracle: walks the attempt times, and for each one decides from the whole history of counted failures
 * (written as a list, not a counter): a locked account ignores the attempt; otherwise failures whose previous one
 * is more than `consecutivePeriod` earlier cut the run, and the run's length reaching the threshold locks.
 */
function oracle(times: readonly number[], policy: LockoutPolicy): { locks: number[]; lockedAt: (t: number) => boolean } {
  const locks: number[] = [];
  let run: number[] = [];
  let lockedUntil = -Infinity;
  for (const t of times) {
    if (t < lockedUntil) continue;
    const previous = run.at(-1);
    if (previous !== undefined && t - previous > policy.consecutivePeriod * 1000) run = [];
    run = [...run, t];
    if (run.length >= policy.failedAttemptThreshold) {
      lockedUntil = t + policy.lockoutPeriod * 1000;
      locks.push(lockedUntil);
      run = [];
    }
  }
  return { locks, lockedAt: (t) => t < lockedUntil };
}

describe('lockout properties', () => {
  test.prop([policyArb, gapsArb])('should lock exactly when the oracle of the failure history does, until the same time', (policy, gaps) => {
    const times = gaps.reduce<number[]>((acc, gap) => [...acc, (acc.at(-1) ?? T) + gap * S], []);
    const expected = oracle(times, policy);
    let current: LockoutState | null = null;
    const locks: number[] = [];
    for (const t of times) {
      const decided: FailedSignInDecision = recordFailedSignIn({ now: t, state: current, policy })._unsafeUnwrap();
      if (decided.kind === 'locked') locks.push(decided.lockedUntil);
      current = decided.state;
    }
    expect(locks).toStrictEqual(expected.locks);
    const last = times.at(-1) ?? T;
    for (const probe of [last, last + 1, last + policy.lockoutPeriod * S - 1, last + policy.lockoutPeriod * S]) {
      expect(lockoutStatus({ now: probe, state: current })._unsafeUnwrap().kind).toBe(expected.lockedAt(probe) ? 'locked' : 'open');
    }
  });

  test.prop([policyArb, fc.integer({ min: 0, max: 2 * T }), fc.integer({ min: 1, max: 1_000_000 })])(
    'should never extend a lock: failures while locked leave the state as it is (idempotent)',
    (policy, now, ahead) => {
      const locked = state(0, null, now + ahead);
      const once = recordFailedSignIn({ now, state: locked, policy })._unsafeUnwrap();
      const twice = recordFailedSignIn({ now, state: once.state, policy })._unsafeUnwrap();
      expect(once).toStrictEqual({ kind: 'counted', state: locked });
      expect(twice).toStrictEqual(once);
    },
  );

  test.prop([fc.anything(), fc.anything()])('should never throw, whatever it is given', (now, stored) => {
    const raw = { now, state: stored } as unknown as Parameters<typeof recordFailedSignIn>[0];
    expect(() => recordFailedSignIn(raw)).not.toThrow();
    expect(() => lockoutStatus(raw)).not.toThrow();
    expect(() => recordFailedSignIn(stored as Parameters<typeof recordFailedSignIn>[0])).not.toThrow();
  });

  test.prop([policyArb, fc.integer({ min: 0, max: 2 * T }), fc.nat({ max: 20 }), fc.option(fc.integer({ min: 0, max: 2 * T }), { nil: null })])(
    'should keep the count below the threshold and lock only forward in time',
    (policy, now, failures, last) => {
      const decided: FailedSignInDecision = recordFailedSignIn({ now, state: state(failures, last), policy })._unsafeUnwrap();
      expect(decided.state.failures).toBeLessThan(policy.failedAttemptThreshold);
      if (decided.kind === 'locked') expect(decided.lockedUntil).toBe(now + policy.lockoutPeriod * S);
    },
  );
});
