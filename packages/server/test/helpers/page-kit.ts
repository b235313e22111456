/**
 * A kit for testing page routes as functions: a memory store, a clock the test moves, the pages' dependencies,
 * accounts, and "browsers" that carry a session and CSRF cookie and fill each form's `_csrf` field the way a page
 * would. No socket; a request value in, a response value out.
 */
import { parseSiteConfiguration } from '../../../../src/core/site-configuration/parse.js';
import { CSRF_COOKIE, CSRF_FIELD, formToken } from '../../src/pages/csrf.js';
import type { PageDeps } from '../../src/pages/page-routes.js';
import type { Route, RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import { createSessions, hashPassword, SESSION_COOKIE } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { AuditEntry, Store, UserRecord } from '../../src/store/types.js';

/** The time the kit's clock starts at. */
export const KIT_START = 1_700_000_000_000;

/** A deterministic random source (a counter through a simple mix): distinct draws, repeatable runs. */
function counterRandom(): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    counter += 1;
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 1) out[i] = (counter * 131 + i * 197 + ((counter * i) >> 3)) & 0xff;
    return out;
  };
}

/** A browser in a test: its cookies, and requests built the way a page's forms send them. */
export interface KitBrowser {
  /** The account signed in, or `null`. */
  readonly user: UserRecord | null;
  /** The browser's cookies. */
  readonly cookies: Map<string, string>;
  /** The `_csrf` value the pages give this browser. */
  readonly csrf: string;
  /** A `GET` of `path` (with its query). */
  get(path: string, headers?: Readonly<Record<string, string>>): RouteRequest;
  /** A form post of `fields` to `path`, with the page's `_csrf` field unless `fields` sets its own. */
  post(path: string, fields: Readonly<Record<string, string | readonly string[]>>, headers?: Readonly<Record<string, string>>): RouteRequest;
}

/** What the kit gives a test. */
export interface PageKit {
  /** The store every route of the kit uses. */
  readonly store: Store;
  /** The pages' dependencies. */
  readonly deps: PageDeps;
  /** The clock: `now()`, and `advance(ms)` to move it. */
  readonly clock: { now(): number; advance(ms: number): void };
  /** Creates an account (with a password when `password` is given). */
  createUser(username: string, options?: { readonly siteAdmin?: boolean; readonly password?: string; readonly email?: string }): Promise<UserRecord>;
  /** A browser signed in to `user` (a real session in the store), or a signed-out one for `null`. */
  browser(user: UserRecord | null): Promise<KitBrowser>;
  /** Every audit entry, oldest first. */
  auditEntries(): Promise<readonly AuditEntry[]>;
}

/** The options of {@link pageKit}. */
export interface PageKitOptions {
  /** The site configuration (JSONC). Default: the `builtin` provider with sign-up allowed. */
  readonly configuration?: string;
  /** The site's origin. Default `http://gatehouse.test`. */
  readonly origin?: string;
}

/** The default site configuration of the kit. */
export const KIT_CONFIGURATION: string = JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }] });

/**
 * A kit for page tests.
 *
 * @example
 * ```ts
 * const kit = await pageKit();
 * const alice = await kit.createUser('alice');
 * const browser = await kit.browser(alice);
 * const answer = await callRoute(routes, browser.get('/settings/tokens'));
 * ```
 */
export async function pageKit(options: PageKitOptions = {}): Promise<PageKit> {
  const store = createMemoryStore();
  let time = KIT_START;
  const clock = { now: () => time, advance: (ms: number) => void (time += ms) };
  const randomBytes = counterRandom();
  const parsed = parseSiteConfiguration(options.configuration ?? KIT_CONFIGURATION);
  if (parsed.isErr()) throw new Error(`bad kit configuration: ${JSON.stringify(parsed.error)}`);
  const sessions = createSessions({ store, now: clock.now, randomBytes, secureCookies: false, sessionTtlSeconds: 7 * 24 * 3600 });
  const origin = options.origin ?? 'http://gatehouse.test';
  const deps: PageDeps = {
    store,
    now: clock.now,
    randomBytes,
    audit: async (event, into) => void (await into.audit.append({ ...event, timestamp: clock.now() })),
    currentUser: (request) => sessions.authenticate(request),
    sessions,
    origin,
    secureCookies: false,
    configuration: parsed.value,
  };
  const host = new URL(origin).host;

  const request = (method: string, path: string, cookies: Map<string, string>, headers: Readonly<Record<string, string>>, body: string | null): RouteRequest => {
    const all: Record<string, string> = { host, ...headers };
    if (cookies.size > 0) all['cookie'] = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return {
      method,
      url: new URL(path, origin),
      headers: all,
      headersDistinct: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, [v]])),
      cookies: new Map(cookies),
      clientAddress: '127.0.0.1',
      requestId: 'kit',
      body,
    };
  };

  return {
    store,
    deps,
    clock,
    async createUser(username, extra = {}) {
      const passwordHash = extra.password === undefined ? null : await hashPassword(extra.password, randomBytes);
      const created = await store.accounts.create({
        usernames: [username],
        origin: 'password_signup',
        siteAdmin: extra.siteAdmin ?? false,
        serviceAccount: false,
        emails: extra.email === undefined ? [] : [{ email: extra.email, verified: false }],
        passwordHash,
        createdAt: clock.now(),
      });
      if (created.isErr()) throw new Error(`kit could not create ${username}: ${created.error.code}`);
      return created.value;
    },
    async browser(user) {
      const cookies = new Map<string, string>();
      if (user !== null) {
        const started = await sessions.startCookie({ headers: {} }, user.id);
        if (started === null) throw new Error('kit could not start a session');
        cookies.set(SESSION_COOKIE, started.value);
      }
      const issued = formToken({ cookies }, randomBytes, false);
      if (issued.cookie !== null) cookies.set(CSRF_COOKIE, issued.cookie.value);
      const csrf = issued.token;
      return {
        user,
        cookies,
        csrf,
        get: (path, headers = {}) => request('GET', path, cookies, headers, null),
        post: (path, fields, headers = {}) => {
          const form = new URLSearchParams();
          if (!(CSRF_FIELD in fields)) form.append(CSRF_FIELD, csrf);
          for (const [name, value] of Object.entries(fields)) for (const v of typeof value === 'string' ? [value] : value) form.append(name, v);
          return request('POST', path, cookies, { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin', ...headers }, form.toString());
        },
      };
    },
    async auditEntries() {
      return [...(await store.audit.list(1000))].reverse();
    },
  };
}

/**
 * Answers `request` with the route of `routes` that matches its method and path exactly (`HEAD` as `GET`), as
 * the router would; a test failure when none does.
 *
 * @example
 * ```ts
 * const answer = await callRoute(settingsRoutes(kit.deps), browser.get('/settings'));
 * ```
 */
export async function callRoute(routes: readonly Route[], request: RouteRequest): Promise<RouteResponse> {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const route = routes.find((r) => r.path === request.url.pathname && r.methods.includes(method));
  if (route === undefined) throw new Error(`no route for ${request.method} ${request.url.pathname}`);
  return route.handler(request);
}

/** The body of a response as text. */
export function textOf(response: RouteResponse): string {
  return response.body === null ? '' : typeof response.body === 'string' ? response.body : Buffer.from(response.body).toString('utf8');
}

/**
 * The text a person reads on a page: tags removed, entities decoded, whitespace collapsed (enough to assert on
 * what a page says; the browser tests read the real rendering).
 *
 * @example
 * ```ts
 * expect(visibleText(answer)).toContain('The token was deleted.');
 * ```
 */
export function visibleText(response: RouteResponse): string {
  return textOf(response)
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&amp;', '&')
    .replace(/\s+/g, ' ')
    .trim();
}
