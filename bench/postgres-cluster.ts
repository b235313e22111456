/**
 * A throwaway PostgreSQL cluster for the HTTP bench: `initdb` in a temporary directory, `pg_ctl start` on a free
 * loopback port (run as the `postgres` user with `runuser` when the bench runs as root, as initdb refuses root),
 * stopped and removed afterwards. `GATEHOUSE_BENCH_DATABASE_URL` names an existing throwaway database instead.
 */
import { execFile } from 'node:child_process';
import { chownSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A database to measure against, and how to be rid of it. */
export interface BenchDatabase {
  readonly url: string;
  readonly stop: () => Promise<void>;
  /** The cluster's data directory when the bench started it (its `postmaster.pid` names the server process). */
  readonly dataDir?: string;
}

/** A free TCP port on 127.0.0.1 (the kernel's choice; closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo; // a TCP listen always gives an AddressInfo
      probe.close(() => resolve(port));
    });
  });
}

async function found(command: string): Promise<boolean> {
  try {
    await run('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

/** Runs a PostgreSQL binary as the user allowed to own the cluster. */
function asOwner(command: string, args: readonly string[]): Promise<unknown> {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, [...args]);
}

/** The database to use, or why there is none (printed as the skip line). */
export async function startBenchDatabase(): Promise<BenchDatabase | string> {
  const given = process.env['GATEHOUSE_BENCH_DATABASE_URL'];
  if (given !== undefined && given !== '') return { url: given, stop: async () => undefined };
  if (!(await found('initdb')) || !(await found('pg_ctl'))) {
    return 'no PostgreSQL binaries (initdb, pg_ctl) on PATH and no GATEHOUSE_BENCH_DATABASE_URL';
  }
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-pg-'));
  const data = join(dir, 'data');
  try {
    if (process.getuid?.() === 0) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
    await asOwner('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    const port = await freePort();
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
    await asOwner('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      dataDir: data,
      stop: async () => {
        await asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await asOwner('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    return `could not start a throwaway cluster: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
}
