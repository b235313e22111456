import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHashingLimiter, DEFAULT_PASSWORD_HASHING_LIMITS, resolveHashingLimits } from '../../src/sign-in/hashing-limiter.js';

/** A work that finishes when the test says so (opening it before it starts lets it finish at once). */
function gate(): { readonly work: () => Promise<string>; readonly open: () => void; started: boolean } {
  let open = (): void => {};
  const opened = new Promise<string>((resolve) => {
    open = () => resolve('done');
  });
  const g = {
    started: false,
    work: (): Promise<string> => {
      g.started = true;
      return opened;
    },
    open: (): void => open(),
  };
  return g;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('resolveHashingLimits', () => {
  it.each([
    { ref: 'defaults', input: undefined, expected: DEFAULT_PASSWORD_HASHING_LIMITS },
    { ref: 'one field', input: { maxQueued: 0 }, expected: { maxConcurrent: 2, maxQueued: 0, maxPerClient: 8 } },
    { ref: 'zero at once', input: { maxConcurrent: 0 }, expected: 'passwordHashing.maxConcurrent must be a positive integer.' },
    { ref: 'negative queue', input: { maxQueued: -1 }, expected: 'passwordHashing.maxQueued must be an integer ≥ 0.' },
    { ref: 'fractional share', input: { maxPerClient: 1.5 }, expected: 'passwordHashing.maxPerClient must be a positive integer.' },
  ])('should resolve $ref', ({ input, expected }) => {
    expect(resolveHashingLimits(input)).toStrictEqual(expected);
  });
});

describe('createHashingLimiter', () => {
  it('should run at most maxConcurrent at once, queue at most maxQueued, and refuse the rest at once', async () => {
    const limiter = createHashingLimiter({ maxConcurrent: 1, maxQueued: 1, maxPerClient: 8 });
    const a = gate();
    const b = gate();
    const c = gate();
    const ra = limiter.run('x', a.work);
    const rb = limiter.run('y', b.work);
    expect(await limiter.run('z', c.work)).toStrictEqual({ kind: 'busy' });
    await tick();
    expect([a.started, b.started, c.started]).toStrictEqual([true, false, false]);
    a.open();
    expect(await ra).toStrictEqual({ kind: 'done', value: 'done' });
    await tick();
    expect(b.started).toBe(true);
    b.open();
    expect(await rb).toStrictEqual({ kind: 'done', value: 'done' });
  });

  it('should refuse a client beyond its share of places', async () => {
    const limiter = createHashingLimiter({ maxConcurrent: 1, maxQueued: 10, maxPerClient: 2 });
    const gates = [gate(), gate()];
    const runs = gates.map((g) => limiter.run('flood', g.work));
    expect(await limiter.run('flood', gate().work)).toStrictEqual({ kind: 'busy' });
    const other = gate();
    const ro = limiter.run('real', other.work);
    for (const g of gates) g.open();
    other.open();
    await Promise.all([...runs, ro]);
  });

  it("should let waiting clients take turns, so one client's backlog delays another by one work at most", async () => {
    const limiter = createHashingLimiter({ maxConcurrent: 1, maxQueued: 10, maxPerClient: 10 });
    const order: string[] = [];
    const started = (name: string) => async (): Promise<string> => {
      order.push(name);
      await tick();
      return name;
    };
    const runs = [
      limiter.run('flood', started('f1')),
      limiter.run('flood', started('f2')),
      limiter.run('flood', started('f3')),
      limiter.run('flood', started('f4')),
      limiter.run('real', started('r1')),
    ];
    await Promise.all(runs);
    expect(order).toStrictEqual(['f1', 'f2', 'r1', 'f3', 'f4']);
  });

  it('should release a place when the work fails', async () => {
    const limiter = createHashingLimiter({ maxConcurrent: 1, maxQueued: 0, maxPerClient: 1 });
    await expect(limiter.run('x', () => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    expect(await limiter.run('x', async () => 1)).toStrictEqual({ kind: 'done', value: 1 });
  });

  it('should never hold more than maxConcurrent running nor more places than its bounds (model)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ maxConcurrent: fc.integer({ min: 1, max: 3 }), maxQueued: fc.integer({ min: 0, max: 4 }), maxPerClient: fc.integer({ min: 1, max: 3 }) }),
        fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 20 }),
        async (limits, clients) => {
          const limiter = createHashingLimiter(limits);
          let running = 0;
          let peak = 0;
          const outcomes = await Promise.all(
            clients.map((client) =>
              limiter.run(client, async () => {
                running += 1;
                peak = Math.max(peak, running);
                await tick();
                running -= 1;
              }),
            ),
          );
          const done = outcomes.filter((o) => o.kind === 'done').length;
          expect(peak).toBeLessThanOrEqual(limits.maxConcurrent);
          // all offered at once: at most the running places plus the queue, and at most each client's share
          expect(done).toBeLessThanOrEqual(limits.maxConcurrent + limits.maxQueued);
          for (const client of ['a', 'b', 'c']) {
            const offered = clients.filter((c) => c === client).length;
            const got = outcomes.filter((o, i) => clients[i] === client && o.kind === 'done').length;
            expect(got).toBeLessThanOrEqual(Math.min(offered, limits.maxPerClient));
          }
          // and nothing stays held: the next work runs at once
          expect(await limiter.run('a', async () => 'free')).toStrictEqual({ kind: 'done', value: 'free' });
        },
      ),
      { numRuns: 100 },
    );
  });
});
