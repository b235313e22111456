import { BlockList, isIP } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  addressInRange,
  addressInRanges,
  formatIpAddress,
  parseAddressRange,
  parseIpAddress,
  type AddressRange,
} from '../../src/core/address-range.js';
import { addressRange, addressWithText, ipAddress, ipv4Text, ipv6, ipv6Form, ipv6Text, networkBytes, toBigInt } from '../arbitraries/address.js';

const zeros = (n: number): number[] => Array<number>(n).fill(0);
const range = (text: string): AddressRange => parseAddressRange(text)._unsafeUnwrap();

describe('parseIpAddress', () => {
  it.each([
    { ref: 'RFC 791 dotted quad', input: '192.0.2.1', expected: ok({ family: 4, bytes: [192, 0, 2, 1] }) },
    { ref: 'RFC 4291 §2.2 form 2 (::)', input: '2001:db8::1', expected: ok({ family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, ...zeros(11), 1] }) },
    { ref: 'RFC 4291 §2.2 form 1 (full, upper case)', input: '2001:0DB8:0:0:0:0:0:1', expected: ok({ family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, ...zeros(11), 1] }) },
    { ref: 'RFC 4291 §2.2 form 3 (IPv4-mapped)', input: '::ffff:192.0.2.1', expected: ok({ family: 6, bytes: [...zeros(10), 255, 255, 192, 0, 2, 1] }) },
    { ref: 'RFC 4291 §2.5.2 unspecified', input: '::', expected: ok({ family: 6, bytes: zeros(16) }) },
    { ref: 'leading zeros (octal in some readers)', input: '010.0.0.1', expected: err({ code: 'invalid_address', value: '010.0.0.1' }) },
    { ref: 'an octet over 255', input: '256.0.0.1', expected: err({ code: 'invalid_address', value: '256.0.0.1' }) },
    { ref: 'three parts', input: '10.0.1', expected: err({ code: 'invalid_address', value: '10.0.1' }) },
    { ref: 'two ::', input: '1::2::3', expected: err({ code: 'invalid_address', value: '1::2::3' }) },
    { ref: 'nine groups', input: '1:2:3:4:5:6:7:8:9', expected: err({ code: 'invalid_address', value: '1:2:3:4:5:6:7:8:9' }) },
    { ref: ':: standing for no group', input: '1:2:3:4::5:6:7:8', expected: err({ code: 'invalid_address', value: '1:2:3:4::5:6:7:8' }) },
    { ref: 'a zone identifier', input: 'fe80::1%eth0', expected: err({ code: 'invalid_address', value: 'fe80::1%eth0' }) },
    { ref: 'a host name', input: 'localhost', expected: err({ code: 'invalid_address', value: 'localhost' }) },
    { ref: 'the empty text', input: '', expected: err({ code: 'invalid_address', value: '' }) },
    { ref: 'spaces around', input: ' 10.0.0.1', expected: err({ code: 'invalid_address', value: ' 10.0.0.1' }) },
  ])('$ref: $input', ({ input, expected }) => {
    expect(parseIpAddress(input)).toStrictEqual(expected);
  });

  test.prop([addressWithText])('should read every textual form back to its bytes', ({ address, text }) => {
    expect(parseIpAddress(text)).toStrictEqual(ok({ family: address.family, bytes: address.bytes }));
  });

  test.prop([addressWithText])('should accept exactly what node:net accepts, on every generated form', ({ address, text }) => {
    expect(isIP(text)).toBe(address.family);
  });

  test.prop([fc.string()])('should never throw, and accept only what node:net accepts as an address without a zone', (text) => {
    const parsed = parseIpAddress(text);
    if (parsed.isOk()) expect(isIP(text)).toBe(parsed.value.family);
  });
});

describe('formatIpAddress', () => {
  it.each([
    { ref: 'RFC 5952 §4.2.1 (longest run)', input: '2001:db8:0:0:1:0:0:1', expected: '2001:db8::1:0:0:1' },
    { ref: 'RFC 5952 §4.2.2 (a single zero group is not compressed)', input: '2001:db8:0:1:1:1:1:1', expected: '2001:db8:0:1:1:1:1:1' },
    { ref: 'RFC 5952 §4.2.3 (the first of equal runs)', input: '2001:0:0:1:0:0:0:1', expected: '2001:0:0:1::1' },
    { ref: 'RFC 5952 §4.3 (lower case, no leading zeros)', input: '2001:0DB8::00A1', expected: '2001:db8::a1' },
    { ref: 'RFC 4291 §2.5.5.2 (IPv4-mapped is the IPv4 address)', input: '::FFFF:192.0.2.1', expected: '192.0.2.1' },
    { ref: 'all zeros', input: '0:0:0:0:0:0:0:0', expected: '::' },
  ])('$ref: $input', ({ input, expected }) => {
    expect(formatIpAddress(parseIpAddress(input)._unsafeUnwrap())).toBe(expected);
  });

  test.prop([ipAddress])('should round-trip: parse(format(a)) is a (an IPv4-mapped address as its IPv4 address)', (address) => {
    const again = parseIpAddress(formatIpAddress(address))._unsafeUnwrap();
    expect(formatIpAddress(again)).toBe(formatIpAddress(address));
    const mapped = address.family === 6 && address.bytes.slice(0, 10).every((b) => b === 0) && address.bytes[10] === 255 && address.bytes[11] === 255;
    expect(again).toStrictEqual(mapped ? { family: 4, bytes: address.bytes.slice(12) } : address);
  });

  test.prop([ipv6, ipv6Form])('should write every form of one IPv6 address alike', (address, form) => {
    const written = formatIpAddress(parseIpAddress(ipv6Text(address.bytes, form))._unsafeUnwrap());
    expect(written).toBe(formatIpAddress(address));
    expect(written).toBe(written.toLowerCase());
  });
});

describe('parseAddressRange', () => {
  it.each([
    { ref: 'RFC 4632 §3.1 prefix', input: '10.0.0.0/8', expected: ok({ text: '10.0.0.0/8', family: 4, bytes: [10, 0, 0, 0], prefixLength: 8 }) },
    { ref: 'a single address is a /32', input: '192.0.2.7', expected: ok({ text: '192.0.2.7', family: 4, bytes: [192, 0, 2, 7], prefixLength: 32 }) },
    { ref: 'everything', input: '0.0.0.0/0', expected: ok({ text: '0.0.0.0/0', family: 4, bytes: [0, 0, 0, 0], prefixLength: 0 }) },
    { ref: 'IPv6 prefix', input: '2001:db8::/32', expected: ok({ text: '2001:db8::/32', family: 6, bytes: [0x20, 0x01, 0x0d, 0xb8, ...zeros(12)], prefixLength: 32 }) },
    { ref: 'a single IPv6 address is a /128', input: '::1', expected: ok({ text: '::1', family: 6, bytes: [...zeros(15), 1], prefixLength: 128 }) },
    { ref: 'an IPv4-mapped range is its IPv4 range', input: '::ffff:10.0.0.0/104', expected: ok({ text: '::ffff:10.0.0.0/104', family: 4, bytes: [10, 0, 0, 0], prefixLength: 8 }) },
    { ref: 'host bits set', input: '10.0.0.1/8', expected: err({ code: 'host_bits_set', value: '10.0.0.1/8', network: '10.0.0.0/8' }) },
    { ref: 'IPv6 host bits set', input: '2001:db8::1/64', expected: err({ code: 'host_bits_set', value: '2001:db8::1/64', network: '2001:db8::/64' }) },
    { ref: 'prefix too long (IPv4)', input: '10.0.0.0/33', expected: err({ code: 'invalid_prefix_length', value: '10.0.0.0/33', maxPrefixLength: 32 }) },
    { ref: 'prefix too long (IPv6)', input: '::/129', expected: err({ code: 'invalid_prefix_length', value: '::/129', maxPrefixLength: 128 }) },
    { ref: 'prefix with a leading zero', input: '10.0.0.0/08', expected: err({ code: 'invalid_prefix_length', value: '10.0.0.0/08', maxPrefixLength: 32 }) },
    { ref: 'empty prefix', input: '10.0.0.0/', expected: err({ code: 'invalid_prefix_length', value: '10.0.0.0/', maxPrefixLength: 32 }) },
    { ref: 'a netmask is not a prefix length', input: '10.0.0.0/255.0.0.0', expected: err({ code: 'invalid_prefix_length', value: '10.0.0.0/255.0.0.0', maxPrefixLength: 32 }) },
    { ref: 'not an address', input: 'proxy.internal/24', expected: err({ code: 'invalid_address', value: 'proxy.internal/24' }) },
  ])('$ref: $input', ({ input, expected }) => {
    expect(parseAddressRange(input)).toStrictEqual(expected);
  });

  test.prop([addressRange])('should read every generated range to its network and prefix', (generated) => {
    expect(parseAddressRange(generated.text)).toStrictEqual(
      ok({ text: generated.text, family: generated.family, bytes: generated.network, prefixLength: generated.prefixLength }),
    );
  });

  test.prop([fc.string()])('should never throw on any string', (text) => {
    expect(() => parseAddressRange(text)).not.toThrow();
  });
});

/** The oracle: node:net's BlockList, which shares no code with the core. */
function blockListHolds(address: { readonly family: 4 | 6; readonly bytes: readonly number[] }, generated: { readonly family: 4 | 6; readonly network: readonly number[]; readonly prefixLength: number }): boolean {
  const list = new BlockList();
  const type = generated.family === 4 ? 'ipv4' : 'ipv6';
  const networkText = generated.family === 4 ? ipv4Text(generated.network) : ipv6Text(generated.network, { pad: false, upper: false, compress: null, dotted: false });
  list.addSubnet(networkText, generated.prefixLength, type);
  const text = address.family === 4 ? ipv4Text(address.bytes) : ipv6Text(address.bytes, { pad: false, upper: false, compress: null, dotted: false });
  return list.check(text, address.family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A second oracle: the first `prefixLength` bits compared as BigInts, an IPv4 address against an IPv6 range as
 * its IPv4-mapped form (RFC 4291 §2.5.5.2), as BlockList does.
 */
function bigIntHolds(address: { readonly family: 4 | 6; readonly bytes: readonly number[] }, generated: { readonly family: 4 | 6; readonly network: readonly number[]; readonly prefixLength: number }): boolean {
  if (address.family === 6 && generated.family === 4) return false;
  const bytes = address.family === 4 && generated.family === 6 ? [...zeros(10), 255, 255, ...address.bytes] : address.bytes;
  return toBigInt(networkBytes(bytes, generated.prefixLength)) === toBigInt(generated.network);
}

describe('addressInRange', () => {
  it.each([
    { ref: 'inside', address: '10.1.2.3', range: '10.0.0.0/8', expected: true },
    { ref: 'outside', address: '11.0.0.1', range: '10.0.0.0/8', expected: false },
    { ref: 'the first address', address: '192.0.2.0', range: '192.0.2.0/25', expected: true },
    { ref: 'the last address', address: '192.0.2.127', range: '192.0.2.0/25', expected: true },
    { ref: 'one past the last', address: '192.0.2.128', range: '192.0.2.0/25', expected: false },
    { ref: 'a /0 holds every IPv4 address', address: '203.0.113.9', range: '0.0.0.0/0', expected: true },
    { ref: 'an IPv4-mapped peer matches its IPv4 range', address: '::ffff:127.0.0.1', range: '127.0.0.0/8', expected: true },
    { ref: 'an IPv4 range written mapped holds the IPv4 address', address: '10.9.9.9', range: '::ffff:10.0.0.0/104', expected: true },
    { ref: 'an IPv4 address lies in the IPv6 ranges holding its mapped form: ::/0', address: '10.0.0.1', range: '::/0', expected: true },
    { ref: 'but not in an IPv6 range outside ::ffff:0:0/96', address: '10.0.0.1', range: '2001:db8::/32', expected: false },
    { ref: 'an IPv6 address never lies in an IPv4 range', address: '::1', range: '0.0.0.0/0', expected: false },
    { ref: 'IPv6 prefix not on a byte boundary', address: '2001:db8:8000::1', range: '2001:db8:8000::/33', expected: true },
    { ref: 'IPv6 just outside it', address: '2001:db8:7fff::1', range: '2001:db8:8000::/33', expected: false },
  ])('$ref: $address in $range is $expected', ({ address, range: text, expected }) => {
    expect(addressInRange(parseIpAddress(address)._unsafeUnwrap(), range(text))).toBe(expected);
  });

  test.prop([addressRange, ipAddress])('should agree with node:net BlockList and with BigInt prefix arithmetic', (generated, address) => {
    const actual = addressInRange(address, range(generated.text));
    expect(actual).toBe(blockListHolds(address, generated));
    expect(actual).toBe(bigIntHolds(address, generated));
  });

  test.prop([addressRange, fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 })])(
    'should hold every address that shares the prefix (the network with random host bits)',
    (generated, noise) => {
      const length = generated.family === 4 ? 4 : 16;
      const bits = BigInt(length * 8);
      const hostMask = (1n << (bits - BigInt(generated.prefixLength))) - 1n;
      const value = toBigInt(generated.network) | (toBigInt(noise.slice(0, length)) & hostMask);
      const bytes = Array.from({ length }, (_, i) => Number((value >> BigInt(8 * (length - 1 - i))) & 0xffn));
      expect(addressInRange({ family: generated.family, bytes }, range(generated.text))).toBe(true);
    },
  );
});

describe('addressInRange on values of the wrong shape', () => {
  test.prop([fc.anything(), fc.anything()])('should never throw, and hold nothing', (address, range) => {
    // @ts-expect-error -- the static types are bypassed on purpose
    expect(addressInRange(address, range)).toBe(false);
  });
});

describe('addressInRanges', () => {
  it('should hold an address in any of the ranges, and no text that is not an address', () => {
    const ranges = [range('10.0.0.0/8'), range('2001:db8::/32')];
    expect(['10.0.0.1', '2001:db8::5', '::ffff:10.0.0.1', '11.0.0.1', 'unknown', ''].map((a) => addressInRanges(a, ranges))).toStrictEqual([true, true, true, false, false, false]);
    expect(addressInRanges('10.0.0.1', [])).toBe(false);
  });
});
