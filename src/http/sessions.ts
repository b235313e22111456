/**
 * Browser sessions: built-in password sign-up, sign-in and sign-out, the session cookie, and the
 * request check that keeps cross-site forms out (spec §5.2 built-in password, §5.3 "Built-in").
 *
 * @module
 */
import { createHash, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { USERNAME_MAX_LENGTH, validateUsername } from '../core/username.js';
import { decideSignInAttempt, DEFAULT_SIGN_IN_THROTTLE_POLICY, type SignInThrottlePolicy } from '../core/sign-in-throttle.js';
import type { BuiltinProvider } from '../core/auth-providers.js';
import { DEFAULT_MAX_SESSIONS_PER_ACCOUNT } from '../core/quotas.js';
import { safeReturnTo } from '../core/return-to.js';
import {
  escapeHtml,
  parseCookies,
  readBody,
  sendHtml,
  sendJson,
  sendRedirect,
  serializeCookie,
} from './http-io.js';
import { clientAddress } from './client-address.js';
import { createHashingLimiter, resolveHashingLimits } from './hashing-limiter.js';
import type { PasswordHashingLimits } from './hashing-limiter.js';
import { addressThrottleKey, createThrottleTable } from './throttle-table.js';
import type { ThrottleCheck } from './throttle-table.js';
import type { AuditEvent, Store, UserRecord } from './store.js';

/**
 * Name of the session cookie.
 *
 * @example
 * ```ts
 * req.headers.cookie?.includes(`${SESSION_COOKIE}=`);
 * ```
 */
export const SESSION_COOKIE = 'gatehouse_session';

/**
 * Request header a cookie-authenticated API request must carry. A cross-site HTML form cannot set a custom
 * header, and a cross-site `fetch` that sets one needs a CORS preflight this server never grants.
 *
 * @example
 * ```ts
 * fetch('/.api/graphql', { method: 'POST', headers: { [CSRF_HEADER]: 'gatehouse' }, body });
 * ```
 */
export const CSRF_HEADER = 'x-requested-with';

const SCRYPT_N = 16_384;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SCRYPT_KEYLEN = 32;
const SALT_BYTES = 16;
const SESSION_ID_BYTES = 32;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_BYTES = 1024;
const MAX_FORM_BYTES = 16 * 1024;

function scrypt(password: string, salt: Uint8Array, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, SCRYPT_KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (e, key) =>
      e === null ? resolve(key) : reject(e),
    );
  });
}

/**
 * Hashes a password with scrypt and a random salt; the result names its parameters.
 *
 * @param password - The password.
 * @param randomBytes - The random source (16 bytes of salt are drawn).
 * @returns `scrypt$N$r$p$salt$hash`, salt and hash in base64url.
 *
 * @example
 * ```ts
 * const stored = await hashPassword('correct horse', (n) => crypto.randomBytes(n));
 * await verifyPassword('correct horse', stored); // true
 * ```
 */
export async function hashPassword(password: string, randomBytes: (n: number) => Uint8Array): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P);
  return ['scrypt', SCRYPT_N, SCRYPT_R, SCRYPT_P, Buffer.from(salt).toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Checks a password against a hash from {@link hashPassword}, comparing in constant time.
 *
 * @param password - The password presented.
 * @param stored - The stored hash.
 * @returns Whether they match (`false` for a malformed hash).
 *
 * @example
 * ```ts
 * await verifyPassword('wrong', stored); // false
 * ```
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const [kind, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || kind !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const nn = Number(n);
  const rr = Number(r);
  const pp = Number(p);
  if (![nn, rr, pp].every((x) => Number.isSafeInteger(x) && x > 0) || nn > 1 << 20 || rr > 32 || pp > 16) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (expected.length !== SCRYPT_KEYLEN) return false;
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), nn, rr, pp);
  return timingSafeEqual(actual, expected);
}

/** Lower-case hex SHA-256 of a string. */
function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * What the session layer needs from the server.
 *
 * @example
 * ```ts
 * const sessions = createSessions({ store, now: Date.now, randomBytes, secureCookies: false,
 *   builtin: { type: 'builtin', allowSignup: true }, audit: async () => {}, sessionTtlSeconds: 86_400 });
 * ```
 */
export interface SessionsOptions {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Whether cookies get `Secure` (the site's `externalURL` is https). */
  readonly secureCookies: boolean;
  /** The configured `builtin` provider, or `null` when password sign-in is not configured. */
  readonly builtin: BuiltinProvider | null;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** Session lifetime in seconds. */
  readonly sessionTtlSeconds: number;
  /** The site's origin (`https://example.com`), when `externalURL` is configured; used for the Origin check. */
  readonly origin: string | null;
  /** The other ways to sign in that the sign-in page lists (provider login routes). Default: none. */
  readonly signInLinks?: readonly SignInPageLink[];
  /**
   * The login route the sign-in page redirects to at once, when the only sign-in method is one OAuth, OpenID
   * Connect or SAML provider (`signInPageBehavior`, spec §5.3 "Built-in"). Default: none.
   */
  readonly redirectSignIn?: SignInPageLink | null;
  /**
   * The identity a fronting proxy vouches for (`http-header`), asked before the session cookie; the cookie is
   * read only when the proxy names nobody (`none`). Default: none.
   */
  readonly proxy?: (req: IncomingMessage) => Promise<ProxyVerdict>;
  /** How failed password sign-ins are throttled. Default: per username and per client address. */
  readonly signInThrottle?: SignInThrottleOptions;
  /**
   * How many sessions one account holds at most; starting one more revokes the account's oldest (the store does
   * both in one atomic step). Default {@link DEFAULT_MAX_SESSIONS_PER_ACCOUNT} (50).
   */
  readonly maxSessionsPerAccount?: number;
  /** Bounds of password hashing (scrypt). Default {@link DEFAULT_PASSWORD_HASHING_LIMITS}. */
  readonly passwordHashing?: PasswordHashingLimits;
}

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
 * A provider login link on the sign-in page.
 *
 * @example
 * ```ts
 * const link: SignInPageLink = { label: 'Host B', loginPath: '/.auth/hostb/login?provider=1' };
 * ```
 */
export interface SignInPageLink {
  /** What the person sees. */
  readonly label: string;
  /** The login route (already carrying a query string). */
  readonly loginPath: string;
}

/**
 * What the proxy's headers say about a request.
 *
 * @example
 * ```ts
 * const v: ProxyVerdict = { kind: 'none' };
 * ```
 */
export type ProxyVerdict =
  /** No proxy identity on the request. */
  | { readonly kind: 'none' }
  /** The proxy vouches for this account. */
  | { readonly kind: 'user'; readonly user: UserRecord }
  /**
   * The proxy names a person who cannot be signed in (the sign-in decision refuses them, the headers are
   * unusable, or the sign-in failed); `message` is safe to show. The request is then anonymous: the session
   * cookie is not consulted, since the proxy is authoritative once it sends identity headers.
   */
  | { readonly kind: 'denied'; readonly message: string };

/**
 * The session layer: authenticates browser requests and serves the built-in sign-up, sign-in and sign-out routes.
 *
 * @example
 * ```ts
 * const user = await sessions.authenticate(req); // UserRecord | null
 * ```
 */
export interface Sessions {
  /**
   * The account the authentication proxy vouches for or, when the proxy names nobody, the one signed in with
   * the request's session cookie; `null` otherwise (a person the proxy names but who is refused included).
   */
  authenticate(req: IncomingMessage): Promise<UserRecord | null>;
  /** Starts a session for `userId`, ending the request's previous one (the id is rotated); returns the `Set-Cookie` value. */
  start(req: IncomingMessage, userId: string): Promise<string | null>;
  /** Ends the request's session; returns the `Set-Cookie` value that clears the cookie. */
  end(req: IncomingMessage): Promise<string>;
  /** Serves `/.auth/sign-in`, `/.auth/sign-up` and `/.auth/sign-out`; `false` when the path is none of them. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

type AuthResult =
  | { readonly kind: 'ok'; readonly status: number; readonly user: UserRecord }
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

const asciiLowercase = (s: string): string => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

/** Where a browser goes after signing in: a path on this site (the core's rule), else the console. */
const returnToOrConsole = (value: string | undefined | null): string => safeReturnTo(value, '/debug/console');

/**
 * Creates the session layer.
 *
 * @param options - Store, clock, random source, cookie and provider settings.
 * @returns The session layer.
 *
 * @example
 * ```ts
 * const sessions = createSessions(options);
 * if (await sessions.handle(req, res, url)) return;
 * ```
 */
export function createSessions(options: SessionsOptions): Sessions {
  const { store, now, randomBytes, secureCookies, builtin, audit, sessionTtlSeconds } = options;
  const maxSessionsPerAccount = options.maxSessionsPerAccount ?? DEFAULT_MAX_SESSIONS_PER_ACCOUNT;
  if (!Number.isSafeInteger(maxSessionsPerAccount) || maxSessionsPerAccount < 1) throw new Error('maxSessionsPerAccount must be a positive integer.');
  // A hash that never matches, verified when the username is unknown so both paths cost one scrypt.
  let dummyHash: Promise<string> | null = null;
  const getDummyHash = (): Promise<string> => (dummyHash ??= hashPassword('not a password', randomBytes));

  const cookieValueOf = (req: IncomingMessage): string | null => {
    const value = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    return value !== undefined && SESSION_ID_PATTERN.test(value) ? value : null;
  };

  const clearCookie = serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, secure: secureCookies });

  const links = options.signInLinks ?? [];
  const redirectSignIn = options.redirectSignIn ?? null;

  const throttleOptions = options.signInThrottle ?? {};
  const maxThrottleEntries = throttleOptions.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxThrottleEntries) || maxThrottleEntries < 1) throw new Error('signInThrottle.maxEntries must be a positive integer.');
  const usernameThrottle = createThrottleTable(
    checkedPolicy(throttleOptions.policy ?? DEFAULT_SIGN_IN_THROTTLE_POLICY, 'signInThrottle.policy'),
    maxThrottleEntries,
  );
  const addressPolicy = throttleOptions.clientAddressPolicy === undefined ? DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY : throttleOptions.clientAddressPolicy;
  const addressThrottle =
    addressPolicy === null ? null : createThrottleTable(checkedPolicy(addressPolicy, 'signInThrottle.clientAddressPolicy'), maxThrottleEntries);
  const hashingLimits = resolveHashingLimits(options.passwordHashing);
  if (typeof hashingLimits === 'string') throw new Error(hashingLimits);
  const hashing = createHashingLimiter(hashingLimits);
  /** The key of the request's client address in the address throttle and the hashing limiter. */
  const clientKey = (req: IncomingMessage): string => sha256Hex(`address\u0000${addressThrottleKey(clientAddress(req))}`);

  const sessions: Sessions = {
    async authenticate(req) {
      if (options.proxy !== undefined) {
        // The proxy is authoritative when it names someone: a refused identity never falls back to the cookie.
        const verdict = await options.proxy(req);
        if (verdict.kind === 'user') return verdict.user;
        if (verdict.kind === 'denied') return null;
      }
      const value = cookieValueOf(req);
      if (value === null) return null;
      const digest = sha256Hex(value);
      const session = await store.findSessionByDigest(digest);
      if (session === null) return null;
      if (session.expiresAt <= now()) {
        await store.deleteSession(digest);
        return null;
      }
      return store.getUser(session.userId);
    },

    async start(req, userId) {
      const previous = cookieValueOf(req);
      if (previous !== null) await store.deleteSession(sha256Hex(previous));
      const id = Buffer.from(randomBytes(SESSION_ID_BYTES)).toString('base64url');
      const createdAt = now();
      const created = await store.createSession(
        { digest: sha256Hex(id), userId, createdAt, expiresAt: createdAt + sessionTtlSeconds * 1000 },
        maxSessionsPerAccount,
      );
      if (created.isErr()) return null;
      return serializeCookie(SESSION_COOKIE, id, { maxAgeSeconds: sessionTtlSeconds, secure: secureCookies });
    },

    async end(req) {
      const value = cookieValueOf(req);
      if (value !== null) await store.deleteSession(sha256Hex(value));
      return clearCookie;
    },

    async handle(req, res, url) {
      const path = url.pathname;
      if (path !== '/.auth/sign-in' && path !== '/.auth/sign-up' && path !== '/.auth/sign-out') return false;
      const method = req.method ?? '';
      if (method === 'GET' || method === 'HEAD') {
        if (path === '/.auth/sign-out') {
          sendHtml(res, 200, signOutPage());
          return true;
        }
        const returnTo = returnToOrConsole(url.searchParams.get('returnTo'));
        if (path === '/.auth/sign-in') {
          const verdict = options.proxy === undefined ? null : await options.proxy(req);
          if (verdict !== null && verdict.kind === 'denied') {
            sendHtml(res, 403, signInPage(builtin, links, returnTo, verdict.message));
            return true;
          }
          // §5.3 "Built-in": with one redirect-based provider as the only method, the page sends the browser on
          if (redirectSignIn !== null) {
            sendRedirect(res, withReturnTo(redirectSignIn.loginPath, returnTo));
            return true;
          }
          sendHtml(res, 200, signInPage(builtin, links, returnTo, null));
          return true;
        }
        sendHtml(res, 200, signUpPage(builtin, returnTo, null));
        return true;
      }
      if (method !== 'POST') {
        sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'Use GET or POST.' } }, { allow: 'GET, HEAD, POST' });
        return true;
      }
      const form = await readForm(req);
      const wantsJson = form.kind === 'json';
      const reply = (status: number, code: string, message: string, headers: Readonly<Record<string, string>> = {}): void => {
        if (wantsJson || form.kind === 'invalid') {
          sendJson(res, status, { error: { code, message } }, headers);
          return;
        }
        const returnTo = returnToOrConsole(form.fields.get('returnTo'));
        const page =
          path === '/.auth/sign-up' ? signUpPage(builtin, returnTo, message) : path === '/.auth/sign-in' ? signInPage(builtin, links, returnTo, message) : signOutPage();
        sendHtml(res, status, page, headers);
      };
      if (!originAllowed(req, options.origin)) {
        reply(403, 'cross_origin_request', 'Cross-origin form submissions are refused.');
        return true;
      }
      if (form.kind === 'invalid') {
        reply(form.status, form.code, form.message);
        return true;
      }
      if (path === '/.auth/sign-out') {
        const cookie = await sessions.end(req);
        if (wantsJson) sendJson(res, 200, { ok: true }, { 'set-cookie': cookie });
        else sendRedirect(res, '/.auth/sign-in', { 'set-cookie': cookie });
        return true;
      }
      const result = path === '/.auth/sign-up' ? await signUp(form.fields, req) : await signIn(form.fields, req);
      if (result.kind === 'error') {
        reply(result.status, result.code, result.message, result.headers);
        return true;
      }
      const cookie = await sessions.start(req, result.user.id);
      if (cookie === null) {
        reply(500, 'session_failed', 'Could not start a session.');
        return true;
      }
      if (wantsJson) {
        sendJson(res, result.status, { ok: true, username: result.user.username }, { 'set-cookie': cookie });
      } else {
        sendRedirect(res, returnToOrConsole(form.fields.get('returnTo')), { 'set-cookie': cookie });
      }
      return true;
    },
  };

  async function signUp(fields: ReadonlyMap<string, string>, req: IncomingMessage): Promise<AuthResult> {
    if (builtin === null || !builtin.allowSignup) {
      return fail(403, 'signup_not_allowed', 'Sign-up is not allowed on this site. Ask a site administrator to create your account.');
    }
    const username = fields.get('username') ?? '';
    const email = (fields.get('email') ?? '').trim();
    const password = fields.get('password') ?? '';
    const valid = validateUsername(username);
    if (valid.isErr()) return fail(400, 'invalid_username', 'That username is not allowed: use letters, digits, "-", "." and "_" only, not starting with "-" or ".".');
    if (!isPlausibleEmail(email)) return fail(400, 'invalid_email', 'Enter an email address.');
    const passwordProblem = checkPassword(password);
    if (passwordProblem !== null) return passwordProblem;
    // a taken name is refused before scrypt runs (createUser still decides atomically if two sign-ups race)
    if ((await store.findUserByUsername(valid.value)) !== null) return fail(409, 'username_taken', 'That username is taken.');
    const hashed = await hashing.run(clientKey(req), () => hashPassword(password, randomBytes));
    if (hashed.kind === 'busy') return hashingBusy();
    const created = await store.createUser({
      username: valid.value,
      origin: 'password_signup',
      siteAdmin: false,
      serviceAccount: false,
      emails: [{ email, verified: false }],
      passwordHash: hashed.value,
      createdAt: now(),
    });
    if (created.isErr()) {
      return fail(409, created.error.code, created.error.code === 'username_taken' ? 'That username is taken.' : 'Could not create the account.');
    }
    await audit({ entity: 'user', action: 'created', reason: 'built-in sign-up', actorUserId: created.value.id, subjectUserId: created.value.id, details: {} });
    return { kind: 'ok', status: 201, user: created.value };
  }

  async function signIn(fields: ReadonlyMap<string, string>, req: IncomingMessage): Promise<AuthResult> {
    if (builtin === null) return fail(403, 'builtin_not_enabled', 'Password sign-in is not enabled on this site.');
    const username = fields.get('username') ?? '';
    const password = fields.get('password') ?? '';
    const t = now();
    const addressKey = clientKey(req);
    const addressChecked: ThrottleCheck = addressThrottle === null ? { kind: 'allow' } : addressThrottle.check(addressKey, t);
    // A per-address table full of throttled addresses fails open: refusing every new address would lock everyone
    // out, while the username throttle and the hashing limiter still bound the hashing this attempt can cause.
    const addressCheck: ThrottleCheck = addressChecked.kind === 'full' ? { kind: 'allow' } : addressChecked;
    // A username no account can have is refused before the username throttle, so a flood of them adds no
    // username records; it still counts as a failure of the client address.
    if (username.length > USERNAME_MAX_LENGTH || validateUsername(username).isErr()) {
      const refused = throttleRefusal([addressCheck]);
      if (refused !== null) return refused;
      addressThrottle?.record(addressKey, t);
      return fail(400, 'invalid_username', 'That is not a valid username: usernames are letters, digits, "-", "." and "_".');
    }
    // Decided before the store is read and before scrypt runs: an unknown username is throttled exactly like a
    // known one. Keys are digests, so a long username costs no more memory than a short one.
    const usernameKey = sha256Hex(`username\u0000${asciiLowercase(username)}`);
    const refused = throttleRefusal([usernameThrottle.check(usernameKey, t), addressCheck]);
    if (refused !== null) return refused;
    // Counted as a failure before the password is checked (a success clears it), with no await in between:
    // concurrent attempts see each other and cannot all pass the check.
    usernameThrottle.record(usernameKey, t);
    addressThrottle?.record(addressKey, t);
    const tooLong = Buffer.byteLength(password) > MAX_PASSWORD_BYTES;
    const checked = await hashing.run(addressKey, async () => {
      const user = tooLong ? null : await store.findUserByUsername(username);
      const stored = user?.passwordHash ?? (await getDummyHash());
      return { user, matches: !tooLong && (await verifyPassword(password, stored)) };
    });
    if (checked.kind === 'busy') {
      // The password was never checked, so the username keeps its free attempts; the address stays charged, so a
      // client that keeps the hashing queue full runs into its address throttle.
      usernameThrottle.withdraw(usernameKey);
      return hashingBusy();
    }
    const { user, matches } = checked.value;
    if (user === null || user.passwordHash === null || user.serviceAccount || !matches) {
      await audit({
        entity: 'auth.session',
        action: 'failed',
        reason: 'invalid username or password',
        actorUserId: null,
        subjectUserId: user?.id ?? null,
        details: {},
      });
      return fail(401, 'invalid_credentials', 'Invalid username or password.');
    }
    usernameThrottle.clear(usernameKey);
    addressThrottle?.withdraw(addressKey);
    await audit({ entity: 'auth.session', action: 'signed_in', reason: 'built-in password', actorUserId: user.id, subjectUserId: user.id, details: {} });
    return { kind: 'ok', status: 200, user };
  }

  return sessions;
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

/** The 503 answer when every password hashing place is taken. */
function hashingBusy(): AuthResult {
  return fail(503, 'hashing_busy', 'The server is busy checking other passwords. Try again in a second.', { 'retry-after': '1' });
}

function checkPassword(password: string): AuthResult | null {
  if (password.length < MIN_PASSWORD_LENGTH) return fail(400, 'password_too_short', `Passwords have at least ${MIN_PASSWORD_LENGTH} characters.`);
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return fail(400, 'password_too_long', `Passwords have at most ${MAX_PASSWORD_BYTES} bytes.`);
  return null;
}

function isPlausibleEmail(email: string): boolean {
  const at = email.indexOf('@');
  return email.length <= 254 && at > 0 && at === email.lastIndexOf('@') && at < email.length - 1 && !/[\s<>]/.test(email);
}

/**
 * Whether a state-changing browser request comes from this site: an `Origin` header, when present, must be
 * this site's origin (`externalURL`'s, or else the one the `Host` header names).
 *
 * @param req - The request.
 * @param siteOrigin - The site's origin, or `null`.
 * @returns Whether the request may change state.
 * @example
 * ```ts
 * if (!originAllowed(req, 'https://search.example.com')) sendHtml(res, 403, page);
 * ```
 * @internal
 */
export function originAllowed(req: IncomingMessage, siteOrigin: string | null): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (siteOrigin !== null && origin === siteOrigin) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

type Form =
  | { readonly kind: 'json' | 'form'; readonly fields: ReadonlyMap<string, string> }
  | { readonly kind: 'invalid'; readonly status: number; readonly code: string; readonly message: string };

async function readForm(req: IncomingMessage): Promise<Form> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    return { kind: 'invalid', status: 415, code: 'unsupported_media_type', message: 'Send application/x-www-form-urlencoded or application/json.' };
  }
  const body = await readBody(req, MAX_FORM_BYTES);
  if (body.isErr()) {
    return body.error.code === 'body_too_large'
      ? { kind: 'invalid', status: 413, code: 'body_too_large', message: 'The form is too large.' }
      : { kind: 'invalid', status: 400, code: body.error.code, message: 'The form could not be read.' };
  }
  const fields = new Map<string, string>();
  if (type === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(body.value)) if (!fields.has(k)) fields.set(k, v);
    return { kind: 'form', fields };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.value);
  } catch {
    return { kind: 'invalid', status: 400, code: 'malformed_json', message: 'The body is not JSON.' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { kind: 'invalid', status: 400, code: 'malformed_json', message: 'The body must be a JSON object.' };
  }
  for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') fields.set(k, v);
  return { kind: 'json', fields };
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · gatehouse</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}</style>
</head><body>${body}</body></html>`;
}

function errorLine(message: string | null): string {
  return message === null ? '' : `<p class="error" role="alert">${escapeHtml(message)}</p>`;
}

function withReturnTo(loginPath: string, returnTo: string): string {
  return `${loginPath}${loginPath.includes('?') ? '&' : '?'}returnTo=${encodeURIComponent(returnTo)}`;
}

function providerList(links: readonly SignInPageLink[], returnTo: string): string {
  if (links.length === 0) return '';
  const items = links
    .map((l) => `<li><a class="provider" href="${escapeHtml(withReturnTo(l.loginPath, returnTo))}">Sign in with ${escapeHtml(l.label)}</a></li>`)
    .join('');
  return `<ul class="providers">${items}</ul>`;
}

function signInPage(builtin: BuiltinProvider | null, links: readonly SignInPageLink[], returnTo: string, message: string | null): string {
  if (builtin === null) {
    const body =
      links.length === 0 ? '<p>Password sign-in is not enabled on this site.</p>' : providerList(links, returnTo);
    return page('Sign in', `<h1>Sign in</h1>${errorLine(message)}${body}`);
  }
  const signUpLink = builtin.allowSignup ? `<p>No account? <a href="/.auth/sign-up?returnTo=${encodeURIComponent(returnTo)}">Sign up</a></p>` : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>${errorLine(message)}
<form method="post" action="/.auth/sign-in">
<input type="hidden" name="returnTo" value="${escapeHtml(returnTo)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>${signUpLink}${providerList(links, returnTo)}`,
  );
}

function signUpPage(builtin: BuiltinProvider | null, returnTo: string, message: string | null): string {
  if (builtin === null || !builtin.allowSignup) {
    return page('Sign up', `<h1>Sign up</h1>${errorLine(message)}<p>Sign-up is not allowed on this site. Ask a site administrator to create your account.</p>`);
  }
  return page(
    'Sign up',
    `<h1>Sign up</h1>${errorLine(message)}
<form method="post" action="/.auth/sign-up">
<input type="hidden" name="returnTo" value="${escapeHtml(returnTo)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required>
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required>
<button type="submit">Sign up</button>
</form><p>Have an account? <a href="/.auth/sign-in?returnTo=${encodeURIComponent(returnTo)}">Sign in</a></p>`,
  );
}

function signOutPage(): string {
  return page('Sign out', '<h1>Sign out</h1><form method="post" action="/.auth/sign-out"><button type="submit">Sign out</button></form>');
}
