/**
 * CRC-32 (ISO-HDLC / IEEE 802.3, the checksum of zlib, gzip and PNG) over bytes.
 *
 * @internal
 * @module
 */

const TABLE: readonly number[] = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/**
 * CRC-32 of `bytes` as an unsigned 32-bit integer; `crc32(utf8("123456789"))` is `0xcbf43926`.
 * It detects every burst error of at most 32 bits, so every change confined to one base32
 * character (5 bits) or two adjacent ones (10 bits).
 *
 * @param bytes - The data.
 * @returns An integer in `[0, 2^32)`.
 * @example
 * ```ts
 * crc32(utf8Encode('123456789')); // 0xcbf43926
 * ```
 * @internal
 */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
