/**
 * The address of the client that sent a request, as the server sees it: the socket's peer, or, when the peer is
 * one of the site's `trustedProxies`, the client its `X-Forwarded-For` names (the core's `decideClientAddress`).
 * The listener works it out once per request; every per-address bound, the audit log and the access log use that
 * one value.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { AddressRange, ClientAddress } from 'gatehouse-auth';
import { decideClientAddress } from 'gatehouse-auth';

/**
 * The address of the peer that sent the request (the socket's remote address).
 *
 * @param req - The request.
 * @returns The remote address, or `'unknown'` when the socket has none (it already closed).
 *
 * @example
 * ```ts
 * clientAddress(req); // '127.0.0.1'
 * ```
 */
export function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/**
 * The client of a request: the peer's address when the peer is not a trusted proxy (its `X-Forwarded-For` is
 * not read), else the right-most `X-Forwarded-For` address that is not a trusted proxy.
 *
 * @param req - The request.
 * @param trustedProxies - The site's `trustedProxies`.
 * @returns The client address and whether the peer is a trusted proxy.
 *
 * @example
 * ```ts
 * requestClient(req, configuration.trustedProxies); // { address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' }
 * ```
 */
export function requestClient(req: IncomingMessage, trustedProxies: readonly AddressRange[]): ClientAddress {
  const peer = clientAddress(req);
  // with no trusted proxy the peer is the client (what decideClientAddress answers then), without reading a header
  if (trustedProxies.length === 0) return { address: peer, peerTrusted: false, source: 'peer' };
  const decided = decideClientAddress({ peer, forwardedFor: req.headersDistinct['x-forwarded-for'] ?? [], trustedProxies });
  return decided.isOk() ? decided.value : { address: peer, peerTrusted: false, source: 'peer' };
}
