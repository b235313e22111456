/**
 * The provider sign-in flows mounted in the gatehouse server from the site configuration's `auth.providers`:
 * the login and callback routes, the account store behind `resolveSignIn`, the session they start, the proxy
 * identity of each request, and the links of the sign-in page.
 *
 * A sign-in never lists the accounts: `resolveSignIn` reads a directory answered from the store's indexes
 * (by linked identity, by verified email, by username), so its cost does not grow with the number of accounts.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { err, Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import type { AuthProvider } from '../../core/auth-providers.js';
import type { RouteRequest } from '../route.js';
import type { ProxyVerdict, Sessions, SignInPageLink } from '../sessions.js';
import { runSignIn, type SignInStore } from '../sign-in-flow.js';
import type { AuditEvent, Store, StoreError } from '../store.js';
import type { Store as NewStore, StoreError as ContractStoreError } from '../store/types.js';
import type { PublicCodeHostURLs } from './code-hosts.js';
import { incomingMessageOf, parseSetCookie, serveRoutes } from './node-adapter.js';
import type { PendingSignInLimits } from './pending.js';
import { proxyIdentityFromRequest } from './proxy.js';
import { signInRoutePaths, signInRoutes } from './routes.js';
import { signInLinks, signInRedirect } from './sign-in-links.js';
import { sendMessagePage } from './sign-in-page.js';
import { providerStoreFromFlat } from './store-bridge.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './upstream.js';

/**
 * Options of {@link createSiteSignIn}.
 *
 * @example
 * ```ts
 * const options: SiteSignInOptions = { store, providers, now, randomBytes, audit, externalURL: () => url, sessions: () => sessions };
 * ```
 */
export interface SiteSignInOptions {
  /** The store. */
  readonly store: Store;
  /** The configured providers (`auth.providers`, defaults applied). */
  readonly providers: readonly AuthProvider[];
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** The site's public URL (`externalURL`, else the URL the server listens on), or `null` when unknown yet. */
  readonly externalURL: () => string | null;
  /** The session layer (late-bound: it reads the proxy identity from here). */
  readonly sessions: () => Sessions;
  /** `fetch` for every request to a provider. */
  readonly fetch?: typeof fetch;
  /** How long one call to a provider may take, in milliseconds (default 10 s). */
  readonly upstreamTimeoutMs?: number;
  /** Base URLs of public code host editions (`hosta`/`hostccloud` with an empty `url`). */
  readonly publicURLs?: PublicCodeHostURLs;
  /** Where pending flows are kept (default: a memory store of this process). */
  readonly flowStore?: NewStore;
  /** Bounds on pending sign-ins per client network and in all (default 100 and 100,000). */
  readonly pendingSignIns?: PendingSignInLimits;
}

/**
 * The mounted sign-in flows.
 *
 * @example
 * ```ts
 * if (await signIn.handle(req, res, url)) return;
 * ```
 */
export interface SiteSignIn {
  /** Serves the login and callback routes of the configured providers; `false` for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** The person the proxy headers name, signed in through `resolveSignIn` (`http-header` only). */
  proxy(req: IncomingMessage): Promise<ProxyVerdict>;
  /** The account store the sign-in decisions are written to (its `loadAccounts` is never called by a sign-in). */
  readonly signInStore: SignInStore;
  /** The sign-in page's provider links, in configuration order (`builtin`, `http-header` and `reviewhost` excluded). */
  readonly links: readonly SignInPageLink[];
  /** The login route the sign-in page redirects to at once (`signInPageBehavior` says `redirect`), or `null`. */
  readonly redirectTo: SignInPageLink | null;
}

/** Shown when the proxy's identity headers are present but unusable (repeated with different values, a malformed email). */
const PROXY_HEADERS_UNUSABLE = 'The authentication proxy sent identity headers that cannot be used. Ask your administrator to check the proxy.';
/** Shown when the person the proxy names could not be signed in for another reason (a store failure). */
const PROXY_SIGN_IN_FAILED = 'The person the authentication proxy names could not be signed in. Try again later.';

// The old store's errors in the grouped contract's terms (`guard_refused` is never answered by the calls below).
function contractError(error: StoreError): ContractStoreError {
  return match(error)
    .returnType<ContractStoreError>()
    .with({ code: 'guard_refused' }, () => ({ code: 'unknown_user', userId: '' }))
    .with(
      {
        code: P.union(
          'username_taken',
          'email_taken',
          'unknown_user',
          'unknown_access_token',
          'external_account_taken',
          'duplicate_digest',
          'unknown_external_account',
        ),
      },
      (e) => e,
    )
    .exhaustive();
}

// The link key's coordinates (`externalAccountKey` is the JSON array of them), or `null` for another string.
function linkOfKey(key: string): readonly [string, string, string] | null {
  const parsed = Result.fromThrowable((): unknown => JSON.parse(key), () => null)().unwrapOr(null);
  if (!Array.isArray(parsed) || parsed.length !== 3) return null;
  const [serviceType, serviceId, accountId]: unknown[] = parsed;
  return typeof serviceType === 'string' && typeof serviceId === 'string' && typeof accountId === 'string'
    ? [serviceType, serviceId, accountId]
    : null;
}

/**
 * The accounts part of the grouped store contract over the server's flat store, for `runSignIn`. The flat store's
 * lookups compare by the core's keys (a key finds what its value finds), the insert tries the username candidates
 * in order, and each call is atomic on its own: a write that conflicts because the store changed is decided again.
 *
 * @param store - The server's store.
 * @returns The sign-in store.
 * @internal
 * @example
 * ```ts
 * await runSignIn({ store: signInStoreOf(store), now, randomBytes }, { provider, identity, signedInUserId: null });
 * ```
 */
export function signInStoreOf(store: Store): SignInStore {
  const signInStore: SignInStore = {
    accounts: {
      findByUsernameKey: (key) => store.findUserByUsername(key),
      findByVerifiedEmailKey: (key) => store.findUserByVerifiedEmail(key),
      findByExternalAccountKey: async (key) => {
        const link = linkOfKey(key);
        return link === null ? null : store.findUserByExternalAccount(...link);
      },
      get: (id) => store.getUser(id),
      links: (userId) => store.listExternalAccounts(userId),
      link: async (input) => (await store.addExternalAccount(input)).mapErr(contractError),
      create: async ({ usernames, ...rest }) => {
        let last: ContractStoreError = { code: 'username_taken', username: usernames[0] ?? '' };
        for (const username of usernames) {
          const created = await store.createUser({ ...rest, username });
          if (created.isOk() || created.error.code !== 'username_taken') return created.mapErr(contractError);
          last = contractError(created.error);
        }
        return err(last);
      },
    },
    transaction: (work) => work(signInStore),
  };
  return signInStore;
}


/**
 * Mounts the sign-in flows of the configured providers on a server that asks each part in turn: serves
 * {@link signInRoutes} over the flat store (flow state in `ephemeral`), with the session layer's user and cookie.
 *
 * @param options - Store, providers, clock, random source, audit, public URL and session layer.
 * @returns The mounted flows.
 * @example
 * ```ts
 * const signIn = createSiteSignIn({ store, providers: configuration.authProviders, now, randomBytes, audit,
 *   externalURL: () => 'https://search.example.com', sessions: () => sessions });
 * ```
 */
export function createSiteSignIn(options: SiteSignInOptions): SiteSignIn {
  const { store, providers, now, randomBytes, audit } = options;
  const signInStore = signInStoreOf(store);
  const signInDeps = { store: signInStore, now, randomBytes };
  const providerStore = providerStoreFromFlat(store, options.flowStore);
  const incoming = (request: RouteRequest): IncomingMessage | null => incomingMessageOf(request) ?? null;
  const handlerFor = (externalURL: string): ReturnType<typeof serveRoutes> =>
    serveRoutes(
      signInRoutes({
        providers,
        externalURL,
        store: providerStore,
        now,
        randomBytes,
        fetch: options.fetch ?? fetch,
        upstreamTimeoutMs: options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        publicURLs: options.publicURLs ?? {},
        pendingSignIns: options.pendingSignIns ?? {},
        currentUserId: async (request) => {
          const req = incoming(request);
          return req === null ? null : ((await options.sessions().authenticate(req))?.id ?? null);
        },
        signIn: (request) => runSignIn(signInDeps, request),
        startSession: async (request, userId) => {
          const req = incoming(request);
          const cookie = req === null ? null : await options.sessions().start(req, userId);
          return cookie === null ? null : parseSetCookie(cookie);
        },
        audit,
      }),
    );
  const paths = new Set(signInRoutePaths(providers));
  let mounted: { readonly base: string; readonly handle: ReturnType<typeof serveRoutes> } | null = null;

  return {
    signInStore,
    links: signInLinks(providers),
    redirectTo: signInRedirect(providers),
    async handle(req, res, url) {
      if (!paths.has(url.pathname)) return false;
      const base = options.externalURL();
      if (base === null) {
        sendMessagePage(res, 503, 'Sign-in failed', 'Set externalURL in the site configuration to use this provider.');
        return true;
      }
      if (mounted === null || mounted.base !== base) mounted = { base, handle: handlerFor(base) };
      return mounted.handle(req, res, url);
    },
    async proxy(req) {
      const found = proxyIdentityFromRequest(providers, req.headers);
      // The proxy is authoritative once it sends identity headers: from here on, every failure to sign the
      // named person in is a denial, never a fall back to the browser's session cookie (which may be someone else's).
      if (found.kind === 'not_configured' || found.kind === 'anonymous') return { kind: 'none' };
      if (found.kind === 'invalid') return { kind: 'denied', message: PROXY_HEADERS_UNUSABLE };
      const outcome = await runSignIn(signInDeps, { provider: found.provider, identity: found.identity, signedInUserId: null });
      if (outcome.isErr()) return { kind: 'denied', message: PROXY_SIGN_IN_FAILED };
      if (outcome.value.kind === 'denied') return { kind: 'denied', message: outcome.value.message };
      const signedIn = outcome.value;
      const user = await store.getUser(signedIn.userId);
      if (user === null) return { kind: 'denied', message: PROXY_SIGN_IN_FAILED };
      if (signedIn.created || signedIn.linked) {
        await audit({
          entity: 'auth.session',
          action: 'signed_in',
          reason: 'http-header',
          actorUserId: user.id,
          subjectUserId: user.id,
          details: { provider: 'http-header', created: String(signedIn.created), linked: String(signedIn.linked) },
        });
      }
      return { kind: 'user', user };
    },
  };
}
