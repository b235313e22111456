/**
 * The store contract for the audit log (spec §6): kept by age and never evicted by count, coalesced by key,
 * listed newest first through a keyset cursor that reaches every entry once, purged oldest first in bounded batches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { auditInput, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { AuditEntry, AuditQuery, Store } from '../../../src/store/types.js';

/** Every entry, newest first, through pages of `size` and the last id of each page. */
async function pageThrough(store: Store, size: number, query: Omit<AuditQuery, 'before'> = {}): Promise<AuditEntry[]> {
  const seen: AuditEntry[] = [];
  let before: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const rows = await store.audit.list(size, { ...query, ...(before === undefined ? {} : { before }) });
    if (rows.length === 0) break;
    expect(rows.length).toBeLessThanOrEqual(size);
    seen.push(...rows);
    before = rows[rows.length - 1]?.id;
  }
  return seen;
}

/** Options of the audit cases. */
export interface AuditContractOptions {
  /** How many entries the "never evicted by count" case appends. */
  readonly floodSize: number;
  /** Runs of the model-based case. */
  readonly modelRuns: number;
}

/** Registers the audit cases. */
export function describeAudit(open: OpenStore, options: AuditContractOptions): void {
  describe('audit.append and audit.list', () => {
    it('should store a new entry with a decimal id from 1, count 1 and firstAt = lastAt = timestamp', async () => {
      await withStore(open, async (store) => {
        const entry = await store.audit.append(auditInput({ timestamp: 5, details: { scheme: 'basic' }, impersonatedUserId: '3' }));
        expect(entry).toStrictEqual({ ...auditInput({ timestamp: 5, details: { scheme: 'basic' }, impersonatedUserId: '3' }), id: '1', count: 1, firstAt: 5, lastAt: 5 });
        expect(await store.audit.list(10)).toStrictEqual([entry]);
      });
    });

    it('should list the newest entries first', async () => {
      await withStore(open, async (store) => {
        for (const action of ['a', 'b', 'c', 'd']) await store.audit.append(auditInput({ action }));
        expect((await store.audit.list(3)).map((e) => e.action)).toStrictEqual(['d', 'c', 'b']);
        expect((await store.audit.list(1)).map((e) => e.action)).toStrictEqual(['d']);
        expect(await store.audit.list(0)).toStrictEqual([]);
      });
    });

    it(`should keep the first of ${options.floodSize + 1} entries: appending never evicts an older entry (§6 rule 1)`, async () => {
      await withStore(open, async (store) => {
        const first = await store.audit.append(auditInput({ action: 'first', timestamp: 1 }));
        for (let i = 0; i < options.floodSize; i++) await store.audit.append(auditInput({ action: 'flood', timestamp: 2, details: { n: String(i) } }));
        const all = await pageThrough(store, 1000);
        expect(all.length).toBe(options.floodSize + 1);
        expect(all[all.length - 1]).toStrictEqual(first);
      });
    });

    it('should count an entry with the coalesceKey of a kept entry in that entry, in place (§6 rule 1)', async () => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput({ action: 'before', timestamp: 1 }));
        const flood = auditInput({ action: 'failed', coalesceKey: 'k', details: { scheme: 'basic' } });
        const first = await store.audit.append({ ...flood, timestamp: 10 });
        await store.audit.append(auditInput({ action: 'between', timestamp: 11 }));
        for (let t = 12; t < 112; t++) await store.audit.append({ ...flood, timestamp: t, details: { scheme: t === 50 ? 'digest' : 'basic' } });
        const other = await store.audit.append({ ...flood, timestamp: 2000, coalesceKey: 'other' });
        const listed = await store.audit.list(10);
        expect(listed.map((e) => [e.action, e.count, e.firstAt, e.lastAt, e.timestamp])).toStrictEqual([
          ['failed', 1, 2000, 2000, 2000],
          ['between', 1, 11, 11, 11],
          ['failed', 101, 10, 111, 10],
          ['before', 1, 1, 1, 1],
        ]);
        expect(listed[2]?.id).toBe(first.id);
        // the details are the core's coalesceAuditDetails of the kept entry and each occurrence
        expect(listed[2]?.details).toStrictEqual({ scheme: 'basic', schemes: 'basic,digest' });
        expect(other.id).not.toBe(first.id);
        // the key is an instruction to the store, not part of the entry
        expect(listed.some((e) => 'coalesceKey' in e)).toBe(false);
      });
    });

    it('should keep a batch of occurrences (count, lastAt) as one entry, and add a batch to a kept entry with its key', async () => {
      await withStore(open, async (store) => {
        const sudo = await store.audit.append(auditInput({ action: 'sudo', timestamp: 10, count: 25, lastAt: 900 }));
        expect([sudo.count, sudo.firstAt, sudo.lastAt, sudo.timestamp]).toStrictEqual([25, 10, 900, 10]);
        // a count that is no positive integer is one occurrence; a last time before the first is the first
        const odd = await store.audit.append(auditInput({ action: 'odd', timestamp: 20, count: 0, lastAt: 5 }));
        expect([odd.count, odd.lastAt]).toStrictEqual([1, 20]);
        await store.audit.append(auditInput({ action: 'failed', timestamp: 30, coalesceKey: 'k' }));
        const added = await store.audit.append(auditInput({ action: 'failed', timestamp: 40, coalesceKey: 'k', count: 3, lastAt: 70 }));
        expect([added.count, added.firstAt, added.lastAt]).toStrictEqual([4, 30, 70]);
      });
    });

    it('should filter by entity, action, actor, since (lastAt) and until (timestamp), exactly', async () => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput({ entity: 'user', action: 'created', actorUserId: '1', timestamp: 10 }));
        await store.audit.append(auditInput({ entity: 'auth.accessToken', action: 'created', actorUserId: '2', timestamp: 20 }));
        await store.audit.append(auditInput({ entity: 'auth.accessToken', action: 'failed', timestamp: 30, coalesceKey: 'k' }));
        await store.audit.append(auditInput({ entity: 'auth.accessToken', action: 'failed', timestamp: 60, coalesceKey: 'k' }));
        const ids = async (query: AuditQuery): Promise<string[]> => (await store.audit.list(10, query)).map((e) => e.id);
        expect(await ids({ entity: 'auth.accessToken' })).toStrictEqual(['3', '2']);
        expect(await ids({ entity: 'Auth.accessToken' })).toStrictEqual([]);
        expect(await ids({ action: 'created' })).toStrictEqual(['2', '1']);
        expect(await ids({ actorUserId: '1' })).toStrictEqual(['1']);
        expect(await ids({ entity: 'auth.accessToken', action: 'created' })).toStrictEqual(['2']);
        expect(await ids({ since: 50 })).toStrictEqual(['3']);
        expect(await ids({ until: 20 })).toStrictEqual(['2', '1']);
        expect(await ids({ since: 15, until: 30 })).toStrictEqual(['3', '2']);
        expect(await ids({ before: '3', action: 'created' })).toStrictEqual(['2', '1']);
      });
    });

    it('should keep an entry whose coalesced span covers the whole time range, and one in a range given backwards', async () => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput({ action: 'failed', timestamp: 10, coalesceKey: 'k' }));
        await store.audit.append(auditInput({ action: 'failed', timestamp: 100, coalesceKey: 'k' }));
        await store.audit.append(auditInput({ action: 'created', timestamp: 45 }));
        await store.audit.append(auditInput({ action: 'created', timestamp: 200, lastAt: 300 }));
        const ids = async (query: AuditQuery): Promise<string[]> => (await store.audit.list(10, query)).map((e) => e.id);
        // entry 1 spans [10, 100]: it overlaps [40, 50] though it neither starts nor ends in it
        expect(await ids({ since: 40, until: 50 })).toStrictEqual(['2', '1']);
        expect(await ids({ since: 40, until: 50, action: 'failed' })).toStrictEqual(['1']);
        // since after until: the entries that reach since and start by until, as the two conditions say
        expect(await ids({ since: 60, until: 40 })).toStrictEqual(['1']);
        expect(await ids({ since: 250, until: 250 })).toStrictEqual(['3']);
        expect(await ids({ since: 301, until: 400 })).toStrictEqual([]);
        expect(await ids({ since: 0, until: 9 })).toStrictEqual([]);
        expect(await ids({ since: 100, until: 100 })).toStrictEqual(['1']);
        expect(await ids({ since: 0, until: 1_000, before: '3' })).toStrictEqual(['2', '1']);
      });
    });

    it('should filter by the reference code in the details, exactly', async () => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput({ entity: 'auth.session', action: 'failed', details: { reference: 'K7QX2M9P' } }));
        await store.audit.append(auditInput({ entity: 'auth.session', action: 'failed', details: { reference: 'AAAAAAAA' } }));
        await store.audit.append(auditInput({ entity: 'user', action: 'created', details: { note: 'K7QX2M9P' } }));
        const ids = async (query: AuditQuery): Promise<string[]> => (await store.audit.list(10, query)).map((e) => e.id);
        expect(await ids({ reference: 'K7QX2M9P' })).toStrictEqual(['1']);
        expect(await ids({ reference: 'k7qx2m9p' })).toStrictEqual([]);
        expect(await ids({ reference: 'K7QX2M9P', entity: 'user' })).toStrictEqual([]);
        expect(await ids({ reference: '' })).toStrictEqual([]);
      });
    });

    it.each(['0', 'x', '', '-1', '1.5'])('should list nothing for a before cursor that is not an entry id (%j)', async (before) => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput());
        expect(await store.audit.list(10, { before })).toStrictEqual([]);
      });
    });

    it('should reach every entry exactly once by paging, whatever is appended between pages (§6 rule 1)', async () => {
      await withStore(open, async (store) => {
        for (let i = 0; i < 60; i++) await store.audit.append(auditInput({ action: i % 7 === 0 ? 'created' : 'failed', timestamp: i }));
        const seen: AuditEntry[] = [];
        let before: string | undefined;
        for (let page = 0; page < 100; page++) {
          const rows = await store.audit.list(7, before === undefined ? {} : { before });
          if (rows.length === 0) break;
          seen.push(...rows);
          before = rows[rows.length - 1]?.id;
          // appended meanwhile: newer than every cursor, so never listed by the pages that follow
          await store.audit.append(auditInput({ action: 'later', timestamp: 100 + page }));
        }
        const ids = seen.map((e) => Number(e.id));
        expect(ids).toStrictEqual(Array.from({ length: 60 }, (_, i) => 60 - i));
        expect((await pageThrough(store, 4, { action: 'created' })).map((e) => e.timestamp)).toStrictEqual([56, 49, 42, 35, 28, 21, 14, 7, 0]);
      });
    });
  });

  describe('audit.purge', () => {
    it('should remove only entries whose lastAt is before the cutoff, oldest first, at most limit per call', async () => {
      await withStore(open, async (store) => {
        for (let t = 0; t < 10; t++) await store.audit.append(auditInput({ action: String(t), timestamp: t }));
        expect([await store.audit.purge(5, 3), await store.audit.purge(5, 3), await store.audit.purge(5, 3)]).toStrictEqual([3, 2, 0]);
        expect(await store.audit.purge(100, 0)).toBe(0);
        expect((await store.audit.list(100)).map((e) => e.action)).toStrictEqual(['9', '8', '7', '6', '5']);
      });
    });

    it('should keep a coalesced entry while its last occurrence is within retention, and start a new one after it is purged', async () => {
      await withStore(open, async (store) => {
        await store.audit.append(auditInput({ timestamp: 0, coalesceKey: 'k' }));
        await store.audit.append(auditInput({ timestamp: 50, coalesceKey: 'k' }));
        expect(await store.audit.purge(40, 10)).toBe(0);
        expect(await store.audit.purge(51, 10)).toBe(1);
        const fresh = await store.audit.append(auditInput({ timestamp: 60, coalesceKey: 'k' }));
        expect([fresh.count, fresh.firstAt]).toStrictEqual([1, 60]);
      });
    });

    it('should agree with a model (a plain list) on every sequence of appends, purges and listings', async () => {
      type Op = { kind: 'append'; key: string | null; dt: number } | { kind: 'purge'; age: number; limit: number };
      const op: fc.Arbitrary<Op> = fc.oneof(
        fc.record({ kind: fc.constant('append' as const), key: fc.option(fc.constantFrom('a', 'b'), { nil: null }), dt: fc.nat(5) }),
        fc.record({ kind: fc.constant('purge' as const), age: fc.nat(20), limit: fc.integer({ min: 1, max: 4 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
          await withStore(open, async (store) => {
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
                await store.audit.append(auditInput({ timestamp: t, ...(o.key === null ? {} : { coalesceKey: o.key }) }));
              } else {
                // a purge removes expired entries oldest first: at least the expired prefix (up to limit), and it may
                // leave an expired entry behind a kept one (coalescing moved that one's lastAt) for a later run
                const before = t - o.age;
                let prefix = 0;
                while (model[prefix] !== undefined && (model[prefix]?.lastAt ?? 0) < before) prefix++;
                const expired = model.filter((e) => e.lastAt < before).length;
                const removed = await store.audit.purge(before, o.limit);
                expect(removed).toBeGreaterThanOrEqual(Math.min(o.limit, prefix));
                expect(removed).toBeLessThanOrEqual(Math.min(o.limit, expired));
                const kept = new Set((await pageThrough(store, 50)).map((e) => Number(e.id)));
                const gone = model.filter((e) => !kept.has(e.id));
                expect(gone.length).toBe(removed);
                expect(gone.every((e) => e.lastAt < before)).toBe(true);
                model = model.filter((e) => kept.has(e.id));
              }
            }
            const listed = await pageThrough(store, 3);
            expect(listed.map((e) => [Number(e.id), e.count, e.firstAt, e.lastAt])).toStrictEqual(
              [...model].reverse().map((e) => [e.id, e.count, e.firstAt, e.lastAt]),
            );
          });
        }),
        { numRuns: options.modelRuns },
      );
    });
  });
}
