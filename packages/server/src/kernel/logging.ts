/**
 * Structured logs: the {@link LogEntry} sink every module writes to, the request id carried through a request
 * (so every line logged while serving it names it), the default sink (pino JSON lines with time and level on
 * standard error, level from `LOG_LEVEL`), and the non-secret reason of a refused request for the access log.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { pino } from 'pino';
import { createBatchedDestination } from './log-batch.js';

/**
 * One structured log line. It never carries a secret, a raw header value or a query string.
 *
 * @example
 * ```ts
 * const line: LogEntry = { level: 'info', event: 'request', method: 'POST', path: '/.api/graphql', status: 200, ms: 3 };
 * ```
 */
export interface LogEntry {
  /** Severity. */
  readonly level: 'info' | 'warn' | 'error';
  /** What happened: `request`, `audit`, `internal_error`, … */
  readonly event: string;
  /** Further scalar facts. */
  readonly [field: string]: string | number | boolean | null;
}

/**
 * Options of {@link createPinoLog}.
 *
 * @example
 * ```ts
 * const options: PinoLogOptions = { level: 'warn' };
 * ```
 */
export interface PinoLogOptions {
  /** Lowest level written: `debug`, `info`, `warn`, `error`, `silent`, … Default: `LOG_LEVEL`, else `info`. */
  readonly level?: string;
  /** Where lines go. Default: `process.stderr`. */
  readonly destination?: LogDestination;
}

/**
 * Where {@link createPinoLog} writes its lines.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * const destination: LogDestination = { write: (line) => lines.push(line) };
 * ```
 */
export interface LogDestination {
  /**
   * Receives one JSON line (with its newline).
   *
   * @param line - The line.
   * @returns Anything.
   */
  write(line: string): unknown;
}

const LEVELS: ReadonlySet<string> = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);

/**
 * The default log sink: one pino JSON line per entry, with `level` (a name), `time` (ISO 8601), `event`, the
 * entry's fields and, inside a request, `requestId`. An `info` `authentication` event is written at `debug`: the
 * request's access line names its scheme and result, so the default output has one line per request.
 *
 * @param options - Level and destination.
 * @returns The sink.
 *
 * @example
 * ```ts
 * const log = createPinoLog({ level: process.env.LOG_LEVEL });
 * log({ level: 'warn', event: 'external_url_mismatch', externalURL: 'https://a.example', listening: 'http://127.0.0.1:3080' });
 * ```
 */
export function createPinoLog(options: PinoLogOptions = {}): (entry: LogEntry) => void {
  const wanted = (options.level ?? process.env['LOG_LEVEL'] ?? 'info').toLowerCase();
  const logger = pino(
    {
      level: LEVELS.has(wanted) ? wanted : 'info',
      base: null,
      timestamp: isoTimeOncePerMillisecond(),
      formatters: { level: (label) => ({ level: label }) },
      messageKey: 'msg',
    },
    options.destination ?? standardError(),
  );
  return (entry) => {
    const { level, ...fields } = entry;
    const id = fields['requestId'] === undefined ? currentRequestId() : null;
    const withId = id === null ? fields : { ...fields, requestId: id };
    logger[level === 'info' && entry.event === 'authentication' ? 'debug' : level](withId, entry.event);
  };
}

/**
 * pino's `isoTime` (`,"time":"2024-05-01T12:00:00.000Z"`), formatted once per millisecond: lines logged within the
 * same millisecond share the text.
 */
function isoTimeOncePerMillisecond(): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

/** The process's one asynchronous standard-error destination, made at first use (see {@link standardError}). */
let sharedStandardError: LogDestination | null = null;

/** Longest a line waits to be written to standard error with the lines logged after it, in milliseconds. */
const LOG_BATCH_MS = 10;
/** A batch of lines this long (in characters) is written at once. */
const LOG_BATCH_CHARS = 16_384;

/**
 * Standard error through pino's asynchronous destination: a line is handed to the operating system without
 * blocking the request that logged it, the lines of up to {@link LOG_BATCH_MS} ms in one write (log-batch.ts), and
 * whatever is still waiting is written synchronously when the process exits, so no line is lost at a normal
 * exit, at `process.exit` or after an uncaught exception. One per process, shared by every server in it.
 */
function standardError(): LogDestination {
  if (sharedStandardError !== null) return sharedStandardError;
  const destination = createBatchedDestination(pino.destination({ dest: 2, sync: false }), { intervalMs: LOG_BATCH_MS, maxChars: LOG_BATCH_CHARS });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // nothing is buffered, or standard error is gone: nothing more can be written
    }
  });
  sharedStandardError = destination;
  return destination;
}

/**
 * What is known of the request being served: its id, and what its access line says besides its own fields (the
 * scheme and result of its authentication, noted by the server when the `authentication` event is logged).
 *
 * @example
 * ```ts
 * const context: RequestContext = { requestId: '0b1c…', authentication: null };
 * ```
 */
export interface RequestContext {
  /** The request id. */
  readonly requestId: string;
  /** The scheme and result of the request's `authentication` event, once logged. */
  authentication: { readonly scheme: string; readonly result: string } | null;
}

const requests = new AsyncLocalStorage<RequestContext>();
/** How many {@link runInRequest} calls have not settled yet. */
let running = 0;

/** Ends one {@link runInRequest}; the last one turns the tracking off. */
function leave(): void {
  running--;
  // With no request in its context, the storage is disabled: Node then tracks no asynchronous resource for it, and
  // a promise costs what it costs without async hooks (about a quarter of an API request's CPU while tracking).
  if (running === 0) requests.disable();
}

/**
 * Runs `fn` as part of a request: {@link currentRequestId} answers its id in everything
 * `fn` starts, until the promise `fn` returns settles. While no such call is under way, no asynchronous context is
 * tracked at all: the API's own requests name their id explicitly (see `api/endpoint.ts`) and run here only for
 * what may log from deeper down (a mutation's audit lines, a refused sudo's audit entry).
 *
 * @param context - The request's context.
 * @param fn - The work.
 * @returns What `fn` returns.
 *
 * @example
 * ```ts
 * await runInRequest({ requestId: '0b1c…', authentication: null }, () => handle(req, res));
 * ```
 */
export function runInRequest<T>(context: RequestContext, fn: () => Promise<T>): Promise<T> {
  running++;
  let work: Promise<T>;
  try {
    work = requests.run(context, fn);
  } catch (error) {
    leave();
    throw error;
  }
  return work.finally(leave);
}

/**
 * The id of the request being served, or `null` outside one.
 *
 * @returns The request id.
 *
 * @example
 * ```ts
 * log({ level: 'info', event: 'x', requestId: currentRequestId() });
 * ```
 */
export function currentRequestId(): string | null {
  return requests.getStore()?.requestId ?? null;
}

/**
 * Wraps a sink so that every entry logged inside a {@link runInRequest} carries its `requestId` (an entry that names
 * one already keeps it).
 *
 * @param sink - The sink.
 * @returns The wrapped sink.
 *
 * @example
 * ```ts
 * const log = withRequestId((entry) => lines.push(entry));
 * ```
 */
export function withRequestId(sink: (entry: LogEntry) => void): (entry: LogEntry) => void {
  return (entry) => {
    if (entry['requestId'] !== undefined) return sink(entry);
    const id = currentRequestId();
    sink(id === null ? entry : { ...entry, requestId: id });
  };
}

/** Longest refusal reason kept. */
const MAX_REASON = 200;

/** Why each refused response refused its request, noted when its body is written (see {@link refusalReasonOf}). */
const REFUSAL_REASONS = new WeakMap<ServerResponse, string | null>();

/**
 * Notes why a response refuses its request (status 400 and above), read from the body it sends: a JSON error's
 * `extensions.code` or `code` (else its message), an OAuth `error`, an HTML page's title. Quoted text in a message
 * is replaced by `"…"`, so an echoed input value (a variable, a name) never reaches the log. The one writer
 * (respond.ts) calls it; the first note of a response stands.
 *
 * @param res - The response.
 * @param body - The body it sends.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * if (res.statusCode >= 400) noteRefusalReason(res, '{"error":{"code":"not_found","message":"Not found."}}');
 * ```
 */
export function noteRefusalReason(res: ServerResponse, body: string | Uint8Array): void {
  if (REFUSAL_REASONS.has(res)) return;
  const text = typeof body === 'string' ? body.slice(0, 8192) : Buffer.from(body.subarray(0, 8192)).toString('utf8');
  REFUSAL_REASONS.set(res, reasonOf(text));
}

/**
 * Notes the refusal reason of a response that other code writes itself (a route that writes to the `node:http`
 * response): its `end` is wrapped so that the body it ends with is read as {@link noteRefusalReason} reads it.
 *
 * @param res - The response, before anything is written.
 * @returns Nothing.
 *
 * @example
 * ```ts
 * captureRefusalReason(res);
 * await entry.stream(req, res, url);
 * ```
 */
export function captureRefusalReason(res: ServerResponse): void {
  const end = res.end as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  // `end(chunk, encoding, callback)` treats a missing argument and `undefined` alike: no rest array is needed
  const patched = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown): ServerResponse {
    if (res.statusCode >= 400 && (typeof chunk === 'string' || chunk instanceof Uint8Array)) noteRefusalReason(res, chunk);
    return end.call(res, chunk, encoding, callback);
  };
  res.end = patched as ServerResponse['end'];
}

/**
 * Why a finished response refused its request: the reason noted from its body, else its status message; `null`
 * for a response below 400.
 *
 * @param res - The response.
 * @returns The reason, or `null`.
 *
 * @example
 * ```ts
 * res.on('close', () => log({ level: 'info', event: 'request', status: res.statusCode, reason: refusalReasonOf(res) }));
 * ```
 */
export function refusalReasonOf(res: ServerResponse): string | null {
  return res.statusCode >= 400 ? (REFUSAL_REASONS.get(res) ?? (res.statusMessage || null)) : null;
}

function reasonOf(text: string): string | null {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const body = JSON.parse(text) as unknown;
      return clean(jsonReason(body));
    } catch {
      return null;
    }
  }
  const title = /<title>([^<]*)<\/title>/iu.exec(text)?.[1] ?? null;
  const message = /<p>([^<]*)<\/p>/iu.exec(text)?.[1] ?? null;
  if (title !== null) return clean(message === null ? title : `${title}: ${message}`);
  return clean(trimmed.split('\n')[0] ?? null);
}

function jsonReason(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const first = Array.isArray(record['errors']) ? (record['errors'][0] as unknown) : record['error'];
  if (typeof first === 'string') {
    // an OAuth error answer: { "error": "invalid_grant", "error_description": "…" }
    return typeof record['error_description'] === 'string' ? `${first}: ${record['error_description']}` : first;
  }
  if (typeof first !== 'object' || first === null) return null;
  const error = first as Record<string, unknown>;
  const extensions = typeof error['extensions'] === 'object' && error['extensions'] !== null ? (error['extensions'] as Record<string, unknown>) : {};
  const code = typeof extensions['code'] === 'string' ? extensions['code'] : typeof error['code'] === 'string' ? error['code'] : null;
  const message = typeof error['message'] === 'string' ? error['message'] : null;
  if (code !== null && message !== null) return `${code}: ${message}`;
  return code ?? message;
}

function clean(reason: string | null): string | null {
  if (reason === null) return null;
  const text = reason.replace(/"[^"]*"/gu, '"…"').replace(/\s+/gu, ' ').trim();
  return text === '' ? null : text.slice(0, MAX_REASON);
}
