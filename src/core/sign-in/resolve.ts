/**
 * Which account a person coming from a provider lands in: an existing one, a new one, or none
 * (spec §5.3–§5.5, §7 rules 2–4). {@link resolveSignIn} is the two pure steps of `sign-in-plan` run over a
 * synchronous {@link AccountDirectory}: plan, look up, decide, then take the first free username.
 *
 * @module
 */
import { err, ok, Result, safeTry } from 'neverthrow';
import { match } from 'ts-pattern';
import {
  readAccount,
  type Account,
  type AccountDirectory,
  type ExternalAccountRef,
} from '../account-directory.js';
import type { AuthProvider } from '../auth-providers.js';
import type { ExternalIdentity } from '../external-identity.js';
import { isObject, ownField } from '../internal/guard.js';
import {
  decideSignIn,
  planSignInFields,
  SIGN_IN_DENIAL_MESSAGES,
  type DirectoryOperation,
  type SignInError,
  type SignInFacts,
  type SignInPlan,
  type SignInPlanDecision,
} from './plan.js';
import { MAX_USERNAME_SUFFIX_ATTEMPTS, SUFFIX_RANDOM_BYTES, usernameCandidates } from '../username.js';

export { MAX_USERNAME_SUFFIX_ATTEMPTS } from '../username.js';
export { SIGN_IN_DENIAL_MESSAGES, SIGN_IN_DENIAL_REASONS } from './plan.js';
export type { DirectoryOperation, SignInDenialReason, SignInError, SignInVia } from './plan.js';

/**
 * The outcome of {@link resolveSignIn}.
 *
 * @example
 * ```ts
 * const decision: SignInDecision = {
 *   kind: 'sign_in', userId: 'u1', via: 'verified_email', linkExternalAccount: true,
 *   externalAccount: { providerType: 'hosta', serviceId: '', accountId: '1234' },
 * };
 * ```
 */
export type SignInDecision =
  /** Sign in to (or stay in) an existing account, or refuse: as `decideSignIn` decides. */
  | Exclude<SignInPlanDecision, { readonly kind: 'create' }>
  /** Create an account with this username (the first free candidate) and these emails, link `externalAccount`, sign in. */
  | (Omit<Extract<SignInPlanDecision, { readonly kind: 'create' }>, 'usernames'> & { readonly username: string });

/**
 * Input of {@link resolveSignIn}.
 *
 * @example
 * ```ts
 * const input: SignInInput = {
 *   provider: hosta,
 *   identity: { accountId: '1234', username: 'octo', emails: [{ address: 'octo@example.com', verified: true }] },
 *   signedInUserId: null,
 *   directory: accountDirectoryFromArray(accounts)._unsafeUnwrap(),
 *   randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
 * };
 * ```
 */
export interface SignInInput {
  /** The provider the person came through (parsed, defaults applied). */
  readonly provider: AuthProvider;
  /** What the provider reported about the person. */
  readonly identity: ExternalIdentity;
  /** The account of the current session, or `null` when nobody is signed in. */
  readonly signedInUserId: string | null;
  /** The existing accounts. */
  readonly directory: AccountDirectory;
  /** Returns `n` bytes from a CSPRNG; feeds the username suffix. */
  readonly randomBytes: (n: number) => Uint8Array;
}

type Callable = (this: unknown, argument: unknown) => unknown;

function isCallable(value: unknown): value is Callable {
  return typeof value === 'function';
}

// The directory's lookups, made total: every call yields a Result.
interface SafeDirectory {
  readonly findByExternalAccount: (ref: ExternalAccountRef) => Result<Account | null, SignInError>;
  readonly findByVerifiedEmail: (address: string) => Result<Account | null, SignInError>;
  readonly findByUsername: (username: string) => Result<Account | null, SignInError>;
  readonly isUsernameTaken: (username: string) => Result<boolean, SignInError>;
}

function readDirectory(value: unknown): Result<SafeDirectory, SignInError> {
  if (!isObject(value)) return err({ code: 'invalid_sign_in_input', path: 'directory' });
  const directory = value;
  // One lookup made total: `err` when it is not a function, and when calling it throws.
  const lookup = (operation: DirectoryOperation): Result<(argument: unknown) => Result<unknown, SignInError>, SignInError> => {
    // Reflect.get also finds methods on a prototype (a class-based directory); a throwing getter is malformed input.
    const fn = Result.fromThrowable(
      (): unknown => Reflect.get(directory, operation),
      () => undefined,
    )().unwrapOr(undefined);
    if (!isCallable(fn)) return err({ code: 'invalid_sign_in_input', path: `directory.${operation}` });
    return ok((argument) =>
      Result.fromThrowable(
        () => fn.call(directory, argument),
        (): SignInError => ({ code: 'directory_failed', operation, cause: 'threw' }),
      )(),
    );
  };
  const findAccount =
    (operation: DirectoryOperation, call: (argument: unknown) => Result<unknown, SignInError>) =>
    (argument: unknown): Result<Account | null, SignInError> =>
      call(argument).andThen((found) =>
        found === null || found === undefined
          ? ok(null)
          : readAccount(found, '').mapErr((): SignInError => ({ code: 'directory_failed', operation, cause: 'malformed_result' })),
      );
  return safeTry(function* () {
    const byExternalAccount = yield* lookup('findByExternalAccount');
    const byVerifiedEmail = yield* lookup('findByVerifiedEmail');
    const byUsername = yield* lookup('findByUsername');
    const usernameTaken = yield* lookup('isUsernameTaken');
    const safe: SafeDirectory = {
      findByExternalAccount: findAccount('findByExternalAccount', byExternalAccount),
      findByVerifiedEmail: findAccount('findByVerifiedEmail', byVerifiedEmail),
      findByUsername: findAccount('findByUsername', byUsername),
      isUsernameTaken: (username) =>
        usernameTaken(username).andThen((taken): Result<boolean, SignInError> =>
          typeof taken === 'boolean'
            ? ok(taken)
            : err({ code: 'directory_failed', operation: 'isUsernameTaken', cause: 'malformed_result' }),
        ),
    };
    return ok(safe);
  });
}

function readRandomBytes(value: unknown): Result<(n: number) => Result<Uint8Array, SignInError>, SignInError> {
  if (!isCallable(value)) return err({ code: 'invalid_sign_in_input', path: 'randomBytes' });
  const fn = value;
  return ok((n) =>
    Result.fromThrowable(
      () => fn.call(undefined, n),
      (): SignInError => ({ code: 'random_bytes_failed', cause: 'threw' }),
    )().andThen((bytes): Result<Uint8Array, SignInError> =>
      bytes instanceof Uint8Array && bytes.length >= n
        ? ok(bytes)
        : err({ code: 'random_bytes_failed', cause: 'not_enough_bytes' }),
    ),
  );
}


// The directory's answers to the plan's lookups, in the plan's order: the link, each verified email, the username.
function lookUp(directory: SafeDirectory, plan: SignInPlan): Result<SignInFacts, SignInError> {
  if (plan.kind === 'denied') return ok({ externalAccount: null, verifiedEmails: [], username: null });
  const { lookups } = plan;
  return safeTry(function* () {
    const externalAccount = yield* directory.findByExternalAccount(lookups.externalAccount.ref);
    const verifiedEmails: (Account | null)[] = [];
    for (const email of lookups.verifiedEmails) verifiedEmails.push(yield* directory.findByVerifiedEmail(email.address));
    const username = lookups.username === null ? null : yield* directory.findByUsername(lookups.username.name);
    const facts: SignInFacts = { externalAccount, verifiedEmails, username };
    return ok(facts);
  });
}

// The directory's part of a `create`, as a store's insert would do it: the first candidate not taken (§5.5 rule 8).
// Suffixes are drawn one attempt at a time, only once every earlier candidate is taken; `taken` collects the names
// found taken, in order.
function takeUsername(
  decision: Extract<SignInPlanDecision, { readonly kind: 'create' }>,
  directory: SafeDirectory,
  randomBytes: (n: number) => Result<Uint8Array, SignInError>,
  taken: string[],
): Result<SignInDecision, SignInError> {
  const create = (username: string): SignInDecision => ({
    kind: 'create',
    username,
    emails: decision.emails,
    externalAccount: decision.externalAccount,
  });
  const base = decision.usernames[0];
  if (base === undefined) return ok(deny('username_unavailable'));
  return safeTry(function* () {
    const drawn: Uint8Array[] = [];
    let candidates = decision.usernames;
    let tried = 0;
    for (;;) {
      for (const candidate of candidates.slice(tried)) {
        tried++;
        if (!(yield* directory.isUsernameTaken(candidate))) return ok(create(candidate));
        taken.push(candidate);
      }
      if (drawn.length >= MAX_USERNAME_SUFFIX_ATTEMPTS) return ok(deny('username_unavailable'));
      drawn.push(yield* randomBytes(SUFFIX_RANDOM_BYTES));
      candidates = usernameCandidates(base, drawn).unwrapOr(candidates);
    }
  });
}

function deny(reason: 'username_unavailable'): SignInDecision {
  return { kind: 'deny', reason, message: SIGN_IN_DENIAL_MESSAGES[reason] };
}

/**
 * Decides which account a person coming from `provider` lands in. The provider's membership rules
 * (`decideProviderAccess`) are applied first; a denial there is returned as `deny` with its reason.
 * `reviewhost` only adds credentials to the signed-in account, so without a session it is denied
 * with `provider_not_for_sign_in`. Then, in this order (spec §5.4):
 *
 * 1. the identity is already linked: `sign_in` that account (`external_account`), or deny with
 *    `identity_linked_to_other_user` when a different user is signed in;
 * 2. a user is signed in: link the identity to them (`signed_in_user`; rule 4);
 * 3. an email the provider verified equals a verified email of an account (ASCII
 *    case-insensitively), trying emails primary first: `sign_in` and link (`verified_email`;
 *    rules 1–2). An email verified on only one side never links;
 * 4. a code host (`hosta`, `hostb`, `hostccloud`, `hostcserver`) reported no verified email: deny
 *    with `verified_email_missing`, even when a username matches (rule 3, §7 rule 2);
 * 5. `hostcserver` (rule 5), or `http-header` without any email (§5.3 `http-header` rule 3): when the
 *    provider username is already a valid username (`normalizeUsername` leaves it unchanged), the account
 *    whose username equals it ASCII case-insensitively: `sign_in` and link (`username`), but only when that
 *    account's `origin` is `admin_created` and it has no link of this provider type yet (one linked to
 *    this same provider belongs to the identity linked there). Any other account of that name is someone else's: no match, and the
 *    steps below give a new, suffixed account or a denial (§5.5 rule 8);
 * 6. the provider does not allow sign-up: deny with `signup_not_allowed` (§7 rule 3);
 * 7. otherwise `create` an account named `normalizeUsername(username ?? primary email)`, with the
 *    identity's emails (verified as the provider says); when the name is taken, up to
 *    {@link MAX_USERNAME_SUFFIX_ATTEMPTS} names with a random suffix are tried, then deny with
 *    `username_unavailable` (§5.5 rule 8).
 *
 * It is `planSignIn`, then every lookup the plan names through `directory` (the link, each verified email, the
 * username), then `decideSignIn`, then, for `create`, the first candidate `isUsernameTaken` says is free; random
 * bytes are drawn one suffix at a time, only when every earlier name is taken.
 *
 * @param input - The provider, the identity, the session's user, the accounts and a random source.
 * @returns `ok` with `sign_in`, `create` or `deny`; `err` only when the input is malformed at run
 * time, a directory lookup fails, or the random source fails.
 * @example Linking by verified email
 * ```ts
 * resolveSignIn({
 *   provider: hosta, signedInUserId: null, randomBytes,
 *   identity: { accountId: '1234', username: 'octo', emails: [{ address: 'Octo@example.com', verified: true }] },
 *   directory: accountDirectoryFromArray([
 *     { id: 'u1', username: 'octavia', origin: 'admin_created', emails: [{ address: 'octo@example.com', verified: true }], externalAccounts: [] },
 *   ])._unsafeUnwrap(),
 * });
 * // ok({ kind: 'sign_in', userId: 'u1', via: 'verified_email', linkExternalAccount: true,
 * //      externalAccount: { providerType: 'hosta', serviceId: '', accountId: '1234' } })
 * ```
 * @example A provider username that only normalizes to an existing name is someone else (§5.5 rule 8)
 * ```ts
 * resolveSignIn({
 *   provider: { type: 'http-header', usernameHeader: 'X-Forwarded-User', allowSignup: true },
 *   identity: { accountId: 'admin@evil.example', username: 'admin@evil.example', emails: [] },
 *   signedInUserId: null, randomBytes,
 *   directory: accountDirectoryFromArray([
 *     { id: 'u1', username: 'admin', origin: 'admin_created', emails: [], externalAccounts: [] },
 *   ])._unsafeUnwrap(),
 * });
 * // ok({ kind: 'create', username: 'admin-xxxxx', emails: [], externalAccount: { … } })
 * ```
 * @example A code host without a verified email
 * ```ts
 * resolveSignIn({ ...input, identity: { accountId: '1234', username: 'octavia', emails: [] } });
 * // ok({ kind: 'deny', reason: 'verified_email_missing', message: 'A verified email is missing: …' })
 * ```
 */
export function resolveSignIn(input: SignInInput): Result<SignInDecision, SignInError> {
  return resolveSignInSteps(input).map((steps) => steps.decision);
}

/**
 * What each step of {@link resolveSignIn} produced: the plan, what the lookups found, the usernames found taken
 * (in the order tried) and the decision. `explainSignIn` reads them; `resolveSignIn` keeps only the decision.
 *
 * @internal
 */
export interface SignInSteps {
  /** What `planSignIn` returned (gating decided, or the lookups to make). */
  readonly plan: SignInPlan;
  /** What the directory answered to the plan's lookups. */
  readonly facts: SignInFacts;
  /** For a new account, each candidate username `isUsernameTaken` said was taken, in order. */
  readonly takenUsernames: readonly string[];
  /** The outcome. */
  readonly decision: SignInDecision;
}

/**
 * {@link resolveSignIn}, keeping what each step produced: the one code path both it and `explainSignIn` run.
 *
 * @param input - As {@link resolveSignIn}.
 * @returns The steps, or the error {@link resolveSignIn} returns.
 * @internal
 * @example
 * ```ts
 * resolveSignInSteps(input).map((steps) => steps.decision); // = resolveSignIn(input)
 * ```
 */
export function resolveSignInSteps(input: SignInInput): Result<SignInSteps, SignInError> {
  if (!isObject(input) || Array.isArray(input)) return err({ code: 'invalid_sign_in_input', path: 'input' });
  return safeTry(function* () {
    const plan = yield* planSignInFields({
      provider: ownField(input, 'provider'),
      identity: ownField(input, 'identity'),
      signedInUserId: ownField(input, 'signedInUserId'),
      suffixBytes: [],
    });
    const directory = yield* readDirectory(ownField(input, 'directory'));
    const randomBytes = yield* readRandomBytes(ownField(input, 'randomBytes'));
    const facts = yield* lookUp(directory, plan);
    const decided = yield* decideSignIn(plan, facts);
    const takenUsernames: string[] = [];
    const decision = yield* match(decided)
      .returnType<Result<SignInDecision, SignInError>>()
      .with({ kind: 'create' }, (create) => takeUsername(create, directory, randomBytes, takenUsernames))
      .with({ kind: 'sign_in' }, { kind: 'deny' }, (d) => ok(d))
      .exhaustive();
    const steps: SignInSteps = { plan, facts, takenUsernames, decision };
    return ok(steps);
  });
}
