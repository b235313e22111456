/**
 * SLOW (about 30–90 s alone, several minutes on a loaded machine; needs the npm registry): the packed tarball, installed in a fresh project without any dev
 * dependency, serves with `npx gatehouse serve` and with `node dist/main.js`, answers `/healthz`, and stops with
 * exit status 0 on SIGTERM. It runs `npm pack` (whose `prepack` builds dist/) and `npm install`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

interface PackageJson {
  readonly name: string;
  readonly peerDependencies: Readonly<Record<string, string>>;
}

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
/** The peers the server entry loads (the console's GraphiQL and React are not needed to serve the API). */
const SERVER_PEERS = ['graphql', 'graphql-http', 'openid-client', '@node-saml/node-saml', 'pino', 'prom-client', 'react', 'react-dom'];

/** Runs `command`, waits for its listening line, checks /healthz, sends SIGTERM and returns the exit status. */
async function serveAndStop(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ health: unknown; code: number | null; stopped: boolean }> {
  // its own process group, signalled as a whole as a terminal, systemd or a container runtime does: `npx` (npm exec)
  // runs the bin through a shell that does not pass a signal sent to npm alone on to the server
  const child = spawn(command, args, { cwd, detached: true, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const group = -(child.pid ?? 0);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within 60 s: ${stderr}`)), 60_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        const found = /^gatehouse listening on (http:\/\/\S+)$/u.exec(line)?.[1];
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      void exited.then((code) => reject(new Error(`exited with ${String(code)}: ${stderr}`)));
    });
    const health: unknown = await (await fetch(`${url}/healthz`)).json();
    process.kill(group, 'SIGTERM');
    const code = await exited;
    // the server may finish after npx has exited: wait for its last line (at most 15 s)
    for (let i = 0; i < 150 && !stderr.includes('"event":"stopped"'); i++) await new Promise((r) => setTimeout(r, 100));
    // the server's own last line: it drained and stopped (npx itself may report the signal rather than 0)
    return { health, code, stopped: stderr.includes('"event":"stopped"') };
  } finally {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // the group has already exited
    }
  }
}

describe('packed tarball, installed without dev dependencies (SLOW: npm pack and npm install, ~30–90 s)', () => {
  it('should serve with npx gatehouse serve and node dist/main.js, answer /healthz, and exit 0 on SIGTERM', async () => {
    const work = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
    // `prepack` builds dist/ first and prints its own output before npm's JSON
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const packed = JSON.parse(output.slice(output.startsWith('[') ? 0 : output.indexOf('\n[') + 1)) as { readonly filename: string }[];
    const tarball = join(work, packed[0]?.filename ?? '');
    const project = join(work, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'gatehouse-install-probe', private: true, type: 'module' }));
    const peers = SERVER_PEERS.map((name) => `${name}@${pkg.peerDependencies[name] ?? 'latest'}`);
    execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', tarball, ...peers], {
      cwd: project,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // no dev dependency came along
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'vitest'))).toBe(false);

    const viaNpx = await serveAndStop('npx', ['--no', 'gatehouse', 'serve'], project);
    expect([viaNpx.health, viaNpx.stopped]).toStrictEqual([{ status: 'ok' }, true]);
    const entry = join(project, 'node_modules', ...pkg.name.split('/'), 'dist', 'main.js');
    expect(await serveAndStop(process.execPath, [entry], project)).toStrictEqual({ health: { status: 'ok' }, code: 0, stopped: true });
  }, 600_000);
});
