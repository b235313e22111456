/**
 * A bounded least-recently-used cache of admitted GraphQL documents, keyed by query text: a request whose text was
 * already bounded, parsed, cost-checked (spec §8) and validated runs its cached document without doing any of that
 * again. Only admitted documents are kept; a refused one is worked out again on every request (see
 * {@link DocumentCache.admit}).
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { Kind } from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { ok } from 'neverthrow';
import type { Result } from 'neverthrow';

/**
 * Bounds of a {@link DocumentCache}.
 */
export interface DocumentCacheOptions {
  /** Most documents kept (default 1,000); 0 keeps none, so every request does every step. */
  readonly maxEntries?: number;
  /**
   * Most UTF-8 bytes of query text (and remembered cost verdicts) kept, all entries together (default 512 KiB). A
   * parsed document takes about 100 times its text in memory, so the default holds at most about 50 MiB.
   */
  readonly maxBytes?: number;
}

/**
 * The default bounds: 1,000 documents, 512 KiB of query text.
 */
export const DEFAULT_DOCUMENT_CACHE_OPTIONS: Required<DocumentCacheOptions> = Object.freeze({
  maxEntries: 1_000,
  maxBytes: 512 * 1024,
});

/** Most cost verdicts (operation name and variables) one document remembers; the oldest is forgotten first. */
const MAX_VERDICTS_PER_DOCUMENT = 8;
/** Longest verdict key remembered: a request with longer variables has its cost checked every time. */
const MAX_VERDICT_KEY_BYTES = 1_024;

/**
 * The request parts a document's admission depends on (a GraphQL-over-HTTP request's parameters).
 */
export interface DocumentRequest {
  /** The query text: the cache key. */
  readonly query: string;
  /** The operation to run, when named. */
  readonly operationName?: string | null | undefined;
  /** The request's variables, when any. */
  readonly variables?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * The steps that admit a document, in the order a miss runs them. Each answers `ok` to go on or `err` with the
 * refusal to send (`R`, whatever the caller answers with). Each must be a function of its inputs alone, with
 * the schema and limits fixed for the cache's lifetime: that is what makes skipping them on a hit safe.
 *
 * @example
 * ```ts
 * const steps: AdmissionSteps<readonly GraphQLError[]> = {
 *   parse: (text) => ok(parse(text)),
 *   checkCost: () => ok(undefined),
 *   validate: (document) => { const errors = validate(schema, document); return errors.length > 0 ? err(errors) : ok(undefined); },
 * };
 * ```
 */
export interface AdmissionSteps<R> {
  /** Bounds the text and parses it (run on a miss only). */
  readonly parse: (text: string) => Result<DocumentNode, R>;
  /** Measures and checks the cost for this request's operation name and variables (run unless remembered). */
  readonly checkCost: (document: DocumentNode) => Result<void, R>;
  /** Validates the document against the schema (run on a miss only). */
  readonly validate: (document: DocumentNode) => Result<void, R>;
}

/**
 * Counters of a {@link DocumentCache}.
 */
export interface DocumentCacheStats {
  /** Admissions that found their text cached (the document was not parsed nor validated again). */
  readonly hits: number;
  /** Admissions that did not. */
  readonly misses: number;
  /** Documents dropped to stay within the bounds. */
  readonly evictions: number;
  /** Documents kept now. */
  readonly entries: number;
  /** Bytes counted against `maxBytes` now. */
  readonly bytes: number;
}

/**
 * The cache of one schema's admitted documents (see {@link createDocumentCache}).
 */
export interface DocumentCache {
  /** The schema every kept document was validated against; the cache serves no other. */
  readonly schema: GraphQLSchema;
  /**
   * Admits a request's document. A miss runs `parse`, `checkCost` and `validate` in order and keeps the document
   * only when all three answer `ok`. A hit returns the kept document; it runs `checkCost` again unless this
   * operation name and these variables (only the operation name when the document declares no variables) were
   * admitted before. A refusal is never kept: it is the rare case for a working client, rebuilding it is bounded by
   * the steps' own limits, its errors carry per-request data (the media type of the answer), and flooding the cache
   * with refused texts could otherwise push out the documents of working clients.
   */
  admit<R>(request: DocumentRequest, steps: AdmissionSteps<R>): Result<DocumentNode, R>;
  /** The counters. */
  stats(): DocumentCacheStats;
  /** Forgets every document (the counters stay). */
  clear(): void;
}

interface Entry {
  readonly document: DocumentNode;
  /** Whether the variables can change the cost (the document declares a variable). */
  readonly declaresVariables: boolean;
  /** Admitted verdict keys, oldest first. */
  readonly verdicts: Set<string>;
  bytes: number;
}

function declaresVariables(document: DocumentNode): boolean {
  return document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0);
}

/** The key of a cost verdict, or `null` when it is not to be remembered. */
function verdictKey(entry: Pick<Entry, 'declaresVariables'>, request: DocumentRequest): string | null {
  let key: string;
  try {
    key = JSON.stringify([request.operationName ?? null, entry.declaresVariables ? (request.variables ?? null) : null]);
  } catch {
    // variables that are not JSON (a cycle, a bigint) cannot come from a request body: never remembered
    return null;
  }
  return Buffer.byteLength(key) <= MAX_VERDICT_KEY_BYTES ? key : null;
}

function bound(value: number | undefined, fallback: number): number {
  return value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value));
}

/**
 * Creates an empty document cache for one schema. An endpoint creates its own, with its own limits, so a document
 * admitted under one schema or one set of limits is never served under another.
 *
 * @param schema - The schema the documents are validated against.
 * @param options - Bounds; {@link DEFAULT_DOCUMENT_CACHE_OPTIONS} by default.
 * @returns The cache.
 *
 * @example
 * ```ts
 * const cache = createDocumentCache(schema, { maxEntries: 1_000 });
 * const first = cache.admit({ query: '{ currentUser { username } }' }, steps); // a miss: parsed, checked, validated
 * const second = cache.admit({ query: '{ currentUser { username } }' }, steps); // a hit: the same document
 * cache.stats(); // { hits: 1, misses: 1, evictions: 0, entries: 1, bytes: … }
 * ```
 */
export function createDocumentCache(schema: GraphQLSchema, options: DocumentCacheOptions = {}): DocumentCache {
  const maxEntries = bound(options.maxEntries, DEFAULT_DOCUMENT_CACHE_OPTIONS.maxEntries);
  const maxBytes = bound(options.maxBytes, DEFAULT_DOCUMENT_CACHE_OPTIONS.maxBytes);
  // A Map iterates in insertion order: re-inserting an entry on use keeps the least recently used first.
  const entries = new Map<string, Entry>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  let evictions = 0;

  function evictBeyondBounds(): void {
    for (const [text, entry] of entries) {
      if (entries.size <= maxEntries && bytes <= maxBytes) return;
      entries.delete(text);
      bytes -= entry.bytes;
      evictions++;
    }
  }

  function remember(entry: Entry, key: string | null): void {
    if (key === null || entry.verdicts.has(key)) return;
    const keyBytes = Buffer.byteLength(key);
    if (entry.bytes + keyBytes > maxBytes) return;
    if (entry.verdicts.size >= MAX_VERDICTS_PER_DOCUMENT) {
      const oldest = entry.verdicts.values().next();
      if (oldest.done !== true) {
        entry.verdicts.delete(oldest.value);
        entry.bytes -= Buffer.byteLength(oldest.value);
        bytes -= Buffer.byteLength(oldest.value);
      }
    }
    entry.verdicts.add(key);
    entry.bytes += keyBytes;
    bytes += keyBytes;
    evictBeyondBounds();
  }

  function admitCached<R>(text: string, entry: Entry, request: DocumentRequest, steps: AdmissionSteps<R>): Result<DocumentNode, R> {
    hits++;
    entries.delete(text);
    entries.set(text, entry);
    const key = verdictKey(entry, request);
    if (key !== null && entry.verdicts.has(key)) return ok(entry.document);
    return steps.checkCost(entry.document).map(() => {
      remember(entry, key);
      return entry.document;
    });
  }

  function store(text: string, document: DocumentNode, request: DocumentRequest): void {
    const textBytes = Buffer.byteLength(text);
    if (maxEntries === 0 || textBytes > maxBytes) return;
    const entry: Entry = { document, declaresVariables: declaresVariables(document), verdicts: new Set(), bytes: textBytes };
    entries.set(text, entry);
    bytes += textBytes;
    // the new entry is the most recent and fits alone: only older ones are evicted
    evictBeyondBounds();
    remember(entry, verdictKey(entry, request));
  }

  return {
    schema,
    admit(request, steps) {
      const text = request.query;
      const cached = entries.get(text);
      if (cached !== undefined) return admitCached(text, cached, request, steps);
      misses++;
      return steps
        .parse(text)
        .andThen((document) => steps.checkCost(document).map(() => document))
        .andThen((document) => steps.validate(document).map(() => document))
        .map((document) => {
          store(text, document, request);
          return document;
        });
    },
    stats: () => ({ hits, misses, evictions, entries: entries.size, bytes }),
    clear() {
      entries.clear();
      bytes = 0;
    },
  };
}
