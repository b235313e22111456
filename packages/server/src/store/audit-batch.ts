/**
 * Audit entries recorded off the request path: each use is counted in memory under a key, and every `flushMs` one
 * entry per key is appended with the count and the times of the first and last use. A `token-sudo` request
 * (spec §5.1 rule 2) is recorded this way, so that a warm request costs no store round trip while every use is still
 * counted in the audit log (spec §6).
 *
 * Nothing is lost on a failing store: a batch whose append fails is kept and tried again at the next flush (merged
 * with the uses counted meanwhile). The uses counted but not yet written are at most `flushMs` old; `flush()` writes
 * them at once (the server calls it when it shuts down). Bounded: at most `maxKeys` keys wait; a use under a new key
 * past the bound is appended at once, on the request path, as it would be without a batch.
 *
 * @module
 */
import type { AuditEntry, AuditEvent, NewAuditEntry } from './types.js';

/**
 * Settings of {@link createAuditBatch}.
 */
export interface AuditBatchOptions {
  /** Appends one entry (with `count` and `lastAt` for a batch) to the store. */
  readonly append: (entry: NewAuditEntry) => Promise<AuditEntry>;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Called with each stored entry (the server logs it). */
  readonly onStored?: (entry: AuditEntry) => void;
  /** Called when an append fails (the batch is kept for the next flush). */
  readonly onError?: (error: unknown) => void;
  /** How long uses are counted before they are written (default {@link DEFAULT_AUDIT_BATCH_FLUSH_MS}). */
  readonly flushMs?: number;
  /** Most keys waiting at once (default {@link DEFAULT_AUDIT_BATCH_MAX_KEYS}). */
  readonly maxKeys?: number;
}

/** The default time uses are counted before they are written: 1 second. */
export const DEFAULT_AUDIT_BATCH_FLUSH_MS = 1_000;

/** The default most keys waiting at once: 10,000. */
export const DEFAULT_AUDIT_BATCH_MAX_KEYS = 10_000;

/**
 * Counts audit events in memory and writes them in batches (see the module comment).
 */
export interface AuditBatch {
  /**
   * Counts one use of `event` under `key` (uses with one key are one entry per flush: the details of the last
   * use are kept). Resolves at once when the use is counted; past the bound on keys, once it is appended.
   */
  record(key: string, event: AuditEvent): Promise<void>;
  /** Writes every counted use now; resolves when the store has them (or the appends failed and were kept). */
  flush(): Promise<void>;
  /** How many keys wait. */
  readonly pending: number;
}

interface Pending {
  event: AuditEvent;
  count: number;
  firstAt: number;
  lastAt: number;
}

/**
 * Creates an empty batch.
 *
 * @param options - The store's append, the clock, the flush interval and the bound.
 * @returns The batch.
 *
 * @example
 * ```ts
 * const batch = createAuditBatch({ append: (entry) => store.audit.append(entry), now: Date.now });
 * void batch.record(`${tokenId}:${targetId}`, { entity: 'auth.accessToken', action: 'sudo', ... });
 * await batch.flush(); // one entry with `count` = the number of uses
 * ```
 */
export function createAuditBatch(options: AuditBatchOptions): AuditBatch {
  const { append, now } = options;
  const flushMs = Math.max(1, options.flushMs ?? DEFAULT_AUDIT_BATCH_FLUSH_MS);
  const maxKeys = Math.max(0, options.maxKeys ?? DEFAULT_AUDIT_BATCH_MAX_KEYS);
  let waiting = new Map<string, Pending>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  const store = async (p: Pending): Promise<void> => {
    const stored = await append({ ...p.event, timestamp: p.firstAt, ...(p.count === 1 ? {} : { count: p.count, lastAt: p.lastAt }) });
    options.onStored?.(stored);
  };

  const keep = (key: string, p: Pending): void => {
    const there = waiting.get(key);
    if (there === undefined) {
      waiting.set(key, p);
      return;
    }
    there.count += p.count;
    there.firstAt = Math.min(there.firstAt, p.firstAt);
    if (p.lastAt >= there.lastAt) {
      there.lastAt = p.lastAt;
    } else {
      there.event = p.event;
    }
  };

  const writeAll = async (): Promise<void> => {
    const batch = waiting;
    waiting = new Map();
    for (const [key, p] of batch) {
      try {
        await store(p);
      } catch (error: unknown) {
        // kept for the next flush, merged with what was counted meanwhile
        keep(key, p);
        options.onError?.(error);
      }
    }
    if (waiting.size > 0) schedule();
  };

  function flush(): Promise<void> {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    // one flush at a time: entries are appended in the order their first use was counted
    running = running.then(writeAll);
    return running;
  }

  function schedule(): void {
    if (timer !== null) return;
    timer = setTimeout(() => void flush(), flushMs);
    timer.unref();
  }

  return {
    record(key, event) {
      const at = now();
      const there = waiting.get(key);
      if (there !== undefined) {
        there.count++;
        there.lastAt = Math.max(there.lastAt, at);
        there.event = event;
        return Promise.resolve();
      }
      if (waiting.size >= maxKeys) return store({ event, count: 1, firstAt: at, lastAt: at });
      waiting.set(key, { event, count: 1, firstAt: at, lastAt: at });
      schedule();
      return Promise.resolve();
    },
    flush,
    get pending() {
      return waiting.size;
    },
  };
}
