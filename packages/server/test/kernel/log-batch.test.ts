/**
 * Batched log lines: every line reaches the target once and in order, none waits past its interval, a full batch
 * goes at once, and `flushSync` leaves nothing behind (model-based against a plain list of lines).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBatchedDestination } from '../../src/kernel/log-batch.js';

/** A manual clock: timers fire when the test advances it. */
function manualTimers(): { schedule: (fn: () => void, ms: number) => { cancel: () => void }; advance: (ms: number) => void; pending: () => number } {
  let now = 0;
  let timers: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    schedule: (fn, ms) => {
      const timer = { at: now + ms, fn, live: true };
      timers.push(timer);
      return { cancel: () => void (timer.live = false) };
    },
    advance: (ms) => {
      now += ms;
      const due = timers.filter((t) => t.live && t.at <= now);
      timers = timers.filter((t) => t.live && t.at > now);
      for (const t of due) t.fn();
    },
    pending: () => timers.filter((t) => t.live).length,
  };
}

type Op = { readonly kind: 'write'; readonly line: string } | { readonly kind: 'advance'; readonly ms: number } | { readonly kind: 'flushSync' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), line: fc.string({ maxLength: 12 }).map((s) => `${s}\n`) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ kind: fc.constant('flushSync' as const) }),
);

describe('batched log destination', () => {
  it('should hand every line to the target once, in order, within the interval (model: the list of lines written)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 40 }), (ops, intervalMs, maxChars) => {
        const timers = manualTimers();
        const written: string[] = [];
        let syncFlushes = 0;
        const destination = createBatchedDestination(
          { write: (text) => written.push(text), flushSync: () => void syncFlushes++ },
          { intervalMs, maxChars, schedule: timers.schedule },
        );
        const model: string[] = [];
        // when each line not yet written was logged
        let waitingSince: number | null = null;
        let now = 0;
        for (const o of ops) {
          if (o.kind === 'write') {
            destination.write(o.line);
            model.push(o.line);
            waitingSince ??= now;
          } else if (o.kind === 'advance') {
            timers.advance(o.ms);
            now += o.ms;
          } else {
            destination.flushSync();
          }
          const out = written.join('');
          const all = model.join('');
          // what went out is a prefix of what was logged, batch by batch, never an empty batch
          expect(all.startsWith(out)).toBe(true);
          expect(written.every((w) => w !== '')).toBe(true);
          if (out === all) waitingSince = null;
          // nothing waits past its interval, and no batch of maxChars or more waits at all
          if (waitingSince !== null) {
            expect(now - waitingSince).toBeLessThan(intervalMs);
            expect(all.length - out.length).toBeLessThan(maxChars);
          }
          if (o.kind === 'flushSync') expect(out).toBe(all);
        }
        destination.flushSync();
        expect(written.join('')).toBe(model.join(''));
        expect(timers.pending()).toBe(0);
        expect(syncFlushes).toBeGreaterThan(0);
      }),
    );
  });

  it('should write the lines of one interval in one write', () => {
    const timers = manualTimers();
    const written: string[] = [];
    const destination = createBatchedDestination({ write: (text) => written.push(text), flushSync: () => undefined }, { intervalMs: 10, maxChars: 1_000, schedule: timers.schedule });
    for (let i = 0; i < 50; i++) destination.write(`${i}\n`);
    expect(written).toStrictEqual([]);
    timers.advance(10);
    expect(written).toHaveLength(1);
    expect(written[0]?.split('\n')).toHaveLength(51);
  });

  it('should keep no timer once a batch is written (an idle server schedules nothing)', () => {
    const timers = manualTimers();
    const destination = createBatchedDestination({ write: () => undefined, flushSync: () => undefined }, { intervalMs: 10, maxChars: 4, schedule: timers.schedule });
    destination.write('ab\n');
    expect(timers.pending()).toBe(1);
    destination.write('cd\n');
    expect(timers.pending()).toBe(0);
    timers.advance(100);
    expect(timers.pending()).toBe(0);
  });
});
