/**
 * The address of the client that sent a request, as the server sees it.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/**
 * The address of the peer that sent the request (the socket's remote address). gatehouse does not read
 * `X-Forwarded-For`: behind a proxy every client shares the proxy's address, which only makes per-address bounds
 * stricter, never looser.
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
