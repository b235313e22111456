/**
 * The answer to a request that failed because the database cannot be reached: `503 Service Unavailable` with
 * `Retry-After` (RFC 9110 §15.6.4, §10.2.3) and the code `database_unavailable`, never `500` and never the driver's
 * message. A store says so by rejecting with an error whose `code` is `database_unavailable` (the PostgreSQL store's
 * drivers do, see store/postgres/unavailable.ts); any other failure stays gatehouse's own `500`.
 *
 * @module
 */
import { errorResponse, jsonResponse } from './respond.js';
import type { RouteResponse } from './route.js';

/**
 * How long a client is asked to wait before sending the request again, in seconds.
 *
 * @example
 * ```ts
 * DATABASE_RETRY_AFTER_SECONDS; // 1
 * ```
 */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * Whether a failure means the database cannot be reached: an object whose `code` is `database_unavailable`.
 *
 * @param error - What a handler or a resolver rejected with.
 * @returns `true` when the request may be sent again once the database is back.
 * @example
 * ```ts
 * isDatabaseUnavailable(Object.assign(new Error('The database cannot be reached.'), { code: 'database_unavailable' })); // true
 * isDatabaseUnavailable(new Error('bug')); // false
 * ```
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'database_unavailable';
}

/**
 * The `503` a path's clients read (see `errorResponse`): on the API, a GraphQL error whose `extensions.code` is
 * `database_unavailable`; elsewhere the path's usual error body with that code.
 *
 * @param path - The request path.
 * @returns The response value, with `Retry-After`.
 * @see {@link https://www.rfc-editor.org/rfc/rfc9110#section-15.6.4 | RFC 9110 §15.6.4}
 * @example
 * ```ts
 * databaseUnavailableResponse('/.auth/sign-in');
 * // { status: 503, headers: { 'retry-after': '1', … }, body: '{"error":{"code":"database_unavailable",…}}' }
 * ```
 */
export function databaseUnavailableResponse(path: string): RouteResponse {
  const message = 'The database is unavailable. Try again shortly.';
  const headers = { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' };
  if (path === '/.api/graphql') {
    // every API answer depends on who asks (§5.1), as errorResponse says
    return jsonResponse(503, { errors: [{ message, extensions: { code: 'database_unavailable' } }] }, { vary: 'Authorization', ...headers });
  }
  return errorResponse(path, 503, 'database_unavailable', message, headers);
}
