/**
 * The memory store's ephemeral indexes (live entries per group, the heaviest group, the expiry heap) against a
 * plain scan, under any order of `now` (a clock that steps back included) and transactions that are undone.
 */
import fc from 'fast-check';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/store/memory/store.js';
import type { EphemeralEntry, Store } from '../../../src/store/types.js';


type Row = { entry: EphemeralEntry; seq: number };
type Op =
  | { kind: 'put'; key: string; group: string; expiresAt: number }
  | { kind: 'get' | 'take' | 'delete'; key: string; now: number }
  | { kind: 'count'; group: string | null; now: number }
  | { kind: 'heaviest'; now: number }
  | { kind: 'oldest'; group: string; now: number }
  | { kind: 'purge'; now: number; limit: number };

const KEYS = ['a', 'b', 'c', 'd', 'e'];
const GROUPS = ['g1', 'g2', 'g3'];
const now = fc.integer({ min: 0, max: 40 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: fc.constantFrom(...KEYS), group: fc.constantFrom(...GROUPS), expiresAt: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constantFrom('get' as const, 'take' as const, 'delete' as const), key: fc.constantFrom(...KEYS), now }),
  fc.record({ kind: fc.constant('count' as const), group: fc.option(fc.constantFrom(...GROUPS), { nil: null }), now }),
  fc.record({ kind: fc.constant('heaviest' as const), now }),
  fc.record({ kind: fc.constant('oldest' as const), group: fc.constantFrom(...GROUPS), now }),
  fc.record({ kind: fc.constant('purge' as const), now, limit: fc.integer({ min: 0, max: 3 }) }),
);

const entryOf = (o: Extract<Op, { kind: 'put' }>): EphemeralEntry => ({ kind: 'flow_state', key: o.key, group: o.group, value: `${o.key}:${o.expiresAt}`, expiresAt: o.expiresAt });

/** Applies `o` to the store and the model (a list in put order), checking the store's answer against a scan. */
async function apply(store: Store, model: Row[], o: Op, seq: number): Promise<Row[]> {
  const live = (t: number) => model.filter((r) => r.entry.expiresAt > t);
  switch (o.kind) {
    case 'put':
      await store.ephemeral.put(entryOf(o));
      return [...model.filter((r) => r.entry.key !== o.key), { entry: entryOf(o), seq }];
    case 'get':
    case 'take':
    case 'delete': {
      const found = live(o.now).find((r) => r.entry.key === o.key)?.entry ?? null;
      if (o.kind === 'get') expect(await store.ephemeral.get('flow_state', o.key, o.now)).toStrictEqual(found);
      if (o.kind === 'take') expect(await store.ephemeral.take('flow_state', o.key, o.now)).toStrictEqual(found);
      if (o.kind === 'delete') expect(await store.ephemeral.delete('flow_state', o.key, o.now)).toBe(found !== null);
      // take removes only a live entry; delete removes the entry whatever its expiry
      return o.kind === 'get' || (o.kind === 'take' && found === null) ? model : model.filter((r) => r.entry.key !== o.key);
    }
    case 'count':
      expect(await store.ephemeral.count('flow_state', o.now, ...(o.group === null ? [] : [o.group]))).toBe(
        live(o.now).filter((r) => o.group === null || r.entry.group === o.group).length,
      );
      return model;
    case 'heaviest': {
      const counts = GROUPS.map((g) => live(o.now).filter((r) => r.entry.group === g).length);
      const max = Math.max(...counts);
      const heaviest = await store.ephemeral.heaviestGroup('flow_state', o.now);
      if (max === 0) expect(heaviest).toBeNull();
      else expect([heaviest?.count, counts[GROUPS.indexOf(heaviest?.group ?? '')]]).toStrictEqual([max, max]);
      return model;
    }
    case 'oldest': {
      const oldest = live(o.now).filter((r) => r.entry.group === o.group).sort((x, y) => x.seq - y.seq)[0] ?? null;
      expect(await store.ephemeral.deleteOldest('flow_state', o.group, o.now)).toStrictEqual(oldest?.entry ?? null);
      return oldest === null ? model : model.filter((r) => r !== oldest);
    }
    case 'purge': {
      const expired = model.filter((r) => r.entry.expiresAt <= o.now);
      const removed = await store.ephemeral.purgeExpired(o.now, o.limit);
      expect(removed).toBe(Math.min(o.limit, expired.length));
      // which expired entries went is the store's choice: ask it (an earlier `now` still sees every stored row)
      const kept: Row[] = [];
      for (const r of model) if ((await store.ephemeral.get('flow_state', r.entry.key, Number.MIN_SAFE_INTEGER)) !== null) kept.push(r);
      expect(model.length - kept.length).toBe(removed);
      expect(model.filter((r) => !kept.includes(r)).every((r) => r.entry.expiresAt <= o.now)).toBe(true);
      return kept;
    }
  }
}

describe('createMemoryStore ephemeral indexes', () => {
  it('should answer as a scan does, whatever the order of now, and after undone transactions', async () => {
    const batch = fc.record({ ops: fc.array(op, { maxLength: 6 }), commit: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(op.map((o) => ({ ops: [o], commit: null })), batch), { maxLength: 40 }), async (steps) => {
        const store = createMemoryStore();
        let model: Row[] = [];
        let seq = 0;
        for (const s of steps) {
          if (s.commit === null) {
            for (const o of s.ops) model = await apply(store, model, o, seq++);
            continue;
          }
          let inside = model;
          await store.transaction(async (tx) => {
            for (const o of s.ops) inside = await apply(tx, inside, o, seq++);
            return s.commit ? ok(undefined) : err(undefined);
          });
          if (s.commit) model = inside;
        }
        // a final full check at a late and an early time
        for (const t of [0, 20, 41]) await apply(store, model, { kind: 'count', group: null, now: t }, seq);
      }),
      { numRuns: 300 },
    );
  });

  it('should evict a flood of 100,000 entries, heaviest group first, without scanning per call', async () => {
    const store = createMemoryStore();
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) {
      await store.ephemeral.put({ kind: 'flow_state', key: `k${i}`, group: i % 10 === 0 ? 'flood' : `g${i % 1000}`, value: '', expiresAt: 1_000_000 });
      if ((await store.ephemeral.count('flow_state', i)) > 50_000) {
        const heaviest = await store.ephemeral.heaviestGroup('flow_state', i);
        const evicted = await store.ephemeral.deleteOldest('flow_state', heaviest?.group ?? '', i);
        expect(evicted?.group).toBe(heaviest?.group);
        if (i === 50_000) expect(heaviest).toStrictEqual({ group: 'flood', count: 5_001 });
      }
    }
    expect(await store.ephemeral.count('flow_state', 100_000)).toBe(50_000);
    // 100,000 puts with a count each: a scan per call would take minutes
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
