/**
 * Which account a person coming from a provider lands in: an existing one, a new one, or none
 * (spec §5.3–§5.5, §7 rules 2–4).
 *
 * @module
 */
import { err, ok, Result, safeTry } from 'neverthrow';
import { match, P } from 'ts-pattern';
import {
  readAccount,
  type Account,
  type AccountDirectory,
  type AccountEmail,
  type ExternalAccountRef,
} from './account-directory.js';
import type { AuthProvider, ProviderType } from './auth-providers.js';
import { parseExternalIdentity, type ExternalEmail, type ExternalIdentity } from './external-identity.js';
import { asciiLowercase, emailMatchKey } from './internal/email-address.js';
import { isObject, ownField } from './internal/guard.js';
import {
  decideAccessWithFacts,
  readProviderForAccess,
  type ProviderAccessError,
} from './provider-access.js';
import { normalizeUsername, SUFFIX_RANDOM_BYTES, withRandomSuffix } from './username.js';

/**
 * How many suffixed usernames {@link resolveSignIn} tries after the plain name is taken (spec §5.5 rule 8).
 *
 * @example
 * ```ts
 * MAX_USERNAME_SUFFIX_ATTEMPTS; // 5
 * ```
 */
export const MAX_USERNAME_SUFFIX_ATTEMPTS = 5;

/**
 * Every reason {@link resolveSignIn} may deny: the gating reasons of `decideProviderAccess` and the
 * linking reasons.
 *
 * @example
 * ```ts
 * SIGN_IN_DENIAL_REASONS.includes('verified_email_missing'); // true
 * ```
 */
export const SIGN_IN_DENIAL_REASONS = [
  'not_in_allowed_orgs_or_teams',
  'not_in_allowed_groups',
  'minimal_access',
  'email_domain_not_allowed',
  'unverified_email',
  'membership_unknown',
  'provider_not_for_sign_in',
  'identity_linked_to_other_user',
  'verified_email_missing',
  'signup_not_allowed',
  'username_missing',
  'username_unavailable',
] as const;

/**
 * Why a person is not signed in; the gating reasons of `decideProviderAccess` plus:
 * `provider_not_for_sign_in` (`reviewhost` only adds credentials to a signed-in account),
 * `identity_linked_to_other_user` (the identity belongs to an account other than the signed-in one),
 * `verified_email_missing` (a code host reported no verified email, §5.4 rule 3),
 * `signup_not_allowed` (no account matched and the provider does not allow sign-up),
 * `username_missing` (nothing to derive a username from), and
 * `username_unavailable` (every candidate username was taken, §5.5 rule 8).
 *
 * @example
 * ```ts
 * const reason: SignInDenialReason = 'signup_not_allowed';
 * ```
 */
export type SignInDenialReason = (typeof SIGN_IN_DENIAL_REASONS)[number];

/**
 * The message shown to the person for each denial reason. None names another account.
 *
 * @example
 * ```ts
 * SIGN_IN_DENIAL_MESSAGES.verified_email_missing.includes('verified email is missing'); // true
 * ```
 */
export const SIGN_IN_DENIAL_MESSAGES: Readonly<Record<SignInDenialReason, string>> = {
  not_in_allowed_orgs_or_teams:
    'You are not a member of an organization or team that may sign in here. Ask an administrator to add you to one.',
  not_in_allowed_groups:
    'You are not a member, at Guest level or above, of a group that may sign in here. Ask an administrator for access.',
  minimal_access:
    'Your membership in the allowed groups is at the Minimal Access level, which cannot sign in. Ask an administrator to give you Guest access or above (for example in a subgroup).',
  email_domain_not_allowed: 'Your email address is not in the email domain allowed to sign in here.',
  unverified_email: 'Your email address is not verified by your identity provider. Verify it there, then sign in again.',
  membership_unknown: 'Your memberships could not be read completely, so access cannot be decided. Try again later.',
  provider_not_for_sign_in:
    'This provider only adds credentials to an account you are already signed in to. Sign in first.',
  identity_linked_to_other_user:
    'This external account is already linked to a different user. Sign out and sign in with that external account instead.',
  verified_email_missing:
    'A verified email is missing: your account at the code host has no verified email address, so it cannot be matched to an account here. Verify an email address at the code host, then sign in again.',
  signup_not_allowed:
    'Sign-up is not allowed here and no account has a verified email matching yours (a verified email is missing). Ask an administrator to create your account with your verified email address.',
  username_missing: 'Your identity provider reported neither a username nor an email address to name a new account.',
  username_unavailable: 'No free username could be found for your new account. Try again, or ask an administrator.',
};

/**
 * How an existing account was found: through the linked identity (§5.4 rule 4), the signed-in
 * session (the identity is being added to it), a verified email (§5.4 rules 1–2) or the username
 * (`http-header` without an email, `hostcserver`; §5.3 `http-header` rule 3, §5.4 rule 5).
 *
 * @example
 * ```ts
 * const via: SignInVia = 'verified_email';
 * ```
 */
export type SignInVia = 'external_account' | 'signed_in_user' | 'verified_email' | 'username';

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
  /** Sign in to (or stay in) an existing account; when `linkExternalAccount`, save `externalAccount` on it first. */
  | {
      readonly kind: 'sign_in';
      readonly userId: string;
      readonly via: SignInVia;
      readonly linkExternalAccount: boolean;
      readonly externalAccount: ExternalAccountRef;
    }
  /** Create an account with this username and these emails, link `externalAccount` to it, and sign in. */
  | {
      readonly kind: 'create';
      readonly username: string;
      readonly emails: readonly AccountEmail[];
      readonly externalAccount: ExternalAccountRef;
    }
  /** Refuse; `message` is safe to show to the person. */
  | { readonly kind: 'deny'; readonly reason: SignInDenialReason; readonly message: string };

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

/**
 * A lookup of {@link AccountDirectory}.
 *
 * @example
 * ```ts
 * const operation: DirectoryOperation = 'findByVerifiedEmail';
 * ```
 */
export type DirectoryOperation = 'findByExternalAccount' | 'findByVerifiedEmail' | 'findByUsername' | 'isUsernameTaken';

/**
 * Why {@link resolveSignIn} could not decide.
 *
 * @example
 * ```ts
 * const e: SignInError = { code: 'directory_failed', operation: 'findByUsername', cause: 'threw' };
 * ```
 */
export type SignInError =
  /** The provider or the identity is malformed (see `decideProviderAccess`). */
  | ProviderAccessError
  /** Another field of the input is missing or has the wrong type at run time. */
  | {
      readonly code: 'invalid_sign_in_input';
      readonly path: 'input' | 'signedInUserId' | 'directory' | `directory.${DirectoryOperation}` | 'randomBytes';
    }
  /** A directory lookup threw, or returned something other than an account, `null`/`undefined` (or a boolean). */
  | { readonly code: 'directory_failed'; readonly operation: DirectoryOperation; readonly cause: 'threw' | 'malformed_result' }
  /** `randomBytes` threw, or did not return a `Uint8Array` of the requested length. */
  | { readonly code: 'random_bytes_failed'; readonly cause: 'threw' | 'not_enough_bytes' };

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

function readSignedInUserId(value: unknown): Result<string | null, SignInError> {
  return value === null || (typeof value === 'string' && value !== '')
    ? ok(value)
    : err({ code: 'invalid_sign_in_input', path: 'signedInUserId' });
}

function deny(reason: SignInDenialReason): SignInDecision {
  return { kind: 'deny', reason, message: SIGN_IN_DENIAL_MESSAGES[reason] };
}

function isCodeHost(type: ProviderType): boolean {
  return match(type)
    .returnType<boolean>()
    .with('hosta', 'hostb', 'hostccloud', 'hostcserver', () => true)
    .with('builtin', 'reviewhost', 'openidconnect', 'http-header', 'saml', () => false)
    .exhaustive();
}

// §5.4 rule 5 and §5.3 http-header rule 3: the provider types whose usernames may find an account.
function matchesByUsername(type: ProviderType, identity: ExternalIdentity): boolean {
  return match(type)
    .returnType<boolean>()
    .with('hostcserver', () => true)
    .with('http-header', () => identity.emails.length === 0)
    .with('builtin', 'hosta', 'hostb', 'hostccloud', 'reviewhost', 'openidconnect', 'saml', () => false)
    .exhaustive();
}

// The provider username a username match may use: the name exactly as the provider gave it, and only when it is
// already a valid username (normalizing leaves it unchanged). `admin@evil.example`, `.admin`, `admin.` and `-admin`
// only normalize to `admin`: they are other people's names (§5.5 rule 8), never a way into `admin`.
function usernameToMatch(username: string | null): string | null {
  if (username === null) return null;
  const normalized = normalizeUsername(username);
  return normalized.isOk() && normalized.value === username ? username : null;
}

// How the account's links relate to the provider the person came through.
function linkStateOf(account: Account, ref: ExternalAccountRef): 'same_provider' | 'other_provider_of_type' | 'none_of_type' {
  const ofType = account.externalAccounts.filter((link) => link.providerType === ref.providerType);
  if (ofType.some((link) => link.serviceId === ref.serviceId)) return 'same_provider';
  return ofType.length > 0 ? 'other_provider_of_type' : 'none_of_type';
}

// Whether a username match may land in `account` (§5.4 rule 5, §5.3 http-header rule 3): only an account an
// administrator created for the person (hosta rule 2's admin-created account), and only while it has no link of
// this provider type. An account someone signed up for themselves, with a password or through a provider, is
// theirs: a namesake at a provider is another person. An account already linked to this same provider is not
// claimable either: its own identity finds it through the link (step 1), so a username match there can only be a
// different identity at that provider that took the name over (a rename at the code host).
function mayClaimByUsername(account: Account, ref: ExternalAccountRef): boolean {
  return match([account.origin, linkStateOf(account, ref)] as const)
    .returnType<boolean>()
    .with(['admin_created', 'none_of_type'], () => true)
    .with(['admin_created', P.union('same_provider', 'other_provider_of_type')], () => false)
    .with([P.union('password_signup', 'provider_signup', 'service_account'), P._], () => false)
    .exhaustive();
}

function hasVerifiedEmail(account: Account, address: string): boolean {
  const key = emailMatchKey(address);
  return account.emails.some((email) => email.verified && emailMatchKey(email.address) === key);
}

function emailsForNewAccount(emails: readonly ExternalEmail[]): readonly AccountEmail[] {
  const byKey = new Map<string, AccountEmail>();
  for (const email of emails) {
    const key = emailMatchKey(email.address);
    const seen = byKey.get(key);
    byKey.set(key, seen === undefined ? email : { address: seen.address, verified: seen.verified || email.verified });
  }
  return [...byKey.values()].map((email) => ({ address: email.address, verified: email.verified }));
}

function baseUsername(identity: ExternalIdentity): string | null {
  // The provider's username, else the primary email (normalizing keeps the part before the `@`).
  for (const source of [identity.username, identity.emails[0]?.address]) {
    if (source === null || source === undefined) continue;
    const normalized = normalizeUsername(source);
    if (normalized.isOk()) return normalized.value;
  }
  return null;
}

function createAccount(
  identity: ExternalIdentity,
  externalAccount: ExternalAccountRef,
  directory: SafeDirectory,
  randomBytes: (n: number) => Result<Uint8Array, SignInError>,
): Result<SignInDecision, SignInError> {
  return safeTry(function* () {
    const base = baseUsername(identity);
    if (base === null) return ok(deny('username_missing'));
    const emails = emailsForNewAccount(identity.emails);
    const create = (username: string): SignInDecision => ({ kind: 'create', username, emails, externalAccount });
    if (!(yield* directory.isUsernameTaken(base))) return ok(create(base));
    for (let attempt = 0; attempt < MAX_USERNAME_SUFFIX_ATTEMPTS; attempt++) {
      const bytes = yield* randomBytes(SUFFIX_RANDOM_BYTES);
      const candidate = withRandomSuffix(base, bytes);
      // Rejection sampling may, very rarely, run out of bytes: that attempt is spent.
      if (candidate.isErr()) continue;
      if (!(yield* directory.isUsernameTaken(candidate.value))) return ok(create(candidate.value));
    }
    return ok(deny('username_unavailable'));
  });
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
  if (!isObject(input) || Array.isArray(input)) return err({ code: 'invalid_sign_in_input', path: 'input' });
  return safeTry(function* () {
    const facts = yield* readProviderForAccess(ownField(input, 'provider'));
    const identity = yield* parseExternalIdentity(ownField(input, 'identity'));
    const signedInUserId = yield* readSignedInUserId(ownField(input, 'signedInUserId'));
    const directory = yield* readDirectory(ownField(input, 'directory'));
    const randomBytes = yield* readRandomBytes(ownField(input, 'randomBytes'));

    const access = decideAccessWithFacts(facts, identity);
    if (access.kind === 'deny') return ok(deny(access.reason));
    if (facts.type === 'reviewhost' && signedInUserId === null) return ok(deny('provider_not_for_sign_in'));

    const externalAccount: ExternalAccountRef = {
      providerType: facts.type,
      serviceId: facts.serviceId,
      accountId: identity.accountId,
    };
    const signIn = (userId: string, via: SignInVia, linkExternalAccount: boolean): SignInDecision => ({
      kind: 'sign_in',
      userId,
      via,
      linkExternalAccount,
      externalAccount,
    });

    // 1. Already linked.
    const linked = yield* directory.findByExternalAccount(externalAccount);
    if (linked !== null) {
      return ok(
        signedInUserId === null || signedInUserId === linked.id
          ? signIn(linked.id, 'external_account', false)
          : deny('identity_linked_to_other_user'),
      );
    }
    // 2. Add the identity to the signed-in account.
    if (signedInUserId !== null) return ok(signIn(signedInUserId, 'signed_in_user', true));
    // 3. A verified email on both sides, primary first.
    const verifiedEmails = identity.emails.filter((email) => email.verified);
    for (const email of verifiedEmails) {
      const account = yield* directory.findByVerifiedEmail(email.address);
      // Checked again here so that a directory returning an unverified match cannot cause a takeover.
      if (account !== null && hasVerifiedEmail(account, email.address)) return ok(signIn(account.id, 'verified_email', true));
    }
    // 4. A code host must report a verified email.
    if (isCodeHost(facts.type) && verifiedEmails.length === 0) return ok(deny('verified_email_missing'));
    // 5. Usernames, where the spec allows matching by them: the provider's username as given, only when it is
    //    already a valid username, and only into an account a username may claim.
    const username = matchesByUsername(facts.type, identity) ? usernameToMatch(identity.username) : null;
    if (username !== null) {
      const account = yield* directory.findByUsername(username);
      // Checked again here so that a directory answering another name cannot cause a takeover.
      if (account !== null && asciiLowercase(account.username) === asciiLowercase(username)) {
        if (mayClaimByUsername(account, externalAccount)) return ok(signIn(account.id, 'username', true));
      }
    }
    // 6. Sign-up.
    if (!facts.allowSignup) return ok(deny('signup_not_allowed'));
    // 7. A new account.
    return createAccount(identity, externalAccount, directory, randomBytes);
  });
}
