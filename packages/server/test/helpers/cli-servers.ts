/**
 * Servers the CLI tests talk to, all on 127.0.0.1 (or a Unix socket in a temporary directory): a front that
 * records each request and gunzips its body before passing it on (plain or TLS with a self-signed certificate),
 * and a small HTTP proxy (absolute-URI requests and CONNECT tunnels) that records what it was asked.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

/** One request as the front received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Whether the body came with `Content-Encoding: gzip` and was valid gzip. */
  readonly gzipped: boolean;
  /** The body after decompression. */
  readonly body: string;
}

/** A running front. */
export interface Front {
  /** `http://127.0.0.1:port` or `https://127.0.0.1:port`; for a Unix socket, `http://gatehouse.invalid`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A self-signed certificate for `localhost` and 127.0.0.1, made with openssl, or `null` when openssl is missing. */
export function selfSignedCertificate(): { key: string; cert: string } | null {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cli-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function listen(server: Server, where: { port: 0 } | { path: string }): Promise<void> {
  return new Promise((resolve) => {
    if ('path' in where) server.listen(where.path, resolve);
    else server.listen(0, '127.0.0.1', resolve);
  });
}

/**
 * Starts a front for `target` (a base URL): each request is recorded, its gzip body decompressed, and passed on
 * with `Content-Encoding` removed; the answer comes back as it is. `extraResponseHeaders` are added to answers.
 */
export async function startFront(
  target: string,
  options: { tls?: { key: string; cert: string }; socketPath?: string; extraResponseHeaders?: Record<string, string> } = {},
): Promise<Front> {
  const requests: RecordedRequest[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void readBody(req).then((raw) => {
      const compressed = String(req.headers['content-encoding'] ?? '') === 'gzip';
      let body = raw;
      let gzipped = false;
      if (compressed) {
        try {
          body = gunzipSync(raw);
          gzipped = true;
        } catch {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('bad gzip');
          return;
        }
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, gzipped, body: body.toString('utf8') });
      const headers: IncomingHttpHeaders = { ...req.headers, 'content-length': String(body.length), host: new URL(target).host };
      delete headers['content-encoding'];
      const forward = httpRequest(new URL(req.url ?? '/', target), { method: req.method ?? 'POST', headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage ?? '', { ...answer.headers, ...options.extraResponseHeaders });
        answer.pipe(res);
      });
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    });
  };
  const server = options.tls === undefined ? createServer(handler) : createHttpsServer(options.tls, handler);
  await listen(server, options.socketPath === undefined ? { port: 0 } : { path: options.socketPath });
  const scheme = options.tls === undefined ? 'http' : 'https';
  const url = options.socketPath === undefined ? `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}` : `${scheme}://gatehouse.invalid`;
  return { url, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** What the proxy was asked. */
export interface ProxyLogEntry {
  readonly method: string;
  /** The absolute URI, or the authority of a CONNECT. */
  readonly target: string;
  readonly proxyAuthorization: string | undefined;
}

/** A running proxy. */
export interface Proxy {
  /** `http://127.0.0.1:port`. */
  readonly url: string;
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP proxy. `hosts` maps the host names it resolves itself (`gatehouse.test:80` →
 * `127.0.0.1:1234`), so a test can name a host no DNS knows and see the request arrive only through the proxy;
 * other authorities are connected to as they are. With `credentials`, a request without that
 * `Proxy-Authorization` is answered 407.
 */
export async function startProxy(options: { hosts?: Record<string, string>; credentials?: string } = {}): Promise<Proxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const resolveAuthority = (authority: string): string => options.hosts?.[authority] ?? authority;
  const authorized = (header: string | undefined): boolean =>
    options.credentials === undefined || header === `Basic ${Buffer.from(options.credentials).toString('base64')}`;
  const server = createServer((req, res) => {
    const target = req.url ?? '';
    log.push({ method: req.method ?? '', target, proxyAuthorization: req.headers['proxy-authorization'] });
    if (!authorized(req.headers['proxy-authorization'])) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    if (!URL.canParse(target)) {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    const url = new URL(target);
    const [host, port] = resolveAuthority(`${url.hostname}:${url.port === '' ? '80' : url.port}`).split(':');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const forward = httpRequest({ host, port: Number(port), method: req.method ?? 'GET', path: `${url.pathname}${url.search}`, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage ?? '', answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const authority = req.url ?? '';
    log.push({ method: 'CONNECT', target: authority, proxyAuthorization: req.headers['proxy-authorization'] });
    if (!authorized(req.headers['proxy-authorization'])) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = resolveAuthority(authority).split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream).add(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await listen(server, { port: 0 });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
