/**
 * The memory store's ephemeral entries: flow state, SAML request ids and throttle records, each with a time to
 * live judged by the `now` a caller passes (the store reads no clock). An expired entry is invisible to every read
 * and stays stored until {@link EphemeralStore.purgeExpired} removes it.
 *
 * Per kind, the stored rows are the truth (journaled, so a transaction can undo them); beside them sit derived
 * indexes of the live entries: per group in order of last `put`, groups bucketed by how many live entries they
 * hold (the heaviest group in O(1)), an expiry heap that retires entries as `now` passes them, and the retired
 * entries awaiting a purge. Counting, the heaviest group, evicting a group's oldest and purging a batch then cost
 * O(1) or O(log n) per entry touched. A `now` earlier than one already seen (a clock stepped back) is answered by
 * a scan of the rows, and an undone transaction marks the indexes for a rebuild, so every answer stays exact.
 *
 * @module
 */
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';
import { boundOf } from './tokens.js';
import type { EphemeralEntry, EphemeralGroupCount, EphemeralKind, EphemeralStore } from '../types.js';

/** An entry with the order of its last `put` (a new object per put, so identity tells puts apart). */
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

/** A binary min-heap of stored entries by `expiresAt`. */
class ExpiryHeap {
  private items: Stored[] = [];

  /** The entry that expires first, or `undefined`. */
  peek(): Stored | undefined {
    return this.items[0];
  }

  /** Adds an entry. */
  push(s: Stored): void {
    const items = this.items;
    items.push(s);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (p === undefined || p.entry.expiresAt <= s.entry.expiresAt) break;
      items[i] = p;
      i = parent;
    }
    items[i] = s;
  }

  /** Removes and returns the entry that expires first. */
  pop(): Stored | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      let leastAt = last.entry.expiresAt;
      const left = items[l];
      const right = items[r];
      if (left !== undefined && left.entry.expiresAt < leastAt) [least, leastAt] = [l, left.entry.expiresAt];
      if (right !== undefined && right.entry.expiresAt < leastAt) least = r;
      if (least === i) break;
      const child = items[least];
      if (child === undefined) break;
      items[i] = child;
      i = least;
    }
    items[i] = last;
    return top;
  }

  /** Empties the heap. */
  clear(): void {
    this.items = [];
  }
}

/** The live-entry indexes of one kind (derived from its rows, never journaled). */
interface LiveIndex {
  /** group -> its live entries by key, in order of last put. */
  readonly byGroup: Map<string, Map<string, Stored>>;
  /** live count -> the groups holding that many (counts of at least 1). */
  readonly groupsByCount: Map<number, Set<string>>;
  heaviest: number;
  live: number;
  /** Expired entries not yet purged, in the order they were retired. */
  readonly retired: Map<string, Stored>;
  readonly heap: ExpiryHeap;
  /** The latest `now` the index has retired entries up to. */
  watermark: number;
}

/** Moves `group` from the bucket of count `from` to that of `to`, keeping the heaviest count current. */
function rebucket(ix: LiveIndex, group: string, from: number, to: number): void {
  const old = ix.groupsByCount.get(from);
  old?.delete(group);
  if (old !== undefined && old.size === 0) ix.groupsByCount.delete(from);
  if (to > 0) {
    const bucket = ix.groupsByCount.get(to);
    if (bucket === undefined) ix.groupsByCount.set(to, new Set([group]));
    else bucket.add(group);
  }
  // counts move by one, so the heaviest count moves by at most one
  if (to > ix.heaviest) ix.heaviest = to;
  else if (from === ix.heaviest && !ix.groupsByCount.has(from)) ix.heaviest = to;
}

function addLive(ix: LiveIndex, s: Stored): void {
  const group = s.entry.group;
  let own = ix.byGroup.get(group);
  if (own === undefined) {
    own = new Map();
    ix.byGroup.set(group, own);
  }
  own.set(s.entry.key, s);
  rebucket(ix, group, own.size - 1, own.size);
  ix.live++;
  ix.heap.push(s);
}

/** Forgets `s` in the index, live or retired. */
function dropIndexed(ix: LiveIndex, s: Stored): void {
  if (ix.retired.get(s.entry.key) === s) {
    ix.retired.delete(s.entry.key);
    return;
  }
  const own = ix.byGroup.get(s.entry.group);
  if (own?.get(s.entry.key) !== s) return;
  own.delete(s.entry.key);
  rebucket(ix, s.entry.group, own.size + 1, own.size);
  if (own.size === 0) ix.byGroup.delete(s.entry.group);
  ix.live--;
}

/** One kind's rows and live index. */
interface KindTable {
  readonly rows: TrackedMap<string, Stored>;
  ix: LiveIndex;
  /** Whether an undone transaction changed the rows since the index was built. */
  dirty: boolean;
}

function emptyIndex(watermark: number): LiveIndex {
  const ix: LiveIndex = {
    byGroup: new Map(),
    groupsByCount: new Map(),
    heaviest: 0,
    live: 0,
    retired: new Map(),
    heap: new ExpiryHeap(),
    watermark,
  };
  return ix;
}

/** Rebuilds `t`'s index from its rows, in put order. */
function rebuild(t: KindTable): LiveIndex {
  const ix = emptyIndex(t.ix.watermark);
  for (const s of [...t.rows.values()].sort((a, b) => a.seq - b.seq)) {
    if (s.entry.expiresAt <= ix.watermark) ix.retired.set(s.entry.key, s);
    else addLive(ix, s);
  }
  return ix;
}

/**
 * Brings the index up to `now`: retires every live entry that expired by then. Returns `false` when `now` is
 * earlier than a time already seen: the caller then answers from the rows.
 */
function retireUpTo(t: KindTable, now: number): boolean {
  const ix = t.ix;
  if (now < ix.watermark) return false;
  ix.watermark = now;
  for (let s = ix.heap.peek(); s !== undefined && s.entry.expiresAt <= now; s = ix.heap.peek()) {
    ix.heap.pop();
    const own = ix.byGroup.get(s.entry.group);
    // a heap item whose entry was taken, deleted or put again since is stale: skip it
    if (own?.get(s.entry.key) !== s) continue;
    dropIndexed(ix, s);
    ix.retired.set(s.entry.key, s);
  }
  return true;
}

const liveAt = (s: Stored, now: number): boolean => s.entry.expiresAt > now;

/** The answers of a kind by a scan of its rows (for a `now` earlier than one already seen). */
function scanCount(t: KindTable, now: number, group: string | undefined): number {
  let n = 0;
  for (const s of t.rows.values()) if (liveAt(s, now) && (group === undefined || s.entry.group === group)) n++;
  return n;
}

function scanHeaviest(t: KindTable, now: number): EphemeralGroupCount | null {
  const counts = new Map<string, number>();
  for (const s of t.rows.values()) if (liveAt(s, now)) counts.set(s.entry.group, (counts.get(s.entry.group) ?? 0) + 1);
  let heaviest: EphemeralGroupCount | null = null;
  for (const [group, count] of counts) if (heaviest === null || count > heaviest.count) heaviest = { group, count };
  return heaviest;
}

function scanOldest(t: KindTable, group: string, now: number): Stored | null {
  let oldest: Stored | null = null;
  for (const s of t.rows.values()) {
    if (s.entry.group === group && liveAt(s, now) && (oldest === null || s.seq < oldest.seq)) oldest = s;
  }
  return oldest;
}

/** Deletes at most `max` expired rows of `t` through `remove`; returns how many. */
function purgeKind(t: KindTable, now: number, max: number, remove: (t: KindTable, s: Stored) => void): number {
  const doomed: Stored[] = [];
  if (retireUpTo(t, now)) {
    for (const s of t.ix.retired.values()) {
      if (doomed.length >= max) break;
      doomed.push(s);
    }
  } else {
    for (const s of t.rows.values()) {
      if (doomed.length >= max) break;
      if (!liveAt(s, now)) doomed.push(s);
    }
  }
  for (const s of doomed) remove(t, s);
  return doomed.length;
}

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
  const kinds = new Map<EphemeralKind, KindTable>();
  let nextSeq = 1;
  /** The kind's table with an index that is current (rebuilt after an undone transaction). */
  const table = (kind: EphemeralKind): KindTable => {
    let t = kinds.get(kind);
    if (t === undefined) {
      t = { rows: new TrackedMap<string, Stored>(journal), ix: emptyIndex(Number.NEGATIVE_INFINITY), dirty: false };
      kinds.set(kind, t);
    } else if (t.dirty) {
      t.ix = rebuild(t);
      t.dirty = false;
    }
    return t;
  };
  /** Marks the table's index for a rebuild if the transaction this write belongs to is undone. */
  const markOnUndo = (t: KindTable): void =>
    journal.record(() => {
      t.dirty = true;
    });
  const remove = (t: KindTable, s: Stored): void => {
    t.rows.delete(s.entry.key);
    dropIndexed(t.ix, s);
    markOnUndo(t);
  };
  const find = (t: KindTable, key: string, now: number): Stored | null => {
    const s = t.rows.get(key);
    return s !== undefined && liveAt(s, now) ? s : null;
  };
  return {
    put: (entry) => {
      const t = table(entry.kind);
      const old = t.rows.get(entry.key);
      if (old !== undefined) remove(t, old);
      const s: Stored = { entry: copyEntry(entry), seq: nextSeq++ };
      t.rows.set(entry.key, s);
      if (entry.expiresAt <= t.ix.watermark) t.ix.retired.set(entry.key, s);
      else addLive(t.ix, s);
      markOnUndo(t);
    },
    get: (kind, key, now) => {
      const s = find(table(kind), key, now);
      return s === null ? null : copyEntry(s.entry);
    },
    take: (kind, key, now) => {
      const t = table(kind);
      const s = find(t, key, now);
      if (s === null) return null;
      remove(t, s);
      return copyEntry(s.entry);
    },
    delete: (kind, key, now) => {
      const t = table(kind);
      const s = t.rows.get(key);
      if (s === undefined) return false;
      remove(t, s);
      return liveAt(s, now);
    },
    count: (kind, now, group) => {
      const t = table(kind);
      if (!retireUpTo(t, now)) return scanCount(t, now, group);
      return group === undefined ? t.ix.live : (t.ix.byGroup.get(group)?.size ?? 0);
    },
    heaviestGroup: (kind, now) => {
      const t = table(kind);
      if (!retireUpTo(t, now)) return scanHeaviest(t, now);
      const first = t.ix.groupsByCount.get(t.ix.heaviest)?.values().next();
      return first === undefined || first.done === true ? null : { group: first.value, count: t.ix.heaviest };
    },
    deleteOldest: (kind, group, now) => {
      const t = table(kind);
      const oldest = retireUpTo(t, now) ? (t.ix.byGroup.get(group)?.values().next().value ?? null) : scanOldest(t, group, now);
      if (oldest === null) return null;
      remove(t, oldest);
      return copyEntry(oldest.entry);
    },
    purgeExpired: (now, limit) => {
      const max = boundOf(limit);
      let removed = 0;
      for (const kind of [...kinds.keys()]) removed += purgeKind(table(kind), now, max - removed, remove);
      return removed;
    },
  };
}
