/**
 * The memory audit log's cost: appending is O(1) whatever the size (no entry is moved or copied by an append),
 * and expiry from the front moves at most as many entries as it removes (amortised O(1)). Counted, not timed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditLog } from '../../src/http/audit-log.js';
import type { NewAuditEntry } from '../../src/http/store.js';

const input = (timestamp: number, coalesceKey?: string): NewAuditEntry => ({
  timestamp,
  entity: 'auth.accessToken',
  action: 'failed',
  reason: 'invalid Authorization header',
  actorUserId: null,
  subjectUserId: null,
  details: {},
  ...(coalesceKey === undefined ? {} : { coalesceKey }),
});

describe('createMemoryAuditLog', () => {
  it('should move no entry when appending to a log of 50,000 entries, and keep every older entry as it was', () => {
    const log = createMemoryAuditLog();
    for (let i = 0; i < 50_000; i++) log.append(input(i));
    const before = log.list(50_000);
    for (let i = 0; i < 1_000; i++) log.append(input(50_000 + i));
    expect(log.moved).toBe(0);
    expect(log.size).toBe(51_000);
    const after = log.list(51_000);
    // the same objects, untouched, behind the new ones
    expect(after.slice(1_000).every((entry, i) => entry === before[i])).toBe(true);
  });

  it('should move at most as many entries as expiry removed, whatever the interleaving (amortised O(1))', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 2000 })), { maxLength: 20 }), (rounds) => {
        const log = createMemoryAuditLog();
        let t = 0;
        let removed = 0;
        for (const [appends, expire] of rounds) {
          for (let i = 0; i < appends; i++) log.append(input(t++));
          removed += log.purge(t - expire, Number.MAX_SAFE_INTEGER);
        }
        expect(log.moved).toBeLessThanOrEqual(removed);
      }),
      { numRuns: 30 },
    );
  });

  it('should update a coalesced entry without moving any other', () => {
    const log = createMemoryAuditLog();
    for (let i = 0; i < 5_000; i++) log.append(input(i));
    const first = log.append(input(5_000, 'flood'));
    for (let i = 0; i < 5_000; i++) log.append(input(5_001 + i, 'flood'));
    expect(log.size).toBe(5_001);
    expect(log.moved).toBe(0);
    const [newest] = log.list(1);
    expect(newest).toStrictEqual({ ...first, count: 5_001, lastAt: 10_000 });
  });
});
