/**
 * The configuration-derived part of a server: its dependencies built once, in order (audit, sessions, the
 * providers' sign-in flows, the proxy, account security, the OAuth server, the schema, the authenticator), then
 * the route table made of their handlers. A reload builds a new site around the same store, keys and log.
 *
 * @module
 */
import { match } from 'ts-pattern';
import { decideAccountUse, DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, DEFAULT_MAX_PENDING_SIGN_INS, DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT, providerSignsIn } from 'gatehouse-auth';
import type { AuthProvider, BuiltinProvider, SiteConfiguration } from 'gatehouse-auth';
import { createAuthenticator } from './api/authenticate.js';
import { consoleHandlers } from './console/console.js';
import { createGraphQLEndpoint, DEFAULT_DOCUMENT_LIMITS, graphqlHandler } from './api/endpoint.js';
import type { LogEntry } from './kernel/logging.js';
import { createOAuthIdp } from './oauth-server/server.js';
import { homeHandler, passwordHandlers, SIGN_IN_PATH } from './sign-in/password.js';
import { afterCommit } from './store/audited.js';
import type { AuditSink } from './store/audited.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from './providers/code-hosts.js';
import type { ProviderSignInInput } from './sign-in/flow-context.js';
import { proxySignIn } from './sign-in/proxy.js';
import { createProxyRefusals } from './sign-in/proxy-refusal.js';
import { refusalPage } from './sign-in/refusal.js';
import { signInRoutes } from './sign-in/routes.js';
import type { SignInRouteDeps } from './sign-in/flow-context.js';
import { accountSecurityRoutes, type AccountSecurityDeps } from './settings/account-security.js';
import { checkReviewhostCredentials } from './providers/reviewhost.js';
import { reportingFetch } from './providers/call-failures.js';
import { checkStart } from './providers/start-checks.js';
import { signInLinks, signInRedirect } from './pages/sign-in-links.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './providers/upstream.js';
import { runSignIn } from './sign-in/flow.js';
import type { SignInFlowDeps } from './sign-in/flow.js';
import type { RouteTableEntry, StreamRoute } from './kernel/router.js';
import { routeTable } from './routes.js';
import { assetRoutes } from './pages/assets.js';
import type { PageDeps } from './pages/page-routes.js';
import { settingsRoutes } from './settings/routes.js';
import { emailRoutes } from './settings/emails.js';
import { siteAdminRoutes } from './site-admin/routes.js';
import { createGatehouseSchema } from './api/schema.js';
import { issueAccessToken, issueAccessTokenFailure } from './operations/access-tokens.js';
import { createDirectorySearch } from './api/search.js';
import type { GatehouseRoute, GatehouseServer, GatehouseServerOptions, RouteContext } from './types.js';
import { createSessions, withProxy } from './session/sessions.js';
import type { ProxyCheck, Sessions } from './session/sessions.js';
import type { AuditEntry, AuditEvent, Store, UserRecord } from './store/types.js';
import type { TokenCache } from './store/token-cache.js';
import type { AuditBatch } from './store/audit-batch.js';
import { createProxyGate } from './sign-in/proxy-gate.js';
import type { ProxyGate } from './sign-in/proxy-gate.js';
import type { RejectedReload } from './site-admin/rejected-reload.js';
import type { MailQueue } from './operations/mail.js';
import { accountLinkPorts } from './operations/account-link-ports.js';
import { mailUnlockLink, makeResetLinkAsAdmin } from './operations/password-reset.js';
import type { AccountLinkDeps } from './operations/password-reset.js';
import { accountLinkPages } from './sign-in/account-link-pages.js';
import { previewConfiguration } from './operations/configuration-preview.js';

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
  /** The server's token cache, which also answers the account a `token-sudo` header names (none: the store). */
  readonly tokenCache?: TokenCache | null;
  /** Where `sudo` audit entries are counted and written off the request path (none: one append per request). */
  readonly sudoAudit?: AuditBatch;
  /** The outbox's queue and its sender's nudge (`operations/mail.ts`); absent: mail is never queued. */
  readonly mailQueue?: MailQueue;
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
  // a builtin entry with `noSignIn` neither signs in nor signs up (the Password page still sets passwords)
  const builtin = configuration.authProviders.find((p): p is BuiltinProvider => p.type === 'builtin' && providerSignsIn(p)) ?? null;
  const audit = auditSink(now, log);
  const sessions = createSessions({
    store,
    now,
    randomBytes,
    secureCookies,
    // auth.sessionExpiry and auth.sessionIdleTimeout (a host's sessionTtlSeconds overrides the expiry)
    sessionTtlSeconds: options.sessionTtlSeconds ?? Math.floor(configuration.accountOptions.sessionLifetime.expiryMs / 1000),
    idleTimeoutMs: configuration.accountOptions.sessionLifetime.idleTimeoutMs,
    ...(options.maxSessionsPerAccount === undefined ? {} : { maxSessionsPerAccount: options.maxSessionsPerAccount }),
  });
  const signInFlow: SignInFlowDeps = { store, now, randomBytes };
  // `into` is the store of the transaction that also writes the sign-in's session and audit entry
  const signIn = (input: ProviderSignInInput, into: Store): ReturnType<typeof runSignIn> => runSignIn({ ...signInFlow, store: into }, input);
  // a refused proxy identity: one reference code, explanation and coalesced audit entry per identity and window
  const proxyRefusals = createProxyRefusals({
    store,
    now,
    randomBytes,
    audit,
    ...(options.auditCoalesceWindowSeconds === undefined ? {} : { windowSeconds: positiveInteger(options.auditCoalesceWindowSeconds, 'auditCoalesceWindowSeconds') }),
  });
  // The proxy check reads only the request's headers, a repeated one as its list (§5.3 `http-header`).
  const proxy: ProxyCheck | null = configuration.authProviders.some((p) => p.type === 'http-header' && providerSignsIn(p))
    ? (request) => proxySignIn({ providers: configuration.authProviders, store, signIn, audit, refusals: proxyRefusals }, request.headersDistinct ?? request.headers)
    : null;
  const browser = withProxy(sessions, proxy);
  const fetchUpstream = options.fetch ?? fetch;
  const upstreamTimeoutMs = options.timeouts?.upstreamMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const providerDeps: SignInRouteDeps & AccountSecurityDeps = {
    providers: configuration.authProviders,
    externalURL: () => externalURL ?? shared.listeningURL(),
    store,
    now,
    randomBytes,
    audit,
    fetch: fetchUpstream,
    log,
    upstreamTimeoutMs,
    publicURLs: { ...DEFAULT_PUBLIC_CODE_HOST_URLS, ...options.publicCodeHostURLs },
    pendingSignIns: {
      maxPerClient: positiveInteger(options.maxPendingSignInsPerClient ?? DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT, 'maxPendingSignInsPerClient'),
      maxTotal: positiveInteger(options.maxPendingSignIns ?? DEFAULT_MAX_PENDING_SIGN_INS, 'maxPendingSignIns'),
    },
    currentUserId: async (request) => (await browser.authenticate(request))?.id ?? null,
    currentUser: (request) => browser.authenticate(request),
    signIn,
    startSession: (request, userId, into) => sessions.startCookie(request, userId, into),
    credentialsKey: shared.credentialsKey,
    codeHostConnectionUrls: options.codeHostConnectionUrls ?? codeHostUrls(configuration.authProviders),
    origin,
    sessions,
    secureCookies,
    configuration,
    checkReviewhostCredentials: (url: string, username: string, password: string) =>
      checkReviewhostCredentials(url, username, password, reportingFetch(fetchUpstream, 'reviewhost', log), upstreamTimeoutMs),
  };
  // password reset, the first administrator's and unlock links: single-use, digest-only, mailed through the outbox
  const linkDeps: AccountLinkDeps = {
    store,
    now,
    audit,
    ports: accountLinkPorts({ store, mailQueue: shared.mailQueue ?? null, now, randomBytes, baseURL: () => externalURL ?? shared.listeningURL() ?? '' }),
    expiry: () => configuration,
    passwordRule: configuration.accountOptions.passwordRule,
  };
  const providers = [
    ...signInRoutes(providerDeps),
    ...accountSecurityRoutes(providerDeps),
    ...accountLinkPages({ ...linkDeps, randomBytes, origin, secureCookies, log }),
  ];
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
    accountUsable: async (userId) => {
      const user = await store.accounts.get(userId);
      return user !== null && decideAccountUse({ suspended: user.suspendedAt !== undefined, use: 'oauth_token' }).kind === 'allow';
    },
    transactionStore: store,
    audit: (entry, into) => audit({ details: {}, ...entry }, into ?? store),
    issuer: () => externalURL ?? shared.listeningURL(),
    pages: { randomBytes, secureCookies, origin },
  });
  const schema = createGatehouseSchema({
    store,
    now,
    randomBytes,
    search: options.search ?? createDirectorySearch(options.searchDirectory ?? null),
    audit,
    registerOAuthApp: (input, into) => idp.registerApp(input, into),
    authPublic: configuration.authPublic,
    authProviders: configuration.authProviders,
    passwordResetLink: (admin, userId, sink) => makeResetLinkAsAdmin({ ...linkDeps, audit: sink }, admin, userId),
    previewConfiguration: (text) => previewConfiguration(store, configuration, text),
    accessTokenOptions: configuration.accountOptions.accessTokens,
    siteConfiguration: configuration,
  });
  const authenticate = createAuthenticator({
    store,
    sessions: browser,
    now,
    // a refused or sudo authentication changes nothing: its entry is an event, written at once
    audit: (entry) => audit(entry, store),
    verifyBearer: (token) => idp.verifyAccessToken(token),
    ...(shared.tokenCache === undefined || shared.tokenCache === null
      ? {}
      : { findSudoTarget: cachedLookup(shared.tokenCache, (key: string) => store.accounts.findByUsernameKey(key)) }),
    ...(shared.sudoAudit === undefined ? {} : { recordSudo: recordIn(shared.sudoAudit) }),
    auditCoalesceWindowSeconds: positiveInteger(options.auditCoalesceWindowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, 'auditCoalesceWindowSeconds'),
    auditCoalesceMaxNetworks: positiveInteger(options.auditCoalesceMaxNetworks ?? DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, 'auditCoalesceMaxNetworks'),
  });
  const endpoint = createGraphQLEndpoint({
    schema,
    queryLimits: configuration.queryLimits,
    documentLimits: options.documentLimits ?? DEFAULT_DOCUMENT_LIMITS,
    ...(options.maxSearchFields === undefined ? {} : { maxSearchFields: options.maxSearchFields }),
    onLimitExceeded: (limit, requestId) => log({ level: 'info', event: 'query_cost_refused', limit, requestId }),
    // the answer says only "Internal server error."; what failed is told here
    onInternalError: (error, field, requestId) =>
      log({ level: 'error', event: 'internal_error', name: error instanceof Error ? error.name : typeof error, path: '/.api/graphql', field, requestId }),
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
  const emailVerification = { mail: shared.mailQueue ?? null, baseURL: () => externalURL ?? shared.listeningURL() ?? 'http://127.0.0.1' };
  const siteAdmin = siteAdminRoutes({
    ...pageDeps,
    emailVerification,
    registerOAuthApp: (input, into) => idp.registerApp(input, into),
    rotateOAuthAppSecret: (clientId, into) => idp.rotateSecret(clientId, into),
    listeningURL: () => shared.listeningURL(),
    startChecks: (listeningURL: string) => checkStart({ configuration, listeningURL, publicURLs: providerDeps.publicURLs }),
    ...(shared.rejectedReload === undefined ? {} : { rejectedReload: shared.rejectedReload }),
    passwordResetLink: (admin, userId, sink) => makeResetLinkAsAdmin({ ...linkDeps, audit: sink }, admin, userId),
    previewConfiguration: (text) => previewConfiguration(store, configuration, text),
  });
  const emails = emailRoutes(pageDeps, emailVerification);
  const pages = [...assetRoutes(), ...settingsRoutes(pageDeps), ...emails, ...siteAdmin];
  const routeContext: RouteContext = { store, configuration, sessions: browser, now, randomBytes, audit: (entry, into) => audit(entry, into ?? store), log };
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
      emailVerification,
      lockout: configuration.lockout,
      // the owner of an account just locked is mailed its unlock link; a failure is logged, never the sign-in's
      onLocked: async (user) => {
        await mailUnlockLink(linkDeps, user).catch((error: unknown) => log({ level: 'error', event: 'unlock_link_failed', name: error instanceof Error ? error.name : typeof error }));
      },
      passwordRule: configuration.accountOptions.passwordRule,
    }),
    idp: idp.handlers,
    home: homeHandler((request) => browser.authenticate(request)),
    console: consoleHandlers({ sessions: browser, proxy, refusalPage: (message, refusal) => refusalPage(message, { ...refusal, details: {} }, { backToSignIn: false }) }),
    ready: shared.ready,
    hostRoutes: (options.routes ?? []).map((r) => hostRoute(r, routeContext)),
    providers,
    pages,
  });
  const proxyGate = createProxyGate({
    providers: configuration.authProviders,
    audit: (event) => audit(event, store),
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
      return created.match(
        (c) => ({ id: c.record.id, token: c.secret }),
        (e) => ({ error: issueAccessTokenFailure(e).message }),
      );
    },
  };
}

/** Records an audit entry with the clock's time, and logs it. */
function auditSink(now: () => number, log: (entry: LogEntry) => void): AuditSink {
  return async (entry, into) => {
    const stored = await into.audit.append({ ...entry, timestamp: now() });
    // logged once the entry is kept: a transaction that is undone (or run again) logs nothing of its runs
    afterCommit(into, () => log(auditLine(stored)));
  };
}

/**
 * The log line of a stored audit entry.
 *
 * @param stored - The entry as the store keeps it.
 * @returns The `audit` log entry.
 *
 * @example
 * ```ts
 * log(auditLine(await store.audit.append(entry)));
 * ```
 */
export function auditLine(stored: AuditEntry): LogEntry {
  return {
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
    ...(stored.count === 1 ? {} : { count: stored.count }),
  };
}

/** The account a `token-sudo` header names, through the token cache. */
function cachedLookup(cache: TokenCache, load: (key: string) => Promise<UserRecord | null>): (key: string) => Promise<UserRecord | null> {
  return (key) => cache.userByName(key, load);
}

/** Counts a `sudo` use in the batch: the request goes on at once. */
function recordIn(batch: AuditBatch): (key: string, entry: AuditEvent) => Promise<void> {
  return (key, entry) => batch.record(key, entry);
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
