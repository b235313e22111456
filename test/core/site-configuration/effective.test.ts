/**
 * The effective site configuration document: it parses back to the configuration it was written from (every
 * default spelled out), and the effective text shown to site administrators holds none of the configuration's
 * secrets, for random configurations with random secrets; each secret field by type as a table.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import {
  effectiveSiteConfigurationText,
  maskSiteConfigurationSecrets,
  REDACTED,
  siteConfigurationDocument,
} from '../../../src/core/site-configuration/effective.js';
import { parseSiteConfiguration } from '../../../src/core/site-configuration/parse.js';
import type { SiteConfiguration } from '../../../src/core/site-configuration/types.js';

const parse = (value: unknown): SiteConfiguration => parseSiteConfiguration(JSON.stringify(value))._unsafeUnwrap();

/** A secret: long enough that it cannot turn up in the document by chance; any characters, quotes included. */
const secret = fc.string({ minLength: 12, maxLength: 40, unit: 'grapheme' }).filter((s) => s.trim().length >= 12 && !s.includes(REDACTED));
/** A URL query token: the characters a URL keeps as they are. */
const urlToken = fc.stringMatching(/^[A-Za-z0-9_-]{16,32}$/u);

interface Generated {
  readonly document: Record<string, unknown>;
  readonly secrets: readonly string[];
}

/** One provider entry at index `i`, with the secrets it holds. */
function providerAt(i: number): fc.Arbitrary<{ entry: Record<string, unknown>; secrets: readonly string[] }> {
  const host = `https://h${i}.example.com`;
  return fc.oneof(
    fc.record({ allowSignup: fc.boolean(), hidden: fc.boolean() }).map((f) => ({ entry: { type: 'builtin', ...f }, secrets: [] })),
    fc.record({ s: secret, orgs: fc.option(fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), { nil: undefined }) }).map(({ s, orgs }) => ({
      entry: { type: 'hosta', url: host, clientID: `id${i}`, clientSecret: s, ...(orgs === undefined ? {} : { allowOrgs: orgs }) },
      secrets: [s],
    })),
    fc.record({ s: secret, token: fc.option(urlToken, { nil: undefined }) }).map(({ s, token }) => ({
      entry: { type: 'hostb', url: host, clientID: `id${i}`, clientSecret: s, ...(token === undefined ? {} : { ssoURL: `${host}/groups/g/-/saml/sso?a=1&token=${token}` }) },
      secrets: token === undefined ? [s] : [s, token],
    })),
    secret.map((s) => ({ entry: { type: 'hostccloud', url: host, clientKey: `key${i}`, clientSecret: s }, secrets: [s] })),
    secret.map((s) => ({ entry: { type: 'hostcserver', url: host, clientID: `id${i}`, clientSecret: s }, secrets: [s] })),
    fc.constant({ entry: { type: 'reviewhost', url: host }, secrets: [] }),
    secret.map((s) => ({ entry: { type: 'openidconnect', issuer: host, clientID: `id${i}`, clientSecret: s, configID: `c${i}` }, secrets: [s] })),
    fc.boolean().map((email) => ({ entry: { type: 'http-header', usernameHeader: 'X-User', ...(email ? { emailHeader: 'X-Email' } : {}) }, secrets: [] })),
    fc.constant({ entry: { type: 'saml', entryPoint: `${host}/sso`, idpCertificate: 'MIIBpublic', configID: `s${i}` }, secrets: [] }),
  );
}

const configuration: fc.Arbitrary<Generated> = fc
  .record({
    providers: fc.integer({ min: 0, max: 5 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => providerAt(i)))),
    smtpPassword: fc.option(secret, { nil: undefined }),
    authPublic: fc.boolean(),
    depth: fc.integer({ min: 1, max: 100 }),
    sessionExpiry: fc.constantFrom('2160h', '1h30m', '720h', '24h0m1s'),
    idle: fc.constantFrom('0', '30m', '168h'),
    lockout: fc.integer({ min: 1, max: 50 }),
    minLength: fc.integer({ min: 8, max: 64 }),
    allow: fc.constantFrom('all-users-create', 'site-admin-create', 'none'),
  })
  .map((g) => {
    const secrets = g.providers.flatMap((p) => p.secrets);
    if (g.smtpPassword !== undefined) secrets.push(g.smtpPassword);
    const document: Record<string, unknown> = {
      externalURL: 'https://gh.example.com',
      'auth.providers': g.providers.map((p) => p.entry),
      'auth.public': g.authPublic,
      trustedProxies: ['10.0.0.0/8', '::1'],
      rateLimits: { graphQLMaxDepth: g.depth },
      'auth.lockout': { failedAttemptThreshold: g.lockout },
      'auth.sessionExpiry': g.sessionExpiry,
      'auth.sessionIdleTimeout': g.idle,
      'auth.minPasswordLength': g.minLength,
      'auth.accessTokens': { allow: g.allow, expirationOptionDays: [30, 7] },
      'licenseKey': 'another tool\'s secret',
      ...(g.smtpPassword === undefined
        ? {}
        : { 'email.smtp': { host: 'smtp.example.com', port: 587, authentication: 'PLAIN', username: 'mailer', password: g.smtpPassword }, 'email.address': 'gh@example.com' }),
    };
    return { document, secrets };
  })
  // two builtin or two http-header entries are duplicates, which the parser refuses
  .filter(({ document }) => parseSiteConfiguration(JSON.stringify(document)).isOk());

describe('effective site configuration', () => {
  test.prop([configuration])('the document parses back to the configuration it was written from', ({ document }) => {
    const config = parse(document);
    expect(parse(siteConfigurationDocument(config))).toEqual(config);
  });

  test.prop([configuration], { numRuns: 300 })('the effective text holds none of the secrets, and parses to the masked configuration', ({ document, secrets }) => {
    const config = parse(document);
    const text = effectiveSiteConfigurationText(config);
    for (const s of secrets) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(JSON.stringify(s).slice(1, -1));
    }
    expect(text).not.toContain("another tool's secret");
    expect(parseSiteConfiguration(text)._unsafeUnwrap()).toEqual(maskSiteConfigurationSecrets(config));
  });

  test.prop([configuration])('masking is idempotent and changes nothing but the secrets', ({ document }) => {
    const config = parse(document);
    const masked = maskSiteConfigurationSecrets(config);
    expect(maskSiteConfigurationSecrets(masked)).toEqual(masked);
    expect({ ...masked, authProviders: [], email: null }).toEqual({ ...config, authProviders: [], email: null });
    expect(masked.authProviders.map((p) => p.type)).toEqual(config.authProviders.map((p) => p.type));
  });

  test.each([
    { type: 'hosta', entry: { url: 'https://h.example.com', clientID: 'i', clientSecret: 'SECRET-VALUE' }, path: ['clientSecret'] },
    { type: 'hostb', entry: { url: 'https://h.example.com', clientID: 'i', clientSecret: 'SECRET-VALUE' }, path: ['clientSecret'] },
    { type: 'hostccloud', entry: { clientKey: 'public-key', clientSecret: 'SECRET-VALUE' }, path: ['clientSecret'] },
    { type: 'hostcserver', entry: { url: 'https://h.example.com', clientID: 'i', clientSecret: 'SECRET-VALUE' }, path: ['clientSecret'] },
    { type: 'openidconnect', entry: { issuer: 'https://h.example.com', clientID: 'i', clientSecret: 'SECRET-VALUE' }, path: ['clientSecret'] },
  ])('$type: clientSecret is masked, its public identifiers kept', ({ type, entry }) => {
    const text = effectiveSiteConfigurationText(parse({ externalURL: 'https://gh.example.com', 'auth.providers': [{ type, ...entry }] }));
    const provider = (JSON.parse(text) as { 'auth.providers': Record<string, unknown>[] })['auth.providers'][0];
    expect(provider?.['clientSecret']).toBe(REDACTED);
    expect(text).not.toContain('SECRET-VALUE');
    if (type === 'hostccloud') expect(provider?.['clientKey']).toBe('public-key');
    else expect(provider?.['clientID']).toBe('i');
  });

  test('hostb ssoURL (§5.3 hostb rule 6): the token parameter is masked, the rest of the URL kept', () => {
    const config = parse({
      'auth.providers': [{ type: 'hostb', url: 'https://h.example.com', clientID: 'i', clientSecret: 's', ssoURL: 'https://h.example.com/groups/g/-/saml/sso?x=1&token=tok123' }],
    });
    const provider = maskSiteConfigurationSecrets(config).authProviders[0];
    expect(provider?.type === 'hostb' ? provider.ssoURL : null).toBe(`https://h.example.com/groups/g/-/saml/sso?x=1&token=${REDACTED}`);
  });

  test('email.smtp.password is masked; the rest of the mail options kept', () => {
    const config = parse({ 'email.smtp': { host: 'smtp.example.com', port: 25, authentication: 'PLAIN', username: 'u', password: 'pw-secret' }, 'email.address': 'a@example.com' });
    const document = JSON.parse(effectiveSiteConfigurationText(config)) as Record<string, Record<string, unknown>>;
    expect(document['email.smtp']).toEqual({ host: 'smtp.example.com', port: 25, authentication: 'PLAIN', username: 'u', password: REDACTED, noVerifyTLS: false });
  });

  test('SAML idpCertificate is public: kept, so a doctor can check its dates', () => {
    const config = parse({ externalURL: 'https://gh.example.com', 'auth.providers': [{ type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'MIIBpublic' }] });
    expect(effectiveSiteConfigurationText(config)).toContain('MIIBpublic');
  });
});
