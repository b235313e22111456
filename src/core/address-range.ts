/**
 * IP addresses and CIDR ranges (RFC 4632 §3.1, RFC 4291 §2.3): reading them strictly, writing them canonically
 * (RFC 5952 §4 for IPv6) and telling whether an address lies in a range. An IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2) is the IPv4 address it maps, so a dual-stack socket's peer matches the
 * IPv4 ranges an administrator writes; an IPv4 address lies in the IPv6 ranges that hold its mapped form.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';

/**
 * An IP address as its bytes, network order: 4 for IPv4, 16 for IPv6.
 *
 * @example
 * ```ts
 * const loopback: IpAddress = { family: 4, bytes: [127, 0, 0, 1] };
 * ```
 */
export interface IpAddress {
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** The address, most significant byte first. */
  readonly bytes: readonly number[];
}

/**
 * A CIDR range: the addresses whose first `prefixLength` bits equal those of `bytes`. An IPv4-mapped IPv6 range
 * of at least /96 is read as the IPv4 range it maps.
 *
 * @example
 * ```ts
 * const range: AddressRange = { text: '10.0.0.0/8', family: 4, bytes: [10, 0, 0, 0], prefixLength: 8 };
 * ```
 */
export interface AddressRange {
  /** The range as written. */
  readonly text: string;
  /** 4 or 6. */
  readonly family: 4 | 6;
  /** The network address (every bit past the prefix is 0). */
  readonly bytes: readonly number[];
  /** How many leading bits are fixed: 0–32 for IPv4, 0–128 for IPv6. */
  readonly prefixLength: number;
}

/** Why a text is not an address or a range. */
export type AddressRangeError =
  /** The text is not a string. */
  | { readonly code: 'invalid_input' }
  /** The address part is neither a dotted-quad IPv4 address nor an IPv6 address (zone identifiers are refused). */
  | { readonly code: 'invalid_address'; readonly value: string }
  /** The part after `/` is not a decimal number from 0 to 32 (IPv4) or 128 (IPv6), without leading zeros. */
  | { readonly code: 'invalid_prefix_length'; readonly value: string; readonly maxPrefixLength: 32 | 128 }
  /** Bits past the prefix are set (`10.0.0.1/8`): almost always a typo; `network` is the range meant. */
  | { readonly code: 'host_bits_set'; readonly value: string; readonly network: string };

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/u;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/u;

/** A dotted quad, each part 0–255 without leading zeros (which some readers take for octal); `null` otherwise. */
function ipv4Bytes(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!DECIMAL_OCTET.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes.push(value);
  }
  return bytes;
}

/** The 16-bit groups of one side of `::` (an embedded IPv4 address last counts as two); `null` when malformed. */
function groupsOf(text: string, mayEndInIpv4: boolean): number[] | null {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (i === parts.length - 1 && mayEndInIpv4 && part.includes('.')) {
      const v4 = ipv4Bytes(part);
      if (v4 === null) return null;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      continue;
    }
    if (!HEX_GROUP.test(part)) return null;
    groups.push(parseInt(part, 16));
  }
  return groups;
}

/** The 16 bytes of an IPv6 address in any RFC 4291 §2.2 form; `null` otherwise. */
function ipv6Bytes(text: string): number[] | null {
  if (text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  let groups: number[] | null;
  if (halves.length === 1) {
    groups = groupsOf(text, true);
    if (groups === null || groups.length !== 8) return null;
  } else {
    const head = groupsOf(halves[0] ?? '', false);
    const tail = groupsOf(halves[1] ?? '', true);
    if (head === null || tail === null) return null;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    groups = [...head, ...Array.from({ length: missing }, () => 0), ...tail];
  }
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/**
 * Reads an IP address: a dotted-quad IPv4 address (no leading zeros) or an IPv6 address in any RFC 4291 §2.2
 * form, without a zone identifier.
 *
 * @param text - The address.
 * @returns The address, or `invalid_address`.
 * @see {@link https://www.rfc-editor.org/rfc/rfc4291#section-2.2 | RFC 4291 §2.2}
 *
 * @example
 * ```ts
 * parseIpAddress('192.0.2.1');   // ok({ family: 4, bytes: [192, 0, 2, 1] })
 * parseIpAddress('2001:db8::1'); // ok({ family: 6, bytes: [32, 1, 13, 184, 0, …, 0, 1] })
 * parseIpAddress('010.0.0.1');   // err({ code: 'invalid_address', value: '010.0.0.1' })
 * ```
 */
export function parseIpAddress(text: string): Result<IpAddress, AddressRangeError> {
  if (typeof text !== 'string') return err({ code: 'invalid_input' });
  if (text.includes(':')) {
    const bytes = ipv6Bytes(text);
    return bytes === null ? err({ code: 'invalid_address', value: text }) : ok({ family: 6, bytes });
  }
  const bytes = ipv4Bytes(text);
  return bytes === null ? err({ code: 'invalid_address', value: text }) : ok({ family: 4, bytes });
}

/** The IPv4 address an IPv4-mapped IPv6 address maps (`::ffff:a.b.c.d`), or the address itself. */
function unmapped(address: IpAddress): IpAddress {
  if (address.family !== 6) return address;
  const b = address.bytes;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return address;
  return b[10] === 0xff && b[11] === 0xff ? { family: 4, bytes: b.slice(12, 16) } : address;
}

/**
 * Writes an address canonically: an IPv4 address (an IPv4-mapped IPv6 address as the IPv4 address it maps) as a
 * dotted quad, an IPv6 address as RFC 5952 §4 says (lower case, no leading zeros, the longest run of two or more
 * zero groups, the first of equals, as `::`).
 *
 * @param address - The address.
 * @returns Its canonical text.
 * @see {@link https://www.rfc-editor.org/rfc/rfc5952#section-4 | RFC 5952 §4}
 *
 * @example
 * ```ts
 * formatIpAddress({ family: 6, bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 192, 0, 2, 1] }); // '192.0.2.1'
 * formatIpAddress(parseIpAddress('2001:DB8:0:0:1:0:0:1')._unsafeUnwrap());               // '2001:db8::1:0:0:1'
 * ```
 */
export function formatIpAddress(address: IpAddress): string {
  const plain = unmapped(address);
  if (plain.family === 4) return plain.bytes.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((plain.bytes[i] ?? 0) << 8) | (plain.bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string => groups.slice(from, to).map((g) => g.toString(16)).join(':');
  return bestStart < 0 ? hex(0, 8) : `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** Whether a value has an address's shape at run time: a family and its number of bytes. */
function isShaped(value: unknown): value is IpAddress {
  if (typeof value !== 'object' || value === null) return false;
  const { family, bytes } = value as { readonly family?: unknown; readonly bytes?: unknown };
  return (family === 4 || family === 6) && Array.isArray(bytes) && bytes.length === (family === 4 ? 4 : 16);
}

/** Whether the first `prefixLength` bits of `a` and `b` (same length) are equal. */
function samePrefix(a: readonly number[], b: readonly number[], prefixLength: number): boolean {
  const whole = Math.floor(prefixLength / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = prefixLength % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((a[whole] ?? 0) & mask) === ((b[whole] ?? 0) & mask);
}

/** `bytes` with every bit past the prefix cleared. */
function networkOf(bytes: readonly number[], prefixLength: number): number[] {
  return bytes.map((byte, i) => {
    const fixed = Math.min(8, Math.max(0, prefixLength - i * 8));
    return byte & ((0xff << (8 - fixed)) & 0xff);
  });
}

/**
 * Reads a CIDR range, `address/prefix-length`, or a single address (a /32 or /128). The address part is read as
 * {@link parseIpAddress} reads it; bits past the prefix must be 0. An IPv4-mapped IPv6 range of /96 or longer is
 * the IPv4 range it maps (`::ffff:10.0.0.0/104` is `10.0.0.0/8`).
 *
 * @param text - The range.
 * @returns The range, or why it is not one.
 * @see {@link https://www.rfc-editor.org/rfc/rfc4632#section-3.1 | RFC 4632 §3.1}
 *
 * @example
 * ```ts
 * parseAddressRange('10.0.0.0/8');  // ok({ text: '10.0.0.0/8', family: 4, bytes: [10, 0, 0, 0], prefixLength: 8 })
 * parseAddressRange('::1');         // ok({ text: '::1', family: 6, bytes: [0, …, 0, 1], prefixLength: 128 })
 * parseAddressRange('10.0.0.1/8');  // err({ code: 'host_bits_set', value: '10.0.0.1/8', network: '10.0.0.0/8' })
 * parseAddressRange('10.0.0.0/33'); // err({ code: 'invalid_prefix_length', value: '10.0.0.0/33', maxPrefixLength: 32 })
 * ```
 */
export function parseAddressRange(text: string): Result<AddressRange, AddressRangeError> {
  if (typeof text !== 'string') return err({ code: 'invalid_input' });
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const address = parseIpAddress(addressText);
  if (address.isErr()) return err(address.error.code === 'invalid_address' ? { code: 'invalid_address', value: text } : address.error);
  const max = address.value.family === 4 ? 32 : 128;
  let prefixLength = max;
  if (slash >= 0) {
    const lengthText = text.slice(slash + 1);
    if (!/^(?:0|[1-9]\d{0,2})$/u.test(lengthText) || Number(lengthText) > max) return err({ code: 'invalid_prefix_length', value: text, maxPrefixLength: max });
    prefixLength = Number(lengthText);
  }
  const network = networkOf(address.value.bytes, prefixLength);
  if (network.some((byte, i) => byte !== address.value.bytes[i])) {
    return err({ code: 'host_bits_set', value: text, network: `${formatIpAddress({ family: address.value.family, bytes: network })}/${prefixLength}` });
  }
  const plain = unmapped(address.value);
  if (plain.family === 4 && address.value.family === 6 && prefixLength >= 96) return ok({ text, family: 4, bytes: plain.bytes, prefixLength: prefixLength - 96 });
  return ok({ text, family: address.value.family, bytes: network, prefixLength });
}

/**
 * Whether an address lies in a range. An IPv4-mapped IPv6 address is the IPv4 address it maps, and an IPv4
 * address lies in an IPv6 range exactly when its mapped form does (so `::/0` holds every address, as it does on a
 * dual-stack socket; `::1/128` holds no IPv4 address).
 *
 * @param address - The address.
 * @param range - The range.
 * @returns Whether the address's first `range.prefixLength` bits are the range's.
 *
 * @example
 * ```ts
 * const lan = parseAddressRange('10.0.0.0/8')._unsafeUnwrap();
 * addressInRange(parseIpAddress('10.1.2.3')._unsafeUnwrap(), lan);         // true
 * addressInRange(parseIpAddress('::ffff:10.1.2.3')._unsafeUnwrap(), lan);  // true
 * addressInRange(parseIpAddress('11.0.0.1')._unsafeUnwrap(), lan);         // false
 * ```
 */
export function addressInRange(address: IpAddress, range: AddressRange): boolean {
  if (!isShaped(address) || !isShaped(range) || typeof range.prefixLength !== 'number') return false;
  const plain = unmapped(address);
  if (range.family === 4) return plain.family === 4 && samePrefix(plain.bytes, range.bytes, range.prefixLength);
  const bytes = plain.family === 4 ? [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...plain.bytes] : plain.bytes;
  return samePrefix(bytes, range.bytes, range.prefixLength);
}

/**
 * Whether an address, given as text, lies in any of the ranges. Text that is not an address lies in none.
 *
 * @param text - The address (as a socket reports it, or as a header carries it).
 * @param ranges - The ranges.
 * @returns Whether one of them holds it.
 *
 * @example
 * ```ts
 * addressInRanges('::ffff:127.0.0.1', [parseAddressRange('127.0.0.0/8')._unsafeUnwrap()]); // true
 * addressInRanges('unknown', [parseAddressRange('0.0.0.0/0')._unsafeUnwrap()]);           // false
 * ```
 */
export function addressInRanges(text: string, ranges: readonly AddressRange[]): boolean {
  const address = parseIpAddress(text);
  return address.isOk() && ranges.some((range) => addressInRange(address.value, range));
}
