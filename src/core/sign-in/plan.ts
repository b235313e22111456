/**
 * Sign-in in two pure steps (spec §5.3–§5.5, §7 rules 2–4): {@link planSignIn} says which accounts a decision
 * needs to see (the identity's link, its verified emails, its username), the host looks them up by the keys of
 * `store-keys`, and {@link decideSignIn} decides on what the lookups found. Neither step calls back into the host.
 *
 * @module
 */
import { err, ok, Result, safeTry } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { readAccount, type Account, type AccountEmail, type ExternalAccountRef } from '../account-directory.js';
import type { AuthProvider, ProviderType } from '../auth-providers.js';
import { parseExternalIdentity, type ExternalEmail, type ExternalIdentity } from '../external-identity.js';
import { isObject, ownField } from '../internal/guard.js';
import { ACCESS_DENIAL_REASONS, decideAccessWithFacts, readProviderForAccess, type ProviderAccessError } from '../provider-access.js';
import { emailMatchKey, externalAccountKey, usernameKey } from '../store-keys.js';
import { normalizeUsername, usernameCandidates } from '../username.js';

/**
 * Every reason a sign-in may be denied: the gating reasons of `decideProviderAccess` and the linking reasons.
 *
 * @example
 * ```ts
 * SIGN_IN_DENIAL_REASONS.includes('verified_email_missing'); // true
 * ```
 */
export const SIGN_IN_DENIAL_REASONS: readonly [
  ...typeof ACCESS_DENIAL_REASONS,
  'provider_not_for_sign_in',
  'identity_linked_to_other_user',
  'verified_email_missing',
  'signup_not_allowed',
  'username_missing',
  'username_unavailable',
] = [
  ...ACCESS_DENIAL_REASONS,
  'provider_not_for_sign_in',
  'identity_linked_to_other_user',
  'verified_email_missing',
  'signup_not_allowed',
  'username_missing',
  'username_unavailable',
];

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
 * A lookup of an `AccountDirectory`, named in `directory_failed` errors; {@link decideSignIn} names the lookup
 * whose fact was malformed the same way.
 *
 * @example
 * ```ts
 * const operation: DirectoryOperation = 'findByVerifiedEmail';
 * ```
 */
export type DirectoryOperation = 'findByExternalAccount' | 'findByVerifiedEmail' | 'findByUsername' | 'isUsernameTaken';

/**
 * Why a sign-in could not be decided.
 *
 * @example
 * ```ts
 * const e: SignInError = { code: 'directory_failed', operation: 'findByUsername', cause: 'threw' };
 * ```
 */
export type SignInError =
  /** The provider or the identity is malformed (see `decideProviderAccess`). */
  | ProviderAccessError
  /** Another field of the input is missing or has the wrong type at run time; a plan not made by `planSignIn`. */
  | {
      readonly code: 'invalid_sign_in_input';
      readonly path:
        | 'input'
        | 'signedInUserId'
        | 'suffixBytes'
        | 'plan'
        | 'facts'
        | 'directory'
        | `directory.${DirectoryOperation}`
        | 'randomBytes';
    }
  /** A lookup threw, or found something other than an account or `null`/`undefined` (or a boolean). */
  | { readonly code: 'directory_failed'; readonly operation: DirectoryOperation; readonly cause: 'threw' | 'malformed_result' }
  /** `randomBytes` threw, or did not return a `Uint8Array` of the requested length. */
  | { readonly code: 'random_bytes_failed'; readonly cause: 'threw' | 'not_enough_bytes' };

/**
 * Input of {@link planSignIn}.
 *
 * @example
 * ```ts
 * const input: SignInPlanInput = {
 *   provider: hosta,
 *   identity: { accountId: '1234', username: 'octo', emails: [{ address: 'octo@example.com', verified: true }] },
 *   signedInUserId: null,
 *   suffixBytes: [crypto.getRandomValues(new Uint8Array(SUFFIX_RANDOM_BYTES))],
 * };
 * ```
 */
export interface SignInPlanInput {
  /** The provider the person came through (parsed, defaults applied). */
  readonly provider: AuthProvider;
  /** What the provider reported about the person. */
  readonly identity: ExternalIdentity;
  /** The account of the current session, or `null` when nobody is signed in. */
  readonly signedInUserId: string | null;
  /**
   * Random bytes for the suffixes of a new account's username: up to `MAX_USERNAME_SUFFIX_ATTEMPTS` chunks of
   * `SUFFIX_RANDOM_BYTES` (§5.5 rule 8; see `usernameCandidates`). Fewer chunks, fewer candidates.
   */
  readonly suffixBytes: readonly Uint8Array[];
}

/**
 * What a decision needs looked up, each with the value and the store key (`store-keys`) to find it by.
 *
 * @example
 * ```ts
 * const lookups: SignInLookups = {
 *   externalAccount: { ref: { providerType: 'hosta', serviceId: '', accountId: '1234' }, key: '["hosta","","1234"]' },
 *   verifiedEmails: [{ address: 'Octo@example.com', key: 'octo@example.com' }],
 *   username: null,
 * };
 * ```
 */
export interface SignInLookups {
  /** The identity's link: the account it is linked to (§5.4 rule 4), found by `externalAccountKey`. */
  readonly externalAccount: { readonly ref: ExternalAccountRef; readonly key: string };
  /**
   * The identity's verified emails, primary first, one per `emailMatchKey`: the account on which each is verified
   * (§5.4 rules 1–2). Empty when a user is signed in (the identity is added to that account).
   */
  readonly verifiedEmails: readonly { readonly address: string; readonly key: string }[];
  /**
   * The provider username, exactly as given, when a username match may find an account (§5.4 rule 5, §5.3
   * `http-header` rule 3) and it is already a valid username: the account found by `usernameKey`. Else `null`.
   */
  readonly username: { readonly name: string; readonly key: string } | null;
}

/**
 * The outcome of {@link decideSignIn}. Like `SignInDecision`, but a new account carries every username it may
 * take, in order: the store takes the first free one atomically (§5.5 rule 8).
 *
 * @example
 * ```ts
 * const decision: SignInPlanDecision = {
 *   kind: 'create', usernames: ['octo', 'octo-kqzvb'], emails: [{ address: 'octo@example.com', verified: true }],
 *   externalAccount: { providerType: 'hosta', serviceId: '', accountId: '1234' },
 * };
 * ```
 */
export type SignInPlanDecision =
  /** Sign in to (or stay in) an existing account; when `linkExternalAccount`, save `externalAccount` on it first. */
  | {
      readonly kind: 'sign_in';
      readonly userId: string;
      readonly via: SignInVia;
      readonly linkExternalAccount: boolean;
      readonly externalAccount: ExternalAccountRef;
    }
  /** Create an account with the first free of `usernames` and these emails, link `externalAccount` to it, and sign in. */
  | {
      readonly kind: 'create';
      readonly usernames: readonly string[];
      readonly emails: readonly AccountEmail[];
      readonly externalAccount: ExternalAccountRef;
    }
  /** Refuse; `message` is safe to show to the person. */
  | { readonly kind: 'deny'; readonly reason: SignInDenialReason; readonly message: string };

/** What happens when no lookup finds an account: a new account, or a denial. */
type WhenNoAccount = Extract<SignInPlanDecision, { readonly kind: 'create' | 'deny' }>;

/**
 * The outcome of {@link planSignIn}: decided without looking anything up (`denied`), or the lookups a decision
 * needs (`look_up`). Only a plan `planSignIn` made is accepted by {@link decideSignIn}; it is frozen.
 *
 * @example
 * ```ts
 * const plan = planSignIn(input)._unsafeUnwrap();
 * if (plan.kind === 'look_up') plan.lookups.externalAccount.key; // '["hosta","","1234"]'
 * ```
 */
export type SignInPlan =
  /** Gating denied the person (`decideProviderAccess`), or `reviewhost` was used without a session. */
  | { readonly kind: 'denied'; readonly reason: SignInDenialReason }
  /** Look these up, then decide. */
  | {
      readonly kind: 'look_up';
      readonly lookups: SignInLookups;
      /** The account of the current session, or `null`. */
      readonly signedInUserId: string | null;
      /** The outcome when no lookup finds an account (§5.4 rule 3, §7 rule 3, §5.5). */
      readonly whenNoAccount: Extract<SignInPlanDecision, { readonly kind: 'create' | 'deny' }>;
    };

/**
 * What the lookups of a plan found: plain accounts, or `null` where nothing was found.
 *
 * @example
 * ```ts
 * const facts: SignInFacts = { externalAccount: null, verifiedEmails: [octavia], username: null };
 * ```
 */
export interface SignInFacts {
  /** The account `lookups.externalAccount` is linked to, or `null`. */
  readonly externalAccount: Account | null;
  /** For each of `lookups.verifiedEmails`, in order, the account on which it is verified, or `null`. */
  readonly verifiedEmails: readonly (Account | null)[];
  /** The account `lookups.username` names, or `null` (also when `lookups.username` is `null`). */
  readonly username: Account | null;
}

/** The plans `planSignIn` made: `decideSignIn` trusts these and refuses any other value. */
const PLANS = new WeakSet<object>();

function deny(reason: SignInDenialReason): Extract<SignInPlanDecision, { readonly kind: 'deny' }> {
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

function emailsForNewAccount(emails: readonly ExternalEmail[]): readonly AccountEmail[] {
  const byKey = new Map<string, AccountEmail>();
  for (const email of emails) {
    const key = emailMatchKey(email.address);
    const seen = byKey.get(key);
    byKey.set(key, seen === undefined ? email : { address: seen.address, verified: seen.verified || email.verified });
  }
  return [...byKey.values()].map((email) => ({ address: email.address, verified: email.verified }));
}

// §5.5: a new account is named after the provider's username, else the primary email (normalizing keeps the part
// before the `@`), with suffixed alternatives (rule 8).
function newAccountUsernames(identity: ExternalIdentity, suffixBytes: readonly Uint8Array[]): readonly string[] | null {
  for (const source of [identity.username, identity.emails[0]?.address]) {
    if (source === null || source === undefined) continue;
    const candidates = usernameCandidates(source, suffixBytes);
    if (candidates.isOk()) return candidates.value;
  }
  return null;
}

function readSuffixBytes(value: unknown): Result<readonly Uint8Array[], SignInError> {
  return Array.isArray(value) && value.every((chunk) => chunk instanceof Uint8Array)
    ? ok(value.filter((chunk): chunk is Uint8Array => chunk instanceof Uint8Array))
    : err({ code: 'invalid_sign_in_input', path: 'suffixBytes' });
}

function readSignedInUserId(value: unknown): Result<string | null, SignInError> {
  return value === null || (typeof value === 'string' && value !== '')
    ? ok(value)
    : err({ code: 'invalid_sign_in_input', path: 'signedInUserId' });
}

function freeze<T extends object>(value: T): T {
  for (const key of Reflect.ownKeys(value)) {
    const field: unknown = Reflect.get(value, key);
    if (isObject(field) && !(field instanceof Uint8Array)) freeze(field);
  }
  return Object.freeze(value);
}

/**
 * The first step of a sign-in: checks the input, applies the provider's membership rules (`decideProviderAccess`)
 * and `reviewhost`'s rule, and says what must be looked up before deciding (spec §5.4):
 *
 * - the account the identity is linked to, by `externalAccountKey` (always);
 * - when nobody is signed in, the account on which each verified email of the identity is verified, by
 *   `emailMatchKey`, primary first (rules 1–2);
 * - when the provider matches by username (`hostcserver`, rule 5; `http-header` without an email, §5.3
 *   `http-header` rule 3), nobody is signed in, a code host reported a verified email (rule 3), and the provider
 *   username is already a valid username: the account of that name, by `usernameKey`.
 *
 * The plan also holds what happens when nothing is found: `verified_email_missing` for a code host without a
 * verified email (rule 3, §7 rule 2), `signup_not_allowed` (§7 rule 3), `username_missing`, or a new account with
 * its username candidates (`usernameCandidates` over `suffixBytes`, §5.5 rule 8) and the identity's emails.
 *
 * @param input - The provider, the identity, the session's user and the random bytes for username suffixes.
 * @returns `ok` with the plan, or `err` when the input is malformed at run time.
 * @example
 * ```ts
 * planSignIn({ provider: hosta, identity: { accountId: '1234', username: 'octo', emails: [] }, signedInUserId: null, suffixBytes: [] });
 * // ok({ kind: 'look_up', signedInUserId: null,
 * //      lookups: { externalAccount: { ref: { providerType: 'hosta', serviceId: '', accountId: '1234' }, key: '["hosta","","1234"]' },
 * //                 verifiedEmails: [], username: null },
 * //      whenNoAccount: { kind: 'deny', reason: 'verified_email_missing', message: '…' } })
 * ```
 * @example Gating decides without a lookup
 * ```ts
 * planSignIn({ ...input, provider: { ...hosta, allowOrgs: ['acme'] }, identity: { ...identity, orgs: [] } });
 * // ok({ kind: 'denied', reason: 'not_in_allowed_orgs_or_teams' })
 * ```
 */
export function planSignIn(input: SignInPlanInput): Result<SignInPlan, SignInError> {
  if (!isObject(input) || Array.isArray(input)) return err({ code: 'invalid_sign_in_input', path: 'input' });
  return planSignInFields({
    provider: ownField(input, 'provider'),
    identity: ownField(input, 'identity'),
    signedInUserId: ownField(input, 'signedInUserId'),
    suffixBytes: ownField(input, 'suffixBytes'),
  });
}

/**
 * {@link planSignIn} over fields read from a value whose shape is only known at run time.
 *
 * @param fields - The fields of a {@link SignInPlanInput}, unchecked.
 * @returns As {@link planSignIn}.
 * @internal
 * @example
 * ```ts
 * planSignInFields({ provider: hosta, identity, signedInUserId: null, suffixBytes: [] });
 * ```
 */
export function planSignInFields(fields: { readonly [K in keyof SignInPlanInput]: unknown }): Result<SignInPlan, SignInError> {
  return safeTry(function* () {
    const facts = yield* readProviderForAccess(fields.provider);
    const identity = yield* parseExternalIdentity(fields.identity);
    const signedInUserId = yield* readSignedInUserId(fields.signedInUserId);
    const suffixBytes = yield* readSuffixBytes(fields.suffixBytes);

    const access = decideAccessWithFacts(facts, identity);
    const denied = (reason: SignInDenialReason): SignInPlan => freeze({ kind: 'denied', reason });
    if (access.kind === 'deny') return ok(remember(denied(access.reason)));
    if (facts.type === 'reviewhost' && signedInUserId === null) return ok(remember(denied('provider_not_for_sign_in')));

    const ref: ExternalAccountRef = { providerType: facts.type, serviceId: facts.serviceId, accountId: identity.accountId };
    const signedIn = signedInUserId !== null;
    const verified = signedIn ? [] : identity.emails.filter((email) => email.verified);
    const verifiedEmails: { readonly address: string; readonly key: string }[] = [];
    for (const { address } of verified) {
      const key = emailMatchKey(address);
      if (!verifiedEmails.some((email) => email.key === key)) verifiedEmails.push({ address, key });
    }
    const verifiedEmailMissing = isCodeHost(facts.type) && identity.emails.every((email) => !email.verified);
    const name = !signedIn && !verifiedEmailMissing && matchesByUsername(facts.type, identity) ? usernameToMatch(identity.username) : null;
    const usernames = newAccountUsernames(identity, suffixBytes);
    const whenNoAccount = match([verifiedEmailMissing, facts.allowSignup, usernames] as const)
      .returnType<WhenNoAccount>()
      .with([true, P._, P._], () => deny('verified_email_missing'))
      .with([false, false, P._], () => deny('signup_not_allowed'))
      .with([false, true, null], () => deny('username_missing'))
      .with([false, true, P.array(P.string)], ([, , candidates]) => ({
        kind: 'create',
        usernames: [...candidates],
        emails: emailsForNewAccount(identity.emails),
        externalAccount: ref,
      }))
      .exhaustive();
    const plan: SignInPlan = {
      kind: 'look_up',
      lookups: {
        externalAccount: { ref, key: externalAccountKey(ref.providerType, ref.serviceId, ref.accountId) },
        verifiedEmails,
        username: name === null ? null : { name, key: usernameKey(name) },
      },
      signedInUserId,
      whenNoAccount,
    };
    return ok(remember(freeze(plan)));
  });
}

function remember(plan: SignInPlan): SignInPlan {
  PLANS.add(plan);
  return plan;
}

function isPlan(value: unknown): value is SignInPlan {
  return isObject(value) && PLANS.has(value);
}

// One fact: an account, or nothing (`null`/`undefined`); anything else is malformed.
function readFact(value: unknown, operation: DirectoryOperation): Result<Account | null, SignInError> {
  return value === null || value === undefined
    ? ok(null)
    : readAccount(value, '').mapErr((): SignInError => ({ code: 'directory_failed', operation, cause: 'malformed_result' }));
}

function readFacts(value: unknown, emailCount: number): Result<SignInFacts, SignInError> {
  if (!isObject(value)) return err({ code: 'invalid_sign_in_input', path: 'facts' });
  const emails = ownField(value, 'verifiedEmails');
  if (emails !== undefined && !Array.isArray(emails)) return err({ code: 'invalid_sign_in_input', path: 'facts' });
  const emailFacts: readonly unknown[] = emails ?? [];
  return safeTry(function* () {
    const externalAccount = yield* readFact(ownField(value, 'externalAccount'), 'findByExternalAccount');
    const verifiedEmails: (Account | null)[] = [];
    for (let i = 0; i < emailCount; i++) verifiedEmails.push(yield* readFact(emailFacts[i], 'findByVerifiedEmail'));
    const username = yield* readFact(ownField(value, 'username'), 'findByUsername');
    const facts: SignInFacts = { externalAccount, verifiedEmails, username };
    return ok(facts);
  });
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
// claimable either: its own identity finds it through the link, so a username match there can only be a
// different identity at that provider that took the name over (a rename at the code host).
function mayClaimByUsername(account: Account, ref: ExternalAccountRef): boolean {
  return match([account.origin, linkStateOf(account, ref)] as const)
    .returnType<boolean>()
    .with(['admin_created', 'none_of_type'], () => true)
    .with(['admin_created', P.union('same_provider', 'other_provider_of_type')], () => false)
    .with([P.union('password_signup', 'provider_signup', 'service_account', 'seeded'), P._], () => false)
    .exhaustive();
}

function hasVerifiedEmail(account: Account, key: string): boolean {
  return account.emails.some((email) => email.verified && emailMatchKey(email.address) === key);
}

type LinkState = { readonly kind: 'none' } | { readonly kind: 'own'; readonly userId: string } | { readonly kind: 'other' };

/**
 * The second step of a sign-in: decides on what the lookups of `plan` found, in this order (spec §5.4):
 *
 * 1. the identity is linked: `sign_in` that account (`external_account`), or deny with
 *    `identity_linked_to_other_user` when a different user is signed in;
 * 2. a user is signed in: link the identity to them (`signed_in_user`; rule 4);
 * 3. the first verified email (primary first) whose account holds it verified too: `sign_in` and link
 *    (`verified_email`; rules 1–2). The account's emails are checked again, so a lookup answering an account
 *    where the address is unverified never links;
 * 4. the account the provider username names, when its name equals it (ASCII case ignored), its `origin` is
 *    `admin_created` and it has no link of this provider type: `sign_in` and link (`username`; rule 5, §5.3
 *    `http-header` rule 3). Any other account of that name is someone else's (§5.5 rule 8);
 * 5. otherwise the plan's `whenNoAccount`: `create` with the username candidates, or a denial.
 *
 * @param plan - What {@link planSignIn} returned.
 * @param facts - What the plan's lookups found, as plain data.
 * @returns `ok` with `sign_in`, `create` or `deny`; `err` when `plan` was not made by `planSignIn`, or `facts` is
 * malformed at run time (`directory_failed` names the lookup whose answer is not an account).
 * @example
 * ```ts
 * const plan = planSignIn({ provider: hosta, identity, signedInUserId: null, suffixBytes: [] })._unsafeUnwrap();
 * decideSignIn(plan, { externalAccount: null, verifiedEmails: [octavia], username: null });
 * // ok({ kind: 'sign_in', userId: 'u-octavia', via: 'verified_email', linkExternalAccount: true,
 * //      externalAccount: { providerType: 'hosta', serviceId: '', accountId: '1234' } })
 * ```
 */
export function decideSignIn(plan: SignInPlan, facts: SignInFacts): Result<SignInPlanDecision, SignInError> {
  if (!isPlan(plan)) return err({ code: 'invalid_sign_in_input', path: 'plan' });
  if (plan.kind === 'denied') return ok(deny(plan.reason));
  const { lookups, signedInUserId } = plan;
  return readFacts(facts, lookups.verifiedEmails.length).map((found) => {
    const ref = lookups.externalAccount.ref;
    const linked = found.externalAccount;
    const link: LinkState =
      linked === null
        ? { kind: 'none' }
        : signedInUserId === null || signedInUserId === linked.id
          ? { kind: 'own', userId: linked.id }
          : { kind: 'other' };
    let byEmail: Account | null = null;
    for (const [i, email] of lookups.verifiedEmails.entries()) {
      const account = found.verifiedEmails[i] ?? null;
      if (account !== null && hasVerifiedEmail(account, email.key)) {
        byEmail = account;
        break;
      }
    }
    const named = found.username;
    const byUsername =
      lookups.username !== null && named !== null && usernameKey(named.username) === lookups.username.key && mayClaimByUsername(named, ref)
        ? named
        : null;
    const signIn = (userId: string, via: SignInVia, linkExternalAccount: boolean): SignInPlanDecision => ({
      kind: 'sign_in',
      userId,
      via,
      linkExternalAccount,
      externalAccount: ref,
    });
    return match([link, signedInUserId, byEmail, byUsername] as const)
      .returnType<SignInPlanDecision>()
      .with([{ kind: 'own' }, P._, P._, P._], ([own]) => signIn(own.userId, 'external_account', false))
      .with([{ kind: 'other' }, P._, P._, P._], () => deny('identity_linked_to_other_user'))
      .with([{ kind: 'none' }, P.string, P._, P._], ([, userId]) => signIn(userId, 'signed_in_user', true))
      .with([{ kind: 'none' }, null, P.nonNullable, P._], ([, , account]) => signIn(account.id, 'verified_email', true))
      .with([{ kind: 'none' }, null, null, P.nonNullable], ([, , , account]) => signIn(account.id, 'username', true))
      .with([{ kind: 'none' }, null, null, null], () => plan.whenNoAccount)
      .exhaustive();
  });
}
