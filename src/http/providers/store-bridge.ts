/**
 * The part of the {@link Store} the provider routes use ({@link ProviderStore}), and a bridge that serves it from
 * the server's flat store: accounts from the flat store, ephemeral entries from a memory table in this process
 * ({@link createMemoryEphemeralStore}). A full `Store` is a `ProviderStore` as it is.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { Store as FlatStore, StoreError as FlatStoreError } from '../store.js';
import type {
  AccountStore,
  EphemeralEntry,
  EphemeralGroupCount,
  EphemeralKind,
  EphemeralStore,
  ProviderCredentialRecord,
  StoreError,
} from '../store/types.js';

/**
 * What the provider routes need of the store: an account's links and provider credentials, the ephemeral flow
 * state, and transactions over both. Every `Store` is one.
 *
 * @example
 * ```ts
 * const providerStore: ProviderStore = store; // a full Store
 * ```
 */
export interface ProviderStore {
  /** Accounts: read one, its links and credentials; unlink; store and remove credentials. */
  readonly accounts: Pick<AccountStore, 'get' | 'links' | 'unlink' | 'credentials' | 'putCredential' | 'deleteCredential'>;
  /** Flow state and SAML request ids, with a time to live. */
  readonly ephemeral: EphemeralStore;
  /** Runs `work` as one serializable transaction (see `Store.transaction`). */
  transaction<T, E>(work: (store: ProviderStore) => Promise<Result<T, E>>): Promise<Result<T, E>>;
}

interface Row {
  readonly entry: EphemeralEntry;
}

interface KindTable {
  /** Entries by key, in the order of their last `put` (oldest first). */
  readonly rows: Map<string, Row>;
  /** Keys by group, in `put` order. */
  readonly byGroup: Map<string, Set<string>>;
  /** Groups by how many entries they hold (counts of at least one). */
  readonly byCount: Map<number, Set<string>>;
  /** The largest count of {@link KindTable.byCount}. */
  heaviest: number;
  /** The latest `expiresAt` among the rows. */
  latestExpiry: number;
  /** Whether rows expire in `put` order, so that sweeping the front removes every expired row. */
  ordered: boolean;
}

function newKindTable(): KindTable {
  return { rows: new Map(), byGroup: new Map(), byCount: new Map(), heaviest: 0, latestExpiry: Number.NEGATIVE_INFINITY, ordered: true };
}

function rebucket(table: KindTable, group: string, from: number, to: number): void {
  const old = table.byCount.get(from);
  old?.delete(group);
  if (old !== undefined && old.size === 0) table.byCount.delete(from);
  if (to > 0) {
    const bucket = table.byCount.get(to);
    if (bucket === undefined) table.byCount.set(to, new Set([group]));
    else bucket.add(group);
  }
  if (to > table.heaviest) table.heaviest = to;
  else if (from === table.heaviest && !table.byCount.has(from)) table.heaviest = to;
}

function removeRow(table: KindTable, key: string): EphemeralEntry | null {
  const row = table.rows.get(key);
  if (row === undefined) return null;
  table.rows.delete(key);
  const own = table.byGroup.get(row.entry.group);
  if (own !== undefined && own.delete(key)) {
    rebucket(table, row.entry.group, own.size + 1, own.size);
    if (own.size === 0) table.byGroup.delete(row.entry.group);
  }
  return row.entry;
}

/** Removes every expired row: from the front while rows expire in `put` order, else all of them. */
function sweep(table: KindTable, now: number): void {
  for (const [key, row] of table.rows) {
    if (row.entry.expiresAt > now && table.ordered) break;
    if (row.entry.expiresAt <= now) removeRow(table, key);
  }
  if (table.rows.size === 0) {
    table.ordered = true;
    table.latestExpiry = Number.NEGATIVE_INFINITY;
  }
}

const live = (entry: EphemeralEntry | null, now: number): EphemeralEntry | null => (entry !== null && entry.expiresAt > now ? entry : null);

/**
 * An {@link EphemeralStore} in this process's memory. Counts per group and the heaviest group are kept as the
 * entries change, so every operation but `purgeExpired` costs O(1) amortised; expired entries are swept from the
 * front of their kind on every `put` (and are never returned or counted).
 *
 * @returns The store.
 * @example
 * ```ts
 * const ephemeral = createMemoryEphemeralStore();
 * await ephemeral.put({ kind: 'flow_state', key: 'k', group: '203.0.113.7', value: '{}', expiresAt: 60_000 });
 * await ephemeral.take('flow_state', 'k', 0); // the entry
 * await ephemeral.take('flow_state', 'k', 0); // null
 * ```
 */
export function createMemoryEphemeralStore(): EphemeralStore {
  const kinds = new Map<EphemeralKind, KindTable>();
  const tableOf = (kind: EphemeralKind): KindTable => {
    const found = kinds.get(kind);
    if (found !== undefined) return found;
    const created = newKindTable();
    kinds.set(kind, created);
    return created;
  };
  // Counting reads sweep first, so that counts are of live entries only.
  const fresh = (kind: EphemeralKind, now: number): KindTable => {
    const table = tableOf(kind);
    sweep(table, now);
    return table;
  };
  return {
    put(entry) {
      const table = tableOf(entry.kind);
      removeRow(table, entry.key);
      if (entry.expiresAt < table.latestExpiry) table.ordered = false;
      table.latestExpiry = Math.max(table.latestExpiry, entry.expiresAt);
      table.rows.set(entry.key, { entry: { ...entry } });
      const own = table.byGroup.get(entry.group) ?? new Set<string>();
      own.add(entry.key);
      table.byGroup.set(entry.group, own);
      rebucket(table, entry.group, own.size - 1, own.size);
      return Promise.resolve();
    },
    get(kind, key, now) {
      const found = live(tableOf(kind).rows.get(key)?.entry ?? null, now);
      return Promise.resolve(found === null ? null : { ...found });
    },
    take(kind, key, now) {
      return Promise.resolve(live(removeRow(tableOf(kind), key), now));
    },
    delete(kind, key, now) {
      return Promise.resolve(live(removeRow(tableOf(kind), key), now) !== null);
    },
    count(kind, now, group) {
      const table = fresh(kind, now);
      return Promise.resolve(group === undefined ? table.rows.size : (table.byGroup.get(group)?.size ?? 0));
    },
    heaviestGroup(kind, now) {
      const table = fresh(kind, now);
      const first = table.byCount.get(table.heaviest)?.values().next();
      return Promise.resolve(first === undefined || first.done === true ? null : ({ group: first.value, count: table.heaviest } satisfies EphemeralGroupCount));
    },
    deleteOldest(kind, group, now) {
      const table = fresh(kind, now);
      for (const key of table.byGroup.get(group) ?? []) {
        const removed = live(removeRow(table, key), now);
        if (removed !== null) return Promise.resolve(removed);
      }
      return Promise.resolve(null);
    },
    purgeExpired(now, limit) {
      let removed = 0;
      for (const table of kinds.values()) {
        for (const [key, row] of table.rows) {
          if (removed >= limit) return Promise.resolve(removed);
          if (row.entry.expiresAt <= now && removeRow(table, key) !== null) removed++;
        }
      }
      return Promise.resolve(removed);
    },
  };
}

// The flat store's `guard_refused` answers only a guard, which the bridge never passes.
function storeErrorOf(error: FlatStoreError): StoreError {
  return error.code === 'guard_refused' ? { code: 'unknown_external_account', serviceType: '', accountId: '' } : error;
}


/**
 * A {@link ProviderStore} over the server's flat store: accounts, links and credentials from `flat`, ephemeral
 * entries from `ephemeral`. Transactions are run one at a time (this process is the only writer of `ephemeral`,
 * and the flat store's methods are each atomic); a transaction's work sees a store whose own `transaction`
 * runs inline.
 *
 * @param flat - The server's flat store.
 * @param ephemeral - Where flow state is kept (default: {@link createMemoryEphemeralStore}).
 * @returns The provider store.
 * @example
 * ```ts
 * const providerStore = providerStoreFromFlat(createMemoryStore());
 * await providerStore.accounts.links('1'); // []
 * ```
 */
export function providerStoreFromFlat(flat: FlatStore, ephemeral: EphemeralStore = createMemoryEphemeralStore()): ProviderStore {
  const accounts: ProviderStore['accounts'] = {
    get: (id) => flat.getUser(id),
    links: (userId) => flat.listExternalAccounts(userId),
    unlink: async (userId, ref) =>
      (await flat.deleteExternalAccount(userId, ref.serviceType, ref.serviceId, ref.accountId)).mapErr(storeErrorOf),
    credentials: (userId) => flat.listProviderCredentials(userId),
    putCredential: async (input: ProviderCredentialRecord) => (await flat.putProviderCredential(input)).mapErr(storeErrorOf),
    deleteCredential: async (userId, serviceType, serviceId) =>
      (await flat.deleteProviderCredential(userId, serviceType, serviceId)).mapErr(storeErrorOf),
  };
  const inner: ProviderStore = { accounts, ephemeral, transaction: (work) => work(inner) };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    accounts,
    ephemeral,
    transaction<T, E>(work: (store: ProviderStore) => Promise<Result<T, E>>): Promise<Result<T, E>> {
      const run = queue.then(() => work(inner));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
