/**
 * A sign-in explained against the store, read-only: the core's `explainSignIn` over a directory that answers from
 * the store's indexed lookups (by the core's keys). The core asks synchronously, so each round answers what is
 * already read and notes what is not; the missing keys are read and the explanation runs again, with the same
 * random bytes, until nothing is missing (a handful of rounds: the link, the emails, the username, the candidate
 * names). Nothing is written.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import {
  emailMatchKey,
  explainSignIn,
  externalAccountKey,
  MAX_USERNAME_SUFFIX_ATTEMPTS,
  PROVIDER_TYPES,
  SUFFIX_RANDOM_BYTES,
  usernameKey,
  type Account,
  type AccountDirectory,
  type AuthProvider,
  type ExternalAccountRef,
  type ExternalIdentity,
  type ProviderType,
  type SignInError,
  type SignInExplanation,
} from 'gatehouse-auth';
import type { AccountStore, UserRecord } from '../store/types.js';

/** The lookups an explanation reads. */
export type ExplainStore = { readonly accounts: Pick<AccountStore, 'findByExternalAccountKey' | 'findByVerifiedEmailKey' | 'findByUsernameKey' | 'links'> };

/**
 * A sign-in explained: the core's explanation, and the account the decision lands in, when it names one.
 *
 * @example
 * ```ts
 * const checked: StoreSignInExplanation = { explanation, account: { id: '1', username: 'octo', serviceAccount: false } };
 * ```
 */
export interface StoreSignInExplanation {
  /** The decision and the trace of rules (see `explainSignIn`). */
  readonly explanation: SignInExplanation;
  /** The existing account a `sign_in` decision lands in (a service account is refused from a browser), else `null`. */
  readonly account: { readonly id: string; readonly username: string; readonly serviceAccount: boolean } | null;
}

/** How many rounds of reads an explanation takes at most (each reads what the previous one found missing). */
const MAX_ROUNDS = 12;

function isProviderType(value: string): value is ProviderType {
  return PROVIDER_TYPES.some((type) => type === value);
}

/** What was read: by the core's keys, an account (or `null` for none), or whether a name is taken. */
interface Cache {
  readonly external: Map<string, UserRecord | null>;
  readonly email: Map<string, UserRecord | null>;
  readonly username: Map<string, UserRecord | null>;
  readonly links: Map<string, Account['externalAccounts']>;
}

// The store's record as the core sees it; like the sign-in flow, a service account has no email to match by.
function accountOf(user: UserRecord, links: Account['externalAccounts']): Account {
  return {
    id: user.id,
    username: user.username,
    origin: user.origin,
    emails: user.serviceAccount ? [] : user.emails.map((e) => ({ address: e.email, verified: e.verified })),
    externalAccounts: links,
  };
}

/**
 * Explains how a sign-in of `identity` through `provider` would go now, reading the store and writing nothing.
 *
 * @param store - The account lookups.
 * @param input - The provider, the identity as the provider would describe it, and the session's account.
 * @param randomBytes - The random source for the username suffixes of a would-be account.
 * @returns The explanation and the account it lands in; `err` when the core refuses the input as malformed.
 * @example
 * ```ts
 * const checked = await explainSignInInStore(store, { provider: hosta, identity, signedInUserId: null }, randomBytes);
 * checked.map((c) => c.explanation.decision.kind); // ok('deny')
 * ```
 */
export async function explainSignInInStore(
  store: ExplainStore,
  input: { readonly provider: AuthProvider; readonly identity: ExternalIdentity; readonly signedInUserId: string | null },
  randomBytes: (n: number) => Uint8Array,
): Promise<Result<StoreSignInExplanation, SignInError>> {
  const cache: Cache = { external: new Map(), email: new Map(), username: new Map(), links: new Map() };
  const drawn = Array.from({ length: MAX_USERNAME_SUFFIX_ATTEMPTS }, () => randomBytes(SUFFIX_RANDOM_BYTES));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const missing = { external: new Set<string>(), email: new Set<string>(), username: new Set<string>() };
    const answer = (map: Map<string, UserRecord | null>, wanted: Set<string>, key: string): Account | null => {
      if (!map.has(key)) {
        wanted.add(key);
        return null;
      }
      const user = map.get(key) ?? null;
      return user === null ? null : accountOf(user, cache.links.get(user.id) ?? []);
    };
    const directory: AccountDirectory = {
      findByExternalAccount: (ref: ExternalAccountRef) => answer(cache.external, missing.external, externalAccountKey(ref.providerType, ref.serviceId, ref.accountId)),
      findByVerifiedEmail: (address) => answer(cache.email, missing.email, emailMatchKey(address)),
      findByUsername: (username) => answer(cache.username, missing.username, usernameKey(username)),
      isUsernameTaken: (username) => answer(cache.username, missing.username, usernameKey(username)) !== null,
    };
    let call = 0;
    const replay = (n: number): Uint8Array => (drawn[call++] ?? new Uint8Array(SUFFIX_RANDOM_BYTES)).slice(0, n);
    const explained = explainSignIn({ ...input, directory, randomBytes: replay });
    if (explained.isErr()) return err(explained.error);
    if (missing.external.size + missing.email.size + missing.username.size === 0 || round === MAX_ROUNDS - 1) {
      const decision = explained.value.decision;
      const user = decision.kind === 'sign_in' ? [...cache.external.values(), ...cache.email.values(), ...cache.username.values()].find((u) => u?.id === decision.userId) : undefined;
      return ok({
        explanation: explained.value,
        account: user === undefined || user === null ? null : { id: user.id, username: user.username, serviceAccount: user.serviceAccount },
      });
    }
    const read = async (keys: Set<string>, map: Map<string, UserRecord | null>, find: (key: string) => Promise<UserRecord | null>): Promise<void> => {
      await Promise.all([...keys].map(async (key) => map.set(key, await find(key))));
    };
    await Promise.all([
      read(missing.external, cache.external, (key) => store.accounts.findByExternalAccountKey(key)),
      read(missing.email, cache.email, (key) => store.accounts.findByVerifiedEmailKey(key)),
      read(missing.username, cache.username, (key) => store.accounts.findByUsernameKey(key)),
    ]);
    const found = [...cache.external.values(), ...cache.email.values(), ...cache.username.values()].filter((u): u is UserRecord => u !== null && !cache.links.has(u.id));
    await Promise.all(
      found.map(async (user) => {
        const links = await store.accounts.links(user.id);
        cache.links.set(
          user.id,
          links.flatMap((link): ExternalAccountRef[] => (isProviderType(link.serviceType) ? [{ providerType: link.serviceType, serviceId: link.serviceId, accountId: link.accountId }] : [])),
        );
      }),
    );
  }
  return err({ code: 'invalid_sign_in_input', path: 'directory' });
}
