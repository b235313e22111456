/**
 * The memory store's audit log: entries in append order in an array with a moving head, so appending is O(1)
 * whatever the size, coalescing updates one entry in place by key, and expiry by age drops entries from the front
 * in amortised O(1) each (the array is compacted only once the dropped prefix is at least half of it). Ids are
 * sequential from 1 and each new entry takes the next array position, so the entry with id `n` sits at absolute
 * position `n - 1`: a `before` cursor is found in O(1), and a listing copies only the entries it returns.
 *
 * @module
 */
import { coalesceAuditDetails } from '../core/audit-retention.js';
import type { AuditEntry, AuditQuery, NewAuditEntry } from './store.js';

/**
 * The audit log of {@link createMemoryAuditLog}.
 *
 * @example
 * ```ts
 * const log = createMemoryAuditLog();
 * log.append({ timestamp: 0, entity: 'e', action: 'a', reason: null, actorUserId: null, subjectUserId: null, details: {} });
 * ```
 * @internal
 */
export interface MemoryAuditLog {
  /**
   * Appends an entry, or, when an entry with the same `coalesceKey` is still kept, counts one more occurrence in
   * it (`count + 1`, `lastAt` the new timestamp, details merged by the core's `coalesceAuditDetails`). Returns the
   * entry as stored.
   */
  append(entry: NewAuditEntry): AuditEntry;
  /**
   * At most `first` entries, newest first, older than `query.before` and matching its filters; see
   * `Store.listAudit`. It visits entries from the cursor down and stops after `first` matches.
   */
  list(first: number, query?: AuditQuery): readonly AuditEntry[];
  /**
   * Removes, oldest first, at most `limit` entries whose `lastAt` is before `before`, stopping at the first entry it
   * keeps; returns how many it removed.
   */
  purge(before: number, limit: number): number;
  /** How many entries are kept. */
  readonly size: number;
  /** How many entries compaction has copied so far (the work beyond O(1) per append): for tests. */
  readonly moved: number;
  /** How many entry positions listings have visited so far (the work of {@link MemoryAuditLog.list}): for tests. */
  readonly visited: number;
}

interface Slot {
  readonly entry: AuditEntry;
  readonly key: string | null;
}

const COMPACT_AT_LEAST = 1024;

/**
 * Creates an empty audit log.
 *
 * @returns The log.
 * @example
 * ```ts
 * const log = createMemoryAuditLog();
 * log.append(entry).id; // '1'
 * ```
 * @internal
 */
export function createMemoryAuditLog(): MemoryAuditLog {
  // items[i] holds the entry at absolute position base + i; positions before base + head are gone
  let items: (Slot | undefined)[] = [];
  let head = 0;
  let base = 0;
  let moved = 0;
  let visited = 0;
  let nextId = 1;
  const positionByKey = new Map<string, number>();

  const compact = (): void => {
    if (head < COMPACT_AT_LEAST || head * 2 < items.length) return;
    items = items.slice(head);
    moved += items.length;
    base += head;
    head = 0;
  };

  return {
    append(input) {
      const { coalesceKey, ...fields } = input;
      const key = coalesceKey ?? null;
      const position = key === null ? undefined : positionByKey.get(key);
      const slot = position === undefined ? undefined : items[position - base];
      if (slot !== undefined && position !== undefined) {
        const updated: AuditEntry = {
          ...slot.entry,
          count: slot.entry.count + 1,
          lastAt: Math.max(slot.entry.lastAt, input.timestamp),
          details: coalesceAuditDetails(slot.entry.details, input.details),
        };
        items[position - base] = { entry: updated, key: slot.key };
        return updated;
      }
      const entry: AuditEntry = {
        ...fields,
        details: { ...fields.details },
        id: String(nextId++),
        count: 1,
        firstAt: input.timestamp,
        lastAt: input.timestamp,
      };
      if (key !== null) positionByKey.set(key, base + items.length);
      items.push({ entry, key });
      return entry;
    },

    list(first, query = {}) {
      const n = Number.isSafeInteger(first) && first > 0 ? first : 0;
      const out: AuditEntry[] = [];
      let from = items.length - 1;
      if (query.before !== undefined) {
        const before = /^[1-9][0-9]{0,15}$/u.test(query.before) ? Number(query.before) : Number.NaN;
        // a cursor that is not an entry id lists nothing; the entry with id `before` sits at position before - 1
        if (!Number.isSafeInteger(before)) return out;
        from = Math.min(from, before - 2 - base);
      }
      const { entity, action, actorUserId } = query;
      for (let i = from; i >= head && out.length < n; i--) {
        visited++;
        const slot = items[i];
        if (slot === undefined) continue;
        const e = slot.entry;
        if (entity !== undefined && e.entity !== entity) continue;
        if (action !== undefined && e.action !== action) continue;
        if (actorUserId !== undefined && e.actorUserId !== actorUserId) continue;
        out.push(e);
      }
      return out;
    },

    purge(before, limit) {
      const max = Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
      let removed = 0;
      while (removed < max && head < items.length) {
        const slot = items[head];
        if (slot !== undefined && !(slot.entry.lastAt < before)) break;
        if (slot !== undefined && slot.key !== null && positionByKey.get(slot.key) === base + head) positionByKey.delete(slot.key);
        items[head] = undefined;
        head++;
        removed++;
      }
      compact();
      return removed;
    },

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
