/**
 * Small `node:http` helpers of the adapter: reading a bounded body, writing JSON, HTML and redirects,
 * cookies, and the security headers every response carries. No policy lives here.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Result } from 'neverthrow';
import { readRequestBody } from './request-body.js';
import type { RequestBodyError } from './request-body.js';

/**
 * Reads the whole request body as UTF-8 text, refusing more than `limit` bytes (checked against
 * `Content-Length` first, then while streaming) and any `Content-Encoding` (forms and OAuth requests are never
 * compressed): {@link readRequestBody} without decompression.
 *
 * @param req - The request.
 * @param limit - Maximum body size in bytes.
 * @returns The body text, or why it could not be read.
 *
 * @example
 * ```ts
 * const body = await readBody(req, 1 << 20);
 * if (body.isErr() && body.error.code === 'body_too_large') sendJson(res, 413, { errors: [...] });
 * ```
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Result<string, RequestBodyError>> {
  return readRequestBody(req, limit, { decompress: false });
}

/**
 * Whether the response can still be written (the client is there and nothing was sent yet).
 *
 * @param res - The response.
 * @returns `true` when headers can still be written.
 *
 * @example
 * ```ts
 * if (canRespond(res)) sendJson(res, 500, { errors: [{ message: 'Internal error.' }] });
 * ```
 */
export function canRespond(res: ServerResponse): boolean {
  return !res.headersSent && !res.writableEnded && !res.destroyed;
}

/**
 * Headers every response carries.
 *
 * @example
 * ```ts
 * res.writeHead(200, { ...BASE_HEADERS, 'content-type': 'text/plain' });
 * ```
 */
export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

/**
 * Writes a JSON response.
 *
 * @param res - The response.
 * @param status - HTTP status.
 * @param body - Any JSON-serialisable value.
 * @param headers - Extra headers.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * sendJson(res, 401, { errors: [{ message: 'Invalid access token.' }] });
 * ```
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  if (!canRespond(res)) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/**
 * Content-Security-Policy of the HTML pages: everything from this origin only (no CDN, no inline script).
 *
 * @example
 * ```ts
 * res.setHeader('content-security-policy', PAGE_CSP);
 * ```
 */
export const PAGE_CSP: string = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

/**
 * Writes an HTML page with the page security headers.
 *
 * @param res - The response.
 * @param status - HTTP status.
 * @param html - The page.
 * @param headers - Extra headers.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * sendHtml(res, 200, '<!doctype html><title>ok</title>');
 * ```
 */
export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  if (!canRespond(res)) return;
  res.writeHead(status, {
    ...BASE_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(html)),
    'content-security-policy': PAGE_CSP,
    'x-frame-options': 'DENY',
    ...headers,
  });
  res.end(html);
}

/**
 * Writes a `303 See Other` redirect.
 *
 * @param res - The response.
 * @param location - Where to go (a path on this server).
 * @param headers - Extra headers (for example `set-cookie`).
 * @returns Nothing.
 *
 * @example
 * ```ts
 * sendRedirect(res, '/debug/console');
 * ```
 */
export function sendRedirect(
  res: ServerResponse,
  location: string,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  if (!canRespond(res)) return;
  res.writeHead(303, { ...BASE_HEADERS, location, 'content-length': '0', ...headers });
  res.end();
}

/**
 * Escapes text for HTML element content and attribute values.
 *
 * @param text - Any text.
 * @returns The escaped text.
 *
 * @example
 * ```ts
 * escapeHtml('<a href="x">'); // '&lt;a href=&quot;x&quot;&gt;'
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

/**
 * Reads the cookies of a request (the first value of each name wins).
 *
 * @param header - The `Cookie` header.
 * @returns The cookies by name.
 *
 * @example
 * ```ts
 * parseCookies('a=1; b=2').get('b'); // '2'
 * ```
 */
export function parseCookies(header: string | undefined): ReadonlyMap<string, string> {
  const cookies = new Map<string, string>();
  if (header === undefined) return cookies;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name !== '' && !cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

/**
 * Attributes of a cookie written by {@link serializeCookie}.
 *
 * @example
 * ```ts
 * const a: CookieAttributes = { maxAgeSeconds: 3600, secure: true };
 * ```
 */
export interface CookieAttributes {
  /** Lifetime in seconds; 0 deletes the cookie. */
  readonly maxAgeSeconds: number;
  /** Whether to add `Secure` (when the site is served over https). */
  readonly secure: boolean;
}

/**
 * Writes a `Set-Cookie` value: always `HttpOnly`, `SameSite=Lax` and `Path=/`.
 *
 * @param name - Cookie name.
 * @param value - Cookie value (URL-safe characters only).
 * @param attributes - Lifetime and `Secure`.
 * @returns The header value.
 *
 * @example
 * ```ts
 * serializeCookie('s', 'abc', { maxAgeSeconds: 60, secure: false });
 * // 's=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax'
 * ```
 */
export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(attributes.maxAgeSeconds))}`, 'HttpOnly', 'SameSite=Lax'];
  if (attributes.secure) parts.push('Secure');
  return parts.join('; ');
}
