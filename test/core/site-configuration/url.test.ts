import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { comparableUrl, parseHttpUrl } from '../../../src/core/site-configuration/url.js';
import { httpUrl } from '../../arbitraries/site-configuration.js';

const url = (scheme: 'http' | 'https', host: string, port: string | null, path: string, query: string | null, fragment: string | null) =>
  ok({ scheme, host, port, path, query, fragment });

describe('parseHttpUrl', () => {
  it.each([
    { ref: '§2.5 url', input: 'https://HostB.Example.com', expected: url('https', 'hostb.example.com', null, '', null, null) },
    { ref: '§2.5 url (port, path, query, fragment)', input: 'HTTP://h.example.com:8080/a/B?x=1#f', expected: url('http', 'h.example.com', '8080', '/a/B', 'x=1', 'f') },
    { ref: '§2.5 url (IPv4)', input: 'http://10.0.0.1/', expected: url('http', '10.0.0.1', null, '/', null, null) },
    { ref: '§2.5 url (IPv6)', input: 'http://[::1]:80', expected: url('http', '[::1]', '80', '', null, null) },
    { ref: 'invalid URL (relative)', input: '/hosta', expected: err('not_absolute') },
    { ref: 'invalid URL (no //)', input: 'https:host', expected: err('not_absolute') },
    { ref: 'invalid URL (scheme)', input: 'ftp://h.example.com', expected: err('unsupported_scheme') },
    { ref: 'invalid URL (no host)', input: 'https:///path', expected: err('missing_host') },
    { ref: 'invalid URL (bad host)', input: 'https://a b', expected: err('invalid_character') },
    { ref: 'invalid URL (numeric last label)', input: 'https://example.123', expected: err('invalid_host') },
    { ref: 'invalid URL (IPv4 out of range)', input: 'https://1.2.3.256', expected: err('invalid_host') },
    { ref: 'invalid URL (port)', input: 'https://h.example.com:0', expected: err('invalid_port') },
    { ref: 'invalid URL (credentials)', input: 'https://u:p@h.example.com', expected: err('has_credentials') },
    { ref: 'invalid URL (backslash)', input: 'https://h.example.com\\x', expected: err('invalid_character') },
    { ref: 'invalid URL (non-ASCII)', input: 'https://bücher.example', expected: err('invalid_character') },
  ])('should follow $ref', ({ input, expected }) => {
    expect(parseHttpUrl(input)).toStrictEqual(expected);
  });

  test.prop([fc.oneof(httpUrl, fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string())])(
    'should accept only what WHATWG URL parsing accepts, with the same scheme and host',
    (text) => {
      const parsed = parseHttpUrl(text);
      if (parsed.isErr()) return;
      const whatwg = new URL(text);
      expect(whatwg.protocol).toBe(`${parsed.value.scheme}:`);
      expect(whatwg.hostname).toBe(parsed.value.host);
    },
  );

  test.prop([httpUrl])('should accept every generated http(s) URL', (text) => {
    expect(parseHttpUrl(text).isOk()).toBe(true);
  });
});

describe('comparableUrl', () => {
  const key = (text: string): string => parseHttpUrl(text).map(comparableUrl)._unsafeUnwrap();

  it.each([
    { ref: '§5.3 reviewhost (scheme and host case-insensitive)', a: 'HTTPS://Review.Example.com', b: 'https://review.example.com', same: true },
    { ref: '§5.3 reviewhost (trailing slash ignored)', a: 'https://r.example.com/gerrit/', b: 'https://r.example.com/gerrit', same: true },
    { ref: '§5.3 reviewhost (default port)', a: 'https://r.example.com:443', b: 'https://r.example.com', same: true },
    { ref: '§5.3 reviewhost (path case-sensitive)', a: 'https://r.example.com/A', b: 'https://r.example.com/a', same: false },
    { ref: '§5.3 reviewhost (scheme differs)', a: 'http://r.example.com', b: 'https://r.example.com', same: false },
    { ref: '§5.3 reviewhost (other port)', a: 'https://r.example.com:8443', b: 'https://r.example.com', same: false },
  ])('should follow $ref', ({ a, b, same }) => {
    expect(key(a) === key(b)).toBe(same);
  });

  test.prop([httpUrl])('should ignore case of scheme and host and trailing slashes, and be idempotent', (text) => {
    const parsed = parseHttpUrl(text)._unsafeUnwrap();
    const variant = `${parsed.scheme.toUpperCase()}://${parsed.host.toUpperCase()}${parsed.port === null ? '' : `:${parsed.port}`}${parsed.path}/`;
    expect(key(variant)).toBe(key(text));
    expect(key(key(text))).toBe(key(text));
  });
});
