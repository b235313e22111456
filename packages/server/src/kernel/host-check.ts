/**
 * The `Host` check that keeps DNS rebinding out: a page on another site whose name an attacker points at
 * 127.0.0.1 makes the browser send that name in `Host`, so a request is answered only when its `Host` names
 * this server.
 *
 * @module
 */
import { isIP } from 'node:net';

/**
 * Where a request arrived: the local end of its connection.
 *
 * @example
 * ```ts
 * const local: LocalEndpoint = { address: '127.0.0.1', port: 3080, encrypted: false };
 * ```
 */
export interface LocalEndpoint {
  /** The local IP address of the connection, as `node:net` reports it (`::ffff:127.0.0.1` included). */
  readonly address: string;
  /** The local port. */
  readonly port: number;
  /** Whether the connection is TLS (the port a `Host` without one means is then 443, else 80). */
  readonly encrypted: boolean;
}

/**
 * What {@link decideHost} decides.
 *
 * @example
 * ```ts
 * const d: HostDecision = { kind: 'refuse', reason: 'unknown_host' };
 * ```
 */
export type HostDecision =
  /** The `Host` names this server, or nothing is known to compare it with. */
  | { readonly kind: 'accept' }
  /** The request has no `Host`, an unreadable one, or one naming another server. */
  | { readonly kind: 'refuse'; readonly reason: 'missing_host' | 'malformed_host' | 'unknown_host' };

interface Target {
  readonly hostname: string;
  readonly port: number;
  readonly defaultPort: number;
}

const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/@?#\\]+)(?::(\d{1,5}))?$/;

/** The canonical form of a hostname as the WHATWG URL parser writes it (lower case, IPv6 compressed). */
function canonicalHostname(hostname: string): string | null {
  try {
    return new URL(`http://${hostname}/`).hostname;
  } catch {
    return null;
  }
}

function parseHost(value: string): { readonly hostname: string; readonly port: number | null } | null {
  const m = HOST_PATTERN.exec(value);
  const rawName = m?.[1];
  if (m === null || rawName === undefined) return null;
  const hostname = canonicalHostname(rawName);
  const port = m[2] === undefined ? null : Number(m[2]);
  if (hostname === null || (port !== null && port > 65_535)) return null;
  return { hostname, port };
}

function externalTarget(externalURL: string): Target | null {
  try {
    const url = new URL(externalURL);
    const defaultPort = url.protocol === 'https:' ? 443 : 80;
    return { hostname: url.hostname, port: url.port === '' ? defaultPort : Number(url.port), defaultPort };
  } catch {
    return null;
  }
}

const isLoopback = (address: string): boolean =>
  address === '::1' || /^127\./.test(address) || /^::ffff:127\./i.test(address);

function localTargets(local: LocalEndpoint): readonly Target[] {
  const defaultPort = local.encrypted ? 443 : 80;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(local.address)?.[1];
  const names = [
    isIP(local.address) === 6 ? `[${local.address}]` : local.address,
    ...(mapped === undefined ? [] : [mapped]),
    ...(isLoopback(local.address) ? ['localhost'] : []),
  ];
  return names.flatMap((name) => {
    const hostname = canonicalHostname(name);
    return hostname === null ? [] : [{ hostname, port: local.port, defaultPort }];
  });
}

/**
 * Decides whether a request's `Host` names this server: `externalURL`'s host, or the address and port the
 * connection arrived on (the address the server listens on; for a server listening on every interface, the one
 * the client reached), or `localhost` on that port when that address is a loopback one. A `Host` without a port
 * means the scheme's default port. When neither `externalURL` nor the connection's address is known (a listener
 * called on a socket with no address, such as a Unix socket or a test double), there is nothing to compare
 * with and the request is accepted.
 *
 * @param host - The request's `Host` header, or `undefined`.
 * @param externalURL - The site's `externalURL`, or `null`.
 * @param local - The local end of the connection, or `null` when unknown.
 * @returns Whether to answer the request.
 *
 * @example
 * ```ts
 * decideHost('127.0.0.1:3080', null, { address: '127.0.0.1', port: 3080, encrypted: false }); // { kind: 'accept' }
 * decideHost('localhost:3080', null, { address: '127.0.0.1', port: 3080, encrypted: false }); // { kind: 'accept' }
 * decideHost('rebind.example:3080', null, { address: '127.0.0.1', port: 3080, encrypted: false });
 * // { kind: 'refuse', reason: 'unknown_host' }
 * decideHost('search.example.com', 'https://search.example.com', null); // { kind: 'accept' }
 * ```
 */
export function decideHost(host: string | undefined, externalURL: string | null, local: LocalEndpoint | null): HostDecision {
  const external = externalURL === null ? null : externalTarget(externalURL);
  const targets = [...(external === null ? [] : [external]), ...(local === null ? [] : localTargets(local))];
  if (targets.length === 0) return { kind: 'accept' };
  if (host === undefined || host === '') return { kind: 'refuse', reason: 'missing_host' };
  const parsed = parseHost(host);
  if (parsed === null) return { kind: 'refuse', reason: 'malformed_host' };
  const known = targets.some((t) => t.hostname === parsed.hostname && (parsed.port ?? t.defaultPort) === t.port);
  return known ? { kind: 'accept' } : { kind: 'refuse', reason: 'unknown_host' };
}

/** How many distinct local endpoints a {@link createHostCheck} remembers the targets of (past it, it works them out again). */
const REMEMBERED_ENDPOINTS = 64;

/**
 * {@link decideHost} for a server's requests, with what does not change between them worked out once: the target of
 * `externalURL` (for the last one seen) and the targets of each local endpoint (at most 64 remembered), with the
 * exact `Host` values that name them (`127.0.0.1:3080`, and `localhost` forms on a loopback address). A `Host` equal
 * to one of those is accepted without being parsed; any other goes through the same decision as {@link decideHost}.
 *
 * @returns A function deciding like {@link decideHost}.
 *
 * @example
 * ```ts
 * const check = createHostCheck();
 * check('127.0.0.1:3080', null, { address: '127.0.0.1', port: 3080, encrypted: false }); // { kind: 'accept' }
 * ```
 */
export function createHostCheck(): (host: string | undefined, externalURL: string | null, local: LocalEndpoint | null) => HostDecision {
  let externalKey: string | null = null;
  let external: { readonly targets: readonly Target[]; readonly names: ReadonlySet<string> } = { targets: [], names: new Set() };
  const locals = new Map<string, { readonly targets: readonly Target[]; readonly names: ReadonlySet<string> }>();
  const accept: HostDecision = Object.freeze({ kind: 'accept' });
  return (host, externalURL, local) => {
    if (externalURL !== externalKey) {
      const target = externalURL === null ? null : externalTarget(externalURL);
      external = withNames(target === null ? [] : [target]);
      externalKey = externalURL;
    }
    let own: { readonly targets: readonly Target[]; readonly names: ReadonlySet<string> } | undefined;
    if (local !== null) {
      const key = `${local.address}\u0000${String(local.port)}\u0000${String(local.encrypted)}`;
      own = locals.get(key);
      if (own === undefined) {
        own = withNames(localTargets(local));
        if (locals.size >= REMEMBERED_ENDPOINTS) locals.clear();
        locals.set(key, own);
      }
    }
    if (host !== undefined && (external.names.has(host) || own?.names.has(host) === true)) return accept;
    const targets = own === undefined ? external.targets : [...external.targets, ...own.targets];
    if (targets.length === 0) return accept;
    if (host === undefined || host === '') return { kind: 'refuse', reason: 'missing_host' };
    const parsed = parseHost(host);
    if (parsed === null) return { kind: 'refuse', reason: 'malformed_host' };
    const known = targets.some((t) => t.hostname === parsed.hostname && (parsed.port ?? t.defaultPort) === t.port);
    return known ? accept : { kind: 'refuse', reason: 'unknown_host' };
  };
}

/** Targets with the exact `Host` values naming them: `hostname:port`, and `hostname` alone on the default port. */
function withNames(targets: readonly Target[]): { readonly targets: readonly Target[]; readonly names: ReadonlySet<string> } {
  const names = new Set<string>();
  for (const t of targets) {
    names.add(`${t.hostname}:${String(t.port)}`);
    if (t.port === t.defaultPort) names.add(t.hostname);
  }
  return { targets, names };
}
