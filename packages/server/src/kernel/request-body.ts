/**
 * Reading the body of `POST /.api/graphql` as the service's own clients send it: plain, or compressed with
 * `Content-Encoding: gzip` (the `src api` command line client always compresses) or `deflate`. The size limit
 * applies to the bytes received and, separately, to the decompressed bytes, so a small compressed body that
 * inflates to gigabytes (a zip bomb) is refused after at most the limit plus one inflater chunk of output.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import type { Gunzip, Inflate } from 'node:zlib';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';

/**
 * Why an API request body could not be read.
 *
 * @example
 * ```ts
 * const e: RequestBodyError = { code: 'unsupported_encoding', encoding: 'br' };
 * ```
 */
export type RequestBodyError =
  /** More than `limit` bytes were received, or the body decompresses to more than `limit` bytes (HTTP 413). */
  | { readonly code: 'body_too_large'; readonly limit: number }
  /** The (decompressed) body is not valid UTF-8 (HTTP 400). */
  | { readonly code: 'invalid_utf8' }
  /** A `Content-Encoding` other than `gzip`, `x-gzip`, `deflate` and `identity`, or several of them (HTTP 415). */
  | { readonly code: 'unsupported_encoding'; readonly encoding: string }
  /** The body is not valid data of its declared `Content-Encoding` (HTTP 400). */
  | { readonly code: 'invalid_compressed_body'; readonly encoding: 'gzip' | 'deflate' }
  /** The client went away or the server's timeout ended the request before the body was complete. */
  | { readonly code: 'aborted' };

/**
 * The content codings an API request body may carry, as sent in `Accept-Encoding` on a 415 (RFC 7694).
 *
 * @example
 * ```ts
 * res.setHeader('accept-encoding', ACCEPTED_REQUEST_ENCODINGS);
 * ```
 */
export const ACCEPTED_REQUEST_ENCODINGS = 'gzip, deflate';

/** Output chunk of the inflater: the most it can produce beyond the limit before it is stopped. */
const INFLATE_CHUNK_BYTES = 16 * 1024;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The one content coding of a request, `identity` for none; `null` for codings gatehouse does not decode. */
function contentCoding(header: string | undefined): 'identity' | 'gzip' | 'deflate' | null {
  // RFC 9110 §8.4: a list of codings in the order applied; `identity` (no coding) may appear and changes nothing.
  const codings = (header ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return 'identity';
  if (codings.length > 1) return null;
  const [coding] = codings;
  // RFC 9110 §8.4.1.3: x-gzip is an alias of gzip. `deflate` is the zlib format (RFC 9110 §8.4.1.2).
  if (coding === 'gzip' || coding === 'x-gzip') return 'gzip';
  if (coding === 'deflate') return 'deflate';
  return null;
}

/**
 * Options of {@link readRequestBody}.
 *
 * @example
 * ```ts
 * const forms: RequestBodyOptions = { decompress: false };
 * ```
 */
export interface RequestBodyOptions {
  /** Whether a `gzip` or `deflate` body is decompressed; when `false` it is `unsupported_encoding`. Default `true`. */
  readonly decompress?: boolean;
}

/**
 * Reads the whole request body as UTF-8 text, decompressing a `gzip` or `deflate` body. At most `limit` bytes
 * are read from the connection (checked against `Content-Length` first, then while streaming) and at most
 * `limit` decompressed bytes are kept: the inflater is stopped as soon as its output passes the limit.
 *
 * @param req - The request.
 * @param limit - Maximum body size in bytes, compressed and decompressed alike.
 * @param options - Whether compressed bodies are accepted.
 * @returns The body text, or why it could not be read.
 *
 * @example
 * ```ts
 * const body = await readRequestBody(req, 1 << 20);
 * if (body.isErr() && body.error.code === 'body_too_large') sendJson(res, 413, { errors: [...] });
 * ```
 */
export function readRequestBody(
  req: IncomingMessage,
  limit: number,
  options: RequestBodyOptions = {},
): Promise<Result<string, RequestBodyError>> {
  return new Promise((resolve) => {
    const header = req.headers['content-encoding'];
    const coding = contentCoding(header);
    if (coding === null || (coding !== 'identity' && options.decompress === false)) {
      resolve(err({ code: 'unsupported_encoding', encoding: (header ?? '').trim().slice(0, 100) }));
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
      resolve(err({ code: 'body_too_large', limit }));
      return;
    }
    const inflater: Gunzip | Inflate | null =
      coding === 'gzip'
        ? createGunzip({ chunkSize: INFLATE_CHUNK_BYTES })
        : coding === 'deflate'
          ? createInflate({ chunkSize: INFLATE_CHUNK_BYTES })
          : null;
    const chunks: Buffer[] = [];
    let received = 0;
    let kept = 0;
    let settled = false;

    // The steps are methods of one object rather than named arrow functions: a request makes them once each, and
    // a method costs no name definition per request where the module runs through a transform that keeps names.
    // None reads `this`, so each is handed to an emitter as it is.
    const on = {
      finish(result: Result<string, RequestBodyError>): void {
        if (settled) return;
        settled = true;
        req.removeListener('data', on.data);
        req.removeListener('end', on.end);
        req.removeListener('error', on.abort);
        req.removeListener('close', on.close);
        chunks.length = 0;
        if (inflater !== null) {
          inflater.removeAllListeners('data');
          inflater.destroy();
        }
        resolve(result);
      },
      tooLarge(): void {
        // Stop reading; the caller answers 413 and closes the connection rather than drain it.
        req.pause();
        on.finish(err({ code: 'body_too_large', limit }));
      },
      keep(chunk: Buffer): void {
        kept += chunk.length;
        if (kept > limit) {
          on.tooLarge();
          return;
        }
        chunks.push(chunk);
      },
      decode(): void {
        const bytes = Buffer.concat(chunks, kept);
        try {
          on.finish(ok(strictUtf8.decode(bytes)));
        } catch {
          on.finish(err({ code: 'invalid_utf8' }));
        }
      },
      data(chunk: Buffer): void {
        received += chunk.length;
        if (received > limit) {
          on.tooLarge();
          return;
        }
        if (inflater === null) {
          on.keep(chunk);
          return;
        }
        if (!inflater.write(chunk)) {
          req.pause();
          inflater.once('drain', () => {
            if (!settled) req.resume();
          });
        }
      },
      end(): void {
        if (inflater === null) on.decode();
        else inflater.end();
      },
      abort(): void {
        on.finish(err({ code: 'aborted' }));
      },
      close(): void {
        if (!req.complete) on.finish(err({ code: 'aborted' }));
      },
    };
    if (inflater !== null) {
      const encoding = coding === 'deflate' ? 'deflate' : 'gzip';
      inflater.on('data', on.keep);
      inflater.once('end', on.decode);
      inflater.on('error', () => on.finish(err({ code: 'invalid_compressed_body', encoding })));
    }
    req.on('data', on.data);
    req.on('end', on.end);
    req.on('error', on.abort);
    req.on('close', on.close);
  });
}

/**
 * Whether a request URL carries an access token in its query string (`?token=` or `?access_token=`). The
 * API refuses such a request rather than answer it anonymously: a migrated script would otherwise fail
 * silently, and a token in a URL ends up in logs and browser history.
 *
 * @param search - The query string, with or without its leading `?`.
 * @returns `true` when a `token` or `access_token` parameter is present (even empty).
 *
 * @example
 * ```ts
 * hasTokenInQuery('?access_token=gat_x'); // true
 * hasTokenInQuery('?query=%7B%7D'); // false
 * ```
 */
export function hasTokenInQuery(search: string): boolean {
  const params = new URLSearchParams(search);
  return params.has('token') || params.has('access_token');
}
