import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { parseAddressRange, type AddressRange } from '../../src/core/address-range.js';
import { decideClientAddress } from '../../src/core/trusted-proxy.js';

const ranges = (...texts: string[]): AddressRange[] => texts.map((t) => parseAddressRange(t)._unsafeUnwrap());
const PROXIES = ranges('10.0.0.0/8', '2001:db8:ffff::/48');

describe('decideClientAddress', () => {
  it.each([
    {
      ref: 'a peer that is no trusted proxy: its own address, whatever it sends',
      input: { peer: '203.0.113.7', forwardedFor: ['198.51.100.9'], trustedProxies: PROXIES },
      expected: ok({ address: '203.0.113.7', peerTrusted: false, source: 'peer' }),
    },
    {
      ref: 'no trusted proxies configured: the peer',
      input: { peer: '10.0.0.2', forwardedFor: ['198.51.100.9'], trustedProxies: [] },
      expected: ok({ address: '10.0.0.2', peerTrusted: false, source: 'peer' }),
    },
    {
      ref: 'a trusted peer: the right-most address that is not a trusted proxy (the client-written part is ignored)',
      input: { peer: '10.0.0.2', forwardedFor: ['198.51.100.9, 203.0.113.7, 10.0.0.3'], trustedProxies: PROXIES },
      expected: ok({ address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'a repeated header is one list, in order (RFC 9110 §5.3)',
      input: { peer: '10.0.0.2', forwardedFor: ['198.51.100.9', '203.0.113.7', '10.0.0.3'], trustedProxies: PROXIES },
      expected: ok({ address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'every address a trusted proxy: the left-most',
      input: { peer: '10.0.0.2', forwardedFor: ['10.0.0.9, 10.0.0.3'], trustedProxies: PROXIES },
      expected: ok({ address: '10.0.0.9', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'a trusted peer without the header: the peer',
      input: { peer: '10.0.0.2', forwardedFor: [], trustedProxies: PROXIES },
      expected: ok({ address: '10.0.0.2', peerTrusted: true, source: 'peer' }),
    },
    {
      ref: 'an empty header: the peer',
      input: { peer: '10.0.0.2', forwardedFor: [' , '], trustedProxies: PROXIES },
      expected: ok({ address: '10.0.0.2', peerTrusted: true, source: 'peer' }),
    },
    {
      ref: 'a dual-stack peer (IPv4-mapped) matches the IPv4 range',
      input: { peer: '::ffff:10.0.0.2', forwardedFor: ['203.0.113.7'], trustedProxies: PROXIES },
      expected: ok({ address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'IPv6 entries, written canonically (RFC 5952)',
      input: { peer: '2001:db8:ffff::1', forwardedFor: ['2001:DB8:0:0:0:0:0:7'], trustedProxies: PROXIES },
      expected: ok({ address: '2001:db8::7', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'ports and brackets as some proxies write them',
      input: { peer: '10.0.0.2', forwardedFor: ['[2001:db8::7]:4711, 203.0.113.7:443'], trustedProxies: PROXIES },
      expected: ok({ address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'an entry that is not an address stops the walk at the trusted hop right of it',
      input: { peer: '10.0.0.2', forwardedFor: ['203.0.113.7, unknown, 10.0.0.3'], trustedProxies: PROXIES },
      expected: ok({ address: '10.0.0.3', peerTrusted: true, source: 'forwarded_for' }),
    },
    {
      ref: 'the last entry not an address: the peer, never the text',
      input: { peer: '10.0.0.2', forwardedFor: ['203.0.113.7, <script>'], trustedProxies: PROXIES },
      expected: ok({ address: '10.0.0.2', peerTrusted: true, source: 'peer' }),
    },
    {
      ref: 'a socket without an address',
      input: { peer: 'unknown', forwardedFor: ['203.0.113.7'], trustedProxies: PROXIES },
      expected: ok({ address: 'unknown', peerTrusted: false, source: 'peer' }),
    },
  ])('$ref', ({ input, expected }) => {
    expect(decideClientAddress(input)).toStrictEqual(expected);
  });

  it('should refuse input of the wrong type', () => {
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(decideClientAddress({ peer: 1, forwardedFor: [], trustedProxies: [] })).toStrictEqual(err({ code: 'invalid_input', field: 'peer' }));
    // @ts-expect-error -- the static type is bypassed on purpose
    expect(decideClientAddress({ peer: '10.0.0.1', forwardedFor: 'x', trustedProxies: [] })).toStrictEqual(err({ code: 'invalid_input', field: 'forwardedFor' }));
  });

  // Clients are 203.0.113.0/24 (never trusted), proxies 10.0.0.0/8.
  const client = fc.integer({ min: 0, max: 255 }).map((n) => `203.0.113.${n}`);
  const proxy = fc.integer({ min: 0, max: 255 }).map((n) => `10.0.0.${n}`);

  test.prop([fc.array(fc.oneof(client, proxy, fc.string({ maxLength: 8 })), { maxLength: 6 }), client, fc.array(proxy, { maxLength: 4 }), proxy])(
    'should answer the client the first trusted proxy saw, whatever the client wrote before it',
    (written, real, hops, peer) => {
      const forwardedFor = [[...written.map((w) => w.replaceAll(',', '')), real, ...hops].join(', ')];
      expect(decideClientAddress({ peer, forwardedFor, trustedProxies: PROXIES })).toStrictEqual(ok({ address: real, peerTrusted: true, source: 'forwarded_for' }));
    },
  );

  test.prop([client, fc.array(fc.string(), { maxLength: 4 })])('should never read the header of a peer that is no trusted proxy', (peer, forwardedFor) => {
    expect(decideClientAddress({ peer, forwardedFor, trustedProxies: PROXIES })).toStrictEqual(ok({ address: peer, peerTrusted: false, source: 'peer' }));
  });

  test.prop([fc.anything(), fc.anything(), fc.anything()])('should never throw on input of any shape', (peer, forwardedFor, trustedProxies) => {
    // @ts-expect-error -- the static types are bypassed on purpose
    expect(() => decideClientAddress({ peer, forwardedFor, trustedProxies })).not.toThrow();
  });

  test.prop([proxy, fc.array(fc.string(), { maxLength: 4 })])('should never throw, and answer an address that is the peer or a header entry written canonically', (peer, forwardedFor) => {
    const decided = decideClientAddress({ peer, forwardedFor, trustedProxies: PROXIES })._unsafeUnwrap();
    expect(decided.peerTrusted).toBe(true);
    if (decided.source === 'peer') expect(decided.address).toBe(peer);
    else expect(parseAddressRange(decided.address).isOk()).toBe(true);
  });
});
