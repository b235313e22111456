/**
 * `POST /.api/graphql` (spec §2.1, §2.2, §4, §8): graphql-http does GraphQL over HTTP; before any document
 * is validated or run, its size is bounded (tokens, nesting) and its cost is measured by the core's
 * `analyzeQueryCost` and checked by `checkQueryCost`. A violation, or a document whose cost cannot be
 * measured, is answered with HTTP 400: no query runs unchecked.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
// graphql is imported by its CommonJS entry, the one graphql-http itself loads under Node, so that the schema,
// the errors and graphql-http's `instanceof GraphQLError` checks share one graphql instance even where a bundler
// or test runner would pick the package's ESM entry for a bare 'graphql' import (the dual-package hazard).
import { GraphQLError, Lexer, parse, Source, specifiedRules, TokenKind, validate } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Handler, Response as GraphQLHttpResponse } from 'graphql-http';
import { err, ok } from 'neverthrow';
import { analyzeQueryCost, checkQueryCost, countFieldSelections, queryCostErrorMessage } from '../core/query-cost.js';
import type { QueryLimits } from '../core/query-limits.js';
import { DEFAULT_MAX_SEARCH_FIELDS } from '../core/search-access.js';
import { createDocumentCache } from './document-cache.js';
import type { DocumentCacheOptions } from './document-cache.js';
import { cutOffResult, withFieldBudget } from './field-budget.js';
import { listFieldsOfSchema } from './list-fields.js';
import type { GatehouseContext, Viewer } from './schema.js';

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

/** The media type graphql-http will answer with (its own negotiation, first acceptable type wins). */
function responseMediaType(req: IncomingMessage): string {
  const accept = (req.headers.accept ?? '*/*').replace(/\s/g, '').toLowerCase().split(',');
  for (const item of accept) {
    const type = item.split(';')[0];
    if (type === 'application/graphql-response+json') return 'application/graphql-response+json; charset=utf-8';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json; charset=utf-8';
  }
  return 'application/json; charset=utf-8';
}

function badRequest(req: IncomingMessage, errors: readonly GraphQLError[]): GraphQLHttpResponse {
  return [
    JSON.stringify({ errors: errors.map((e) => e.toJSON()) }),
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
  /** Told the name of each limit a refused request exceeded (`maxDepth`, …, `maxTokens`, `maxNesting`). */
  readonly onLimitExceeded?: (limit: string) => void;
  /** Bounds of the cache of admitted documents by query text (`{ maxEntries: 0 }` turns it off). */
  readonly documentCache?: DocumentCacheOptions;
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
export function createGraphQLEndpoint(options: GraphQLEndpointOptions): Handler<IncomingMessage, Viewer> {
  const { schema, queryLimits, documentLimits } = options;
  const maxSearchFields = options.maxSearchFields ?? DEFAULT_MAX_SEARCH_FIELDS;
  // Each list field counts at its page size (spec §8: pagination keeps a response under the field count).
  const { listFields } = listFieldsOfSchema(schema);
  const exceeded = options.onLimitExceeded ?? ((): void => undefined);
  const documents = createDocumentCache(schema, options.documentCache);
  return createHandler<IncomingMessage, Viewer, GatehouseContext>({
    schema,
    onOperation: (_req, args) => cutOffResult(args.contextValue),
    onSubscribe: (req, params) => {
      const raw = req.raw;
      const variables = params.variables ?? null;
      const costOptions = { operationName: params.operationName ?? null, variables, listFields };
      // Bounds, parse, cost, validate; the cache runs only what a previous request has not settled (document-cache.ts).
      const admitted = documents.admit<GraphQLHttpResponse | readonly GraphQLError[]>(params, {
        parse: (text) => {
          const checked = preflight(text, documentLimits);
          if (checked.kind === 'too_many_tokens') {
            exceeded('maxTokens');
            return err(badRequest(raw, [limitError('Query exceeds maximum token count limit', documentLimits.maxTokens, checked.actual)]));
          }
          if (checked.kind === 'too_deep') {
            exceeded('maxNesting');
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
            for (const e of within.error.exceeded) exceeded(e.setting);
            return err(badRequest(
              raw,
              within.error.exceeded.map((e) => limitError(e.message, e.limit, e.actual)),
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
          const errors = validate(schema, document, specifiedRules);
          return errors.length > 0 ? err(errors) : ok(undefined);
        },
      });
      if (admitted.isErr()) return admitted.error;
      const document = admitted.value;
      return {
        schema,
        document,
        operationName: params.operationName ?? null,
        variableValues: params.variables ?? null,
        contextValue: withFieldBudget({ viewer: req.context }, queryLimits.maxFieldCount),
      };
    },
  });
}
