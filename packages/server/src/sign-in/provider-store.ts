/**
 * The part of the `Store` the provider routes use ({@link ProviderStore}). A full `Store` is one as it is.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AccountStore, EphemeralStore } from '../store/types.js';

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
