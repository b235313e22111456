/**
 * The sign-in throttle's records in the store's ephemeral part (kind `throttle`), so that every instance behind a
 * load balancer counts the same failures. The core decides (`decideSignInAttempt`, `recordSignInFailure`,
 * `withdrawSignInFailure`); this module reads and writes the records inside one `store.transaction` per step, so
 * concurrent attempts see each other. Each table (per username, per client address) is bounded by `maxEntries`:
 * its records are in group `<table>:free` (fewer failures than the free ones: evictable, oldest first) or
 * `<table>:throttled` (never evicted; they expire by time only, `forgetAfterMs` after the last failure).
 *
 * @module
 */
import { ok } from 'neverthrow';
import {
  decideSignInAttempt,
  recordSignInFailure,
  withdrawSignInFailure,
  type SignInFailures,
  type SignInThrottlePolicy,
} from 'gatehouse-auth';
import type { Store } from './types.js';
import type { ThrottleCheck } from './throttle-table.js';
import { jsonObject } from '../kernel/json-object.js';

/**
 * One throttle table: its name (the record keys' and groups' prefix), policy and bound.
 *
 * @example
 * ```ts
 * const table: ThrottleTableSpec = { name: 'username', policy: DEFAULT_SIGN_IN_THROTTLE_POLICY, maxEntries: 100_000 };
 * ```
 */
export interface ThrottleTableSpec {
  /** `username` or `address`. */
  readonly name: string;
  /** The core's policy. */
  readonly policy: SignInThrottlePolicy;
  /** At most this many records. */
  readonly maxEntries: number;
}

/** A key in one table. */
interface Slot {
  readonly table: ThrottleTableSpec;
  readonly key: string;
}

const recordKey = (slot: Slot): string => `${slot.table.name}:${slot.key}`;
const group = (table: ThrottleTableSpec, throttled: boolean): string => `${table.name}:${throttled ? 'throttled' : 'free'}`;

/** The failures a stored record holds, or `null` for none (or a record this module did not write). */
async function read(store: Store, slot: Slot, now: number): Promise<SignInFailures | null> {
  const entry = await store.ephemeral.get('throttle', recordKey(slot), now);
  return entry === null ? null : parseFailures(entry.value);
}

function parseFailures(text: string): SignInFailures | null {
  const value = jsonObject(text);
  if (value === null) return null;
  const count: unknown = value['count'];
  const lastFailureAt: unknown = value['lastFailureAt'];
  return typeof count === 'number' && typeof lastFailureAt === 'number' ? { count, lastFailureAt } : null;
}

/** Writes (or, for `null`, removes) a slot's record, in the group its failures put it in. */
async function write(store: Store, slot: Slot, failures: SignInFailures | null, now: number): Promise<void> {
  if (failures === null) {
    await store.ephemeral.delete('throttle', recordKey(slot), now);
    return;
  }
  const throttled = failures.count >= slot.table.policy.freeFailures;
  await store.ephemeral.put({
    kind: 'throttle',
    key: recordKey(slot),
    group: group(slot.table, throttled),
    value: JSON.stringify(failures),
    expiresAt: failures.lastFailureAt + slot.table.policy.forgetAfterMs,
  });
}

/** How many records a table holds: free and throttled. */
async function counts(store: Store, table: ThrottleTableSpec, now: number): Promise<{ readonly free: number; readonly total: number }> {
  const free = await store.ephemeral.count('throttle', now, group(table, false));
  const throttled = await store.ephemeral.count('throttle', now, group(table, true));
  return { free, total: free + throttled };
}

/** Whether a new key can be remembered now: room left, or an un-throttled record to evict. */
async function hasRoom(store: Store, table: ThrottleTableSpec, now: number): Promise<boolean> {
  const { free, total } = await counts(store, table, now);
  return total < table.maxEntries || free > 0;
}

/** The check of one slot (`full` when the key is new and every record of its table is throttled). */
async function check(store: Store, slot: Slot, now: number): Promise<ThrottleCheck> {
  const failures = await read(store, slot, now);
  // Retry-After of a full table: the most any record has left to live, so the client never comes back too early
  if (failures === null && !(await hasRoom(store, slot.table, now))) {
    return { kind: 'full', retryAfterSeconds: Math.max(1, Math.ceil(slot.table.policy.forgetAfterMs / 1000)) };
  }
  const decision = decideSignInAttempt({ now, failures, policy: slot.table.policy });
  // a clock that returns nonsense cannot decide: refuse rather than run the hash unthrottled
  if (decision.isErr()) return { kind: 'throttle', retryAfterSeconds: 1 };
  return decision.value.kind === 'throttle' ? { kind: 'throttle', retryAfterSeconds: decision.value.retryAfterSeconds } : { kind: 'allow' };
}

/** Counts one failure, evicting the table's oldest free record for a new key in a full table (nothing when all are throttled). */
async function record(store: Store, slot: Slot, now: number): Promise<void> {
  const previous = await read(store, slot, now);
  if (previous === null) {
    const { free, total } = await counts(store, slot.table, now);
    if (total >= slot.table.maxEntries) {
      if (free === 0) return;
      await store.ephemeral.deleteOldest('throttle', group(slot.table, false), now);
    }
  }
  const next = recordSignInFailure({ now, previous, policy: slot.table.policy });
  if (next.isOk()) await write(store, slot, next.value, now);
}

/**
 * What an attempt asks of the throttle: the slots to check, and which of them to count when none refuses.
 *
 * @example
 * ```ts
 * const attempt: ThrottleAttempt = { slots: [{ table, key }], count: [true] };
 * ```
 */
export interface ThrottleAttempt {
  /** The slots to check, in order. */
  readonly slots: readonly { readonly table: ThrottleTableSpec; readonly key: string }[];
  /** Whether a slot's `full` check lets the attempt through uncounted (the address table fails open). */
  readonly failOpen: readonly boolean[];
}

/**
 * Checks every slot and, when none refuses, counts a failure in each, in one transaction: concurrent attempts
 * see each other's counts, so no more than the free failures get through at once.
 *
 * @param store - The store.
 * @param attempt - The slots.
 * @param now - The time of the attempt.
 * @returns Each slot's check (a fail-open `full` reads as `allow`).
 *
 * @example
 * ```ts
 * const checks = await admitAttempt(store, { slots: [{ table, key }], failOpen: [false] }, now);
 * ```
 */
export async function admitAttempt(store: Store, attempt: ThrottleAttempt, now: number): Promise<readonly ThrottleCheck[]> {
  const result = await store.transaction(async (tx) => {
    const checks: ThrottleCheck[] = [];
    for (const [i, slot] of attempt.slots.entries()) {
      const checked = await check(tx, slot, now);
      checks.push(checked.kind === 'full' && attempt.failOpen[i] === true ? { kind: 'allow' } : checked);
    }
    if (checks.every((c) => c.kind === 'allow')) for (const slot of attempt.slots) await record(tx, slot, now);
    return ok(checks);
  });
  return result.unwrapOr([]);
}

/**
 * Takes back one provisionally counted failure of a slot (the attempt succeeded, or never ran).
 *
 * @param store - The store.
 * @param slot - The slot.
 * @param now - The time.
 * @returns When done.
 *
 * @example
 * ```ts
 * await withdrawFailure(store, { table, key }, now);
 * ```
 */
export async function withdrawFailure(store: Store, slot: { readonly table: ThrottleTableSpec; readonly key: string }, now: number): Promise<void> {
  await store.transaction(async (tx) => {
    const previous = await read(tx, slot, now);
    if (previous === null) return ok(undefined);
    const next = withdrawSignInFailure({ previous });
    if (next.isOk()) await write(tx, slot, next.value, now);
    return ok(undefined);
  });
}

/**
 * Forgets a slot's failures (a successful sign-in of that username).
 *
 * @param store - The store.
 * @param slot - The slot.
 * @param now - The time.
 * @returns When done.
 *
 * @example
 * ```ts
 * await clearFailures(store, { table, key }, now);
 * ```
 */
export async function clearFailures(store: Store, slot: { readonly table: ThrottleTableSpec; readonly key: string }, now: number): Promise<void> {
  await store.ephemeral.delete('throttle', recordKey(slot), now);
}

/**
 * Checks one slot without counting (for the throttle's own tests and diagnostics).
 *
 * @param store - The store.
 * @param slot - The slot.
 * @param now - The time.
 * @returns The check.
 *
 * @example
 * ```ts
 * await checkSlot(store, { table, key }, now); // { kind: 'allow' }
 * ```
 */
export async function checkSlot(store: Store, slot: { readonly table: ThrottleTableSpec; readonly key: string }, now: number): Promise<ThrottleCheck> {
  const refused: ThrottleCheck = { kind: 'throttle', retryAfterSeconds: 1 };
  return (await store.transaction(async (tx) => ok(await check(tx, slot, now)))).unwrapOr(refused);
}

/**
 * Counts one failure of a slot without checking first (the evictions of a full table apply).
 *
 * @param store - The store.
 * @param slot - The slot.
 * @param now - The time.
 * @returns When done.
 *
 * @example
 * ```ts
 * await recordFailure(store, { table, key }, now);
 * ```
 */
export async function recordFailure(store: Store, slot: { readonly table: ThrottleTableSpec; readonly key: string }, now: number): Promise<void> {
  await store.transaction(async (tx) => ok(await record(tx, slot, now)));
}
