/**
 * Pending sign-in entries (OAuth/OpenID Connect `state`, SAML request ids) in the store's ephemeral part, with the
 * core's bounds (`decidePendingSignIn`): a client network at its bound has its own oldest entry dropped; a full
 * kind drops the oldest entry of the network holding the most, when that network holds more than the newcomer
 * would, and refuses otherwise. A flood from many networks thus costs only the flooders their own entries and
 * cannot lock new clients out.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { decidePendingSignIn, DEFAULT_MAX_PENDING_SIGN_INS, DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT } from 'gatehouse-auth';
import type { EphemeralEntry } from '../store/types.js';
import { sha256Hex } from '../kernel/digest.js';
import type { ProviderStore } from './provider-store.js';

/**
 * The bounds on pending sign-ins of one kind.
 *
 * @example
 * ```ts
 * const limits: PendingSignInLimits = { maxPerClient: 100, maxTotal: 100_000 };
 * ```
 */
export interface PendingSignInLimits {
  /** Entries one client network may hold (a positive integer). Default 100. */
  readonly maxPerClient?: number;
  /** Entries of the kind, all clients together (a positive integer). Default 100,000. */
  readonly maxTotal?: number;
}

/**
 * The key an ephemeral entry is kept under for a random value (a `state`, a `RelayState`): its SHA-256 digest
 * (hex), so that the store never holds the value a browser presents.
 *
 * @param random - The random value.
 * @returns Lower-case hex SHA-256 of its UTF-8 bytes.
 * @example
 * ```ts
 * pendingKey('abc'); // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 * ```
 */
export function pendingKey(random: string): string {
  return sha256Hex(random);
}

/** Why a pending entry was not stored. */
export interface PendingRefused {
  /** Every network holds at most what the newcomer would, and the kind is full. */
  readonly code: 'too_many_pending';
}

/**
 * Stores a pending entry within the bounds, in one store transaction: counts the client's and the kind's live
 * entries and the heaviest network's, asks `decidePendingSignIn`, drops the entry it names, and stores this one.
 * An entry with the same kind and key is replaced (and not counted).
 *
 * @param store - The store.
 * @param entry - The entry (`group` is the client network, the core's `clientNetwork`).
 * @param limits - The bounds (defaults 100 per network, 100,000 in all).
 * @param now - The current time, milliseconds since the epoch.
 * @returns `ok` when stored; `err({ code: 'too_many_pending' })` when refused (nothing changed).
 * @example
 * ```ts
 * await putPending(store, { kind: 'flow_state', key: pendingKey(state), group: '203.0.113.7', value: '{}', expiresAt: now + 600_000 }, {}, now);
 * // ok(undefined)
 * ```
 */
export function putPending(
  store: ProviderStore,
  entry: EphemeralEntry,
  limits: PendingSignInLimits,
  now: number,
): Promise<Result<void, PendingRefused>> {
  return store.transaction(async (tx): Promise<Result<void, PendingRefused>> => {
    const e = tx.ephemeral;
    await e.delete(entry.kind, entry.key, now);
    const [forClient, heaviest, total] = await Promise.all([
      e.count(entry.kind, now, entry.group),
      e.heaviestGroup(entry.kind, now),
      e.count(entry.kind, now),
    ]);
    const decision = decidePendingSignIn({
      pendingForClient: forClient,
      pendingForHeaviestClient: Math.max(forClient, heaviest?.count ?? 0),
      pendingTotal: total,
      maxPerClient: limits.maxPerClient ?? DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT,
      maxTotal: limits.maxTotal ?? DEFAULT_MAX_PENDING_SIGN_INS,
    });
    if (decision.isErr()) return err({ code: 'too_many_pending' });
    // which network gives up its oldest entry: none, this one, or the heaviest; `false` refuses
    const dropFrom = match(decision.value)
      .returnType<string | null | false>()
      .with({ kind: 'store' }, () => null)
      .with({ kind: 'replace_oldest' }, () => entry.group)
      .with({ kind: 'replace_heaviest_oldest' }, () => heaviest?.group ?? null)
      .with({ kind: 'refuse' }, () => false)
      .exhaustive();
    if (dropFrom === false) return err({ code: 'too_many_pending' });
    if (dropFrom !== null) await e.deleteOldest(entry.kind, dropFrom, now);
    await e.put(entry);
    return ok(undefined);
  });
}
