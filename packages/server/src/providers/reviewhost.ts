/**
 * The `reviewhost` adapter (spec §5.3 reviewhost): checks a person's credentials at the review host before they
 * are stored.
 *
 * @module
 */
import type { ReviewhostCheck } from './reviewhost-check.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, withDeadline } from './upstream.js';

export type { ReviewhostCheck } from './reviewhost-check.js';

/**
 * Checks review host credentials the way its REST API is used by clients: `GET {url}/a/accounts/self` with HTTP
 * Basic authentication. The answer may start with the `)]}'` line that such hosts prepend against JSON hijacking.
 *
 * @param url - The review host's base URL.
 * @param username - The username at the review host.
 * @param password - The HTTP password.
 * @param fetchFn - `fetch`.
 * @param timeoutMs - Give up after this long (default 10 s).
 * @returns What the host said.
 * @example
 * ```ts
 * await checkReviewhostCredentials('https://review.example.com', 'alice', 'hunter2', fetch);
 * // { kind: 'valid', username: 'alice' }
 * ```
 */
export async function checkReviewhostCredentials(
  url: string,
  username: string,
  password: string,
  fetchFn: typeof fetch,
  timeoutMs: number = DEFAULT_UPSTREAM_TIMEOUT_MS,
): Promise<ReviewhostCheck> {
  if (username === '' || password === '' || username.includes(':')) return { kind: 'refused' };
  const basic = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
  let status: number;
  let text: string;
  try {
    // one deadline for the request and its body, kept even by a `fetch` that ignores the signal
    [status, text] = await withDeadline(timeoutMs, async (signal) => {
      const response = await fetchFn(`${url.replace(/\/+$/, '')}/a/accounts/self`, {
        headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
        redirect: 'manual',
        signal,
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return [response.status, ''] as const;
      }
      return [response.status, await response.text()] as const;
    });
  } catch {
    return { kind: 'unreachable' };
  }
  if (status === 401 || status === 403) return { kind: 'refused' };
  if (status !== 200) return { kind: 'unreachable' };
  let body: unknown;
  try {
    body = JSON.parse(text.replace(/^\)\]\}'\s*/, ''));
  } catch {
    return { kind: 'unreachable' };
  }
  const named = typeof body === 'object' && body !== null && 'username' in body ? body.username : undefined;
  if (typeof named !== 'string') return { kind: 'unreachable' };
  return named === username ? { kind: 'valid', username: named } : { kind: 'refused' };
}
