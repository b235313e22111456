/**
 * The configuration-derived part of a server: its dependencies built once, in order (audit, sessions, the
 * providers' sign-in flows, the proxy, account security, the OAuth server, the schema, the authenticator), then
 * the route table made of their handlers. A reload builds a new site around the same store, keys and log.
 *
 * @module
 */
import { match } from 'ts-pattern';
import { DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS } from '../core/audit-retention.js';
import type { AuthProvider, BuiltinProvider } from '../core/auth-providers.js';
import { DEFAULT_MAX_PENDING_SIGN_INS, DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT } from '../core/quotas.js';
import type { SiteConfiguration } from '../core/site-configuration.js';
import { createAuthenticator } from './authenticate.js';
import { consoleHandlers } from './console.js';
import { createGraphQLEndpoint, DEFAULT_DOCUMENT_LIMITS, graphqlHandler } from './graphql-endpoint.js';
import type { LogEntry } from './logging.js';
import { createOAuthIdp } from './oauth-idp.js';
import { checkOptionalPeers } from './optional-peers.js';
import { homeHandler, passwordHandlers, SIGN_IN_PATH } from './password-routes.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from './providers/code-hosts.js';
import type { ProviderSignInInput } from './providers/flow-context.js';
import { proxySignIn } from './providers/proxy.js';
import { providerRoutes } from './providers/routes.js';
import { signInLinks, signInRedirect } from './providers/sign-in-links.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './providers/upstream.js';
import { runSignIn } from './sign-in-flow.js';
import type { SignInFlowDeps } from './sign-in-flow.js';
import type { RouteTableEntry, StreamRoute } from './router.js';
import { routeTable } from './routes.js';
import { assetRoutes } from './pages/assets.js';
import type { PageDeps } from './pages/page-routes.js';
import { settingsRoutes } from './settings/routes.js';
import { siteAdminRoutes } from './site-admin/routes.js';
import { createGatehouseSchema, issueAccessToken } from './schema.js';
import { createDirectorySearch } from './search.js';
import type { GatehouseRoute, GatehouseServer, GatehouseServerOptions, RouteContext } from './server-types.js';
import { createSessions, withProxy } from './sessions.js';
import type { ProxyCheck, Sessions } from './sessions.js';
import { createProxyGate } from './proxy-gate.js';
import type { ProxyGate } from './proxy-gate.js';
import type { AuditEvent, Store } from './store/types.js';
import type { RejectedReload } from './rejected-reload.js';

/** Largest accepted API request body by default: 1 MiB. */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * What every configuration of one server shares: a reload keeps them.
 *
 * @example
 * ```ts
 * const shared: SharedParts = { store, randomBytes, credentialsKey, log, listeningURL: () => null, ready: async () => true };
 * ```
 */
export interface SharedParts {
  /** The server's store, every piece of state in it (its failures are logged: `reportStoreErrors`). */
  readonly store: Store;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** The key sealing review host credentials. */
  readonly credentialsKey: Uint8Array;
  /** The log sink. */
  readonly log: (entry: LogEntry) => void;
  /** The URL the server listens on, once it does. */
  readonly listeningURL: () => string | null;
  /** Whether the server can serve (`GET /readyz`). */
  readonly ready: () => Promise<boolean>;
  /** The last reload the server refused, until a valid configuration applies (the Site configuration page shows it). */
  readonly rejectedReload?: () => RejectedReload | null;
}

/**
 * The configuration-derived part of a server, rebuilt by a reload.
 *
 * @example
 * ```ts
 * const site: Site = createSite(configuration, options, shared);
 * ```
 */
export interface Site {
  /** The parsed configuration. */
  readonly configuration: SiteConfiguration;
  /** The session layer (the proxy in front, when one is configured). */
  readonly sessions: Sessions;
  /** The site's external URL, when configured. */
  readonly externalURL: string | null;
  /** The route table. */
  readonly table: readonly RouteTableEntry[];
  /** Refuses identity headers from a peer that is no trusted proxy; `null` without an `http-header` provider. */
  readonly proxyGate: ProxyGate | null;
  /** Creates an access token as `actor` would. */
  readonly createAccessToken: GatehouseServer['createAccessToken'];
}

/**
 * Builds everything that depends on the site configuration, around the shared store, keys and log.
 *
 * @param configuration - The parsed configuration.
 * @param options - The server's options.
 * @param shared - What reloads keep.
 * @returns The site.
 *
 * @example
 * ```ts
 * const site = createSite(configuration, options, shared);
 * ```
 */
export function createSite(configuration: SiteConfiguration, options: GatehouseServerOptions, shared: SharedParts): Site {
  const { store, randomBytes, log } = shared;
  const now = options.now ?? Date.now;
  const externalURL = configuration.externalURL ?? null;
  const origin = externalURL === null ? null : safeOrigin(externalURL);
  const secureCookies = externalURL !== null && externalURL.toLowerCase().startsWith('https:');
  const builtin = configuration.authProviders.find((p): p is BuiltinProvider => p.type === 'builtin') ?? null;
  reportMissingPeers(configuration, log);
  const audit = auditSink(store, now, log);
  const sessions = createSessions({
    store,
    now,
    randomBytes,
    secureCookies,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 7 * 24 * 3600,
    ...(options.maxSessionsPerAccount === undefined ? {} : { maxSessionsPerAccount: options.maxSessionsPerAccount }),
  });
  const signInFlow: SignInFlowDeps = { store, now, randomBytes };
  const signIn = (input: ProviderSignInInput): ReturnType<typeof runSignIn> => runSignIn(signInFlow, input);
  // The proxy check reads only the request's headers, a repeated one as its list (§5.3 `http-header`).
  const proxy: ProxyCheck | null = configuration.authProviders.some((p) => p.type === 'http-header')
    ? (request) => proxySignIn({ providers: configuration.authProviders, signIn, audit }, request.headersDistinct ?? request.headers)
    : null;
  const browser = withProxy(sessions, proxy);
  const providers = providerRoutes({
    providers: configuration.authProviders,
    externalURL: () => externalURL ?? shared.listeningURL(),
    store,
    now,
    randomBytes,
    audit,
    fetch: options.fetch ?? fetch,
    log,
    upstreamTimeoutMs: options.timeouts?.upstreamMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
    publicURLs: { ...DEFAULT_PUBLIC_CODE_HOST_URLS, ...options.publicCodeHostURLs },
    pendingSignIns: {
      maxPerClient: positiveInteger(options.maxPendingSignInsPerClient ?? DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT, 'maxPendingSignInsPerClient'),
      maxTotal: positiveInteger(options.maxPendingSignIns ?? DEFAULT_MAX_PENDING_SIGN_INS, 'maxPendingSignIns'),
    },
    currentUserId: async (request) => (await browser.authenticate(request))?.id ?? null,
    currentUser: (request) => browser.authenticate(request),
    signIn,
    startSession: (request, userId) => sessions.startCookie(request, userId),
    credentialsKey: shared.credentialsKey,
    codeHostConnectionUrls: options.codeHostConnectionUrls ?? codeHostUrls(configuration.authProviders),
    origin,
    sessions,
    secureCookies,
    configuration,
  });
  const idp = createOAuthIdp({
    store: store.oauth,
    now,
    randomBytes,
    ...(options.oauthAccessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: options.oauthAccessTokenTtlSeconds }),
    authenticateBrowser: async (request) => {
      const user = await browser.authenticate(request);
      return user === null ? null : { userId: user.id, username: user.username, siteAdmin: user.siteAdmin };
    },
    signInPath: SIGN_IN_PATH,
    audit: (entry) => audit({ details: {}, ...entry }),
    issuer: () => externalURL ?? shared.listeningURL(),
    pages: { randomBytes, secureCookies, origin },
  });
  const schema = createGatehouseSchema({
    store,
    now,
    randomBytes,
    search: options.search ?? createDirectorySearch(options.searchDirectory ?? null),
    audit,
    registerOAuthApp: (input) => idp.registerApp(input),
    authPublic: configuration.authPublic,
  });
  const authenticate = createAuthenticator({
    store,
    sessions: browser,
    now,
    audit,
    verifyBearer: (token) => idp.verifyAccessToken(token),
    auditCoalesceWindowSeconds: positiveInteger(options.auditCoalesceWindowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, 'auditCoalesceWindowSeconds'),
    auditCoalesceMaxNetworks: positiveInteger(options.auditCoalesceMaxNetworks ?? DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, 'auditCoalesceMaxNetworks'),
  });
  const endpoint = createGraphQLEndpoint({
    schema,
    queryLimits: configuration.queryLimits,
    documentLimits: options.documentLimits ?? DEFAULT_DOCUMENT_LIMITS,
    ...(options.maxSearchFields === undefined ? {} : { maxSearchFields: options.maxSearchFields }),
    onLimitExceeded: (limit) => log({ level: 'info', event: 'query_cost_refused', limit }),
  });
  const pageDeps: PageDeps = {
    store,
    now,
    randomBytes,
    audit,
    currentUser: (request) => browser.authenticate(request),
    sessions,
    origin,
    secureCookies,
    configuration,
  };
  const siteAdmin = siteAdminRoutes({
    ...pageDeps,
    registerOAuthApp: (input) => idp.registerApp(input),
    rotateOAuthAppSecret: (clientId) => idp.rotateSecret(clientId),
    listeningURL: () => shared.listeningURL(),
    publicCodeHostURLs: { ...DEFAULT_PUBLIC_CODE_HOST_URLS, ...options.publicCodeHostURLs },
    ...(shared.rejectedReload === undefined ? {} : { rejectedReload: shared.rejectedReload }),
  });
  const pages = [...assetRoutes(), ...settingsRoutes(pageDeps), ...siteAdmin];
  const routeContext: RouteContext = { store, configuration, sessions: browser, now, randomBytes, audit, log };
  const table = routeTable({
    graphql: graphqlHandler({ endpoint, authenticate, log }),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    password: passwordHandlers({
      store,
      now,
      randomBytes,
      builtin,
      audit,
      origin,
      sessions,
      proxy,
      signInLinks: signInLinks(configuration.authProviders),
      redirectSignIn: signInRedirect(configuration.authProviders),
      ...(options.signInThrottle === undefined ? {} : { signInThrottle: options.signInThrottle }),
      ...(options.passwordHashing === undefined ? {} : { passwordHashing: options.passwordHashing }),
    }),
    idp: idp.handlers,
    home: homeHandler((request) => browser.authenticate(request)),
    console: consoleHandlers({ sessions: browser, proxy }),
    ready: shared.ready,
    hostRoutes: (options.routes ?? []).map((r) => hostRoute(r, routeContext)),
    providers,
    pages,
  });
  const proxyGate = createProxyGate({
    providers: configuration.authProviders,
    audit,
    now,
    ...(options.auditCoalesceWindowSeconds === undefined ? {} : { auditCoalesceWindowSeconds: positiveInteger(options.auditCoalesceWindowSeconds, 'auditCoalesceWindowSeconds') }),
    ...(options.auditCoalesceMaxNetworks === undefined ? {} : { auditCoalesceMaxNetworks: positiveInteger(options.auditCoalesceMaxNetworks, 'auditCoalesceMaxNetworks') }),
  });
  return {
    configuration,
    sessions: browser,
    externalURL,
    table,
    proxyGate,
    async createAccessToken(actor, subjectId, scopes, note) {
      const created = await issueAccessToken({ store, now, randomBytes, audit }, actor, subjectId, scopes, note, null);
      return 'secret' in created ? { id: created.record.id, token: created.secret } : { error: created.message };
    },
  };
}

/** Records an audit entry with the clock's time, and logs it. */
function auditSink(store: Store, now: () => number, log: (entry: LogEntry) => void): (entry: AuditEvent) => Promise<void> {
  return async (entry) => {
    const stored = await store.audit.append({ ...entry, timestamp: now() });
    log({
      level: 'info',
      event: 'audit',
      id: stored.id,
      entity: stored.entity,
      action: stored.action,
      reason: stored.reason,
      actorUserId: stored.actorUserId,
      subjectUserId: stored.subjectUserId,
      impersonatedUserId: stored.impersonatedUserId ?? null,
      provider: stored.details['provider'] ?? null,
    });
  };
}

/**
 * The optional peers this configuration needs are loaded on first use; a missing one is logged now, at start,
 * naming the package to install (the entry point refuses to start without a provider's package).
 */
function reportMissingPeers(configuration: SiteConfiguration, log: (entry: LogEntry) => void): void {
  void checkOptionalPeers(configuration)
    .then((problems) => {
      for (const p of problems) {
        log({ level: p.fatal ? 'error' : 'warn', event: 'missing_peer', package: p.package, neededFor: p.neededFor, message: p.message });
      }
    })
    .catch(() => undefined);
}

/** A route the host added, as a table entry. */
function hostRoute(r: GatehouseRoute, context: RouteContext): StreamRoute {
  return {
    methods: r.method === null ? 'any' : [r.method],
    path: r.path,
    stream: async (req, res, url) => {
      await r.handle(req, res, url, context);
      return true;
    },
  };
}

/** The URLs of the configured code host providers (the default code host connections). */
function codeHostUrls(providers: readonly AuthProvider[]): readonly string[] {
  return providers.flatMap((p) =>
    match(p)
      .returnType<readonly string[]>()
      .with({ type: 'hosta' }, { type: 'hostb' }, { type: 'hostcserver' }, { type: 'hostccloud' }, (c) =>
        c.url === undefined || c.url === '' ? [] : [c.url],
      )
      .with({ type: 'builtin' }, { type: 'reviewhost' }, { type: 'openidconnect' }, { type: 'http-header' }, { type: 'saml' }, () => [])
      .exhaustive(),
  );
}

/**
 * A positive safe-integer option value, or a start-time error naming the option.
 *
 * @param value - The option's value.
 * @param name - The option's name.
 * @returns The value.
 *
 * @example
 * ```ts
 * positiveInteger(options.purge?.batchSize ?? 1000, 'purge.batchSize');
 * ```
 */
export function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer.`);
  return value;
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
