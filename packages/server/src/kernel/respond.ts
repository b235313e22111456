/**
 * Response values and the one writer: handlers build a {@link RouteResponse} with the helpers here, and
 * {@link writeResponse} turns it into the status line, headers, cookies and bytes (the shape of graphql-http's
 * `use/http.ts`). Every response carries the base security headers and the request id.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';
import { BASE_HEADERS, canRespond, escapeHtml, PAGE_CSP } from './http-io.js';
import { noteRefusalReason } from './logging.js';
import type { ResponseCookie, RouteResponse } from './route.js';

/**
 * A JSON response.
 *
 * @param status - HTTP status.
 * @param body - Any JSON-serialisable value.
 * @param headers - Extra headers.
 * @param cookies - Cookies to set.
 * @returns The response value.
 *
 * @example
 * ```ts
 * jsonResponse(401, { errors: [{ message: 'Invalid access token.' }] });
 * ```
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
  cookies?: readonly ResponseCookie[],
): RouteResponse {
  const response = { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
  return cookies === undefined ? response : { ...response, cookies };
}

/**
 * An HTML page with the page security headers (same-origin content only, never framed).
 *
 * @param status - HTTP status.
 * @param html - The page.
 * @param headers - Extra headers.
 * @returns The response value.
 *
 * @example
 * ```ts
 * htmlResponse(200, pageShell({ title: 'Sign in', body: '<h1>Sign in</h1>' }));
 * ```
 */
export function htmlResponse(status: number, html: string, headers: Readonly<Record<string, string>> = {}): RouteResponse {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'x-frame-options': 'DENY', ...headers },
    body: html,
  };
}

/**
 * A `303 See Other` redirect.
 *
 * @param location - Where to go.
 * @param cookies - Cookies to set with it.
 * @returns The response value.
 *
 * @example
 * ```ts
 * redirectResponse('/debug/console');
 * ```
 */
export function redirectResponse(location: string, cookies?: readonly ResponseCookie[]): RouteResponse {
  const response = { status: 303, headers: { location }, body: null };
  return cookies === undefined ? response : { ...response, cookies };
}

/**
 * The error body a path's clients read: the GraphQL endpoint answers `{ errors: [{ message }] }` (GraphQL over
 * HTTP) with `Vary: Authorization`, the OAuth token and revocation endpoints `{ error, error_description }` (RFC 6749 §5.2;
 * `server_error` for the server's own failures), and every
 * other route `{ error: { code, message } }`.
 *
 * @param path - The request path.
 * @param status - HTTP status.
 * @param code - What went wrong (snake_case).
 * @param message - What the client is told.
 * @param headers - Extra headers.
 * @returns The response value.
 *
 * @example
 * ```ts
 * errorResponse('/nowhere', 404, 'not_found', 'Not found.');
 * ```
 */
export function errorResponse(
  path: string,
  status: number,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): RouteResponse {
  // every API answer depends on who asks (§5.1), refusals included: a shared cache must not reuse one
  if (path === '/.api/graphql') return jsonResponse(status, { errors: [{ message }] }, { vary: 'Authorization', ...headers });
  if (path === '/.auth/idp/oauth/token' || path === '/.auth/idp/oauth/revoke' || path === '/.well-known/oauth-authorization-server') {
    // RFC 6749 §5.2: the server's own failure is server_error, never a code that blames the client
    const error = status >= 500 ? 'server_error' : 'invalid_request';
    return jsonResponse(status, { error, error_description: message }, { 'cache-control': 'no-store', pragma: 'no-cache', ...headers });
  }
  return jsonResponse(status, { error: { code, message } }, headers);
}

/** What a page shows: its title, its body (HTML, already escaped), and the width of its column. */
export interface PageShell {
  /** The title (escaped here). */
  readonly title: string;
  /** The body markup. */
  readonly body: string;
  /** Extra CSS rules after the shared ones. */
  readonly style?: string;
  /** The column width in rem. Default 26. */
  readonly width?: number;
}

/**
 * The one HTML page shell of the server's pages (sign-in, sign-up, account security, messages).
 *
 * @param shell - Title, body and style.
 * @returns The page.
 *
 * @example
 * ```ts
 * pageShell({ title: 'Sign out', body: '<h1>Sign out</h1>' });
 * ```
 */
export function pageShell(shell: PageShell): string {
  const width = shell.width ?? 26;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(shell.title)} · gatehouse</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:${width}rem;margin:4rem auto;padding:0 1rem}.error{color:#b00020}${shell.style ?? ''}</style>
</head><body>${shell.body}</body></html>`;
}

/**
 * Formats a cookie as a `Set-Cookie` value: `name=value; Path; Max-Age; HttpOnly; SameSite; Secure`.
 *
 * @param cookie - The cookie.
 * @returns The header value.
 *
 * @example
 * ```ts
 * formatCookie({ name: 's', value: 'abc', path: '/', maxAgeSeconds: 60, sameSite: 'Lax', secure: false, httpOnly: true });
 * // 's=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax'
 * ```
 */
export function formatCookie(cookie: ResponseCookie): string {
  const parts = [`${cookie.name}=${cookie.value}`, `Path=${cookie.path}`];
  if (cookie.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(cookie.maxAgeSeconds))}`);
  if (cookie.httpOnly) parts.push('HttpOnly');
  parts.push(`SameSite=${cookie.sameSite}`);
  if (cookie.secure) parts.push('Secure');
  return parts.join('; ');
}

/** How {@link writeResponse} writes: the request id, and whether the request was `HEAD` (headers only). */
export interface WriteOptions {
  /** The request id (`X-Request-Id`). */
  readonly requestId: string;
  /** Whether the body is left out (a `HEAD` request); `Content-Length` still names its size. */
  readonly head: boolean;
}

/**
 * The one writer: the base security headers, the request id, the response's own headers, `Content-Length`, the
 * cookies, then the body. Does nothing when the response was already sent or the client left.
 *
 * @param res - The `node:http` response.
 * @param response - The value a handler returned.
 * @param options - Request id and `HEAD`.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * writeResponse(res, jsonResponse(200, { ok: true }), { requestId, head: req.method === 'HEAD' });
 * ```
 */
export function writeResponse(res: ServerResponse, response: RouteResponse, options: WriteOptions): void {
  if (!canRespond(res)) return;
  const body = response.body;
  // a text body is handed to node:http as it is: the header block and the body then go out in one write
  const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
  const own = response.headers;
  // one flat [name, value, …] list for `writeHead`, the base headers first unless the response names them itself
  const headers: string[] = [];
  for (let i = 0; i < BASE_HEADER_LIST.length; i += 2) {
    const name = BASE_HEADER_LIST[i] as string;
    if (own[name] === undefined) headers.push(name, BASE_HEADER_LIST[i + 1] as string);
  }
  if (own['x-request-id'] === undefined) headers.push('x-request-id', options.requestId);
  for (const name in own) {
    if (name === 'content-length') continue;
    const value = own[name];
    if (value !== undefined) headers.push(name, value);
  }
  headers.push('content-length', String(length));
  const cookies = response.cookies;
  if (cookies !== undefined) for (const cookie of cookies) headers.push('set-cookie', formatCookie(cookie));
  res.writeHead(response.status, headers);
  if (options.head || body === null) {
    res.end();
    return;
  }
  // the access line's reason of a refusal is read from the body it sends
  if (response.status >= 400) noteRefusalReason(res, body);
  res.end(body);
}

/** {@link BASE_HEADERS} as a flat `[name, value, …]` list, made once. */
const BASE_HEADER_LIST: readonly string[] = Object.entries(BASE_HEADERS).flat();
