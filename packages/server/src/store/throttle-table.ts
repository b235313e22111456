/**
 * The sign-in throttle's shared pieces: what a check decides, and the key of a client address (an IPv6 address by
 * its /64). The records live in the store's ephemeral part (`sign-in-throttle-store.ts`).
 *
 * @module
 */

/**
 * What a throttle check decides for one key.
 *
 * @example
 * ```ts
 * const c: ThrottleCheck = { kind: 'throttle', retryAfterSeconds: 2 };
 * ```
 */
export type ThrottleCheck =
  /** The attempt may run now. */
  | { readonly kind: 'allow' }
  /** The key must wait (429). */
  | { readonly kind: 'throttle'; readonly retryAfterSeconds: number }
  /**
   * The key has no record and the table is full of throttled records: the attempt cannot be counted. The caller
   * refuses it (503) or lets it through uncounted, as its other bounds allow.
   */
  | { readonly kind: 'full'; readonly retryAfterSeconds: number };


/** The eight 16-bit groups of an IPv6 address in lower-case hex, or `null` when it is not one. */
function ipv6Groups(address: string): readonly string[] | null {
  const bare = address.split('%')[0] ?? '';
  const halves = bare.split('::');
  if (halves.length > 2) return null;
  const split = (part: string | undefined): string[] => (part === undefined || part === '' ? [] : part.split(':'));
  const head = split(halves[0]);
  const tail = split(halves[1]);
  const groups = halves.length === 2 ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail] : head;
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * The key a client address is throttled under: an IPv4 address as it is (an IPv4-mapped IPv6 address as its
 * IPv4 form), an IPv6 address by its /64 network, since one host commonly holds a whole /64 and could otherwise
 * start afresh with each of its addresses.
 *
 * @param address - The client address (`clientAddress(req)`).
 * @returns The throttle key.
 *
 * @example
 * ```ts
 * addressThrottleKey('192.0.2.7');              // '192.0.2.7'
 * addressThrottleKey('::ffff:192.0.2.7');       // '192.0.2.7'
 * addressThrottleKey('2001:db8:1:2:aa:bb:cc:dd'); // '2001:db8:1:2::/64'
 * ```
 */
export function addressThrottleKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  const groups = address.includes(':') ? ipv6Groups(address) : null;
  return groups === null ? address : `${groups.slice(0, 4).join(':')}::/64`;
}
