/**
 * The router: matches a request's method and path against the route table, reads the body of a route that
 * declares one (answering 413/415 itself), calls the handler and hands its value to the one writer. A known path
 * asked with another method is `405` with `Allow`; any other path is `404`; `HEAD` is answered as `GET` without
 * a body. A query parameter or a form or JSON field holding text the store cannot hold is answered `400` before the
 * handler runs (`storable-input.ts`). A handler that rejects is gatehouse's own failure: it is logged as
 * `internal_error` and answered `500`, never with a code that blames the client; when it rejects because the
 * database cannot be reached, it is logged as `database_unavailable` and answered `503` with `Retry-After`
 * (`database-unavailable.ts`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { match } from 'ts-pattern';
import { clientAddress } from './client-address.js';
import { databaseUnavailableResponse, isDatabaseUnavailable } from './database-unavailable.js';
import { mediaType, parseCookies } from './http-io.js';
import { ACCEPTED_REQUEST_ENCODINGS, readRequestBody } from './request-body.js';
import type { RequestBodyError } from './request-body.js';
import { errorResponse, writeResponse } from './respond.js';
import { unstorableField, unstorableTextResponse } from './storable-input.js';
import type { Route, RouteBody, RouteRequest, RouteResponse } from './route.js';
import { captureRefusalReason } from './logging.js';
import type { LogEntry } from './logging.js';

/**
 * A route served by code that still writes to the `node:http` response itself (the host's own
 * `GatehouseRoute`s, and the provider flows until they return values). It resolves `false` when it did not
 * answer, and the router then answers `404`.
 *
 * @example
 * ```ts
 * const entry: StreamRoute = { methods: 'any', path: '/.auth/*', stream: (req, res, url) => providers.handle(req, res, url) };
 * ```
 */
export interface StreamRoute {
  /** The methods it answers, or `any`. */
  readonly methods: readonly string[] | 'any';
  /** The path, exact, a prefix ending in `/*`, or a predicate on the path. */
  readonly path: string | ((path: string) => boolean);
  /** Serves the request; `false` when it wrote nothing. */
  readonly stream: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;
}

/**
 * One entry of the route table: a route that returns a value, or a {@link StreamRoute}.
 *
 * @example
 * ```ts
 * const entry: RouteTableEntry = { methods: ['GET'], path: '/healthz', handler: async () => jsonResponse(200, { status: 'ok' }) };
 * ```
 */
export type RouteTableEntry = Route | StreamRoute;

/** What the router needs besides the table. */
export interface RouterOptions {
  /** The base the request URL is resolved against (the site's external URL, or the listening address). */
  readonly base: string;
  /** The log sink (`internal_error` lines). */
  readonly log: (entry: LogEntry) => void;
  /** The request's client address, worked out once by the listener (default: the socket's peer). */
  readonly clientAddress?: string;
}

/**
 * Whether a table entry's path matches a request path.
 *
 * @param pattern - The entry's path.
 * @param path - The request path.
 * @returns `exact`, `prefix`, or `null` for no match.
 *
 * @example
 * ```ts
 * pathMatch('/debug/console/assets/*', '/debug/console/assets/console.js'); // 'prefix'
 * ```
 */
export function pathMatch(pattern: RouteTableEntry['path'], path: string): 'exact' | 'prefix' | null {
  if (typeof pattern === 'function') return pattern(path) ? 'prefix' : null;
  if (pattern.endsWith('/*')) return path.startsWith(pattern.slice(0, -1)) ? 'prefix' : null;
  return pattern === path ? 'exact' : null;
}

/** Whether an entry answers a method (`HEAD` where `GET` is listed). */
function answers(entry: RouteTableEntry, method: string): boolean {
  if (entry.methods === 'any') return true;
  return entry.methods.includes(method) || (method === 'HEAD' && entry.methods.includes('GET'));
}

/** The `Allow` header of a path's entries. */
function allowOf(entries: readonly RouteTableEntry[]): string {
  const methods = new Set<string>();
  for (const e of entries) {
    if (e.methods === 'any') continue;
    for (const m of e.methods) methods.add(m);
    if (e.methods.includes('GET')) methods.add('HEAD');
  }
  return [...methods].join(', ');
}

/**
 * Selects the entry for a method and path: exact paths before prefixes, then table order.
 *
 * @param table - The route table.
 * @param method - The request method.
 * @param path - The request path.
 * @returns The entry, a `405` with the path's `Allow`, or `404`.
 *
 * @example
 * ```ts
 * selectRoute(table, 'DELETE', '/.api/graphql'); // { kind: 'method_not_allowed', allow: 'GET, POST, HEAD' }
 * ```
 */
export function selectRoute(
  table: readonly RouteTableEntry[],
  method: string,
  path: string,
):
  | { readonly kind: 'route'; readonly entry: RouteTableEntry }
  | { readonly kind: 'method_not_allowed'; readonly allow: string; readonly path: string }
  | { readonly kind: 'not_found' } {
  const index = tableIndex(table);
  const exact = index.exact.get(path);
  const candidates = exact ?? index.others.filter((e) => pathMatch(e.path, path) === 'prefix');
  const entry = candidates.find((e) => answers(e, method));
  if (entry !== undefined) return { kind: 'route', entry };
  const listed = candidates[0];
  if (listed !== undefined) return { kind: 'method_not_allowed', allow: allowOf(candidates), path: pathLabel(listed.path) };
  return { kind: 'not_found' };
}

/** A route table's entries by exact path, and the others (prefixes and predicates) in table order. */
interface TableIndex {
  readonly exact: ReadonlyMap<string, readonly RouteTableEntry[]>;
  readonly others: readonly RouteTableEntry[];
}

/** The index of each route table, made at its first request (a table never changes; a reload makes a new one). */
const TABLE_INDEXES = new WeakMap<readonly RouteTableEntry[], TableIndex>();

function tableIndex(table: readonly RouteTableEntry[]): TableIndex {
  const known = TABLE_INDEXES.get(table);
  if (known !== undefined) return known;
  const exact = new Map<string, RouteTableEntry[]>();
  const others: RouteTableEntry[] = [];
  for (const entry of table) {
    const path = entry.path;
    if (typeof path === 'string' && !path.endsWith('/*')) {
      const listed = exact.get(path);
      if (listed === undefined) exact.set(path, [entry]);
      else listed.push(entry);
    } else {
      others.push(entry);
    }
  }
  const index = { exact, others };
  TABLE_INDEXES.set(table, index);
  return index;
}

/**
 * Builds the plain request value of a `node:http` request (the body is read separately).
 *
 * @param req - The request.
 * @param url - Its URL.
 * @param requestId - Its request id.
 * @param client - The client address (default: the socket's peer).
 * @returns The request value, with `body: null`.
 *
 * @example
 * ```ts
 * const request = routeRequestOf(req, new URL(req.url ?? '/', base), requestId);
 * ```
 */
export function routeRequestOf(
  req: IncomingMessage,
  url: URL,
  requestId: string,
  client: string = clientAddress(req),
  body: string | null = null,
): RouteRequest {
  // The headers, their distinct values and the cookies are worked out when a handler first reads them (the API
  // reads two headers and no cookie), each once; a spread of the value reads them all.
  let headers: Record<string, string> | undefined;
  let distinct: Record<string, readonly string[]> | undefined;
  let cookies: ReadonlyMap<string, string> | undefined;
  return {
    method: req.method ?? '',
    url,
    get headers(): Record<string, string> {
      if (headers === undefined) {
        const all = req.headers;
        // node:http joins every repeated header but `set-cookie` into one string: without it, its record is the value
        if (all['set-cookie'] === undefined) return (headers = all as Record<string, string>);
        headers = {};
        for (const name in all) {
          const value = all[name];
          if (name === 'set-cookie' || value === undefined) continue;
          headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
      }
      return headers;
    },
    get headersDistinct(): Record<string, readonly string[]> {
      if (distinct === undefined) {
        const all = req.headersDistinct;
        if (all['set-cookie'] === undefined) return (distinct = all as Record<string, readonly string[]>);
        distinct = {};
        for (const name in all) {
          const values = all[name];
          if (name !== 'set-cookie' && values !== undefined) distinct[name] = values;
        }
      }
      return distinct;
    },
    get cookies(): ReadonlyMap<string, string> {
      cookies ??= parseCookies(req.headers.cookie);
      return cookies;
    },
    clientAddress: client,
    requestId,
    body,
  };
}

/** The answer to a body that could not be read. */
function bodyRefusal(path: string, error: RequestBodyError): RouteResponse {
  const close = { connection: 'close' };
  return match(error)
    .returnType<RouteResponse>()
    .with({ code: 'body_too_large' }, (e) => errorResponse(path, 413, 'body_too_large', `Request body exceeds ${e.limit} bytes.`, close))
    .with({ code: 'invalid_utf8' }, () => errorResponse(path, 400, 'invalid_utf8', 'Request body is not valid UTF-8.', close))
    .with({ code: 'unsupported_encoding' }, () =>
      errorResponse(path, 415, 'unsupported_encoding', `Content-Encoding must be one of ${ACCEPTED_REQUEST_ENCODINGS} or identity.`, {
        ...close,
        'accept-encoding': ACCEPTED_REQUEST_ENCODINGS,
      }),
    )
    .with({ code: 'invalid_compressed_body' }, (e) => errorResponse(path, 400, 'invalid_compressed_body', `Request body is not valid ${e.encoding} data.`, close))
    .with({ code: 'aborted' }, () => errorResponse(path, 400, 'aborted', 'Request body is incomplete.', close))
    .exhaustive();
}

/** Reads the body a route declares: its media type first (415), then the bytes within the limit (413). */
async function readDeclaredBody(req: IncomingMessage, path: string, body: RouteBody): Promise<{ readonly text: string } | RouteResponse> {
  if (body.contentTypes !== 'any' && !body.contentTypes.includes(mediaType(req.headers['content-type']))) {
    return errorResponse(path, 415, 'unsupported_media_type', `Send ${body.contentTypes.join(' or ')}.`, { connection: 'close' });
  }
  const read = await readRequestBody(req, body.limit, { decompress: body.decompress });
  return read.isOk() ? { text: read.value } : bodyRefusal(path, read.error);
}

/** Methods whose requests carry no body the server reads. */
const BODILESS = new Set(['GET', 'HEAD']);

/**
 * Whether a request sends no body at all (no `Content-Type`, no `Transfer-Encoding`, no or a zero `Content-Length`):
 * it has no media type to refuse, so a route that reads forms gets `body: null` and answers it as it would any
 * request (for example `401` to a client that is not signed in) rather than `415`.
 */
function sendsNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['content-type'] === undefined && req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/** The label of a table entry's path: the path itself, or `host` for a route the host matches with a function. */
const pathLabel = (path: RouteTableEntry['path']): string => (typeof path === 'string' ? path : 'host');

/** The path of the table entry each response answers, for {@link routeLabelOf}. */
const ROUTE_LABELS = new WeakMap<object, string>();

/**
 * The route a response answered, as a label from a closed set: the path of its table entry (exact, or a prefix
 * ending in `/*`), or `other` for a path no route lists (a 404, or a request refused before routing). Metrics and
 * logs take it from here, so their labels are the route table's own paths.
 *
 * @param res - The response.
 * @returns The label.
 * @example
 * ```ts
 * res.on('finish', () => metrics.observe({ level: 'info', event: 'request', route: routeLabelOf(res) }));
 * ```
 */
export function routeLabelOf(res: ServerResponse): string {
  return ROUTE_LABELS.get(res) ?? 'other';
}

/**
 * Serves one request from the table: select, read the body, run the handler, write its value.
 *
 * @param table - The route table.
 * @param req - The request.
 * @param res - The response.
 * @param url - The request URL.
 * @param requestId - The request id.
 * @param options - Base URL and log.
 * @returns When the response is written.
 *
 * @example
 * ```ts
 * await route(table, req, res, url, requestId, { base, log });
 * ```
 */
export async function route(
  table: readonly RouteTableEntry[],
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
  options: RouterOptions,
): Promise<void> {
  const method = req.method ?? '';
  const path = url.pathname;
  const head = method === 'HEAD';
  const selected = selectRoute(table, method, path);
  ROUTE_LABELS.set(res, selected.kind === 'route' ? pathLabel(selected.entry.path) : selected.kind === 'method_not_allowed' ? selected.path : 'other');
  if (selected.kind === 'not_found') return writeResponse(res, errorResponse(path, 404, 'not_found', 'Not found.'), { requestId, head });
  if (selected.kind === 'method_not_allowed') {
    const response = errorResponse(path, 405, 'method_not_allowed', `Use ${selected.allow}.`, { allow: selected.allow });
    return writeResponse(res, response, { requestId, head });
  }
  const entry = selected.entry;
  if ('stream' in entry) {
    // a route that writes the response itself: the request id goes ahead of whatever headers it writes
    res.setHeader('x-request-id', requestId);
    captureRefusalReason(res);
    if (!(await entry.stream(req, res, url))) writeResponse(res, errorResponse(path, 404, 'not_found', 'Not found.'), { requestId, head });
    return;
  }
  let body: string | null = null;
  if (entry.body !== undefined && !BODILESS.has(method) && !(entry.body.contentTypes !== 'any' && sendsNoBody(req))) {
    const read = await readDeclaredBody(req, path, entry.body);
    if (!('text' in read)) return writeResponse(res, read, { requestId, head });
    body = read.text;
  }
  const request = routeRequestOf(req, url, requestId, options.clientAddress, body);
  // text the store cannot hold is refused before any handler sees it (the GraphQL endpoint checks its own body)
  const unstorable = unstorableField(request, entry.body !== undefined && entry.body.checksOwnText !== true);
  if (unstorable !== null) return writeResponse(res, unstorableTextResponse(path, unstorable), { requestId, head });
  const response = await entry.handler(request).catch((error: unknown): RouteResponse => {
    if (isDatabaseUnavailable(error)) {
      options.log({ level: 'warn', event: 'database_unavailable', path, requestId });
      return databaseUnavailableResponse(path);
    }
    options.log({ level: 'error', event: 'internal_error', name: error instanceof Error ? error.name : typeof error, path, requestId });
    return errorResponse(path, 500, 'internal_error', 'Internal server error.', { connection: 'close' });
  });
  writeResponse(res, response, { requestId, head });
}
