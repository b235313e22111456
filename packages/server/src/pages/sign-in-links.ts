/**
 * The links of the sign-in page (spec §5.3 "Built-in"): one per configured provider that is signed in to through
 * a login route, in the order of their `order` field, and the one the page redirects to at once when it is the only way in.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { AuthProvider, ProviderType } from 'gatehouse-auth';
import { signInOffer, signInPageBehavior } from 'gatehouse-auth';
import type { SignInPageLink } from '../session/sessions.js';
import { loginPath } from '../sign-in/paths.js';

const TYPE_LABELS: Readonly<Record<ProviderType, string>> = {
  builtin: 'Password',
  hosta: 'Host A',
  hostb: 'Host B',
  hostccloud: 'Host C Cloud',
  hostcserver: 'Host C Server',
  reviewhost: 'Review host',
  openidconnect: 'OpenID Connect',
  'http-header': 'Authentication proxy',
  saml: 'SAML',
};

/**
 * The sign-in link of a provider, or `null` for one that is not signed in to through a link.
 *
 * @param provider - The provider.
 * @param index - Its index in `auth.providers`.
 * @returns The link.
 * @internal
 */
export function signInLinkOf(provider: AuthProvider, index: number): SignInPageLink | null {
  const label = provider.displayName ?? TYPE_LABELS[provider.type];
  return match(provider)
    .returnType<SignInPageLink | null>()
    .with({ type: 'hosta' }, { type: 'hostb' }, { type: 'hostccloud' }, { type: 'hostcserver' }, (p) => ({
      label,
      loginPath: `${loginPath(p.type)}?provider=${index}`,
    }))
    .with({ type: 'openidconnect' }, () => ({ label, loginPath: `${loginPath('openidconnect')}?provider=${index}` }))
    .with({ type: 'saml' }, () => ({ label, loginPath: `${loginPath('saml')}?provider=${index}` }))
    .with({ type: 'builtin' }, { type: 'http-header' }, { type: 'reviewhost' }, () => null)
    .exhaustive();
}

/**
 * The sign-in page's provider links (`builtin`, `http-header` and `reviewhost` have none): the entries the core's
 * `signInOffer` keeps (not `hidden`, not `noSignIn`), sorted by their `order`.
 *
 * @param providers - The configured providers.
 * @returns The links.
 * @example
 * ```ts
 * signInLinks([{ type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup: true }]);
 * // [{ label: 'Host A', loginPath: '/.auth/hosta/login?provider=0' }]
 * ```
 */
export function signInLinks(providers: readonly AuthProvider[]): readonly SignInPageLink[] {
  return signInOffer(providers).flatMap(({ provider, index }) => {
    const link = signInLinkOf(provider, index);
    return link === null ? [] : [link];
  });
}

/**
 * The links Account security offers to connect another identity: every provider with a login route, `hidden` and
 * `noSignIn` ones included (a `noSignIn` provider only links; a `hidden` one is only off the sign-in page), in the
 * order of their `order` field.
 *
 * @param providers - The configured providers.
 * @returns The links.
 * @example
 * ```ts
 * linkProviderLinks([{ type: 'hostb', url, clientID, clientSecret, allowSignup: true, apiScope: 'api', noSignIn: true }]);
 * // [{ label: 'Host B', loginPath: '/.auth/hostb/login?provider=0' }]
 * ```
 */
export function linkProviderLinks(providers: readonly AuthProvider[]): readonly SignInPageLink[] {
  // signInOffer without its filter: every entry shown, sorted the same way
  const shown = providers.map((provider) => ({ ...provider, hidden: false, noSignIn: false }));
  return signInOffer(shown).flatMap(({ index }) => {
    const provider = providers[index];
    const link = provider === undefined ? null : signInLinkOf(provider, index);
    return link === null ? [] : [link];
  });
}

/**
 * The login route the sign-in page redirects to at once (`signInPageBehavior` says `redirect`), or `null`.
 *
 * @param providers - The configured providers.
 * @returns The link, or `null`.
 * @example
 * ```ts
 * signInRedirect([{ type: 'saml', entryPoint, idpCertificate, allowSignup: true }]);
 * // { label: 'SAML', loginPath: '/.auth/saml/login?provider=0' }
 * ```
 */
export function signInRedirect(providers: readonly AuthProvider[]): SignInPageLink | null {
  // only the providers the page offers count: a hidden or noSignIn one is never where the page sends people
  const behavior = signInPageBehavior(signInOffer(providers).map((o) => o.provider));
  return behavior.isOk() && behavior.value.kind === 'redirect' ? signInLinkOf(behavior.value.provider, providers.indexOf(behavior.value.provider)) : null;
}
