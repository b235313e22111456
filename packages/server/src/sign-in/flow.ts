/**
 * A provider sign-in against the store: the core plans (`planSignIn`), the store looks the accounts up by the
 * core's keys, the core decides (`decideSignIn`), and the decision is applied in the same transaction: a new
 * account with its emails, its link and its username candidates in one insert, a link to an existing account, or
 * nothing. No listing of accounts: a sign-in costs the same with ten accounts or a million.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import type { Account, ExternalAccountRef, ExternalIdentity } from 'gatehouse-auth';
import { decideAccountUse, identityFacts, PROVIDER_TYPES, type AuthProvider, type ProviderType, decideSignIn, planSignIn, SIGN_IN_DENIAL_MESSAGES, type SignInDenialReason, type SignInError, type SignInFacts, type SignInPlan, type SignInPlanDecision, MAX_USERNAME_SUFFIX_ATTEMPTS, SUFFIX_RANDOM_BYTES, findUnstorableText } from 'gatehouse-auth';
import type { AccountStore, StoreError, UserRecord } from '../store/types.js';

/**
 * The part of the store a sign-in uses: indexed lookups by the core's keys, the account insert, linking, and a
 * transaction. The grouped `Store` is one.
 *
 * @example
 * ```ts
 * const store: SignInStore = createMemoryStore();
 * ```
 */
export interface SignInStore {
  /** The account lookups and writes a sign-in makes. */
  readonly accounts: Pick<
    AccountStore,
    'findByExternalAccountKey' | 'findByVerifiedEmailKey' | 'findByUsernameKey' | 'get' | 'links' | 'create' | 'link' | 'recordIdentityFacts'
  >;
  /** Runs `work` as one serializable transaction, undone when it resolves `err` (see `Store.transaction`). */
  transaction<T, E>(work: (store: SignInStore) => Promise<Result<T, E>>): Promise<Result<T, E>>;
}

/**
 * What {@link runSignIn} needs: the store, the clock and the random source (username suffixes).
 *
 * @example
 * ```ts
 * const deps: SignInFlowDeps = { store: createMemoryStore(), now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) };
 * ```
 */
export interface SignInFlowDeps {
  /** Where accounts live. */
  readonly store: SignInStore;
  /** The clock, milliseconds since the epoch (creation and link times). */
  readonly now: () => number;
  /** A CSPRNG: returns `n` random bytes. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** How often to decide again when the store changed between the lookups and the write (default 3). */
  readonly attempts?: number;
}

/**
 * Who signs in, through which provider.
 *
 * @example
 * ```ts
 * const request: SignInRequest = { provider: hosta, identity, signedInUserId: null };
 * ```
 */
export interface SignInRequest {
  /** The provider the person came through (parsed, defaults applied). */
  readonly provider: AuthProvider;
  /** What the provider vouched for. */
  readonly identity: ExternalIdentity;
  /** The account of the current session (the identity is added to it, §5.4 rule 4), or `null`. */
  readonly signedInUserId: string | null;
}

/**
 * What a sign-in did.
 *
 * @example
 * ```ts
 * const outcome: SignInOutcome = { kind: 'denied', reason: 'signup_not_allowed', message: '…' };
 * ```
 */
export type SignInOutcome =
  /** The person is signed in to `user`; `created` when the account is new, `linked` when the identity was saved. */
  | {
      readonly kind: 'signed_in';
      readonly userId: string;
      readonly user: UserRecord;
      readonly created: boolean;
      readonly linked: boolean;
    }
  /** The person is refused; `message` is safe to show. */
  | { readonly kind: 'denied'; readonly reason: SignInDenialReason | 'account_not_for_browser' | 'account_suspended'; readonly message: string };

/**
 * Why a sign-in could not be completed (nothing was written).
 *
 * @example
 * ```ts
 * const e: SignInFlowError = { code: 'store_conflict', conflict: { code: 'external_account_taken', serviceType: 'hosta', accountId: '1' } };
 * ```
 */
export type SignInFlowError =
  /** The core could not decide (malformed provider or identity). */
  | { readonly code: 'sign_in_error'; readonly error: SignInError }
  /** The store changed between the lookups and the write, on every attempt. */
  | { readonly code: 'store_conflict'; readonly conflict: StoreError };

/**
 * Shown when a sign-in lands on an account a site administrator suspended (the core's `decideAccountUse`).
 *
 * @example
 * ```ts
 * ACCOUNT_SUSPENDED_MESSAGE.startsWith('This account'); // true
 * ```
 */
export const ACCOUNT_SUSPENDED_MESSAGE = 'This account is suspended: ask a site administrator to reinstate it.';

/**
 * Shown when a decision lands on a service account, which authenticates with access tokens only (spec §1).
 *
 * @example
 * ```ts
 * ACCOUNT_NOT_FOR_BROWSER_MESSAGE.startsWith('This account'); // true
 * ```
 */
export const ACCOUNT_NOT_FOR_BROWSER_MESSAGE =
  'This account is a service account: it authenticates with access tokens only and cannot sign in from a browser.';

type Lookups = Extract<SignInPlan, { readonly kind: 'look_up' }>['lookups'];

function isProviderType(value: string): value is ProviderType {
  return PROVIDER_TYPES.some((type) => type === value);
}

// An account as the core's decision sees it: a service account never matches by email (it cannot sign in from a
// browser at all), and links of types the core does not know are left out.
function accountOf(user: UserRecord, links: Awaited<ReturnType<AccountStore['links']>>): Account {
  return {
    id: user.id,
    username: user.username,
    origin: user.origin,
    emails: user.serviceAccount ? [] : user.emails.map((e) => ({ address: e.email, verified: e.verified })),
    externalAccounts: links.flatMap((link): ExternalAccountRef[] =>
      isProviderType(link.serviceType) ? [{ providerType: link.serviceType, serviceId: link.serviceId, accountId: link.accountId }] : [],
    ),
  };
}

/** The facts a plan asked for, and the accounts found, by id. */
interface Found {
  readonly facts: SignInFacts;
  readonly users: ReadonlyMap<string, UserRecord>;
}

// Every lookup of the plan at once, by the core's keys; then the links of each account found.
async function lookUp(store: SignInStore, lookups: Lookups): Promise<Found> {
  const [linked, byEmail, named] = await Promise.all([
    store.accounts.findByExternalAccountKey(lookups.externalAccount.key),
    Promise.all(lookups.verifiedEmails.map((email) => store.accounts.findByVerifiedEmailKey(email.key))),
    lookups.username === null ? Promise.resolve(null) : store.accounts.findByUsernameKey(lookups.username.key),
  ]);
  const users = new Map<string, UserRecord>();
  for (const user of [linked, ...byEmail, named]) if (user !== null) users.set(user.id, user);
  const links = new Map(await Promise.all([...users.keys()].map(async (id) => [id, await store.accounts.links(id)] as const)));
  const asAccount = (user: UserRecord | null): Account | null => (user === null ? null : accountOf(user, links.get(user.id) ?? []));
  return { facts: { externalAccount: asAccount(linked), verifiedEmails: byEmail.map(asAccount), username: asAccount(named) }, users };
}

function denied(reason: SignInDenialReason | 'account_not_for_browser' | 'account_suspended', message: string): SignInOutcome {
  return { kind: 'denied', reason, message };
}

// §5.5 rule 8: the store takes the first free candidate; when every one is taken, the person is told so.
async function create(
  store: SignInStore,
  decision: Extract<SignInPlanDecision, { readonly kind: 'create' }>,
  now: number,
): Promise<Result<SignInOutcome, SignInFlowError>> {
  const { externalAccount: ref } = decision;
  const created = await store.accounts.create({
    usernames: decision.usernames,
    origin: 'provider_signup',
    siteAdmin: false,
    serviceAccount: false,
    emails: decision.emails.map((e) => ({ email: e.address, verified: e.verified })),
    passwordHash: null,
    createdAt: now,
    externalAccount: { serviceType: ref.providerType, serviceId: ref.serviceId, accountId: ref.accountId, createdAt: now },
  });
  if (created.isOk()) return ok({ kind: 'signed_in', userId: created.value.id, user: created.value, created: true, linked: true });
  return created.error.code === 'username_taken'
    ? ok(denied('username_unavailable', SIGN_IN_DENIAL_MESSAGES.username_unavailable))
    : err({ code: 'store_conflict', conflict: created.error });
}

// An existing account: never a service account from a browser (spec §1); the identity is linked first when the
// decision says so.
async function signInto(
  store: SignInStore,
  decision: Extract<SignInPlanDecision, { readonly kind: 'sign_in' }>,
  users: ReadonlyMap<string, UserRecord>,
  now: number,
): Promise<Result<SignInOutcome, SignInFlowError>> {
  const user = users.get(decision.userId) ?? (await store.accounts.get(decision.userId));
  if (user === null) return err({ code: 'store_conflict', conflict: { code: 'unknown_user', userId: decision.userId } });
  if (user.serviceAccount) return ok(denied('account_not_for_browser', ACCOUNT_NOT_FOR_BROWSER_MESSAGE));
  // a suspended account has no way in, by any provider; nothing is linked to it meanwhile
  if (decideAccountUse({ suspended: user.suspendedAt !== undefined, use: 'sign_in' }).kind === 'deny') return ok(denied('account_suspended', ACCOUNT_SUSPENDED_MESSAGE));
  if (!decision.linkExternalAccount) return ok({ kind: 'signed_in', userId: user.id, user, created: false, linked: false });
  const ref = decision.externalAccount;
  const linked = await store.accounts.link({
    userId: user.id,
    serviceType: ref.providerType,
    serviceId: ref.serviceId,
    accountId: ref.accountId,
    createdAt: now,
  });
  return linked.isOk()
    ? ok({ kind: 'signed_in', userId: user.id, user, created: false, linked: true })
    : err({ code: 'store_conflict', conflict: linked.error });
}

/** The first field of an identity the store keeps that holds NUL or an unpaired surrogate, or `null`. */
function unstorableIdentityField(identity: ExternalIdentity): string | null {
  if (typeof identity.accountId === 'string' && findUnstorableText(identity.accountId) !== null) return 'accountId';
  if (typeof identity.username === 'string' && findUnstorableText(identity.username) !== null) return 'username';
  const emails: readonly unknown[] = Array.isArray(identity.emails) ? identity.emails : [];
  const at = emails.findIndex((e) => typeof e === 'object' && e !== null && 'address' in e && typeof e.address === 'string' && findUnstorableText(e.address) !== null);
  return at < 0 ? null : `emails[${at}].address`;
}

// A signed-in identity keeps what its provider said this time (no token, no secret), in the sign-in's transaction:
// what a preview of a configuration change reads.
async function recordFacts(
  store: SignInStore,
  plan: SignInPlan,
  identity: ExternalIdentity,
  outcome: Result<SignInOutcome, SignInFlowError>,
  now: number,
): Promise<Result<SignInOutcome, SignInFlowError>> {
  if (plan.kind !== 'look_up' || outcome.isErr() || outcome.value.kind !== 'signed_in') return outcome;
  const ref = plan.lookups.externalAccount.ref;
  const recorded = await store.accounts.recordIdentityFacts(
    { serviceType: ref.providerType, serviceId: ref.serviceId, accountId: ref.accountId },
    identityFacts(identity),
    now,
  );
  return recorded.isOk() ? outcome : err({ code: 'store_conflict', conflict: recorded.error });
}

// One attempt, inside a transaction: look up, decide, apply.
async function decideAndApply(store: SignInStore, plan: SignInPlan, now: number): Promise<Result<SignInOutcome, SignInFlowError>> {
  const found: Found =
    plan.kind === 'denied'
      ? { facts: { externalAccount: null, verifiedEmails: [], username: null }, users: new Map() }
      : await lookUp(store, plan.lookups);
  const decision = decideSignIn(plan, found.facts);
  if (decision.isErr()) return err({ code: 'sign_in_error', error: decision.error });
  return match(decision.value)
    .returnType<Promise<Result<SignInOutcome, SignInFlowError>>>()
    .with({ kind: 'deny' }, (d) => Promise.resolve(ok(denied(d.reason, d.message))))
    .with({ kind: 'create' }, (d) => create(store, d, now))
    .with({ kind: 'sign_in' }, (d) => signInto(store, d, found.users, now))
    .exhaustive();
}

/**
 * Signs a person in whom a provider vouched for (spec §5.3–§5.5): plans with the core, looks up the accounts the
 * plan names by the core's keys, decides with the core, and applies the decision in the same store transaction.
 * A new account is created with its emails, its link and its username candidates in one insert (the store takes
 * the first free name, §5.5 rule 8); an existing account gets the identity linked when the decision says so; a
 * service account is refused (`account_not_for_browser`). When a write conflicts because the store changed
 * underneath (a concurrent sign-in of the same identity created its account first), the sign-in is decided again,
 * up to `deps.attempts` times.
 *
 * @param deps - The store, the clock and the random source.
 * @param request - The provider, what it vouched for, and the session's account.
 * @returns The outcome, or why nothing could be done. Rejects when the store does (nothing is written then).
 * @example
 * ```ts
 * const outcome = await runSignIn({ store, now: Date.now, randomBytes }, { provider: hosta, identity, signedInUserId: null });
 * // ok({ kind: 'signed_in', userId: '1', user: { id: '1', username: 'octo', … }, created: true, linked: true })
 * ```
 */
export async function runSignIn(deps: SignInFlowDeps, request: SignInRequest): Promise<Result<SignInOutcome, SignInFlowError>> {
  const attempts = Math.max(1, deps.attempts ?? 3);
  // what the provider vouched for is stored as it is: text the store cannot hold makes the identity malformed
  const unstorable = unstorableIdentityField(request.identity);
  if (unstorable !== null) return err({ code: 'sign_in_error', error: { code: 'invalid_identity', path: unstorable, expected: 'storable text' } });
  let last: Result<SignInOutcome, SignInFlowError> = err({ code: 'store_conflict', conflict: { code: 'unknown_user', userId: '' } });
  for (let attempt = 0; attempt < attempts; attempt++) {
    // Drawn outside the transaction: a store may run the transaction's work again.
    const suffixBytes = Array.from({ length: MAX_USERNAME_SUFFIX_ATTEMPTS }, () => deps.randomBytes(SUFFIX_RANDOM_BYTES));
    const plan = planSignIn({ ...request, suffixBytes });
    if (plan.isErr()) return err({ code: 'sign_in_error', error: plan.error });
    const now = deps.now();
    last = await deps.store.transaction(async (tx) => recordFacts(tx, plan.value, request.identity, await decideAndApply(tx, plan.value, now), now));
    if (last.isOk() || last.error.code !== 'store_conflict') return last;
  }
  return last;
}
