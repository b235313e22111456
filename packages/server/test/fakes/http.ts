/**
 * Shared pieces of the fake code hosts and the test browser: loopback servers and a cookie-keeping client.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<Listening> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Counter-based ids and codes: deterministic, unique within a fake. */
export function counter(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

/** What the authorize endpoint of a fake remembers per code. */
export interface IssuedCode {
  readonly user: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly challenge: string | null;
  readonly scope: string | null;
}

/**
 * The OAuth half shared by the fake code hosts: `authorize` issues a code for the user named by `as`
 * (standing in for the host's own login page) and redirects to `redirect_uri`; `token` checks the client,
 * the redirect URI and PKCE, and spends the code once.
 */
export interface FakeOAuth {
  readonly authorizeRequests: URL[];
  readonly tokens: Map<string, string>;
  authorize(url: URL, res: ServerResponse, knownUser: (login: string) => boolean): void;
  token(req: IncomingMessage): Promise<{ readonly user: string; readonly token: string } | { readonly error: string }>;
  userOf(req: IncomingMessage): string | null;
}

export function fakeOAuth(options: { readonly clientId: string; readonly clientSecret: string; readonly basicAuth?: boolean }): FakeOAuth {
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, string>();
  const nextCode = counter('code-');
  const nextToken = counter('token-');
  const authorizeRequests: URL[] = [];
  return {
    authorizeRequests: authorizeRequests,
    tokens: tokens,
    authorize(url: URL, res: ServerResponse, knownUser: (login: string) => boolean): void {
      authorizeRequests.push(url);
      const clientId = url.searchParams.get('client_id');
      const redirectUri = url.searchParams.get('redirect_uri');
      const state = url.searchParams.get('state');
      const user = url.searchParams.get('as');
      if (clientId !== options.clientId || redirectUri === null || user === null || !knownUser(user)) {
        json(res, 400, { error: 'invalid_request' });
        return;
      }
      const back = new URL(redirectUri);
      if (url.searchParams.get('deny') === '1') {
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = nextCode();
        codes.set(code, {
          user,
          clientId,
          redirectUri,
          challenge: url.searchParams.get('code_challenge'),
          scope: url.searchParams.get('scope'),
        });
        back.searchParams.set('code', code);
      }
      if (state !== null) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.href });
      res.end();
    },
    /** Returns the user's login for a valid request, or an OAuth error. */
    async token(req: IncomingMessage): Promise<{ readonly user: string; readonly token: string } | { readonly error: string }> {
      const form = new URLSearchParams(await readText(req));
      let clientId = form.get('client_id');
      let clientSecret = form.get('client_secret');
      if (options.basicAuth === true) {
        const header = req.headers.authorization ?? '';
        const [id, secret] = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8').split(':');
        clientId = decodeURIComponent(id ?? '');
        clientSecret = decodeURIComponent(secret ?? '');
      }
      if (clientId !== options.clientId || clientSecret !== options.clientSecret) return { error: 'invalid_client' };
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      codes.delete(code);
      if (issued === undefined || issued.redirectUri !== form.get('redirect_uri')) return { error: 'invalid_grant' };
      if (issued.challenge !== null && s256(form.get('code_verifier') ?? '') !== issued.challenge) return { error: 'invalid_grant' };
      const token = nextToken();
      tokens.set(token, issued.user);
      return { user: issued.user, token };
    },
    userOf(req: IncomingMessage): string | null {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer (.+)$/.exec(header);
      return match?.[1] === undefined ? null : (tokens.get(match[1]) ?? null);
    },
  };
}

/** Slices `items` into pages of `perPage` (1-based `page`). */
export function pageOf<T>(items: readonly T[], page: number, perPage: number): { readonly items: readonly T[]; readonly last: number } {
  const last = Math.max(1, Math.ceil(items.length / perPage));
  return { items: items.slice((page - 1) * perPage, page * perPage), last };
}

/**
 * A browser for the tests: follows nothing by itself (each hop is visible), keeps cookies per host.
 */
export interface Browser {
  readonly jar: Map<string, Map<string, string>>;
  get(url: string, headers?: Record<string, string>): Promise<Response>;
  postForm(url: string, form: Record<string, string>): Promise<Response>;
  follow(url: string, stop?: (url: URL) => boolean): Promise<{ readonly response: Response; readonly url: string }>;
}

export function createBrowser(): Browser {
  const jar = new Map<string, Map<string, string>>();
  const cookieHeader = (url: URL): string | undefined => {
    const cookies = jar.get(url.host);
    if (cookies === undefined || cookies.size === 0) return undefined;
    return [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  };
  const remember = (url: URL, response: Response): void => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const cookies = jar.get(url.host) ?? new Map<string, string>();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') cookies.delete(name);
      else cookies.set(name, value);
      jar.set(url.host, cookies);
    }
  };
  const send = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input);
    const headers = new Headers(init.headers);
    const cookie = cookieHeader(url);
    if (cookie !== undefined) headers.set('cookie', cookie);
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    remember(url, response);
    return response;
  };
  return {
    jar: jar,
    get: (url: string, headers: Record<string, string> = {}): Promise<Response> => send(url, { headers }),
    postForm: (url: string, form: Record<string, string>): Promise<Response> =>
      send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }),
    /** Follows redirects (GET) until a non-redirect or `stop(url)` says to stop; returns the last response. */
    async follow(url: string, stop: (url: URL) => boolean = () => false): Promise<{ readonly response: Response; readonly url: string }> {
      let current = url;
      for (let hop = 0; hop < 20; hop++) {
        if (stop(new URL(current))) return { response: new Response(null, { status: 204 }), url: current };
        const response = await send(current);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || location === null) return { response, url: current };
        await response.body?.cancel();
        current = new URL(location, current).href;
      }
      throw new Error('too many redirects');
    },
  };
}
