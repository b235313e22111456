/**
 * The deployment recipe of examples/ is run, not only read: the systemd unit passes `systemd-analyze verify` (and
 * its hardening scores "OK" in `systemd-analyze security`), and Debian's nginx, with a configuration derived from
 * examples/nginx.conf (the same proxy directives; a temporary prefix, loopback ports, a certificate made here with
 * openssl), fronts two real gatehouse processes on one throwaway PostgreSQL server with `trustedProxies` set.
 * Through it README's curl command runs verbatim and Chromium signs up and in; the instances' access log and
 * audit log record the real client from X-Forwarded-For, never the proxy's address or what a client wrote.
 *
 * Addresses: nginx connects to the instances from 127.0.0.5 (the trusted proxy; `proxy_bind`, the one directive
 * added), curl comes from 127.0.0.2, Chromium from 127.0.0.1 (every 127/8 address is this host on Linux).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresServerAvailability, startPostgresCluster } from '../helpers/postgres-cluster.js';
import type { PostgresCluster } from '../helpers/postgres-cluster.js';
import { findChromium, IN_CI, launchChromium } from '../helpers/browser.js';
import { freePort, graphql, startGatehouseProcess } from '../helpers/processes.js';
import type { GatehouseProcess } from '../helpers/processes.js';
import { NODE_FLAGS } from '../../src/run/engine-flags.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

const run = promisify(execFile);
const read = (path: string): string => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');

/** The path of a program on this machine, or `null`. */
function which(program: string): string | null {
  try {
    const found = execFileSync('which', [program], { encoding: 'utf8' }).trim();
    return found === '' ? null : found;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The systemd unit

describe('examples/gatehouse.service', () => {
  it("should start the installed package's bin with the node flags of its shebang (engine-flags.ts)", () => {
    const text = read('packages/server/examples/gatehouse.service');
    const execStart = text.split('\n').find((line) => line.startsWith('ExecStart='));
    expect(execStart).toMatch(/^ExecStart=\/usr\/bin\/node (.*) \/opt\/gatehouse\/node_modules\/gatehouse-server\/dist\/bin\.js serve /u);
    expect(/^ExecStart=\/usr\/bin\/node (.*) \/opt\//u.exec(execStart ?? '')?.[1]).toBe(NODE_FLAGS.join(' '));
    expect(JSON.parse(read('packages/server/package.json')).bin).toStrictEqual({ gatehouse: './dist/bin.js' });
  });
});

const systemdAnalyze = which('systemd-analyze');
// systemd is no package CI installs: without it the check is skipped, under CI too
if (systemdAnalyze === null) console.warn('deployment.test.ts: the systemd unit check is skipped: no systemd-analyze on this machine');

describe.skipIf(systemdAnalyze === null)('examples/gatehouse.service (needs systemd-analyze)', () => {
  /** The unit in a directory of its own; the node binary is this machine's when /usr/bin/node is absent. */
  function unitCopy(): string {
    const dir = temporaryDirectory('gatehouse-unit-');
    const text = read('packages/server/examples/gatehouse.service');
    writeFileSync(join(dir, 'gatehouse.service'), existsSync('/usr/bin/node') ? text : text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
    return join(dir, 'gatehouse.service');
  }

  it('should pass systemd-analyze verify without a warning', async () => {
    const { stdout, stderr } = await run(systemdAnalyze ?? 'systemd-analyze', ['verify', unitCopy()], { encoding: 'utf8' });
    expect({ stdout, stderr }).toStrictEqual({ stdout: '', stderr: '' });
  });

  it('should run as a dedicated user in its state directory, hardened (systemd-analyze security: OK, exposure at most 2.0)', async () => {
    const text = read('packages/server/examples/gatehouse.service');
    for (const line of ['User=gatehouse', 'StateDirectory=gatehouse', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'CapabilityBoundingSet=', 'ExecReload=/bin/kill -HUP $MAINPID']) {
      expect(text.split('\n')).toContain(line);
    }
    // exits non-zero when the overall exposure (×10) is above the threshold
    const { stdout } = await run(systemdAnalyze ?? 'systemd-analyze', ['security', '--offline=yes', '--threshold=20', unitCopy()], { encoding: 'utf8' });
    expect(stdout).toMatch(/Overall exposure level for gatehouse\.service: [01]\.\d OK/u);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// nginx in front of two instances

const nginx = which('nginx') ?? (existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null);
const chromium = findChromium();
const curl = which('curl');
const openssl = which('openssl');
const postgres = postgresServerAvailability();
const missing = [nginx === null ? 'nginx' : null, chromium === null ? 'chromium' : null, curl === null ? 'curl' : null, postgres.run ? null : 'postgresql'].filter(
  (m): m is string => m !== null,
);
if (missing.length > 0 && !IN_CI) console.warn(`deployment.test.ts: the nginx deployment test is skipped: missing ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})`);

/** The addresses the test plays. */
const PROXY_SOURCE = '127.0.0.5';
const CURL_CLIENT = '127.0.0.2';

/**
 * Replaces `from` by `to` in `text`, failing the test unless `from` occurs exactly once: when the example changes
 * shape, the derivation says so instead of testing something else.
 */
function once(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`examples/nginx.conf: expected exactly one ${JSON.stringify(from)}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

/** The example with test ports, the test certificate (or plain HTTP without openssl) and nginx's source address. */
function deriveNginxConf(example: string, ports: { readonly a: number; readonly b: number; readonly http: number; readonly front: number }, tls: { readonly cert: string; readonly key: string } | null): string {
  let text = example;
  text = once(text, 'server 127.0.0.1:3080;', `server 127.0.0.1:${ports.a};`);
  text = once(text, 'server 127.0.0.1:3081;', `server 127.0.0.1:${ports.b};`);
  text = once(text, 'listen 80;', `listen 127.0.0.1:${ports.http};`);
  text = once(text, 'listen [::]:80;', '');
  text = once(text, 'listen [::]:443 ssl http2;', '');
  text = once(text, 'proxy_pass http://gatehouse;', `proxy_pass http://gatehouse;\n        proxy_bind ${PROXY_SOURCE};`);
  if (tls !== null) {
    text = once(text, 'listen 443 ssl http2;', `listen 127.0.0.1:${ports.front} ssl http2;`);
    text = once(text, '/etc/letsencrypt/live/search.example.com/fullchain.pem;', `${tls.cert};`);
    text = once(text, '/etc/letsencrypt/live/search.example.com/privkey.pem;', `${tls.key};`);
  } else {
    text = once(text, 'listen 443 ssl http2;', `listen 127.0.0.1:${ports.front};`);
    text = text.replace(/^\s*ssl_[a-z_]+ .*;$/gmu, '');
  }
  return text;
}

/** Resolves once something accepts connections on the port (at most 20 s). */
async function accepting(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await delay(100);
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** README's curl command of the proxy section, continuation lines joined, exactly as a reader copies it. */
function readmeProxyCurl(): string {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('### Behind a reverse proxy'));
  const start = section.indexOf('\ncurl ');
  if (start < 0) throw new Error('README: no curl command in "Behind a reverse proxy"');
  const lines: string[] = [];
  for (const line of section.slice(start + 1).split('\n')) {
    lines.push(line.replace(/\\$/u, '').trim());
    if (!line.endsWith('\\')) break;
  }
  return lines.join(' ');
}

/** The JSON log lines of both instances. */
function logLines(processes: readonly GatehouseProcess[]): readonly Record<string, unknown>[] {
  return processes.flatMap((p) =>
    p
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}

describe.skipIf(missing.length > 0 && !IN_CI)('examples/nginx.conf in front of two instances (needs nginx, PostgreSQL, Chromium, curl)', () => {
  let cluster: PostgresCluster;
  let dir: string;
  let a: GatehouseProcess;
  let b: GatehouseProcess;
  let front: ChildProcess | undefined;
  let origin: string;
  let tls: { readonly cert: string; readonly key: string } | null = null;
  let browser: Browser | undefined;
  const nginxErrors = (): string => (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '');

  beforeAll(async () => {
    if (nginx === null || chromium === null || curl === null) throw new Error(`CI is set, but ${missing.join(', ')} is not installed`);
    dir = temporaryDirectory('gatehouse-nginx-');
    cluster = await startPostgresCluster();
    const ports = { a: await freePort(), b: await freePort(), http: await freePort(), front: await freePort() };
    if (openssl !== null) {
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'key.pem');
      await run(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
      tls = { cert, key };
    } else {
      console.warn('deployment.test.ts: no openssl: nginx serves plain HTTP');
    }
    origin = `${tls === null ? 'http' : 'https'}://127.0.0.1:${ports.front}`;
    // both instances: one file, one externalURL (nginx's), nginx's source address as the trusted proxy
    const config = join(dir, 'site.jsonc');
    writeFileSync(
      config,
      JSON.stringify({
        externalURL: origin,
        'auth.providers': [
          { type: 'builtin', allowSignup: true },
          { type: 'http-header', usernameHeader: 'X-Forwarded-User', emailHeader: 'X-Forwarded-Email', allowSignup: false },
        ],
        trustedProxies: [PROXY_SOURCE],
      }),
    );
    const args = (port: number): string[] => ['--config', config, '--port', String(port), '--database-url', cluster.url];
    [a, b] = await Promise.all([startGatehouseProcess({ args: args(ports.a) }), startGatehouseProcess({ args: args(ports.b) })]);

    for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
    const site = deriveNginxConf(read('packages/server/examples/nginx.conf'), ports, tls);
    const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${join(dir, t)};`).join('\n');
    writeFileSync(
      join(dir, 'nginx.conf'),
      `${userInfo().uid === 0 ? 'user root;\n' : ''}worker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')} info;\n` +
        `events { worker_connections 64; }\nhttp {\n  access_log ${join(dir, 'access.log')};\n${temps}\n${site}\n}\n`,
    );
    await run(nginx, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')]).catch((error: unknown) => {
      throw new Error(`nginx -t refused the derived configuration: ${String((error as { stderr?: string }).stderr ?? error)}`);
    });
    front = spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
    await accepting(ports.front);
    if (tls !== null) copyFileSync(tls.cert, join(dir, 'ca.pem'));
    browser = await launchChromium(chromium);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (front !== undefined && front.exitCode === null) {
      const exited = new Promise((resolve) => front?.once('exit', resolve));
      front.kill('SIGQUIT');
      await Promise.race([exited, delay(5_000)]);
      if (front.exitCode === null) front.kill('SIGKILL');
    }
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.stop();
  }, 60_000);

  const adminToken = (): string => a.adminToken ?? b.adminToken ?? '';

  /** Runs a shell command line with $TOKEN set; curl reads its CA and source address from a .curlrc of the test's. */
  async function shell(command: string): Promise<string> {
    const home = join(dir, 'curl-home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, '.curlrc'), `interface = ${CURL_CLIENT}\n${tls === null ? '' : `cacert = ${join(dir, 'ca.pem')}\n`}`);
    const { stdout } = await run('sh', ['-c', command], { encoding: 'utf8', env: { ...process.env, TOKEN: adminToken(), CURL_HOME: home, HOME: home } });
    return stdout;
  }

  it("should answer README's curl command through nginx, the access log naming the curl client, not nginx", async () => {
    const command = readmeProxyCurl();
    expect(command).toContain('https://search.example.com');
    const answers = [];
    // a few times, so both instances answer some (nginx balances round-robin)
    for (let i = 0; i < 4; i++) answers.push(JSON.parse(await shell(command.replaceAll('https://search.example.com', origin))) as unknown);
    expect(answers).toStrictEqual(Array.from({ length: 4 }, () => ({ data: { currentUser: { username: 'admin' } } })));
    // the access log is written asynchronously: wait (bounded) for the four lines to reach the processes' output
    const graphqlLines = (): ReturnType<typeof logLines> => logLines([a, b]).filter((l) => l['event'] === 'request' && l['path'] === '/.api/graphql');
    for (const deadline = Date.now() + 10_000; graphqlLines().length < 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(graphqlLines().map((l) => l['clientAddress'])).toStrictEqual(Array.from({ length: 4 }, () => CURL_CLIENT));
    expect([a, b].every((p) => p.output().includes(`"clientAddress":"${CURL_CLIENT}"`))).toBe(true);
    expect(nginxErrors()).not.toMatch(/\[(?:error|crit|alert|emerg)\]/u);
  });

  it('should audit the client nginx saw, whatever X-Forwarded-For the client wrote', async () => {
    const base = `curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 198.51.100.66' -H 'Authorization: Basic eDp5' -d '{"query":"{ currentUser { username } }"}' ${origin}/.api/graphql`;
    expect(await shell(base)).toBe('200');
    const log = await graphql(a.url, `token ${adminToken()}`, '{ auditLog(first: 20, entity: "auth.accessToken", action: "failed") { reason details } }');
    const entries = (log.body as { data: { auditLog: { reason: string; details: string }[] } }).data.auditLog;
    expect(entries.map((e) => (JSON.parse(e.details) as Record<string, string>)['clientAddress'])).toStrictEqual([CURL_CLIENT]);
  });

  it('should strip identity headers a client sends through nginx, and refuse them straight to an instance (401)', async () => {
    const forged = `-H 'X-Forwarded-User: admin' -H 'X-Forwarded-Email: admin@corp.example' -H 'X-Requested-With: x' -d '{"query":"{ currentUser { username } }"}'`;
    expect(JSON.parse(await shell(`curl -s ${forged} ${origin}/.api/graphql`))).toStrictEqual({ data: { currentUser: null } });
    expect(await shell(`curl -s -o /dev/null -w '%{http_code}' ${forged} ${a.url}/.api/graphql`)).toBe('401');
  });

  it('should sign a person up and in with Chromium through nginx, the access log naming the browser, not nginx', async () => {
    const context = await (browser as Browser).newContext({ ignoreHTTPSErrors: true });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/.auth/sign-up`);
      await page.fill('#username', 'bea');
      await page.fill('#email', 'bea@example.com');
      await page.fill('#password', 'bea password 1');
      await Promise.all([page.waitForURL(`${origin}/settings`), page.getByRole('button', { name: 'Sign up' }).click()]);
      await page.goto(`${origin}/.auth/sign-out`);
      await Promise.all([page.waitForURL(`${origin}/.auth/sign-in`), page.getByRole('button', { name: 'Sign out' }).first().click()]);
      await page.fill('#username', 'bea');
      await page.fill('#password', 'bea password 1');
      await Promise.all([page.waitForURL(`${origin}/settings`), page.getByRole('button', { name: 'Sign in' }).click()]);
      const me = await page.evaluate(async () => {
        const res = await fetch('/.api/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'page' }, body: '{"query":"{ currentUser { username } }"}' });
        return (await res.json()) as unknown;
      });
      expect(me).toStrictEqual({ data: { currentUser: { username: 'bea' } } });
    } finally {
      await context.close();
    }
    const signInPosts = (): ReturnType<typeof logLines> =>
      logLines([a, b]).filter((l) => l['event'] === 'request' && l['method'] === 'POST' && (l['path'] === '/.auth/sign-up' || l['path'] === '/.auth/sign-in'));
    for (const deadline = Date.now() + 10_000; signInPosts().length < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    const posts = signInPosts();
    expect(posts.length).toBeGreaterThanOrEqual(2);
    // Chromium connects from 127.0.0.1; the instances' peer was nginx (127.0.0.5)
    expect(new Set(posts.map((l) => l['clientAddress']))).toStrictEqual(new Set(['127.0.0.1']));
  });
});
