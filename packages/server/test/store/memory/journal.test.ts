/**
 * The memory store's transaction primitives: a tracked map undone step by step to any savepoint, and a turn that
 * serves waiters in arrival order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Journal, TrackedMap, Turn } from '../../../src/store/memory/journal.js';

describe('TrackedMap with a Journal', () => {
  it('should record nothing outside a transaction', () => {
    const journal = new Journal();
    const map = new TrackedMap<string, number>(journal);
    map.set('a', 1);
    expect([journal.active, journal.length]).toStrictEqual([false, 0]);
    journal.rollbackTo(0);
    expect(map.get('a')).toBe(1);
  });

  it('should restore the contents at any savepoint, whatever the writes after it', () => {
    const write = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.constantFrom('a', 'b', 'c'), value: fc.nat(9) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.constantFrom('a', 'b', 'c') }),
    );
    fc.assert(
      fc.property(fc.array(write, { maxLength: 10 }), fc.array(write, { maxLength: 10 }), fc.array(write, { maxLength: 10 }), (before, inner, after) => {
        const journal = new Journal();
        const map = new TrackedMap<string, number>(journal);
        const apply = (ws: typeof before): void => {
          for (const w of ws) {
            if (w.kind === 'set') map.set(w.key, w.value);
            else map.delete(w.key);
          }
        };
        const contents = (): [string, number][] => [...map.entries()].sort(([x], [y]) => x.localeCompare(y));
        apply(before);
        const atStart = contents();
        journal.begin();
        apply(inner);
        const mark = journal.length;
        const atMark = contents();
        apply(after);
        journal.rollbackTo(mark);
        expect(contents()).toStrictEqual(atMark);
        journal.rollbackTo(0);
        journal.end();
        expect(contents()).toStrictEqual(atStart);
        expect(map.size).toBe(atStart.length);
      }),
    );
  });
});

describe('Turn', () => {
  it('should pass the turn to waiters in arrival order, one at a time', async () => {
    const turn = new Turn();
    const order: number[] = [];
    let holders = 0;
    await Promise.all(
      [0, 1, 2, 3].map(async (n) => {
        await turn.acquire();
        holders++;
        expect(holders).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 3 - n));
        order.push(n);
        holders--;
        turn.release();
      }),
    );
    expect(order).toStrictEqual([0, 1, 2, 3]);
    expect(turn.busy).toBe(false);
  });
});
