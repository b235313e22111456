/**
 * fast-check generators of IP addresses and CIDR ranges, written independently of `src/core/address-range.ts`:
 * addresses as bytes and as one of the textual forms RFC 4291 §2.2 allows, ranges with their host bits cleared
 * by BigInt arithmetic.
 *
 * @module
 */
import fc from 'fast-check';

/** An address as bytes (4 or 16) with its family. */
export interface GeneratedAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

const byte = fc.integer({ min: 0, max: 255 });

/** An IPv4 address as bytes; small values and 0/255 are common so that prefixes often match. */
export const ipv4: fc.Arbitrary<GeneratedAddress> = fc
  .array(fc.oneof(byte, fc.constantFrom(0, 10, 127, 192, 255)), { minLength: 4, maxLength: 4 })
  .map((bytes) => ({ family: 4 as const, bytes }));

/** An IPv6 address as bytes, zero runs common (so `::` forms appear). */
export const ipv6: fc.Arbitrary<GeneratedAddress> = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: byte }, { weight: 1, arbitrary: fc.constantFrom(0x20, 0x01, 0x0d, 0xb8) }), {
    minLength: 16,
    maxLength: 16,
  })
  .map((bytes) => ({ family: 6 as const, bytes }));

/** An address of either family. */
export const ipAddress: fc.Arbitrary<GeneratedAddress> = fc.oneof(ipv4, ipv6);

/** The address as a BigInt, most significant byte first. */
export function toBigInt(bytes: readonly number[]): bigint {
  return bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);
}

/** The bytes of a BigInt of `length` bytes. */
export function fromBigInt(value: bigint, length: number): number[] {
  return Array.from({ length }, (_, i) => Number((value >> BigInt(8 * (length - 1 - i))) & 0xffn));
}

/** `bytes` with every bit past `prefixLength` cleared (BigInt arithmetic). */
export function networkBytes(bytes: readonly number[], prefixLength: number): number[] {
  const bits = BigInt(bytes.length * 8);
  const shift = bits - BigInt(prefixLength);
  return fromBigInt((toBigInt(bytes) >> shift) << shift, bytes.length);
}

/** Dotted quad. */
export function ipv4Text(bytes: readonly number[]): string {
  return bytes.join('.');
}

/**
 * Every textual form of an IPv6 address, chosen by `form`: the 8 groups in full (leading zeros kept or not, any
 * case), `::` over any run of zero groups, and the last 32 bits as a dotted quad.
 */
export function ipv6Text(bytes: readonly number[], form: Ipv6Form): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  const hex = (g: number): string => {
    const h = g.toString(16);
    const padded = form.pad ? h.padStart(4, '0') : h;
    return form.upper ? padded.toUpperCase() : padded;
  };
  const tailV4 = form.dotted ? `${bytes[12] ?? 0}.${bytes[13] ?? 0}.${bytes[14] ?? 0}.${bytes[15] ?? 0}` : null;
  const count = tailV4 === null ? 8 : 6;
  const words = groups.slice(0, count).map(hex);
  // the zero runs among the hex groups; `compress` picks one of them
  const runs: [number, number][] = [];
  for (let i = 0; i < count; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < count && groups[j] === 0) j++;
    runs.push([i, j]);
    i = j;
  }
  const run = form.compress === null || runs.length === 0 ? null : runs[form.compress % runs.length];
  const tail = tailV4 === null ? [] : [tailV4];
  if (run === undefined || run === null) return [...words, ...tail].join(':');
  const [from, to] = run;
  const head = words.slice(0, from).join(':');
  const rest = [...words.slice(to), ...tail].join(':');
  return `${head}::${rest}`;
}

/** How {@link ipv6Text} writes an address. */
export interface Ipv6Form {
  readonly pad: boolean;
  readonly upper: boolean;
  readonly compress: number | null;
  readonly dotted: boolean;
}

/** An IPv6 textual form's choices. */
export const ipv6Form: fc.Arbitrary<Ipv6Form> = fc.record({ pad: fc.boolean(), upper: fc.boolean(), compress: fc.option(fc.nat(3), { nil: null }), dotted: fc.boolean() }, { noNullPrototype: true });

/** An address with one of its textual forms. */
export const addressWithText: fc.Arbitrary<{ readonly address: GeneratedAddress; readonly text: string }> = fc.oneof(
  ipv4.map((address) => ({ address, text: ipv4Text(address.bytes) })),
  fc.tuple(ipv6, ipv6Form).map(([address, form]) => ({ address, text: ipv6Text(address.bytes, form) })),
);

/** A valid CIDR range: its network bytes, its prefix length and how an administrator may write it. */
export interface GeneratedRange {
  readonly family: 4 | 6;
  readonly network: readonly number[];
  readonly prefixLength: number;
  readonly text: string;
}

/** A valid range of either family, written with or without `/length` (without only for a whole address). */
export const addressRange: fc.Arbitrary<GeneratedRange> = fc.oneof(
  fc.tuple(ipv4, fc.integer({ min: 0, max: 32 }), fc.boolean()).map(([a, prefixLength, bare]) => {
    const network = networkBytes(a.bytes, prefixLength);
    const text = prefixLength === 32 && bare ? ipv4Text(network) : `${ipv4Text(network)}/${prefixLength}`;
    return { family: 4 as const, network, prefixLength, text };
  }),
  fc.tuple(ipv6, fc.integer({ min: 0, max: 128 }), fc.boolean(), ipv6Form).map(([a, prefixLength, bare, form]) => {
    const network = networkBytes(a.bytes, prefixLength);
    // a range inside ::ffff:0:0/96 is read as the IPv4 range it maps; keep the generated IPv6 ranges outside it
    const unmapped = network.slice(0, 10).every((b) => b === 0) && network[10] === 0xff && network[11] === 0xff ? [...network.slice(0, 10), 0xfe, ...network.slice(11)] : network;
    const fixed = networkBytes(unmapped, prefixLength);
    const written = ipv6Text(fixed, form);
    const text = prefixLength === 128 && bare ? written : `${written}/${prefixLength}`;
    return { family: 6 as const, network: fixed, prefixLength, text };
  }),
);
