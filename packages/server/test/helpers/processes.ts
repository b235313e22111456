/**
 * Real gatehouse server processes for the persistence tests: `packages/server/src/run/main.ts` under tsx, as `npm start` runs it,
 * on a free loopback port, with the data directory or `DATABASE_URL` the test gives.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { authorizeApproving } from './oauth-consent-client.js';

/** A running server process. */
export interface GatehouseProcess {
  /** The URL it listens on. */
  readonly url: string;
  /** The administrator token it printed at its first start, or `null` when it printed none (a later start). */
  readonly adminToken: string | null;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Stops it with SIGTERM (a graceful shutdown) and resolves when it has exited. */
  stop(): Promise<void>;
  /** Kills it with SIGKILL (a crash: no shutdown code runs) and resolves when it has exited. */
  crash(): Promise<void>;
}

/** How to start one. */
export interface ProcessOptions {
  /** Command-line arguments after `packages/server/src/run/main.ts`. */
  readonly args?: readonly string[];
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for it to listen (default 60 s: PGlite's first start creates a cluster). */
  readonly timeoutMs?: number;
}

/**
 * Starts the server and resolves once it printed its GraphQL address, and, at a first start, its administrator token
 * (printed right after it). Rejects with what it printed if it exits first or takes longer than the timeout.
 */
export async function startGatehouseProcess(options: ProcessOptions = {}): Promise<GatehouseProcess> {
  const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/main.ts', ...(options.args ?? [])], {
    env: { ...process.env, PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  const stdout = createInterface({ input: child.stdout });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start within ${options.timeoutMs ?? 60_000} ms:\n${lines.join('\n')}`)), options.timeoutMs ?? 60_000);
      let listening = false;
      stdout.on('line', (line) => {
        lines.push(line);
        if (line.startsWith('Administrator access token: ')) {
          clearTimeout(timer);
          resolve();
        } else if (line.startsWith('GraphQL API: ')) {
          listening = true;
          // A later start prints no token: give the line that would follow it a moment to arrive.
          setTimeout(() => {
            clearTimeout(timer);
            resolve();
          }, 500);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!listening) reject(new Error(`exited with ${String(code ?? signal)}:\n${lines.join('\n')}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
  const printed = lines.join('\n');
  const url = /gatehouse listening on (http:\/\/[0-9.]+:\d+)/.exec(printed)?.[1];
  if (url === undefined) throw new Error(`no address printed:\n${printed}`);
  return {
    url,
    adminToken: /Administrator access token: (\S+)/.exec(printed)?.[1] ?? null,
    output: () => lines.join('\n'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
    crash: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The answer of a GraphQL request: status and parsed body. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** POSTs a GraphQL request with an `Authorization` header. */
export async function graphql(url: string, authorization: string, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: await res.json() };
}

/** Signs up with the built-in provider through its JSON form (as the CLI and scripts do); returns status and session cookie. */
export async function signUp(url: string, username: string, password: string): Promise<{ status: number; cookie: string | null }> {
  const res = await fetch(`${url}/.auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@example.com`, password }),
  });
  await res.arrayBuffer();
  return { status: res.status, cookie: sessionCookieOf(res.headers) };
}

/** Signs in with the built-in provider through its JSON form; returns status and session cookie. */
export async function signIn(url: string, username: string, password: string): Promise<{ status: number; cookie: string | null }> {
  const res = await fetch(`${url}/.auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  await res.arrayBuffer();
  return { status: res.status, cookie: sessionCookieOf(res.headers) };
}

function sessionCookieOf(headers: Headers): string | null {
  for (const line of headers.getSetCookie()) {
    const pair = line.split(';', 1)[0] ?? '';
    if (pair.includes('=') && !pair.endsWith('=')) return pair;
  }
  return null;
}

/** Creates an access token with the given `Authorization`; returns its secret, or `null` when refused. */
export async function createToken(url: string, authorization: string, note: string): Promise<string | null> {
  const answer = await graphql(url, authorization, 'mutation($note: String!) { createAccessToken(note: $note, scopes: ["user:all"]) { token } }', { note });
  const data = (answer.body as { data?: { createAccessToken?: { token?: string } } }).data;
  return answer.status === 200 ? (data?.createAccessToken?.token ?? null) : null;
}

/** What `{ currentUser { <field> } }` answers for the browser session of `cookie` on `url` (with the CSRF header the console sends), or `null`. */
async function currentUserFieldWithCookie(url: string, cookie: string, field: 'username' | 'id'): Promise<string | null> {
  const res = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-requested-with': 'e2e' },
    body: JSON.stringify({ query: `{ currentUser { ${field} } }` }),
  });
  const body = (await res.json()) as { data?: { currentUser?: Record<string, string> | null } };
  return res.status === 200 ? (body.data?.currentUser?.[field] ?? null) : null;
}

/** The username the browser session of `cookie` signs in as on `url`, or `null`. */
export async function whoAmIWithCookie(url: string, cookie: string): Promise<string | null> {
  return currentUserFieldWithCookie(url, cookie, 'username');
}

/** The account id of the browser session of `cookie` on `url`, or `null`. */
export async function userIdWithCookie(url: string, cookie: string): Promise<string | null> {
  return currentUserFieldWithCookie(url, cookie, 'id');
}

/** The username the `Authorization` header signs in as, or `null` when refused. */
export async function whoAmI(url: string, authorization: string): Promise<string | null> {
  const answer = await graphql(url, authorization, '{ currentUser { username } }');
  const data = (answer.body as { data?: { currentUser?: { username?: string } | null } }).data;
  return answer.status === 200 ? (data?.currentUser?.username ?? null) : null;
}

/** An OAuth app and the token pair one authorization-code flow gave it. */
export interface OAuthPair {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

const REDIRECT_URI = 'https://app.example/cb';

/**
 * Registers an OAuth app (as the administrator) and runs one authorization-code flow with PKCE for the account
 * signed in by `cookie`, returning the token pair (spec §2.4).
 */
export async function oauthPair(url: string, adminToken: string, cookie: string): Promise<OAuthPair> {
  const registered = await graphql(
    url,
    `token ${adminToken}`,
    `mutation { registerOAuthApp(name: "e2e", redirectURIs: ["${REDIRECT_URI}"], scopes: ["user:all"]) { clientID clientSecret } }`,
  );
  const app = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
  const verifier = 'v'.repeat(43);
  const { createHash } = await import('node:crypto');
  const authorize = new URL(`${url}/.auth/idp/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: app.clientID,
    redirect_uri: REDIRECT_URI,
    scope: 'user:all',
    state: 'e2e-state',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })) authorize.searchParams.set(k, v);
  // the first authorization of the app shows the consent page: approve it as the person would
  const { response: redirected } = await authorizeApproving(authorize, cookie);
  const code = new URL(redirected.headers.get('location') ?? 'https://invalid/').searchParams.get('code') ?? '';
  const answer = await tokenRequest(url, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: app.clientID,
    client_secret: app.clientSecret,
  });
  if (answer.status !== 200 || answer.tokens === null) throw new Error(`code exchange refused: ${answer.status}`);
  return { clientId: app.clientID, clientSecret: app.clientSecret, ...answer.tokens };
}

/** Exchanges a refresh token; `tokens` is the new pair on 200, else `null`. */
export async function refresh(url: string, pair: Pick<OAuthPair, 'clientId' | 'clientSecret' | 'refreshToken'>): Promise<{ status: number; tokens: { accessToken: string; refreshToken: string } | null }> {
  return tokenRequest(url, {
    grant_type: 'refresh_token',
    refresh_token: pair.refreshToken,
    client_id: pair.clientId,
    client_secret: pair.clientSecret,
  });
}

async function tokenRequest(url: string, form: Record<string, string>): Promise<{ status: number; tokens: { accessToken: string; refreshToken: string } | null }> {
  const res = await fetch(`${url}/.auth/idp/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json()) as { access_token?: string; refresh_token?: string };
  return {
    status: res.status,
    tokens: res.status === 200 && body.access_token !== undefined && body.refresh_token !== undefined ? { accessToken: body.access_token, refreshToken: body.refresh_token } : null,
  };
}

/** A free loopback port (listened on and released). */
export { freePort } from './free-port.js';
