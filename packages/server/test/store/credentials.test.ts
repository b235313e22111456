/**
 * Sealing review host credentials: AES-256-GCM round trips, and any wrong key, context or byte opens nothing.
 */
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../src/store/credentials.js';

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const iv = fc.uint8Array({ minLength: 12, maxLength: 12 });

describe('sealSecret / openSecret', () => {
  it.each([
    { ref: 'key length', key: new Uint8Array(16), iv: new Uint8Array(12) },
    { ref: 'IV length', key: new Uint8Array(32), iv: new Uint8Array(8) },
  ])('should refuse a wrong key or IV length ($ref)', ({ key: k, iv: i }) => {
    expect(sealSecret(k, i, 'secret', 'ctx')).toBeNull();
  });

  test.prop([key, iv, fc.string(), fc.string()])('should round-trip', (k, i, secret, context) => {
    expect(openSecret(k, sealSecret(k, i, secret, context) ?? '', context)).toBe(secret);
  });

  test.prop([key, key, iv, fc.string(), fc.string(), fc.string()])('should open nothing with another key or context', (k1, k2, i, secret, c1, c2) => {
    const sealed = sealSecret(k1, i, secret, c1) ?? '';
    if (!k1.every((b, j) => b === k2[j])) expect(openSecret(k2, sealed, c1)).toBeNull();
    if (c1 !== c2) expect(openSecret(k1, sealed, c2)).toBeNull();
  });

  test.prop([key, iv, fc.string({ minLength: 1 }), fc.nat()])('should open nothing once a character is changed', (k, i, secret, at) => {
    const sealed = sealSecret(k, i, secret, 'ctx') ?? '';
    const parts = sealed.split('.');
    const ct = parts[3] ?? '';
    const p = at % ct.length;
    const flipped = ct[p] === 'A' ? 'B' : 'A';
    const tampered = [...parts.slice(0, 3), ct.slice(0, p) + flipped + ct.slice(p + 1)].join('.');
    // base64url's last character may carry unused bits: only a changed decoding must fail
    if (Buffer.from(tampered.split('.')[3] ?? '', 'base64url').equals(Buffer.from(ct, 'base64url'))) return;
    expect(openSecret(k, tampered, 'ctx')).toBeNull();
  });

  test.prop([key, fc.string(), fc.string()])('should never throw on arbitrary sealed text', (k, sealed, context) => {
    expect(() => openSecret(k, sealed, context)).not.toThrow();
  });
});
