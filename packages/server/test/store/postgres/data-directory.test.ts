/**
 * The embedded data directory is private: every directory `0700` and every file `0600` after a first start and after
 * a restart (the whole tree, with writes in between), whatever the umask lets through; a directory an earlier version
 * left readable by others is made private with a log line; a directory other users can write is refused with the
 * command that makes it private.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EventEmitter } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { runStoreCommand } from '../../../src/run/store-commands.js';
import { serve } from '../../../src/run/serve.js';
import { openStore } from '../../../src/store/open.js';
import type { Store } from '../../../src/store/types.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-data-directory-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every entry under `dir` (and `dir`) whose mode is not 0700 for a directory or 0600 for a file, as `mode path`. */
function loosePaths(dir: string): string[] {
  const loose: string[] = [];
  const visit = (path: string): void => {
    const info = lstatSync(path);
    const mode = info.mode & 0o777;
    if (info.isDirectory()) {
      if (mode !== 0o700) loose.push(`${mode.toString(8)} ${path}`);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (mode !== 0o600) {
      loose.push(`${mode.toString(8)} ${path}`);
    }
  };
  visit(dir);
  return loose;
}

/** How many files and directories the tree holds. */
function countEntries(dir: string): number {
  return readdirSync(dir, { recursive: true }).length;
}

/** Sets every directory to `directoryMode` and every file to `fileMode` (what an earlier version left). */
function chmodTree(dir: string, directoryMode: number, fileMode: number): void {
  const visit = (path: string): void => {
    const info = lstatSync(path);
    if (info.isDirectory()) {
      chmodSync(path, directoryMode);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else {
      chmodSync(path, fileMode);
    }
  };
  visit(dir);
}

async function addAccount(store: Store, username: string): Promise<void> {
  (await store.accounts.create({ usernames: [username], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 }))._unsafeUnwrap();
}

/** `serve` in process on `dataDir` until the first lines are out; `stop` sends SIGTERM and resolves its status. */
async function serveOn(dataDir: string): Promise<{ out: string[]; logs: Record<string, unknown>[]; status: Promise<number>; stop(): Promise<number> }> {
  const signals = new EventEmitter();
  const out: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const status = serve(['--port', '0', '--data-dir', dataDir], {}, {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => out.push(t) },
    signals: { on: (signal, listener) => signals.on(signal, listener) },
    log: (entry) => logs.push(entry),
  });
  let settled = false;
  void status.then(() => {
    settled = true;
  });
  const deadline = Date.now() + 60_000;
  while (!settled && !out.some((l) => l.startsWith('Data: ')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return {
    out,
    logs,
    status,
    stop: () => {
      signals.emit('SIGTERM');
      return status;
    },
  };
}

describe('openStore on a data directory', () => {
  it('should create the directory and its missing parents 0700, every file 0600 and the lock 0600, at a first start and after a restart', async () => {
    const dataDir = join(root, 'first', 'state', 'data');
    const first = (await openStore({ dataDir }))._unsafeUnwrap();
    await addAccount(first.store, 'alice');
    expect((statSync(`${dataDir}.lock`).mode & 0o777).toString(8)).toBe('600');
    // the parents it made are private too (the one that existed is left as it was)
    expect((statSync(dirname(dataDir)).mode & 0o777).toString(8)).toBe('700');
    // a whole database is there (the seed holds one database, about 490 files), each checked below
    expect(countEntries(dataDir)).toBeGreaterThan(400);
    expect(loosePaths(dataDir)).toStrictEqual([]);
    await first.store.close();
    expect(loosePaths(dataDir)).toStrictEqual([]);

    const second = (await openStore({ dataDir }))._unsafeUnwrap();
    for (let i = 0; i < 50; i++) await addAccount(second.store, `user${i}`);
    // files PGlite writes while it runs are private from the start
    expect(loosePaths(dataDir)).toStrictEqual([]);
    await second.store.close();
    expect(loosePaths(dataDir)).toStrictEqual([]);
  }, 120_000);

  it('should refuse a directory other users can write, naming the mode to set, and change nothing', async () => {
    for (const mode of [0o770, 0o707, 0o777]) {
      const dataDir = join(root, `writable-${mode.toString(8)}`);
      mkdirSync(dataDir);
      chmodSync(dataDir, mode);
      await expect(openStore({ dataDir })).rejects.toThrow(
        `the data directory ${dataDir} can be written by other users (mode 0${mode.toString(8)}); check what is in it, then make it private: chmod 700 ${dataDir}`,
      );
      expect(statSync(dataDir).mode & 0o777).toBe(mode);
      expect([readdirSync(dataDir), existsSync(`${dataDir}.lock`)]).toStrictEqual([[], false]);
    }
  }, 60_000);
});

describe('gatehouse serve on a data directory', () => {
  it('should make a directory an earlier version left readable by others (0755, files 0666) private, saying so in a log line', async () => {
    const dataDir = join(root, 'earlier');
    const earlier = (await openStore({ dataDir }))._unsafeUnwrap();
    await addAccount(earlier.store, 'kept');
    await earlier.store.close();
    chmodTree(dataDir, 0o755, 0o666);
    const entries = countEntries(dataDir);
    expect(loosePaths(dataDir)).toHaveLength(entries + 1);

    const running = await serveOn(dataDir);
    expect(running.out.join('')).toContain('gatehouse listening on');
    const fixed = running.logs.find((e) => e['event'] === 'data_directory_permissions_fixed');
    expect(fixed).toStrictEqual({
      level: 'warn',
      event: 'data_directory_permissions_fixed',
      dataDir,
      directories: expect.any(Number),
      files: expect.any(Number),
      message: `the data directory ${dataDir} could be read by other users: set its directories to 0700 and its files to 0600`,
    });
    expect(Number(fixed?.['directories']) + Number(fixed?.['files'])).toBe(entries + 1);
    expect(loosePaths(dataDir)).toStrictEqual([]);
    expect(await running.stop()).toBe(0);
    expect(loosePaths(dataDir)).toStrictEqual([]);

    // a private directory is not "fixed" again
    const again = await serveOn(dataDir);
    expect(again.logs.filter((e) => e['event'] === 'data_directory_permissions_fixed')).toStrictEqual([]);
    expect(await again.stop()).toBe(0);
  }, 180_000);

  it('should say so on standard error when gatehouse migrate makes such a directory private', async () => {
    const dataDir = join(root, 'earlier-cli');
    await (await openStore({ dataDir }))._unsafeUnwrap().store.close();
    chmodTree(dataDir, 0o755, 0o644);
    const stderr: string[] = [];
    const status = await runStoreCommand(['migrate', '--data-dir', dataDir], { env: {}, cwd: root, stdout: { write: () => true }, stderr: { write: (t: string) => stderr.push(t) } });
    expect(status).toBe(0);
    expect(stderr).toContain(`gatehouse: the data directory ${dataDir} could be read by other users: set its directories to 0700 and its files to 0600\n`);
    expect(loosePaths(dataDir)).toStrictEqual([]);
  }, 120_000);

  it('should refuse to start on a directory the group can write (exit 1), with the message naming chmod 700', async () => {
    const dataDir = join(root, 'group-writable');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o775);
    const running = await serveOn(dataDir);
    expect(await running.status).toBe(1);
    expect(running.out.join('')).toContain(
      `gatehouse: cannot open the store at ${dataDir}: the data directory ${dataDir} can be written by other users (mode 0775); check what is in it, then make it private: chmod 700 ${dataDir}`,
    );
    expect(running.out.join('')).not.toContain('gatehouse listening on');
  }, 60_000);
});
