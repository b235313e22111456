/**
 * The public shapes of the server: its options, the host's routes, and the running server's methods.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { SiteConfiguration } from 'gatehouse-auth';
import type { DocumentLimits } from './api/endpoint.js';
import type { PasswordHashingLimits } from './sign-in/hashing-limiter.js';
import type { LogEntry } from './kernel/logging.js';
import type { GatehouseMetrics } from './kernel/metrics.js';
import type { SignInThrottleOptions } from './sign-in/password.js';
import type { PublicCodeHostURLs } from './providers/code-hosts.js';
import type { PurgeReport } from './store/purge.js';
import type { SearchFunction } from './api/search.js';
import type { Sessions } from './session/sessions.js';
import type { AuditEvent, Store, UserRecord } from './store/types.js';
import type { TokenCache } from './store/token-cache.js';

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
  /**
   * Records an audit entry: into `into`, the store of the transaction that makes the change (so that the change is
   * undone when its entry cannot be written), or into `store` when `into` is left out.
   */
  readonly audit: (entry: AuditEvent, into?: Store) => Promise<void>;
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
  /**
   * Where every piece of state is kept: a {@link Store} (the store contract of `store/types.ts`), such as
   * `createPostgresStore`'s. Default: `createMemoryStore()`, which loses everything when the process exits.
   */
  readonly store?: Store;
  /**
   * How long, in milliseconds of wall-clock time, an access token and its owner are answered from this instance's
   * cache: the longest a token deleted (or an account changed) on another instance stays usable here. A change made
   * through this instance is seen at once. `0` turns the cache off (every API request reads the store). Default 1000.
   */
  readonly tokenCacheTtlMs?: number;
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
  /** Browser session lifetime in seconds, overriding the site option `auth.sessionExpiry`. Default: that option (2160h). */
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
  /**
   * The outbox and its sender (mail goes out only when the site configuration sets `email.smtp`): the most mails
   * queued (default 1,000), attempts per mail before it is given up (default 8), the pause after the first failure
   * (default 30 s, doubled after each further failure up to `retryMaxMs`, default 1 h), and how often the sender
   * looks at the outbox without being woken (default 30 s; it is woken after every mail queued).
   */
  readonly mail?: {
    /** The most mails the outbox holds. Default 1,000. */
    readonly capacity?: number;
    /** Attempts per mail. Default 8. */
    readonly maxAttempts?: number;
    /** Milliseconds before the first retry. Default 30,000. */
    readonly retryBaseMs?: number;
    /** The longest pause between attempts, in milliseconds. Default 3,600,000. */
    readonly retryMaxMs?: number;
    /** Milliseconds between the sender's rounds. Default 30,000. */
    readonly intervalMs?: number;
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
   * The 32-byte AES-256-GCM key that seals review host credentials at rest, and (through a key derived from it)
   * the body of each queued mail. Default: random at start (stored credentials and queued mail then do not survive
   * a restart, which only matters with a persistent store; give instances on one database the same key).
   */
  readonly credentialsKey?: Uint8Array;
  /**
   * The 32 bytes from which the key sealing each queued mail's body is derived, when it is not `credentialsKey`
   * (`gatehouse serve` passes `GATEHOUSE_MAIL_KEY`, or on the embedded store without either key its `mail.key` file's).
   */
  readonly mailKey?: Uint8Array;
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
  /** The store: `options.store` (or the memory store) behind the server's one-second access token cache. */
  readonly store: Store;
  /**
   * The server's token cache (`null` with `tokenCacheTtlMs: 0`): call `invalidateUser` when another instance
   * reports an account changed, so that what this instance cached for it is forgotten at once.
   */
  readonly tokenCache: TokenCache | null;
  /**
   * Writes at once the `sudo` audit entries counted but not yet written (they are written once a second off the
   * request path, and at `close` and `shutdown`).
   */
  flushAudit(): Promise<void>;
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
   * (one `configuration_problem` line each, with its `path`, then `configuration_rejected`) and returned, and the
   * Site configuration page shows the refusal (its time, `source.file` and problems) until a valid one applies.
   */
  reload(siteConfiguration: string | SiteConfiguration, source?: { readonly file?: string }): ReloadResult;
  /**
   * As {@link GatehouseServer.reload}, but first previews the new configuration over every stored account and refuses
   * one that would lock out every site administrator who can sign in now (no `builtin` provider for their password
   * and no administrator identity still allowed): the refusal is logged and shown like an invalid file, and the
   * running configuration stays. What `gatehouse serve` does when its configuration file changes or on `SIGHUP`.
   * Reloads through it run one at a time. When the store cannot be read, the configuration applies (a warning is
   * logged: `configuration_lockout_unchecked`).
   */
  reloadGuarded(siteConfiguration: string, source?: { readonly file?: string }): Promise<ReloadResult>;
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
