/**
 * The effective site configuration as a document: every setting gatehouse reads, defaults applied, written back in
 * the site configuration file's own format (so `parseSiteConfiguration` reads it back to the same configuration),
 * with every secret replaced by {@link REDACTED}. The secrets are found by the parsed type, in one place
 * ({@link maskSiteConfigurationSecrets}): the OAuth `clientSecret` of `hosta`, `hostb`, `hostccloud`,
 * `hostcserver` and `openidconnect` providers, the `token` query parameter of a `hostb` `ssoURL` (spec §5.3 hostb
 * rule 6), and `email.smtp.password`. Keys gatehouse does not read are never part of the document, so a secret kept
 * under another tool's key cannot leak through it either.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { AuthProvider } from '../auth-providers.js';
import { formatDuration } from '../duration.js';
import type { SiteConfiguration } from './types.js';

/**
 * What every secret is replaced by.
 *
 * @example
 * ```ts
 * REDACTED; // 'REDACTED'
 * ```
 */
export const REDACTED = 'REDACTED';

/** A JSON value of the document. */
export type SiteConfigurationDocumentValue =
  | string
  | number
  | boolean
  | null
  | readonly SiteConfigurationDocumentValue[]
  | { readonly [key: string]: SiteConfigurationDocumentValue };

/** The document: top-level keys as the site configuration file spells them (`auth.providers`, `rateLimits` …). */
export type SiteConfigurationDocument = { readonly [key: string]: SiteConfigurationDocumentValue };

/** `ssoURL` with the value of its `token` query parameter (and only that) replaced; other text unchanged. */
function maskSsoToken(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const params = url
    .slice(query + 1, end)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      let decoded: string;
      try {
        decoded = decodeURIComponent(name.replace(/\+/gu, ' '));
      } catch {
        decoded = name;
      }
      return decoded === 'token' ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, query + 1)}${params.join('&')}${url.slice(end)}`;
}

function maskProvider(provider: AuthProvider): AuthProvider {
  return match(provider)
    .with({ type: 'hosta' }, (p) => ({ ...p, clientSecret: REDACTED }))
    .with({ type: 'hostb' }, (p) => ({ ...p, clientSecret: REDACTED, ...(p.ssoURL === undefined ? {} : { ssoURL: maskSsoToken(p.ssoURL) }) }))
    .with({ type: 'hostccloud' }, (p) => ({ ...p, clientSecret: REDACTED }))
    .with({ type: 'hostcserver' }, (p) => ({ ...p, clientSecret: REDACTED }))
    .with({ type: 'openidconnect' }, (p) => ({ ...p, clientSecret: REDACTED }))
    .with({ type: 'builtin' }, { type: 'reviewhost' }, { type: 'http-header' }, { type: 'saml' }, (p) => p)
    .exhaustive();
}

/**
 * The configuration with every secret replaced by {@link REDACTED}; everything else unchanged. The result is still a
 * valid configuration (each masked value is a non-empty string where one is required).
 *
 * @param config - A parsed site configuration.
 * @returns The same configuration, its secrets masked.
 * @example
 * ```ts
 * maskSiteConfigurationSecrets(config).authProviders[0]; // { type: 'hostb', …, clientSecret: 'REDACTED' }
 * ```
 */
export function maskSiteConfigurationSecrets(config: SiteConfiguration): SiteConfiguration {
  const smtp = config.email.smtp;
  return {
    ...config,
    authProviders: config.authProviders.map(maskProvider),
    email: { ...config.email, smtp: smtp === null || smtp.password === undefined ? smtp : { ...smtp, password: REDACTED } },
  };
}

/** Copies a record without its `undefined` values (absent optional fields stay absent). */
function defined(record: object): SiteConfigurationDocument {
  const out: Record<string, SiteConfigurationDocumentValue> = {};
  for (const [key, value] of Object.entries(record) as [string, SiteConfigurationDocumentValue | undefined][]) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Writes a parsed configuration back in the site configuration file's format, every default spelled out. Secrets
 * are written as they are: use {@link effectiveSiteConfigurationText} for anything shown or sent.
 *
 * @param config - A parsed site configuration.
 * @returns The document; `parseSiteConfiguration(JSON.stringify(document))` gives back `config`.
 * @example
 * ```ts
 * siteConfigurationDocument(config)['auth.sessionExpiry']; // '2160h'
 * ```
 */
export function siteConfigurationDocument(config: SiteConfiguration): SiteConfigurationDocument {
  const { accessTokens, sessionLifetime, passwordRule, enableUsernameChanges } = config.accountOptions;
  const limits = config.queryLimits;
  return {
    ...(config.externalURL === undefined ? {} : { externalURL: config.externalURL }),
    'auth.providers': config.authProviders.map(defined),
    'auth.public': config.authPublic,
    trustedProxies: config.trustedProxies.map((range) => range.text),
    rateLimits: {
      graphQLMaxDepth: limits.maxDepth,
      graphQLMaxFieldCount: limits.maxFieldCount,
      graphQLMaxAliases: limits.maxAliases,
      graphQLMaxDuplicateFieldCount: limits.maxDuplicateFieldCount,
      graphQLMaxUniqueFieldCount: limits.maxUniqueFieldCount,
    },
    'auth.lockout': { ...config.lockout },
    'auth.passwordResetLinkExpiry': config.passwordResetLinkExpiry,
    'auth.unlockAccountLinkExpiry': config.unlockAccountLinkExpiry,
    ...(config.email.smtp === null ? {} : { 'email.smtp': defined(config.email.smtp) }),
    ...(config.email.address === null ? {} : { 'email.address': config.email.address }),
    'email.senderName': config.email.senderName,
    'auth.accessTokens': { ...accessTokens, expirationOptionDays: [...accessTokens.expirationOptionDays] },
    'auth.sessionExpiry': formatDuration(sessionLifetime.expiryMs),
    'auth.sessionIdleTimeout': sessionLifetime.idleTimeoutMs === null ? '0' : formatDuration(sessionLifetime.idleTimeoutMs),
    'auth.minPasswordLength': passwordRule.minLength,
    'auth.passwordPolicy': { ...passwordRule.policy },
    'auth.enableUsernameChanges': enableUsernameChanges,
  };
}

/**
 * The effective configuration a running server may show a site administrator: {@link siteConfigurationDocument} of
 * the masked configuration, as indented JSON. It parses back to the running configuration except that each secret
 * reads {@link REDACTED}.
 *
 * @param config - The configuration in effect.
 * @returns JSON text holding no secret of `config`.
 * @example
 * ```ts
 * JSON.parse(effectiveSiteConfigurationText(config))['auth.providers'][0].clientSecret; // 'REDACTED'
 * ```
 */
export function effectiveSiteConfigurationText(config: SiteConfiguration): string {
  return JSON.stringify(siteConfigurationDocument(maskSiteConfigurationSecrets(config)), null, 2);
}
