import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { addressThrottleKey } from '../../src/store/throttle-table.js';
import { checkSlot, clearFailures, recordFailure, withdrawFailure } from '../../src/store/throttle.js';
import { createMemoryStore } from '../../src/store/memory/store.js';

const POLICY = { freeFailures: 2, baseDelayMs: 1_000, maxDelayMs: 60_000, forgetAfterMs: 600_000 };

/** One throttle table in a store's ephemeral part, as the sign-in route uses it. */
function createThrottleTable(policy: typeof POLICY, maxEntries: number) {
  const store = createMemoryStore();
  const table = { name: 'test', policy, maxEntries };
  let clock = 0;
  return {
    check: (key: string, now: number) => checkSlot(store, { table, key }, (clock = now)),
    record: (key: string, now: number) => recordFailure(store, { table, key }, (clock = now)),
    withdraw: (key: string) => withdrawFailure(store, { table, key }, clock),
    clear: (key: string) => clearFailures(store, { table, key }, clock),
    size: () => store.ephemeral.count('throttle', clock),
  };
}

describe('the sign-in throttle in the store\'s ephemeral part', () => {
  it('should throttle a key after its free failures and keep it through a flood of other keys', async () => {
    const table = createThrottleTable(POLICY, 3);
    await table.record('victim', 0);
    await table.record('victim', 0);
    expect(await table.check('victim', 0)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 1 });
    for (let i = 0; i < 10_001; i++) {
      const key = `other${i}`;
      if ((await table.check(key, 1)).kind === 'allow') await table.record(key, 1);
    }
    expect(await table.size()).toBe(3);
    expect(await table.check('victim', 1)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 1 });
  });

  it('should evict the oldest un-throttled record for a new key when full, never a throttled one', async () => {
    const table = createThrottleTable(POLICY, 3);
    await table.record('victim', 0);
    await table.record('victim', 0);
    await table.record('a', 100);
    await table.record('b', 200);
    // full (victim throttled, a and b one failure each): c evicts a, the oldest un-throttled record
    expect(await table.check('c', 300)).toStrictEqual({ kind: 'allow' });
    await table.record('c', 300);
    expect(await table.size()).toBe(3);
    expect(await table.check('victim', 300)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 1 });
    // b kept its failure (one more makes it throttled); a was forgotten (one failure from fresh)
    await table.record('b', 400);
    expect(await table.check('b', 400)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 1 });
    expect(await table.check('a', 400)).toStrictEqual({ kind: 'allow' });
    await table.record('a', 400);
    expect(await table.check('a', 400)).toStrictEqual({ kind: 'allow' });
  });

  it('should refuse a new key only while every record is throttled, until the oldest expires by time', async () => {
    const table = createThrottleTable(POLICY, 2);
    for (const [key, at] of [['a', 0], ['b', 100_000]] as const) {
      await table.record(key, at);
      await table.record(key, at);
    }
    // Retry-After of a full table is the forget window: an upper bound on the oldest record's remaining life
    expect(await table.check('c', 200_000)).toStrictEqual({ kind: 'full', retryAfterSeconds: 600 });
    await table.record('c', 200_000);
    expect(await table.size()).toBe(2);
    expect(await table.check('c', 600_000)).toStrictEqual({ kind: 'allow' });
    await table.record('c', 600_000);
    expect(await table.size()).toBe(2);
    // a expired; b is still throttled and c is evictable, so a comes back in c's place
    expect(await table.check('a', 600_001)).toStrictEqual({ kind: 'allow' });
    await table.record('a', 600_001);
    expect((await table.check('b', 600_001)).kind).toBe('allow'); // its wait is over, its record is kept
    await table.record('b', 600_001);
    expect(await table.check('b', 600_001)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 2 });
  });

  test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.constantFrom('record', 'withdraw', 'clear')), { maxLength: 300 })])(
    'should keep its bound and never let a flood of other keys free a throttled key',
    async (ops) => {
      const table = createThrottleTable(POLICY, 5);
      await table.record('victim', 0);
      await table.record('victim', 0);
      for (const [n, op] of ops) {
        const key = `k${n}`;
        if (op === 'record' && (await table.check(key, 1)).kind === 'allow') await table.record(key, 1);
        if (op === 'withdraw') await table.withdraw(key);
        if (op === 'clear') await table.clear(key);
        expect(await table.size()).toBeLessThanOrEqual(5);
        expect(await table.check('victim', 1)).toStrictEqual({ kind: 'throttle', retryAfterSeconds: 1 });
      }
    },
  );

  it('should withdraw and clear a key', async () => {
    const table = createThrottleTable(POLICY, 5);
    await table.record('a', 0);
    await table.withdraw('a');
    expect(await table.size()).toBe(0);
    await table.record('a', 0);
    await table.record('a', 0);
    await table.clear('a');
    expect(await table.check('a', 0)).toStrictEqual({ kind: 'allow' });
  });
});

describe('addressThrottleKey', () => {
  it.each([
    { input: '192.0.2.7', expected: '192.0.2.7' },
    { input: '::ffff:192.0.2.7', expected: '192.0.2.7' },
    { input: '2001:db8:1:2:aa:bb:cc:dd', expected: '2001:db8:1:2::/64' },
    { input: '2001:db8:1:2::1', expected: '2001:db8:1:2::/64' },
    { input: '2001:DB8:0001:0002::ffff', expected: '2001:db8:1:2::/64' },
    { input: '::1', expected: '0:0:0:0::/64' },
    { input: 'fe80::1%eth0', expected: 'fe80:0:0:0::/64' },
    { input: 'unknown', expected: 'unknown' },
  ])('should key $input as $expected', ({ input, expected }) => {
    expect(addressThrottleKey(input)).toBe(expected);
  });
});
