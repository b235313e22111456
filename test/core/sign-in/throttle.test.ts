import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SIGN_IN_THROTTLE_POLICY,
  decideSignInAttempt,
  expireSignInFailures,
  recordSignInFailure,
  withdrawSignInFailure,
  type SignInFailures,
  type SignInThrottlePolicy,
} from '../../../src/core/sign-in/throttle.js';

const T = 1_700_000_000_000;
const MIN = 60_000;
const allow = ok({ kind: 'allow' });
const throttle = (retryAfterSeconds: number): ReturnType<typeof decideSignInAttempt> => ok({ kind: 'throttle', retryAfterSeconds });
const failures = (count: number, lastFailureAt = T): SignInFailures => ({ count, lastFailureAt });

/** The waits of the default policy written out by hand (seconds after the last failure), by failure count. */
const DEFAULT_WAITS: readonly (readonly [count: number, seconds: number])[] = [
  [0, 0], [1, 0], [2, 0], [3, 0], [4, 0],
  [5, 1], [6, 2], [7, 4], [8, 8], [9, 16], [10, 32], [11, 64], [12, 128], [13, 256], [14, 512],
  [15, 900], [16, 900], [40, 900], [Number.MAX_SAFE_INTEGER, 900],
];

const policyArb = fc.record(
  {
    freeFailures: fc.nat({ max: 20 }),
    baseDelayMs: fc.nat({ max: 10_000 }),
    maxDelayMs: fc.nat({ max: 2 * 3_600_000 }),
    forgetAfterMs: fc.nat({ max: 2 * 3_600_000 }),
  },
  { noNullPrototype: true },
);
const timeArb = fc.integer({ min: 0, max: 4_000_000_000_000 });
const countArb = fc.oneof(fc.nat({ max: 80 }), fc.constant(Number.MAX_SAFE_INTEGER));

describe('decideSignInAttempt', () => {
  it.each([
    { ref: '(built-in sign-in): no failures', input: { now: T, failures: null }, expected: allow },
    { ref: '(built-in sign-in): the 5 free failures cost no wait', input: { now: T, failures: failures(4) }, expected: allow },
    { ref: '(built-in sign-in): after 5 failures, 1 s', input: { now: T, failures: failures(5) }, expected: throttle(1) },
    { ref: '(built-in sign-in): after 5 failures, 1 s elapsed', input: { now: T + 1_000, failures: failures(5) }, expected: allow },
    { ref: '(built-in sign-in): doubling, 3.5 s of 4 s left', input: { now: T + 500, failures: failures(7) }, expected: throttle(4) },
    { ref: '(built-in sign-in): 1 ms left rounds up to 1 s', input: { now: T + 3_999, failures: failures(7) }, expected: throttle(1) },
    { ref: '(built-in sign-in): capped at 15 minutes', input: { now: T, failures: failures(30) }, expected: throttle(900) },
    { ref: '(built-in sign-in): forgotten after 15 quiet minutes', input: { now: T + 15 * MIN, failures: failures(30) }, expected: allow },
    { ref: '(built-in sign-in): a clock that went back counts as no time elapsed', input: { now: T - 60_000, failures: failures(6) }, expected: throttle(2) },
    {
      ref: '(built-in sign-in): a custom policy',
      input: { now: T, failures: failures(3), policy: { freeFailures: 2, baseDelayMs: 10_000, maxDelayMs: 60_000, forgetAfterMs: 3_600_000 } },
      expected: throttle(20),
    },
    {
      ref: '(built-in sign-in): no wait outlasts the quiet period',
      input: { now: T, failures: failures(9), policy: { freeFailures: 0, baseDelayMs: 60_000, maxDelayMs: 3_600_000, forgetAfterMs: 120_000 } },
      expected: throttle(120),
    },
    {
      ref: '(built-in sign-in): zero free failures throttles after the first',
      input: { now: T, failures: failures(1), policy: { freeFailures: 0, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 } },
      expected: throttle(2),
    },
    { ref: 'malformed: now', input: { now: Number.NaN, failures: null }, expected: err({ code: 'invalid_input', field: 'now' }) },
    { ref: 'malformed: failures', input: { now: T, failures: 3 }, expected: err({ code: 'invalid_input', field: 'failures' }) },
    { ref: 'malformed: negative count', input: { now: T, failures: { count: -1, lastFailureAt: T } }, expected: err({ code: 'invalid_input', field: 'failures.count' }) },
    { ref: 'malformed: fractional count', input: { now: T, failures: { count: 1.5, lastFailureAt: T } }, expected: err({ code: 'invalid_input', field: 'failures.count' }) },
    { ref: 'malformed: lastFailureAt', input: { now: T, failures: { count: 1, lastFailureAt: Infinity } }, expected: err({ code: 'invalid_input', field: 'failures.lastFailureAt' }) },
    { ref: 'malformed: policy', input: { now: T, failures: null, policy: null }, expected: err({ code: 'invalid_input', field: 'policy' }) },
    {
      ref: 'malformed: negative delay',
      input: { now: T, failures: null, policy: { freeFailures: 5, baseDelayMs: -1, maxDelayMs: 1, forgetAfterMs: 1 } },
      expected: err({ code: 'invalid_input', field: 'policy.baseDelayMs' }),
    },
    { ref: 'malformed: input', input: null, expected: err({ code: 'invalid_input', field: 'input' }) },
  ])('should follow $ref', ({ input, expected }) => {
    // @ts-expect-error -- malformed rows break the static type on purpose
    expect(decideSignInAttempt(input)).toStrictEqual(expected);
  });

  it.each(DEFAULT_WAITS.map(([count, seconds]) => ({ ref: '(built-in sign-in): default waits', count, seconds })))(
    'should make the attempt right after failure $count wait $seconds s, and allow it once they passed ($ref)',
    ({ count, seconds }) => {
      expect(decideSignInAttempt({ now: T, failures: failures(count) })).toStrictEqual(seconds === 0 ? allow : throttle(seconds));
      expect(decideSignInAttempt({ now: T + seconds * 1000 - 1, failures: failures(count) })).toStrictEqual(seconds === 0 ? allow : throttle(1));
      expect(decideSignInAttempt({ now: T + seconds * 1000, failures: failures(count) })).toStrictEqual(allow);
    },
  );

  it('should read the default policy from DEFAULT_SIGN_IN_THROTTLE_POLICY', () => {
    expect(DEFAULT_SIGN_IN_THROTTLE_POLICY).toStrictEqual({ freeFailures: 5, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 });
    expect(decideSignInAttempt({ now: T, failures: failures(8), policy: DEFAULT_SIGN_IN_THROTTLE_POLICY })).toStrictEqual(
      decideSignInAttempt({ now: T, failures: failures(8) }),
    );
  });

  test.prop([fc.anything()])('should never throw on any input', (input) => {
    // @ts-expect-error -- any value at run time
    expect(() => decideSignInAttempt(input)).not.toThrow();
    // @ts-expect-error -- any value at run time
    expect(() => decideSignInAttempt({ now: T, failures: input, policy: input })).not.toThrow();
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw on any field values', (now, failuresValue, policy) => {
    // @ts-expect-error -- any value at run time
    const result = decideSignInAttempt({ now, failures: failuresValue, policy });
    expect(result.isOk() || result.error.code === 'invalid_input').toBe(true);
  });

  test.prop([policyArb, timeArb, timeArb, countArb, countArb])(
    'should be monotonic: more failures never shorten the wait',
    (policy, lastFailureAt, now, a, b) => {
      const [fewer, more] = a <= b ? [a, b] : [b, a];
      const wait = (count: number): number => {
        const d = decideSignInAttempt({ now, failures: { count, lastFailureAt }, policy })._unsafeUnwrap();
        return d.kind === 'allow' ? 0 : d.retryAfterSeconds;
      };
      expect(wait(more)).toBeGreaterThanOrEqual(wait(fewer));
    },
  );

  test.prop([policyArb, timeArb, timeArb, countArb])('should never make anyone wait longer than the cap', (policy, lastFailureAt, now, count) => {
    const d = decideSignInAttempt({ now, failures: { count, lastFailureAt }, policy })._unsafeUnwrap();
    if (d.kind === 'throttle') {
      expect(d.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(d.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(Math.min(policy.maxDelayMs, policy.forgetAfterMs) / 1000));
    }
  });

  test.prop([policyArb, timeArb, countArb, fc.nat({ max: 3_600_000 })])(
    'should allow once the quiet period passed, whatever the count',
    (policy, lastFailureAt, count, extra) => {
      const now = lastFailureAt + policy.forgetAfterMs + extra;
      expect(decideSignInAttempt({ now, failures: { count, lastFailureAt }, policy })).toStrictEqual(allow);
    },
  );

  test.prop([policyArb, timeArb, countArb, fc.nat({ max: 3_600_000 })])(
    'should allow retrying exactly when retryAfterSeconds says (never earlier than needed, never refused after)',
    (policy, lastFailureAt, count, elapsed) => {
      const now = lastFailureAt + elapsed;
      const d = decideSignInAttempt({ now, failures: { count, lastFailureAt }, policy })._unsafeUnwrap();
      if (d.kind === 'throttle') {
        expect(decideSignInAttempt({ now: now + d.retryAfterSeconds * 1000, failures: { count, lastFailureAt }, policy })).toStrictEqual(allow);
        expect(decideSignInAttempt({ now: now + (d.retryAfterSeconds - 1) * 1000, failures: { count, lastFailureAt }, policy })._unsafeUnwrap().kind).toBe(
          'throttle',
        );
      }
    },
  );

  test.prop([policyArb.chain((p) => fc.tuple(fc.constant(p), fc.nat({ max: Math.max(0, p.freeFailures - 1) }))), timeArb])(
    'should allow every attempt within the free failures, even right after one',
    ([policy, count], now) => {
      expect(decideSignInAttempt({ now, failures: { count, lastFailureAt: now }, policy })).toStrictEqual(allow);
    },
  );
});

describe('recordSignInFailure', () => {
  it.each([
    { ref: '(built-in sign-in): first failure', input: { now: T, previous: null }, expected: ok(failures(1)) },
    { ref: '(built-in sign-in): one more', input: { now: T + 1_000, previous: failures(4) }, expected: ok(failures(5, T + 1_000)) },
    { ref: '(built-in sign-in): just inside the quiet period', input: { now: T + 15 * MIN - 1, previous: failures(9) }, expected: ok(failures(10, T + 15 * MIN - 1)) },
    { ref: '(built-in sign-in): forgotten after 15 quiet minutes', input: { now: T + 15 * MIN, previous: failures(9) }, expected: ok(failures(1, T + 15 * MIN)) },
    { ref: '(built-in sign-in): the count saturates', input: { now: T, previous: failures(Number.MAX_SAFE_INTEGER) }, expected: ok(failures(Number.MAX_SAFE_INTEGER)) },
    { ref: '(built-in sign-in): a clock that went back keeps the last failure', input: { now: T - 5_000, previous: failures(2) }, expected: ok(failures(3, T)) },
    { ref: 'malformed: previous', input: { now: T, previous: 'x' }, expected: err({ code: 'invalid_input', field: 'previous' }) },
    { ref: 'malformed: previous.count', input: { now: T, previous: { count: '1', lastFailureAt: T } }, expected: err({ code: 'invalid_input', field: 'previous.count' }) },
    { ref: 'malformed: now', input: { now: '1', previous: null }, expected: err({ code: 'invalid_input', field: 'now' }) },
  ])('should follow $ref', ({ input, expected }) => {
    // @ts-expect-error -- malformed rows break the static type on purpose
    expect(recordSignInFailure(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw on any input', (input) => {
    // @ts-expect-error -- any value at run time
    expect(() => recordSignInFailure(input)).not.toThrow();
    // @ts-expect-error -- any value at run time
    expect(() => recordSignInFailure({ now: T, previous: input, policy: input })).not.toThrow();
  });

  // A model run: failures replayed through record → decide against an independent model of the default policy.
  test.prop([fc.array(fc.nat({ max: 20 * MIN }), { minLength: 1, maxLength: 40 })])(
    'should match a model of the default policy over a sequence of failures (gaps in ms)',
    (gaps) => {
      let state: SignInFailures | null = null;
      let now = T;
      let modelCount = 0;
      let modelLast = T;
      for (const gap of gaps) {
        now += gap;
        if (modelCount > 0 && now - modelLast >= 15 * MIN) modelCount = 0;
        modelCount += 1;
        modelLast = now;
        state = recordSignInFailure({ now, previous: state })._unsafeUnwrap();
        expect(state).toStrictEqual({ count: modelCount, lastFailureAt: modelLast });
        const modelWaitMs = modelCount < 5 ? 0 : Math.min(1000 * 2 ** (modelCount - 5), 15 * MIN);
        expect(decideSignInAttempt({ now, failures: state })).toStrictEqual(modelWaitMs === 0 ? allow : throttle(modelWaitMs / 1000));
      }
    },
  );

  test.prop([policyArb, timeArb, countArb, fc.nat({ max: 3_600_000 })])(
    'should never shorten the wait: one more failure waits at least as long',
    (policy, lastFailureAt, count, gap) => {
      const previous = { count, lastFailureAt };
      const now = lastFailureAt + gap;
      const next = recordSignInFailure({ now, previous, policy })._unsafeUnwrap();
      const before = decideSignInAttempt({ now, failures: previous, policy })._unsafeUnwrap();
      const after = decideSignInAttempt({ now, failures: next, policy })._unsafeUnwrap();
      const seconds = (d: typeof before): number => (d.kind === 'allow' ? 0 : d.retryAfterSeconds);
      expect(seconds(after)).toBeGreaterThanOrEqual(seconds(before));
    },
  );
});

describe('expireSignInFailures', () => {
  it.each([
    { ref: '(built-in sign-in): nothing to forget', input: { now: T, previous: null }, expected: ok(null) },
    { ref: '(built-in sign-in): still remembered', input: { now: T + 15 * MIN - 1, previous: failures(3) }, expected: ok(failures(3)) },
    { ref: '(built-in sign-in): forgotten after 15 quiet minutes', input: { now: T + 15 * MIN, previous: failures(3) }, expected: ok(null) },
    { ref: 'malformed: policy.forgetAfterMs', input: { now: T, previous: null, policy: { freeFailures: 1, baseDelayMs: 1, maxDelayMs: 1, forgetAfterMs: NaN } }, expected: err({ code: 'invalid_input', field: 'policy.forgetAfterMs' }) },
  ])('should follow $ref', ({ input, expected }) => {
    expect(expireSignInFailures(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw on any input', (input) => {
    // @ts-expect-error -- any value at run time
    expect(() => expireSignInFailures(input)).not.toThrow();
  });

  test.prop([policyArb, timeArb, countArb, fc.nat({ max: 3 * 3_600_000 })])(
    'should forget exactly the failures whose next attempt is allowed anyway',
    (policy: SignInThrottlePolicy, lastFailureAt, count, gap) => {
      const previous = { count, lastFailureAt };
      const now = lastFailureAt + gap;
      const expired = expireSignInFailures({ now, previous, policy })._unsafeUnwrap();
      if (expired === null) expect(decideSignInAttempt({ now, failures: previous, policy })).toStrictEqual(allow);
      else expect(expired).toStrictEqual(previous);
      expect(expired === null).toBe(gap >= policy.forgetAfterMs);
    },
  );
});

describe('withdrawSignInFailure', () => {
  it.each([
    { ref: '(built-in sign-in): one failure fewer', input: { previous: failures(3) }, expected: ok(failures(2)) },
    { ref: '(built-in sign-in): the last one', input: { previous: failures(1) }, expected: ok(null) },
    { ref: '(built-in sign-in): nothing to withdraw', input: { previous: null }, expected: ok(null) },
    { ref: '(built-in sign-in): a zero count', input: { previous: failures(0) }, expected: ok(null) },
    { ref: 'malformed: previous.lastFailureAt', input: { previous: { count: 2, lastFailureAt: null } }, expected: err({ code: 'invalid_input', field: 'previous.lastFailureAt' }) },
    { ref: 'malformed: input', input: 7, expected: err({ code: 'invalid_input', field: 'input' }) },
  ])('should follow $ref', ({ input, expected }) => {
    // @ts-expect-error -- malformed rows break the static type on purpose
    expect(withdrawSignInFailure(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw on any input', (input) => {
    // @ts-expect-error -- any value at run time
    expect(() => withdrawSignInFailure(input)).not.toThrow();
    // @ts-expect-error -- any value at run time
    expect(() => withdrawSignInFailure({ previous: input })).not.toThrow();
  });

  test.prop([policyArb, timeArb, fc.option(fc.record({ count: countArb, lastFailureAt: timeArb }, { noNullPrototype: true }), { nil: null })])(
    'should undo recordSignInFailure at the same instant (a provisional failure that turned out a success)',
    (policy, now, previous) => {
      const recorded = recordSignInFailure({ now, previous, policy })._unsafeUnwrap();
      const undone = withdrawSignInFailure({ previous: recorded })._unsafeUnwrap();
      // the wait afterwards is never longer than before the provisional failure
      const seconds = (f: SignInFailures | null): number => {
        const d = decideSignInAttempt({ now, failures: f, policy })._unsafeUnwrap();
        return d.kind === 'allow' ? 0 : d.retryAfterSeconds;
      };
      if (previous !== null && previous.count < Number.MAX_SAFE_INTEGER && previous.lastFailureAt <= now && now - previous.lastFailureAt < policy.forgetAfterMs) {
        expect(undone).toStrictEqual(previous.count === 0 ? null : { count: previous.count, lastFailureAt: now });
      }
      expect(seconds(undone)).toBeLessThanOrEqual(seconds(recorded));
    },
  );
});
