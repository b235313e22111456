/**
 * Review host credentials at rest (spec §5.3 `reviewhost`, beta): sealed with AES-256-GCM (`node:crypto`) before
 * they reach the store, and never returned (the check at the host is in `reviewhost.ts`).
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

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
