/**
 * gatehouse/http: the core embedded in a minimal `node:http` server. It translates requests into core
 * inputs and core results into responses, and holds no policy of its own.
 *
 * Every route is listed in one table (`routes.ts`): `POST /.api/graphql` (spec §4), `GET /debug/console`
 * (GraphiQL), `/.auth/sign-in`, `/.auth/sign-up`, `/.auth/sign-out` (built-in password),
 * `/.auth/idp/oauth/authorize`, `/.auth/idp/oauth/token`, `/.auth/idp/oauth/revoke` and
 * `/.well-known/oauth-authorization-server` (the OAuth authorization server), the sign-in flows of the providers
 * in `auth.providers` (`/.auth/<type>/login`, `/.auth/<type>/callback`, `/.auth/callback`, `/.auth/saml/acs`),
 * the "Account security" page (`/settings/security`), the probes `GET /healthz` and `GET /readyz` (no
 * authentication), plus any {@link GatehouseRoute} the host adds. The router (`router.ts`) matches a request
 * against it and the one writer (`respond.ts`) writes the handler's value.
 *
 * @module
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { match } from 'ts-pattern';
import { DEFAULT_AUDIT_RETENTION_DAYS, DEFAULT_MAIL_QUEUE_CAPACITY, DEFAULT_PURGE_BATCH_SIZE, DEFAULT_PURGE_INTERVAL_SECONDS, parseSiteConfiguration } from 'gatehouse-auth';
import type { SiteConfiguration, ClientAddress, PreviewTally } from 'gatehouse-auth';
import { locksOutSiteAdmins } from 'gatehouse-auth';
import { LOCKOUT_PROBLEM, tallyConfigurationPreview } from './operations/configuration-preview.js';
import { GRAPHQL_PATH } from './api/endpoint.js';
import { createHostCheck } from './kernel/host-check.js';
import { createRequestIds } from './kernel/request-id.js';
import type { HostDecision, LocalEndpoint } from './kernel/host-check.js';
import { createPinoLog, refusalReasonOf, runInRequest, withRequestId } from './kernel/logging.js';
import type { LogEntry, RequestContext } from './kernel/logging.js';
import { createMetrics } from './kernel/metrics.js';
import { createMailSender } from './mail/sender.js';
import { mailSealing } from './store/sealed-mail.js';
import type { MailSenderOptions } from './mail/sender.js';
import type { MailQueue } from './operations/mail.js';
import { createPurger } from './store/purge.js';
import type { Purger } from './store/purge.js';
import { errorResponse, jsonResponse, writeResponse } from './kernel/respond.js';
import type { RouteResponse } from './kernel/route.js';
import { route, routeLabelOf } from './kernel/router.js';
import { requestClient } from './kernel/client-address.js';
import { databaseUnavailableResponse, isDatabaseUnavailable } from './kernel/database-unavailable.js';
import { PROBE_PATHS } from './routes.js';
import type { GatehouseServer, GatehouseServerOptions, ReloadResult } from './types.js';
import { auditLine, createSite, positiveInteger } from './site.js';
import type { SharedParts, Site } from './site.js';
import { createMemoryStore } from './store/memory/store.js';
import type { Store } from './store/types.js';
import { createTokenCache, DEFAULT_TOKEN_CACHE_TTL_MS, withTokenCache } from './store/token-cache.js';
import { createAuditBatch } from './store/audit-batch.js';
import { reportStoreErrors } from './store/errors.js';
import type { RejectedReload } from './site-admin/rejected-reload.js';


/** Default of `timeouts.drainMs`. */
const DEFAULT_DRAIN_MS = 10_000;
/** How long `GET /readyz` waits for the store. */
const READY_TIMEOUT_MS = 2_000;
/** The base a request URL is resolved against when no `externalURL` is configured. */
const LOCAL_BASE = 'http://gatehouse.invalid';

function loadConfiguration(input: string | SiteConfiguration | undefined): SiteConfiguration {
  if (input !== undefined && typeof input !== 'string') return input;
  const parsed = parseSiteConfiguration(input ?? '{}');
  if (parsed.isOk()) return parsed.value;
  const lines = parsed.error.problems.map((p) => `- ${p.message}`);
  throw new Error(`Invalid site configuration:\n${lines.join('\n')}`);
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
  // Every piece of state lives in one store (by default in memory). Access tokens and their owners are
  // cached for one second of wall-clock time (token-cache.ts; the bound on what another instance's change may take
  // to be seen, so it is not the injected clock); what this instance deletes or changes is forgotten at once.
  const given = options.store ?? createMemoryStore();
  const tokenCacheTtlMs = options.tokenCacheTtlMs ?? DEFAULT_TOKEN_CACHE_TTL_MS;
  if (!Number.isFinite(tokenCacheTtlMs) || tokenCacheTtlMs < 0) throw new Error('tokenCacheTtlMs must be a number of milliseconds, 0 or more.');
  const tokenCache = tokenCacheTtlMs === 0 ? null : createTokenCache({ now: Date.now, ttlMs: tokenCacheTtlMs });
  const store = tokenCache === null ? given : withTokenCache(given, tokenCache);
  // what another instance changed is forgotten here as soon as it commits (the store's change feed, if it has one)
  if (tokenCache !== null) given.onAccountChange?.((change) => (change.kind === 'account' ? tokenCache.invalidateUser(change.userId) : tokenCache.clear()));
  const randomBytes = options.randomBytes ?? ((n: number): Uint8Array => new Uint8Array(nodeRandomBytes(n)));
  const credentialsKey = options.credentialsKey ?? randomBytes(32);
  if (credentialsKey.length !== 32) throw new Error('credentialsKey must be 32 bytes (AES-256-GCM).');
  const metrics = createMetrics();
  const sink = options.log ?? createPinoLog();
  // Every event is counted (the metrics are derived from the events) and then logged.
  // the requests being answered, by id: an `authentication` event is noted in its request's context for the access line
  const requestContexts = new Map<string, RequestContext>();
  const log = withRequestId((entry: LogEntry): void => {
    metrics.observe(entry);
    if (entry.event === 'authentication') noteAuthentication(requestContexts, entry);
    sink(entry);
  });
  const state: ServerState = { listeningURL: null, server: null, draining: false, inFlight: new Set() };
  const checkedStore = reportStoreErrors(store, log);
  // `sudo` entries are counted per token and account acted as, and written once a second off the request path
  const sudoAudit = createAuditBatch({
    append: (entry) => checkedStore.audit.append(entry),
    now: options.now ?? Date.now,
    onStored: (stored) => log(auditLine(stored)),
    onError: (error) => log({ level: 'error', event: 'audit_batch_failed', name: error instanceof Error ? error.name : typeof error }),
  });
  // the last refused reload, shown on the Site configuration page until a valid configuration applies
  let rejected: RejectedReload | null = null;
  const shared: SharedParts = {
    store: checkedStore,
    randomBytes,
    credentialsKey,
    log,
    listeningURL: () => state.listeningURL,
    ready: () => (state.draining ? Promise.resolve(false) : storeAnswers(checkedStore)),
    rejectedReload: () => rejected,
    tokenCache,
    sudoAudit,
  };
  // One mail sender per server, whatever reloads happen: it reads the mail options in effect at every round.
  // queued mail bodies are sealed with a key derived from credentialsKey: the outbox holds no usable link
  const sealing = mailSealing(options.mailKey ?? credentialsKey, randomBytes);
  const mailSender = createMailSender({
    store: checkedStore,
    email: () => site.configuration.email,
    now: options.now ?? Date.now,
    log,
    open: sealing.open,
    ...definedMailOptions(options),
  });
  metrics.mailQueueDepth(() => checkedStore.outbox.count());
  const mailQueue: MailQueue = {
    enabled: () => site.configuration.email.smtp !== null,
    capacity: positiveInteger(options.mail?.capacity ?? DEFAULT_MAIL_QUEUE_CAPACITY, 'mail.capacity'),
    now: options.now ?? Date.now,
    log,
    wake: () => mailSender.wake(),
    seal: sealing.seal,
  };
  let site = createSite(loadConfiguration(options.siteConfiguration), options, { ...shared, mailQueue });
  // One purge timer per server, whatever reloads happen: it works on the shared store.
  const purger = createPurger({
    store,
    now: options.now ?? Date.now,
    auditRetentionDays: positiveNumber(options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS, 'auditRetentionDays'),
    intervalMs: positiveNumber(options.purge?.intervalSeconds ?? DEFAULT_PURGE_INTERVAL_SECONDS, 'purge.intervalSeconds') * 1000,
    batchSize: positiveInteger(options.purge?.batchSize ?? DEFAULT_PURGE_BATCH_SIZE, 'purge.batchSize'),
    onError: (error) => log({ level: 'error', event: 'purge_failed', name: error instanceof Error ? error.name : typeof error }),
  });
  const listener = createListener(() => site, state, log, requestContexts);
  let guarded: Promise<unknown> = Promise.resolve();
  const server: GatehouseServer = {
    listener,
    store,
    tokenCache,
    flushAudit: () => sudoAudit.flush(),
    get configuration() {
      return site.configuration;
    },
    get sessions() {
      return site.sessions;
    },
    metrics,
    ready: shared.ready,
    listen: (port = 0, host = '127.0.0.1') => listen(options, listener, state, log, port, host),
    async close() {
      purger.stop();
      void mailSender.stop();
      await closeServer(state);
      await sudoAudit.flush();
    },
    purgeExpired: () => purger.run(),
    async shutdown(timeoutMs = options.timeouts?.drainMs ?? DEFAULT_DRAIN_MS) {
      await drain(state, purger, timeoutMs);
      await sudoAudit.flush();
      await mailSender.stop();
      await store.close();
    },
    reload(input, source) {
      const reloaded = reloadSite(input, options, { ...shared, mailQueue }, log);
      if (reloaded.site !== null) site = reloaded.site;
      rejected =
        reloaded.result.kind === 'invalid' ? { at: (options.now ?? Date.now)(), file: source?.file ?? null, problems: reloaded.result.problems } : null;
      return reloaded.result;
    },
    createAccessToken: (actor, subjectId, scopes, note) => site.createAccessToken(actor, subjectId, scopes, note),
    reloadGuarded(text, source) {
      // guarded reloads run one at a time: each previews against the configuration the one before it left
      const next = guarded.then(async (): Promise<ReloadResult> => {
        const lockout = await checkLockout(checkedStore, site.configuration, text, log);
        if (lockout === null) return server.reload(text, source);
        rejected = { at: (options.now ?? Date.now)(), file: source?.file ?? null, problems: [lockout] };
        return { kind: 'invalid', problems: [lockout] };
      });
      guarded = next.catch(() => undefined);
      return next;
    },
  };
  return server;
}

/** The lockout problem of a candidate that would lock out every site administrator (logged), or `null`. */
async function checkLockout(
  store: Store,
  current: SiteConfiguration,
  text: string,
  log: (entry: LogEntry) => void,
): Promise<{ readonly path: string; readonly message: string } | null> {
  const parsed = parseSiteConfiguration(text);
  // an invalid candidate is refused by reload itself, with its problems
  if (parsed.isErr()) return null;
  let tally: PreviewTally;
  try {
    tally = await tallyConfigurationPreview(store, current, parsed.value);
  } catch {
    log({ level: 'warn', event: 'configuration_lockout_unchecked' });
    return null;
  }
  if (!locksOutSiteAdmins(tally)) return null;
  log({ level: 'error', event: 'configuration_problem', path: LOCKOUT_PROBLEM.path, message: LOCKOUT_PROBLEM.message });
  log({ level: 'error', event: 'configuration_rejected', problems: 1, reason: 'site_admin_lockout', siteAdmins: tally.siteAdmins });
  return LOCKOUT_PROBLEM;
}

/** The mutable state of one server: where it listens, and the requests it is answering. */
interface ServerState {
  listeningURL: string | null;
  server: Server | null;
  draining: boolean;
  readonly inFlight: Set<ServerResponse>;
}

/**
 * Whether the store answers within {@link READY_TIMEOUT_MS}: a round trip to its database (`Store.ping`) where it has
 * one, else a lookup (the memory store, always there).
 */
async function storeAnswers(store: Store): Promise<boolean> {
  const answer = store.ping === undefined ? store.accounts.get('readyz-probe').then(() => true) : store.ping().then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  const result = await Promise.race([answer.catch(() => false), late]);
  clearTimeout(timer);
  return result;
}

/** The `node:http` listener: request id, the request log line, then the host check and the route table. */
function createListener(
  site: () => Site,
  state: ServerState,
  log: (entry: LogEntry) => void,
  contexts: Map<string, RequestContext>,
): (req: IncomingMessage, res: ServerResponse) => void {
  // the Host check's targets are worked out once per external URL and local endpoint, not per request
  const hostCheck = createHostCheck();
  const nextRequestId = createRequestIds();
  return (req, res) => {
    const started = performance.now();
    const requestId = nextRequestId();
    const context: RequestContext = { requestId, authentication: null };
    contexts.set(requestId, context);
    const current = site();
    const path = pathOnly(req.url);
    // worked out once: every per-address bound, the audit log and this request's log line use the same address
    const client = requestClient(req, current.configuration.trustedProxies);
    state.inFlight.add(res);
    // The one writer names the request id with the rest of the headers (writeResponse); a route that writes the
    // response itself gets it from the router. While draining, a keep-alive connection is closed after its answer.
    if (state.draining) res.setHeader('connection', 'close');
    // 'close' follows 'finish' on every answered response, and also comes alone when the client left first
    res.on('close', () => {
      state.inFlight.delete(res);
      contexts.delete(requestId);
      if (!res.writableFinished) return;
      const authentication = context.authentication;
      const line = {
        level: 'info',
        event: 'request',
        requestId,
        method: req.method ?? '',
        path,
        route: routeLabelOf(res),
        clientAddress: client.address,
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
        reason: refusalReasonOf(res),
      } as const;
      // an API request's line also names its authentication (the default sink writes that event at debug level)
      log(authentication === null ? line : { ...line, scheme: authentication.scheme, auth: authentication.result });
    });
    // The API names its request id itself on what it logs (api/endpoint.ts), so it runs without the asynchronous
    // context every other route is served in (kernel/logging.ts `runInRequest`).
    const served =
      path === GRAPHQL_PATH
        ? serveOrFail(current, req, res, requestId, log, client, path, hostCheck)
        : runInRequest(context, () => serveOrFail(current, req, res, requestId, log, client, path, hostCheck));
    void served;
  };
}

/** {@link serve}, answering a failure of its own as `503` (database unreachable) or `500`, logged. */
function serveOrFail(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  log: (entry: LogEntry) => void,
  client: ClientAddress,
  path: string,
  hostCheck: ReturnType<typeof createHostCheck>,
): Promise<void> {
  return serve(site, req, res, requestId, log, client, path, hostCheck).catch((error: unknown) => {
    if (isDatabaseUnavailable(error)) {
      // the database cannot be reached: the client may send the request again shortly
      log({ level: 'warn', event: 'database_unavailable', path, requestId });
      writeResponse(res, databaseUnavailableResponse(path), { requestId, head: req.method === 'HEAD' });
      return;
    }
    // gatehouse's own failure, never the client's: logged, and answered 500
    log({ level: 'error', event: 'internal_error', name: error instanceof Error ? error.name : typeof error, path, requestId });
    writeResponse(res, errorResponse(path, 500, 'internal_error', 'Internal server error.', { connection: 'close' }), {
      requestId,
      head: req.method === 'HEAD',
    });
  });
}

/** Notes an `authentication` event in the context of the request it names. */
function noteAuthentication(contexts: ReadonlyMap<string, RequestContext>, entry: LogEntry): void {
  const requestId = entry['requestId'];
  const context = typeof requestId === 'string' ? contexts.get(requestId) : undefined;
  if (context !== undefined) context.authentication = { scheme: String(entry['scheme']), result: String(entry['result']) };
}

/**
 * Serves one request: the Host check (DNS rebinding; the probes are exempt), the URL, the proxy gate (identity
 * headers from a peer that is no trusted proxy; the probes are exempt), then the route table.
 */
async function serve(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  log: (entry: LogEntry) => void,
  client: ClientAddress,
  path: string,
  hostCheck: ReturnType<typeof createHostCheck>,
): Promise<void> {
  const head = req.method === 'HEAD';
  if (!PROBE_PATHS.includes(path)) {
    const host = hostCheck(req.headers.host, site.externalURL, localEndpoint(req));
    if (host.kind === 'refuse') return writeResponse(res, misdirected(req, host), { requestId, head });
  }
  const base = site.externalURL ?? LOCAL_BASE;
  let url: URL;
  try {
    url = new URL(req.url ?? '/', base);
  } catch {
    return writeResponse(res, jsonResponse(400, { error: { code: 'bad_url', message: 'The request URL is malformed.' } }), { requestId, head });
  }
  // the probes read no identity and answer everyone alike
  if (site.proxyGate !== null && !PROBE_PATHS.includes(url.pathname)) {
    const refused = await site.proxyGate({ path: url.pathname, headers: req.headers, client });
    if (refused !== null) return writeResponse(res, refused, { requestId, head });
  }
  await route(site.table, req, res, url, requestId, { base, log, clientAddress: client.address });
}

/** Starts a `node:http` server with the configured timeouts. */
function listen(
  options: GatehouseServerOptions,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  state: ServerState,
  log: (entry: LogEntry) => void,
  port: number,
  host: string,
): Promise<{ readonly url: string; readonly server: Server }> {
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
      state.server = s;
      const address = s.address() as AddressInfo; // listen() on a TCP port always gives an AddressInfo
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      state.listeningURL = `http://${shownHost}:${address.port}`;
      resolve({ url: state.listeningURL, server: s });
    });
  });
}

/** Stops the server started by `listen`, if any, closing idle and active connections. */
function closeServer(state: ServerState): Promise<void> {
  const s = state.server;
  state.server = null;
  if (s === null) return Promise.resolve();
  return new Promise((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });
}

/** Graceful stop: no new connections, in-flight requests finish within `timeoutMs`, then the rest are closed. */
async function drain(state: ServerState, purger: Purger, timeoutMs: number): Promise<void> {
  state.draining = true;
  purger.stop();
  const s = state.server;
  state.server = null;
  if (s === null) return;
  await new Promise<void>((resolve) => {
    // in-flight answers not yet started close their connection when done; idle connections close now
    for (const res of state.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    const timer = setTimeout(() => s.closeAllConnections(), timeoutMs);
    s.close(() => {
      clearTimeout(timer);
      resolve();
    });
    s.closeIdleConnections();
    s.on('request', (_req: IncomingMessage, res: ServerResponse) => res.on('finish', () => setImmediate(() => s.closeIdleConnections())));
    for (const res of state.inFlight) res.on('finish', () => setImmediate(() => s.closeIdleConnections()));
  });
}

/** A new site for a new configuration, or the problems that refuse it (each logged). */
function reloadSite(
  input: string | SiteConfiguration,
  options: GatehouseServerOptions,
  shared: SharedParts,
  log: (entry: LogEntry) => void,
): { readonly site: Site | null; readonly result: ReloadResult } {
  let configuration: SiteConfiguration;
  if (typeof input === 'string') {
    const parsed = parseSiteConfiguration(input);
    if (parsed.isErr()) {
      const problems = parsed.error.problems.map((p) => ({ path: p.path, message: p.message }));
      for (const problem of problems) log({ level: 'error', event: 'configuration_problem', path: problem.path, message: problem.message });
      log({ level: 'error', event: 'configuration_rejected', problems: problems.length });
      return { site: null, result: { kind: 'invalid', problems } };
    }
    configuration = parsed.value;
  } else {
    configuration = input;
  }
  const site = createSite(configuration, options, shared);
  const warnings = configuration.warnings.map((w) => w.message);
  for (const warning of warnings) log({ level: 'warn', event: 'configuration_warning', message: warning });
  log({ level: 'info', event: 'configuration_reloaded', providers: configuration.authProviders.length });
  return { site, result: { kind: 'reloaded', warnings } };
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

/** The 421 Misdirected Request answer to a request whose Host does not name this server. */
function misdirected(req: IncomingMessage, decision: Extract<HostDecision, { readonly kind: 'refuse' }>): RouteResponse {
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
  const body = pathOnly(req.url) === GRAPHQL_PATH
    ? { errors: [{ message, extensions: { code: 'MISDIRECTED_REQUEST' } }] }
    : { error: { code: 'misdirected_request', message } };
  return jsonResponse(421, body, { connection: 'close' });
}

/** The path of a request URL without its query string (query strings may carry codes and states). */
function pathOnly(raw: string | undefined): string {
  const value = raw ?? '/';
  const q = value.indexOf('?');
  return (q < 0 ? value : value.slice(0, q)).slice(0, 200);
}

/** A positive finite option value, or a start-time error naming the option. */
/** The mail options the server was given, without the absent ones (the sender's defaults apply to those). */
function definedMailOptions(options: GatehouseServerOptions): Pick<MailSenderOptions, 'maxAttempts' | 'retryBaseMs' | 'retryMaxMs' | 'intervalMs'> {
  const mail = options.mail ?? {};
  return {
    ...(mail.maxAttempts === undefined ? {} : { maxAttempts: positiveInteger(mail.maxAttempts, 'mail.maxAttempts') }),
    ...(mail.retryBaseMs === undefined ? {} : { retryBaseMs: positiveNumber(mail.retryBaseMs, 'mail.retryBaseMs') }),
    ...(mail.retryMaxMs === undefined ? {} : { retryMaxMs: positiveNumber(mail.retryMaxMs, 'mail.retryMaxMs') }),
    ...(mail.intervalMs === undefined ? {} : { intervalMs: positiveNumber(mail.intervalMs, 'mail.intervalMs') }),
  };
}

function positiveNumber(value: number, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number.`);
  return value;
}
