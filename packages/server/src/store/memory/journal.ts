/**
 * The memory store's two primitives for transactions: a {@link Turn} (an async mutex: while a transaction runs,
 * every other operation waits for its turn) and a {@link Journal} of undo steps that {@link TrackedMap} writes
 * record, so a failed transaction is undone step by step, newest first.
 *
 * @module
 */

/** One undo step: restores what one write changed. */
type Undo = () => void;

/**
 * The undo log of the running transaction. Outside a transaction nothing is recorded (a write is final at once).
 *
 * @example
 * ```ts
 * const journal = new Journal();
 * journal.begin();
 * journal.record(() => map.delete('k'));
 * journal.rollbackTo(0); // runs the undo step
 * ```
 * @internal
 */
export class Journal {
  private log: Undo[] | null = null;

  /** Whether a transaction is recording. */
  get active(): boolean {
    return this.log !== null;
  }

  /** How many undo steps are recorded (a savepoint for {@link Journal.rollbackTo}). */
  get length(): number {
    return this.log?.length ?? 0;
  }

  /** Starts recording (the outermost transaction). */
  begin(): void {
    this.log = [];
  }

  /** Stops recording, keeping every change. */
  end(): void {
    this.log = null;
  }

  /** Records how to undo a write that just happened (nothing outside a transaction). */
  record(undo: Undo): void {
    this.log?.push(undo);
  }

  /** Undoes every write recorded after `mark`, newest first. */
  rollbackTo(mark: number): void {
    const log = this.log;
    if (log === null) return;
    while (log.length > mark) log.pop()?.();
  }
}

/**
 * A `Map` whose writes record their undo steps in a {@link Journal}. Iteration order is insertion order, but an
 * undone delete re-inserts at the end: code that needs an order keeps it in the values (ids, sequence numbers).
 *
 * @example
 * ```ts
 * const users = new TrackedMap<string, UserRecord>(journal);
 * users.set('1', user);
 * ```
 * @internal
 */
export class TrackedMap<K, V extends NonNullable<unknown>> {
  private readonly map = new Map<K, V>();
  private readonly journal: Journal;

  /** @param journal - Where writes record their undo steps. */
  constructor(journal: Journal) {
    this.journal = journal;
  }

  /** How many entries the map holds. */
  get size(): number {
    return this.map.size;
  }

  /** The value under `key`, or `undefined`. */
  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Whether `key` is present. */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /** The values, in insertion order. */
  values(): IterableIterator<V> {
    return this.map.values();
  }

  /** The entries, in insertion order. */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  /** Sets `key` to `value`, recording how to restore the previous state. */
  set(key: K, value: V): void {
    const old = this.map.get(key);
    this.map.set(key, value);
    this.journal.record(old === undefined ? () => this.map.delete(key) : () => this.map.set(key, old));
  }

  /** Deletes `key`; returns whether it was present. */
  delete(key: K): boolean {
    const old = this.map.get(key);
    if (old === undefined) return false;
    this.map.delete(key);
    this.journal.record(() => this.map.set(key, old));
    return true;
  }
}

/**
 * An async mutex: one holder at a time, waiters served in arrival order (the turn passes straight to the next
 * waiter, so nobody can slip in between).
 *
 * @example
 * ```ts
 * const turn = new Turn();
 * await turn.acquire();
 * try { … } finally { turn.release(); }
 * ```
 * @internal
 */
export class Turn {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  /** Whether someone holds the turn. */
  get busy(): boolean {
    return this.held;
  }

  /** Resolves once the caller holds the turn. */
  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Passes the turn to the next waiter, or frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.held = false;
    else next();
  }
}

/**
 * The synchronous twin of an async store interface: the same methods, returning their results directly. The memory
 * store implements each concern this way and wraps every method so it runs inside its promise once it holds the
 * turn.
 *
 * @internal
 */
export type Sync<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};
