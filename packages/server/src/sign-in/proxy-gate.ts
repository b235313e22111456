/**
 * The guard in front of an HTTP authentication proxy (spec §5.3 `http-header`): its identity headers mean "this
 * person signed in at the proxy" only when the proxy sent them. A request that carries one of them but whose peer
 * is not one of the site's `trustedProxies` is refused with 401 before any route runs, and audited (coalesced per
 * client network and window, as the unsupported-scheme entries are, so a flood adds one entry with a count).
 *
 * @module
 */
import { DEFAULT_AUDIT_COALESCE_MAX_NETWORKS, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS, auditCoalescingKey, auditWindowOf, clientNetwork, UNTRUSTED_PROXY_HEADERS_AUDIT } from 'gatehouse-auth';
import type { AuthProvider, HttpHeaderProvider, ClientAddress } from 'gatehouse-auth';
import { createAuditNetworkTracker } from '../kernel/audit-networks.js';
import { errorResponse } from '../kernel/respond.js';
import type { RouteResponse } from '../kernel/route.js';
import type { AuditEvent } from '../store/types.js';

/**
 * What {@link createProxyGate} needs.
 *
 * @example
 * ```ts
 * const options: ProxyGateOptions = { providers, audit, now: Date.now };
 * ```
 */
export interface ProxyGateOptions {
  /** The configured providers; only `http-header` entries have identity headers. */
  readonly providers: readonly AuthProvider[];
  /** Records an audit entry. */
  readonly audit: (event: AuditEvent) => Promise<void>;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The coalescing window in seconds (default 60). */
  readonly auditCoalesceWindowSeconds?: number;
  /** Client networks with their own entry per window (default 1,000). */
  readonly auditCoalesceMaxNetworks?: number;
}

/**
 * The request facts the gate reads.
 *
 * @example
 * ```ts
 * const request: GatedRequest = { path: '/.api/graphql', headers: req.headers, client };
 * ```
 */
export interface GatedRequest {
  /** The request path (the refusal's shape depends on it). */
  readonly path: string;
  /** The request headers by lower-case name. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The request's client, as the listener worked it out. */
  readonly client: ClientAddress;
}

/**
 * The gate: `null` to let the request through, or the refusal to answer it with.
 *
 * @example
 * ```ts
 * const refusal = gate === null ? null : await gate({ path, headers: req.headers, client });
 * ```
 */
export type ProxyGate = (request: GatedRequest) => Promise<RouteResponse | null>;

/**
 * The lower-case names of the identity headers of the `http-header` providers.
 *
 * @param providers - The configured providers.
 * @returns The names, each once.
 *
 * @example
 * ```ts
 * identityHeaderNames([{ type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email', allowSignup: true }]);
 * // ['x-forwarded-user', 'x-forwarded-email']
 * ```
 */
export function identityHeaderNames(providers: readonly AuthProvider[]): readonly string[] {
  const names = providers
    .filter((p): p is HttpHeaderProvider => p.type === 'http-header')
    .flatMap((p) => [p.usernameHeader, p.emailHeader])
    .filter((name): name is string => name !== undefined)
    .map((name) => name.toLowerCase());
  return [...new Set(names)];
}

/**
 * Creates the gate of a site, or `null` when no `http-header` provider is configured (no header means anything).
 *
 * @param options - Providers, audit sink, clock and coalescing bounds.
 * @returns The gate, or `null`.
 *
 * @example
 * ```ts
 * const gate = createProxyGate({ providers: configuration.authProviders, audit, now: Date.now });
 * await gate?.({ path: '/', headers: { 'x-forwarded-email': 'admin@corp.example' }, client }); // a 401 response from an untrusted peer
 * ```
 */
export function createProxyGate(options: ProxyGateOptions): ProxyGate | null {
  const names = identityHeaderNames(options.providers);
  if (names.length === 0) return null;
  const windowSeconds = options.auditCoalesceWindowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS;
  const networks = createAuditNetworkTracker(options.auditCoalesceMaxNetworks ?? DEFAULT_AUDIT_COALESCE_MAX_NETWORKS);
  return async ({ path, headers, client }) => {
    if (client.peerTrusted) return null;
    const sent = names.filter((name) => headers[name] !== undefined);
    if (sent.length === 0) return null;
    const at = options.now();
    const network = networks.clientFor(clientNetwork(client.address).unwrapOr('unknown'), auditWindowOf(at, windowSeconds));
    const entry = {
      ...UNTRUSTED_PROXY_HEADERS_AUDIT,
      actorUserId: null,
      subjectUserId: null,
      details: { provider: 'http-header', clientAddress: network, headers: sent.join(',') },
    };
    const key = auditCoalescingKey({ entry, client: network, at, windowSeconds }).unwrapOr(null);
    await options.audit(key === null ? entry : { ...entry, coalesceKey: key });
    return errorResponse(path, 401, 'untrusted_proxy_headers', 'Identity headers are accepted only from a trusted proxy (trustedProxies).');
  };
}
