/**
 * The lock of an embedded data directory, `<dataDir>.lock`: PostgreSQL in WebAssembly cannot see another process
 * using the same files, and two writers would corrupt them, so one process holds the directory at a time.
 *
 * The lock names its holder well enough to tell a live one from a dead one after a crash: the process id, the
 * process's start time (field 22 of `/proc/<pid>/stat`, in clock ticks since boot) and the boot id
 * (`/proc/sys/kernel/random/boot_id`). A lock is taken over when its holder is gone, is a zombie (exited, not yet
 * reaped by its parent: `kill -9` in a container whose first process reaps nothing), or when its process id now
 * belongs to another process (a different start time, or a different boot: after a reboot every earlier process is
 * gone). A live holder is refused. Where there is no `/proc` (not Linux), a process that exists by `kill(pid, 0)`
 * counts as the holder, as before.
 *
 * @module
 */
import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { match } from 'ts-pattern';
import { DATA_DIRECTORY_MODE, DATA_FILE_MODE } from './data-directory.js';

/**
 * Who holds a lock, as its file says.
 *
 * @example
 * ```ts
 * const holder: LockHolder = { pid: 4242, startTime: '8812345', bootId: '8367c926-6a13-4cb1-ae87-33b01ca90e98' };
 * ```
 */
export interface LockHolder {
  /** The process id. */
  readonly pid: number;
  /** Its start time in clock ticks after boot (`/proc/<pid>/stat` field 22), or `null` when unknown (no `/proc`, an older lock). */
  readonly startTime: string | null;
  /** The boot it ran in, or `null` when unknown. */
  readonly bootId: string | null;
}

/**
 * What `/proc` says of a process id.
 *
 * @example
 * ```ts
 * const seen: ProcessState = { kind: 'running', startTime: '8812345' };
 * ```
 */
export type ProcessState =
  /** A process with this id runs (or sleeps, or is stopped), started at `startTime`. */
  | { readonly kind: 'running'; readonly startTime: string }
  /** The process exited and waits for its parent to reap it (state `Z`, or `X` while being reaped). */
  | { readonly kind: 'zombie' }
  /** `/proc` shows no such process: it is gone, `/proc` hides it (`hidepid`), or there is no `/proc`. */
  | { readonly kind: 'unseen' };

/**
 * Reads `/proc/<pid>/stat`: the state (field 3) and the start time (field 22). The command name (field 2) is in
 * parentheses and may hold spaces and parentheses itself, so the fields are counted after its last `)`.
 *
 * @param pid - The process id.
 * @param proc - Where procfs is mounted.
 * @returns What `/proc` says.
 * @example
 * ```ts
 * readProcessState(process.pid); // { kind: 'running', startTime: '8812345' } on Linux
 * ```
 */
export function readProcessState(pid: number, proc = '/proc'): ProcessState {
  let stat: string;
  try {
    stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
  } catch {
    return { kind: 'unseen' };
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const startTime = fields[19] ?? '';
  if (state === 'Z' || state === 'X' || state === 'x') return { kind: 'zombie' };
  return /^\d+$/u.test(startTime) ? { kind: 'running', startTime } : { kind: 'unseen' };
}

/**
 * This boot's id, or `null` where the kernel does not say.
 *
 * @param proc - Where procfs is mounted.
 * @returns The boot id.
 * @example
 * ```ts
 * readBootId(); // '8367c926-6a13-4cb1-ae87-33b01ca90e98' on Linux
 * ```
 */
export function readBootId(proc = '/proc'): string | null {
  try {
    const id = readFileSync(`${proc}/sys/kernel/random/boot_id`, 'utf8').trim();
    return id === '' ? null : id;
  } catch {
    return null;
  }
}

/**
 * The text of a lock file: one JSON line.
 *
 * @param holder - Who holds it.
 * @returns The file's text.
 * @example
 * ```ts
 * formatLock({ pid: 4242, startTime: '8812345', bootId: 'b' }); // '{"pid":4242,"startTime":"8812345","bootId":"b"}\n'
 * ```
 */
export function formatLock(holder: LockHolder): string {
  return `${JSON.stringify({ pid: holder.pid, startTime: holder.startTime, bootId: holder.bootId })}\n`;
}

/**
 * Reads a lock file: the JSON line {@link formatLock} writes, or a bare process id (what earlier versions wrote).
 *
 * @param text - The file's text.
 * @returns The holder, or `null` for anything else (an empty file left by a crash while it was written).
 * @example
 * ```ts
 * parseLock('4242'); // { pid: 4242, startTime: null, bootId: null }
 * ```
 */
export function parseLock(text: string): LockHolder | null {
  const trimmed = text.trim();
  const pidOf = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);
  if (/^\d+$/u.test(trimmed)) {
    const pid = pidOf(Number(trimmed));
    return pid === null ? null : { pid, startTime: null, bootId: null };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const pid = pidOf(Reflect.get(parsed, 'pid'));
  const startTime: unknown = Reflect.get(parsed, 'startTime');
  const bootId: unknown = Reflect.get(parsed, 'bootId');
  if (pid === null) return null;
  return { pid, startTime: typeof startTime === 'string' ? startTime : null, bootId: typeof bootId === 'string' ? bootId : null };
}

/**
 * Whether a lock's holder still holds it.
 *
 * @param holder - Who the lock names.
 * @param bootId - This boot's id, or `null` when unknown.
 * @param seen - What `/proc` says of the holder's process id now.
 * @param exists - Whether a process with the id exists by `kill(pid, 0)` (asked only when `/proc` does not show it).
 * @returns `live` (refuse to start) or `stale` (take the lock over).
 * @example
 * ```ts
 * decideLockHolder({ pid: 42, startTime: '100', bootId: 'a' }, 'a', { kind: 'running', startTime: '999' }, () => true); // 'stale'
 * ```
 */
export function decideLockHolder(holder: LockHolder, bootId: string | null, seen: ProcessState, exists: () => boolean): 'live' | 'stale' {
  // after a reboot no process of the earlier boot runs, whatever now has its id
  if (holder.bootId !== null && bootId !== null && holder.bootId !== bootId) return 'stale';
  return match(seen)
    .returnType<'live' | 'stale'>()
    .with({ kind: 'zombie' }, () => 'stale')
    .with({ kind: 'running' }, (running) => (holder.startTime === null || holder.startTime === running.startTime ? 'live' : 'stale'))
    .with({ kind: 'unseen' }, () => (exists() ? 'live' : 'stale'))
    .exhaustive();
}

/** Whether a process with this id exists: signal 0 tests for existence, and EPERM means it exists under another user. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return typeof error === 'object' && error !== null && 'code' in error && error.code === 'EPERM';
  }
}

/**
 * Takes `<dataDir>.lock` for this process (mode `0600`; a missing parent directory is made `0700`), taking over a
 * lock whose holder is gone (see the module documentation).
 *
 * @param dataDir - The data directory.
 * @param proc - Where procfs is mounted (tests point it elsewhere to act as a system without one).
 * @returns A function that releases the lock; rejects with `the data directory … is in use by process N (…lock)`
 *   while a live process holds it.
 * @example
 * ```ts
 * const release = await lockDataDirectory('/srv/.gatehouse/data');
 * await release();
 * ```
 */
export async function lockDataDirectory(dataDir: string, proc = '/proc'): Promise<() => Promise<void>> {
  const lock = `${dataDir}.lock`;
  await mkdir(dirname(lock), { recursive: true, mode: DATA_DIRECTORY_MODE });
  const bootId = readBootId(proc);
  const self = readProcessState(process.pid, proc);
  const text = formatLock({ pid: process.pid, startTime: self.kind === 'running' ? self.startTime : null, bootId });
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = await writeFile(lock, text, { flag: 'wx', mode: DATA_FILE_MODE }).then(
      () => true,
      (error: unknown) => (typeof error === 'object' && error !== null && 'code' in error && error.code === 'EEXIST' ? false : Promise.reject(error)),
    );
    if (taken) return () => unlink(lock).catch(() => undefined);
    const holder = parseLock(await readFile(lock, 'utf8').catch(() => ''));
    if (holder !== null && decideLockHolder(holder, bootId, readProcessState(holder.pid, proc), () => exists(holder.pid)) === 'live') {
      return Promise.reject(new Error(`the data directory ${dataDir} is in use by process ${holder.pid} (${lock})`));
    }
    await unlink(lock).catch(() => undefined);
  }
  return Promise.reject(new Error(`could not take ${lock}`));
}
