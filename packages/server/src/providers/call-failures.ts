/**
 * Log lines for failed calls to providers (code hosts, OpenID Connect issuers, review hosts): one
 * `provider_call_failed` line naming the provider type, the host called and an error code, so an operator sees
 * why a sign-in answered 502. A line never carries a secret: no URL path or query (a code, a token), no header,
 * no body, no error message (which can quote any of them); the code is a short token such as `ECONNREFUSED`,
 * `ENOTFOUND`, `TimeoutError`, `http_500` or openid-client's `OAUTH_…` codes.
 *
 * @module
 */
import type { ProviderType } from 'gatehouse-auth';
import type { LogEntry } from '../kernel/logging.js';

/** A short code: letters, digits, `_`, `-` and `.`, at most 64 characters. */
const CODE = /^[A-Za-z0-9_.-]{1,64}$/u;

/**
 * The code of a failed call: the innermost `code` along the error's `cause` chain (Node's network errors carry
 * `ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_…` there, openid-client its `OAUTH_…` codes), else an HTTP status the
 * error names (`http_502`), else the error's class (`TimeoutError`, `TypeError`).
 *
 * @param error - What the call rejected with.
 * @returns A short code, `unknown` when nothing usable is there.
 *
 * @example
 * ```ts
 * callFailureCode(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })); // 'ECONNREFUSED'
 * callFailureCode({ code: 'upstream_timeout', timeoutMs: 10_000 }); // 'upstream_timeout'
 * ```
 */
export function callFailureCode(error: unknown): string {
  let found: string | null = null;
  let status: number | null = null;
  let name: string | null = null;
  for (let current: unknown = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
    const { code, status: s, name: n, cause } = current as { readonly code?: unknown; readonly status?: unknown; readonly name?: unknown; readonly cause?: unknown };
    if (typeof code === 'string' && CODE.test(code)) found = code;
    if (status === null && typeof s === 'number' && Number.isInteger(s)) status = s;
    if (name === null && typeof n === 'string' && CODE.test(n)) name = n;
    current = cause;
  }
  return found ?? (status === null ? null : `http_${status}`) ?? name ?? 'unknown';
}

/**
 * The host a call went to (`host:port` when a port is written), never its user name, password, path or query.
 *
 * @param url - The URL called.
 * @returns The host, or `unknown` for text that is not a URL.
 *
 * @example
 * ```ts
 * callHost('https://user:pw@id.example.com:8443/token?code=abc'); // 'id.example.com:8443'
 * ```
 */
export function callHost(url: string | URL): string {
  try {
    return new URL(url).host || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Logs one failed call.
 *
 * @param log - The log sink (nothing is logged without one).
 * @param failure - The provider type, the URL called, the step when known, and the code.
 *
 * @example
 * ```ts
 * logCallFailure(log, { provider: 'openidconnect', url: issuer, step: 'discovery', code: callFailureCode(error) });
 * // { level: 'error', event: 'provider_call_failed', provider: 'openidconnect', host: 'id.example.com', step: 'discovery', code: 'ECONNREFUSED' }
 * ```
 */
export function logCallFailure(
  log: ((entry: LogEntry) => void) | undefined,
  failure: { readonly provider: ProviderType; readonly url: string | URL; readonly step?: string; readonly code: string; readonly level?: 'warn' | 'error' },
): void {
  log?.({
    level: failure.level ?? 'error',
    event: 'provider_call_failed',
    provider: failure.provider,
    host: callHost(failure.url),
    ...(failure.step === undefined ? {} : { step: failure.step }),
    code: failure.code,
  });
}

/** The URL a `fetch` call names. */
function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/**
 * `fetchFn` for calls to one provider, logging each that fails: a rejection (no connection, a timeout) as an
 * `error` line with its code, an answer of 500 and above as an `error` line `http_5xx`, an answer of 400–499 as a
 * `warn` line `http_4xx` (a refused code or wrong client credentials). The call's outcome is unchanged.
 *
 * @param fetchFn - The `fetch` to call.
 * @param provider - The provider type called.
 * @param log - The log sink; without one, `fetchFn` itself is returned.
 * @returns The reporting `fetch`.
 *
 * @example
 * ```ts
 * const hostaFetch = reportingFetch(fetch, 'hosta', log);
 * await hostaFetch('https://hosta.example.com/login/oauth/access_token', init); // a 500 logs { provider: 'hosta', host: 'hosta.example.com', code: 'http_500' }
 * ```
 */
export function reportingFetch(fetchFn: typeof fetch, provider: ProviderType, log: ((entry: LogEntry) => void) | undefined): typeof fetch {
  if (log === undefined) return fetchFn;
  return async (input, init) => {
    const url = urlOf(input);
    let response: Response;
    try {
      response = await fetchFn(input, init);
    } catch (error) {
      logCallFailure(log, { provider, url, code: callFailureCode(error) });
      throw error;
    }
    if (response.status >= 400) logCallFailure(log, { provider, url, code: `http_${response.status}`, level: response.status >= 500 ? 'error' : 'warn' });
    return response;
  };
}
