/**
 * The lock of an embedded data directory survives crashes honestly: a holder that is a zombie, gone, or whose process
 * id now belongs to another process (another start time, another boot) never blocks a start, while a live holder (a
 * second server on the same directory) is refused. Real processes: a zombie made by a shell that never reaps its
 * child, `sleep` as a live process, a gatehouse server process as the live holder.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open.js';
import {
  decideLockHolder,
  formatLock,
  lockDataDirectory,
  parseLock,
  readBootId,
  readProcessState,
} from '../../../src/store/postgres/data-directory-lock.js';
import type { LockHolder, ProcessState } from '../../../src/store/postgres/data-directory-lock.js';
import { startGatehouseProcess } from '../../helpers/processes.js';

const linux = readBootId() !== null;
if (!linux) console.warn('data-directory-lock.test.ts: no /proc here: the /proc cases are skipped (the kill(pid, 0) fallback is tested)');

const root = mkdtempSync(join(tmpdir(), 'gatehouse-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Fields 3 (state) and 22 (start time) of `/proc/<pid>/stat`, read here without the code under test. */
function procStat(pid: number): { readonly state: string; readonly startTime: string } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
}

/** A live process (`sleep 60`) and its pid. */
function liveProcess(): number {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('sleep did not start');
  return child.pid;
}

/**
 * A real zombie: a shell starts a child in the background, prints its pid and becomes `sleep`, which never waits for
 * it; the child exits and stays a zombie (state Z) until `sleep` ends. Resolves its pid and its start time (a zombie
 * keeps it in field 22).
 */
async function zombieProcess(): Promise<{ readonly pid: number; readonly startTime: string }> {
  // the child outlives the shell (sleep 0.3) so that `sleep`, which never waits, is its parent when it exits
  const parent = spawn('sh', ['-c', 'sh -c "sleep 0.3" & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  const line = await new Promise<string>((resolve) => createInterface({ input: parent.stdout }).once('line', resolve));
  const pid = Number(line.trim());
  for (let i = 0; i < 400 && procStat(pid).state !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  const stat = procStat(pid);
  expect(stat.state).toBe('Z');
  return { pid, startTime: stat.startTime };
}

/** A process that ran and is gone (reaped): its pid and the start time it had. */
async function deadProcess(): Promise<{ readonly pid: number; readonly startTime: string }> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  const pid = child.pid ?? 0;
  const startTime = linux ? procStat(pid).startTime : '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return { pid, startTime };
}

/** Opens and closes the store on `dataDir` whose lock names `holder`; resolves what the lock named after the open. */
async function openOver(dataDir: string, lockText: string): Promise<LockHolder | null> {
  writeFileSync(`${dataDir}.lock`, lockText);
  const opened = (await openStore({ dataDir }))._unsafeUnwrap();
  const holder = parseLock(readFileSync(`${dataDir}.lock`, 'utf8'));
  await opened.store.close();
  return holder;
}

describe('decideLockHolder', () => {
  const BOOT = 'this-boot';
  const holder = (startTime: string | null, bootId: string | null): LockHolder => ({ pid: 4242, startTime, bootId });
  const running = (startTime: string): ProcessState => ({ kind: 'running', startTime });
  it.each([
    { ref: 'the same process: same boot, same start time', holder: holder('100', BOOT), seen: running('100'), exists: true, expected: 'live' },
    { ref: 'id reused by another process: another start time', holder: holder('100', BOOT), seen: running('200'), exists: true, expected: 'stale' },
    { ref: 'another boot: every process of it is gone', holder: holder('100', 'earlier-boot'), seen: running('100'), exists: true, expected: 'stale' },
    { ref: 'a zombie (exited, not reaped)', holder: holder('100', BOOT), seen: { kind: 'zombie' }, exists: true, expected: 'stale' },
    { ref: 'a zombie named by an older lock (pid only)', holder: holder(null, null), seen: { kind: 'zombie' }, exists: true, expected: 'stale' },
    { ref: 'an older lock (pid only) naming a running process', holder: holder(null, null), seen: running('100'), exists: true, expected: 'live' },
    { ref: 'not in /proc and no such process', holder: holder('100', BOOT), seen: { kind: 'unseen' }, exists: false, expected: 'stale' },
    { ref: 'no /proc (not Linux): kill(pid, 0) finds it', holder: holder(null, null), seen: { kind: 'unseen' }, exists: true, expected: 'live' },
  ] as const)('should find the holder $expected: $ref', ({ holder: h, seen, exists, expected }) => {
    expect(decideLockHolder(h, BOOT, seen, () => exists)).toBe(expected);
  });
});

describe('parseLock and formatLock', () => {
  it.each([
    { ref: 'what formatLock writes', text: formatLock({ pid: 7, startTime: '12', bootId: 'b' }), expected: { pid: 7, startTime: '12', bootId: 'b' } },
    { ref: 'a bare pid (earlier versions)', text: '4242\n', expected: { pid: 4242, startTime: null, bootId: null } },
    { ref: 'an empty file (a crash while it was written)', text: '', expected: null },
    { ref: 'not a pid', text: '{"pid":-1}', expected: null },
    { ref: 'garbage', text: 'x', expected: null },
  ])('should read $ref', ({ text, expected }) => {
    expect(parseLock(text)).toStrictEqual(expected);
  });
});

describe.runIf(linux)('lockDataDirectory with /proc', () => {
  it('should take over the lock of a zombie holder (kill -9 of a process nobody reaps), in either lock format', async () => {
    const dataDir = join(root, 'zombie');
    const zombie = await zombieProcess();
    // the lock an earlier version left: its pid only
    expect((await openOver(dataDir, String(zombie.pid)))?.pid).toBe(process.pid);
    // the lock this version writes: pid, start time, boot id
    const mine = readProcessState(process.pid);
    expect(await openOver(dataDir, formatLock({ pid: zombie.pid, startTime: zombie.startTime, bootId: readBootId() }))).toStrictEqual({
      pid: process.pid,
      startTime: mine.kind === 'running' ? mine.startTime : null,
      bootId: readBootId(),
    });
  }, 120_000);

  it('should take over the lock of a holder that is gone', async () => {
    const dataDir = join(root, 'dead');
    const dead = await deadProcess();
    expect((await openOver(dataDir, formatLock({ pid: dead.pid, startTime: dead.startTime, bootId: readBootId() })))?.pid).toBe(process.pid);
  }, 120_000);

  it('should take over a lock whose pid now belongs to another process (another start time), and refuse the process it names', async () => {
    const dataDir = join(root, 'reused');
    const pid = liveProcess();
    const { startTime } = procStat(pid);
    expect((await openOver(dataDir, formatLock({ pid, startTime: String(Number(startTime) - 1), bootId: readBootId() })))?.pid).toBe(process.pid);
    // the same pid with its own start time is that process, alive: refused
    writeFileSync(`${dataDir}.lock`, formatLock({ pid, startTime, bootId: readBootId() }));
    await expect(openStore({ dataDir })).rejects.toThrow(`the data directory ${dataDir} is in use by process ${pid} (${dataDir}.lock)`);
  }, 120_000);

  it('should take over a lock written in another boot (after a reboot), even when its pid and start time match a live process', async () => {
    const dataDir = join(root, 'rebooted');
    const pid = liveProcess();
    const { startTime } = procStat(pid);
    expect((await openOver(dataDir, formatLock({ pid, startTime, bootId: '00000000-0000-0000-0000-000000000000' })))?.pid).toBe(process.pid);
    // the same lock written in this boot names that process, alive: refused
    writeFileSync(`${dataDir}.lock`, formatLock({ pid, startTime, bootId: readBootId() }));
    await expect(openStore({ dataDir })).rejects.toThrow(`the data directory ${dataDir} is in use by process ${pid} (${dataDir}.lock)`);
  }, 120_000);

  it('should refuse a second server on a data directory a live server process holds, and start once it stopped', async () => {
    const dataDir = join(root, 'two-servers');
    const first = await startGatehouseProcess({ args: ['--data-dir', dataDir] });
    let stopped = false;
    try {
      const holder = parseLock(readFileSync(`${dataDir}.lock`, 'utf8'));
      expect(holder).not.toBeNull();
      expect(holder?.pid).not.toBe(process.pid);
      await expect(openStore({ dataDir })).rejects.toThrow(`the data directory ${dataDir} is in use by process ${holder?.pid ?? 0} (${dataDir}.lock)`);
      await expect(startGatehouseProcess({ args: ['--data-dir', dataDir], timeoutMs: 30_000 })).rejects.toThrow(`is in use by process ${holder?.pid ?? 0}`);
      await first.stop();
      stopped = true;
      await (await openStore({ dataDir }))._unsafeUnwrap().store.close();
    } finally {
      if (!stopped) await first.stop();
    }
  }, 180_000);
});

describe('lockDataDirectory without /proc (not Linux): kill(pid, 0) decides, as before', () => {
  const noProc = join(root, 'no-proc');
  it('should refuse a lock naming a process that exists, whatever start time it records, and take over one naming no process', async () => {
    const dataDir = join(root, 'fallback');
    const pid = liveProcess();
    writeFileSync(`${dataDir}.lock`, formatLock({ pid, startTime: '1', bootId: null }));
    await expect(lockDataDirectory(dataDir, noProc)).rejects.toThrow(`is in use by process ${pid}`);
    const dead = await deadProcess();
    writeFileSync(`${dataDir}.lock`, String(dead.pid));
    const release = await lockDataDirectory(dataDir, noProc);
    expect(parseLock(readFileSync(`${dataDir}.lock`, 'utf8'))).toStrictEqual({ pid: process.pid, startTime: null, bootId: null });
    await release();
  });
});
