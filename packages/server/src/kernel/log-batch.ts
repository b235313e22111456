/**
 * Log lines gathered for a few milliseconds and handed to their destination in one write: under load a busy server
 * logs an access line per request, and one write per line (a system call through the thread pool each) costs more
 * CPU than the line itself. A line waits at most {@link LogBatchOptions.intervalMs}; a batch that reaches
 * {@link LogBatchOptions.maxChars} is written at once; {@link BatchedDestination.flushSync} writes what waits and
 * flushes the destination synchronously (the process's `exit`, so no line is lost).
 *
 * @module
 */

/**
 * Where a batch goes: pino's destination (sonic-boom) or a double.
 *
 * @example
 * ```ts
 * const target: BatchTarget = { write: (text) => process.stderr.write(text), flushSync: () => undefined };
 * ```
 */
export interface BatchTarget {
  /**
   * Takes a batch of lines (each with its newline).
   *
   * @param text - The lines.
   * @returns Anything.
   */
  write(text: string): unknown;
  /**
   * Writes whatever the target itself still buffers, synchronously.
   *
   * @returns Nothing.
   */
  flushSync(): void;
}

/**
 * Bounds of a {@link BatchedDestination}.
 *
 * @example
 * ```ts
 * const options: LogBatchOptions = { intervalMs: 10, maxChars: 16_384 };
 * ```
 */
export interface LogBatchOptions {
  /** Longest a line waits before its batch is written, in milliseconds. */
  readonly intervalMs: number;
  /** A batch of at least this many characters is written at once. */
  readonly maxChars: number;
  /** The timer (default `setTimeout`, unreferenced: a waiting batch never keeps the process alive). */
  readonly schedule?: (fn: () => void, ms: number) => { readonly cancel: () => void };
}

/**
 * A log destination that batches its lines (see the module).
 *
 * @example
 * ```ts
 * const destination: BatchedDestination = createBatchedDestination(target, { intervalMs: 10, maxChars: 16_384 });
 * destination.write('{"event":"request"}\n');
 * ```
 */
export interface BatchedDestination {
  /**
   * Adds one line to the waiting batch.
   *
   * @param line - One line with its newline.
   * @returns Nothing.
   */
  write(line: string): void;
  /**
   * Hands the waiting batch to the target now.
   *
   * @returns Nothing.
   */
  flush(): void;
  /**
   * Hands the waiting batch to the target and flushes the target synchronously.
   *
   * @returns Nothing.
   */
  flushSync(): void;
}

/** `setTimeout`, unreferenced. */
function unrefTimer(fn: () => void, ms: number): { readonly cancel: () => void } {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}

/**
 * Wraps a destination so that lines logged within `intervalMs` of each other go out in one write.
 *
 * @param target - Where batches go.
 * @param options - The wait and the size that writes at once.
 * @returns The batching destination.
 *
 * @example
 * ```ts
 * const stderr = pino.destination({ dest: 2, sync: false });
 * const batched = createBatchedDestination(stderr, { intervalMs: 10, maxChars: 16_384 });
 * process.once('exit', () => batched.flushSync());
 * ```
 */
export function createBatchedDestination(target: BatchTarget, options: LogBatchOptions): BatchedDestination {
  const schedule = options.schedule ?? unrefTimer;
  let waiting = '';
  let timer: { readonly cancel: () => void } | null = null;
  const flush = (): void => {
    if (timer !== null) {
      timer.cancel();
      timer = null;
    }
    if (waiting === '') return;
    const text = waiting;
    waiting = '';
    target.write(text);
  };
  return {
    write(line) {
      waiting += line;
      if (waiting.length >= options.maxChars) flush();
      else timer ??= schedule(flush, options.intervalMs);
    },
    flush,
    flushSync() {
      flush();
      target.flushSync();
    },
  };
}
