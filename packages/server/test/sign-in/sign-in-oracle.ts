/**
 * The listing sign-in pipeline, kept as an oracle for the tests: it loads every account into
 * `accountDirectoryFromArray`, asks `resolveSignIn` and applies its decision to a small in-memory account store,
 * deciding again when a write conflicts. `runSignIn` (indexed lookups, two pure steps) must agree with it.
 */
import type { ServerResponse } from 'node:http';
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import {
  accountDirectoryFromArray,
  type Account,
  type AccountDirectoryError,
  type AccountEmail,
  type ExternalAccountRef,
} from '../../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../../src/core/external-identity.js';
import { resolveSignIn, type SignInDecision, type SignInDenialReason, type SignInError } from '../../../../src/core/sign-in/resolve.js';
import { messagePage } from '../../src/pages/page-routes.js';
import { writeResponse } from '../../src/kernel/respond.js';
import { ACCOUNT_NOT_FOR_BROWSER_MESSAGE } from '../../src/sign-in/flow.js';

/**
 * The account to create for a `create` decision.
 *
 * @example
 * ```ts
 * const input: NewSignInAccount = {
 *   username: 'octo', emails: [{ address: 'octo@example.com', verified: true }],
 *   externalAccount: { providerType: 'hosta', serviceId: '', accountId: '1' },
 * };
 * ```
 */
export interface NewSignInAccount {
  /** The username the core chose (already normalised and free when decided). */
  readonly username: string;
  /** The emails, verified as the provider said. */
  readonly emails: readonly AccountEmail[];
  /** The identity linked to the new account in the same atomic step. */
  readonly externalAccount: ExternalAccountRef;
}

/**
 * Why a store refused a write. The write changed nothing.
 *
 * @example
 * ```ts
 * const e: SignInStoreConflict = { code: 'username_taken' };
 * ```
 */
export type SignInStoreConflict =
  /** The username is used by another account (ASCII case ignored). */
  | { readonly code: 'username_taken' }
  /** A verified email is verified on another account. */
  | { readonly code: 'email_taken' }
  /** The identity is already linked to an account. */
  | { readonly code: 'external_account_taken' }
  /** The account to link to does not exist (any more). */
  | { readonly code: 'unknown_user' };

/**
 * The smallest account store a sign-in needs. Every write is atomic: it validates, then commits, and on
 * `err` nothing changed. The server adapts its own store to this.
 *
 * @example
 * ```ts
 * const store: SignInStore = createMemorySignInStore([]);
 * ```
 */
export interface SignInStore {
  /** A snapshot of every account with its emails and linked identities (the directory `resolveSignIn` reads). */
  readonly loadAccounts: () => Promise<readonly Account[]>;
  /** Creates an account and links its identity, atomically; returns the new account's id. */
  readonly createAccount: (input: NewSignInAccount) => Promise<Result<string, SignInStoreConflict>>;
  /** Links an identity to an existing account, atomically. */
  readonly linkExternalAccount: (userId: string, ref: ExternalAccountRef) => Promise<Result<void, SignInStoreConflict>>;
}

/**
 * What happened when a decision was applied.
 *
 * @example
 * ```ts
 * const outcome: SignInOutcome = { kind: 'signed_in', userId: 'u1', created: false, linked: true };
 * ```
 */
export type SignInOutcome =
  /** The person is signed in to `userId`; `created` when the account is new, `linked` when an identity was saved. */
  | { readonly kind: 'signed_in'; readonly userId: string; readonly created: boolean; readonly linked: boolean }
  /** The person is refused; `message` is safe to show (HTTP 403). */
  | { readonly kind: 'denied'; readonly reason: SignInDenialReason | 'account_not_for_browser'; readonly message: string };

/**
 * Why a sign-in could not be completed (nothing was written).
 *
 * @example
 * ```ts
 * const e: SignInFlowError = { code: 'store_conflict', conflict: { code: 'username_taken' } };
 * ```
 */
export type SignInFlowError =
  /** The store's accounts do not form a consistent directory. */
  | { readonly code: 'invalid_directory'; readonly error: AccountDirectoryError }
  /** The core could not decide. */
  | { readonly code: 'sign_in_error'; readonly error: SignInError }
  /** The store changed between deciding and writing, every attempt (HTTP 409). */
  | { readonly code: 'store_conflict'; readonly conflict: SignInStoreConflict }
  /** The store threw. */
  | { readonly code: 'store_failed' };

/**
 * Applies one decision of `resolveSignIn` to the store: `create` creates the account with its identity,
 * `sign_in` links the identity first when `linkExternalAccount` says so, `deny` writes nothing.
 *
 * @param decision - The core's decision.
 * @param store - The account store.
 * @returns The outcome, or the store's conflict (nothing written).
 * @example
 * ```ts
 * await applySignInDecision({ kind: 'deny', reason: 'signup_not_allowed', message: '…' }, store);
 * // ok({ kind: 'denied', reason: 'signup_not_allowed', message: '…' })
 * ```
 */
export async function applySignInDecision(
  decision: SignInDecision,
  store: SignInStore,
): Promise<Result<SignInOutcome, SignInStoreConflict>> {
  return match(decision)
    .returnType<Promise<Result<SignInOutcome, SignInStoreConflict>>>()
    .with({ kind: 'deny' }, (d) => Promise.resolve(ok({ kind: 'denied', reason: d.reason, message: d.message })))
    .with({ kind: 'create' }, async (d) =>
      (await store.createAccount({ username: d.username, emails: d.emails, externalAccount: d.externalAccount })).map(
        (userId): SignInOutcome => ({ kind: 'signed_in', userId, created: true, linked: true }),
      ),
    )
    .with({ kind: 'sign_in' }, async (d) => {
      if (!d.linkExternalAccount) return ok({ kind: 'signed_in', userId: d.userId, created: false, linked: false });
      return (await store.linkExternalAccount(d.userId, d.externalAccount)).map(
        (): SignInOutcome => ({ kind: 'signed_in', userId: d.userId, created: false, linked: true }),
      );
    })
    .exhaustive();
}

/**
 * Input of {@link signInWithIdentity}.
 *
 * @example
 * ```ts
 * const input: SignInWithIdentityInput = { provider, identity, signedInUserId: null, store, randomBytes };
 * ```
 */
export interface SignInWithIdentityInput {
  /** The provider the person came through. */
  readonly provider: AuthProvider;
  /** What the provider reported. */
  readonly identity: ExternalIdentity;
  /** The account of the current session, or `null`. */
  readonly signedInUserId: string | null;
  /** The account store. */
  readonly store: SignInStore;
  /** The random source (username suffixes). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** How often to decide again when the store changed underneath (default 3). */
  readonly attempts?: number;
  /**
   * Whether an existing account may be signed in to from a browser (default: every account). Asked before
   * anything is written for a `sign_in` decision; `false` denies with `account_not_for_browser`.
   */
  readonly mayUse?: (userId: string) => Promise<boolean>;
}

/**
 * Loads the accounts, asks the core (`resolveSignIn`) and applies its decision. When a write conflicts
 * because the store changed since the snapshot, the decision is taken again on a fresh snapshot.
 *
 * @param input - Provider, identity, session user, store and random source.
 * @returns The outcome, or why nothing could be done (nothing written either way on `err`).
 * @example
 * ```ts
 * const outcome = await signInWithIdentity({ provider, identity, signedInUserId: null, store, randomBytes });
 * // ok({ kind: 'signed_in', userId: '1', created: true, linked: true })
 * ```
 */
export async function signInWithIdentity(input: SignInWithIdentityInput): Promise<Result<SignInOutcome, SignInFlowError>> {
  return decideAndApply(input, async () => {
    let accounts: readonly Account[];
    try {
      accounts = await input.store.loadAccounts();
    } catch {
      return err({ code: 'store_failed' });
    }
    const directory = accountDirectoryFromArray(accounts);
    if (directory.isErr()) return err({ code: 'invalid_directory', error: directory.error });
    return resolveSignIn({
      provider: input.provider,
      identity: input.identity,
      signedInUserId: input.signedInUserId,
      directory: directory.value,
      randomBytes: input.randomBytes,
    }).mapErr((error): SignInFlowError => ({ code: 'sign_in_error', error }));
  });
}

/**
 * What {@link decideAndApply} needs besides the decision: where to write, how often to retry, and which
 * accounts may be signed in to from a browser.
 *
 * @example
 * ```ts
 * const options: DecideAndApplyOptions = { store: signInStore, attempts: 3 };
 * ```
 */
export interface DecideAndApplyOptions {
  /** Where the decision is written. */
  readonly store: SignInStore;
  /** How often to decide again when the store changed underneath (default 3). */
  readonly attempts?: number;
  /** Whether an existing account may be signed in to from a browser (default: every account). */
  readonly mayUse?: (userId: string) => Promise<boolean>;
}

/**
 * The loop every sign-in shares: take a decision (`decide`, which reads the store its own way), refuse an
 * account that may not be used from a browser, apply the decision, and decide again on a fresh read when a
 * write conflicts because the store changed underneath.
 *
 * @param options - Store to write to, attempts and the browser-use check.
 * @param decide - Takes the core's decision from a fresh read of the store.
 * @returns The outcome, or why nothing could be done (nothing written either way on `err`).
 * @example
 * ```ts
 * const outcome = await decideAndApply({ store: signInStore }, async () => resolveSignIn(input).mapErr(toFlowError));
 * ```
 */
export async function decideAndApply(
  options: DecideAndApplyOptions,
  decide: () => Promise<Result<SignInDecision, SignInFlowError>>,
): Promise<Result<SignInOutcome, SignInFlowError>> {
  const attempts = Math.max(1, options.attempts ?? 3);
  let last: SignInStoreConflict = { code: 'username_taken' };
  for (let attempt = 0; attempt < attempts; attempt++) {
    let decision: Result<SignInDecision, SignInFlowError>;
    try {
      decision = await decide();
    } catch {
      return err({ code: 'store_failed' });
    }
    if (decision.isErr()) return err(decision.error);
    if (decision.value.kind === 'sign_in' && options.mayUse !== undefined) {
      let usable: boolean;
      try {
        usable = await options.mayUse(decision.value.userId);
      } catch {
        return err({ code: 'store_failed' });
      }
      if (!usable) return ok({ kind: 'denied', reason: 'account_not_for_browser', message: ACCOUNT_NOT_FOR_BROWSER_MESSAGE });
    }
    let applied: Result<SignInOutcome, SignInStoreConflict>;
    try {
      applied = await applySignInDecision(decision.value, options.store);
    } catch {
      return err({ code: 'store_failed' });
    }
    if (applied.isOk()) return ok(applied.value);
    last = applied.error;
  }
  return err({ code: 'store_conflict', conflict: last });
}

/**
 * Writes the response for a sign-in: a `303` to `returnTo` (with `headers`, such as the session cookie)
 * when signed in, a `403` page showing the denial's message, `409` or `500` otherwise.
 *
 * @param res - The response.
 * @param result - What {@link signInWithIdentity} returned.
 * @param returnTo - Where to send a signed-in person (a path on this site).
 * @param headers - Extra headers for the redirect (for example `set-cookie`).
 * @returns Nothing.
 * @example
 * ```ts
 * sendSignInOutcome(res, await signInWithIdentity(input), '/search', { 'set-cookie': cookie });
 * ```
 */
export function sendListingOutcome(
  res: ServerResponse,
  result: Result<SignInOutcome, SignInFlowError>,
  returnTo: string,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  const sendMessagePage = (status: number, title: string, message: string): void =>
    writeResponse(res, messagePage(status, title, message), { requestId: '', head: false });
  if (result.isOk()) {
    match(result.value)
      .with({ kind: 'signed_in' }, () => {
        res.writeHead(303, { location: returnTo, 'content-length': '0', ...headers });
        res.end();
      })
      .with({ kind: 'denied' }, (d) => sendMessagePage(403, 'Sign-in refused', d.message))
      .exhaustive();
    return;
  }
  match(result.error)
    .with({ code: 'store_conflict' }, () => sendMessagePage(409, 'Sign-in failed', 'Your account changed while signing in. Try again.'))
    .with({ code: 'invalid_directory' }, { code: 'sign_in_error' }, { code: 'store_failed' }, () =>
      sendMessagePage(500, 'Sign-in failed', 'Sign-in failed because of an internal error.'),
    )
    .exhaustive();
}

function sameKey(a: string, b: string): boolean {
  return a.replace(/[A-Z]/g, (c) => c.toLowerCase()) === b.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function sameRef(a: ExternalAccountRef, b: ExternalAccountRef): boolean {
  return a.providerType === b.providerType && a.serviceId === b.serviceId && a.accountId === b.accountId;
}

/**
 * An in-memory {@link SignInStore} over an array of accounts, for tests and small hosts. Writes validate
 * everything first (username free, verified emails free, identity unlinked) and then commit.
 *
 * @param initial - The accounts to start with.
 * @param newId - Makes the id of a created account (default: `u1`, `u2`, …).
 * @returns The store, with `accounts()` to read the current accounts.
 * @example
 * ```ts
 * const store = createMemorySignInStore([]);
 * await store.createAccount({ username: 'octo', emails: [], externalAccount: ref }); // ok('u1')
 * store.accounts().length; // 1
 * ```
 */
export function createMemorySignInStore(
  initial: readonly Account[],
  newId?: () => string,
): SignInStore & { readonly accounts: () => readonly Account[] } {
  let accounts: readonly Account[] = [...initial];
  let counter = 0;
  const makeId = newId ?? ((): string => `u${++counter}`);
  const linkedAnywhere = (ref: ExternalAccountRef): boolean =>
    accounts.some((a) => a.externalAccounts.some((e) => sameRef(e, ref)));
  return {
    accounts: () => accounts,
    loadAccounts: () => Promise.resolve(accounts),
    createAccount: (input) => {
      if (accounts.some((a) => sameKey(a.username, input.username))) return Promise.resolve(err({ code: 'username_taken' }));
      const verified = input.emails.filter((e) => e.verified);
      if (accounts.some((a) => a.emails.some((e) => e.verified && verified.some((v) => sameKey(v.address, e.address))))) {
        return Promise.resolve(err({ code: 'email_taken' }));
      }
      if (linkedAnywhere(input.externalAccount)) return Promise.resolve(err({ code: 'external_account_taken' }));
      const id = makeId();
      accounts = [
        ...accounts,
        { id, username: input.username, origin: 'provider_signup', emails: [...input.emails], externalAccounts: [input.externalAccount] },
      ];
      return Promise.resolve(ok(id));
    },
    linkExternalAccount: (userId, ref) => {
      const account = accounts.find((a) => a.id === userId);
      if (account === undefined) return Promise.resolve(err({ code: 'unknown_user' }));
      if (linkedAnywhere(ref)) return Promise.resolve(err({ code: 'external_account_taken' }));
      accounts = accounts.map((a) => (a.id === userId ? { ...a, externalAccounts: [...a.externalAccounts, ref] } : a));
      return Promise.resolve(ok(undefined));
    },
  };
}

