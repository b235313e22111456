/**
 * The adapter's one SHA-256 helper: lookup digests of sessions, throttle keys and secrets (spec §2.3: secrets are
 * kept by digest only), and the digest function the core's `hashAccessToken` takes.
 *
 * @module
 */
import { hash } from 'node:crypto';

/**
 * SHA-256 of bytes.
 *
 * @param bytes - Input bytes.
 * @returns The 32-byte digest.
 *
 * @example
 * ```ts
 * sha256(new Uint8Array()).length; // 32
 * ```
 */
export function sha256(bytes: Uint8Array): Uint8Array {
  // the one-shot digest: no Hash object per call (it is run for every token a request presents)
  return new Uint8Array(hash('sha256', bytes, 'buffer'));
}

/**
 * Lower-case hex SHA-256 of a string's UTF-8 bytes.
 *
 * @param text - Any text.
 * @returns 64 hex digits.
 *
 * @example
 * ```ts
 * sha256Hex('abc'); // 'ba7816bf…'
 * ```
 */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
