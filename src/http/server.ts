/**
 * gatehouse/http: the core embedded in a minimal `node:http` server. It translates requests into core
 * inputs and core results into responses, and holds no policy of its own.
 *
 * Routes: `POST /.api/graphql` (spec §4), `GET /debug/console` (GraphiQL), `/.auth/sign-in`, `/.auth/sign-up`,
 * `/.auth/sign-out` (built-in password), `/.auth/idp/oauth/authorize`, `/.auth/idp/oauth/token`,
 * `/.auth/idp/oauth/revoke` and `/.well-known/oauth-authorization-server` (the OAuth authorization server), the sign-in flows of the providers in `auth.providers` (`/.auth/<type>/login`,
 * `/.auth/<type>/callback`, `/.auth/callback`, `/.auth/saml/acs`), the "Account security" page
 * (`/settings/security`), the probes `GET /healthz` and `GET /readyz` (no authentication), plus any
 * {@link GatehouseRoute} the host adds.
 *
 * @module
 */
import { randomBytes as nodeRandomBytes, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { match } from 'ts-pattern';
import type { AuthProvider, BuiltinProvider } from '../core/auth-providers.js';
import { DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, DEFAULT_AUDIT_RETENTION_DAYS } from '../core/audit-retention.js';
import {
  DEFAULT_MAX_PENDING_SIGN_INS,
  DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT,
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_PURGE_INTERVAL_SECONDS,
} from '../core/quotas.js';
import { parseSiteConfiguration } from '../core/site-configuration.js';
import type { SiteConfiguration } from '../core/site-configuration.js';
import { authFailureResponse, createAuthenticator } from './authenticate.js';
import type { Authentication } from './authenticate.js';
import { serveConsole } from './console.js';
import { createGraphQLEndpoint, DEFAULT_DOCUMENT_LIMITS } from './graphql-endpoint.js';
import type { DocumentLimits } from './graphql-endpoint.js';
import { BASE_HEADERS, canRespond, sendJson, sendRedirect } from './http-io.js';
import { decideHost } from './host-check.js';
import type { HostDecision, LocalEndpoint } from './host-check.js';
import { createOAuthIdp, OAUTH_METADATA_PATH } from './oauth-idp.js';
import { checkOptionalPeers } from './optional-peers.js';
import { ACCEPTED_REQUEST_ENCODINGS, readRequestBody } from './request-body.js';
import type { RequestBodyError } from './request-body.js';
import { createGatehouseSchema, issueAccessToken } from './schema.js';
import type { Viewer } from './schema.js';
import { createDirectorySearch } from './search.js';
import type { SearchFunction } from './search.js';
import { createAccountSecurity } from './providers/account-security.js';
import { sendMessagePage } from './providers/sign-in-page.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from './providers/code-hosts.js';
import type { PublicCodeHostURLs } from './providers/code-hosts.js';
import { createSiteSignIn } from './providers/site-sign-in.js';
import { createSessions } from './sessions.js';
import type { Sessions, SignInThrottleOptions } from './sessions.js';
import type { PasswordHashingLimits } from './hashing-limiter.js';
import { createMemoryStore } from './store.js';
import type { AuditEvent, Store, UserRecord } from './store.js';
import { createPurger } from './purge.js';
import type { PurgeReport } from './purge.js';
import { captureRefusalReason, createPinoLog, runInRequest, withRequestId } from './logging.js';
import type { LogEntry } from './logging.js';
import { authenticationScheme, createMetrics } from './metrics.js';
import type { GatehouseMetrics } from './metrics.js';
import { reportStoreErrors } from './store-errors.js';

export { createMemoryStore } from './store.js';
export { createPinoLog } from './logging.js';
export type { LogDestination, LogEntry, PinoLogOptions } from './logging.js';
export type { GatehouseMetrics } from './metrics.js';
export type {
  AccessTokenRecord,
  AuditEntry,
  AuditQuery,
  AuditEvent,
  EmailRecord,
  ExternalAccountRecord,
  MemoryStoreOptions,
  NewAccessToken,
  NewAuditEntry,
  NewUser,
  ProviderCredentialRecord,
  SessionRecord,
  Store,
  StoreError,
  UserRecord,
} from './store.js';
export type { PurgeReport } from './purge.js';
export { countLiteralMatches, createDirectorySearch } from './search.js';
export type { DirectorySearchOptions, SearchFunction, SearchResults } from './search.js';
export type { GatehouseContext, Viewer } from './schema.js';
export type { ProxyVerdict, SignInPageLink, SignInThrottleOptions, Sessions } from './sessions.js';
export { DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY } from './sessions.js';
export { DEFAULT_PASSWORD_HASHING_LIMITS } from './hashing-limiter.js';
export type { PasswordHashingLimits } from './hashing-limiter.js';
export { DEFAULT_PUBLIC_CODE_HOST_URLS } from './providers/code-hosts.js';
export type { PublicCodeHostURLs } from './providers/code-hosts.js';
export { DEFAULT_DOCUMENT_LIMITS } from './graphql-endpoint.js';
export { checkOptionalPeers } from './optional-peers.js';
export type { OptionalPeerCheckOptions, OptionalPeerProblem } from './optional-peers.js';
export type { DocumentLimits } from './graphql-endpoint.js';
export { createMemoryOAuthStore } from './oauth-idp.js';
export type {
  IssuedOAuthTokens,
  OAuthAppRecord,
  OAuthStore,
  StoredOAuthAccessToken,
  StoredRefreshToken,
} from './oauth-idp.js';

/**
 * What a route handler added by the host receives.
 *
 * @example
 * ```ts
 * const route: GatehouseRoute = {
 *   method: 'GET', path: '/.auth/hosta/callback',
 *   handle: async (req, res, url, ctx) => { const cookie = await ctx.sessions.start(req, userId); … },
 * };
 * ```
 */
export interface RouteContext {
  /** The store. */
  readonly store: Store;
  /** The parsed site configuration. */
  readonly configuration: SiteConfiguration;
  /** The session layer (start a session after a successful sign-in). */
  readonly sessions: Sessions;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** The log sink. */
  readonly log: (entry: LogEntry) => void;
}

/**
 * A route the host adds (for example a provider's login and callback routes). Matched after the built-in
 * API and session routes, before the console.
 *
 * @example
 * ```ts
 * const health: GatehouseRoute = { method: 'GET', path: '/healthz', handle: async (_req, res) => { res.end('ok'); } };
 * ```
 */
export interface GatehouseRoute {
  /** The HTTP method, or `null` for any. */
  readonly method: string | null;
  /** The exact path, or a predicate on the path. */
  readonly path: string | ((pathname: string) => boolean);
  /** Serves the request. */
  readonly handle: (req: IncomingMessage, res: ServerResponse, url: URL, context: RouteContext) => Promise<void>;
}

/**
 * Options of {@link createGatehouseServer}. Every one has a default.
 *
 * @example
 * ```ts
 * const options: GatehouseServerOptions = {
 *   siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
 *   now: () => 1_700_000_000_000,
 * };
 * ```
 */
export interface GatehouseServerOptions {
  /** The site configuration, as JSONC text or parsed. Default: no providers, default limits. */
  readonly siteConfiguration?: string | SiteConfiguration;
  /** The store. Default: a new in-memory store. */
  readonly store?: Store;
  /** The host's search. Default: counts literal matches in the files of `searchDirectory`. */
  readonly search?: SearchFunction;
  /** The directory the default search reads. Default: none (every search has 0 matches). */
  readonly searchDirectory?: string | null;
  /** The clock, milliseconds since the epoch. Default: `Date.now`. */
  readonly now?: () => number;
  /** The random source. Default: `node:crypto` `randomBytes`. */
  readonly randomBytes?: (n: number) => Uint8Array;
  /**
   * The log sink. Default: {@link createPinoLog} (pino JSON lines with time and level on standard error, level from
   * `LOG_LEVEL`). Entries logged while a request is served carry its `requestId`.
   */
  readonly log?: (entry: LogEntry) => void;
  /** Largest accepted API request body in bytes (larger: 413). Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Bounds on GraphQL document text. Default {@link DEFAULT_DOCUMENT_LIMITS}. */
  readonly documentLimits?: DocumentLimits;
  /**
   * The most `search` fields one GraphQL operation may select (aliases and fragments counted), checked before it
   * runs (400 beyond it). Default 5.
   */
  readonly maxSearchFields?: number;
  /** Browser session lifetime in seconds. Default 7 days. */
  readonly sessionTtlSeconds?: number;
  /**
   * How failed password sign-ins at `/.auth/sign-in` are throttled (`429` with `Retry-After`). Default: per
   * username, 5 free failures, then 1 s doubling up to 15 minutes; per client address, 20 free failures, then
   * 1 s doubling up to 1 minute; at most 100 000 keys per table, a throttled record never evicted (a full table
   * evicts its oldest un-throttled record; see {@link SignInThrottleOptions.maxEntries}).
   */
  readonly signInThrottle?: SignInThrottleOptions;
  /**
   * Bounds of password hashing (scrypt, at sign-in and sign-up): hashes at once, hashes waiting, places per
   * client address. Beyond them an attempt is answered `503` with `Retry-After: 1`. Default
   * {@link DEFAULT_PASSWORD_HASHING_LIMITS} (2, 32, 8).
   */
  readonly passwordHashing?: PasswordHashingLimits;
  /** Lifetime of OAuth access tokens in seconds. Default: the OAuth server's (3600). */
  readonly oauthAccessTokenTtlSeconds?: number;
  /**
   * How many days audit entries are kept after their last occurrence; older ones are purged. Entries are kept by
   * age only, never evicted by count. Default 90.
   */
  readonly auditRetentionDays?: number;
  /**
   * Identical unsupported-`Authorization`-scheme entries (§6 rule 1) from one client network within one window of
   * this many seconds are one audit entry with a `count` and first/last times. Default 60.
   */
  readonly auditCoalesceWindowSeconds?: number;
  /**
   * How many client networks get their own coalesced unsupported-scheme entry per window; failures from further
   * networks in that window are counted in one entry whose `clientAddress` is `other-networks`, so a distributed
   * flood adds at most this many plus one entries per window. Default 1,000.
   */
  readonly auditCoalesceMaxNetworks?: number;
  /** How many browser sessions one account holds at most; a new one revokes the oldest. Default 50. */
  readonly maxSessionsPerAccount?: number;
  /**
   * How many provider sign-ins (OAuth/OpenID Connect `state`, SAML request) one client network may have pending;
   * past it, the client's own oldest pending sign-in is dropped (never another client's). Default 100.
   */
  readonly maxPendingSignInsPerClient?: number;
  /**
   * How many provider sign-ins may be pending server-wide; past it the client network holding the most loses its
   * oldest to a client that holds fewer, and a new one is refused with 503 when no network holds more than the
   * newcomer would. Default 100,000.
   */
  readonly maxPendingSignIns?: number;
  /**
   * The purge of expired sessions, expired authorization codes and audit entries past retention: how often it
   * runs (seconds; the timer never keeps the process alive and stops on `close()`) and how many records one batch
   * removes at most. Defaults 60 s and 1,000.
   */
  readonly purge?: {
    /** Seconds between runs. Default 60. */
    readonly intervalSeconds?: number;
    /** Most records removed per batch. Default 1,000. */
    readonly batchSize?: number;
  };
  /** Extra routes of the host. The provider sign-in flows of `auth.providers` are mounted without them. */
  readonly routes?: readonly GatehouseRoute[];
  /** `fetch` for every request to a provider or review host. Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /**
   * Base URLs of the public code host editions, for `hosta`/`hostccloud` entries with an empty `url`. Default
   * {@link DEFAULT_PUBLIC_CODE_HOST_URLS}; each one given overrides its default.
   */
  readonly publicCodeHostURLs?: PublicCodeHostURLs;
  /**
   * The 32-byte AES-256-GCM key that seals review host credentials at rest. Default: random at start (stored
   * credentials then do not survive a restart, which only matters with a persistent store).
   */
  readonly credentialsKey?: Uint8Array;
  /**
   * The URLs of the code host connections; a `reviewhost` is offered on the Account security page only when its
   * `url` matches one (spec §2.5). Default: the `url`s of the configured code host providers.
   */
  readonly codeHostConnectionUrls?: readonly string[];
  /**
   * Timeouts in milliseconds: the `node:http` server's, used by {@link GatehouseServer.listen}, and the one of the
   * server's own calls to providers.
   */
  readonly timeouts?: {
    /** Whole request (headers and body) must arrive within this. Default 30 s. */
    readonly requestMs?: number;
    /** Headers must arrive within this. Default 10 s. */
    readonly headersMs?: number;
    /** Idle keep-alive connections close after this. Default 5 s. */
    readonly keepAliveMs?: number;
    /** How often the server checks the two timeouts above. Default 1 s. */
    readonly checkIntervalMs?: number;
    /**
     * Each call to a provider or review host (the code exchange, each page of a code host's API, each OpenID
     * Connect step, the review host credential check) must finish within this; one that does not has failed
     * (a sign-in failure page; membership lists marked incomplete). Default 10 s.
     */
    readonly upstreamMs?: number;
    /**
     * How long {@link GatehouseServer.shutdown} lets in-flight requests finish before it closes their
     * connections. Default 10 s.
     */
    readonly drainMs?: number;
  };
}

/**
 * The outcome of {@link GatehouseServer.reload}: the new configuration serves new requests, or it was refused
 * (every problem with its JSON path) and the previous one keeps running.
 *
 * @example
 * ```ts
 * const r: ReloadResult = { kind: 'invalid', problems: [{ path: 'rateLimits.graphQLMaxDepth', message: '…' }] };
 * ```
 */
export type ReloadResult =
  | { readonly kind: 'reloaded'; readonly warnings: readonly string[] }
  | { readonly kind: 'invalid'; readonly problems: readonly { readonly path: string; readonly message: string }[] };

/**
 * A running (or ready-to-run) gatehouse server.
 *
 * @example
 * ```ts
 * const gatehouse = createGatehouseServer();
 * const { url } = await gatehouse.listen(0);
 * await gatehouse.close();
 * ```
 */
export interface GatehouseServer {
  /** The `node:http` request listener (use it with your own server, or call {@link GatehouseServer.listen}). */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The store. */
  readonly store: Store;
  /** The parsed site configuration. */
  readonly configuration: SiteConfiguration;
  /** The session layer. */
  readonly sessions: Sessions;
  /** Starts a `node:http` server on `port` (0: any free port) and `host` (default 127.0.0.1). */
  listen(port?: number, host?: string): Promise<{ readonly url: string; readonly server: Server }>;
  /** Stops the purge timer and the server started by `listen`, if any, closing idle and active connections. */
  close(): Promise<void>;
  /** Runs one purge of expired sessions, authorization codes and audit entries past retention now. */
  purgeExpired(): Promise<PurgeReport>;
  /**
   * Graceful stop: the server started by `listen` stops accepting connections, lets in-flight requests finish for
   * up to `drainMs` (default `timeouts.drainMs`, 10 s), then closes what remains; then the store is closed, if it
   * has a `close` method.
   */
  shutdown(drainMs?: number): Promise<void>;
  /**
   * Applies a new site configuration to new requests (requests already running finish with the old one). The
   * store, the keys and the metrics are kept; the configuration-derived parts (providers, sign-in flows, query
   * cost limits) are rebuilt and swapped at once. An invalid configuration changes nothing; every problem is logged
   * (one `configuration_problem` line each, with its `path`, then `configuration_rejected`) and returned.
   */
  reload(siteConfiguration: string | SiteConfiguration): ReloadResult;
  /** Whether the server can serve: the store answers (what `GET /readyz` reports). */
  ready(): Promise<boolean>;
  /** The server's Prometheus metrics (not served by `listener`; see `GatehouseMetrics.listener`). */
  readonly metrics: GatehouseMetrics;
  /**
   * Creates an access token for an account as `actor` would (the core decides), returning the secret once.
   * Used to seed an administrator token at start-up.
   */
  createAccessToken(
    actor: UserRecord,
    subjectId: string,
    scopes: readonly string[],
    note: string,
  ): Promise<{ readonly id: string; readonly token: string } | { readonly error: string }>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const SIGN_IN_PATH = '/.auth/sign-in';

/** Default of `timeouts.drainMs`. */
const DEFAULT_DRAIN_MS = 10_000;
/** How long `GET /readyz` waits for the store. */
const READY_TIMEOUT_MS = 2_000;

function loadConfiguration(input: string | SiteConfiguration | undefined): SiteConfiguration {
  if (input !== undefined && typeof input !== 'string') return input;
  const parsed = parseSiteConfiguration(input ?? '{}');
  if (parsed.isOk()) return parsed.value;
  const lines = parsed.error.problems.map((p) => `- ${p.message}`);
  throw new Error(`Invalid site configuration:\n${lines.join('\n')}`);
}

function bodyErrorStatus(error: RequestBodyError): { readonly status: number; readonly message: string } {
  return match(error)
    .returnType<{ readonly status: number; readonly message: string }>()
    .with({ code: 'body_too_large' }, (e) => ({ status: 413, message: `Request body exceeds ${e.limit} bytes.` }))
    .with({ code: 'invalid_utf8' }, () => ({ status: 400, message: 'Request body is not valid UTF-8.' }))
    .with({ code: 'unsupported_encoding' }, () => ({
      status: 415,
      message: `Content-Encoding must be one of ${ACCEPTED_REQUEST_ENCODINGS} or identity.`,
    }))
    .with({ code: 'invalid_compressed_body' }, (e) => ({ status: 400, message: `Request body is not valid ${e.encoding} data.` }))
    .with({ code: 'aborted' }, () => ({ status: 400, message: 'Request body is incomplete.' }))
    .exhaustive();
}

/**
 * Creates the gatehouse server.
 *
 * @param options - Site configuration, store, search, clock, random source, log sink and limits.
 * @returns The server: its request listener, store, and `listen`/`close`.
 * @throws Error when `siteConfiguration` is text that does not parse; the message lists every problem.
 *
 * @example
 * ```ts
 * const gatehouse = createGatehouseServer({
 *   siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }',
 * });
 * const { url } = await gatehouse.listen(3080);
 * const res = await fetch(`${url}/.api/graphql`, {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json', authorization: `token ${secret}` },
 *   body: JSON.stringify({ query: '{ currentUser { username } }' }),
 * });
 * ```
 */
export function createGatehouseServer(options: GatehouseServerOptions = {}): GatehouseServer {
  const store = options.store ?? createMemoryStore();
  const randomBytes = options.randomBytes ?? ((n: number): Uint8Array => new Uint8Array(nodeRandomBytes(n)));
  const credentialsKey = options.credentialsKey ?? randomBytes(32);
  if (credentialsKey.length !== 32) throw new Error('credentialsKey must be 32 bytes (AES-256-GCM).');
  const metrics = createMetrics();
  const sink = options.log ?? createPinoLog();
  // Every event is counted (the metrics are derived from the events) and then logged.
  const log = withRequestId((entry: LogEntry): void => {
    metrics.observe(entry);
    sink(entry);
  });
  let listeningURL: string | null = null;
  const shared: SharedParts = {
    store: reportStoreErrors(store, log),
    randomBytes,
    credentialsKey,
    log,
    listeningURL: () => listeningURL,
  };
  let site = createSite(loadConfiguration(options.siteConfiguration), options, shared);
  // One purge timer per server, whatever reloads happen: it works on the shared store.
  const purger = createPurger({
    store,
    now: options.now ?? Date.now,
    auditRetentionDays: positiveNumber(options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS, 'auditRetentionDays'),
    intervalMs: positiveNumber(options.purge?.intervalSeconds ?? DEFAULT_PURGE_INTERVAL_SECONDS, 'purge.intervalSeconds') * 1000,
    batchSize: positiveInteger(options.purge?.batchSize ?? DEFAULT_PURGE_BATCH_SIZE, 'purge.batchSize'),
    onError: (error) => log({ level: 'error', event: 'purge_failed', name: error instanceof Error ? error.name : typeof error }),
  });
  const drainMs = options.timeouts?.drainMs ?? DEFAULT_DRAIN_MS;
  const inFlight = new Set<ServerResponse>();
  let draining = false;

  const ready = async (): Promise<boolean> => {
    if (draining) return false;
    const probe = shared.store as Store & { readonly ready?: () => Promise<boolean> };
    const answer = typeof probe.ready === 'function' ? probe.ready() : probe.getUser('readyz-probe').then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
    });
    const result = await Promise.race([answer.catch(() => false), late]);
    clearTimeout(timer);
    return result;
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const requestId = randomUUID();
    const current = site;
    const reason = captureRefusalReason(res);
    inFlight.add(res);
    res.setHeader('x-request-id', requestId);
    // while draining, a keep-alive connection is closed after its answer
    if (draining) res.setHeader('connection', 'close');
    res.on('close', () => inFlight.delete(res));
    res.on('finish', () => {
      log({
        level: 'info',
        event: 'request',
        requestId,
        method: req.method ?? '',
        path: pathOnly(req.url),
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        reason: reason(),
      });
    });
    runInRequest(requestId, () => {
      const path = pathOnly(req.url);
      if ((path === '/healthz' || path === '/readyz') && (req.method === 'GET' || req.method === 'HEAD')) {
        // Probes: never authenticated, and they say nothing but up or ready.
        const answer = path === '/healthz' ? Promise.resolve(true) : ready();
        void answer.then((up) => sendJson(res, up ? 200 : 503, { status: up ? 'ok' : 'unavailable' }, { 'cache-control': 'no-store' }));
        return;
      }
      current.handle(req, res).catch((error: unknown) => {
        log({ level: 'error', event: 'internal_error', name: error instanceof Error ? error.name : typeof error, path: pathOnly(req.url) });
        sendJson(res, 500, { errors: [{ message: 'Internal server error.' }] }, { connection: 'close' });
      });
    });
  };

  let server: Server | null = null;

  const gatehouse: GatehouseServer = {
    listener,
    store,
    get configuration() {
      return site.configuration;
    },
    get sessions() {
      return site.sessions;
    },
    metrics,
    ready,
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const s = createServer(
          {
            requestTimeout: options.timeouts?.requestMs ?? 30_000,
            headersTimeout: options.timeouts?.headersMs ?? 10_000,
            connectionsCheckingInterval: options.timeouts?.checkIntervalMs ?? 1_000,
          },
          listener,
        );
        s.keepAliveTimeout = options.timeouts?.keepAliveMs ?? 5_000;
        s.on('clientError', (error: Error & { readonly code?: string }, socket: Socket) => answerClientError(error, socket, log));
        s.once('error', reject);
        s.listen(port, host, () => {
          s.removeListener('error', reject);
          server = s;
          const address = s.address() as AddressInfo; // listen() on a TCP port always gives an AddressInfo
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          listeningURL = `http://${shownHost}:${address.port}`;
          resolve({ url: listeningURL, server: s });
        });
      });
    },
    close() {
      purger.stop();
      const s = server;
      server = null;
      if (s === null) return Promise.resolve();
      return new Promise((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
    purgeExpired() {
      return purger.run();
    },
    async shutdown(timeoutMs = drainMs) {
      draining = true;
      purger.stop();
      const s = server;
      server = null;
      if (s !== null) {
        await new Promise<void>((resolve) => {
          // in-flight answers not yet started close their connection when done; idle connections close now
          for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
          const timer = setTimeout(() => s.closeAllConnections(), timeoutMs);
          s.close(() => {
            clearTimeout(timer);
            resolve();
          });
          s.closeIdleConnections();
          s.on('request', (_req: IncomingMessage, res: ServerResponse) => res.on('finish', () => setImmediate(() => s.closeIdleConnections())));
          for (const res of inFlight) res.on('finish', () => setImmediate(() => s.closeIdleConnections()));
        });
      }
      const closable = store as Store & { readonly close?: () => unknown };
      if (typeof closable.close === 'function') await closable.close();
    },
    reload(input) {
      let configuration: SiteConfiguration;
      if (typeof input === 'string') {
        const parsed = parseSiteConfiguration(input);
        if (parsed.isErr()) {
          const problems = parsed.error.problems.map((p) => ({ path: p.path, message: p.message }));
          for (const problem of problems) log({ level: 'error', event: 'configuration_problem', path: problem.path, message: problem.message });
          log({ level: 'error', event: 'configuration_rejected', problems: problems.length });
          return { kind: 'invalid', problems };
        }
        configuration = parsed.value;
      } else {
        configuration = input;
      }
      site = createSite(configuration, options, shared);
      const warnings = configuration.warnings.map((w) => w.message);
      for (const warning of warnings) log({ level: 'warn', event: 'configuration_warning', message: warning });
      log({ level: 'info', event: 'configuration_reloaded', providers: configuration.authProviders.length });
      return { kind: 'reloaded', warnings };
    },
    createAccessToken(actor, subjectId, scopes, note) {
      return site.createAccessToken(actor, subjectId, scopes, note);
    },
  };
  return gatehouse;
}

/** What every configuration of one server shares: a reload keeps them. */
interface SharedParts {
  readonly store: Store;
  readonly randomBytes: (n: number) => Uint8Array;
  readonly credentialsKey: Uint8Array;
  readonly log: (entry: LogEntry) => void;
  readonly listeningURL: () => string | null;
}

/** The configuration-derived part of a server, rebuilt by a reload. */
interface Site {
  readonly configuration: SiteConfiguration;
  readonly sessions: Sessions;
  readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  readonly createAccessToken: GatehouseServer['createAccessToken'];
}

/** Builds everything that depends on the site configuration, around the shared store, keys and log. */
function createSite(configuration: SiteConfiguration, options: GatehouseServerOptions, shared: SharedParts): Site {
  const { store, randomBytes, log, credentialsKey } = shared;
  const now = options.now ?? Date.now;
  const search = options.search ?? createDirectorySearch(options.searchDirectory ?? null);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const externalURL = configuration.externalURL ?? null;
  const origin = externalURL === null ? null : safeOrigin(externalURL);
  const builtin = configuration.authProviders.find((p): p is BuiltinProvider => p.type === 'builtin') ?? null;
  // The optional peers this configuration needs are loaded on first use; a missing one is logged now, at start,
  // naming the package to install (the entry point refuses to start without a provider's package).
  void checkOptionalPeers(configuration)
    .then((problems) => {
      for (const p of problems) {
        log({ level: p.fatal ? 'error' : 'warn', event: 'missing_peer', package: p.package, neededFor: p.neededFor, message: p.message });
      }
    })
    .catch(() => undefined);

  const auditCoalesceWindowSeconds = positiveInteger(
    options.auditCoalesceWindowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS,
    'auditCoalesceWindowSeconds',
  );
  const auditCoalesceMaxNetworks = positiveInteger(
    options.auditCoalesceMaxNetworks ?? DEFAULT_AUDIT_COALESCE_MAX_NETWORKS,
    'auditCoalesceMaxNetworks',
  );
  const pendingSignIns = {
    maxPerClient: positiveInteger(options.maxPendingSignInsPerClient ?? DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT, 'maxPendingSignInsPerClient'),
    maxTotal: positiveInteger(options.maxPendingSignIns ?? DEFAULT_MAX_PENDING_SIGN_INS, 'maxPendingSignIns'),
  };

  const audit = async (entry: AuditEvent): Promise<void> => {
    const stored = await store.appendAudit({ ...entry, timestamp: now() });
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

  const signIn = createSiteSignIn({
    store,
    providers: configuration.authProviders,
    now,
    randomBytes,
    audit,
    externalURL: () => externalURL ?? shared.listeningURL(),
    sessions: () => sessions,
    pendingSignIns,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.timeouts?.upstreamMs === undefined ? {} : { upstreamTimeoutMs: options.timeouts.upstreamMs }),
    publicURLs: { ...DEFAULT_PUBLIC_CODE_HOST_URLS, ...options.publicCodeHostURLs },
  });
  const hasProxy = configuration.authProviders.some((p) => p.type === 'http-header');

  const sessions = createSessions({
    store,
    now,
    randomBytes,
    secureCookies: externalURL !== null && externalURL.toLowerCase().startsWith('https:'),
    builtin,
    audit,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 7 * 24 * 3600,
    origin,
    signInLinks: signIn.links,
    redirectSignIn: signIn.redirectTo,
    ...(hasProxy ? { proxy: (req: IncomingMessage) => signIn.proxy(req) } : {}),
    ...(options.signInThrottle === undefined ? {} : { signInThrottle: options.signInThrottle }),
    ...(options.maxSessionsPerAccount === undefined ? {} : { maxSessionsPerAccount: options.maxSessionsPerAccount }),
    ...(options.passwordHashing === undefined ? {} : { passwordHashing: options.passwordHashing }),
  });

  const accountSecurity = createAccountSecurity({
    store,
    providers: configuration.authProviders,
    sessions,
    now,
    randomBytes,
    audit,
    credentialsKey,
    codeHostConnectionUrls: options.codeHostConnectionUrls ?? codeHostUrls(configuration.authProviders),
    links: signIn.links,
    origin,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.timeouts?.upstreamMs === undefined ? {} : { upstreamTimeoutMs: options.timeouts.upstreamMs }),
  });

  const idp = createOAuthIdp({
    store: store.oauth,
    now,
    randomBytes,
    ...(options.oauthAccessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: options.oauthAccessTokenTtlSeconds }),
    authenticateBrowser: async (req) => {
      const user = await sessions.authenticate(req);
      return user === null ? null : { userId: user.id };
    },
    signInPath: SIGN_IN_PATH,
    audit: (entry) => audit({ ...entry, details: {} }),
    issuer: () => externalURL ?? shared.listeningURL(),
  });

  const services = {
    store,
    now,
    randomBytes,
    search,
    audit,
    registerOAuthApp: (input: Parameters<typeof idp.registerApp>[0]) => idp.registerApp(input),
    authPublic: configuration.authPublic,
  };
  const schema = createGatehouseSchema(services);
  const graphql = createGraphQLEndpoint({
    schema,
    queryLimits: configuration.queryLimits,
    documentLimits: options.documentLimits ?? DEFAULT_DOCUMENT_LIMITS,
    ...(options.maxSearchFields === undefined ? {} : { maxSearchFields: options.maxSearchFields }),
    onLimitExceeded: (limit) => log({ level: 'info', event: 'query_cost_refused', limit }),
  });
  const authenticate = createAuthenticator({
    store,
    sessions,
    now,
    audit,
    verifyBearer: (token) => idp.verifyAccessToken(token),
    auditCoalesceWindowSeconds,
    auditCoalesceMaxNetworks,
  });
  const routeContext: RouteContext = { store, configuration, sessions, now, randomBytes, audit, log };
  const routes = options.routes ?? [];

  async function handleGraphQL(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // The answer depends on who asks (§5.1): a shared cache must not hand one caller's answer to another.
    res.setHeader('vary', 'Authorization');
    const method = req.method ?? '';
    if (method !== 'GET' && method !== 'POST') {
      sendJson(res, 405, { errors: [{ message: 'Use POST (or GET for queries).' }] }, { allow: 'GET, POST' });
      return;
    }
    const auth: Authentication = await authenticate(req);
    log({
      level: 'info',
      event: 'authentication',
      scheme: auth.kind === 'viewer' && auth.viewer.kind === 'user' ? auth.viewer.via : authenticationScheme(req.headers),
      result: auth.kind === 'refuse' ? auth.failure.code : auth.viewer.kind === 'user' ? 'ok' : 'anonymous',
    });
    if (auth.kind === 'refuse') {
      const answer = authFailureResponse(auth.failure);
      // the body is not read: close the connection rather than drain it
      sendJson(res, answer.status, { errors: [{ message: answer.message, extensions: { code: answer.code } }] }, {
        ...(answer.status === 401 ? { 'www-authenticate': 'token realm="gatehouse", Bearer realm="gatehouse"' } : {}),
        connection: 'close',
      });
      return;
    }
    let body: string | null = null;
    if (method === 'POST') {
      // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset is refused rather than misread.
      if (!declaresUtf8OrNoCharset(req.headers['content-type'])) {
        sendJson(res, 415, { errors: [{ message: 'The request body must be JSON in UTF-8.' }] }, { connection: 'close' });
        return;
      }
      const read = await readRequestBody(req, maxBodyBytes);
      if (read.isErr()) {
        if (read.error.code === 'aborted') return;
        const answer = bodyErrorStatus(read.error);
        sendJson(res, answer.status, { errors: [{ message: answer.message }] }, {
          connection: 'close',
          ...(answer.status === 415 ? { 'accept-encoding': ACCEPTED_REQUEST_ENCODINGS } : {}),
        });
        return;
      }
      body = read.value === '' ? null : read.value;
    }
    const viewer: Viewer = auth.viewer;
    const [responseBody, init] = await graphql({
      method,
      url: url.pathname + url.search,
      // §4: "a JSON body is sent with the request", whatever its declared type: `curl -d` declares
      // application/x-www-form-urlencoded, fetch with a string text/plain, and some clients none. The body is
      // read as JSON in every case (graphql-http parses only application/json). Cross-site posts stay out:
      // a cookie-authenticated request still needs the X-Requested-With header (authenticate.ts).
      headers: method === 'POST' ? { ...req.headers, 'content-type': 'application/json' } : req.headers,
      body,
      raw: req,
      context: viewer,
    });
    if (!canRespond(res)) return;
    if (responseBody === null && init.status >= 400) {
      // graphql-http's content-negotiation refusals (405, 406, 415) carry no body: say what went wrong
      sendJson(res, init.status, { errors: [{ message: `${init.statusText ?? 'Request refused'}.` }] }, init.headers ?? {});
      return;
    }
    const headers: Record<string, string> = { ...BASE_HEADERS, ...init.headers };
    if (responseBody !== null) headers['content-length'] = String(Buffer.byteLength(responseBody));
    res.writeHead(init.status, init.statusText, headers);
    res.end(responseBody ?? undefined);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // DNS rebinding: a request is answered only when its Host names this server (before any route runs)
    const host = decideHost(req.headers.host, externalURL, localEndpoint(req));
    if (host.kind === 'refuse') {
      sendMisdirected(req, res, host);
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://gatehouse.invalid');
    } catch {
      sendJson(res, 400, { error: { code: 'bad_url', message: 'The request URL is malformed.' } });
      return;
    }
    const path = url.pathname;
    if (path === '/.api/graphql') return handleGraphQL(req, res, url);
    if (await sessions.handle(req, res, url)) return;
    if ((path.startsWith('/.auth/idp/') || path === OAUTH_METADATA_PATH) && (await idp.handle(req, res, url))) return;
    const method = req.method ?? '';
    for (const route of routes) {
      const pathMatches = typeof route.path === 'string' ? route.path === path : route.path(path);
      if (pathMatches && (route.method === null || route.method === method)) {
        await route.handle(req, res, url, routeContext);
        return;
      }
    }
    if (path.startsWith('/.auth/') && (await signIn.handle(req, res, url))) return;
    if (await accountSecurity.handle(req, res, url)) return;
    if (path === '/debug/console' || path.startsWith('/debug/console/')) {
      // A person the authentication proxy names but the sign-in decision refuses sees why (§5.3 http-header).
      const verdict = hasProxy && path === '/debug/console' ? await signIn.proxy(req) : null;
      if (verdict !== null && verdict.kind === 'denied') {
        sendMessagePage(res, 403, 'Sign-in failed', verdict.message);
        return;
      }
      const user = verdict !== null && verdict.kind === 'user' ? verdict.user : await sessions.authenticate(req);
      // a path under the console that is neither the page nor an asset falls through to the 404 below
      if (await serveConsole(path, method, res, user?.username ?? null)) return;
    }
    if (path === '/' && (method === 'GET' || method === 'HEAD')) {
      sendRedirect(res, '/debug/console');
      return;
    }
    sendJson(res, 404, { error: { code: 'not_found', message: 'Not found.' } });
  }

  return {
    configuration,
    sessions,
    handle,
    async createAccessToken(actor, subjectId, scopes, note) {
      const created = await issueAccessToken({ store, now, randomBytes, audit }, actor, subjectId, scopes, note, null);
      return 'secret' in created ? { id: created.record.id, token: created.secret } : { error: created.message };
    },
  };
}

/**
 * Answers a request that Node's HTTP parser or its timeouts refused before gatehouse saw it, as Node would
 * (431 for oversized headers, 408 for a timeout, 400 otherwise), but with a JSON error and a log line.
 */
function answerClientError(error: Error & { readonly code?: string }, socket: Socket, log: (entry: LogEntry) => void): void {
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  log({ level: 'info', event: 'client_error', code: error.code ?? 'unknown', status });
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const message = { 400: 'The request is not valid HTTP.', 408: 'The request took too long to arrive.', 431: 'The request headers are too large.' }[status];
  const body = JSON.stringify({ errors: [{ message }] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The local end of the request's connection, or `null` when its socket has no IP address (a Unix socket, a double). */
function localEndpoint(req: IncomingMessage): LocalEndpoint | null {
  // a request double may come without a socket
  const socket: Socket | undefined = req.socket;
  const address = socket?.localAddress;
  const port = socket?.localPort;
  if (socket === undefined || typeof address !== 'string' || address === '' || typeof port !== 'number') return null;
  return { address, port, encrypted: 'encrypted' in socket && socket.encrypted === true };
}

/** Answers 421 Misdirected Request to a request whose Host does not name this server. */
function sendMisdirected(req: IncomingMessage, res: ServerResponse, decision: Extract<HostDecision, { readonly kind: 'refuse' }>): void {
  const shown = (req.headers.host ?? '').slice(0, 100);
  const message = match(decision.reason)
    .returnType<string>()
    .with('missing_host', () => 'The request has no Host header; this server answers only requests that name it.')
    .with('malformed_host', () => 'The Host header is malformed.')
    .with(
      'unknown_host',
      () => `This server does not answer for the host "${shown}" (a DNS rebinding guard). Use its externalURL, or the address it listens on.`,
    )
    .exhaustive();
  const body = pathOnly(req.url) === '/.api/graphql'
    ? { errors: [{ message, extensions: { code: 'MISDIRECTED_REQUEST' } }] }
    : { error: { code: 'misdirected_request', message } };
  sendJson(res, 421, body, { connection: 'close' });
}

/** Whether a `Content-Type` header names no charset, or UTF-8. */
function declaresUtf8OrNoCharset(contentType: string | undefined): boolean {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name, value] = parameter.split('=').map((part) => part.trim().toLowerCase().replace(/^"|"$/g, ''));
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}

/** The path of a request URL without its query string (query strings may carry codes and states). */
function pathOnly(raw: string | undefined): string {
  const value = raw ?? '/';
  const q = value.indexOf('?');
  return (q < 0 ? value : value.slice(0, q)).slice(0, 200);
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

/** A positive finite option value, or a start-time error naming the option. */
function positiveNumber(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number.`);
  return value;
}

/** A positive safe-integer option value, or a start-time error naming the option. */
function positiveInteger(value: number, name: string): number {
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
