/**
 * The memory store's ephemeral entries: flow state, SAML request ids and throttle records, each with a time to
 * live judged by the `now` a caller passes (the store reads no clock). An expired entry is invisible to every read
 * and stays stored until {@link EphemeralStore.purgeExpired} removes it. Entries of a kind are ordered by their last
 * `put` through a sequence number kept in the entry, so an undone change cannot reorder them.
 *
 * @module
 */
import { TrackedMap } from './memory-journal.js';
import type { Journal, Sync } from './memory-journal.js';
import { boundOf } from './memory-tokens.js';
import type { EphemeralEntry, EphemeralGroupCount, EphemeralKind, EphemeralStore } from './types.js';

/** An entry with the order of its last `put`. */
interface Stored {
  readonly entry: EphemeralEntry;
  readonly seq: number;
}

const copyEntry = (e: EphemeralEntry): EphemeralEntry => ({
  kind: e.kind,
  key: e.key,
  group: e.group,
  value: e.value,
  expiresAt: e.expiresAt,
});

const live = (s: Stored, now: number): boolean => s.entry.expiresAt > now;

/**
 * Creates the ephemeral part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @returns The synchronous operations.
 * @example
 * ```ts
 * const ephemeral = createMemoryEphemeral(new Journal());
 * ephemeral.put({ kind: 'flow_state', key: 'k', group: '203.0.113.0/24', value: '{}', expiresAt: 60_000 });
 * ephemeral.take('flow_state', 'k', 0)?.key; // 'k'
 * ```
 * @internal
 */
export function createMemoryEphemeral(journal: Journal): Sync<EphemeralStore> {
  const kinds = new Map<EphemeralKind, TrackedMap<string, Stored>>();
  let nextSeq = 1;
  const table = (kind: EphemeralKind): TrackedMap<string, Stored> => {
    let map = kinds.get(kind);
    if (map === undefined) {
      map = new TrackedMap<string, Stored>(journal);
      kinds.set(kind, map);
    }
    return map;
  };
  const find = (kind: EphemeralKind, key: string, now: number): Stored | null => {
    const stored = kinds.get(kind)?.get(key);
    return stored !== undefined && live(stored, now) ? stored : null;
  };
  const tally = (kind: EphemeralKind, now: number): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const s of kinds.get(kind)?.values() ?? []) {
      if (live(s, now)) counts.set(s.entry.group, (counts.get(s.entry.group) ?? 0) + 1);
    }
    return counts;
  };
  return {
    put: (entry) => {
      const map = table(entry.kind);
      // delete first, so the map's own order follows the last put as well
      map.delete(entry.key);
      map.set(entry.key, { entry: copyEntry(entry), seq: nextSeq++ });
    },
    get: (kind, key, now) => {
      const stored = find(kind, key, now);
      return stored === null ? null : copyEntry(stored.entry);
    },
    take: (kind, key, now) => {
      const stored = find(kind, key, now);
      if (stored === null) return null;
      table(kind).delete(key);
      return copyEntry(stored.entry);
    },
    delete: (kind, key, now) => {
      const existed = find(kind, key, now) !== null;
      kinds.get(kind)?.delete(key);
      return existed;
    },
    count: (kind, now, group) => {
      let n = 0;
      for (const s of kinds.get(kind)?.values() ?? []) if (live(s, now) && (group === undefined || s.entry.group === group)) n++;
      return n;
    },
    heaviestGroup: (kind, now) => {
      let heaviest: EphemeralGroupCount | null = null;
      for (const [group, count] of tally(kind, now)) if (heaviest === null || count > heaviest.count) heaviest = { group, count };
      return heaviest;
    },
    deleteOldest: (kind, group, now) => {
      let oldest: Stored | null = null;
      for (const s of kinds.get(kind)?.values() ?? []) {
        if (s.entry.group === group && live(s, now) && (oldest === null || s.seq < oldest.seq)) oldest = s;
      }
      if (oldest === null) return null;
      table(kind).delete(oldest.entry.key);
      return copyEntry(oldest.entry);
    },
    purgeExpired: (now, limit) => {
      const max = boundOf(limit);
      let removed = 0;
      for (const map of kinds.values()) {
        const doomed: string[] = [];
        for (const [key, s] of map.entries()) {
          if (removed + doomed.length >= max) break;
          if (!live(s, now)) doomed.push(key);
        }
        for (const key of doomed) map.delete(key);
        removed += doomed.length;
      }
      return removed;
    },
  };
}
