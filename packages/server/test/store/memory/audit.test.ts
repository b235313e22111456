/**
 * The memory audit log's cost: appending is O(1) whatever the size (no entry is moved or copied by an append),
 * expiry from the front moves at most as many entries as it removes (amortised O(1)) and removes exactly the expired
 * entries before the first kept one, a `before` cursor is a seek, and a filtered listing stops after `first` matches.
 * Counted, not timed. Also: undo steps inside a transaction.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryAuditLog } from '../../../src/store/memory/audit.js';
import { Journal } from '../../../src/store/memory/journal.js';
import type { NewAuditEntry } from '../../../src/store/types.js';


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
    const log = createMemoryAuditLog(new Journal());
    for (let i = 0; i < 50_000; i++) log.append(input(i));
    const before = log.list(50_000);
    for (let i = 0; i < 1_000; i++) log.append(input(50_000 + i));
    expect(log.moved).toBe(0);
    expect(log.size).toBe(51_000);
    expect(log.list(51_000).slice(1_000)).toStrictEqual(before);
  });

  it('should move at most as many entries as expiry removed, whatever the interleaving (amortised O(1))', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 2000 })), { maxLength: 20 }), (rounds) => {
        const log = createMemoryAuditLog(new Journal());
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
    const log = createMemoryAuditLog(new Journal());
    for (let i = 0; i < 5_000; i++) log.append(input(i));
    const first = log.append(input(5_000, 'flood'));
    for (let i = 0; i < 5_000; i++) log.append(input(5_001 + i, 'flood'));
    expect(log.size).toBe(5_001);
    expect(log.moved).toBe(0);
    const [newest] = log.list(1);
    expect(newest).toStrictEqual({ ...first, count: 5_001, lastAt: 10_000 });
  });

  it('should undo appends, coalescing and purges recorded in a transaction, and compact only outside one', () => {
    const journal = new Journal();
    const log = createMemoryAuditLog(journal);
    for (let i = 0; i < 3_000; i++) log.append(input(i, i === 2_999 ? 'k' : undefined));
    const before = log.list(10_000);
    journal.begin();
    expect(log.purge(2_500, Number.MAX_SAFE_INTEGER)).toBe(2_500);
    expect(log.moved).toBe(0);
    log.append(input(3_000, 'k'));
    log.append(input(3_001));
    journal.rollbackTo(0);
    journal.end();
    expect(log.list(10_000)).toStrictEqual(before);
    expect(log.append(input(3_002)).id).toBe('3001');
    expect(log.append(input(3_003, 'k')).count).toBe(2);
    expect(log.purge(2_500, Number.MAX_SAFE_INTEGER)).toBe(2_500);
    expect(log.moved).toBeGreaterThan(0);
    expect(log.list(1, { before: '2502' }).map((e) => e.id)).toStrictEqual(['2501']);
  });
});

describe('createMemoryAuditLog purge: the expired prefix', () => {
  it('should remove exactly the expired entries before the first kept one, oldest first, at most limit (a model: a plain list)', () => {
    type Op = { kind: 'append'; key: string | null; dt: number } | { kind: 'purge'; age: number; limit: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), key: fc.option(fc.constantFrom('a', 'b'), { nil: null }), dt: fc.nat(5) }),
      fc.record({ kind: fc.constant('purge' as const), age: fc.nat(20), limit: fc.integer({ min: 1, max: 4 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const log = createMemoryAuditLog(new Journal());
        let model: { id: number; key: string | null; count: number; firstAt: number; lastAt: number }[] = [];
        let t = 0;
        let nextId = 1;
        for (const o of ops) {
          if (o.kind === 'append') {
            t += o.dt;
            const kept = o.key === null ? undefined : model.find((e) => e.key === o.key);
            if (kept !== undefined) {
              kept.count++;
              kept.lastAt = t;
            } else {
              model.push({ id: nextId++, key: o.key, count: 1, firstAt: t, lastAt: t });
            }
            log.append(input(t, o.key ?? undefined));
          } else {
            const before = t - o.age;
            let removed = 0;
            while (removed < o.limit && model[0] !== undefined && model[0].lastAt < before) {
              model = model.slice(1);
              removed++;
            }
            expect(log.purge(before, o.limit)).toBe(removed);
          }
        }
        expect(log.list(1000).map((e) => [Number(e.id), e.count, e.firstAt, e.lastAt])).toStrictEqual(
          [...model].reverse().map((e) => [e.id, e.count, e.firstAt, e.lastAt]),
        );
      }),
      { numRuns: 200 },
    );
  });
});

describe('createMemoryAuditLog listing: before cursor and filters', () => {
  const event = (timestamp: number, action: string, actorUserId: string | null, coalesceKey?: string): NewAuditEntry => ({
    ...input(timestamp, coalesceKey),
    entity: action === 'created' ? 'auth.accessToken' : 'user',
    action,
    actorUserId,
  });

  it('should seek a before cursor without visiting the newer entries, and stop a filtered listing after first matches', () => {
    const log = createMemoryAuditLog(new Journal());
    for (let i = 0; i < 50_000; i++) log.append(event(i, i === 10_000 || i === 20_000 ? 'created' : 'failed', null));
    const page = log.list(10, { before: '30001' });
    expect(page.map((e) => e.id)).toStrictEqual(Array.from({ length: 10 }, (_, i) => String(30_000 - i)));
    expect(log.visited).toBe(10);
    // the two matches are 30,000 and 40,000 positions below the newest: the scan stops at the second one
    const matches = log.list(2, { action: 'created' });
    expect(matches.map((e) => e.id)).toStrictEqual(['20001', '10001']);
    expect(log.visited).toBe(10 + 40_000);
    // after expiry has compacted the array, a cursor still finds its place
    expect(log.purge(30_000, Number.MAX_SAFE_INTEGER)).toBe(30_000);
    expect(log.moved).toBeGreaterThan(0);
    expect(log.list(5, { before: '30003' }).map((e) => e.id)).toStrictEqual(['30002', '30001']);
    expect(log.list(2, { before: '1' })).toStrictEqual([]);
    expect(log.list(1, { before: '99999999' }).map((e) => e.id)).toStrictEqual(['50000']);
  });

  it('should list what a model lists: newest first, older than the cursor, matching every filter, whatever appends, coalescing and purges came before', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), action: fc.constantFrom('created', 'failed', 'sudo'), actor: fc.constantFrom(null, '1', '2'), key: fc.constantFrom(undefined, 'k1', 'k2') }),
      fc.record({ kind: fc.constant('purge' as const), keep: fc.nat(40) }),
    );
    const query = fc.record(
      {
        before: fc.oneof(fc.integer({ min: 1, max: 90 }).map(String), fc.constantFrom('0', 'x', '')),
        entity: fc.constantFrom('user', 'auth.accessToken'),
        action: fc.constantFrom('created', 'failed', 'sudo'),
        actorUserId: fc.constantFrom('1', '2'),
        since: fc.nat(80),
        until: fc.nat(80),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80 }), query, fc.nat(30), (steps, q, first) => {
        const log = createMemoryAuditLog(new Journal());
        let t = 0;
        for (const s of steps) {
          if (s.kind === 'append') log.append(event(t++, s.action, s.actor, s.key));
          else log.purge(t - s.keep, Number.MAX_SAFE_INTEGER);
        }
        const all = log.list(Number.MAX_SAFE_INTEGER);
        const cursor = q.before === undefined ? Infinity : /^[1-9][0-9]*$/u.test(q.before) ? Number(q.before) : -Infinity;
        const expected = all
          .filter((e) => Number(e.id) < cursor)
          .filter((e) => (q.entity === undefined || e.entity === q.entity) && (q.action === undefined || e.action === q.action))
          .filter((e) => q.actorUserId === undefined || e.actorUserId === q.actorUserId)
          .filter((e) => (q.since === undefined || e.lastAt >= q.since) && (q.until === undefined || e.timestamp <= q.until))
          .slice(0, first);
        expect(log.list(first, q)).toStrictEqual(expected);
        // newest first: ids strictly decreasing
        expect(all.map((e) => Number(e.id))).toStrictEqual(all.map((e) => Number(e.id)).sort((a, b) => b - a));
      }),
      { numRuns: 300 },
    );
  });
});
