/**
 * The HTTP client of `gatehouse api`, on `node:http` and `node:https`: straight to the server, through an HTTP
 * proxy (an absolute-URI request for `http:` targets, a `CONNECT` tunnel for `https:` ones), or through a Unix
 * socket, with TLS verification that `-insecure-skip-verify` turns off. Node's own `fetch` reads no proxy settings,
 * hence this module.
 *
 * @module
 */
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { ProxyRoute } from './config.js';

/**
 * One request to send.
 *
 * @example
 * ```ts
 * const request: HttpRequest = { url: new URL('http://127.0.0.1:3080/.api/graphql'), headers: [['Content-Type', 'application/json']], body: Buffer.from('{}') };
 * ```
 */
export interface HttpRequest {
  /** The absolute URL. */
  readonly url: URL;
  /** Header names and values, in order. */
  readonly headers: readonly (readonly [string, string])[];
  /** The POST body, sent as it is. */
  readonly body: Uint8Array;
}

/**
 * What the server answered, its body decompressed when it came with `Content-Encoding: gzip` or `deflate`.
 *
 * @example
 * ```ts
 * const response: HttpResponse = { status: 200, statusText: 'OK', headers: {}, body: Buffer.from('{"data":{}}') };
 * ```
 */
export interface HttpResponse {
  /** The status code. */
  readonly status: number;
  /** The reason phrase. */
  readonly statusText: string;
  /** The response headers, by lowercase name. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body. */
  readonly body: Buffer;
}

/**
 * How {@link sendRequest} connects.
 *
 * @example
 * ```ts
 * const options: TransportOptions = { route: { kind: 'direct' }, insecureSkipVerify: false, timeoutMs: 120_000 };
 * ```
 */
export interface TransportOptions {
  /** Direct, an HTTP proxy or a Unix socket. */
  readonly route: ProxyRoute;
  /** Accept any TLS certificate from the server (and from an `https:` proxy). */
  readonly insecureSkipVerify: boolean;
  /** How long the whole exchange may take. */
  readonly timeoutMs: number;
}

/** The most response body kept, compressed or not: a GraphQL answer larger than this is refused. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

function defaultPort(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/** `Proxy-Authorization` for a proxy URL carrying `user:password@` (RFC 9110 §11.7.2, Basic). */
function proxyAuthorization(proxy: URL): Record<string, string> {
  if (proxy.username === '' && proxy.password === '') return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

function headerObject(request: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name] = value;
  return headers;
}

/** Opens a tunnel to `target` through the proxy with `CONNECT` (RFC 9110 §9.3.6) and resolves its socket. */
function tunnel(proxy: URL, target: URL, options: TransportOptions, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${defaultPort(target)}`;
    const connectOptions: RequestOptions = {
      method: 'CONNECT',
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: defaultPort(proxy),
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      signal,
    };
    const req =
      proxy.protocol === 'https:'
        ? httpsRequest({ ...connectOptions, rejectUnauthorized: !options.insecureSkipVerify, servername: proxy.hostname })
        : httpRequest(connectOptions);
    req.once('connect', (res: IncomingMessage, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new Error(`proxy ${proxy.host} refused CONNECT ${authority}: ${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trimEnd()));
        return;
      }
      resolve(socket);
    });
    req.once('error', reject);
    req.end();
  });
}

function readResponse(req: ClientRequest, body: Uint8Array): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.destroy(new Error(`the response is larger than ${MAX_RESPONSE_BYTES} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.once('error', reject);
      res.once('end', () => {
        let data = Buffer.concat(chunks);
        const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
        try {
          if (encoding === 'gzip' || encoding === 'x-gzip') data = gunzipSync(data, { maxOutputLength: MAX_RESPONSE_BYTES });
          else if (encoding === 'deflate') data = inflateSync(data, { maxOutputLength: MAX_RESPONSE_BYTES });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: data });
      });
    });
    req.end(body);
  });
}

/**
 * Sends one POST and reads the whole answer. Rejects on a transport failure (no connection, a refused tunnel, a
 * TLS error, the timeout); any HTTP status resolves. Asks for a gzip-compressed answer (`Accept-Encoding: gzip`,
 * as Go's client does) and decompresses it.
 *
 * @param request - URL, headers and body.
 * @param options - Route, TLS verification and timeout.
 * @returns The answer.
 * @example
 * ```ts
 * const answer = await sendRequest({ url, headers, body }, { route: { kind: 'direct' }, insecureSkipVerify: false, timeoutMs: 120_000 });
 * ```
 */
export async function sendRequest(request: HttpRequest, options: TransportOptions): Promise<HttpResponse> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const target = request.url;
  const secure = target.protocol === 'https:';
  const headers = { 'accept-encoding': 'gzip', ...headerObject(request), 'content-length': String(request.body.byteLength) };
  const base = { method: 'POST', headers, signal } as const;
  const tls = { rejectUnauthorized: !options.insecureSkipVerify, servername: target.hostname.replace(/^\[|\]$/g, '') };
  const route = options.route;
  if (route.kind === 'direct') {
    const req = (secure ? httpsRequest : httpRequest)(target, { ...base, ...(secure ? tls : {}) });
    return readResponse(req, request.body);
  }
  if (route.kind === 'unix_socket') {
    const path = `${target.pathname}${target.search}`;
    const hostHeader = { host: target.host };
    const req = secure
      ? httpsRequest({ ...base, ...tls, headers: { ...hostHeader, ...headers }, path, agent: false, createConnection: () => tlsConnect({ path: route.path, ...tls }) })
      : httpRequest({ ...base, headers: { ...hostHeader, ...headers }, path, socketPath: route.path });
    return readResponse(req, request.body);
  }
  const proxy = new URL(route.proxy);
  if (!secure) {
    // An absolute-URI request to the proxy (RFC 9112 §3.2.2).
    const req = (proxy.protocol === 'https:' ? httpsRequest : httpRequest)({
      ...base,
      ...(proxy.protocol === 'https:' ? { rejectUnauthorized: !options.insecureSkipVerify, servername: proxy.hostname } : {}),
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: defaultPort(proxy),
      path: target.href,
      headers: { host: target.host, ...headers, ...proxyAuthorization(proxy) },
    });
    return readResponse(req, request.body);
  }
  const socket = await tunnel(proxy, target, options, signal);
  const req = httpsRequest(target, { ...base, ...tls, agent: false, createConnection: () => tlsConnect({ socket, ...tls }) });
  return readResponse(req, request.body);
}
