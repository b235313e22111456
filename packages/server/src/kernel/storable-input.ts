/**
 * Refusing text the store cannot hold where it enters: the router checks every request's query string and the
 * form or JSON body it read, before any handler runs, with the core's `findUnstorableText`. A request carrying
 * U+0000 or an unpaired surrogate in any field is answered 400 naming the field; nothing is stored, looked up or
 * decided on it. (The GraphQL endpoint reads its own body: its variables and the strings of its document are
 * checked there, as GraphQL errors.)
 *
 * @module
 */
import { findUnstorableText, findUnstorableValue } from 'gatehouse-auth';
import { mediaType } from './http-io.js';
import { errorResponse } from './respond.js';
import type { RouteRequest, RouteResponse } from './route.js';

/** The longest field name repeated back in a refusal. */
const MAX_NAMED_FIELD = 64;

/**
 * The first field of a request that holds text the store cannot hold: a query parameter, a form field, or a
 * member of a JSON body (its path), by its name; `null` when every one can be stored. A body that is not the
 * form or JSON it says it is is left to the handler, which refuses it.
 *
 * @param request - The request, with the body the router read (`null` when none).
 * @param readsBody - Whether the route's handler reads the body as a form or JSON (not the GraphQL endpoint).
 * @returns The field's name (`''` for a field whose name itself cannot be stored), or `null`.
 *
 * @example
 * ```ts
 * unstorableField({ ...request, url: new URL('http://h/x?client_id=%00') }, false); // 'client_id'
 * ```
 */
export function unstorableField(request: Pick<RouteRequest, 'url' | 'headers' | 'body'>, readsBody: boolean): string | null {
  // a URL without a query string has no parameter to check (and needs no URLSearchParams)
  const inQuery = request.url.search === '' ? null : unstorableParam(request.url.searchParams);
  if (inQuery !== null) return inQuery;
  if (!readsBody || request.body === null) return null;
  const type = mediaType(request.headers['content-type']);
  if (type === 'application/x-www-form-urlencoded') return unstorableParam(new URLSearchParams(request.body));
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      return null;
    }
    return findUnstorableValue(parsed);
  }
  return null;
}

/** The first parameter whose name or value cannot be stored (`''` when it is the name). */
function unstorableParam(params: URLSearchParams): string | null {
  for (const [name, value] of params) {
    if (findUnstorableText(name) !== null) return '';
    if (findUnstorableText(value) !== null) return name;
  }
  return null;
}

/**
 * The 400 answer to a request with a field the store cannot hold, naming the field (in the error body of the path:
 * `{ error: { code, message } }`, or RFC 6749's `invalid_request` at the OAuth endpoints).
 *
 * @param path - The request path.
 * @param field - The field, as {@link unstorableField} named it.
 * @returns The response.
 *
 * @example
 * ```ts
 * unstorableTextResponse('/.auth/sign-up', 'email').status; // 400
 * ```
 */
export function unstorableTextResponse(path: string, field: string): RouteResponse {
  return errorResponse(path, 400, 'unstorable_text', unstorableTextMessage(field), { connection: 'close' });
}

/**
 * The sentence that names a field holding text the store cannot hold.
 *
 * @param field - The field's name or path (`''`: a field whose name itself cannot be stored).
 * @returns The message.
 *
 * @example
 * ```ts
 * unstorableTextMessage('note'); // 'The field "note" holds a character that cannot be stored (U+0000 or an unpaired surrogate).'
 * ```
 */
export function unstorableTextMessage(field: string): string {
  const characters = [...field];
  const name = characters.length > MAX_NAMED_FIELD ? `${characters.slice(0, MAX_NAMED_FIELD).join('')}…` : field;
  return field === ''
    ? 'A field name holds a character that cannot be stored (U+0000 or an unpaired surrogate).'
    : `The field ${JSON.stringify(name)} holds a character that cannot be stored (U+0000 or an unpaired surrogate).`;
}
