/**
 * `POST /.api/graphql` (spec §2.1, §2.2, §4, §8): graphql-http does GraphQL over HTTP; before any document
 * is validated or run, its size is bounded (tokens, nesting) and its cost is measured by the core's
 * `analyzeQueryCost` and checked by `checkQueryCost`. A violation, or a document whose cost cannot be
 * measured, is answered with HTTP 400: no query runs unchecked.
 *
 * @module
 */
// graphql is imported by its CommonJS entry, the one graphql-http itself loads under Node, so that the schema,
// the errors and graphql-http's `instanceof GraphQLError` checks share one graphql instance even where a bundler
// or test runner would pick the package's ESM entry for a bare 'graphql' import (the dual-package hazard).
import { GraphQLError, Lexer, parse, Source, specifiedRules, TokenKind, validate } from 'graphql';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Handler, Response as GraphQLHttpResponse } from 'graphql-http';
import { err, ok } from 'neverthrow';
import { analyzeQueryCost, checkQueryCost, countFieldSelections, queryCostErrorMessage, DEFAULT_MAX_SEARCH_FIELDS, findUnstorableValue } from 'gatehouse-auth';
import type { QueryLimits } from 'gatehouse-auth';
import { databaseUnavailableResponse, isDatabaseUnavailable } from '../kernel/database-unavailable.js';
import { createDocumentCache } from './document-cache.js';
import type { DocumentCacheOptions } from './document-cache.js';
import { cutOffResult, withFieldBudget } from './field-budget.js';
import { admittedWithCost, costExtension, costMode, refusalCost, withCostExtension } from './cost-explain.js';
import type { CostExtension, RefusalCost } from './cost-explain.js';
import { listFieldsOfSchema } from './list-fields.js';
import type { GatehouseContext, Viewer } from './schema.js';
import { authFailureResponse } from './authenticate.js';
import type { Authentication } from './authenticate.js';
import { runInRequest } from '../kernel/logging.js';
import type { LogEntry } from '../kernel/logging.js';
import { errorResponse, jsonResponse } from '../kernel/respond.js';
import type { RouteBody, RouteRequest, RouteResponse } from '../kernel/route.js';
import { StorableStringsRule, unstorableTextError, withInternalErrorsMasked } from './graphql-input.js';

/**
 * Bounds applied to the document text before graphql-js parses it.
 *
 * @example
 * ```ts
 * const limits: DocumentLimits = { maxTokens: 10_000, maxNesting: 500 };
 * ```
 */
export interface DocumentLimits {
  /** Most lexical tokens a document may have (graphql-js `parse` option `maxTokens`). */
  readonly maxTokens: number;
  /** Deepest nesting of `{`, `(` and `[` (keeps the recursive parser far from the stack limit). */
  readonly maxNesting: number;
}

/**
 * Default {@link DocumentLimits}: 10,000 tokens, nesting 500.
 *
 * @example
 * ```ts
 * DEFAULT_DOCUMENT_LIMITS.maxTokens; // 10000
 * ```
 */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = Object.freeze({ maxTokens: 10_000, maxNesting: 500 });

type Preflight =
  | { readonly kind: 'ok' }
  | { readonly kind: 'too_many_tokens'; readonly actual: number }
  | { readonly kind: 'too_deep'; readonly actual: number }
  | { readonly kind: 'lexical_error' };

/** Lexes the document once, stopping as soon as a bound is crossed. */
function preflight(text: string, limits: DocumentLimits): Preflight {
  try {
    const lexer = new Lexer(new Source(text));
    let tokens = 0;
    let nesting = 0;
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens++;
      if (tokens > limits.maxTokens) return { kind: 'too_many_tokens', actual: tokens };
      const kind = token.kind;
      if (kind === TokenKind.BRACE_L || kind === TokenKind.PAREN_L || kind === TokenKind.BRACKET_L) {
        nesting++;
        if (nesting > limits.maxNesting) return { kind: 'too_deep', actual: nesting };
      } else if (kind === TokenKind.BRACE_R || kind === TokenKind.PAREN_R || kind === TokenKind.BRACKET_R) {
        nesting--;
      }
    }
    return { kind: 'ok' };
  } catch {
    return { kind: 'lexical_error' };
  }
}

/**
 * A result with an error of a database that cannot be reached is answered `503` with `Retry-After` as a whole
 * (database-unavailable.ts), not `200` with the failure among its errors: the client sends it again later. Like a
 * lost connection, the `503` does not say whether a mutation that ran before the failure was kept.
 */
function unavailableAnswer(result: ExecutionResult): GraphQLHttpResponse | undefined {
  if (!(result.errors ?? []).some((e) => isDatabaseUnavailable(e.originalError))) return undefined;
  const answer = databaseUnavailableResponse(GRAPHQL_PATH);
  return [typeof answer.body === 'string' ? answer.body : null, { status: answer.status, statusText: 'Service Unavailable', headers: answer.headers }];
}

/** The media type graphql-http will answer with (its own negotiation, first acceptable type wins). */
function responseMediaType(req: RouteRequest): string {
  const accept = (req.headers['accept'] ?? '*/*').replace(/\s/g, '').toLowerCase().split(',');
  for (const item of accept) {
    const type = item.split(';')[0];
    if (type === 'application/graphql-response+json') return 'application/graphql-response+json; charset=utf-8';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json; charset=utf-8';
  }
  return 'application/json; charset=utf-8';
}

function badRequest(req: RouteRequest, errors: readonly GraphQLError[], cost?: CostExtension | RefusalCost | null): GraphQLHttpResponse {
  return [
    JSON.stringify({ errors: errors.map((e) => e.toJSON()), ...(cost === undefined || cost === null ? {} : { extensions: { cost } }) }),
    { status: 400, statusText: 'Bad Request', headers: { 'content-type': responseMediaType(req) } },
  ];
}

const limitError = (message: string, limit: number, actual: number): GraphQLError =>
  new GraphQLError(message, { extensions: { code: 'QUERY_COST_LIMIT_EXCEEDED', limit, actual } });

/**
 * What {@link createGraphQLEndpoint} needs.
 *
 * @example
 * ```ts
 * const handler = createGraphQLEndpoint({ schema, queryLimits: DEFAULT_QUERY_LIMITS, documentLimits: DEFAULT_DOCUMENT_LIMITS });
 * ```
 */
export interface GraphQLEndpointOptions {
  /** The schema. */
  readonly schema: GraphQLSchema;
  /** The site's query cost limits (spec §8). */
  readonly queryLimits: QueryLimits;
  /** Bounds on the document text. */
  readonly documentLimits: DocumentLimits;
  /** The most `search` fields one operation may select. Default {@link DEFAULT_MAX_SEARCH_FIELDS} (5). */
  readonly maxSearchFields?: number;
  /** Told the name of each limit a refused request exceeded (`maxDepth`, …, `maxTokens`, `maxNesting`), and its request id. */
  readonly onLimitExceeded?: (limit: string, requestId: string) => void;
  /** Bounds of the cache of admitted documents by query text (`{ maxEntries: 0 }` turns it off). */
  readonly documentCache?: DocumentCacheOptions;
  /**
   * Told of each error a resolver threw or rejected with that is not a GraphQL error (a store failure, a defect),
   * with the field's path: the answer carries a generic `INTERNAL_SERVER_ERROR` in its place, never its message.
   */
  readonly onInternalError?: (error: unknown, field: string, requestId: string) => void;
}

/**
 * Creates the graphql-http handler of the API: requests carry the {@link Viewer} as their context.
 *
 * @param options - Schema and limits.
 * @returns A graphql-http handler.
 *
 * @example
 * ```ts
 * const handle = createGraphQLEndpoint(options);
 * const [body, init] = await handle({ method, url, headers, body: text, raw: req, context: viewer });
 * ```
 */
export function createGraphQLEndpoint(options: GraphQLEndpointOptions): Handler<RouteRequest, Viewer> {
  const { schema, queryLimits, documentLimits } = options;
  const maxSearchFields = options.maxSearchFields ?? DEFAULT_MAX_SEARCH_FIELDS;
  // Each list field counts at its page size (spec §8: pagination keeps a response under the field count).
  const { listFields } = listFieldsOfSchema(schema);
  const told = options.onLimitExceeded ?? ((): void => undefined);
  const documents = createDocumentCache(schema, options.documentCache);
  const costContext = { queryLimits, maxTokens: documentLimits.maxTokens };
  return createHandler<RouteRequest, Viewer, GatehouseContext>({
    schema,
    onOperation: (req, args, result) => {
      const unavailable = unavailableAnswer(result);
      if (unavailable !== undefined) return unavailable;
      const cutOff = cutOffResult(args.contextValue);
      const onInternalError = options.onInternalError;
      // `extensions.cost` when asked for, or when the field count cut execution off (cost-explain.ts)
      const masked =
        cutOff ?? withInternalErrorsMasked(result, onInternalError === undefined ? undefined : (error, field) => onInternalError(error, field, req.raw.requestId));
      return withCostExtension(args.contextValue, masked, result, cutOff !== undefined, () =>
        costExtension(costContext, args.document.loc?.source.body ?? '', args.document, {
          operationName: args.operationName ?? null,
          variables: args.variableValues ?? null,
          listFields,
        }),
      );
    },
    onSubscribe: (req, params) => {
      const raw = req.raw;
      const variables = params.variables ?? null;
      // text the store cannot hold is refused before anything runs: in the variables here, in the document's
      // strings by the validation rule
      const unstorable = variables === null ? null : findUnstorableValue(variables);
      if (unstorable !== null) return badRequest(raw, [unstorableTextError(`$${unstorable}`)]);
      const costOptions = { operationName: params.operationName ?? null, variables, listFields };
      // Bounds, parse, cost, validate; the cache runs only what a previous request has not settled (document-cache.ts).
      const admitted = documents.admit<GraphQLHttpResponse | readonly GraphQLError[]>(params, {
        parse: (text) => {
          const checked = preflight(text, documentLimits);
          if (checked.kind === 'too_many_tokens') {
            told('maxTokens', raw.requestId);
            return err(badRequest(raw, [limitError('Query exceeds maximum token count limit', documentLimits.maxTokens, checked.actual)]));
          }
          if (checked.kind === 'too_deep') {
            told('maxNesting', raw.requestId);
            return err(badRequest(raw, [limitError('Query exceeds maximum nesting limit', documentLimits.maxNesting, checked.actual)]));
          }
          try {
            return ok(parse(text, { maxTokens: documentLimits.maxTokens }));
          } catch (error) {
            // a syntax error: graphql-http answers it per the accepted media type
            if (error instanceof GraphQLError) return err([error]);
            return err(badRequest(raw, [new GraphQLError('The document could not be parsed.', { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })]));
          }
        },
        checkCost: (document) => {
          const cost = analyzeQueryCost(document, costOptions);
          if (cost.isErr()) {
            return err(badRequest(raw, [
              new GraphQLError(queryCostErrorMessage(cost.error), { extensions: { code: 'QUERY_COST_ANALYSIS_FAILED', reason: cost.error.code } }),
            ]));
          }
          const within = checkQueryCost(cost.value, queryLimits);
          if (within.isErr()) {
            for (const e of within.error.exceeded) told(e.setting, raw.requestId);
            return err(badRequest(
              raw,
              within.error.exceeded.map((e) => limitError(e.message, e.limit, e.actual)),
              refusalCost(costMode(raw), costExtension(costContext, params.query, document, costOptions)),
            ));
          }
          // Every search walks the corpus: bound how many one request runs, counted before anything runs.
          const searches = countFieldSelections(document, 'search', costOptions);
          const searchCount = searches.isOk() ? searches.value : Number.POSITIVE_INFINITY;
          if (searchCount > maxSearchFields) {
            return err(badRequest(raw, [limitError('Query exceeds maximum search field count limit', maxSearchFields, searchCount)]));
          }
          return ok(undefined);
        },
        validate: (document) => {
          const errors = validate(schema, document, [...specifiedRules, StorableStringsRule]);
          return errors.length > 0 ? err(errors) : ok(undefined);
        },
      });
      if (admitted.isErr()) return admitted.error;
      const document = admitted.value;
      const contextValue = withFieldBudget({ viewer: req.context }, queryLimits.maxFieldCount);
      const mode = costMode(raw);
      const dryRun = mode === null ? undefined : admittedWithCost(mode, costExtension(costContext, params.query, document, costOptions), contextValue, responseMediaType(raw));
      if (dryRun !== undefined) return dryRun;
      return {
        schema,
        document,
        operationName: params.operationName ?? null,
        variableValues: params.variables ?? null,
        contextValue,
      };
    },
  });
}

/** The path of the API (spec §4). */
export const GRAPHQL_PATH = '/.api/graphql';

/**
 * What the API handler needs: the graphql-http handler, the authenticator and the log.
 *
 * @example
 * ```ts
 * const handler = graphqlHandler({ endpoint: createGraphQLEndpoint(options), authenticate, log });
 * ```
 */
export interface GraphQLRouteOptions {
  /** The graphql-http handler of {@link createGraphQLEndpoint}. */
  readonly endpoint: Handler<RouteRequest, Viewer>;
  /** Who the request acts as. */
  readonly authenticate: (request: RouteRequest) => Promise<Authentication>;
  /** The log sink (one `authentication` line per request). */
  readonly log: (entry: LogEntry) => void;
}

/**
 * The body of an API request: any declared media type (§4), decompressed, within the limit.
 *
 * @param maxBodyBytes - Largest accepted body in bytes.
 * @returns The route's body declaration.
 *
 * @example
 * ```ts
 * graphqlBody(1 << 20); // { limit: 1048576, contentTypes: 'any', decompress: true, checksOwnText: true }
 * ```
 */
export function graphqlBody(maxBodyBytes: number): RouteBody {
  return { limit: maxBodyBytes, contentTypes: 'any', decompress: true, checksOwnText: true };
}

/**
 * The API handler of `GET` and `POST /.api/graphql`. Authentication decides first; the body (read by the
 * router) is then run as JSON whatever its declared media type (§4), in UTF-8 only.
 *
 * @param options - Endpoint, authenticator and log.
 * @returns The handler.
 *
 * @example
 * ```ts
 * const route: Route = { methods: ['GET', 'POST'], path: GRAPHQL_PATH, body: graphqlBody(1 << 20), handler: graphqlHandler(options) };
 * ```
 */
export function graphqlHandler(options: GraphQLRouteOptions): (request: RouteRequest) => Promise<RouteResponse> {
  const { endpoint, authenticate, log } = options;
  // The answer depends on who asks (§5.1): a shared cache must not hand one caller's answer to another.
  const vary = { vary: 'Authorization' };
  const handler = async (request: RouteRequest): Promise<RouteResponse> => {
    const auth = await authenticate(request);
    log({
      level: 'info',
      event: 'authentication',
      scheme: auth.scheme,
      result: auth.kind === 'refuse' ? auth.failure.code : auth.viewer.kind === 'user' ? 'ok' : 'anonymous',
      requestId: request.requestId,
    });
    if (auth.kind === 'refuse') {
      const answer = authFailureResponse(auth.failure);
      return jsonResponse(answer.status, { errors: [{ message: answer.message, extensions: { code: answer.code } }] }, {
        ...vary,
        ...(answer.status === 401 ? { 'www-authenticate': 'token realm="gatehouse", Bearer realm="gatehouse"' } : {}),
        connection: 'close',
      });
    }
    const post = request.method === 'POST';
    // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset is refused rather than misread.
    if (post && !declaresUtf8OrNoCharset(request.headers['content-type'])) {
      return errorResponse(GRAPHQL_PATH, 415, 'unsupported_charset', 'The request body must be JSON in UTF-8.', { ...vary, connection: 'close' });
    }
    const input = {
      method: request.method,
      url: request.url.pathname + request.url.search,
      // §4: "a JSON body is sent with the request", whatever its declared type: `curl -d` declares
      // application/x-www-form-urlencoded, fetch with a string text/plain, and some clients none. The body is
      // read as JSON in every case (graphql-http parses only application/json). Cross-site posts stay out:
      // a cookie-authenticated request still needs the X-Requested-With header (authenticate.ts).
      headers: post ? jsonHeaders(request.headers) : request.headers,
      body: post && request.body !== '' ? request.body : null,
      raw: request,
      context: auth.viewer,
    };
    // A query logs with its request id named (above, and the endpoint's own lines); what a mutation changes is
    // audited from deep in the store, so a document that may hold one runs in the request's context.
    const [body, init] = mayMutate(request) ? await runInRequest({ requestId: request.requestId, authentication: null }, () => endpoint(input)) : await endpoint(input);
    if (body === null && init.status >= 400) {
      // graphql-http's content-negotiation refusals (405, 406, 415) carry no body: say what went wrong
      return jsonResponse(init.status, { errors: [{ message: `${init.statusText ?? 'Request refused'}.` }] }, { ...vary, ...init.headers });
    }
    return { status: init.status, headers: init.headers === undefined ? vary : { ...vary, ...init.headers }, body };
  };
  return handler;
}

/** Whether a request's document may hold a mutation: its body or query string names one (a cheap over-estimate). */
function mayMutate(request: RouteRequest): boolean {
  return (request.body !== null && request.body.includes('mutation')) || request.url.search.includes('mutation');
}

/** The request's headers as graphql-http reads them (by name), with the body declared JSON; nothing is copied. */
function jsonHeaders(headers: Readonly<Record<string, string>>): { get: (name: string) => string | null } {
  return { get: (name) => (name === 'content-type' ? 'application/json' : (headers[name] ?? null)) };
}

/** Whether a `Content-Type` header names no charset, or UTF-8. */
function declaresUtf8OrNoCharset(contentType: string | undefined): boolean {
  // no parameter at all (`application/json`, the usual case): nothing to read
  if (contentType === undefined || !contentType.includes(';')) return true;
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name, value] = parameter.split('=').map((part) => part.trim().toLowerCase().replace(/^"|"$/g, ''));
    if (name === 'charset' && value !== 'utf-8' && value !== 'utf8') return false;
  }
  return true;
}
