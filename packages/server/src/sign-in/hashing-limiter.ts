/**
 * A small semaphore with a bounded queue for password hashing (scrypt): at most a few hashes run at once, a
 * bounded number wait, each client address holds at most a few of those places, and any further attempt is
 * refused at once (the caller answers 503 with `Retry-After`) instead of queueing without end. Waiting clients
 * take turns (round robin, first come first served within one client), so one client's backlog never delays
 * another client by more than one hash per client waiting.
 *
 * @module
 */

/**
 * Bounds of password hashing.
 *
 * @example
 * ```ts
 * const limits: PasswordHashingLimits = { maxConcurrent: 2, maxQueued: 32, maxPerClient: 8 };
 * ```
 */
export interface PasswordHashingLimits {
  /** Hashes that run at once (a positive integer). Default 2. */
  readonly maxConcurrent?: number;
  /** Hashes that wait for a free place, clients taking turns (an integer ≥ 0). Default 32. */
  readonly maxQueued?: number;
  /** Places (running or waiting) one client address may hold (a positive integer). Default 8. */
  readonly maxPerClient?: number;
}

/**
 * The default bounds: 2 at once, 32 waiting, 8 places per client address.
 *
 * @example
 * ```ts
 * createHashingLimiter(DEFAULT_PASSWORD_HASHING_LIMITS);
 * ```
 */
export const DEFAULT_PASSWORD_HASHING_LIMITS: Required<PasswordHashingLimits> = Object.freeze({ maxConcurrent: 2, maxQueued: 32, maxPerClient: 8 });

/**
 * What {@link HashingLimiter.run} gives back.
 *
 * @example
 * ```ts
 * const r: HashingOutcome<boolean> = { kind: 'busy' };
 * ```
 */
export type HashingOutcome<T> =
  /** The work ran. */
  | { readonly kind: 'done'; readonly value: T }
  /** Every place was taken when the work was offered: it did not run. */
  | { readonly kind: 'busy' };

/**
 * Runs password hashing within bounds.
 *
 * @example
 * ```ts
 * const outcome = await limiter.run(clientAddress(req), () => verifyPassword(password, stored));
 * if (outcome.kind === 'busy') reply(503, …);
 * ```
 */
export interface HashingLimiter {
  /**
   * Runs `work` now or after the works queued before it; refuses it at once (`busy`) when the queue or the
   * client's share is full. The decision is taken synchronously, when `run` is called.
   */
  run<T>(client: string, work: () => Promise<T>): Promise<HashingOutcome<T>>;
}

const positive = (n: number): boolean => Number.isSafeInteger(n) && n >= 1;

/**
 * Checks and completes hashing limits.
 *
 * @param limits - The limits given, or `undefined`.
 * @returns The limits with defaults applied, or a message naming the bad field.
 *
 * @example
 * ```ts
 * resolveHashingLimits({ maxConcurrent: 0 }); // 'passwordHashing.maxConcurrent must be a positive integer.'
 * ```
 */
export function resolveHashingLimits(limits: PasswordHashingLimits | undefined): Required<PasswordHashingLimits> | string {
  const resolved = { ...DEFAULT_PASSWORD_HASHING_LIMITS, ...limits };
  if (!positive(resolved.maxConcurrent)) return 'passwordHashing.maxConcurrent must be a positive integer.';
  if (!Number.isSafeInteger(resolved.maxQueued) || resolved.maxQueued < 0) return 'passwordHashing.maxQueued must be an integer ≥ 0.';
  if (!positive(resolved.maxPerClient)) return 'passwordHashing.maxPerClient must be a positive integer.';
  return resolved;
}

/**
 * Creates a limiter.
 *
 * @param limits - Complete, valid limits ({@link resolveHashingLimits}).
 * @returns The limiter.
 *
 * @example
 * ```ts
 * const limiter = createHashingLimiter({ maxConcurrent: 1, maxQueued: 0, maxPerClient: 1 });
 * const first = limiter.run('a', slowHash);   // runs
 * await limiter.run('b', slowHash);           // { kind: 'busy' }
 * ```
 */
export function createHashingLimiter(limits: Required<PasswordHashingLimits>): HashingLimiter {
  let running = 0;
  let queued = 0;
  // Waiting works per client; the map's order is the clients' turn order.
  const waiting = new Map<string, (() => void)[]>();
  const held = new Map<string, number>();

  /** The next waiting work: the first client in turn, which then goes to the back of the line. */
  const takeTurn = (): (() => void) | null => {
    const first = waiting.entries().next();
    if (first.done === true) return null;
    const [client, works] = first.value;
    const next = works.shift() ?? null;
    waiting.delete(client);
    if (works.length > 0) waiting.set(client, works);
    if (next !== null) queued -= 1;
    return next;
  };

  const release = (client: string): void => {
    const count = (held.get(client) ?? 1) - 1;
    if (count <= 0) held.delete(client);
    else held.set(client, count);
    const next = takeTurn();
    if (next === null) running -= 1;
    else next(); // the place passes to the next in turn: `running` stays as it is
  };

  const enqueue = (client: string): Promise<void> =>
    new Promise<void>((resolve) => {
      const works = waiting.get(client);
      if (works === undefined) waiting.set(client, [resolve]);
      else works.push(resolve);
      queued += 1;
    });

  return {
    async run(client, work) {
      const mine = held.get(client) ?? 0;
      const runNow = running < limits.maxConcurrent;
      if (mine >= limits.maxPerClient || (!runNow && queued >= limits.maxQueued)) return { kind: 'busy' };
      held.set(client, mine + 1);
      if (runNow) running += 1;
      else await enqueue(client);
      try {
        return { kind: 'done', value: await work() };
      } finally {
        release(client);
      }
    },
  };
}
