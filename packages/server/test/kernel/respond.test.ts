/**
 * The one writer's `Set-Cookie` lines: every cookie the server and the provider flows set, written with its
 * attributes in one order (`Path`, `Max-Age`, `HttpOnly`, `SameSite`, `Secure`), and nothing lost on the way.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { formatCookie } from '../../src/kernel/respond.js';
import type { ResponseCookie } from '../../src/kernel/route.js';

/** What a browser reads from a `Set-Cookie` line (RFC 6265 §5.2): the pair, then attributes by case-insensitive name. */
function readSetCookie(line: string): ResponseCookie {
  const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
  const eq = pair.indexOf('=');
  const named = new Map(
    attributes.map((a): [string, string] => {
      const at = a.indexOf('=');
      return at < 0 ? [a.toLowerCase(), ''] : [a.slice(0, at).toLowerCase(), a.slice(at + 1)];
    }),
  );
  const sameSite = named.get('samesite');
  return {
    name: pair.slice(0, eq),
    value: pair.slice(eq + 1),
    path: named.get('path') ?? '',
    ...(named.has('max-age') ? { maxAgeSeconds: Number(named.get('max-age')) } : {}),
    sameSite: sameSite === 'Strict' ? 'Strict' : sameSite === 'None' ? 'None' : 'Lax',
    secure: named.has('secure'),
    httpOnly: named.has('httponly'),
  };
}

describe('formatCookie', () => {
  it.each([
    {
      ref: 'the state cookie (SameSite=Lax, Secure after it)',
      cookie: { name: 'gatehouse_auth_state', value: 's', path: '/', maxAgeSeconds: 600, sameSite: 'Lax', secure: true, httpOnly: true },
      line: 'gatehouse_auth_state=s; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure',
    },
    {
      ref: 'the SAML binding cookie (SameSite=None, Secure after it)',
      cookie: { name: 'gatehouse_saml_binding', value: 'b', path: '/.auth/saml', maxAgeSeconds: 600, sameSite: 'None', secure: true, httpOnly: true },
      line: 'gatehouse_saml_binding=b; Path=/.auth/saml; Max-Age=600; HttpOnly; SameSite=None; Secure',
    },
    {
      ref: 'a session cookie without Max-Age',
      cookie: { name: 'test_session', value: 'u1', path: '/', sameSite: 'Lax', secure: false, httpOnly: true },
      line: 'test_session=u1; Path=/; HttpOnly; SameSite=Lax',
    },
    {
      ref: 'a session cookie without Max-Age, Secure and not HttpOnly',
      cookie: { name: 'b', value: 'v', path: '/x', sameSite: 'Strict', secure: true, httpOnly: false },
      line: 'b=v; Path=/x; SameSite=Strict; Secure',
    },
    {
      ref: 'a cleared cookie',
      cookie: { name: 'c', value: '', path: '/', maxAgeSeconds: 0, sameSite: 'Strict', secure: false, httpOnly: false },
      line: 'c=; Path=/; Max-Age=0; SameSite=Strict',
    },
    {
      ref: 'a cleared HttpOnly cookie',
      cookie: { name: 'a', value: '', path: '/', maxAgeSeconds: 0, sameSite: 'Lax', secure: false, httpOnly: true },
      line: 'a=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax',
    },
    {
      ref: 'a fractional or negative lifetime (whole seconds, never below 0)',
      cookie: { name: 'd', value: 'v', path: '/', maxAgeSeconds: -2.5, sameSite: 'Lax', secure: false, httpOnly: true },
      line: 'd=v; Path=/; Max-Age=0; HttpOnly; SameSite=Lax',
    },
  ] satisfies { ref: string; cookie: ResponseCookie; line: string }[])('should write $ref', ({ cookie, line }) => {
    expect(formatCookie(cookie)).toBe(line);
  });

  it('should write a session cookie with its attributes in one order: Path, Max-Age, HttpOnly, SameSite, Secure', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{0,43}$/), fc.nat(10_000_000), fc.boolean(), (value, maxAgeSeconds, secure) => {
        expect(formatCookie({ name: 's', value, path: '/', maxAgeSeconds, sameSite: 'Lax', secure, httpOnly: true })).toBe(
          `s=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
        );
      }),
    );
  });

  const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);
  const cookie = fc.record(
    {
      name: token,
      value: fc.oneof(fc.constant(''), token),
      path: fc.constantFrom('/', '/.auth/saml'),
      maxAgeSeconds: fc.nat({ max: 10_000_000 }),
      sameSite: fc.constantFrom('Lax', 'Strict', 'None'),
      secure: fc.boolean(),
      httpOnly: fc.boolean(),
    },
    { requiredKeys: ['name', 'value', 'path', 'sameSite', 'secure', 'httpOnly'], noNullPrototype: true },
  );

  test.prop([cookie])('should write a line a browser reads back as the same cookie', (c) => {
    expect(readSetCookie(formatCookie(c))).toStrictEqual(c);
  });
});
