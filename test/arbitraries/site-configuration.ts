/**
 * fast-check generators of valid site configurations (spec §2.5, §8) as plain JSON values.
 *
 * Every generated configuration is valid: at most one provider per type (so no two share type, URL and client),
 * distinct `configID`s, and `externalURL` whenever an `openidconnect` or `saml` provider is present.
 *
 * @module
 */
import fc from 'fast-check';
import type { ProviderType } from '../../src/core/auth-providers.js';
import { addressRange } from './address.js';

/** A JSON object as written by an administrator. */
export type RawEntry = Readonly<Record<string, unknown>>;

const lower = 'abcdefghijklmnopqrstuvwxyz';
const alnum = `${lower}0123456789`;

function word(chars: string, min: number, max: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...chars.split('')), minLength: min, maxLength: max });
}

/** A DNS label: letters and digits, a hyphen only inside. */
export const dnsLabel: fc.Arbitrary<string> = fc
  .tuple(word(lower, 1, 1), word(`${alnum}-`, 0, 6), word(alnum, 0, 1))
  .map(([a, b, c]) => (b.endsWith('-') && c === '' ? `${a}${b}x` : `${a}${b}${c}`));

/** A domain name such as `hostb.example.com`. */
export const domainName: fc.Arbitrary<string> = fc.array(dnsLabel, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'));

const pathSegment = word(`${alnum}-_.~`, 1, 6);

/** An absolute http(s) URL with a host, an optional port, an optional path and an optional trailing slash. */
export const httpUrl: fc.Arbitrary<string> = fc
  .record({
    scheme: fc.constantFrom('http', 'https', 'HTTPS'),
    host: domainName,
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.array(pathSegment, { maxLength: 2 }),
    slash: fc.boolean(),
  })
  .map(
    ({ scheme, host, port, path, slash }) =>
      `${scheme}://${host}${port === undefined ? '' : `:${String(port)}`}${path.map((p) => `/${p}`).join('')}${slash ? '/' : ''}`,
  );

const text = fc.string({ minLength: 1, maxLength: 12 });
const names = fc.array(text, { maxLength: 3 });
const headerName = fc.tuple(word('XYZ', 1, 1), word(`${alnum}-`, 0, 10)).map(([a, b]) => `${a}-${b}`);
const groupPath = fc
  .array(fc.tuple(word(`${alnum}_`, 1, 1), word(`${alnum}_.-`, 0, 6)).map(([a, b]) => a + b), { minLength: 2, maxLength: 3 })
  .map((parts) => parts.join('/'));

function withOptional(required: RawEntry, optional: Readonly<Record<string, fc.Arbitrary<unknown>>>): fc.Arbitrary<RawEntry> {
  return fc
    .record(
      Object.fromEntries(Object.entries(optional).map(([key, arb]) => [key, fc.option(arb, { nil: undefined })])),
      { noNullPrototype: true },
    )
    .map((fields) => {
      const out: Record<string, unknown> = { ...required };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
      return out;
    });
}

function common(type: ProviderType): Readonly<Record<string, fc.Arbitrary<unknown>>> {
  return { displayName: text, allowSignup: type === 'reviewhost' ? fc.constant(false) : fc.boolean() };
}

/**
 * A valid raw entry of `auth.providers` for one provider type, optional fields present or not.
 *
 * @param type - The provider type.
 * @returns An arbitrary of entries as written in the site configuration.
 */
export function providerEntry(type: ProviderType): fc.Arbitrary<RawEntry> {
  const client = fc.record({ clientID: text, clientSecret: text }, { noNullPrototype: true });
  switch (type) {
    case 'builtin':
      return withOptional({ type }, common(type));
    case 'hosta':
      return client.chain((c) =>
        withOptional(
          { type, ...c },
          {
            ...common(type),
            url: fc.oneof(fc.constant(''), httpUrl),
            allowOrgs: names,
            allowOrgsMap: fc.dictionary(text, names, { maxKeys: 3, noNullPrototype: true }),
            requiredSsoOrgs: fc.oneof(fc.constant(['all']), fc.array(word('0123456789', 1, 8), { maxLength: 3 })),
          },
        ),
      );
    case 'hostb':
      return fc.tuple(client, httpUrl).chain(([c, url]) =>
        withOptional(
          { type, url, ...c },
          {
            ...common(type),
            apiScope: fc.constantFrom('api', 'read_api', 'read_repository'),
            allowGroups: fc.array(groupPath, { maxLength: 3 }),
            ssoURL: fc.tuple(httpUrl, word(alnum, 1, 10)).map(([u, token]) => `${u.replace(/\/+$/, '')}/sso?token=${token}`),
            syncInternalRepoPermissions: fc.boolean(),
          },
        ),
      );
    case 'hostccloud':
      return fc
        .record({ clientKey: text, clientSecret: text }, { noNullPrototype: true })
        .chain((c) => withOptional({ type, ...c }, { ...common(type), url: httpUrl }));
    case 'hostcserver':
      return fc.tuple(client, httpUrl).chain(([c, url]) => withOptional({ type, url, ...c }, common(type)));
    case 'reviewhost':
      return httpUrl.chain((url) => withOptional({ type, url }, common(type)));
    case 'openidconnect':
      return fc.tuple(client, httpUrl).chain(([c, url]) =>
        withOptional(
          { type, issuer: url.replace(/\/+$/, '') || url, ...c },
          { ...common(type), configID: text.map((t) => `oidc-${t}`), requireEmailDomain: domainName },
        ),
      );
    case 'http-header':
      return fc
        .record(
          { usernameHeader: fc.option(headerName, { nil: undefined }), emailHeader: fc.option(headerName, { nil: undefined }) },
          { noNullPrototype: true },
        )
        .filter((h) => h.usernameHeader !== undefined || h.emailHeader !== undefined)
        .chain((h) => {
          const required: Record<string, unknown> = { type };
          if (h.usernameHeader !== undefined) required['usernameHeader'] = h.usernameHeader;
          if (h.emailHeader !== undefined) required['emailHeader'] = h.emailHeader;
          return withOptional(required, { ...common(type), stripUsernameHeaderPrefix: fc.string({ maxLength: 8 }) });
        });
    case 'saml':
      return fc.tuple(httpUrl, text).chain(([entryPoint, idpCertificate]) =>
        withOptional(
          { type, entryPoint, idpCertificate },
          { ...common(type), configID: text.map((t) => `saml-${t}`), serviceProviderIssuer: text },
        ),
      );
  }
}

const ALL_TYPES: readonly ProviderType[] = [
  'builtin',
  'hosta',
  'hostb',
  'hostccloud',
  'hostcserver',
  'reviewhost',
  'openidconnect',
  'http-header',
  'saml',
];

/** A valid `auth.providers` list: at most one entry per type, in any order. */
export const providerEntries: fc.Arbitrary<readonly RawEntry[]> = fc
  .tuple(...ALL_TYPES.map((type) => providerEntry(type)))
  .chain((entries) => fc.shuffledSubarray(entries));

/** A valid `rateLimits` object (any subset of the three keys the spec shows by default). */
export const rateLimits: fc.Arbitrary<RawEntry> = fc.record(
  {
    graphQLMaxDepth: fc.integer({ min: 1, max: 100 }),
    graphQLMaxFieldCount: fc.integer({ min: 1, max: 1_000_000 }),
    graphQLMaxAliases: fc.integer({ min: 1, max: 1000 }),
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** A generated site configuration, as an administrator would write it. */
export interface GeneratedSiteConfiguration {
  /** The public address; present whenever an `openidconnect` or `saml` provider is. */
  readonly externalURL?: string;
  /** The provider entries as written. */
  readonly 'auth.providers'?: readonly RawEntry[];
  /** Query cost limits (spec §8). */
  readonly rateLimits?: RawEntry;
  /** An unrelated top-level setting, which the parser ignores. */
  readonly 'search.largeFiles'?: unknown;
  /** The trusted proxies' addresses and ranges; present and non-empty whenever an `http-header` provider is. */
  readonly trustedProxies?: readonly string[];
}

/**
 * A valid site configuration object. `externalURL` is present whenever an `openidconnect` or `saml` provider is;
 * `trustedProxies` whenever an `http-header` provider is; `auth.providers`, `rateLimits`, `trustedProxies` and an
 * unrelated top-level key may otherwise be absent.
 */
export const siteConfigurationObject: fc.Arbitrary<GeneratedSiteConfiguration> = providerEntries.chain((providers) => {
  const needsExternalUrl = providers.some((p) => p['type'] === 'openidconnect' || p['type'] === 'saml');
  const proxies = fc.array(addressRange.map((r) => r.text), { minLength: 1, maxLength: 3 });
  return fc
    .record(
      {
        externalURL: needsExternalUrl ? httpUrl : fc.option(httpUrl, { nil: undefined }),
        providersPresent: providers.length === 0 ? fc.boolean() : fc.constant(true),
        rateLimits: fc.option(rateLimits, { nil: undefined }),
        other: fc.option(fc.jsonValue(), { nil: undefined }),
        trustedProxies: providers.some((p) => p['type'] === 'http-header') ? proxies : fc.option(proxies, { nil: undefined }),
      },
      { noNullPrototype: true },
    )
    .map(({ externalURL, providersPresent, rateLimits: limits, other, trustedProxies }) => {
      const config: GeneratedSiteConfiguration = {
        ...(externalURL === undefined ? {} : { externalURL }),
        ...(providersPresent ? { 'auth.providers': providers } : {}),
        ...(limits === undefined ? {} : { rateLimits: limits }),
        ...(other === undefined ? {} : { 'search.largeFiles': other }),
        ...(trustedProxies === undefined ? {} : { trustedProxies }),
      };
      return config;
    });
});
