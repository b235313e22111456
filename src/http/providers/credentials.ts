/**
 * Review host credentials (spec §5.3 `reviewhost`, beta): checked against the review host, then sealed with
 * AES-256-GCM (`node:crypto`) before they reach the store, and never returned.
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, withDeadline } from './upstream.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const KEY_BYTES = 32;

/**
 * Seals a secret with AES-256-GCM. `context` (for example the account id and the provider URL) is bound as
 * additional authenticated data, so a sealed value copied to another account or provider does not open.
 *
 * @param key - 32 bytes.
 * @param iv - 12 fresh random bytes (never reuse one with the same key).
 * @param secret - The secret.
 * @param context - Bound to the ciphertext.
 * @returns `v1.<iv>.<tag>.<ciphertext>` in base64url, or `null` when the key or IV has the wrong length.
 * @example
 * ```ts
 * const sealed = sealSecret(key, randomBytes(12), 'hunter2', 'user 1 at https://review.example.com');
 * openSecret(key, sealed ?? '', 'user 1 at https://review.example.com'); // 'hunter2'
 * ```
 */
export function sealSecret(key: Uint8Array, iv: Uint8Array, secret: string, context: string): string | null {
  if (key.length !== KEY_BYTES || iv.length !== IV_BYTES) return null;
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, Buffer.from(iv).toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/**
 * Opens a value sealed by {@link sealSecret}.
 *
 * @param key - The same 32 bytes.
 * @param sealed - The sealed value.
 * @param context - The same context.
 * @returns The secret, or `null` when the key, the context or the value is wrong (tampering included).
 * @example
 * ```ts
 * openSecret(otherKey, sealed, context); // null
 * ```
 */
export function openSecret(key: Uint8Array, sealed: string, context: string): string | null {
  const [version, iv, tag, ciphertext, ...rest] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) return null;
  if (key.length !== KEY_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * What the review host said about a pair of credentials.
 *
 * @example
 * ```ts
 * const r: ReviewhostCheck = { kind: 'valid', username: 'alice' };
 * ```
 */
export type ReviewhostCheck =
  /** The host accepted them; `username` is the account it names. */
  | { readonly kind: 'valid'; readonly username: string }
  /** The host refused them (401/403, or they name another account). */
  | { readonly kind: 'refused' }
  /** The host could not be reached or answered something else. */
  | { readonly kind: 'unreachable' };

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
