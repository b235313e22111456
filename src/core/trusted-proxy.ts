/**
 * Requests that arrive through a trusted reverse proxy (the site option `trustedProxies`): which address the
 * request comes from, and the audit entry of identity headers sent by a peer that is not a trusted proxy.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { type AddressRange, addressInRange, formatIpAddress, type IpAddress, parseIpAddress } from './address-range.js';

/**
 * The audit entry of a request that carried an `http-header` provider's identity headers but did not come from a
 * trusted proxy: the request is refused, and these entries are coalesced per client network and window like the
 * unsupported-scheme entries, so a flood adds one entry with a count.
 *
 * @example
 * ```ts
 * UNTRUSTED_PROXY_HEADERS_AUDIT; // { entity: 'auth.session', action: 'failed', reason: 'untrusted_proxy_headers' }
 * ```
 */
export const UNTRUSTED_PROXY_HEADERS_AUDIT = { entity: 'auth.session', action: 'failed', reason: 'untrusted_proxy_headers' } as const;

/** Input of {@link decideClientAddress}. */
export interface ClientAddressInput {
  /** The address of the connection's peer, as the socket reports it (`'unknown'` when it has none). */
  readonly peer: string;
  /** Every `X-Forwarded-For` header line of the request, in order (none: `[]`). */
  readonly forwardedFor: readonly string[];
  /** The site's trusted proxies. */
  readonly trustedProxies: readonly AddressRange[];
}

/**
 * The address a request comes from, and whether its peer is a trusted proxy.
 *
 * @example
 * ```ts
 * const client: ClientAddress = { address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' };
 * ```
 */
export interface ClientAddress {
  /**
   * The client's address: the peer's as the socket reports it, or an `X-Forwarded-For` entry written canonically
   * (an IPv4-mapped IPv6 address as its IPv4 address, IPv6 as RFC 5952 writes it).
   */
  readonly address: string;
  /** Whether the peer is one of the trusted proxies (only then are its identity and forwarding headers read). */
  readonly peerTrusted: boolean;
  /** Where {@link ClientAddress.address} comes from. */
  readonly source: 'peer' | 'forwarded_for';
}

/** Why {@link decideClientAddress} could not decide. */
export type ClientAddressError =
  /** A field has the wrong type at run time. */
  { readonly code: 'invalid_input'; readonly field: 'peer' | 'forwardedFor' | 'trustedProxies' };

const inAny = (address: IpAddress, ranges: readonly AddressRange[]): boolean => ranges.some((range) => addressInRange(address, range));

/**
 * One `X-Forwarded-For` entry as an address: a bare IPv4 or IPv6 address, an IPv4 address with a port
 * (`192.0.2.1:4711`), or a bracketed IPv6 address with or without a port (`[2001:db8::1]:4711`), as some proxies
 * write them.
 */
function forwardedEntry(entry: string): IpAddress | null {
  let text = entry;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0 || !/^(?::\d{1,5})?$/u.test(text.slice(close + 1))) return null;
    text = text.slice(1, close);
  } else if (/^[0-9.]+:\d{1,5}$/u.test(text)) {
    text = text.slice(0, text.indexOf(':'));
  }
  const address = parseIpAddress(text);
  return address.isOk() ? address.value : null;
}

/**
 * The address a request comes from. A request whose peer is not a trusted proxy comes from its peer, whatever
 * it sends. A request from a trusted proxy comes from the right-most `X-Forwarded-For` address that is not a
 * trusted proxy (each proxy appends the address it was reached from, so everything left of that entry was
 * written by the client and proves nothing); when every address is a trusted proxy, from the left-most; when
 * the header is absent, from the peer. An entry that is not an address stops the walk: the request then comes
 * from the trusted hop right of it (the peer when it is the last entry), never from text a client chose.
 *
 * The lines of a repeated header are read as one comma-separated list, in order (RFC 9110 §5.3).
 *
 * @param input - The peer, the `X-Forwarded-For` lines and the trusted proxies.
 * @returns The client address, or `err` for input of the wrong type.
 * @see {@link https://www.rfc-editor.org/rfc/rfc7239#section-5.2 | RFC 7239 §5.2} for the header's meaning.
 *
 * @example
 * ```ts
 * const trustedProxies = [parseAddressRange('10.0.0.0/8')._unsafeUnwrap()];
 * decideClientAddress({ peer: '10.0.0.2', forwardedFor: ['198.51.100.9, 203.0.113.7, 10.0.0.3'], trustedProxies });
 * // ok({ address: '203.0.113.7', peerTrusted: true, source: 'forwarded_for' })
 * decideClientAddress({ peer: '203.0.113.7', forwardedFor: ['198.51.100.9'], trustedProxies });
 * // ok({ address: '203.0.113.7', peerTrusted: false, source: 'peer' })
 * ```
 */
export function decideClientAddress(input: ClientAddressInput): Result<ClientAddress, ClientAddressError> {
  if (typeof input.peer !== 'string') return err({ code: 'invalid_input', field: 'peer' });
  if (!Array.isArray(input.forwardedFor) || !input.forwardedFor.every((line) => typeof line === 'string')) return err({ code: 'invalid_input', field: 'forwardedFor' });
  if (!Array.isArray(input.trustedProxies)) return err({ code: 'invalid_input', field: 'trustedProxies' });
  const peer = parseIpAddress(input.peer);
  if (peer.isErr() || !inAny(peer.value, input.trustedProxies)) return ok({ address: input.peer, peerTrusted: false, source: 'peer' });
  const entries = input.forwardedFor.flatMap((line) => line.split(',')).map((entry) => entry.trim()).filter((entry) => entry !== '');
  let hop: IpAddress | null = null;
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = forwardedEntry(entries[i] ?? '');
    if (address === null) break;
    if (!inAny(address, input.trustedProxies)) return ok({ address: formatIpAddress(address), peerTrusted: true, source: 'forwarded_for' });
    hop = address;
  }
  return ok(hop === null ? { address: input.peer, peerTrusted: true, source: 'peer' } : { address: formatIpAddress(hop), peerTrusted: true, source: 'forwarded_for' });
}
