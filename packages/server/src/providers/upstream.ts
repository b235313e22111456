/**
 * Deadlines for outbound calls to providers (code hosts, OpenID Connect issuers, review hosts): a host that
 * never answers must not hold a sign-in callback or a settings page open.
 *
 * @module
 */

/**
 * How long one call to a provider may take by default, in milliseconds (10 s): the request and reading its body.
 *
 * @example
 * ```ts
 * signInRoutes({ ...deps, upstreamTimeoutMs: DEFAULT_UPSTREAM_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/**
 * Why a call was given up.
 *
 * @example
 * ```ts
 * const e: UpstreamTimeout = { code: 'upstream_timeout', timeoutMs: 10_000 };
 * ```
 */
export interface UpstreamTimeout {
  /** Always `upstream_timeout`. */
  readonly code: 'upstream_timeout';
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * The deadline in milliseconds to use: `timeoutMs` when it is a positive finite number, else the default.
 *
 * @param timeoutMs - A configured value, or `undefined`.
 * @returns A positive number of milliseconds.
 * @example
 * ```ts
 * upstreamTimeoutMs(undefined); // 10000
 * upstreamTimeoutMs(250);       // 250
 * ```
 * @internal
 */
export function upstreamTimeoutMs(timeoutMs: number | undefined): number {
  return timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_UPSTREAM_TIMEOUT_MS;
}

/**
 * Runs `work` with an `AbortSignal` that fires after `timeoutMs`, and settles no later than that even when
 * `work` ignores the signal (an injected `fetch` may): it then rejects with an {@link UpstreamTimeout}.
 * A late outcome of `work` is dropped.
 *
 * @param timeoutMs - The deadline in milliseconds (anything but a positive finite number means the default).
 * @param work - The call; pass the signal to `fetch` so the connection is closed too.
 * @returns What `work` resolves to, in time.
 * @example
 * ```ts
 * const res = await withDeadline(10_000, (signal) => fetch(url, { signal }).then((r) => r.json()));
 * ```
 * @internal
 */
export function withDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ms = upstreamTimeoutMs(timeoutMs);
  const signal = AbortSignal.timeout(ms);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject({ code: 'upstream_timeout', timeoutMs: ms } satisfies UpstreamTimeout);
    signal.addEventListener('abort', onAbort, { once: true });
    let running: Promise<T>;
    try {
      running = work(signal);
    } catch (error) {
      signal.removeEventListener('abort', onAbort);
      reject(error);
      return;
    }
    running.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
