/**
 * A table of pending sign-in records (OAuth/OpenID Connect `state`, SAML request IDs) with a time to live and the
 * core's bounds (`decidePendingSignIn`): a client at its bound has its own oldest record dropped; a full table
 * drops the oldest record of the client network holding the most, when that network holds more than the
 * newcomer would, and refuses otherwise. A flood from many networks thus costs only the flooders their own
 * records and cannot lock new clients out.
 *
 * @module
 */
import { decidePendingSignIn, DEFAULT_MAX_PENDING_SIGN_INS, DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT } from '../../core/quotas.js';

/**
 * The bounds of a pending table.
 *
 * @example
 * ```ts
 * const limits: PendingSignInLimits = { maxPerClient: 100, maxTotal: 100_000 };
 * ```
 */
export interface PendingSignInLimits {
  /** Records one client network may hold (a positive integer). Default 100. */
  readonly maxPerClient?: number;
  /** Records the table holds, all clients together (a positive integer). Default 100,000. */
  readonly maxTotal?: number;
}

/**
 * A pending table.
 *
 * @example
 * ```ts
 * const table = createPendingTable<string>(Date.now, {});
 * table.put('k', 'v', 60_000, '203.0.113.7'); // true
 * table.take('k'); // 'v'
 * ```
 * @internal
 */
export interface PendingTable<V> {
  /** Stores `value` under `key` for `ttlMs` on behalf of `client`; `false` (nothing stored) when refused. */
  put(key: string, value: V, ttlMs: number, client: string): boolean;
  /** The live value under `key`, or `null`. */
  get(key: string): V | null;
  /** Removes and returns the live value under `key`, or `null` (absent, taken or expired). */
  take(key: string): V | null;
  /** Removes `key` (live or not). */
  delete(key: string): void;
  /** How many records are held (expired ones not yet swept included). */
  readonly size: number;
}

interface Row<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly client: string;
}

/**
 * Creates a pending table. Insertion order is creation order, so expired records are swept from the front in
 * amortised O(1) per record, and a client's oldest record is the first of its own set. Clients are also kept in
 * buckets by how many records they hold, with the largest such count, so the heaviest client is found in O(1)
 * (counts move by one at a time, so the largest count moves by at most one per change).
 *
 * @param now - The clock, milliseconds since the epoch.
 * @param limits - The per-client and total bounds.
 * @param onDrop - Called for every record that leaves other than by `take` or `delete` (expiry, replacement).
 * @returns The table.
 * @example
 * ```ts
 * const table = createPendingTable<string>(Date.now, { maxPerClient: 2, maxTotal: 10 });
 * ```
 * @internal
 */
export function createPendingTable<V>(
  now: () => number,
  limits: PendingSignInLimits,
  onDrop: (key: string, value: V) => void = () => undefined,
): PendingTable<V> {
  const maxPerClient = limits.maxPerClient ?? DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT;
  const maxTotal = limits.maxTotal ?? DEFAULT_MAX_PENDING_SIGN_INS;
  const rows = new Map<string, Row<V>>();
  const byClient = new Map<string, Set<string>>();
  /** Clients by the number of records they hold (only counts of at least one; empty buckets are removed). */
  const byCount = new Map<number, Set<string>>();
  let heaviestCount = 0;

  /** Moves `client` from bucket `from` to bucket `to` (0: no bucket) and keeps `heaviestCount` current. */
  const rebucket = (client: string, from: number, to: number): void => {
    const old = byCount.get(from);
    old?.delete(client);
    if (old !== undefined && old.size === 0) byCount.delete(from);
    if (to > 0) {
      const bucket = byCount.get(to);
      if (bucket === undefined) byCount.set(to, new Set([client]));
      else bucket.add(client);
    }
    if (to > heaviestCount) heaviestCount = to;
    else if (from === heaviestCount && !byCount.has(from)) heaviestCount = to;
  };
  /** The client holding the most records, or `null` when the table is empty. */
  const heaviestClient = (): string | null => {
    const first = byCount.get(heaviestCount)?.values().next();
    return first === undefined || first.done === true ? null : first.value;
  };

  const remove = (key: string): Row<V> | null => {
    const row = rows.get(key);
    if (row === undefined) return null;
    rows.delete(key);
    const own = byClient.get(row.client);
    if (own !== undefined && own.delete(key)) {
      rebucket(row.client, own.size + 1, own.size);
      if (own.size === 0) byClient.delete(row.client);
    }
    return row;
  };
  /** Drops `client`'s oldest record, telling `onDrop`. */
  const dropOldestOf = (client: string | null): void => {
    const oldest = client === null ? undefined : byClient.get(client)?.values().next();
    if (oldest === undefined || oldest.done === true) return;
    const dropped = remove(oldest.value);
    if (dropped !== null) onDrop(oldest.value, dropped.value);
  };
  const sweep = (t: number): void => {
    for (const [key, row] of rows) {
      if (row.expiresAt > t) break;
      remove(key);
      onDrop(key, row.value);
    }
  };

  return {
    put(key, value, ttlMs, client) {
      const t = now();
      sweep(t);
      const existing = remove(key);
      if (existing !== null) onDrop(key, existing.value);
      const decision = decidePendingSignIn({
        pendingForClient: byClient.get(client)?.size ?? 0,
        pendingForHeaviestClient: heaviestCount,
        pendingTotal: rows.size,
        maxPerClient,
        maxTotal,
      });
      if (decision.isErr() || decision.value.kind === 'refuse') return false;
      if (decision.value.kind === 'replace_oldest') dropOldestOf(client);
      if (decision.value.kind === 'replace_heaviest_oldest') dropOldestOf(heaviestClient());
      rows.set(key, { value, expiresAt: t + ttlMs, client });
      const own = byClient.get(client) ?? new Set<string>();
      own.add(key);
      byClient.set(client, own);
      rebucket(client, own.size - 1, own.size);
      return true;
    },
    get(key) {
      const row = rows.get(key);
      return row === undefined || row.expiresAt <= now() ? null : row.value;
    },
    take(key) {
      const row = remove(key);
      return row === null || row.expiresAt <= now() ? null : row.value;
    },
    delete(key) {
      remove(key);
    },
    get size() {
      return rows.size;
    },
  };
}
