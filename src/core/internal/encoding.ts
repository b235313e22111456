/**
 * Pure byte/text encodings for the core (UTF-8, hex, lowercase base32), because the core has no
 * `TextEncoder` or `Buffer`.
 *
 * @internal
 * @module
 */

/**
 * Encodes a string as UTF-8, exactly as `TextEncoder#encode` does: every lone surrogate becomes
 * U+FFFD (`ef bf bd`).
 *
 * @param text - Any string, possibly with lone surrogates.
 * @returns Its UTF-8 bytes.
 * @example
 * ```ts
 * utf8Encode('é\ud800'); // Uint8Array [0xc3, 0xa9, 0xef, 0xbf, 0xbd]
 * ```
 * @internal
 */
export function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  const length = text.length;
  for (let i = 0; i < length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdfff) {
      const next = i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (cp <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        cp = 0xfffd;
      }
    }
    if (cp < 0x80) {
      out.push(cp);
    } else if (cp < 0x800) {
      out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    } else {
      out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    }
  }
  return Uint8Array.from(out);
}

const HEX_DIGITS = '0123456789abcdef';

/**
 * Lowercase hexadecimal, two digits per byte.
 *
 * @param bytes - The bytes to encode.
 * @returns `2 * bytes.length` characters from `0-9a-f`.
 * @example
 * ```ts
 * bytesToHex(new Uint8Array([0, 171, 255])); // '00abff'
 * ```
 * @internal
 */
export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX_DIGITS.charAt(byte >> 4) + HEX_DIGITS.charAt(byte & 0x0f);
  return out;
}

/**
 * The RFC 4648 §6 base32 alphabet in lowercase.
 *
 * @example
 * ```ts
 * BASE32_ALPHABET.charAt(26); // '2'
 * ```
 * @internal
 */
export const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * RFC 4648 §6 base32 in lowercase without padding: the bits of `bytes`, five at a time, most
 * significant first; a last partial group is padded with zero bits.
 *
 * @param bytes - The bytes to encode.
 * @returns `ceil(8 * bytes.length / 5)` characters of {@link BASE32_ALPHABET}.
 * @example
 * ```ts
 * base32Encode(utf8Encode('foobar')); // 'mzxw6ytboi' (RFC 4648 §10, lowercase, unpadded)
 * ```
 * @internal
 */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET.charAt((buffer >> (bits - 5)) & 31);
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET.charAt((buffer << (5 - bits)) & 31);
  return out;
}

/**
 * The value (0–31) of one character of {@link BASE32_ALPHABET}, or -1 for any other character.
 *
 * @param code - A UTF-16 code unit.
 * @returns The digit value, or -1.
 * @example
 * ```ts
 * base32DigitValue(0x62); // 1 ('b')
 * base32DigitValue(0x31); // -1 ('1' is not a base32 digit)
 * ```
 * @internal
 */
export function base32DigitValue(code: number): number {
  if (code >= 0x61 && code <= 0x7a) return code - 0x61; // a-z
  if (code >= 0x32 && code <= 0x37) return code - 0x32 + 26; // 2-7
  return -1;
}

/**
 * Decodes unpadded lowercase base32 whose length is a multiple of 8 characters (so it encodes whole
 * 5-byte groups exactly). Returns `null` for any other character or length.
 *
 * @param text - The base32 text.
 * @returns The decoded bytes, or `null`.
 * @example
 * ```ts
 * base32DecodeGroups('mzxw6ytb'); // Uint8Array of 'fooba'
 * base32DecodeGroups('mzxw6yq');  // null (not whole 8-character groups)
 * ```
 * @internal
 */
export function base32DecodeGroups(text: string): Uint8Array | null {
  if (text.length % 8 !== 0) return null;
  const out = new Uint8Array((text.length / 8) * 5);
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (let i = 0; i < text.length; i++) {
    const value = base32DigitValue(text.charCodeAt(i));
    if (value < 0) return null;
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out[index] = (buffer >> (bits - 8)) & 0xff;
      index++;
      bits -= 8;
    }
  }
  return out;
}

/** The RFC 4648 §5 base64url alphabet. @internal */
export const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * RFC 4648 §5 base64url without padding.
 *
 * @param bytes - Any bytes.
 * @returns The text.
 * @example
 * ```ts
 * base64UrlEncode(new Uint8Array([0xfb, 0xff])); // '-_8'
 * ```
 * @internal
 */
export function base64UrlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      BASE64URL_ALPHABET.charAt(n >> 18) +
      BASE64URL_ALPHABET.charAt((n >> 12) & 63) +
      BASE64URL_ALPHABET.charAt((n >> 6) & 63) +
      BASE64URL_ALPHABET.charAt(n & 63);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] ?? 0) << 16;
    out += BASE64URL_ALPHABET.charAt(n >> 18) + BASE64URL_ALPHABET.charAt((n >> 12) & 63);
  } else if (rest === 2) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8);
    out +=
      BASE64URL_ALPHABET.charAt(n >> 18) + BASE64URL_ALPHABET.charAt((n >> 12) & 63) + BASE64URL_ALPHABET.charAt((n >> 6) & 63);
  }
  return out;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Strict RFC 4648 §4 base64 (padding required, canonical trailing bits), or `null`.
 *
 * @param text - base64 text.
 * @returns The bytes, or `null` when the text is not canonical base64.
 * @example
 * ```ts
 * base64Decode('YTpi'); // Uint8Array [0x61, 0x3a, 0x62]
 * base64Decode('YTpi='); // null
 * ```
 * @internal
 */
export function base64Decode(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const chunk = text.slice(i, i + 4);
    const pad = last ? (chunk.endsWith('==') ? 2 : chunk.endsWith('=') ? 1 : 0) : 0;
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const ch = chunk.charAt(j);
      if (j >= 4 - pad) {
        n <<= 6;
        continue;
      }
      const v = BASE64_ALPHABET.indexOf(ch);
      if (v < 0 || ch === '') return null;
      n = (n << 6) | v;
    }
    out.push((n >> 16) & 0xff);
    if (pad < 2) out.push((n >> 8) & 0xff);
    if (pad < 1) out.push(n & 0xff);
    // Non-canonical encodings (stray bits under the padding) are refused.
    if ((pad === 1 && (n & 0xff) !== 0) || (pad === 2 && (n & 0xffff) !== 0)) return null;
  }
  return Uint8Array.from(out);
}
