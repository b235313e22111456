/**
 * The site option `trustedProxies`: the reverse proxies whose forwarding and identity headers gatehouse believes.
 *
 * @internal
 *
 * @module
 */
import { match } from 'ts-pattern';
import { type AddressRange, type AddressRangeError, parseAddressRange } from '../address-range.js';
import { isRecord, ownField } from '../internal/guard.js';
import { wrongType } from './fields.js';
import { type Context, formatPath, report } from './problems.js';

/** The sentence of an `invalid_address_range` problem. */
function rangeMessage(path: string, error: Exclude<AddressRangeError, { readonly code: 'invalid_input' }>): string {
  return match(error)
    .returnType<string>()
    .with({ code: 'invalid_address' }, (e) => `${path} is ${JSON.stringify(e.value)}, which is neither an IP address nor a CIDR range such as "10.0.0.0/8" or "2001:db8::/32".`)
    .with({ code: 'invalid_prefix_length' }, (e) => `${path} is ${JSON.stringify(e.value)}: the prefix length after "/" must be a whole number from 0 to ${e.maxPrefixLength}.`)
    .with({ code: 'host_bits_set' }, (e) => `${path} is ${JSON.stringify(e.value)}, which has bits set past its prefix; did you mean "${e.network}"?`)
    .exhaustive();
}

/**
 * Reads `trustedProxies` (absent: `[]`): a list of IP addresses and CIDR ranges, IPv4 and IPv6. Every entry that
 * is not one is a problem at its path (`trustedProxies[2]`).
 *
 * @param ctx - Where problems go.
 * @param value - The raw value.
 * @returns The ranges read (the good entries).
 */
export function readTrustedProxies(ctx: Context, value: unknown): readonly AddressRange[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    wrongType(ctx, ['trustedProxies'], 'array', value, 'trustedProxies');
    return [];
  }
  const ranges: AddressRange[] = [];
  value.forEach((entry: unknown, index) => {
    const segments = ['trustedProxies', index];
    const path = formatPath(segments);
    if (typeof entry !== 'string') {
      wrongType(ctx, segments, 'string', entry, path);
      return;
    }
    const range = parseAddressRange(entry);
    if (range.isOk()) {
      ranges.push(range.value);
      return;
    }
    const error = range.error;
    if (error.code === 'invalid_input') return;
    report(ctx, segments, { code: 'invalid_address_range', value: entry, reason: error.code }, rangeMessage(path, error));
  });
  return ranges;
}

/**
 * Reports each `http-header` entry of `auth.providers` when `trustedProxies` is unset or empty: without it the
 * identity headers would be believed from anyone who reaches the port.
 *
 * @param ctx - Where problems go.
 * @param providers - The raw `auth.providers` value.
 * @param trustedProxies - The raw `trustedProxies` value.
 */
export function checkProxyProvidersGuarded(ctx: Context, providers: unknown, trustedProxies: unknown): void {
  if (!Array.isArray(providers) || (Array.isArray(trustedProxies) && trustedProxies.length > 0) || (trustedProxies !== undefined && !Array.isArray(trustedProxies))) return;
  providers.forEach((entry: unknown, index) => {
    if (!isRecord(entry) || ownField(entry, 'type') !== 'http-header') return;
    const segments = ['auth.providers', index];
    report(
      ctx,
      segments,
      { code: 'trusted_proxies_required', type: 'http-header' },
      `${formatPath(segments)} (http-header) believes identity headers, which only the authentication proxy may send: set "trustedProxies" to the proxy's addresses (for example ["10.0.0.5"]).`,
    );
  });
}
