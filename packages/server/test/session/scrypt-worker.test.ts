/**
 * scrypt on its own thread gives node:crypto's scrypt's keys (an independent oracle), answers every one of many
 * concurrent hashes with its own key, and rejects what scrypt refuses (more memory than `maxmem`).
 */
import { scryptSync } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { scryptOnWorker } from '../../src/session/scrypt-worker.js';

const options = { N: 1024, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

describe('scryptOnWorker', () => {
  test.prop([fc.string({ maxLength: 40 }), fc.uint8Array({ minLength: 1, maxLength: 32 }), fc.integer({ min: 16, max: 64 })], { numRuns: 20 })(
    "should give node:crypto's key",
    async (password, salt, keylen) => {
      const key = await scryptOnWorker({ password, salt, keylen, options });
      expect(key.toString('hex')).toBe(scryptSync(password, salt, keylen, options).toString('hex'));
    },
  );

  it('should answer each of many concurrent hashes with its own key', async () => {
    const passwords = Array.from({ length: 24 }, (_, i) => `password ${String(i)}`);
    const salt = new Uint8Array(16).fill(7);
    const keys = await Promise.all(passwords.map((password) => scryptOnWorker({ password, salt, keylen: 32, options })));
    expect(keys.map((k) => k.toString('hex'))).toStrictEqual(passwords.map((password) => scryptSync(password, salt, 32, options).toString('hex')));
  });

  it('should reject parameters scrypt refuses, and keep working after', async () => {
    const salt = new Uint8Array(16);
    await expect(scryptOnWorker({ password: 'x', salt, keylen: 32, options: { N: 1 << 20, r: 32, p: 1, maxmem: 64 * 1024 * 1024 } })).rejects.toThrow();
    const key = await scryptOnWorker({ password: 'x', salt, keylen: 32, options });
    expect(key.toString('hex')).toBe(scryptSync('x', salt, 32, options).toString('hex'));
  });
});
