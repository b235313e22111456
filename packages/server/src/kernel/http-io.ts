/**
 * Small `node:http` helpers of the adapter: whether a response can still be written, HTML escaping, reading
 * cookies and media types, and the security headers every response carries (the one writer is `respond.ts`).
 * No policy lives here.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

/**
 * Whether the response can still be written (the client is there and nothing was sent yet).
 *
 * @param res - The response.
 * @returns `true` when headers can still be written.
 *
 * @example
 * ```ts
 * if (canRespond(res)) writeResponse(res, response, { requestId, head: false });
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
 * The media type of a `Content-Type` header: lower case, without parameters (`''` when there is none).
 *
 * @param contentType - The header value.
 * @returns The media type.
 *
 * @example
 * ```ts
 * mediaType('Application/X-WWW-Form-Urlencoded; charset=UTF-8'); // 'application/x-www-form-urlencoded'
 * ```
 */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
