/**
 * The built-in password routes (spec §5.2, §5.3 "Built-in"): the sign-in, sign-up and sign-out pages (in the page
 * shell, `sign-in-pages.tsx`) and their form posts, which answer JSON to a JSON post and a page to a form post.
 * Each handler takes the request value and returns the response value; failed sign-ins are throttled per
 * username and per client address (the core's `decideSignInAttempt`), and scrypt runs within the hashing limits.
 *
 * @module
 */
import type { BuiltinProvider, LockoutPolicy, PasswordRule } from 'gatehouse-auth';
import { ACCOUNT_SUSPENDED_MESSAGE } from './flow.js';
import { decideAccountUse, DEFAULT_LOCKOUT_POLICY, decideSignInAttempt, DEFAULT_SIGN_IN_THROTTLE_POLICY, type SignInThrottlePolicy, usernameKey, USERNAME_MAX_LENGTH, validateUsername, mayUsePassword, safeReturnTo, checkNewPassword, DEFAULT_PASSWORD_RULE, describePasswordRule, MAX_PASSWORD_BYTES, newPasswordMessage } from 'gatehouse-auth';
import { sha256Hex } from '../kernel/digest.js';
import { createHashingLimiter, resolveHashingLimits } from './hashing-limiter.js';
import type { HashingLimiter, PasswordHashingLimits } from './hashing-limiter.js';
import { createElement, type ReactElement } from 'react';
import { formToken } from '../pages/csrf.js';
import type { PageNotice } from '../pages/layout.js';
import { pageResponse } from '../pages/page-routes.js';
import { errorResponse, jsonResponse, redirectResponse } from '../kernel/respond.js';
import type { RouteBody, RouteRequest, RouteResponse } from '../kernel/route.js';
import { hashPassword, originAllowed, verifyPassword } from '../session/sessions.js';
import type { ProxyCheck, Sessions, SignInPageLink } from '../session/sessions.js';
import { admitAttempt, clearFailures, withdrawFailure } from '../store/throttle.js';
import type { ThrottleTableSpec } from '../store/throttle.js';
import { SignInContent, SignOutContent, SignUpContent, withReturnTo } from './pages.js';
import { refusalPage } from './refusal.js';
import type { AuditEvent, Store, StoreError, UserRecord } from '../store/types.js';
import { addressThrottleKey } from '../store/throttle-table.js';
import type { ThrottleCheck } from '../store/throttle-table.js';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';
import { sendEmailVerification } from '../operations/email-verification.js';
import type { MailQueue } from '../operations/mail.js';
import { accountLockStatus, countFailedSignIn, countFailedSignInOfName, nameLockStatus } from '../operations/lockout.js';

const MAX_FORM_BYTES = 16 * 1024;

/** The paths of the password routes. */
export const SIGN_IN_PATH = '/.auth/sign-in';
/** The sign-up path. */
export const SIGN_UP_PATH = '/.auth/sign-up';
/** The sign-out path. */
export const SIGN_OUT_PATH = '/.auth/sign-out';

/**
 * Where a browser lands after signing in or up without a `returnTo`, and where `/` sends a signed-in visitor:
 * the settings area.
 *
 * @example
 * ```ts
 * safeReturnTo(form.get('returnTo'), LANDING_PATH);
 * ```
 */
export const LANDING_PATH = '/settings';

/**
 * The default throttle per client address: 20 free failures, then 1 s doubling up to 1 minute; failures
 * forgotten after 15 quiet minutes. Looser than the per-username policy, since people behind one proxy or NAT
 * share an address, and capped at a minute so that one guesser locks such a crowd out briefly at most.
 *
 * @example
 * ```ts
 * createGatehouseServer({ signInThrottle: { clientAddressPolicy: DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY } });
 * ```
 */
export const DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY: SignInThrottlePolicy = Object.freeze({
  freeFailures: 20,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  forgetAfterMs: 15 * 60_000,
});

/**
 * How `/.auth/sign-in` throttles failed password attempts. The decision is the core's
 * `decideSignInAttempt`, taken before the password hash runs; a throttled attempt answers
 * `429 Too Many Requests` with `Retry-After`. Failures are counted per normalised username, whether or not
 * the account exists (so the answer never tells which usernames exist), and per client address. A username
 * that no account can have (invalid, or longer than 255 characters) is refused before the username throttle
 * (400 `invalid_username`) and counted against the client address only.
 *
 * @example
 * ```ts
 * const throttle: SignInThrottleOptions = {
 *   policy: { freeFailures: 5, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 },
 *   clientAddressPolicy: { freeFailures: 50, baseDelayMs: 1_000, maxDelayMs: 900_000, forgetAfterMs: 900_000 },
 * };
 * ```
 */
export interface SignInThrottleOptions {
  /** The policy per normalised username (ASCII case folded, as the store looks usernames up). Default: the core's default policy (5 free failures, then 1 s doubling up to 15 minutes). */
  readonly policy?: SignInThrottlePolicy;
  /**
   * The policy per client address (the socket's remote address; an IPv6 address by its /64), or `null` for
   * none. Default {@link DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY}. Behind a reverse proxy every client shares the
   * proxy's address, so one guesser slows everyone down there (for at most `maxDelayMs`). A success takes back
   * only its own attempt and never clears an address's other failures (one working account must not reset a
   * guessing run).
   */
  readonly clientAddressPolicy?: SignInThrottlePolicy | null;
  /**
   * At most this many keys are remembered per table. A throttled record (at or past its free failures) is never
   * evicted by other keys: it expires by time only (`forgetAfterMs` after the last failure). A new key in a full
   * table evicts the oldest record that is not throttled; when every record is throttled, an attempt that would
   * add a username is refused with `503` and `Retry-After` (code `throttle_full`), and one that would add a client
   * address goes ahead uncounted by address (the username throttle and the hashing limits still apply). Default
   * 100 000.
   */
  readonly maxEntries?: number;
}

/**
 * What the password routes need.
 *
 * @example
 * ```ts
 * const handlers = passwordHandlers({ store, now, randomBytes, builtin, audit, origin: null, sessions, proxy: null });
 * ```
 */
export interface PasswordRoutesOptions {
  /** The store: accounts, and the throttle records in its ephemeral part (kind `throttle`). */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** The configured `builtin` provider, or `null` when password sign-in is not configured. */
  readonly builtin: BuiltinProvider | null;
  /** Records an audit entry, in the change's transaction. */
  readonly audit: AuditSink;
  /** The site's origin (`https://example.com`), when `externalURL` is configured; used for the Origin check. */
  readonly origin: string | null;
  /** The session layer (cookie sessions). */
  readonly sessions: Sessions;
  /** The authentication proxy, or `null` when no `http-header` provider is configured. */
  readonly proxy: ProxyCheck | null;
  /** The other ways to sign in that the sign-in page lists (provider login routes). Default: none. */
  readonly signInLinks?: readonly SignInPageLink[];
  /**
   * The login route the sign-in page redirects to at once, when the only sign-in method is one OAuth, OpenID
   * Connect or SAML provider (`signInPageBehavior`, spec §5.3 "Built-in"). Default: none.
   */
  readonly redirectSignIn?: SignInPageLink | null;
  /** How failed password sign-ins are throttled. Default: per username and per client address. */
  readonly signInThrottle?: SignInThrottleOptions;
  /**
   * Where sign-up's verification link for the address given goes: the outbox (`null`: none, mail off) and the
   * site's base address the link is made on. Default: the link is made on `http://127.0.0.1`, and not mailed.
   */
  readonly emailVerification?: { readonly mail: MailQueue | null; readonly baseURL: () => string };
  /** Bounds of password hashing (scrypt). Default {@link DEFAULT_PASSWORD_HASHING_LIMITS}. */
  readonly passwordHashing?: PasswordHashingLimits;
  /** The effective `auth.lockout`. Default: the core's `DEFAULT_LOCKOUT_POLICY`. */
  readonly lockout?: LockoutPolicy;
  /** Called once an account was locked by a failed sign-in (to send its owner the unlock link); must not throw. */
  readonly onLocked?: (user: UserRecord, lockedUntil: number) => Promise<void>;
  /** The rule for new passwords (`auth.minPasswordLength`, `auth.passwordPolicy`). Default: the options' defaults. */
  readonly passwordRule?: PasswordRule;
}

/** What the sign-in and sign-up checks use, built once from the options. */
interface PasswordDeps {
  readonly store: Store;
  readonly now: () => number;
  readonly randomBytes: (n: number) => Uint8Array;
  readonly builtin: BuiltinProvider | null;
  readonly audit: AuditSink;
  readonly hashing: HashingLimiter;
  readonly usernameTable: ThrottleTableSpec;
  readonly addressTable: ThrottleTableSpec | null;
  /** The key of a client address in the address throttle and the hashing limiter. */
  readonly clientKey: (address: string) => string;
  /** A hash that never matches, verified when the username is unknown so both paths cost one scrypt. */
  readonly dummyHash: () => Promise<string>;
  /** The outbox and base address of sign-up's verification link. */
  readonly mail: MailQueue | null;
  readonly baseURL: () => string;
  readonly lockout: LockoutPolicy;
  readonly onLocked: (user: UserRecord, lockedUntil: number) => Promise<void>;
  /** The rule for new passwords. */
  readonly passwordRule: PasswordRule;
}

/** Builds the throttles and the hashing limiter; a start-time error names a bad option. */
function passwordDeps(options: PasswordRoutesOptions): PasswordDeps {
  const throttleOptions = options.signInThrottle ?? {};
  const maxThrottleEntries = throttleOptions.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxThrottleEntries) || maxThrottleEntries < 1) throw new Error('signInThrottle.maxEntries must be a positive integer.');
  const usernameTable: ThrottleTableSpec = {
    name: 'username',
    policy: checkedPolicy(throttleOptions.policy ?? DEFAULT_SIGN_IN_THROTTLE_POLICY, 'signInThrottle.policy'),
    maxEntries: maxThrottleEntries,
  };
  const addressPolicy = throttleOptions.clientAddressPolicy === undefined ? DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY : throttleOptions.clientAddressPolicy;
  const addressTable: ThrottleTableSpec | null =
    addressPolicy === null ? null : { name: 'address', policy: checkedPolicy(addressPolicy, 'signInThrottle.clientAddressPolicy'), maxEntries: maxThrottleEntries };
  const hashingLimits = resolveHashingLimits(options.passwordHashing);
  if (typeof hashingLimits === 'string') throw new Error(hashingLimits);
  let dummy: Promise<string> | null = null;
  return {
    store: options.store,
    now: options.now,
    randomBytes: options.randomBytes,
    builtin: options.builtin,
    audit: options.audit,
    hashing: createHashingLimiter(hashingLimits),
    usernameTable,
    addressTable,
    clientKey: (address) => sha256Hex(`address\u0000${addressThrottleKey(address)}`),
    dummyHash: () => (dummy ??= hashPassword('not a password', options.randomBytes)),
    mail: options.emailVerification?.mail ?? null,
    baseURL: options.emailVerification?.baseURL ?? (() => 'http://127.0.0.1'),
    lockout: options.lockout ?? DEFAULT_LOCKOUT_POLICY,
    onLocked: options.onLocked ?? (async () => undefined),
    passwordRule: options.passwordRule ?? DEFAULT_PASSWORD_RULE,
  };
}

/**
 * The body of a password form post: URL-encoded or JSON, at most 16 KiB, never compressed.
 *
 * @example
 * ```ts
 * const route: Route = { methods: ['POST'], path: '/.auth/sign-in', body: PASSWORD_FORM_BODY, handler: handlers.signIn };
 * ```
 */
export const PASSWORD_FORM_BODY: RouteBody = Object.freeze({
  limit: MAX_FORM_BYTES,
  contentTypes: ['application/x-www-form-urlencoded', 'application/json'],
  decompress: false,
});

/**
 * The handlers of the password routes (`GET` pages and `POST` forms of `/.auth/sign-in`, `/.auth/sign-up` and
 * `/.auth/sign-out`); the route table names their paths.
 *
 * @example
 * ```ts
 * const response = await handlers.signInPage(request);
 * ```
 */
export interface PasswordHandlers {
  /** `GET /.auth/sign-in`: the page, or the proxy's refusal, or the redirect to the only provider. */
  readonly signInPage: RouteHandler;
  /** `GET /.auth/sign-up`. */
  readonly signUpPage: RouteHandler;
  /** `GET /.auth/sign-out`. */
  readonly signOutPage: RouteHandler;
  /** `POST /.auth/sign-in`. */
  readonly signIn: RouteHandler;
  /** `POST /.auth/sign-up`. */
  readonly signUp: RouteHandler;
  /** `POST /.auth/sign-out`. */
  readonly signOut: RouteHandler;
}

/** A route's handler. */
type RouteHandler = (request: RouteRequest) => Promise<RouteResponse>;

/**
 * Builds the password routes' handlers.
 *
 * @param options - Store, clock, provider, sessions, proxy, throttle and hashing settings.
 * @returns The handlers.
 *
 * @example
 * ```ts
 * const handlers = passwordHandlers(options);
 * ```
 */
export function passwordHandlers(options: PasswordRoutesOptions): PasswordHandlers {
  const deps = passwordDeps(options);
  const { builtin, proxy } = options;
  const { passwordRule } = deps;
  const links = options.signInLinks ?? [];
  const redirectSignIn = options.redirectSignIn ?? null;
  // The CSRF cookie gets `Secure` exactly when the session cookie does: the site's origin is https.
  const secure = options.origin !== null && options.origin.startsWith('https:');

  /** A page in the shell with this browser's form token; `setCookie: false` never sets the CSRF cookie. */
  const page = (request: RouteRequest, status: number, shown: ShownPage, setCookie = true): RouteResponse => {
    const issued = formToken(request, options.randomBytes, secure);
    const cookies = issued.cookie === null || !setCookie ? [] : [issued.cookie];
    const response = pageResponse({ viewer: null, csrf: issued.token, cookies }, status, {
      title: shown.title,
      nav: null,
      notice: shown.notice,
      children: shown.content(issued.token),
    });
    return { ...response, headers: { ...response.headers, ...shown.headers } };
  };

  /** The page of `path` again, with what the person typed (never the password) and why the post was refused. */
  const formPage = async (path: string, request: RouteRequest, fields: ReadonlyMap<string, string>, notice: PageNotice | null, headers: Headers = {}): Promise<ShownPage> => {
    const typed = { builtin, returnTo: safeReturnTo(fields.get('returnTo'), LANDING_PATH), username: fields.get('username') ?? '', email: fields.get('email') ?? '' };
    if (path === SIGN_UP_PATH) {
      return { title: 'Sign up', notice, headers, content: (csrf) => createElement(SignUpContent, { ...typed, csrf, minPasswordLength: passwordRule.minLength, passwordHint: describePasswordRule(passwordRule) }) };
    }
    // a `hidden` builtin keeps its form off the page; posting to it still signs in
    const shownBuiltin = builtin?.hidden === true ? null : builtin;
    if (path === SIGN_IN_PATH) return { title: 'Sign in', notice, headers, content: (csrf) => createElement(SignInContent, { ...typed, builtin: shownBuiltin, csrf, links }) };
    const viewer = await options.sessions.authenticate(request);
    return { title: 'Sign out', notice, headers, content: (csrf) => createElement(SignOutContent, { username: viewer?.username ?? null, csrf }) };
  };

  const post = (path: string): RouteHandler => async (request) => {
    const form = readForm(request);
    const wantsJson = form.kind === 'json';
    const reply = async (status: number, code: string, message: string, headers: Headers = {}, setCookie = true): Promise<RouteResponse> =>
      wantsJson || form.kind === 'invalid'
        ? errorResponse(path, status, code, message, headers)
        : page(request, status, await formPage(path, request, form.fields, { kind: 'error', text: message }, headers), setCookie);
    // A post from another site is refused, whatever its body: by `Origin`, and by `Sec-Fetch-Site` where the
    // browser sends it. The `_csrf` field of the forms is accepted but not required here: the spec's clients post
    // JSON without one, and signing in or out is not a change another site could profit from past these checks.
    if (!originAllowed(request, options.origin) || crossSiteFetch(request)) {
      return reply(403, 'cross_origin_request', 'Cross-origin form submissions are refused.', {}, false);
    }
    if (form.kind === 'invalid') return reply(form.status, form.code, form.message);
    if (path === SIGN_OUT_PATH) {
      const cookie = await options.sessions.endCookie(request);
      return wantsJson ? jsonResponse(200, { ok: true }, {}, [cookie]) : redirectResponse(SIGN_IN_PATH, [cookie]);
    }
    const result = path === SIGN_UP_PATH ? await signUp(deps, form.fields, request.clientAddress) : await signIn(deps, form.fields, request.clientAddress);
    if (result.kind === 'error') return reply(result.status, result.code, result.message, result.headers);
    // the session and its `signed_in` entry are kept together or not at all
    const started = await auditedTransaction(deps.store, async (tx) => {
      const cookie = await options.sessions.startCookie(request, result.user.id, tx);
      if (cookie === null) return err('session_failed' as const);
      if (result.signedIn !== null) await deps.audit(result.signedIn, tx);
      // a success forgets the failures counted towards a lockout
      await tx.lockouts.clear(result.user.id);
      return ok(cookie);
    });
    if (started.isErr()) return reply(500, 'session_failed', 'Could not start a session.');
    const cookie = started.value;
    return wantsJson
      ? jsonResponse(result.status, { ok: true, username: result.user.username }, {}, [cookie])
      : redirectResponse(safeReturnTo(form.fields.get('returnTo'), LANDING_PATH), [cookie]);
  };

  return {
    async signInPage(request) {
      const returnTo = safeReturnTo(request.url.searchParams.get('returnTo'), LANDING_PATH);
      const fields = new Map([['returnTo', returnTo]]);
      const verdict = proxy === null ? null : await proxy(request);
      if (verdict !== null && verdict.kind === 'denied') {
        // the proxy's person refused by the sign-in decision sees why, with the reference code of the audit entry
        if (verdict.refusal !== undefined) return refusalPage(verdict.message, { ...verdict.refusal, details: {} }, { backToSignIn: false });
        return page(request, 403, await formPage(SIGN_IN_PATH, request, fields, { kind: 'error', text: verdict.message }));
      }
      // §5.3 "Built-in": with one redirect-based provider as the only method, the page sends the browser on
      if (redirectSignIn !== null) return redirectResponse(withReturnTo(redirectSignIn.loginPath, returnTo));
      return page(request, 200, await formPage(SIGN_IN_PATH, request, fields, null));
    },
    signUpPage: async (request) =>
      page(request, 200, await formPage(SIGN_UP_PATH, request, new Map([['returnTo', request.url.searchParams.get('returnTo') ?? '']]), null)),
    signOutPage: async (request) => page(request, 200, await formPage(SIGN_OUT_PATH, request, new Map(), null)),
    signIn: post(SIGN_IN_PATH),
    signUp: post(SIGN_UP_PATH),
    signOut: post(SIGN_OUT_PATH),
  };
}

/**
 * `GET /`: a signed-in visitor goes to the settings area, anyone else to the sign-in page (both `303`).
 *
 * @param currentUser - Who the request is signed in as (the session layer, the authentication proxy in front).
 * @returns The handler.
 *
 * @example
 * ```ts
 * const home = homeHandler((request) => browser.authenticate(request));
 * (await home(request)).headers['location']; // '/settings' or '/.auth/sign-in'
 * ```
 */
export function homeHandler(currentUser: (request: RouteRequest) => Promise<UserRecord | null>): (request: RouteRequest) => Promise<RouteResponse> {
  return async (request) => redirectResponse((await currentUser(request)) === null ? SIGN_IN_PATH : LANDING_PATH);
}

/** Extra response headers (such as `Retry-After`). */
type Headers = Readonly<Record<string, string>>;

/** A signed-out page before its form token is known: title, notice, extra headers and the content for a token. */
interface ShownPage {
  readonly title: string;
  readonly notice: PageNotice | null;
  readonly headers: Headers;
  readonly content: (csrf: string) => ReactElement;
}

/** Whether the browser says the request comes from another site (`Sec-Fetch-Site`; absent in other clients). */
function crossSiteFetch(request: RouteRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}

type AuthResult =
  /** `signedIn`: the audit entry written with the new session, in its transaction (`null`: none). */
  | { readonly kind: 'ok'; readonly status: number; readonly user: UserRecord; readonly signedIn: AuditEvent | null }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly code: string;
      readonly message: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

const fail = (status: number, code: string, message: string, headers?: Readonly<Record<string, string>>): AuthResult =>
  headers === undefined ? { kind: 'error', status, code, message } : { kind: 'error', status, code, message, headers };

function checkedPolicy(policy: SignInThrottlePolicy, name: string): SignInThrottlePolicy {
  if (decideSignInAttempt({ now: 0, failures: null, policy }).isErr()) throw new Error(`${name} is not a valid sign-in throttle policy.`);
  return policy;
}

/** The built-in sign-up (§5.3 "Built-in" `allowSignup`): validate, hash within the limits, create atomically. */
async function signUp(deps: PasswordDeps, fields: ReadonlyMap<string, string>, address: string): Promise<AuthResult> {
const { builtin, store, hashing, randomBytes, now, audit } = deps;
  if (builtin === null || !builtin.allowSignup) {
    return fail(403, 'signup_not_allowed', 'Sign-up is not allowed on this site. Ask a site administrator to create your account.');
  }
  const username = fields.get('username') ?? '';
  const email = (fields.get('email') ?? '').trim();
  const password = fields.get('password') ?? '';
  const valid = validateUsername(username);
  if (valid.isErr()) return fail(400, 'invalid_username', 'That username is not allowed: use letters, digits, "-", "." and "_" only, not starting with "-" or ".".');
  if (!isPlausibleEmail(email)) return fail(400, 'invalid_email', 'Enter an email address.');
  const passwordProblem = checkPassword(password, deps.passwordRule);
  if (passwordProblem !== null) return passwordProblem;
  // a taken name is refused before scrypt runs (the store's `accounts.create` still decides atomically if two sign-ups race)
  if ((await store.accounts.findByUsernameKey(usernameKey(valid.value))) !== null) return fail(409, 'username_taken', 'That username is taken.');
  const hashed = await hashing.run(deps.clientKey(address), () => hashPassword(password, randomBytes));
  if (hashed.kind === 'busy') return hashingBusy();
  // the account is kept only with its audit entry
  const created = await auditedTransaction(store, async (tx): Promise<Result<UserRecord, StoreError | { readonly code: 'verification_link_failed' }>> => {
    const account = await tx.accounts.create({
      usernames: [valid.value],
      origin: 'password_signup',
      siteAdmin: false,
      serviceAccount: false,
      emails: [{ email, verified: false }],
      passwordHash: hashed.value,
      createdAt: now(),
    });
    if (account.isErr()) return account;
    await audit({ entity: 'user', action: 'created', reason: 'built-in sign-up', actorUserId: account.value.id, subjectUserId: account.value.id, details: {} }, tx);
    // the address given gets its verification link with the account (mailed when mail is on), or neither is kept
    const verification = { store: tx, now, randomBytes, audit, mail: deps.mail, baseURL: deps.baseURL };
    const sent = await sendEmailVerification(verification, account.value, email, account.value.id);
    return sent.isOk() ? account : err({ code: 'verification_link_failed' as const });
  });
  if (created.isErr()) {
    return fail(409, created.error.code, created.error.code === 'username_taken' ? 'That username is taken.' : 'Could not create the account.');
  }
  return { kind: 'ok', status: 201, user: created.value, signedIn: null };
}

/** The built-in sign-in: throttled per username and client address before scrypt runs, then the password checked. */
async function signIn(deps: PasswordDeps, fields: ReadonlyMap<string, string>, address: string): Promise<AuthResult> {
const { builtin, store, hashing, now, audit, usernameTable, addressTable } = deps;
  if (builtin === null) return fail(403, 'builtin_not_enabled', 'Password sign-in is not enabled on this site.');
  const username = fields.get('username') ?? '';
  const password = fields.get('password') ?? '';
  const t = now();
  const addressKey = deps.clientKey(address);
  const addressSlot = addressTable === null ? [] : [{ table: addressTable, key: addressKey }];
  // A username no account can have is refused before the username throttle, so a flood of them adds no
  // username records; it still counts as a failure of the client address. A per-address table full of throttled
  // addresses fails open: refusing every new address would lock everyone out, while the username throttle and
  // the hashing limiter still bound the hashing this attempt can cause.
  if (username.length > USERNAME_MAX_LENGTH || validateUsername(username).isErr()) {
    const refused = throttleRefusal(await admitAttempt(store, { slots: addressSlot, failOpen: [true] }, t));
    if (refused !== null) return refused;
    return fail(400, 'invalid_username', 'That is not a valid username: usernames are letters, digits, "-", "." and "_".');
  }
  // Decided before the store is read and before scrypt runs: an unknown username is throttled exactly like a
  // known one. Keys are digests, so a long username costs no more memory than a short one. Counted as a failure
  // before the password is checked (a success takes it back), in the same transaction as the check: concurrent
  // attempts see each other and cannot all pass it.
  const nameSlot = { table: usernameTable, key: sha256Hex(`username\u0000${usernameKey(username)}`) };
  const refused = throttleRefusal(await admitAttempt(store, { slots: [nameSlot, ...addressSlot], failOpen: [false, true] }, t));
  if (refused !== null) return refused;
  const tooLong = Buffer.byteLength(password) > MAX_PASSWORD_BYTES;
  const checked = await hashing.run(addressKey, async () => {
    const user = tooLong ? null : await store.accounts.findByUsernameKey(usernameKey(username));
    const stored = user?.passwordHash ?? (await deps.dummyHash());
    return { user, matches: !tooLong && (await verifyPassword(password, stored)) };
  });
  if (checked.kind === 'busy') {
    // The password was never checked, so the username keeps its free attempts; the address stays charged, so a
    // client that keeps the hashing queue full runs into its address throttle.
    await withdrawFailure(store, nameSlot, t);
    return hashingBusy();
  }
  const { user, matches } = checked.value;
  // a locked account is refused whether or not the password was right, and the attempt does not extend the lock
  if (user !== null && mayUsePassword(user) && (await accountLockStatus(deps, user.id)).kind === 'locked') {
    await audit({ entity: 'auth.session', action: 'failed', reason: 'account locked', actorUserId: null, subjectUserId: user.id, details: {} }, store);
    return accountLocked();
  }
  if (user !== null && mayUsePassword(user) && !matches) {
    // the refusal's entry and the counted failure are written together
    const failed: AuditEvent = { entity: 'auth.session', action: 'failed', reason: 'invalid username or password', actorUserId: null, subjectUserId: user.id, details: {} };
    const lockedUntil = await countFailedSignIn(deps, user, deps.lockout, failed);
    if (lockedUntil === null) return fail(401, 'invalid_credentials', 'Invalid username or password.');
    // the owner's unlock mail is queued after the answer, which stays the same as for a name without an account
    setImmediate(() => void deps.onLocked(user, lockedUntil).catch(() => undefined));
    return accountLocked();
  }
  if (user === null || !mayUsePassword(user) || !matches) {
    // A username without a password account is counted towards a lock like an account, so the lock's answer
    // never tells which usernames have one. The refusal changes nothing else: it is recorded as an event.
    const failed: AuditEvent = { entity: 'auth.session', action: 'failed', reason: 'invalid username or password', actorUserId: null, subjectUserId: user?.id ?? null, details: {} };
    if ((await nameLockStatus(deps, nameSlot.key)).kind === 'locked') {
      await audit({ ...failed, reason: 'account locked' }, store);
      return accountLocked();
    }
    const nameLocked = await countFailedSignInOfName(deps, nameSlot.key, deps.lockout, failed);
    return nameLocked === null ? fail(401, 'invalid_credentials', 'Invalid username or password.') : accountLocked();
  }
  // told only to whoever knows the password: a suspended account has no way in (the core's decideAccountUse)
  if (decideAccountUse({ suspended: user.suspendedAt !== undefined, use: 'sign_in' }).kind === 'deny') {
    await audit({ entity: 'auth.session', action: 'failed', reason: 'account suspended', actorUserId: null, subjectUserId: user.id, details: {} }, store);
    return fail(403, 'account_suspended', ACCOUNT_SUSPENDED_MESSAGE);
  }
  await clearFailures(store, nameSlot, t);
  for (const slot of addressSlot) await withdrawFailure(store, slot, t);
  return {
    kind: 'ok',
    status: 200,
    user,
    signedIn: { entity: 'auth.session', action: 'signed_in', reason: 'built-in password', actorUserId: user.id, subjectUserId: user.id, details: {} },
  };
}


/** The 429 or 503 answer when any of the throttle checks refuses, the longest wait winning; `null` when all allow. */
function throttleRefusal(checks: readonly ThrottleCheck[]): AuthResult | null {
  const waits = checks.flatMap((c) => (c.kind === 'throttle' ? [c.retryAfterSeconds] : []));
  if (waits.length > 0) {
    const retryAfter = Math.max(...waits);
    return fail(429, 'too_many_attempts', `Too many failed sign-in attempts. Try again in ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`, {
      'retry-after': String(retryAfter),
    });
  }
  const full = checks.flatMap((c) => (c.kind === 'full' ? [c.retryAfterSeconds] : []));
  if (full.length > 0) {
    const retryAfter = Math.max(...full);
    return fail(503, 'throttle_full', 'Too many sign-in attempts are being tracked right now. Try again later.', { 'retry-after': String(retryAfter) });
  }
  return null;
}

/** The answer while an account is locked (`auth.lockout`): it says nothing of whether the password was right. */
function accountLocked(): AuthResult {
  return fail(403, 'account_locked', 'This account is locked after too many failed sign-in attempts. Follow the link mailed to its owner, ask a site administrator to unlock it, or try again later.');
}

/** The 503 answer when every password hashing place is taken. */
function hashingBusy(): AuthResult {
  return fail(503, 'hashing_busy', 'The server is busy checking other passwords. Try again in a second.', { 'retry-after': '1' });
}

/** The new-password rule of §5.3 "Built-in" and the site's options (the core's `checkNewPassword`), as the routes' refusal. */
function checkPassword(password: string, rule: PasswordRule): AuthResult | null {
  const checked = checkNewPassword(password, rule);
  if (checked.isOk()) return null;
  const code = checked.error.code === 'invalid_input' ? 'password_too_short' : checked.error.code;
  return fail(400, code, newPasswordMessage(checked.error).replace('The new password', 'The password'));
}

function isPlausibleEmail(email: string): boolean {
  const at = email.indexOf('@');
  return email.length <= 254 && at > 0 && at === email.lastIndexOf('@') && at < email.length - 1 && !/[\s<>]/.test(email);
}

type Form =
  | { readonly kind: 'json' | 'form'; readonly fields: ReadonlyMap<string, string> }
  | { readonly kind: 'invalid'; readonly status: number; readonly code: string; readonly message: string };

/** The fields of a form post (URL-encoded, or a JSON object of strings); the first of repeated names wins. */
function readForm(request: RouteRequest): Form {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = request.body ?? '';
  const fields = new Map<string, string>();
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(text)) if (!fields.has(k)) fields.set(k, v);
    return { kind: 'form', fields };
  }
  const parsed = parseJson(text);
  if (parsed === undefined) return { kind: 'invalid', status: 400, code: 'malformed_json', message: 'The body is not JSON.' };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { kind: 'invalid', status: 400, code: 'malformed_json', message: 'The body must be a JSON object.' };
  }
  for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') fields.set(k, v);
  return { kind: 'json', fields };
}

/** JSON text parsed, or `undefined` when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
