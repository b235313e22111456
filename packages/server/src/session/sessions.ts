/**
 * Browser sessions: the session cookie, the account a browser request acts as, and the request check that keeps
 * cross-site forms out (spec §5.2 built-in password, §5.3 "Built-in"). The password routes that start sessions
 * are in `password-routes.ts`.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import { decideAccountUse, decideSession, DEFAULT_MAX_SESSIONS_PER_ACCOUNT, DEFAULT_SESSION_LIFETIME_OPTIONS, SESSION_TOUCH_INTERVAL_MS as CORE_SESSION_TOUCH_INTERVAL_MS } from 'gatehouse-auth';
import type { SessionLifetimeOptions } from 'gatehouse-auth';
import { sha256Hex } from '../kernel/digest.js';
import { parseCookies } from '../kernel/http-io.js';
import { formatCookie } from '../kernel/respond.js';
import type { ResponseCookie } from '../kernel/route.js';
import { MAX_USER_AGENT_LENGTH } from '../store/types.js';
import { scryptOnWorker } from './scrypt-worker.js';
import type { Store, UserRecord } from '../store/types.js';

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

/**
 * How stale a session's `lastSeenAt` may grow before a request refreshes it: browsing writes to the store at most
 * once a minute per session, not on every request.
 *
 * @example
 * ```ts
 * if (now - session.lastSeenAt >= SESSION_TOUCH_INTERVAL_MS) await store.sessions.touch(session.digest, now);
 * ```
 */
export const SESSION_TOUCH_INTERVAL_MS: number = CORE_SESSION_TOUCH_INTERVAL_MS;

const SCRYPT_N = 16_384;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SCRYPT_KEYLEN = 32;
const SALT_BYTES = 16;
const SESSION_ID_BYTES = 32;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** scrypt on its own thread (scrypt-worker.ts), which keeps its 16 MB once rather than once per pool thread. */
function scrypt(password: string, salt: Uint8Array, n: number, r: number, p: number): Promise<Buffer> {
  return scryptOnWorker({ password: password.normalize('NFC'), salt, keylen: SCRYPT_KEYLEN, options: { N: n, r, p, maxmem: 64 * 1024 * 1024 } });
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

/**
 * What the session layer needs from the server.
 *
 * @example
 * ```ts
 * const sessions = createSessions({ store, now: Date.now, randomBytes, secureCookies: false, sessionTtlSeconds: 86_400 });
 * ```
 */
export interface SessionsOptions {
  /** The store's sessions and accounts. */
  readonly store: Pick<Store, 'sessions' | 'accounts'>;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Whether cookies get `Secure` (the site's `externalURL` is https). */
  readonly secureCookies: boolean;
  /**
   * Session lifetime in seconds: `auth.sessionExpiry` (the site configuration's), or a host's override. It is
   * written into each new session and, when shorter than a session's, also ends sessions started before it.
   */
  readonly sessionTtlSeconds: number;
  /** `auth.sessionIdleTimeout` in milliseconds (`null`: no idle limit). Default: none. */
  readonly idleTimeoutMs?: number | null;
  /**
   * How many sessions one account holds at most; starting one more revokes the account's oldest (the store does
   * both in one atomic step). Default {@link DEFAULT_MAX_SESSIONS_PER_ACCOUNT} (50).
   */
  readonly maxSessionsPerAccount?: number;
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
  | {
      readonly kind: 'denied';
      readonly message: string;
      /** Why, for a person the sign-in decision refuses: the reference code of its audit entry and a reason they can act on. */
      readonly refusal?: { readonly reference: string; readonly reason: string | null };
    };

/**
 * What the session layer reads of a request: its headers (a `node:http` request or a route's request value).
 *
 * @example
 * ```ts
 * const browser: SessionRequest = { headers: { cookie: 'gatehouse_session=…' } };
 * ```
 */
export interface SessionRequest {
  /** The request headers by lower-case name. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Every value of each header, as sent (a route's request has them): a repeated proxy header is refused, not joined. */
  readonly headersDistinct?: Readonly<Record<string, readonly string[]>>;
}

/** The request's well-formed session cookie value, or `null`. */
function cookieValueOf(req: SessionRequest): string | null {
  const header = req.headers['cookie'];
  const value = parseCookies(typeof header === 'string' ? header : undefined).get(SESSION_COOKIE);
  return value !== undefined && SESSION_ID_PATTERN.test(value) ? value : null;
}

/**
 * The digest under which the store keeps the session of the request's cookie: tells which of an account's
 * sessions (`store.sessions.list`) is the one making the request. It does not check that the session exists.
 *
 * @param req - The request.
 * @returns The lower-case hex SHA-256 digest of a well-formed session cookie, or `null` when there is none.
 * @example
 * ```ts
 * const current = sessionDigestOf(req);
 * const rows = (await store.sessions.list(user.id)).map((s) => ({ ...s, current: s.digest === current }));
 * ```
 */
export function sessionDigestOf(req: SessionRequest): string | null {
  const value = cookieValueOf(req);
  return value === null ? null : sha256Hex(value);
}

/** The request's `User-Agent` (the first one when repeated), cut to what a session keeps; `''` when none. */
function userAgentOf(req: SessionRequest): string {
  const header = req.headersDistinct?.['user-agent']?.[0] ?? req.headers['user-agent'];
  const value = typeof header === 'string' ? header : (header?.[0] ?? '');
  return value.slice(0, MAX_USER_AGENT_LENGTH);
}

/**
 * The session layer: the account a browser request acts as, and starting and ending sessions.
 *
 * @example
 * ```ts
 * const user = await sessions.authenticate(request); // UserRecord | null
 * ```
 */
export interface Sessions {
  /**
   * The account the authentication proxy vouches for (when one is configured) or, when the proxy names nobody,
   * the one signed in with the request's session cookie; `null` otherwise.
   */
  authenticate(req: SessionRequest): Promise<UserRecord | null>;
  /** Starts a session for `userId`, ending the request's previous one (the id is rotated); returns the `Set-Cookie` value. */
  start(req: SessionRequest, userId: string): Promise<string | null>;
  /** Ends the request's session; returns the `Set-Cookie` value that clears the cookie. */
  end(req: SessionRequest): Promise<string>;
  /**
   * When the request's session signed in (its start), or `null` when the request has no live session; what
   * re-authentication before a sensitive change reads. Absent on session layers that keep no sign-in time.
   */
  signedInAt?(req: SessionRequest): Promise<number | null>;
  /**
   * {@link Sessions.start} as a cookie value for a route's response; `into` is the store to write the session to
   * (a transaction's, which also writes the sign-in's audit entry), the server's store by default.
   */
  startCookie(req: SessionRequest, userId: string, into?: Pick<Store, 'sessions'>): Promise<ResponseCookie | null>;
  /** {@link Sessions.end} as a cookie value for a route's response. */
  endCookie(req: SessionRequest): Promise<ResponseCookie>;
}

/**
 * Creates the session layer (cookie sessions only; {@link withProxy} puts an authentication proxy in front).
 *
 * @param options - Store, clock, random source and cookie settings.
 * @returns The session layer.
 *
 * @example
 * ```ts
 * const sessions = createSessions(options);
 * const user = await sessions.authenticate(request);
 * ```
 */
export function createSessions(options: SessionsOptions): Sessions {
  const { store, now, randomBytes, secureCookies, sessionTtlSeconds } = options;
  const maxSessionsPerAccount = options.maxSessionsPerAccount ?? DEFAULT_MAX_SESSIONS_PER_ACCOUNT;
  if (!Number.isSafeInteger(maxSessionsPerAccount) || maxSessionsPerAccount < 1) throw new Error('maxSessionsPerAccount must be a positive integer.');
  const lifetime: SessionLifetimeOptions = { expiryMs: sessionTtlSeconds * 1000, idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_SESSION_LIFETIME_OPTIONS.idleTimeoutMs };
  const cookie = (value: string, maxAgeSeconds: number): ResponseCookie =>
    ({ name: SESSION_COOKIE, value, path: '/', maxAgeSeconds, sameSite: 'Lax', secure: secureCookies, httpOnly: true });

  const sessions: Sessions = {
    async authenticate(req) {
      const value = cookieValueOf(req);
      if (value === null) return null;
      const digest = sha256Hex(value);
      const session = await store.sessions.findByDigest(digest);
      if (session === null) return null;
      const at = now();
      // the core decides: past the expiry (the one written at sign-in, or a shorter auth.sessionExpiry since) or
      // idle past auth.sessionIdleTimeout ends the session; a stale last-seen time is refreshed
      const decided = decideSession(lifetime, session, at);
      if (decided.isErr() || decided.value.kind === 'ended') {
        await store.sessions.delete(digest);
        return null;
      }
      if (decided.value.touch) {
        // not awaited: "last seen" is a courtesy for the settings page, and neither its latency nor its failure
        // may hold up or fail the request (the server's store reports its own failures, see store-errors.ts)
        void store.sessions.touch(digest, at).catch(() => undefined);
      }
      const user = await store.accounts.get(session.userId);
      // a suspended account's sessions are kept (reinstating restores them) but serve no request meanwhile
      return user === null || decideAccountUse({ suspended: user.suspendedAt !== undefined, use: 'session' }).kind === 'deny' ? null : user;
    },
    async startCookie(req, userId, into: Pick<Store, 'sessions'> = store) {
      const previous = cookieValueOf(req);
      if (previous !== null) await into.sessions.delete(sha256Hex(previous));
      const id = Buffer.from(randomBytes(SESSION_ID_BYTES)).toString('base64url');
      const createdAt = now();
      const created = await into.sessions.create(
        {
          digest: sha256Hex(id),
          userId,
          createdAt,
          expiresAt: createdAt + sessionTtlSeconds * 1000,
          lastSeenAt: createdAt,
          userAgent: userAgentOf(req),
        },
        maxSessionsPerAccount,
      );
      return created.isErr() ? null : cookie(id, sessionTtlSeconds);
    },
    async endCookie(req) {
      const value = cookieValueOf(req);
      if (value !== null) await store.sessions.delete(sha256Hex(value));
      return cookie('', 0);
    },
    async start(req, userId) {
      const started = await sessions.startCookie(req, userId);
      return started === null ? null : formatCookie(started);
    },
    async end(req) {
      return formatCookie(await sessions.endCookie(req));
    },
    async signedInAt(req) {
      const value = cookieValueOf(req);
      if (value === null) return null;
      const session = await store.sessions.findByDigest(sha256Hex(value));
      if (session === null) return null;
      const decided = decideSession(lifetime, session, now());
      return decided.isOk() && decided.value.kind === 'valid' ? session.createdAt : null;
    },
  };
  return sessions;
}

/**
 * What an authentication proxy's headers say about a request (`http-header`, spec §5.3).
 *
 * @example
 * ```ts
 * const proxy: ProxyCheck = async () => ({ kind: 'none' });
 * ```
 */
export type ProxyCheck = (req: SessionRequest) => Promise<ProxyVerdict>;

/**
 * The session layer with an authentication proxy in front: the proxy is asked first and is authoritative when
 * it names someone (a refused identity never falls back to the cookie, which may be someone else's).
 *
 * @param sessions - The cookie session layer.
 * @param proxy - The proxy check, or `null` when no `http-header` provider is configured.
 * @returns The session layer everyone else uses.
 *
 * @example
 * ```ts
 * const browser = withProxy(createSessions(options), null);
 * ```
 */
export function withProxy(sessions: Sessions, proxy: ProxyCheck | null): Sessions {
  if (proxy === null) return sessions;
  return {
    ...sessions,
    async authenticate(req) {
      const verdict = await proxy(req);
      if (verdict.kind === 'user') return verdict.user;
      if (verdict.kind === 'denied') return null;
      return sessions.authenticate(req);
    },
  };
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
export function originAllowed(
  req: { readonly headers: { readonly origin?: string | undefined; readonly host?: string | undefined } },
  siteOrigin: string | null,
): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (siteOrigin !== null && origin === siteOrigin) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

