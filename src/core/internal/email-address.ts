/**
 * Comparing email addresses and reading their domain, for gating and account linking.
 *
 * @internal
 * @module
 */

/**
 * Lowercases the ASCII letters `A`–`Z` only; every other code unit is kept as is, so the result
 * never depends on a locale or on Unicode case tables.
 *
 * @param text - Any string.
 * @returns The string with `A`–`Z` replaced by `a`–`z`.
 * @internal
 * @example
 * ```ts
 * asciiLowercase('Ärger@Example.COM'); // 'Ärger@example.com'
 * ```
 */
export function asciiLowercase(text: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) {
      out += text.slice(start, i) + String.fromCharCode(c + 0x20);
      start = i + 1;
    }
  }
  return start === 0 ? text : out + text.slice(start);
}

/**
 * The key under which two email addresses are the same address: the whole address with ASCII
 * letters lowercased (the domain is case-insensitive by RFC 5321 §2.4; the local part is treated
 * the same way, as every mainstream mailbox provider and code host does).
 *
 * @param address - An email address.
 * @returns The comparison key.
 * @internal
 * @example
 * ```ts
 * emailMatchKey('Alice@Example.com') === emailMatchKey('alice@example.COM'); // true
 * ```
 */
export function emailMatchKey(address: string): string {
  return asciiLowercase(address);
}

/**
 * The domain of an email address, ASCII-lowercased, or `null` when the text is not an address:
 * it must contain exactly one `@` with something on each side (`x@evil.com@example.com` is not an
 * address).
 *
 * @param address - A candidate email address.
 * @returns The lowercased domain, or `null`.
 * @internal
 * @example
 * ```ts
 * emailDomain('a@Example.com'); // 'example.com'
 * emailDomain('x@evil.com@example.com'); // null
 * ```
 */
export function emailDomain(address: string): string | null {
  const at = address.indexOf('@');
  if (at <= 0 || at === address.length - 1 || address.indexOf('@', at + 1) !== -1) return null;
  return asciiLowercase(address.slice(at + 1));
}
