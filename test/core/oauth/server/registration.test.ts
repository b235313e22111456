import { fc, test } from '@fast-check/vitest';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { CB } from './fixtures.js';
import { type OAuthAppRegistrationInput, validateOAuthAppRegistration } from '../../../../src/core/oauth/server/registration.js';
import { MAX_REDIRECT_URIS } from '../../../../src/core/oauth/server/records.js';

describe('validateOAuthAppRegistration', () => {
  const good: OAuthAppRegistrationInput = { name: 'CI bot', redirectUris: [CB], scopes: ['user:all'] };
  const rows: { ref: string; input: OAuthAppRegistrationInput; expected: Result<unknown, unknown> }[] = [
    { ref: '§2.4 (app registered with user:all)', input: good, expected: ok(good) },
    { ref: 'name trimmed', input: { ...good, name: '  CI  ' }, expected: ok({ ...good, name: 'CI' }) },
    { ref: 'name required', input: { ...good, name: '   ' }, expected: err({ code: 'invalid_name' }) },
    { ref: 'no control characters in name', input: { ...good, name: 'a\u0000b' }, expected: err({ code: 'invalid_name' }) },
    { ref: 'name at most 100', input: { ...good, name: 'x'.repeat(101) }, expected: err({ code: 'invalid_name' }) },
    { ref: 'name of 100', input: { ...good, name: 'x'.repeat(100) }, expected: ok({ ...good, name: 'x'.repeat(100) }) },
    { ref: 'RFC 6749 §3.1.2.2 (redirect URIs registered)', input: { ...good, redirectUris: [] }, expected: err({ code: 'missing_redirect_uris' }) },
    {
      ref: 'bounded list',
      input: { ...good, redirectUris: Array.from({ length: MAX_REDIRECT_URIS + 1 }, (_, i) => `${CB}${i}`) },
      expected: err({ code: 'too_many_redirect_uris', max: MAX_REDIRECT_URIS }),
    },
    {
      ref: 'RFC 9700 §4.1.3 (http only to loopback)',
      input: { ...good, redirectUris: ['http://app.example/cb'] },
      expected: err({ code: 'invalid_redirect_uri', index: 0, reason: 'insecure_http' }),
    },
    ...['http://127.0.0.1:8080/cb', 'http://localhost/cb', 'http://[::1]:9/cb', 'https://a.example', 'https://a.example:443/x?y=1'].map(
      (uri) => ({ ref: 'RFC 8252 §7.3 (loopback and https allowed)', input: { ...good, redirectUris: [uri] }, expected: ok({ ...good, redirectUris: [uri] }) }),
    ),
    ...(
      [
        ['https://app.example/cb#x', 'fragment'],
        ['https://user@app.example/cb', 'userinfo'],
        ['com.example.app:/cb', 'unsupported_scheme'],
        ['HTTPS://app.example/cb', 'unsupported_scheme'],
        ['ftp://app.example/cb', 'unsupported_scheme'],
        ['https://app.example/c b', 'invalid_characters'],
        ['https://app.example/é', 'invalid_characters'],
        ['https:///cb', 'missing_host'],
        ['https://app.example:x/cb', 'invalid_port'],
        ['https://[::1]x/cb', 'invalid_port'],
        [`https://a.example/${'x'.repeat(2000)}`, 'too_long'],
      ] as const
    ).map(([uri, reason]) => ({
      ref: `RFC 6749 §3.1.2 (${reason})`,
      input: { ...good, redirectUris: [CB, uri] },
      expected: err({ code: 'invalid_redirect_uri', index: 1, reason }),
    })),
    { ref: 'RFC 9700 §4.1.3 (exact list)', input: { ...good, redirectUris: [CB, CB] }, expected: err({ code: 'duplicate_redirect_uri', index: 1 }) },
    {
      ref: '§5.1 rule 2 (sudo is for personal access tokens only)',
      input: { ...good, scopes: ['user:all', 'site-admin:sudo'] },
      expected: err({ code: 'unknown_scope', scope: 'site-admin:sudo' }),
    },
    { ref: 'each scope once', input: { ...good, scopes: ['user:all', 'user:all'] }, expected: err({ code: 'duplicate_scope', scope: 'user:all' }) },
    { ref: '§2.4 (user:all required)', input: { ...good, scopes: [] }, expected: err({ code: 'missing_user_all_scope' }) },
  ];
  it.each(rows)('should follow $ref', ({ input, expected }) => {
    expect(validateOAuthAppRegistration(input)).toStrictEqual(expected);
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    expect(() => validateOAuthAppRegistration(value as OAuthAppRegistrationInput)).not.toThrow();
  });

  test.prop([fc.webUrl({ withFragments: false, withQueryParameters: true })])(
    'should accept every https URL without fragment or userinfo and refuse the same with a fragment',
    (url) => {
      fc.pre(url.startsWith('https://') && !url.includes('@') && /^[\x21-\x7e]*$/.test(url) && url.length <= 2000);
      expect(validateOAuthAppRegistration({ ...good, redirectUris: [url] }).isOk()).toBe(true);
      expect(validateOAuthAppRegistration({ ...good, redirectUris: [`${url}#f`] })).toStrictEqual(
        err({ code: 'invalid_redirect_uri', index: 0, reason: 'fragment' }),
      );
    },
  );
});

// -----------------------------------------------------------------------------------------------
