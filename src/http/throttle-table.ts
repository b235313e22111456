/**
 * The sign-in failures remembered per key (a username, a client address), for the core's
 * `decideSignInAttempt`. Records expire by time only: no key ever pushes another key's record out, so a flood of
 * new keys cannot free a throttled one. The table is bounded by refusing new keys while it is full.
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
  /** The key has no record and the table is full: the attempt cannot be counted, so it is refused (503). */
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
  /** Counts one failure for `key` (nothing when the key is new and the table is full). */
  record(key: string, now: number): void;
  /** Forgets `key`'s failures. */
  clear(key: string): void;
  /** Takes back one provisionally counted failure of `key` (the attempt succeeded, or never ran). */
  withdraw(key: string): void;
  /** How many keys are remembered. */
  readonly size: number;
}

/**
 * Creates a table. Insertion order is the order of the last failure, and every record lives `forgetAfterMs`
 * after its last failure, so expired records sit at the front and each check drops them there (amortised
 * constant time). A new key while `maxEntries` keys are remembered is refused (`full`) until the oldest record
 * expires; nothing is evicted.
 *
 * @param policy - The throttle policy of the core (`forgetAfterMs` is the records' lifetime).
 * @param maxEntries - The most keys remembered at once (a positive integer).
 * @returns The table.
 *
 * @example
 * ```ts
 * const table = createThrottleTable({ freeFailures: 5, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 }, 2);
 * table.record('a', 0);
 * table.record('b', 0);
 * table.check('c', 0); // { kind: 'full', retryAfterSeconds: 900 }
 * ```
 */
export function createThrottleTable(policy: SignInThrottlePolicy, maxEntries: number): ThrottleTable {
  const entries = new Map<string, SignInFailures>();
  const sweep = (now: number): void => {
    for (const [key, failures] of entries) {
      const kept = expireSignInFailures({ now, previous: failures, policy });
      if (kept.isOk() && kept.value !== null) break;
      entries.delete(key);
    }
  };
  const untilOldestExpires = (now: number): number => {
    const oldest = entries.values().next();
    const at = oldest.done === true ? now : oldest.value.lastFailureAt + policy.forgetAfterMs;
    return Math.max(1, Math.ceil((at - now) / 1000));
  };
  return {
    check(key, now) {
      sweep(now);
      const failures = entries.get(key) ?? null;
      if (failures === null && entries.size >= maxEntries) return { kind: 'full', retryAfterSeconds: untilOldestExpires(now) };
      const decision = decideSignInAttempt({ now, failures, policy });
      // a clock that returns nonsense cannot decide: refuse rather than run the hash unthrottled
      if (decision.isErr()) return { kind: 'throttle', retryAfterSeconds: 1 };
      return decision.value.kind === 'throttle' ? { kind: 'throttle', retryAfterSeconds: decision.value.retryAfterSeconds } : { kind: 'allow' };
    },
    record(key, now) {
      const previous = entries.get(key) ?? null;
      if (previous === null && entries.size >= maxEntries) return;
      const next = recordSignInFailure({ now, previous, policy });
      if (next.isErr()) return;
      entries.delete(key);
      entries.set(key, next.value);
    },
    clear(key) {
      entries.delete(key);
    },
    withdraw(key) {
      const previous = entries.get(key);
      if (previous === undefined) return;
      const next = withdrawSignInFailure({ previous });
      if (next.isErr()) return;
      if (next.value === null) entries.delete(key);
      else entries.set(key, next.value);
    },
    get size() {
      return entries.size;
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
