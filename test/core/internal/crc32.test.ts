import { crc32 as zlibCrc32 } from 'node:zlib';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../../src/core/internal/crc32.js';

describe('crc32', () => {
  it.each([
    { ref: 'CRC-32/ISO-HDLC check value', input: '123456789', expected: 0xcbf43926 },
    { ref: 'empty input', input: '', expected: 0 },
  ])('should match the $ref', ({ input, expected }) => {
    expect(crc32(new TextEncoder().encode(input))).toBe(expected);
  });

  test.prop([fc.uint8Array({ maxLength: 64 })])('should equal zlib', (bytes) => {
    expect(crc32(bytes)).toBe(zlibCrc32(bytes));
  });
});
