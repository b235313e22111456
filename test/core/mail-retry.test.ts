import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { decideMailEnqueue, decideMailRetry, DEFAULT_MAIL_MAX_ATTEMPTS, DEFAULT_MAIL_QUEUE_CAPACITY, DEFAULT_MAIL_RETRY_BASE_MS, DEFAULT_MAIL_RETRY_MAX_MS } from '../../src/core/mail-retry.js';

const base = { maxAttempts: DEFAULT_MAIL_MAX_ATTEMPTS, baseDelayMs: DEFAULT_MAIL_RETRY_BASE_MS, maxDelayMs: DEFAULT_MAIL_RETRY_MAX_MS, now: 0 };

describe('decideMailRetry', () => {
  it.each([
    { attempts: 1, expected: ok({ kind: 'retry', delayMs: 30_000, nextAttemptAt: 30_000 }) },
    { attempts: 2, expected: ok({ kind: 'retry', delayMs: 60_000, nextAttemptAt: 60_000 }) },
    { attempts: 7, expected: ok({ kind: 'retry', delayMs: 1_920_000, nextAttemptAt: 1_920_000 }) },
    { attempts: 8, expected: ok({ kind: 'give_up', reason: 'max_attempts' }) },
    { attempts: 50, expected: ok({ kind: 'give_up', reason: 'max_attempts' }) },
    { attempts: 0, expected: err({ code: 'invalid_input', field: 'attempts' }) },
  ])('with the defaults, after attempt $attempts', ({ attempts, expected }) => {
    expect(decideMailRetry({ ...base, attempts })).toStrictEqual(expected);
  });

  it('should stop doubling at the ceiling', () => {
    expect(decideMailRetry({ ...base, maxAttempts: 100, attempts: 60 })).toStrictEqual(ok({ kind: 'retry', delayMs: DEFAULT_MAIL_RETRY_MAX_MS, nextAttemptAt: DEFAULT_MAIL_RETRY_MAX_MS }));
  });

  test.prop([fc.anything()])('should never throw', (input) => {
    expect(() => decideMailRetry(input as never)).not.toThrow();
  });

  test.prop([fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 2 ** 40 })])(
    'should match an oracle: give up at the limit, else the doubled pause within the ceiling',
    (attempts, maxAttempts, baseDelayMs, extra, now) => {
      const maxDelayMs = baseDelayMs + extra;
      const decided = decideMailRetry({ attempts, maxAttempts, baseDelayMs, maxDelayMs, now })._unsafeUnwrap();
      let delay = baseDelayMs;
      for (let i = 1; i < attempts; i += 1) delay = Math.min(maxDelayMs, delay * 2);
      expect(decided).toStrictEqual(attempts >= maxAttempts ? { kind: 'give_up', reason: 'max_attempts' } : { kind: 'retry', delayMs: Math.min(maxDelayMs, delay), nextAttemptAt: now + Math.min(maxDelayMs, delay) });
    },
  );
});

describe('decideMailEnqueue', () => {
  it.each([
    { queued: 0, capacity: DEFAULT_MAIL_QUEUE_CAPACITY, expected: ok({ kind: 'accept' }) },
    { queued: 999, capacity: DEFAULT_MAIL_QUEUE_CAPACITY, expected: ok({ kind: 'accept' }) },
    { queued: 1_000, capacity: DEFAULT_MAIL_QUEUE_CAPACITY, expected: ok({ kind: 'refuse', reason: 'queue_full' }) },
    { queued: 5, capacity: 0, expected: err({ code: 'invalid_input', field: 'capacity' }) },
    { queued: -1, capacity: 1, expected: err({ code: 'invalid_input', field: 'queued' }) },
  ])('$queued queued of $capacity', ({ queued, capacity, expected }) => {
    expect(decideMailEnqueue(queued, capacity)).toStrictEqual(expected);
  });

  test.prop([fc.nat(), fc.integer({ min: 1 })])('should accept exactly below the bound', (queued, capacity) => {
    expect(decideMailEnqueue(queued, capacity)._unsafeUnwrap().kind === 'accept').toBe(queued < capacity);
  });
});
