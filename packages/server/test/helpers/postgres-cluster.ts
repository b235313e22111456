/**
 * A throwaway PostgreSQL server for tests: Debian's binaries (`/usr/lib/postgresql/<version>/bin`), `initdb` into
 * a temporary directory owned by the `postgres` user (run through `runuser` when the tests run as root), trust
 * authentication, listening on 127.0.0.1 on a free port and on a Unix socket in the directory; stopped and removed
 * by `stop()`.
 *
 * Tests that need it skip, with a printed line saying why, when the binaries are missing and `CI` is not set; under
 * `CI` a missing server fails the run.
 *
 * Fault tests stop, start, restart (`pg_ctl restart -m fast`) and kill (`kill -9` of the postmaster) the server while
 * its directory stays; `durable: true` keeps `synchronous_commit` on so a commit the server acknowledged survives that.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { temporaryDirectory } from './temporary-directory.js';

const run = promisify(execFile);

/** The newest Debian PostgreSQL `bin` directory holding `initdb` and `pg_ctl`, or `null`. */
export function findPostgresBinaries(root = '/usr/lib/postgresql'): string | null {
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/u.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

/** Whether the tests that need a PostgreSQL server run here, and if not, why (printed once by the caller). */
export function postgresServerAvailability(): { readonly run: boolean; readonly reason: string } {
  const bin = findPostgresBinaries();
  if (bin !== null) return { run: true, reason: `PostgreSQL binaries in ${bin}` };
  if (process.env['CI'] !== undefined && process.env['CI'] !== '') {
    return { run: true, reason: 'CI is set: the PostgreSQL server tests must run (install Debian\'s postgresql package)' };
  }
  return { run: false, reason: 'no PostgreSQL binaries under /usr/lib/postgresql (install Debian\'s postgresql package; CI does)' };
}

/** A running throwaway server. */
export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server (`pg_ctl stop -m fast`), keeping its directory; resolves once it is down. */
  stopServer(): Promise<void>;
  /** Starts the stopped (or killed) server again on the same port; resolves when `pg_ctl start -w` reports it started. */
  startServer(): Promise<void>;
  /** `pg_ctl restart -m fast`; resolves when `pg_ctl` reports the server started again. */
  restartServer(): Promise<void>;
  /** Kills the postmaster with `kill -9` and resolves once it and every server process of the cluster have exited. */
  killPostmaster(): Promise<void>;
}

/** Options of {@link startPostgresCluster}. */
export interface PostgresClusterOptions {
  /** Keep `synchronous_commit` on (default off, for speed): what a commit acknowledged survives a server kill. */
  readonly durable?: boolean;
}

/** Whether a process runs (a zombie, exited but not yet reaped, counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/u.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Starts a throwaway server; rejects (naming what is missing) when it cannot. */
export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBinaries();
  if (bin === null) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: apt-get install -y postgresql');
  const asRoot = userInfo().uid === 0;
  const dir = temporaryDirectory('gatehouse-pg-');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  // initdb and the server refuse to run as root: as root, run them as the postgres user
  const as = (command: string, args: readonly string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), [...args]);
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  let port = 0;
  // fsync off: the machine does not crash in these tests, only the server, and the OS keeps what it was given
  const commit = options.durable === true ? 'on' : 'off';
  const serverOptions = (): string =>
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${commit} -c full_page_writes=off -c max_connections=60`;
  const start = () => as('pg_ctl', ['-D', data, '-o', serverOptions(), '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const started = await start().then(
      () => true,
      (error: unknown) => (attempt >= 2 ? Promise.reject(error) : false),
    );
    if (started) break;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    async createDatabase(name) {
      const pg = await import('pg');
      const client = new pg.default.Client({ connectionString: url });
      await client.connect();
      await client.query(`CREATE DATABASE "${name.replace(/"/gu, '')}"`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
    async stopServer() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
    },
    async startServer() {
      await start();
    },
    async restartServer() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-o', serverOptions(), '-l', join(dir, 'server.log'), '-w', '-t', '60', 'restart']);
    },
    async killPostmaster() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
      const { stdout } = await run('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
      const children = stdout.split('\n').filter((line) => line.trim() !== '').map(Number);
      process.kill(postmaster, 'SIGKILL');
      // the children notice the postmaster's death and exit; a new postmaster refuses to start while they hold its memory
      for (let i = 0; i < 200 && [postmaster, ...children].some(alive); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const left = [postmaster, ...children].filter(alive);
      if (left.length > 0) throw new Error(`server processes ${left.join(', ')} still run 10 s after kill -9 of the postmaster`);
      // a postmaster nobody reaps stays a zombie, which a new postmaster takes for a running one: its lock files go
      if (existsSync(`/proc/${postmaster}`)) {
        rmSync(join(data, 'postmaster.pid'), { force: true });
        rmSync(join(dir, `.s.PGSQL.${port}.lock`), { force: true });
      }
    },
  };
}
