import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_SENDER_NAME, EMAIL_OFF, isPlainEmailAddress } from '../../../src/core/site-configuration/email.js';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';

const SMTP = { host: 'smtp.example.com', port: 587, authentication: 'PLAIN', username: 'u', password: 'p' };
const parsedEmail = (value: Record<string, unknown>) => parseSiteConfiguration(JSON.stringify(value)).map((c) => c.email);
const problemsOf = (value: Record<string, unknown>) =>
  parseSiteConfiguration(JSON.stringify(value)).match(
    () => [],
    (e) => e.problems.map((p) => [p.path, p.code]),
  );

describe('email.smtp, email.address, email.senderName: accepted values and defaults', () => {
  it.each([
    { ref: 'absent: mail off, sender name "gatehouse"', input: {}, expected: EMAIL_OFF },
    { ref: 'email.smtp null is unset', input: { 'email.smtp': null }, expected: EMAIL_OFF },
    {
      ref: 'PLAIN with credentials; noVerifyTLS defaults to false; senderName defaults',
      input: { 'email.smtp': SMTP, 'email.address': 'noreply@example.com' },
      expected: { smtp: { ...SMTP, noVerifyTLS: false }, address: 'noreply@example.com', senderName: DEFAULT_EMAIL_SENDER_NAME },
    },
    {
      ref: 'CRAM-MD5, domain and noVerifyTLS kept; senderName given',
      input: { 'email.smtp': { ...SMTP, authentication: 'CRAM-MD5', domain: 'search.example.com', noVerifyTLS: true }, 'email.address': 'a@example.com', 'email.senderName': 'Code Search' },
      expected: { smtp: { ...SMTP, authentication: 'CRAM-MD5', domain: 'search.example.com', noVerifyTLS: true }, address: 'a@example.com', senderName: 'Code Search' },
    },
    {
      ref: 'none: credentials are not used',
      input: { 'email.smtp': { host: '10.0.0.25', port: 25, authentication: 'none', username: 'ignored', password: 'ignored' }, 'email.address': 'a@example.com' },
      expected: { smtp: { host: '10.0.0.25', port: 25, authentication: 'none', noVerifyTLS: false }, address: 'a@example.com', senderName: 'gatehouse' },
    },
    { ref: 'email.address alone (mail still off)', input: { 'email.address': 'a@example.com' }, expected: { smtp: null, address: 'a@example.com', senderName: 'gatehouse' } },
  ])('$ref', ({ input, expected }) => {
    expect(parsedEmail(input)._unsafeUnwrap()).toStrictEqual(expected);
  });
});

describe('email options: problems with their paths', () => {
  it.each([
    { ref: 'email.smtp not an object', input: { 'email.smtp': 'smtp.example.com' }, expected: [['email.smtp', 'wrong_type'], ['email.address', 'missing_field']] },
    {
      ref: 'host, port, authentication required; address required with smtp',
      input: { 'email.smtp': {} },
      expected: [['email.smtp.host', 'missing_field'], ['email.smtp.port', 'missing_field'], ['email.smtp.authentication', 'missing_field'], ['email.address', 'missing_field']],
    },
    { ref: 'unknown field with a suggestion', input: { 'email.smtp': { ...SMTP, pasword: 'x' }, 'email.address': 'a@b.co' }, expected: [['email.smtp.pasword', 'unknown_field']] },
    { ref: 'unknown authentication', input: { 'email.smtp': { ...SMTP, authentication: 'LOGIN' }, 'email.address': 'a@b.co' }, expected: [['email.smtp.authentication', 'invalid_email_setting']] },
    {
      ref: 'PLAIN without credentials',
      input: { 'email.smtp': { host: 'h', port: 587, authentication: 'PLAIN' }, 'email.address': 'a@b.co' },
      expected: [['email.smtp.username', 'missing_field'], ['email.smtp.password', 'missing_field']],
    },
    { ref: 'port 0', input: { 'email.smtp': { ...SMTP, port: 0 }, 'email.address': 'a@b.co' }, expected: [['email.smtp.port', 'invalid_email_setting']] },
    { ref: 'port as text', input: { 'email.smtp': { ...SMTP, port: '587' }, 'email.address': 'a@b.co' }, expected: [['email.smtp.port', 'wrong_type']] },
    { ref: 'host with a space', input: { 'email.smtp': { ...SMTP, host: 'smtp example' }, 'email.address': 'a@b.co' }, expected: [['email.smtp.host', 'invalid_email_setting']] },
    { ref: 'noVerifyTLS as text', input: { 'email.smtp': { ...SMTP, noVerifyTLS: 'true' }, 'email.address': 'a@b.co' }, expected: [['email.smtp.noVerifyTLS', 'wrong_type']] },
    { ref: 'address with a display name', input: { 'email.address': 'Gatehouse <a@b.co>' }, expected: [['email.address', 'invalid_email_setting']] },
    { ref: 'senderName with a line break (header injection)', input: { 'email.senderName': 'x\r\nBcc: evil@example.com' }, expected: [['email.senderName', 'invalid_email_setting']] },
    { ref: 'empty senderName', input: { 'email.senderName': '' }, expected: [['email.senderName', 'empty_value']] },
  ])('$ref', ({ input, expected }) => {
    expect(problemsOf(input)).toStrictEqual(expected);
  });

  it('should mention the nearest field name', () => {
    const result = parseSiteConfiguration(JSON.stringify({ 'email.smtp': { ...SMTP, pasword: 'x' }, 'email.address': 'a@b.co' }));
    expect(result._unsafeUnwrapErr().problems[0]?.message).toContain('did you mean "password"?');
  });

  test.prop([fc.dictionary(fc.constantFrom('host', 'port', 'username', 'password', 'authentication', 'domain', 'noVerifyTLS', 'x'), fc.jsonValue()), fc.jsonValue(), fc.jsonValue()])(
    'should never throw, and give mail on only with a host, a port, an authentication and a sender',
    (smtp, address, senderName) => {
      const result = parseSiteConfiguration(JSON.stringify({ 'email.smtp': smtp, 'email.address': address, 'email.senderName': senderName }));
      if (result.isOk() && result.value.email.smtp !== null) {
        expect(typeof result.value.email.smtp.host).toBe('string');
        expect(result.value.email.address).not.toBeNull();
        expect(result.value.email.senderName).not.toMatch(/[\r\n]/u);
      }
    },
  );

  it.each([
    ['noreply@example.com', true],
    ['a.b+c@sub.example.co', true],
    ['a@b', true],
    ['no at sign', false],
    ['a@b@c', false],
    ['a @b.co', false],
    ['a@b.co\r\nBcc: x@y', false],
    [`${'a'.repeat(250)}@b.co`, false],
  ] as const)('isPlainEmailAddress(%j) is %s', (value, expected) => {
    expect(isPlainEmailAddress(value)).toBe(expected);
  });
});
