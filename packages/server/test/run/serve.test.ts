/**
 * `npm start` / `gatehouse serve` as a real process: graceful shutdown on SIGTERM and SIGINT, signal forwarding by
 * `npm start`, configuration reload from the watched file, and the start-time checks.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parseListenAddress, parseStartArguments } from '../../src/run/main.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly token: string;
  readonly stdout: string[];
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

const started: ChildProcess[] = [];
// Each process runs in a process group of its own (`detached`): a test that fails before it stops its process kills
// the whole group here, npm and the server npm started alike, and waits for it to exit.
afterEach(async () => {
  await Promise.all(
    started.splice(0).map(async (child) => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }
      if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
    }),
  );
});

/** Starts `command args` and waits for the administrator token line (at most 30 s). */
async function start(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<Running> {
  // each process keeps its embedded database in a directory of its own (two processes cannot share one)
  const data = { GATEHOUSE_DATA_DIR: join(temporaryDirectory('gatehouse-serve-'), 'data') };
  const child = spawn(command, args, { env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...data, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child);
  const stdout: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const rl = createInterface({ input: child.stdout ?? process.stdin });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 30 s: ${stdout.join('\n')} ${stderr}`)), 30_000);
    rl.on('line', (line) => {
      stdout.push(line);
      if (line.startsWith('Administrator access token: ')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${String(code)}: ${stderr}`));
    });
  });
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout.find((l) => l.startsWith('gatehouse listening on')) ?? '')?.[0] ?? '';
  const token = stdout.find((l) => l.startsWith('Administrator access token: '))?.slice('Administrator access token: '.length) ?? '';
  return { child, url, token, stdout, stderr: () => stderr, exited };
}

const startMain = (args: readonly string[] = [], env: Record<string, string> = {}): Promise<Running> =>
  start(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/main.ts', ...args], env);

/** Waits until `check` holds, polling every 50 ms for at most `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(50);
  }
  return check();
}

const refused = async (url: string): Promise<boolean> => {
  try {
    await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch {
    return true;
  }
};

function tempConfig(text: string): string {
  const file = join(temporaryDirectory('gatehouse-serve-'), 'site.jsonc');
  writeFileSync(file, text);
  return file;
}

/** Sends a POST whose body arrives in two parts; `between` runs after the first part reached the server. */
function slowPost(url: string, token: string, body: string, between: () => Promise<void>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/.api/graphql`, {
      method: 'POST',
      headers: { authorization: `token ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.write(body.slice(0, 10));
    between().then(
      () => req.end(body.slice(10)),
      (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
    );
  });
}

describe('graceful shutdown of npm start / gatehouse serve', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'should finish an in-flight request with 200 after %s, refuse new connections meanwhile, then exit 0',
    async (signal) => {
      const s = await startMain();
      const body = JSON.stringify({ query: '{ currentUser { username } }' });
      const answer = await slowPost(s.url, s.token, body, async () => {
        // the request is in flight: its headers were read and authenticated, its body is still arriving
        await eventually(() => s.stderr().includes('"event":"authentication"'), 5_000);
        s.child.kill(signal);
        expect(await eventually(() => refused(s.url), 5_000)).toBe(true);
      });
      expect(answer).toStrictEqual({ status: 200, text: JSON.stringify({ data: { currentUser: { username: 'admin' } } }) });
      expect(await s.exited).toBe(0);
    },
    60_000,
  );

  it('should close what is still in flight after --drain-timeout and exit 0 promptly', async () => {
    const s = await startMain(['--drain-timeout', '0.3']);
    const req = request(`${s.url}/.api/graphql`, {
      method: 'POST',
      headers: { authorization: `token ${s.token}`, 'content-type': 'application/json', 'content-length': '100' },
    });
    req.on('error', () => undefined);
    req.write('{"query":');
    await eventually(() => s.stderr().includes('"event":"authentication"'), 5_000);
    const before = Date.now();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    // 0.3 s drain; "promptly" is a generous bound
    expect(Date.now() - before).toBeLessThan(5_000);
    req.destroy();
  }, 60_000);

  it('should leave no server process when npm start gets SIGTERM (npm forwards the signal; no orphan)', async () => {
    const dir = temporaryDirectory('gatehouse-npm-start-');
    const config = join(dir, 'site.jsonc');
    writeFileSync(config, '{ "auth.providers": [{ "type": "builtin" }] }');
    const s = await start('npm', ['start', '--', '--config', config]);
    expect(await refused(s.url)).toBe(false);
    s.child.kill('SIGTERM');
    await s.exited;
    expect(await eventually(() => refused(s.url), 10_000)).toBe(true);
    const processes = (): string => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
    expect(await eventually(() => !processes().includes(config), 10_000)).toBe(true);
  }, 60_000);
});

describe('site configuration reload of gatehouse serve', () => {
  /** Whether a query nested `n` deep is refused by the depth limit (§8), rather than run or refused otherwise. */
  const depthRefused = async (s: Running, n: number): Promise<boolean> => {
    const res = await fetch(`${s.url}/.api/graphql`, {
      method: 'POST',
      headers: { authorization: `token ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${'currentUser { '.repeat(n)}username${' }'.repeat(n)} }` }),
    });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string; limit?: number } }[] };
    return body.errors?.some((e) => e.extensions?.code === 'QUERY_COST_LIMIT_EXCEEDED') ?? false;
  };

  it('should apply a changed rateLimits.graphQLMaxDepth to new requests, and keep it when the file becomes invalid, logging the problem with its path', async () => {
    const file = tempConfig('{ "auth.providers": [{ "type": "builtin" }], "rateLimits": { "graphQLMaxDepth": 3 } }');
    const s = await startMain(['--config', file]);
    expect(await depthRefused(s, 5)).toBe(true);

    writeFileSync(file, '{ "auth.providers": [{ "type": "builtin" }], "rateLimits": { "graphQLMaxDepth": 30 } }');
    expect(await eventually(async () => !(await depthRefused(s, 5)))).toBe(true);
    // log lines reach standard error in batches, a few milliseconds after they are logged
    expect(await eventually(() => s.stderr().includes('"event":"configuration_reloaded"'))).toBe(true);

    writeFileSync(file, '{ "auth.providers": [{ "type": "builtin" }], "rateLimits": { "graphQLMaxDepth": "deep" } }');
    expect(await eventually(() => s.stderr().includes('"event":"configuration_rejected"'))).toBe(true);
    expect(s.stderr()).toMatch(/"event":"configuration_problem","path":"rateLimits\.graphQLMaxDepth"/u);
    // the previous configuration (depth 30) still runs
    expect(await depthRefused(s, 5)).toBe(false);
    expect(await depthRefused(s, 40)).toBe(true);
  }, 60_000);
});

describe('start-time checks of gatehouse serve', () => {
  it('should warn that externalURL is not the listening address, print each callback to register and why a provider cannot be used', async () => {
    const file = tempConfig(`{
      "externalURL": "http://localhost:3080",
      "auth.providers": [
        { "type": "builtin" },
        { "type": "hosta", "url": "", "clientID": "id", "clientSecret": "s" },
        { "type": "hostb", "url": "https://hostb.example.com", "clientID": "id", "clientSecret": "s" },
        { "type": "reviewhost", "url": "https://review.example.com" }
      ] }`);
    const s = await startMain(['--config', file]);
    const out = s.stdout.join('\n');
    expect(out).toMatch(/^WARNING: externalURL http:\/\/localhost:3080 is not the address this server listens on \(http:\/\/127\.0\.0\.1:\d+\)/mu);
    expect(out).toContain('auth.providers[1] (hosta): register http://localhost:3080/.auth/hosta/callback as the callback address at the provider');
    expect(out).toContain('auth.providers[2] (hostb): register http://localhost:3080/.auth/hostb/callback as the callback address at the provider');
    expect(out).toContain('auth.providers[3] (reviewhost) cannot be used: its url https://review.example.com matches no code host connection');
    expect(await eventually(() => s.stderr().includes('"event":"provider_public_url","provider":"hosta","index":1,"url":"https://hosta.example.com"'))).toBe(true);
  }, 60_000);

  it('should derive callbacks from the listening address when externalURL is absent (the default example), so PORT can change', async () => {
    const example = readFileSync('packages/server/examples/site-config.jsonc', 'utf8');
    const file = tempConfig(example.replace('"auth.providers": [', '"auth.providers": [ { "type": "hostb", "url": "https://hostb.example.com", "clientID": "id", "clientSecret": "s" },'));
    const s = await startMain(['--config', file]);
    const out = s.stdout.join('\n');
    expect(out).not.toContain('WARNING');
    expect(out).toContain(`auth.providers[0] (hostb): register ${s.url}/.auth/hostb/callback as the callback address at the provider`);
    const login = await fetch(`${s.url}/.auth/hostb/login`, { redirect: 'manual' });
    expect(new URL(login.headers.get('location') ?? '').searchParams.get('redirect_uri')).toBe(`${s.url}/.auth/hostb/callback`);
  }, 60_000);
});

describe('parseStartArguments', () => {
  it('should read the serve flags, flags winning over the environment', () => {
    expect(
      parseStartArguments(['--port', '9000', '--host=0.0.0.0', '--drain-timeout', '2.5', '--metrics-address', '127.0.0.1:9464', '--hosta-url', 'https://a.test'], {
        PORT: '8000',
        GATEHOUSE_HOSTCCLOUD_URL: 'https://c.test',
      }),
    ).toStrictEqual({
      configPath: null,
      searchDirectory: null,
      port: 9000,
      host: '0.0.0.0',
      drainTimeoutMs: 2500,
      metricsAddress: { host: '127.0.0.1', port: 9464 },
      publicCodeHostURLs: { hosta: 'https://a.test', hostccloud: 'https://c.test' },
      store: { dataDir: join(process.cwd(), '.gatehouse', 'data') },
      credentialsKey: null,
      mailKey: null,
    });
  });

  it('should read the credentials key from GATEHOUSE_CREDENTIALS_KEY: 32 bytes in base64, anything else refused', () => {
    const key = Buffer.alloc(32, 7);
    const parsed = parseStartArguments([], { GATEHOUSE_CREDENTIALS_KEY: key.toString('base64') });
    expect('error' in parsed ? parsed : [...parsed.credentialsKey ?? []]).toStrictEqual([...key]);
    const error = { error: 'GATEHOUSE_CREDENTIALS_KEY must be 32 random bytes in base64 (for example: openssl rand -base64 32)' };
    expect(parseStartArguments([], { GATEHOUSE_CREDENTIALS_KEY: Buffer.alloc(16, 7).toString('base64') })).toStrictEqual(error);
    expect(parseStartArguments([], { GATEHOUSE_CREDENTIALS_KEY: `${key.toString('base64')} !` })).toStrictEqual(error);
    expect(parseStartArguments([], { GATEHOUSE_CREDENTIALS_KEY: '' })).toMatchObject({ credentialsKey: null });
  });

  it('should read where the store is: --database-url over DATABASE_URL over --data-dir over GATEHOUSE_DATA_DIR', () => {
    const store = (argv: string[], env: Record<string, string>) => {
      const parsed = parseStartArguments(argv, env, '/srv');
      return 'error' in parsed ? parsed : parsed.store;
    };
    expect(store(['--data-dir', 'd'], { GATEHOUSE_DATA_DIR: '/e' })).toStrictEqual({ dataDir: '/srv/d' });
    expect(store([], { GATEHOUSE_DATA_DIR: '/e' })).toStrictEqual({ dataDir: '/e' });
    expect(store(['--data-dir', 'd'], { DATABASE_URL: 'postgres://h/db' })).toStrictEqual({ databaseUrl: 'postgres://h/db' });
    expect(store(['--database-url=postgres://a/b'], { DATABASE_URL: 'postgres://h/db' })).toStrictEqual({ databaseUrl: 'postgres://a/b' });
    expect(store(['--data-dir'], {})).toStrictEqual({ error: '--data-dir needs a value' });
  });

  it.each([
    [['--drain-timeout', 'soon'], '--drain-timeout must be a number of seconds, not "soon"'],
    [['--metrics-address', '9464'], '--metrics-address must be HOST:PORT, not "9464"'],
    [['--port', '99999'], '--port must be a port number, not "99999"'],
  ])('should refuse %j', (argv, error) => {
    expect(parseStartArguments(argv, {})).toStrictEqual({ error });
  });

  it('should read an IPv6 metrics address', () => {
    expect(parseListenAddress('[::1]:9464')).toStrictEqual({ host: '::1', port: 9464 });
  });
});

describe('gatehouse serve (the CLI dispatching to the server entry)', () => {
  it('should start the server, answer /healthz, and stop with 0 on SIGTERM', async () => {
    const s = await start(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'serve', '--port', '0']);
    expect(await (await fetch(`${s.url}/healthz`)).json()).toStrictEqual({ status: 'ok' });
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 60_000);

  it('should refuse an unknown flag with exit status 2 and the usage', async () => {
    const child = spawn(process.execPath, ['--conditions=gatehouse-source', '--import', 'tsx', 'packages/server/src/run/bin.ts', 'serve', '--bogus'], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.push(child);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect([code, stderr.split('\n')[0]]).toStrictEqual([2, 'gatehouse: unknown argument: --bogus']);
  }, 60_000);
});

describe('serve in process', () => {
  it('should reload the file on SIGHUP (even unchanged), and resolve 0 after SIGTERM', async () => {
    const { EventEmitter } = await import('node:events');
    const { serve } = await import('../../src/run/serve.js');
    const signals = new EventEmitter();
    const out: string[] = [];
    const logs: Record<string, unknown>[] = [];
    const file = tempConfig('{ "auth.providers": [{ "type": "builtin" }] }');
    const running = serve(['--config', file, '--port', '0'], { GATEHOUSE_DATA_DIR: join(temporaryDirectory('gatehouse-serve-'), 'data') }, {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      signals: { on: (signal, listener) => signals.on(signal, listener) },
      log: (entry) => logs.push(entry),
    });
    // A first start creates the embedded database: allow a loaded machine its time.
    expect(await eventually(() => out.some((l) => l.startsWith('Administrator access token: ')), 40_000)).toBe(true);
    signals.emit('SIGHUP');
    expect(await eventually(() => logs.some((e) => e['event'] === 'configuration_reloaded'), 20_000)).toBe(true);
    signals.emit('SIGTERM');
    expect(await running).toBe(0);
    expect(logs.map((e) => e['event'])).toContain('stopped');
  }, 60_000);

  it('should stop gracefully on a SIGTERM sent the moment it listens, while a first start still writes its token', async () => {
    const { EventEmitter } = await import('node:events');
    const { serve } = await import('../../src/run/serve.js');
    const signals = new EventEmitter();
    const out: string[] = [];
    const logs: Record<string, unknown>[] = [];
    const running = serve(['--config', tempConfig('{ "auth.providers": [{ "type": "builtin" }] }'), '--port', '0'], { GATEHOUSE_DATA_DIR: join(temporaryDirectory('gatehouse-serve-'), 'data') }, {
      // the signal goes out from inside the write of the listening line: before anything after it runs
      stdout: {
        write: (t: string) => {
          out.push(t);
          if (t.startsWith('gatehouse listening on')) signals.emit('SIGTERM');
        },
      },
      stderr: { write: (t: string) => out.push(t) },
      signals: { on: (signal, listener) => signals.on(signal, listener) },
      log: (entry) => logs.push(entry),
    });
    expect(await Promise.race([running, delay(40_000).then(() => 'still running')])).toBe(0);
    expect(logs.map((e) => e['event'])).toContain('stopped');
  }, 60_000);

  it.each([
    ['on the embedded store without GATEHOUSE_CREDENTIALS_KEY: keeps the key in mail.key (0600), says nothing', {}, false],
    ['with GATEHOUSE_CREDENTIALS_KEY: says nothing of it, makes no key file', { GATEHOUSE_CREDENTIALS_KEY: Buffer.alloc(32, 5).toString('base64') }, false],
  ] as const)('should start with email.smtp set %s', async (_name, keyEnv, warned) => {
    const { EventEmitter } = await import('node:events');
    const { serve } = await import('../../src/run/serve.js');
    const signals = new EventEmitter();
    const out: string[] = [];
    const file = tempConfig(
      JSON.stringify({ 'auth.providers': [{ type: 'builtin' }], 'email.address': 'noreply@gatehouse.test', 'email.smtp': { host: '127.0.0.1', port: 2525, authentication: 'none' } }),
    );
    const dataDir = join(temporaryDirectory('gatehouse-serve-'), 'data');
    const running = serve(['--config', file, '--port', '0'], { GATEHOUSE_DATA_DIR: dataDir, ...keyEnv }, {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      signals: { on: (signal, listener) => signals.on(signal, listener) },
      log: () => undefined,
    });
    expect(await eventually(() => out.some((l) => l.startsWith('Administrator access token: ')), 40_000)).toBe(true);
    signals.emit('SIGTERM');
    expect(await running).toBe(0);
    const warning = out.find((l) => l.startsWith('WARNING: queued mail is sealed with a key of this process only'));
    expect(warning !== undefined).toBe(warned);
    if (warned) expect(warning).toContain('set GATEHOUSE_CREDENTIALS_KEY');
    const keyFile = join(dataDir, 'mail.key');
    expect(existsSync(keyFile)).toBe(!('GATEHOUSE_CREDENTIALS_KEY' in keyEnv));
    if (existsSync(keyFile)) {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(keyFile, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/u);
    }
  }, 60_000);
});
