import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { accountDirectoryFromArray } from '../../../src/core/account-directory.js';
import type { HttpHeaderProvider } from '../../../src/core/auth-providers.js';
import { identityFromProxyHeaders, type ProxyHeaders } from '../../../src/core/sign-in/proxy-identity.js';
import { resolveSignIn } from '../../../src/core/sign-in/resolve.js';

const proxy: HttpHeaderProvider = {
  type: 'http-header',
  usernameHeader: 'X-Forwarded-User',
  emailHeader: 'X-Forwarded-Email',
  stripUsernameHeaderPrefix: 'sso:',
  allowSignup: true,
};
const IAP_HEADER = 'x-goog-authenticated-user-email';
const IAP: HttpHeaderProvider = {
  type: 'http-header',
  usernameHeader: 'X-Goog-Authenticated-User-Email',
  emailHeader: 'X-Goog-Authenticated-User-Email',
  stripUsernameHeaderPrefix: 'accounts.google.com:',
  allowSignup: true,
};
const USER = 'x-forwarded-user';
const EMAIL = 'x-forwarded-email';
const verified = (address: string) => [{ address, verified: true }];

describe('identityFromProxyHeaders', () => {
  it.each([
    { ref: '§5.3 http-header rule 1: both headers', provider: proxy, headers: { [USER]: 'sso:alice', [EMAIL]: 'alice@example.com' }, expected: ok({ accountId: 'alice@example.com', username: 'alice', emails: verified('alice@example.com') }) },
    { ref: '§5.3 http-header rule 1: username only', provider: proxy, headers: { [USER]: 'alice' }, expected: ok({ accountId: 'alice', username: 'alice', emails: [] }) },
    { ref: '§5.3 http-header rule 1: email only', provider: proxy, headers: { [EMAIL]: 'alice@example.com' }, expected: ok({ accountId: 'alice@example.com', username: null, emails: verified('alice@example.com') }) },
    { ref: '§5.3 http-header rule 1: only emailHeader configured', provider: { type: 'http-header', emailHeader: 'X-Email', allowSignup: true }, headers: { 'x-email': 'a@example.com', [USER]: 'ignored' }, expected: ok({ accountId: 'a@example.com', username: null, emails: verified('a@example.com') }) },
    { ref: '§5.3 http-header rule 2', provider: proxy, headers: { [USER]: 'sso:alice' }, expected: ok({ accountId: 'sso:alice', username: 'alice', emails: [] }) },
    { ref: '§5.3 http-header rule 2: only a leading prefix is removed', provider: proxy, headers: { [USER]: 'alice-sso:x' }, expected: ok({ accountId: 'alice-sso:x', username: 'alice-sso:x', emails: [] }) },
    { ref: '§5.3 http-header rule 2: the prefix compares case-sensitively', provider: proxy, headers: { [USER]: 'SSO:alice' }, expected: ok({ accountId: 'SSO:alice', username: 'SSO:alice', emails: [] }) },
    { ref: '§5.3 http-header rule 2: removed once', provider: proxy, headers: { [USER]: 'sso:sso:alice' }, expected: ok({ accountId: 'sso:sso:alice', username: 'sso:alice', emails: [] }) },
    { ref: '§5.3 http-header rule 2: nothing after the prefix', provider: proxy, headers: { [USER]: 'sso:' }, expected: ok({ accountId: 'sso:', username: null, emails: [] }) },
    { ref: 'values trimmed, empty values absent', provider: proxy, headers: { [USER]: ' \t', [EMAIL]: ' alice@example.com ' }, expected: ok({ accountId: 'alice@example.com', username: null, emails: verified('alice@example.com') }) },
    { ref: 'a repeated header with one value', provider: proxy, headers: { [USER]: ['alice', 'alice'] }, expected: ok({ accountId: 'alice', username: 'alice', emails: [] }) },
    { ref: 'a repeated header with two values', provider: proxy, headers: { [USER]: ['alice', 'bob'] }, expected: err({ code: 'multiple_header_values', header: USER }) },
    { ref: 'emails joined by a proxy', provider: proxy, headers: { [EMAIL]: 'a@example.com, b@example.com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'not an email', provider: proxy, headers: { [EMAIL]: 'alice' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'two @ is not an email (§5.5 rule 3)', provider: proxy, headers: { [EMAIL]: 'x@evil.com@example.com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    // §5.3 http-header rule 2: the proxy's prefix comes off the email header too (Google IAP prefixes both).
    { ref: '§5.3 http-header rule 2: Google IAP email header', provider: IAP, headers: { [IAP_HEADER]: 'accounts.google.com:alice@example.com' }, expected: ok({ accountId: 'accounts.google.com:alice@example.com', username: 'alice@example.com', emails: verified('alice@example.com') }) },
    { ref: '§5.3 http-header rule 2: the email prefix removed', provider: proxy, headers: { [EMAIL]: 'sso:alice@example.com' }, expected: ok({ accountId: 'sso:alice@example.com', username: null, emails: verified('alice@example.com') }) },
    { ref: '§5.3 http-header rule 2: an email without the prefix is kept', provider: proxy, headers: { [EMAIL]: 'alice@example.com' }, expected: ok({ accountId: 'alice@example.com', username: null, emails: verified('alice@example.com') }) },
    { ref: '§5.3 http-header rule 2: the email prefix compares case-sensitively', provider: proxy, headers: { [EMAIL]: 'SSO:alice@example.com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: '§5.3 http-header rule 2: nothing after the email prefix', provider: proxy, headers: { [EMAIL]: 'sso:' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'a prefixed email when no prefix is configured is not an address', provider: { ...IAP, stripUsernameHeaderPrefix: undefined }, headers: { [IAP_HEADER]: 'accounts.google.com:alice@example.com' }, expected: err({ code: 'malformed_email_header', header: IAP_HEADER }) },
    { ref: 'a display name is not a single address', provider: proxy, headers: { [EMAIL]: 'Alice<alice@example.com>' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'a group is not a single address', provider: proxy, headers: { [EMAIL]: 'team:alice@example.com;' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'a quoted local part is refused', provider: proxy, headers: { [EMAIL]: '"alice"@example.com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'an empty domain label is refused', provider: proxy, headers: { [EMAIL]: 'alice@example..com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'a domain starting with a dot is refused', provider: proxy, headers: { [EMAIL]: 'alice@.example.com' }, expected: err({ code: 'malformed_email_header', header: EMAIL }) },
    { ref: 'an internationalized address is one address (RFC 6532)', provider: proxy, headers: { [EMAIL]: 'josé@exämple.com' }, expected: ok({ accountId: 'josé@exämple.com', username: null, emails: verified('josé@exämple.com') }) },
    { ref: 'header names are lowercased keys', provider: proxy, headers: { 'X-Forwarded-User': 'alice' }, expected: err({ code: 'missing_identity_headers', headers: [USER, EMAIL] }) },
    { ref: 'neither header', provider: proxy, headers: {}, expected: err({ code: 'missing_identity_headers', headers: [USER, EMAIL] }) },
    { ref: 'an empty list', provider: proxy, headers: { [USER]: [] }, expected: err({ code: 'missing_identity_headers', headers: [USER, EMAIL] }) },
    { ref: 'not an http-header provider', provider: { type: 'hosta', url: '', clientID: 'i', clientSecret: 's', allowSignup: true }, headers: { [USER]: 'alice' }, expected: err({ code: 'invalid_provider', path: 'type', expected: 'http-header' }) },
    { ref: 'no header configured', provider: { type: 'http-header', allowSignup: true }, headers: { [USER]: 'alice' }, expected: err({ code: 'invalid_provider', path: 'usernameHeader', expected: 'usernameHeader or emailHeader' }) },
    { ref: 'a header name of the wrong type', provider: { ...proxy, emailHeader: 5 }, headers: {}, expected: err({ code: 'invalid_provider', path: 'emailHeader', expected: 'non-empty string' }) },
    { ref: 'headers not an object', provider: proxy, headers: 'x-forwarded-user: alice', expected: err({ code: 'invalid_headers' }) },
  ])('should follow $ref', ({ provider, headers, expected }) => {
    // @ts-expect-error -- some rows are deliberately malformed at run time
    expect(identityFromProxyHeaders(provider, headers)).toStrictEqual(expected);
  });

  it('should let a proxy username find an existing account (§5.3 http-header rule 3)', () => {
    const provider: HttpHeaderProvider = { type: 'http-header', usernameHeader: 'X-User', stripUsernameHeaderPrefix: 'corp\\', allowSignup: false };
    const identity = identityFromProxyHeaders(provider, { 'x-user': 'corp\\alice' })._unsafeUnwrap();
    const directory = accountDirectoryFromArray([{ id: 'u1', username: 'alice', origin: 'admin_created', emails: [], externalAccounts: [] }])._unsafeUnwrap();
    const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory, randomBytes: (n) => new Uint8Array(n) });
    expect(decision).toStrictEqual(
      ok({
        kind: 'sign_in',
        userId: 'u1',
        via: 'username',
        linkExternalAccount: true,
        externalAccount: { providerType: 'http-header', serviceId: '', accountId: 'corp\\alice' },
      }),
    );
  });

  test.prop([fc.anything(), fc.anything()])('should never throw', (provider, headers) => {
    // @ts-expect-error -- arbitrary values at run time
    expect(() => identityFromProxyHeaders(provider, headers)).not.toThrow();
  });

  // Characters that make prefixes overlap often; no spaces or tabs, which are trimmed.
  const text = (minLength: number) => fc.string({ unit: fc.constantFrom('s', 'o', ':', '\\', 'a', 'é', '@'), minLength, maxLength: 6 });
  test.prop([fc.option(text(1), { nil: undefined }), text(0), text(0)])(
    'should strip the prefix exactly when the username starts with it (§5.3 http-header rule 2)',
    (prefix, name, rest) => {
      const provider: HttpHeaderProvider = {
        type: 'http-header',
        usernameHeader: 'X-User',
        allowSignup: true,
        ...(prefix === undefined ? {} : { stripUsernameHeaderPrefix: prefix }),
      };
      const raw = `${prefix ?? ''}${name}${rest}`;
      const headers: ProxyHeaders = { 'x-user': raw };
      const result = identityFromProxyHeaders(provider, headers);
      if (raw === '') {
        expect(result).toStrictEqual(err({ code: 'missing_identity_headers', headers: ['x-user'] }));
        return;
      }
      const stripped = prefix !== undefined && raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
      expect(result).toStrictEqual(ok({ accountId: raw, username: stripped === '' ? null : stripped, emails: [] }));
    },
  );

  // Characters of addresses, prefixes and the specials that make a value something else than one address.
  const emailText = fc.string({ unit: fc.constantFrom('a', 'x', '@', '.', ':', ',', ';', '<', '>', ' ', 'é', '"'), maxLength: 8 });
  test.prop([fc.option(fc.constantFrom('accounts.google.com:', 'sso:', 'a'), { nil: undefined }), emailText])(
    'should store only a single address from the email header, the prefix removed exactly when present (§5.3 http-header rule 2)',
    (prefix, raw) => {
      const provider: HttpHeaderProvider = {
        type: 'http-header',
        emailHeader: 'X-Email',
        allowSignup: true,
        ...(prefix === undefined ? {} : { stripUsernameHeaderPrefix: prefix }),
      };
      const result = identityFromProxyHeaders(provider, { 'x-email': raw });
      if (result.isErr()) return;
      for (const { address } of result.value.emails) {
        const stripped = prefix !== undefined && raw.trim().startsWith(prefix) ? raw.trim().slice(prefix.length) : raw.trim();
        expect(address).toBe(stripped);
        expect(address.split('@')).toHaveLength(2);
        expect([...'()<>[]:;,"\\ '].some((c) => address.includes(c))).toBe(false);
      }
    },
  );
});
