/**
 * SLOW (about 3–6 minutes alone, more on a loaded machine; needs the npm registry for the packages' dependencies):
 * both packages as a reader gets them. It runs `npm pack` once for each package (each `prepack` builds its dist/),
 * then, in empty directories, with `--omit=dev`:
 *
 * (a) README's `npm install gatehouse-server` line, with the package names replaced by the tarballs (gatehouse-server
 *     depends on gatehouse-auth 0.2.0, so its tarball goes along): `npx gatehouse serve` serves README's first curl
 *     command (run verbatim by curl, README's origin replaced by the server's) with the token it prints, answers
 *     `/healthz` and `gatehouse api`, and stops on SIGTERM; `node …/dist/bin.js serve` exits 0 on SIGTERM;
 * (b) README's `npm install gatehouse-auth` line alone: under 3 MB of files in node_modules, no `graphql`, and
 *     `gatehouse-auth/username` imports and normalizes (ESM, CJS, and README's username block as it stands);
 *     README's measuring lines run as they stand next to the tarball;
 * (c) README's embedding example (its one runnable `ts` block that imports gatehouse-server), saved as it stands in
 *     the project of (a) and run with node: it prints its address and a first token, the API answers that token with
 *     the administrator, and it exits 0 on SIGTERM.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { importsServer, README_PATH, readmeBlocks, readmeInstallLines, runnableTsBlocks } from './helpers/readme-blocks.js';
import { temporaryDirectory } from '../packages/server/test/helpers/temporary-directory.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(README_PATH, 'utf8');
const README_ORIGIN = 'http://127.0.0.1:3080';
const THREE_MB = 3 * 1000 * 1000;
const QUERY = '{ currentUser { username } }';

const curlPresent = existsSync('/usr/bin/curl') || existsSync('/bin/curl');
// CI installs curl: a missing one there is a failure, not a skip.
const inCI = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false';
if (!curlPresent && !inCI) console.warn("package-install.test.ts: README's curl command is not run: no curl binary (apt-get install -y curl)");

/** README's first `curl` command, continuation lines joined, exactly as a reader copies it into a shell. */
function readmeCurl(): string {
  const start = README.indexOf('\ncurl ');
  const lines: string[] = [];
  for (const line of README.slice(start + 1).split('\n')) {
    lines.push(line);
    if (!line.endsWith('\\')) break;
  }
  return lines.join('\n');
}

/** Runs README's curl command with `$TOKEN` set, against `url` instead of README's origin; returns its parsed answer. */
async function curlAsReadme(url: string, token: string): Promise<unknown> {
  const command = readmeCurl();
  expect(command).toContain(README_ORIGIN);
  const { stdout } = await run('sh', ['-c', command.replaceAll(README_ORIGIN, url)], { env: { ...process.env, TOKEN: token }, timeout: 30_000 });
  return JSON.parse(stdout);
}

/** The API's answer to `{ currentUser { username } }` with `token`. */
async function currentUser(url: string, token: string): Promise<unknown> {
  const answer = await fetch(`${url}/.api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `token ${token}` },
    body: JSON.stringify({ query: QUERY }),
  });
  return answer.json();
}

/** `npm pack` into `dir` (its `prepack` builds dist/ and prints before npm's JSON); returns the tarball's path. */
function pack(args: readonly string[], dir: string): string {
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', dir, ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const packed = JSON.parse(output.slice(output.startsWith('[') ? 0 : output.indexOf('\n[') + 1)) as readonly { readonly filename: string }[];
  return join(dir, packed[0]?.filename ?? '');
}

/** An empty project directory with a package.json, as `npm init` leaves it. */
function emptyProject(dir: string): string {
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'gatehouse-install-probe', version: '1.0.0', private: true }));
  return dir;
}

/** Runs one of README's install lines in `project`, its package names replaced by the tarballs, without dev dependencies. */
function installAsReadme(line: string, project: string, tarballs: { readonly auth: string; readonly server: string }): void {
  const words = line.split(/\s+/u);
  expect(words.slice(0, 2)).toStrictEqual(['npm', 'install']);
  // gatehouse-server depends on gatehouse-auth at its version, which the registry may not have yet: its tarball goes along
  const args = words.slice(2).flatMap((word) => (word === 'gatehouse-server' ? [tarballs.auth, tarballs.server] : word === 'gatehouse-auth' ? [tarballs.auth] : [word]));
  execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', ...args], { cwd: project, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The sum of the sizes of every file below `dir` (symbolic links not followed). */
function filesSize(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).reduce((sum, name) => {
    const stat = lstatSync(join(dir, name));
    return stat.isFile() ? sum + stat.size : sum;
  }, 0);
}

/** A started server process: the address and token it printed, and how to stop it. */
interface Started {
  readonly url: string;
  readonly token: string | null;
  /** Sends SIGTERM to its process group and waits for the exit; returns the exit status and standard error. */
  stop(): Promise<{ readonly code: number | null; readonly stderr: string }>;
}

/**
 * Starts `command` in its own process group (signalled as a whole, as a terminal, systemd or a container runtime
 * does: `npx` runs the bin through a shell that does not pass a signal sent to npm alone on to the server) and waits
 * (at most 120 s) for its `gatehouse listening on` line and, when `withToken`, its administrator token line.
 */
async function start(command: string, args: readonly string[], cwd: string, withToken: boolean): Promise<Started> {
  const child = spawn(command, args, { cwd, detached: true, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const group = -(child.pid ?? 0);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killAll = (signal: NodeJS.Signals): void => {
    try {
      process.kill(group, signal);
    } catch {
      // the group has already exited
    }
  };
  try {
    const printed = await new Promise<{ url: string; token: string | null }>((resolve, reject) => {
      let url: string | null = null;
      let token: string | null = null;
      const timer = setTimeout(() => reject(new Error(`no listening line${withToken ? ' and token' : ''} within 120 s: ${stderr}`)), 120_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        url ??= /^gatehouse listening on (http:\/\/\S+)$/u.exec(line)?.[1] ?? null;
        token ??= /^Administrator access token: (gat_\S+)$/u.exec(line)?.[1] ?? null;
        if (url !== null && (token !== null || !withToken)) {
          clearTimeout(timer);
          resolve({ url, token });
        }
      });
      void exited.then((code) => reject(new Error(`exited with ${String(code)}: ${stderr}`)));
    });
    return {
      ...printed,
      async stop() {
        killAll('SIGTERM');
        const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000))]);
        // npx may exit on the signal before the server it started has drained: give the server (same process group,
        // same stderr pipe) up to 15 s for its last line before anything left is killed
        for (let i = 0; i < 150 && !stderr.includes('"event":"stopped"'); i++) await new Promise((r) => setTimeout(r, 100));
        killAll('SIGKILL');
        if (code === 'late') throw new Error(`still running 30 s after SIGTERM: ${stderr}`);
        return { code, stderr };
      },
    };
  } catch (error) {
    killAll('SIGKILL');
    throw error;
  }
}

/** Waits (at most 15 s) until `stderr()` holds the server's last line: the server may finish after npx has exited. */
async function stoppedLine(stderr: () => string): Promise<boolean> {
  for (let i = 0; i < 150 && !stderr().includes('"event":"stopped"'); i++) await new Promise((r) => setTimeout(r, 100));
  return stderr().includes('"event":"stopped"');
}

const installLines = readmeInstallLines();
const serverLine = installLines.find((l) => l.packages.includes('gatehouse-server'));
const authLine = installLines.find((l) => l.packages.length === 1 && l.packages[0] === 'gatehouse-auth');
const embedding = runnableTsBlocks().filter(importsServer);
const measuring = readmeBlocks().filter((b) => b.lang === 'sh' && !b.fragment && b.text.includes('../gatehouse-auth-'));

describe('README, as the install test reads it', () => {
  it('should have one install line for gatehouse-server, one for gatehouse-auth alone, one embedding example and one measuring block', () => {
    expect([serverLine?.line, authLine?.line, embedding.length, measuring.length]).toStrictEqual(['npm install gatehouse-server', 'npm install gatehouse-auth', 1, 1]);
  });
});

describe('the packed tarballs, installed without dev dependencies in empty directories (SLOW: npm pack and npm install)', () => {
  let work = '';
  let tarballs = { auth: '', server: '' };
  let serverProject = '';

  beforeAll(() => {
    work = temporaryDirectory('gatehouse-pack-');
    tarballs = { auth: pack([], work), server: pack(['-w', 'gatehouse-server'], work) };
    serverProject = emptyProject(join(work, 'server-app'));
    installAsReadme(serverLine?.line ?? '', serverProject, tarballs);
  }, 900_000);

  it('should pack gatehouse-auth-0.2.0.tgz and gatehouse-server-0.2.0.tgz, the server with its default site configuration and README', () => {
    expect([tarballs.auth, tarballs.server]).toStrictEqual([join(work, 'gatehouse-auth-0.2.0.tgz'), join(work, 'gatehouse-server-0.2.0.tgz')]);
    const installed = join(serverProject, 'node_modules', 'gatehouse-server');
    expect(['dist/bin.js', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'examples/site-config.jsonc', 'README.md'].filter((f) => !existsSync(join(installed, f)))).toStrictEqual([]);
    // the bin is ESM only, and no dev dependency came along
    expect(['dist/bin.cjs', '../tsx', '../vitest', '../typescript', '../tsup'].filter((f) => existsSync(join(installed, f)))).toStrictEqual([]);
    // the program is built for production: no module of the package switches on NODE_ENV or holds React's development build
    const modules = readdirSync(join(installed, 'dist')).filter((f) => f.endsWith('.js') || f.endsWith('.cjs'));
    const texts = modules.map((f) => readFileSync(join(installed, 'dist', f), 'utf8'));
    expect(modules).toContain('bin.js');
    expect(modules.filter((_f, i) => /process\.env\.NODE_ENV|react[\w.-]*\.development\.js/u.test(texts[i] ?? ''))).toStrictEqual([]);
    // esbuild names each bundled file in a comment: the server renderer the program bundles is React's production one
    expect(texts.some((text) => text.includes('react-dom-server.node.production.min.js'))).toBe(true);
    expect((JSON.parse(readFileSync(join(serverProject, 'node_modules', 'gatehouse-auth', 'package.json'), 'utf8')) as { version: string }).version).toBe('0.2.0');
  });

  it("(a) should serve README's first curl with `npx gatehouse serve`, answer /healthz and `gatehouse api`, and stop on SIGTERM", async () => {
    const server = await start('npx', ['--no', 'gatehouse', 'serve'], serverProject, true);
    let stderr = '';
    try {
      const token = server.token ?? '';
      const admin = { data: { currentUser: { username: 'admin' } } };
      if (curlPresent || inCI) expect(await curlAsReadme(server.url, token)).toStrictEqual(admin);
      expect(await currentUser(server.url, token)).toStrictEqual(admin);
      expect(await (await fetch(`${server.url}/healthz`)).json()).toStrictEqual({ status: 'ok' });
      const api = await run('npx', ['--no', 'gatehouse', 'api', '-query', QUERY], {
        cwd: serverProject,
        env: { ...process.env, SRC_ENDPOINT: server.url, SRC_ACCESS_TOKEN: token },
        timeout: 60_000,
      });
      expect(JSON.parse(api.stdout)).toStrictEqual(admin);
    } finally {
      stderr = (await server.stop()).stderr;
    }
    // the server's own last line: it drained and stopped (npx itself may report the signal rather than 0)
    expect(await stoppedLine(() => stderr)).toBe(true);
  }, 300_000);

  it('(a) should serve with node …/gatehouse-server/dist/bin.js serve, keep the seeded data, and exit 0 on SIGTERM', async () => {
    const bin = join(serverProject, 'node_modules', 'gatehouse-server', 'dist', 'bin.js');
    // the data directory of the start above: the administrator is kept, no new token is printed
    const server = await start(process.execPath, [bin, 'serve'], serverProject, false);
    let stopped = { code: null as number | null, stderr: '' };
    try {
      expect([server.token, await (await fetch(`${server.url}/healthz`)).json()]).toStrictEqual([null, { status: 'ok' }]);
      // a page, rendered by the production build of React that the program bundles
      const page = await fetch(`${server.url}/.auth/sign-in`);
      expect([page.status, (await page.text()).includes('<form')]).toStrictEqual([200, true]);
    } finally {
      stopped = await server.stop();
    }
    expect([stopped.code, stopped.stderr.includes('"event":"stopped"')]).toStrictEqual([0, true]);
  }, 300_000);

  it("(c) should run README's embedding example as it stands: its address and first token serve the administrator; SIGTERM exits 0", async () => {
    const file = join(serverProject, 'embedding-example.mjs');
    writeFileSync(file, embedding[0]?.text ?? '');
    const server = await start(process.execPath, [file], serverProject, true);
    let stopped = { code: null as number | null, stderr: '' };
    try {
      const token = server.token ?? '';
      const admin = { data: { currentUser: { username: 'admin' } } };
      expect(await currentUser(server.url, token)).toStrictEqual(admin);
      if (curlPresent || inCI) expect(await curlAsReadme(server.url, token)).toStrictEqual(admin);
    } finally {
      stopped = await server.stop();
    }
    expect(stopped.code).toBe(0);
  }, 300_000);

  it("(b) should install gatehouse-auth alone with README's line in under 3 MB, without graphql, and import gatehouse-auth/username", async () => {
    const project = emptyProject(join(work, 'auth-app'));
    installAsReadme(authLine?.line ?? '', project, tarballs);
    const modules = join(project, 'node_modules');
    const size = filesSize(modules);
    console.log(`package-install.test.ts: npm install gatehouse-auth: ${String(size)} bytes of files in node_modules`);
    expect(size).toBeLessThan(THREE_MB);
    expect(readdirSync(modules).filter((name) => !name.startsWith('.')).sort()).toStrictEqual(['gatehouse-auth', 'ts-pattern']);
    expect(existsSync(join(modules, 'graphql'))).toBe(false);
    const esm = await run(process.execPath, ['--input-type=module', '-e', "import { normalizeUsername } from 'gatehouse-auth/username'; console.log(normalizeUsername('alice@example.com').value);"], { cwd: project });
    const cjs = await run(process.execPath, ['-e', "console.log(require('gatehouse-auth/username').normalizeUsername('a..b--c.').value)"], { cwd: project });
    expect([esm.stdout, cjs.stdout]).toStrictEqual(['alice\n', 'a.b-c\n']);
    // README's username block, as it stands (its // → line is checked by test/readme-examples.test.ts)
    const block = runnableTsBlocks().find((b) => b.text.includes("from 'gatehouse-auth/username'"));
    writeFileSync(join(project, 'username-example.mjs'), block?.text ?? 'throw new Error("no block")');
    await run(process.execPath, ['username-example.mjs'], { cwd: project });
    // the core itself needs its peer graphql, and says so
    await expect(run(process.execPath, ['--input-type=module', '-e', "await import('gatehouse-auth')"], { cwd: project })).rejects.toThrow(/Cannot find package 'graphql'/u);
  }, 300_000);

  it("(b) should run README's measuring lines as they stand next to the tarball", async () => {
    const { stdout } = await run('sh', ['-e', '-c', measuring[0]?.text ?? 'false'], { cwd: work, timeout: 240_000 });
    const lines = stdout.trim().split('\n');
    // du's line, esbuild's bundle of a normalizeUsername call (README says 7.7 kB), then the median import time
    expect(lines.some((l) => /^[\d.]+[KM]\tnode_modules$/u.test(l))).toBe(true);
    const bundled = Number(/^(\d+) out\.js$/mu.exec(stdout)?.[1] ?? 'NaN');
    expect(bundled).toBeGreaterThan(1_000);
    expect(bundled).toBeLessThan(10_000);
    expect(Number.isFinite(Number(lines.at(-1)))).toBe(true);
  }, 300_000);
});
