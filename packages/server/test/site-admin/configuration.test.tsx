/**
 * The site configuration page (spec §2.5, §8) as a function: the effective configuration with defaults, every
 * problem with its path, and no secret ever on the page.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isSecretField, maskUrlSecrets } from '../../src/site-admin/configuration.js';
import { callRoute, textOf, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

interface Secrets {
  readonly hosta: string;
  readonly hostb: string;
  readonly hostccloud: string;
  readonly oidc: string;
  readonly certificate: string;
  readonly ssoToken: string;
}

/** A configuration with one provider of every type, each secret field holding the given value. */
function configurationWith(secrets: Secrets): string {
  return JSON.stringify({
    externalURL: 'https://gh.example.com',
    'auth.public': true,
    trustedProxies: ['10.0.0.5'],
    'auth.providers': [
        { type: 'builtin' },
        { type: 'hosta', url: '', clientID: 'hosta-client-id', clientSecret: secrets.hosta, allowOrgs: ['acme'], allowOrgsMap: { acme: ['Team A'] } },
        {
          type: 'hostb',
          url: 'https://hostb.example.com',
          clientID: 'hostb-client-id',
          clientSecret: secrets.hostb,
          ssoURL: `https://hostb.example.com/groups/g/-/saml/sso?token=${encodeURIComponent(secrets.ssoToken)}`,
        },
        { type: 'hostccloud', clientKey: 'public-consumer-key', clientSecret: secrets.hostccloud, allowSignup: false },
        { type: 'openidconnect', displayName: 'Company SSO', issuer: 'https://idp.example.com', clientID: 'oidc-client', clientSecret: secrets.oidc },
        { type: 'saml', entryPoint: 'https://saml.example.com/sso', idpCertificate: secrets.certificate },
        { type: 'http-header', usernameHeader: 'X-Forwarded-User' },
        { type: 'reviewhost', url: 'https://review.example.com' },
    ],
    rateLimits: { graphQLMaxDepth: 10 },
  });
}

const SECRETS: Secrets = {
  hosta: 'hosta-SECRET-1',
  hostb: 'hostb-SECRET-2',
  hostccloud: 'hostc-SECRET-3',
  oidc: 'oidc-SECRET-4',
  certificate: 'MIIC-CERTIFICATE-5',
  ssoToken: 'SSO-TOKEN-6',
};

async function configurationPage(secrets: Secrets = SECRETS) {
  const s = await siteAdminKit({ configuration: configurationWith(secrets), listeningURL: 'http://127.0.0.1:3080' });
  return callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/configuration'));
}

/** What React writes for a text value. */
const escaped = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#x27;');

describe('GET /site-admin/configuration', () => {
  it('should list every problem with its JSON path', async () => {
    const text = visibleText(await configurationPage());
    expect(text).toContain('warning externalURL : externalURL https://gh.example.com is not the address this server listens on (http://127.0.0.1:3080)');
    expect(text).toMatch(/warning auth\.providers\[6\] : .*emailHeader/);
    expect(text).toContain('error auth.providers[7] : auth.providers[7] (reviewhost) cannot be used');
  });

  it('should say so when there is no problem', async () => {
    // the kit's own configuration nests `auth.providers` under `auth`, which the parser ignores: spell the key out
    const s = await siteAdminKit({ configuration: JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }] }) });
    const text = visibleText(await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/configuration')));
    expect(text).toContain('OK No problems found.');
    expect(text).toContain('builtin');
    expect(text).toContain('allowSignup true (the default for builtin is false)');
  });

  it('should show each provider with its defaults applied, public identifiers and callback addresses', async () => {
    const text = visibleText(await configurationPage());
    expect(text).toContain('auth.providers[0] builtin type builtin displayName (not set) allowSignup false (the default for builtin)');
    expect(text).toContain('allowSignup true (the default for hostb) url https://hostb.example.com clientID hostb-client-id');
    expect(text).toContain('apiScope api');
    expect(text).toContain('allowSignup false (the default for hostccloud is true)');
    expect(text).toContain('clientKey public-consumer-key');
    expect(text).toContain('auth.providers[4] openidconnect · Company SSO');
    expect(text).toContain('allowOrgs acme allowOrgsMap acme : Team A');
    expect(text).toContain('Public edition in use https://hosta.example.com');
    expect(text).toContain('Callback URL https://gh.example.com/.auth/hosta/callback (register it at the provider)');
    expect(text).toContain('externalURL https://gh.example.com Listening address http://127.0.0.1:3080 auth.public true');
  });

  it('should show the query limits with their defaults', async () => {
    const text = visibleText(await configurationPage());
    expect(text).toContain('rateLimits.graphQLMaxDepth 10 30');
    expect(text).toContain('rateLimits.graphQLMaxFieldCount 500,000 default 500,000');
    expect(text).toContain('rateLimits.GraphqlMaxUniqueFieldCount 500 default 500');
  });

  it('should mask every secret field and the SSO URL token', async () => {
    const page = await configurationPage();
    const text = visibleText(page);
    for (const secret of Object.values(SECRETS)) expect(textOf(page)).not.toContain(secret);
    expect(text.match(/•••••• \(set\)/g)?.length).toBe(5);
    expect(text).toContain('clientSecret •••••• (set)');
    expect(text).toContain('idpCertificate •••••• (set)');
    expect(text).toContain('ssoURL https://hostb.example.com/groups/g/-/saml/sso?token=••••••');
  });

  test.prop([
    fc.record(
      {
        hosta: fc.string({ unit: 'binary', minLength: 6 }),
        hostb: fc.string({ unit: 'binary', minLength: 6 }),
        hostccloud: fc.string({ unit: 'binary', minLength: 6 }),
        oidc: fc.string({ unit: 'binary', minLength: 6 }),
        certificate: fc.string({ unit: 'binary', minLength: 6 }),
        ssoToken: fc.string({ unit: 'binary', minLength: 6 }),
      },
      { noNullPrototype: true },
    ),
  ])('should never put a secret value on the page', async (raw) => {
    // a distinctive prefix: the secret cannot occur on the page by chance
    const secrets = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, `zQ${v.trim() === '' ? 'x' : v}`])) as unknown as Secrets;
    const page = await configurationPage(secrets);
    expect(page.status).toBe(200);
    const html = textOf(page);
    for (const secret of Object.values(secrets)) {
      expect(html).not.toContain(secret);
      expect(html).not.toContain(escaped(secret));
      expect(html).not.toContain(encodeURIComponent(secret));
    }
  });

  it('should show the mail options in effect, the SMTP password masked, and say when mail is off', async () => {
    const smtpPassword = 'smtp-PASSWORD-7';
    const configuration = JSON.stringify({
      'email.smtp': { host: 'smtp.example.com', port: 587, authentication: 'CRAM-MD5', username: 'relay-user', password: smtpPassword },
      'email.address': 'noreply@example.com',
    });
    const s = await siteAdminKit({ configuration });
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/configuration'));
    const text = visibleText(page);
    expect(textOf(page)).not.toContain(smtpPassword);
    expect(text).toContain('email.smtp host : smtp.example.com port : 587 username : relay-user password : •••••• (set) authentication : CRAM-MD5');
    expect(text).toContain('noVerifyTLS : false');
    expect(text).toContain('email.address noreply@example.com email.senderName gatehouse');
    const off = await siteAdminKit();
    const offText = visibleText(await callRoute(off.routes, (await off.kit.browser(off.admin)).get('/site-admin/configuration')));
    expect(offText).toContain('email.smtp (not set: mail is off; site administrators copy each link from Site admin → Users)');
    expect(offText).toContain('email.address (not set)');
  });

  it('should be for site administrators only', async () => {
    const s = await siteAdminKit();
    expect((await callRoute(s.routes, (await s.kit.browser(s.member)).get('/site-admin/configuration'))).status).toBe(403);
  });
});

describe('isSecretField', () => {
  it.each([
    ['clientSecret', true],
    ['idpCertificate', true],
    ['password', true],
    ['privateKey', true],
    ['token', true],
    ['apiKey', true],
    ['clientKey', false],
    ['clientID', false],
    ['url', false],
    ['usernameHeader', false],
    ['apiScope', false],
  ])('should say %s is secret: %s', (name, expected) => {
    expect(isSecretField(name)).toBe(expected);
  });
});

describe('maskUrlSecrets', () => {
  it.each([
    ['https://hostb.example.com/g/-/saml/sso?token=abc&x=1', 'https://hostb.example.com/g/-/saml/sso?token=••••••&x=1'],
    ['https://u:p@example.com/path', 'https://••••••@example.com/path'],
    ['https://example.com/cb#access_token=abc', 'https://example.com/cb#••••••'],
    ['https://example.com/path?x=1', 'https://example.com/path?x=1'],
    ['not a url token=abc', 'not a url token=abc'],
  ])('should show %s as %s', (input, expected) => {
    expect(maskUrlSecrets(input)).toBe(expected);
  });
});
