/**
 * scrypt on one worker thread of its own, one hash at a time. Each scrypt allocates 16 MB (N 16,384, r 8); run on
 * the libuv thread pool, it lands on whichever of its four threads is free, and the C allocator keeps a freed
 * block of that size in the arena of each thread that ran it, so a few minutes of sign-ins leave 64 MB resident
 * for good. On one thread of its own the same work keeps one such block: about 16 MB and the thread's few MB.
 * The hashing limits (hashing-limiter.ts) still decide how many hashes may wait.
 *
 * The worker starts at the first hash and keeps the process alive only while a hash is pending; should it exit,
 * the pending hashes reject and the next hash starts a new one.
 *
 * @module
 */
import { Worker } from 'node:worker_threads';

/** The worker's code, evaluated as CommonJS (no file to find beside a bundle). */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
// messages are handled one at a time, each hash to its end, so the one 16 MB block is freed and reused
parentPort.on('message', (job) => {
  try {
    const key = scryptSync(job.password, job.salt, job.keylen, job.options);
    parentPort.postMessage({ id: job.id, key: new Uint8Array(key) });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** Parameters of one scrypt. */
interface ScryptJob {
  readonly password: string;
  readonly salt: Uint8Array;
  readonly keylen: number;
  readonly options: { readonly N: number; readonly r: number; readonly p: number; readonly maxmem: number };
}

interface Pending {
  readonly resolve: (key: Buffer) => void;
  readonly reject: (error: Error) => void;
}

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;

/** Rejects every pending hash and forgets the worker (the next hash starts a new one). */
function abandon(worker_: Worker, error: Error): void {
  if (worker === worker_) worker = null;
  for (const [, waiting] of pending) waiting.reject(error);
  pending.clear();
}

function hashingWorker(): Worker {
  if (worker !== null) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true });
  started.on('message', (message: { readonly id: number; readonly key?: Uint8Array; readonly error?: string }) => {
    const waiting = pending.get(message.id);
    if (waiting === undefined) return;
    pending.delete(message.id);
    if (pending.size === 0) started.unref();
    if (message.key !== undefined) waiting.resolve(Buffer.from(message.key));
    else waiting.reject(new Error(message.error ?? 'scrypt failed'));
  });
  started.on('error', (error) => abandon(started, error));
  started.on('exit', (code) => abandon(started, new Error(`the scrypt worker exited with ${String(code)}`)));
  worker = started;
  return started;
}

/**
 * Derives a key with scrypt on the hashing thread.
 *
 * @param job - Password (already normalized by the caller), salt, key length and scrypt's options.
 * @returns The key; rejects when scrypt refuses the parameters (more memory than `maxmem`) or the worker failed.
 * @example
 * ```ts
 * const key = await scryptOnWorker({ password: 'pw', salt, keylen: 32, options: { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } });
 * ```
 */
export function scryptOnWorker(job: ScryptJob): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const target = hashingWorker();
    const id = nextId++;
    pending.set(id, { resolve, reject });
    // pending work keeps the process alive (a command that hashes and exits); an idle worker does not
    target.ref();
    target.postMessage({ id, ...job, options: { ...job.options } });
  });
}
