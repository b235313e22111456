/**
 * The part of the `Store` the provider routes use ({@link ProviderStore}), and a bridge that serves it from the
 * server's flat store: accounts from the flat store, ephemeral entries and transactions from a memory `Store` of
 * this process. A full `Store` is a `ProviderStore` as it is.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { Store as FlatStore, StoreError as FlatStoreError } from '../store.js';
import { createMemoryStore } from '../store/memory.js';
import type { AccountStore, EphemeralStore, ProviderCredentialRecord, Store, StoreError } from '../store/types.js';

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

// The flat store's `guard_refused` answers only a guard, which the bridge never passes.
function storeErrorOf(error: FlatStoreError): StoreError {
  return error.code === 'guard_refused' ? { code: 'unknown_external_account', serviceType: '', accountId: '' } : error;
}


/**
 * A {@link ProviderStore} over the server's flat store: accounts, links and credentials from `flat` (each of its
 * methods atomic on its own), ephemeral entries and transactions from `memory` (a transaction's ephemeral changes
 * are undone on `err` or rejection; the flat store's are not, so work writes to it last).
 *
 * @param flat - The server's flat store.
 * @param memory - Where flow state is kept (default: a new memory store).
 * @returns The provider store.
 * @example
 * ```ts
 * const providerStore = providerStoreFromFlat(createFlatMemoryStore());
 * await providerStore.accounts.links('1'); // []
 * ```
 */
export function providerStoreFromFlat(flat: FlatStore, memory: Store = createMemoryStore()): ProviderStore {
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
  const over = (store: Store): ProviderStore => ({
    accounts,
    ephemeral: store.ephemeral,
    transaction: <T, E>(work: (tx: ProviderStore) => Promise<Result<T, E>>): Promise<Result<T, E>> =>
      store.transaction((tx) => work(over(tx))),
  });
  return over(memory);
}
