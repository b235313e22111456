/**
 * What each configured provider implies on the wire: its callback address, its OAuth scopes, which code host
 * connection a review host serves, and whether the sign-in page redirects straight to a provider (spec §4, §5.3).
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import {
  type AuthProvider,
  type CodeHostProvider,
  type OpenIdConnectProvider,
  type ProviderType,
  type ReviewhostProvider,
  type SamlProvider,
} from './auth-providers.js';
import { ownField } from './internal/guard.js';
import { isProviderType } from './internal/provider-facts.js';
import { comparableUrl, parseHttpUrl } from './site-configuration/url.js';
import type { InvalidUrlReason } from './site-configuration/types.js';
import { PROVIDER_SPECS } from './providers/index.js';
import type { ProviderWithoutCallback } from './providers/spec.js';

export type { ProviderWithoutCallback } from './providers/spec.js';

/** Why no callback address could be derived. */
export type CallbackUrlError =
  /** `externalURL` is unset (`undefined`). */
  | { readonly code: 'external_url_required' }
  /** `externalURL` is not an absolute `http`/`https` URL without query and fragment. */
  | { readonly code: 'invalid_external_url'; readonly reason: InvalidUrlReason | 'not_a_string' }
  /** The provider type has no callback: password sign-in, the proxy, or the review host. */
  | { readonly code: 'no_callback'; readonly type: ProviderWithoutCallback }
  /** The value is not a provider (no known `type`), which only happens when the static type was bypassed. */
  | { readonly code: 'invalid_provider' };

function providerType(provider: unknown): ProviderType | null {
  const type = ownField(provider, 'type');
  return isProviderType(type) ? type : null;
}

function baseUrl(externalURL: unknown): Result<string, CallbackUrlError> {
  if (externalURL === undefined) return err({ code: 'external_url_required' });
  if (typeof externalURL !== 'string') return err({ code: 'invalid_external_url', reason: 'not_a_string' });
  return parseHttpUrl(externalURL)
    .mapErr((reason): CallbackUrlError => ({ code: 'invalid_external_url', reason }))
    .andThen((url): Result<string, CallbackUrlError> =>
      url.query !== null || url.fragment !== null
        ? err({ code: 'invalid_external_url', reason: 'has_query_or_fragment' })
        : ok(externalURL.replace(/\/+$/, '')),
    );
}

/**
 * The callback path of a provider type under `externalURL` (spec §4 endpoint table), from the provider registry:
 * `/.auth/<type>/callback` for the code hosts, `/.auth/callback` for OpenID Connect, `/.auth/saml/acs` for SAML, and
 * `null` for the types that never redirect back (`builtin`, `http-header`, `reviewhost`).
 *
 * @param type - The provider type.
 * @returns The path, with its leading `/`, or `null`.
 *
 * @example
 * ```ts
 * callbackPathOf('openidconnect'); // '/.auth/callback'
 * callbackPathOf('builtin');       // null
 * ```
 */
export function callbackPathOf(type: ProviderType): string | null {
  const path: string | null = PROVIDER_SPECS[type].callbackPath;
  return path === null ? null : `/${path}`;
}

/**
 * The address the provider sends the browser back to after sign-in (spec §4 endpoint table; §5.3 hosta rule 1,
 * hostb rule 1, hostccloud, hostcserver, openidconnect rule 2): `{externalURL}/.auth/<type>/callback` for the code
 * hosts, `{externalURL}/.auth/callback` for OpenID Connect, and `{externalURL}/.auth/saml/acs` (the assertion
 * consumer service) for SAML. Exactly one `/` joins the base and the path however the base ends, and a path prefix
 * of the base is kept (`http://x/sg/` gives `http://x/sg/.auth/…`).
 *
 * @param provider - A parsed provider.
 * @param externalURL - The site's `externalURL` (may be `undefined` when unset).
 * @returns `ok` with the absolute callback URL, or `err` when the type has none or `externalURL` is unusable.
 *
 * @example
 * ```ts
 * callbackUrl({ type: 'hostb', url: 'https://hostb.example.com', clientID: 'i', clientSecret: 's',
 *               allowSignup: true, apiScope: 'api' }, 'https://search.example.com/');
 * // ok('https://search.example.com/.auth/hostb/callback')
 * callbackUrl({ type: 'builtin', allowSignup: false }, 'https://search.example.com');
 * // err({ code: 'no_callback', type: 'builtin' })
 * ```
 */
export function callbackUrl(provider: AuthProvider, externalURL: string | undefined): Result<string, CallbackUrlError> {
  const type = providerType(provider);
  if (type === null) return err({ code: 'invalid_provider' });
  return match(type)
    .returnType<Result<string, CallbackUrlError>>()
    .with('builtin', 'http-header', 'reviewhost', (none) => err({ code: 'no_callback', type: none }))
    .with('hosta', 'hostb', 'hostccloud', 'hostcserver', 'openidconnect', 'saml', (withCallback) =>
      baseUrl(externalURL).map((base) => `${base}/${PROVIDER_SPECS[withCallback].callbackPath}`),
    )
    .exhaustive();
}

/** Why no OAuth scopes apply. */
export type OAuthScopesError =
  /** The provider does not sign in with OAuth or OpenID Connect. */
  | { readonly code: 'not_an_oauth_provider'; readonly type: 'builtin' | 'reviewhost' | 'http-header' | 'saml' }
  /** The value is not a provider (no known `type`). */
  | { readonly code: 'invalid_provider' };

/**
 * The scopes to request in the authorization request.
 *
 * - `hostb`: `read_user` and the `apiScope` (default `api`) (§5.3 hostb rules 1, 2).
 * - `openidconnect`: `openid`, `email`, `profile` (§5.3 openidconnect rule 1).
 * - `hosta`: `user:email` (verified emails, needed for linking, §5.4) and `read:org` (organisation and team
 *   membership for `allowOrgs`/`allowOrgsMap`, §5.3 hosta rules 4–6, 8). The spec names no scopes; this is a reading.
 * - `hostccloud`, `hostcserver`: none; their permissions (Account: Read, Repositories: Read) are granted when the
 *   consumer or incoming link is created, not requested per sign-in.
 *
 * @param provider - A parsed provider.
 * @returns `ok` with the scopes in request order, or `err` for a provider that does not use OAuth.
 *
 * @example
 * ```ts
 * oauthScopes({ type: 'hostb', url: 'https://hostb.example.com', clientID: 'i', clientSecret: 's',
 *               allowSignup: true, apiScope: 'read_api' });
 * // ok(['read_user', 'read_api'])
 * ```
 */
export function oauthScopes(provider: AuthProvider): Result<readonly string[], OAuthScopesError> {
  const type = providerType(provider);
  if (type === null) return err({ code: 'invalid_provider' });
  return match(type)
    .returnType<Result<readonly string[], OAuthScopesError>>()
    .with('hosta', 'hostb', 'hostccloud', 'hostcserver', 'openidconnect', (oauth) => ok(PROVIDER_SPECS[oauth].scopes(provider)))
    .with('builtin', 'reviewhost', 'http-header', 'saml', (other) => err({ code: 'not_an_oauth_provider', type: other }))
    .exhaustive();
}

/** Why a review host could not be compared with the code host connections. */
export type ReviewhostMatchError =
  /** The value is not a `reviewhost` provider. */
  | { readonly code: 'invalid_provider' }
  /** The provider's `url` is not an absolute `http`/`https` URL. */
  | { readonly code: 'invalid_provider_url'; readonly reason: InvalidUrlReason | 'not_a_string' }
  /** `codeHostConnectionUrls` is not an array. */
  | { readonly code: 'invalid_connection_urls' };

/**
 * Whether a review host provider serves one of the given code host connections (§2.5 reviewhost `url`: "must match
 * the URL of the code host connection that requires authorization"). URLs are compared with scheme and host
 * case-insensitive, a default port (`:80` for http, `:443` for https) the same as none, and trailing slashes of the
 * path ignored; the path, query and fragment are otherwise compared exactly (case-sensitive, no percent-decoding).
 * Connection URLs that are not valid URLs never match.
 *
 * @param provider - A parsed `reviewhost` provider.
 * @param codeHostConnectionUrls - The URLs of the code host connections.
 * @returns `ok(true)` when one connection URL matches, `ok(false)` when none does.
 *
 * @example
 * ```ts
 * reviewhostMatchesConnection(
 *   { type: 'reviewhost', url: 'https://Review.Example.com/', allowSignup: false },
 *   ['https://review.example.com'],
 * ); // ok(true)
 * ```
 */
export function reviewhostMatchesConnection(
  provider: ReviewhostProvider,
  codeHostConnectionUrls: readonly string[],
): Result<boolean, ReviewhostMatchError> {
  if (providerType(provider) !== 'reviewhost') return err({ code: 'invalid_provider' });
  if (!Array.isArray(codeHostConnectionUrls)) return err({ code: 'invalid_connection_urls' });
  const url = ownField(provider, 'url');
  if (typeof url !== 'string') return err({ code: 'invalid_provider_url', reason: 'not_a_string' });
  const connections: readonly unknown[] = codeHostConnectionUrls;
  return parseHttpUrl(url)
    .mapErr((reason): ReviewhostMatchError => ({ code: 'invalid_provider_url', reason }))
    .map((parsed) => {
      const wanted = comparableUrl(parsed);
      return connections.some(
        (candidate) =>
          typeof candidate === 'string' && parseHttpUrl(candidate).match((c) => comparableUrl(c) === wanted, () => false),
      );
    });
}

/** A provider the sign-in page may redirect to at once: a code host (OAuth), OpenID Connect or SAML. */
export type RedirectProvider = CodeHostProvider | OpenIdConnectProvider | SamlProvider;

/** What the sign-in page does. */
export type SignInPageBehavior =
  /** The only sign-in method is one redirect-based provider: send the browser straight to it. */
  | { readonly kind: 'redirect'; readonly provider: RedirectProvider }
  /** Show the page, offering these sign-in providers in configuration order (review hosts left out). */
  | { readonly kind: 'sign_in_page'; readonly providers: readonly AuthProvider[] };

/** Why the sign-in page behaviour could not be decided. */
export type SignInPageBehaviorError =
  /** `providers` is not an array of providers with known types. */
  { readonly code: 'invalid_providers' };

type SignInProvider = Exclude<AuthProvider, ReviewhostProvider>;

function isSignInProvider(provider: AuthProvider): provider is SignInProvider {
  return provider.type !== 'reviewhost';
}

/**
 * Decides whether the sign-in page redirects straight to a provider (§5.3 "Built-in": when OAuth is the only
 * sign-in method, signing out lands on the sign-in page, which starts a new OAuth sign-in at once; enabling built-in
 * sign-in keeps a persistent page). A `reviewhost` is not a sign-in method (it only adds credentials). The page
 * redirects when the only sign-in method is one code host, OpenID Connect or SAML provider; with `builtin` or
 * `http-header` (the proxy signs people in before the page is reached) among the methods, with several methods, or
 * with none, the page is shown.
 *
 * @param providers - The parsed `auth.providers`.
 * @returns `ok` with the behaviour, or `err` when `providers` is not a list of providers.
 *
 * @example
 * ```ts
 * const hostb = { type: 'hostb', url: 'https://hostb.example.com', clientID: 'i', clientSecret: 's',
 *                 allowSignup: true, apiScope: 'api' } as const;
 * signInPageBehavior([hostb]); // ok({ kind: 'redirect', provider: hostb })
 * signInPageBehavior([hostb, { type: 'builtin', allowSignup: false }]);
 * // ok({ kind: 'sign_in_page', providers: [hostb, { type: 'builtin', allowSignup: false }] })
 * ```
 */
export function signInPageBehavior(
  providers: readonly AuthProvider[],
): Result<SignInPageBehavior, SignInPageBehaviorError> {
  if (!Array.isArray(providers)) return err({ code: 'invalid_providers' });
  const entries: readonly unknown[] = providers;
  if (entries.some((entry) => providerType(entry) === null)) return err({ code: 'invalid_providers' });
  const methods = providers.filter(isSignInProvider);
  const page: SignInPageBehavior = { kind: 'sign_in_page', providers: methods };
  const only = methods[0];
  if (only === undefined || methods.length !== 1) return ok(page);
  return ok(
    match(only)
      .returnType<SignInPageBehavior>()
      .with({ type: 'builtin' }, { type: 'http-header' }, () => page)
      .with(
        { type: 'hosta' },
        { type: 'hostb' },
        { type: 'hostccloud' },
        { type: 'hostcserver' },
        { type: 'openidconnect' },
        { type: 'saml' },
        (provider) => ({ kind: 'redirect', provider }),
      )
      .exhaustive(),
  );
}
