/**
 * A small, total parser for the absolute `http`/`https` URLs of the site configuration (the core has no `URL` global).
 *
 * @internal
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { asciiLowercase } from '../internal/email-address.js';

/**
 * An absolute `http` or `https` URL split into its parts. `scheme` and `host` are lower-cased; the rest is as written.
 *
 * @internal
 */
export interface HttpUrl {
  /** `http` or `https`, lower-cased. */
  readonly scheme: 'http' | 'https';
  /** The host name, IPv4 address or bracketed IPv6 address, lower-cased. */
  readonly host: string;
  /** The port digits as written, or `null` when absent. */
  readonly port: string | null;
  /** The path as written (possibly empty). */
  readonly path: string;
  /** The query without its `?`, or `null` when there is no `?`. */
  readonly query: string | null;
  /** The fragment without its `#`, or `null` when there is no `#`. */
  readonly fragment: string | null;
}

/**
 * Why a string is not an absolute `http`/`https` URL with a host.
 *
 * @internal
 */
export type HttpUrlProblem =
  | 'not_absolute'
  | 'unsupported_scheme'
  | 'missing_host'
  | 'invalid_host'
  | 'invalid_port'
  | 'has_credentials'
  | 'invalid_character';

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const LABEL = /^[a-z0-9_-]+$/;
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;
const DECIMAL_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

function hasBadCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    // Printable ASCII only, without the backslash (which WHATWG URL parsing treats as a slash).
    if (c <= 0x20 || c >= 0x7f || c === 0x5c) return true;
  }
  return false;
}

function validIpv6(address: string): boolean {
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  if (groups.some((list) => list.some((group) => !HEX_GROUP.test(group)))) return false;
  const count = groups.reduce((sum, list) => sum + list.length, 0);
  return halves.length === 2 ? count <= 7 : count === 8;
}

function validHost(host: string): boolean {
  if (host.startsWith('[') && host.endsWith(']')) return validIpv6(host.slice(1, -1));
  const labels = host.split('.');
  if (labels.some((label) => !LABEL.test(label))) return false;
  const last = labels[labels.length - 1] ?? '';
  // A host whose last label is numeric is an IPv4 address to WHATWG URL parsing: accept only dotted-quad decimals.
  if (NUMERIC_LABEL.test(last)) {
    return labels.length === 4 && labels.every((label) => DECIMAL_OCTET.test(label) && Number(label) <= 255);
  }
  return true;
}

/**
 * Parses an absolute `http`/`https` URL with a host. Stricter than WHATWG URL parsing (no credentials, no
 * whitespace, no backslashes, no non-ASCII, `//` required), so whatever it accepts a browser accepts too.
 *
 * @param text - The candidate URL.
 * @returns The parts, or the first problem found.
 * @internal
 * @example
 * ```ts
 * parseHttpUrl('HTTPS://Review.Example.com/a?x#y');
 * // ok({ scheme: 'https', host: 'review.example.com', port: null, path: '/a', query: 'x', fragment: 'y' })
 * parseHttpUrl('ftp://x.example.com'); // err('unsupported_scheme')
 * ```
 */
export function parseHttpUrl(text: string): Result<HttpUrl, HttpUrlProblem> {
  if (hasBadCharacter(text)) return err('invalid_character');
  const schemeMatch = SCHEME.exec(text);
  if (schemeMatch === null) return err('not_absolute');
  const scheme = asciiLowercase(schemeMatch[1] ?? '');
  if (scheme !== 'http' && scheme !== 'https') return err('unsupported_scheme');
  const rest = text.slice(schemeMatch[0].length);
  if (!rest.startsWith('//')) return err('not_absolute');
  const afterSlashes = rest.slice(2);
  const authorityEnd = afterSlashes.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterSlashes : afterSlashes.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : afterSlashes.slice(authorityEnd);
  if (authority.includes('@')) return err('has_credentials');
  const portMatch = /:([^:\]]*)$/.exec(authority);
  const hostPart = asciiLowercase(portMatch === null ? authority : authority.slice(0, portMatch.index));
  const port = portMatch === null ? null : (portMatch[1] ?? '');
  if (hostPart === '') return err('missing_host');
  if (!validHost(hostPart)) return err('invalid_host');
  if (port !== null && (!/^[0-9]{1,5}$/.test(port) || Number(port) === 0 || Number(port) > 65535)) {
    return err('invalid_port');
  }
  const hashAt = tail.indexOf('#');
  const beforeHash = hashAt === -1 ? tail : tail.slice(0, hashAt);
  const fragment = hashAt === -1 ? null : tail.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? null : beforeHash.slice(queryAt + 1);
  return ok({ scheme, host: hostPart, port: port === '' ? null : port, path, query, fragment });
}

/**
 * A comparison key for a URL: scheme and host lower-cased, a default port (80 for http, 443 for https) dropped,
 * trailing slashes of the path dropped; path, query and fragment otherwise compared exactly (no percent-decoding).
 *
 * @param url - A parsed URL.
 * @returns A string equal for URLs that name the same place under these rules.
 * @internal
 * @example
 * ```ts
 * comparableUrl(parseHttpUrl('HTTPS://Review.Example.com:443/gerrit/')._unsafeUnwrap());
 * // 'https://review.example.com/gerrit'
 * ```
 */
export function comparableUrl(url: HttpUrl): string {
  const defaultPort = url.scheme === 'https' ? '443' : '80';
  const port = url.port === null || Number(url.port) === Number(defaultPort) ? '' : `:${String(Number(url.port))}`;
  const path = url.path.replace(/\/+$/, '');
  const query = url.query === null ? '' : `?${url.query}`;
  const fragment = url.fragment === null ? '' : `#${url.fragment}`;
  return `${url.scheme}://${url.host}${port}${path}${query}${fragment}`;
}
