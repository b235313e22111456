/**
 * Serves {@link Route} values on `node:http` for the servers that still ask each part of the site in turn
 * (`handle(req, res, url)`): builds the {@link RouteRequest}, reads a declared body, runs the handler and writes
 * its {@link RouteResponse} in one place.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BASE_HEADERS, canRespond, parseCookies, readBody } from '../http-io.js';
import { clientAddress } from '../client-address.js';
import type { ResponseCookie, Route, RouteRequest, RouteResponse } from '../route.js';

/**
 * A `Set-Cookie` value: `name=value; Path; Max-Age; HttpOnly`, then `SameSite=Lax|Strict` and `Secure`, or
 * `Secure; SameSite=None` (the order browsers and the existing pages use).
 *
 * @param cookie - The cookie.
 * @returns The header value.
 * @example
 * ```ts
 * serializeResponseCookie({ name: 's', value: 'v', path: '/', maxAgeSeconds: 60, sameSite: 'Lax', secure: false, httpOnly: true });
 * // 's=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax'
 * ```
 */
export function serializeResponseCookie(cookie: ResponseCookie): string {
  const parts = [`${cookie.name}=${cookie.value}`, `Path=${cookie.path}`];
  if (cookie.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(cookie.maxAgeSeconds))}`);
  if (cookie.httpOnly) parts.push('HttpOnly');
  if (cookie.sameSite === 'None') parts.push('Secure', 'SameSite=None');
  else parts.push(`SameSite=${cookie.sameSite}`, ...(cookie.secure ? ['Secure'] : []));
  return parts.join('; ');
}

/**
 * Reads a `Set-Cookie` value back into a {@link ResponseCookie} (the session layer hands out header values).
 *
 * @param header - A `Set-Cookie` value.
 * @returns The cookie.
 * @example
 * ```ts
 * parseSetCookie('s=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax').maxAgeSeconds; // 60
 * ```
 */
export function parseSetCookie(header: string): ResponseCookie {
  const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const named = new Map(
    attributes.map((a) => {
      const at = a.indexOf('=');
      return at < 0 ? [a.toLowerCase(), ''] : [a.slice(0, at).toLowerCase(), a.slice(at + 1)];
    }),
  );
  const sameSite = named.get('samesite')?.toLowerCase();
  const maxAge = Number(named.get('max-age'));
  return {
    name: eq < 0 ? pair : pair.slice(0, eq),
    value: eq < 0 ? '' : pair.slice(eq + 1),
    path: named.get('path') ?? '/',
    ...(named.has('max-age') && Number.isFinite(maxAge) ? { maxAgeSeconds: maxAge } : {}),
    sameSite: sameSite === 'strict' ? 'Strict' : sameSite === 'none' ? 'None' : 'Lax',
    secure: named.has('secure'),
    httpOnly: named.has('httponly'),
  };
}

/**
 * Writes a response value: the base security headers, the response's headers and cookies, `Content-Length`, and
 * the body (none for `HEAD`).
 *
 * @param res - The response.
 * @param response - The value.
 * @param head - Whether the request was `HEAD`.
 * @returns Nothing.
 * @example
 * ```ts
 * writeRouteResponse(res, { status: 303, headers: { location: '/' }, body: null });
 * ```
 */
export function writeRouteResponse(res: ServerResponse, response: RouteResponse, head = false): void {
  if (!canRespond(res)) return;
  const body = response.body === null ? Buffer.alloc(0) : typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : Buffer.from(response.body);
  const cookies = (response.cookies ?? []).map(serializeResponseCookie);
  res.writeHead(response.status, {
    ...BASE_HEADERS,
    ...response.headers,
    'content-length': String(body.length),
    ...(cookies.length === 0 ? {} : { 'set-cookie': cookies }),
  });
  res.end(head ? undefined : body);
}

const requests = new WeakMap<RouteRequest, IncomingMessage>();

/**
 * The `node:http` request a {@link RouteRequest} was built from by {@link serveRoutes} (for session layers that
 * read `IncomingMessage`), or `undefined`.
 *
 * @param request - The request value.
 * @returns The incoming message.
 * @example
 * ```ts
 * const req = incomingMessageOf(request);
 * ```
 */
export function incomingMessageOf(request: RouteRequest): IncomingMessage | undefined {
  return requests.get(request);
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'set-cookie' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Serves routes on `node:http`: the route whose path is `url.pathname`, if any, answers (a declared body is read
 * for a `POST` of an accepted media type within its limit; otherwise the handler sees `body: null`).
 *
 * @param routes - The routes (exact paths).
 * @returns `handle(req, res, url)`, resolving `false` when no route has the path.
 * @example
 * ```ts
 * const handle = serveRoutes(providerRoutes(deps));
 * if (await handle(req, res, url)) return;
 * ```
 */
export function serveRoutes(routes: readonly Route[]): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  return async (req, res, url) => {
    const route = byPath.get(url.pathname);
    if (route === undefined) return false;
    const method = (req.method ?? 'GET').toUpperCase();
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    let body: Uint8Array | null = null;
    if (route.body !== undefined && method === 'POST' && route.body.contentTypes.includes(type)) {
      const read = await readBody(req, route.body.limit);
      if (read.isOk()) body = Buffer.from(read.value, 'utf8');
    }
    const request: RouteRequest = {
      method,
      url,
      headers: headersOf(req),
      cookies: parseCookies(req.headers.cookie),
      clientAddress: clientAddress(req),
      requestId: String(req.headers['x-request-id'] ?? ''),
      body,
    };
    requests.set(request, req);
    writeRouteResponse(res, await route.handler(request), method === 'HEAD');
    return true;
  };
}
