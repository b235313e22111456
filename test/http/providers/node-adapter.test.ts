import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { parseSetCookie, serializeResponseCookie } from '../../../src/http/providers/node-adapter.js';
import type { ResponseCookie } from '../../../src/http/route.js';

describe('serializeResponseCookie', () => {
  it.each([
    {
      ref: 'the state cookie (SameSite=Lax, Secure after it)',
      cookie: { name: 'gatehouse_auth_state', value: 's', path: '/', maxAgeSeconds: 600, sameSite: 'Lax', secure: true, httpOnly: true },
      expected: 'gatehouse_auth_state=s; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure',
    },
    {
      ref: 'the SAML binding cookie (Secure; SameSite=None)',
      cookie: { name: 'gatehouse_saml_binding', value: 'b', path: '/.auth/saml', maxAgeSeconds: 600, sameSite: 'None', secure: true, httpOnly: true },
      expected: 'gatehouse_saml_binding=b; Path=/.auth/saml; Max-Age=600; HttpOnly; Secure; SameSite=None',
    },
    {
      ref: 'a session cookie without Max-Age',
      cookie: { name: 'test_session', value: 'u1', path: '/', sameSite: 'Lax', secure: false, httpOnly: true },
      expected: 'test_session=u1; Path=/; HttpOnly; SameSite=Lax',
    },
    {
      ref: 'a cleared cookie',
      cookie: { name: 'c', value: '', path: '/', maxAgeSeconds: 0, sameSite: 'Strict', secure: false, httpOnly: false },
      expected: 'c=; Path=/; Max-Age=0; SameSite=Strict',
    },
  ] satisfies { ref: string; cookie: ResponseCookie; expected: string }[])('should write $ref', ({ cookie, expected }) => {
    expect(serializeResponseCookie(cookie)).toBe(expected);
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
  ).map((c): ResponseCookie => (c.sameSite === 'None' ? { ...c, secure: true } : c));

  test.prop([cookie])('should read back what it writes', (c) => {
    expect(parseSetCookie(serializeResponseCookie(c))).toStrictEqual(c);
  });
});
