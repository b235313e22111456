/**
 * The sign-in failures remembered per key (a username, a client address), for the core's
 * `decideSignInAttempt`. A throttled record (as many failures as the policy lets through free, or more: its next
 * attempt must wait) is never pushed out by another key, so a flood of new keys cannot free a throttled one. The
 * table is bounded by evicting, when full, the oldest record that is not throttled (it would let its key try
 * again at once anyway, so forgetting it frees no one); only when every record is throttled is a new key refused.
 *
 * @module
 */
import {
  decideSignInAttempt,
  expireSignInFailures,
  recordSignInFailure,
  withdrawSignInFailure,
  type SignInFailures,
  type SignInThrottlePolicy,
} from '../core/sign-in-throttle.js';

/**
 * What {@link ThrottleTable.check} decides for one key.
 *
 * @example
 * ```ts
 * const c: ThrottleCheck = { kind: 'throttle', retryAfterSeconds: 2 };
 * ```
 */
export type ThrottleCheck =
  /** The attempt may run now. */
  | { readonly kind: 'allow' }
  /** The key must wait (429). */
  | { readonly kind: 'throttle'; readonly retryAfterSeconds: number }
  /**
   * The key has no record and the table is full of throttled records: the attempt cannot be counted. The caller
   * refuses it (503) or lets it through uncounted, as its other bounds allow.
   */
  | { readonly kind: 'full'; readonly retryAfterSeconds: number };

/**
 * Failures remembered per key. Call {@link ThrottleTable.check} and then {@link ThrottleTable.record} with no
 * `await` between them, so that concurrent attempts see each other.
 *
 * @example
 * ```ts
 * const table = createThrottleTable(DEFAULT_SIGN_IN_THROTTLE_POLICY, 100_000);
 * if (table.check(key, now).kind === 'allow') table.record(key, now);
 * ```
 */
export interface ThrottleTable {
  /** Whether an attempt for `key` may run at `now`. */
  check(key: string, now: number): ThrottleCheck;
  /** Counts one failure for `key`, evicting the oldest un-throttled record for a new key in a full table (nothing when every record is throttled). */
  record(key: string, now: number): void;
  /** Forgets `key`'s failures. */
  clear(key: string): void;
  /** Takes back one provisionally counted failure of `key` (the attempt succeeded, or never ran). */
  withdraw(key: string): void;
  /** How many keys are remembered. */
  readonly size: number;
}

/**
 * Creates a table. Records live `forgetAfterMs` after their last failure, in two maps ordered by last failure:
 * un-throttled records (fewer failures than `freeFailures`) and throttled ones. Expired records sit at the front
 * of each and every check drops them there (amortised constant time). A new key in a full table evicts the
 * oldest un-throttled record (the front of its map, O(1)); a throttled record is never evicted, and a new key
 * while all `maxEntries` records are throttled is refused (`full`) until the oldest of them expires.
 *
 * @param policy - The throttle policy of the core (`forgetAfterMs` is the records' lifetime).
 * @param maxEntries - The most keys remembered at once (a positive integer).
 * @returns The table.
 *
 * @example
 * ```ts
 * const table = createThrottleTable({ freeFailures: 1, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 }, 2);
 * table.record('a', 0);
 * table.record('b', 0);
 * table.check('c', 0); // { kind: 'full', retryAfterSeconds: 900 }  (a and b are throttled)
 * ```
 */
export function createThrottleTable(policy: SignInThrottlePolicy, maxEntries: number): ThrottleTable {
  /** Records whose key may still try at once (fewer failures than the free ones): evictable, oldest first. */
  const free = new Map<string, SignInFailures>();
  /** Records whose key must wait before its next attempt: never evicted, expire by time only. */
  const held = new Map<string, SignInFailures>();
  const isThrottled = (failures: SignInFailures): boolean => failures.count >= policy.freeFailures;
  const sweepOne = (entries: Map<string, SignInFailures>, now: number): void => {
    for (const [key, failures] of entries) {
      const kept = expireSignInFailures({ now, previous: failures, policy });
      if (kept.isOk() && kept.value !== null) break;
      entries.delete(key);
    }
  };
  const sweep = (now: number): void => {
    sweepOne(free, now);
    sweepOne(held, now);
  };
  const lookup = (key: string): SignInFailures | null => free.get(key) ?? held.get(key) ?? null;
  const put = (key: string, failures: SignInFailures | null): void => {
    free.delete(key);
    held.delete(key);
    if (failures !== null) (isThrottled(failures) ? held : free).set(key, failures);
  };
  /** Whether a new key can be remembered now: room left, or an un-throttled record to evict. */
  const hasRoom = (): boolean => free.size + held.size < maxEntries || free.size > 0;
  const untilOldestExpires = (now: number): number => {
    const oldest = held.values().next();
    const at = oldest.done === true ? now : oldest.value.lastFailureAt + policy.forgetAfterMs;
    return Math.max(1, Math.ceil((at - now) / 1000));
  };
  return {
    check(key, now) {
      sweep(now);
      const failures = lookup(key);
      if (failures === null && !hasRoom()) return { kind: 'full', retryAfterSeconds: untilOldestExpires(now) };
      const decision = decideSignInAttempt({ now, failures, policy });
      // a clock that returns nonsense cannot decide: refuse rather than run the hash unthrottled
      if (decision.isErr()) return { kind: 'throttle', retryAfterSeconds: 1 };
      return decision.value.kind === 'throttle' ? { kind: 'throttle', retryAfterSeconds: decision.value.retryAfterSeconds } : { kind: 'allow' };
    },
    record(key, now) {
      const previous = lookup(key);
      if (previous === null) {
        if (!hasRoom()) return;
        if (free.size + held.size >= maxEntries) {
          const oldest = free.keys().next();
          if (oldest.done !== true) free.delete(oldest.value);
        }
      }
      const next = recordSignInFailure({ now, previous, policy });
      if (next.isErr()) return;
      put(key, next.value);
    },
    clear(key) {
      put(key, null);
    },
    withdraw(key) {
      const previous = lookup(key);
      if (previous === null) return;
      const next = withdrawSignInFailure({ previous });
      if (next.isErr()) return;
      if (next.value !== null && isThrottled(next.value) === isThrottled(previous)) {
        // same map: keep its place (the last failure did not change)
        (isThrottled(previous) ? held : free).set(key, next.value);
        return;
      }
      // A record that drops back below the free failures joins the evictable ones at the back, although its last
      // failure may be older than theirs: it is evicted or swept a little later than strict order would, never early.
      put(key, next.value);
    },
    get size() {
      return free.size + held.size;
    },
  };
}

/** The eight 16-bit groups of an IPv6 address in lower-case hex, or `null` when it is not one. */
function ipv6Groups(address: string): readonly string[] | null {
  const bare = address.split('%')[0] ?? '';
  const halves = bare.split('::');
  if (halves.length > 2) return null;
  const split = (part: string | undefined): string[] => (part === undefined || part === '' ? [] : part.split(':'));
  const head = split(halves[0]);
  const tail = split(halves[1]);
  const groups = halves.length === 2 ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail] : head;
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * The key a client address is throttled under: an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 form), an IPv6 address by its /64 network, since one host commonly holds a whole /64 and could otherwise
 * start afresh with each of its addresses.
 *
 * @param address - The client address (`clientAddress(req)`).
 * @returns The throttle key.
 *
 * @example
 * ```ts
 * addressThrottleKey('192.0.2.7');              // '192.0.2.7'
 * addressThrottleKey('::ffff:192.0.2.7');       // '192.0.2.7'
 * addressThrottleKey('2001:db8:1:2:aa:bb:cc:dd'); // '2001:db8:1:2::/64'
 * ```
 */
export function addressThrottleKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  const groups = address.includes(':') ? ipv6Groups(address) : null;
  return groups === null ? address : `${groups.slice(0, 4).join(':')}::/64`;
}
