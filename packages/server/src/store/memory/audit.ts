/**
 * The memory store's audit log (spec §6): entries in append order in an array with a moving head, so appending is
 * O(1) whatever the size, coalescing updates one entry in place by key, and expiry by age drops entries from the
 * front in amortised O(1) each (the array is compacted only once the dropped prefix is at least half of it, and
 * never inside a transaction, so undo steps can address positions). Ids are sequential from 1 and each new entry
 * takes the next array position, so the entry with id `n` sits at absolute position `n - 1`: a `before` cursor is
 * found in O(1), and a listing copies only the entries it returns.
 *
 * @module
 */
import { coalesceAuditDetails } from 'gatehouse-auth';
import type { Journal } from './journal.js';
import { occurrencesOf } from '../types.js';
import type { AuditEntry, AuditQuery, NewAuditEntry } from '../types.js';

/**
 * The audit log of {@link createMemoryAuditLog}: the synchronous `AuditStore` with counters for cost tests.
 *
 * @internal
 */
export interface MemoryAuditLog {
  /** Appends an entry, or counts one more occurrence in the kept entry with the same `coalesceKey`. */
  append(entry: NewAuditEntry): AuditEntry;
  /** At most `first` entries, newest first, older than `query.before` and matching its filters. */
  list(first: number, query?: AuditQuery): readonly AuditEntry[];
  /** Removes, oldest first, at most `limit` entries whose `lastAt` is before `before`, stopping at the first kept. */
  purge(before: number, limit: number): number;
  /** How many entries are kept. */
  readonly size: number;
  /** How many entries compaction has copied so far (the work beyond O(1) per append): for tests. */
  readonly moved: number;
  /** How many entry positions listings have visited so far: for tests. */
  readonly visited: number;
}

interface Slot {
  readonly entry: AuditEntry;
  readonly key: string | null;
}

const COMPACT_AT_LEAST = 1024;

const copyEntry = (e: AuditEntry): AuditEntry => ({ ...e, details: { ...e.details } });

/** Whether `e` passes every filter of `query` but the cursor. */
function matches(e: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.entity === undefined || e.entity === query.entity) &&
    (query.action === undefined || e.action === query.action) &&
    (query.actorUserId === undefined || e.actorUserId === query.actorUserId) &&
    (query.since === undefined || e.lastAt >= query.since) &&
    (query.until === undefined || e.timestamp <= query.until) &&
    (query.reference === undefined || e.details['reference'] === query.reference)
  );
}

/**
 * Creates an empty audit log writing its undo steps to `journal`.
 *
 * @param journal - Where writes record their undo steps (none outside a transaction).
 * @returns The log.
 * @example
 * ```ts
 * const log = createMemoryAuditLog(new Journal());
 * log.append(entry).id; // '1'
 * ```
 * @internal
 */
export function createMemoryAuditLog(journal: Journal): MemoryAuditLog {
  // items[i] holds the entry at absolute position base + i; positions before base + head are gone
  let items: (Slot | undefined)[] = [];
  let head = 0;
  let base = 0;
  let moved = 0;
  let visited = 0;
  let nextId = 1;
  const positionByKey = new Map<string, number>();

  const compact = (): void => {
    if (journal.active || head < COMPACT_AT_LEAST || head * 2 < items.length) return;
    items = items.slice(head);
    moved += items.length;
    base += head;
    head = 0;
  };

  const coalesce = (index: number, slot: Slot, input: NewAuditEntry): AuditEntry => {
    const occurrences = occurrencesOf(input);
    const updated: AuditEntry = {
      ...slot.entry,
      count: slot.entry.count + occurrences.count,
      lastAt: Math.max(slot.entry.lastAt, occurrences.lastAt),
      details: coalesceAuditDetails(slot.entry.details, input.details),
    };
    items[index] = { entry: updated, key: slot.key };
    journal.record(() => {
      items[index] = slot;
    });
    return updated;
  };

  const append = (input: NewAuditEntry): AuditEntry => {
    const { coalesceKey, count: _count, lastAt: _lastAt, ...fields } = input;
    const occurrences = occurrencesOf(input);
    const key = coalesceKey ?? null;
    const position = key === null ? undefined : positionByKey.get(key);
    const slot = position === undefined ? undefined : items[position - base];
    if (slot !== undefined && position !== undefined) return copyEntry(coalesce(position - base, slot, input));
    const entry: AuditEntry = {
      ...fields,
      details: { ...fields.details },
      id: String(nextId++),
      count: occurrences.count,
      firstAt: input.timestamp,
      lastAt: occurrences.lastAt,
    };
    if (key !== null) positionByKey.set(key, base + items.length);
    items.push({ entry, key });
    journal.record(() => {
      items.pop();
      nextId--;
      if (key !== null) positionByKey.delete(key);
    });
    return copyEntry(entry);
  };

  const list = (first: number, query: AuditQuery = {}): readonly AuditEntry[] => {
    const n = Number.isSafeInteger(first) && first > 0 ? first : 0;
    const out: AuditEntry[] = [];
    let from = items.length - 1;
    if (query.before !== undefined) {
      const before = /^[1-9][0-9]{0,15}$/u.test(query.before) ? Number(query.before) : Number.NaN;
      // a cursor that is not an entry id lists nothing; the entry with id `before` sits at position before - 1
      if (!Number.isSafeInteger(before)) return out;
      from = Math.min(from, before - 2 - base);
    }
    for (let i = from; i >= head && out.length < n; i--) {
      visited++;
      const slot = items[i];
      if (slot !== undefined && matches(slot.entry, query)) out.push(copyEntry(slot.entry));
    }
    return out;
  };

  const purge = (before: number, limit: number): number => {
    const max = Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
    let removed = 0;
    while (removed < max && head < items.length) {
      const index = head;
      const slot = items[index];
      if (slot !== undefined && !(slot.entry.lastAt < before)) break;
      const key = slot?.key ?? null;
      const forgetKey = key !== null && positionByKey.get(key) === base + index;
      if (key !== null && forgetKey) positionByKey.delete(key);
      items[index] = undefined;
      head++;
      removed++;
      journal.record(() => {
        items[index] = slot;
        head = index;
        if (key !== null && forgetKey) positionByKey.set(key, base + index);
      });
    }
    compact();
    return removed;
  };

  return {
    append,
    list,
    purge,
    get size() {
      return items.length - head;
    },
    get moved() {
      return moved;
    },
    get visited() {
      return visited;
    },
  };
}
