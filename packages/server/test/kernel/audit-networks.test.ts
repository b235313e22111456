/**
 * The per-window bound on client networks with their own unsupported-scheme entry (§6 rule 1 under a distributed
 * flood): whatever the sequence of networks and times, each window holds at most `maxNetworks + 1` such entries,
 * and the counts add up to the number of failures.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditCoalescingKey, auditWindowOf } from '../../../../src/core/audit-retention.js';
import { createAuditNetworkTracker } from '../../src/kernel/audit-networks.js';
import { createMemoryAuditLog } from '../../src/store/memory/audit.js';
import { Journal } from '../../src/store/memory/journal.js';

const WINDOW_SECONDS = 60;

/** Records one unsupported-scheme failure as the authenticator does. */
function record(log: ReturnType<typeof createMemoryAuditLog>, tracker: ReturnType<typeof createAuditNetworkTracker>, network: string, at: number): void {
  const client = tracker.clientFor(network, auditWindowOf(at, WINDOW_SECONDS));
  const entry = {
    entity: 'auth.accessToken',
    action: 'failed',
    reason: 'invalid Authorization header',
    actorUserId: null,
    subjectUserId: null,
    details: { scheme: 'basic', clientAddress: client },
  };
  const key = auditCoalescingKey({ entry, client, at, windowSeconds: WINDOW_SECONDS })._unsafeUnwrap();
  expect(key).not.toBeNull();
  log.append({ ...entry, timestamp: at, ...(key === null ? {} : { coalesceKey: key }) });
}

describe('createAuditNetworkTracker', () => {
  it('should hold at most maxNetworks + 1 entries per window whatever the sequence of networks and times, counts exact (§6 rule 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        // networks from a small pool (repeats) and times that go forwards and, now and then, back
        fc.array(fc.tuple(fc.nat(20), fc.integer({ min: -90_000, max: 150_000 })), { maxLength: 200 }),
        (maxNetworks, events) => {
          const log = createMemoryAuditLog(new Journal());
          const tracker = createAuditNetworkTracker(maxNetworks);
          let at = 1_700_000_000_000;
          for (const [n, step] of events) {
            at += step;
            record(log, tracker, `198.51.100.${n}`, at);
            expect(tracker.size).toBeLessThanOrEqual(maxNetworks);
          }
          const entries = log.list(Number.MAX_SAFE_INTEGER);
          const perWindow = new Map<number, number>();
          for (const e of entries) {
            const w = auditWindowOf(e.firstAt, WINDOW_SECONDS);
            perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
          }
          for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(maxNetworks + 1);
          expect(entries.reduce((sum, e) => sum + e.count, 0)).toBe(events.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should give each of the first maxNetworks networks of a window its own entry and fold the rest into other-networks', () => {
    const log = createMemoryAuditLog(new Journal());
    const tracker = createAuditNetworkTracker(1_000);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5_000; i++) record(log, tracker, `2001:db8:${i.toString(16)}::/64`, 60_000 + round);
    }
    const entries = log.list(Number.MAX_SAFE_INTEGER);
    expect(entries.length).toBe(1_001);
    const other = entries.filter((e) => e.details['clientAddress'] === 'other-networks');
    expect(other.map((e) => e.count)).toStrictEqual([8_000]);
    expect(entries.filter((e) => e.details['clientAddress'] !== 'other-networks').every((e) => e.count === 2)).toBe(true);
  });
});
