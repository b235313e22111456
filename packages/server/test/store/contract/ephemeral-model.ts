/**
 * Model-based sequences of ephemeral operations with a clock that only moves forward, against a plain list: what
 * every read returns, which entry an eviction removes, and how many entries a purge removes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ephemeralEntry, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { EphemeralEntry, Store } from '../../../src/store/types.js';

interface Model {
  now: number;
  /** Stored entries, oldest put first (expired ones stay until purged). */
  entries: EphemeralEntry[];
}
type Real = { store: Store };
type Cmd = fc.AsyncCommand<Model, Real>;

const KEYS = ['k1', 'k2', 'k3', 'k4'] as const;
const GROUPS = ['g1', 'g2', 'g3'] as const;
const live = (m: Readonly<Model>): EphemeralEntry[] => m.entries.filter((e) => e.expiresAt > m.now);
const find = (m: Readonly<Model>, key: string): EphemeralEntry | null => live(m).find((e) => e.key === key) ?? null;

const command = (name: string, run: (m: Model, r: Real) => Promise<void>): Cmd => ({ check: () => true, run, toString: () => name });

const put = (key: string, group: string, ttl: number): Cmd =>
  command(`put(${key}, ${group}, ${ttl})`, async (m, r) => {
    const entry = ephemeralEntry(key, { group, expiresAt: m.now + ttl, value: `${key}@${m.now}` });
    await r.store.ephemeral.put(entry);
    m.entries = [...m.entries.filter((e) => e.key !== key), entry];
  });

const read = (key: string, how: 'get' | 'take' | 'delete'): Cmd =>
  command(`${how}(${key})`, async (m, r) => {
    const expected = find(m, key);
    if (how === 'get') expect(await r.store.ephemeral.get('flow_state', key, m.now)).toStrictEqual(expected);
    if (how === 'take') expect(await r.store.ephemeral.take('flow_state', key, m.now)).toStrictEqual(expected);
    if (how === 'delete') expect(await r.store.ephemeral.delete('flow_state', key, m.now)).toBe(expected !== null);
    // take removes only a live entry (an expired one waits for the purge); delete removes the entry whatever its age
    if (how === 'delete' || (how === 'take' && expected !== null)) m.entries = m.entries.filter((e) => e.key !== key);
  });

const advance = (dt: number): Cmd =>
  command(`advance(${dt})`, async (m) => {
    m.now += dt;
  });

const counts = (group: string): Cmd =>
  command(`counts(${group})`, async (m, r) => {
    const all = live(m);
    expect(await r.store.ephemeral.count('flow_state', m.now)).toBe(all.length);
    expect(await r.store.ephemeral.count('flow_state', m.now, group)).toBe(all.filter((e) => e.group === group).length);
    const heaviest = await r.store.ephemeral.heaviestGroup('flow_state', m.now);
    const max = Math.max(0, ...GROUPS.map((g) => all.filter((e) => e.group === g).length));
    if (max === 0) expect(heaviest).toBeNull();
    else expect(heaviest === null ? null : [heaviest.count, all.filter((e) => e.group === heaviest.group).length]).toStrictEqual([max, max]);
  });

const deleteOldest = (group: string): Cmd =>
  command(`deleteOldest(${group})`, async (m, r) => {
    const oldest = live(m).find((e) => e.group === group) ?? null;
    expect(await r.store.ephemeral.deleteOldest('flow_state', group, m.now)).toStrictEqual(oldest);
    if (oldest !== null) m.entries = m.entries.filter((e) => e.key !== oldest.key);
  });

const purge = (limit: number): Cmd =>
  command(`purge(${limit})`, async (m, r) => {
    const expired = m.entries.filter((e) => e.expiresAt <= m.now);
    const removed = await r.store.ephemeral.purgeExpired(m.now, limit);
    expect(removed).toBe(Math.min(limit, expired.length));
    // which expired entries went does not matter: time only moves forward, so no read sees any of them again
    const gone = new Set(expired.slice(0, removed));
    m.entries = m.entries.filter((e) => !gone.has(e));
  });

const key = fc.constantFrom(...KEYS);
const group = fc.constantFrom(...GROUPS);
const commands = fc.commands(
  [
    fc.tuple(key, group, fc.integer({ min: 1, max: 20 })).map(([k, g, ttl]) => put(k, g, ttl)),
    fc.tuple(key, fc.constantFrom('get' as const, 'take' as const, 'delete' as const)).map(([k, how]) => read(k, how)),
    fc.integer({ min: 0, max: 10 }).map((dt) => advance(dt)),
    group.map((g) => counts(g)),
    group.map((g) => deleteOldest(g)),
    fc.integer({ min: 0, max: 3 }).map((limit) => purge(limit)),
  ],
  { maxCommands: 30 },
);

/** Registers the model-based ephemeral sequences. */
export function describeEphemeralModel(open: OpenStore, numRuns: number): void {
  describe('model-based sequences: ephemeral entries with a forward clock', () => {
    it('should agree with a plain list on every read, eviction and purge', async () => {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          await withStore(open, (store) => fc.asyncModelRun(() => ({ model: { now: 0, entries: [] }, real: { store } }), cmds));
        }),
        { numRuns },
      );
    });
  });
}
