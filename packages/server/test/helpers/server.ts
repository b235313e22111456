/**
 * Shared helpers of the adapter tests: a server on an ephemeral port with a captured log, a controllable
 * clock, and small request helpers. No randomness is generated here: secrets come from the server.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { createGatehouseServer } from '../../src/index.js';
import type { GatehouseServer, GatehouseServerOptions, LogEntry, UserRecord } from '../../src/index.js';
import { flatStoreOf } from './flat-store.js';
import { temporaryDirectory } from './temporary-directory.js';

export interface TestServer {
  readonly gatehouse: GatehouseServer;
  readonly url: string;
  readonly logs: LogEntry[];
  readonly clock: { now: number };
  /** Creates an account directly in the store, as a site administrator would (`origin: 'admin_created'`). */
  user(username: string, siteAdmin?: boolean, email?: string): Promise<UserRecord>;
  /** Creates an access token for `user` as `user` (or as `actor`), returning its secret. */
  token(user: UserRecord, scopes?: readonly string[], actor?: UserRecord): Promise<{ id: string; token: string }>;
  close(): Promise<void>;
}

export const START_TIME = 1_700_000_000_000;

export async function startServer(options: GatehouseServerOptions = {}): Promise<TestServer> {
  const logs: LogEntry[] = [];
  const clock = { now: START_TIME };
  const gatehouse = createGatehouseServer({
    now: () => clock.now,
    log: (entry) => logs.push(entry),
    ...options,
  });
  const { url } = await gatehouse.listen(0);
  return {
    gatehouse,
    url,
    logs,
    clock,
    async user(username, siteAdmin = false, email) {
      const created = await flatStoreOf(gatehouse.store).createUser({
        username,
        origin: 'admin_created',
        siteAdmin,
        serviceAccount: false,
        emails: email === undefined ? [] : [{ email, verified: true }],
        passwordHash: null,
        createdAt: clock.now,
      });
      return created._unsafeUnwrap();
    },
    async token(user, scopes = ['user:all'], actor = user) {
      const created = await gatehouse.createAccessToken(actor, user.id, scopes, 'test');
      if ('error' in created) throw new Error(created.error);
      return created;
    },
    close: () => gatehouse.close(),
  };
}

export interface GqlAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export async function gql(
  url: string,
  query: string,
  options: { headers?: Record<string, string>; variables?: Record<string, unknown>; operationName?: string } = {},
): Promise<GqlAnswer> {
  const res = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({ query, variables: options.variables, operationName: options.operationName }),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** A raw request with `node:http` (several values of one header, odd methods). */
export function rawRequest(
  url: string,
  options: { method?: string; path?: string; headers?: Readonly<Record<string, string | readonly string[]>>; body?: string | Buffer },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, method: options.method ?? 'POST', path: options.path ?? '/.api/graphql' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    for (const [name, value] of Object.entries(options.headers ?? {})) req.setHeader(name, value);
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The `name=value` part of a `Set-Cookie` header for `name`. */
export function cookieFrom(headers: Headers, name: string): string | null {
  for (const line of headers.getSetCookie()) {
    const pair = line.split(';')[0] ?? '';
    if (pair.startsWith(`${name}=`)) return pair;
  }
  return null;
}

/** A `npm start` server process (packages/server/src/run/main.ts under tsx) on a free port, with what it printed. */
export interface StartedProcess {
  /** The URL it listens on. */
  readonly url: string;
  /** The one-time administrator access token it printed. */
  readonly token: string;
  /** Stops the process (SIGTERM; SIGKILL after 10 s) and resolves once it has exited. */
  readonly stop: () => Promise<void>;
}

/** Sends SIGTERM, then SIGKILL if the process is still running after 10 s; resolves once it has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts `packages/server/src/run/main.ts` as `npm start` does (a real process, `PORT=0`) and resolves once it has printed its URL
 * and the administrator token; rejects with what it printed if it exits first.
 */
export async function startMainProcess(args: readonly string[] = []): Promise<StartedProcess> {
  // each process keeps its embedded database in a directory of its own (two processes cannot share one)
  const dataDir = join(temporaryDirectory('gatehouse-main-'), 'data');
  const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/main.ts', ...args], {
    env: { ...process.env, PORT: '0', GATEHOUSE_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout });
  try {
    await new Promise<void>((resolve, reject) => {
      rl.on('line', (line) => {
        lines.push(line);
        if (line.startsWith('Administrator access token: ')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited with ${String(code)}: ${lines.join('\n')}`)));
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  const printed = lines.join('\n');
  return {
    url: /http:\/\/[0-9.]+:\d+/.exec(printed)?.[0] ?? '',
    token: /Administrator access token: (\S+)/.exec(printed)?.[1] ?? '',
    stop: () => stopChild(child),
  };
}
