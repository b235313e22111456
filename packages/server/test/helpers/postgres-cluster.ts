/**
 * A throwaway PostgreSQL server for tests: Debian's binaries (`/usr/lib/postgresql/<version>/bin`), `initdb` into
 * a temporary directory owned by the `postgres` user (run through `runuser` when the tests run as root), trust
 * authentication, listening on 127.0.0.1 on a free port and on a Unix socket in the directory; stopped and removed
 * by `stop()`.
 *
 * Tests that need it skip, with a printed line saying why, when the binaries are missing and `CI` is not set; under
 * `CI` a missing server fails the run.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

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
}

/** Starts a throwaway server; rejects (naming what is missing) when it cannot. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = findPostgresBinaries();
  if (bin === null) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql: apt-get install -y postgresql');
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
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
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`;
    const started = await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']).then(
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
  };
}
