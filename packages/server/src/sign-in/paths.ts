/**
 * Which provider types are signed in to through routes, and those routes' paths (spec §4 endpoint table, §5.3),
 * from the core's provider registry: the table below has a row for every `ProviderType`, so a provider type the
 * core adds does not compile here until it says how it is signed in to; the callback paths are the core's
 * (`callbackPathOf`). The route modules, the route list and the page links all read it.
 *
 * @module
 */
import { callbackPathOf, type ProviderType } from 'gatehouse-auth';

/**
 * How a provider type is signed in to: through the code host OAuth routes, the OpenID Connect routes, the SAML
 * routes, or through no route of its own (`builtin` has the password pages, `http-header` reads every request,
 * `reviewhost` is the Account security page).
 *
 * @example
 * ```ts
 * const family: RouteFamily = 'code_host';
 * ```
 */
export type RouteFamily = 'code_host' | 'openidconnect' | 'saml' | 'none';

/**
 * The route family of each provider type: exhaustive over the core's provider types.
 *
 * @example
 * ```ts
 * ROUTE_FAMILIES.hostb; // 'code_host'
 * ```
 */
export const ROUTE_FAMILIES: { readonly [T in ProviderType]: RouteFamily } = Object.freeze({
  builtin: 'none',
  hosta: 'code_host',
  hostb: 'code_host',
  hostccloud: 'code_host',
  hostcserver: 'code_host',
  reviewhost: 'none',
  openidconnect: 'openidconnect',
  'http-header': 'none',
  saml: 'saml',
});

/**
 * The provider types of a route family, in the registry's order.
 *
 * @param family - The family.
 * @returns The types.
 * @example
 * ```ts
 * typesOf('code_host'); // ['hosta', 'hostb', 'hostccloud', 'hostcserver']
 * ```
 */
export function typesOf(family: RouteFamily): readonly ProviderType[] {
  return (Object.keys(ROUTE_FAMILIES) as ProviderType[]).filter((type) => ROUTE_FAMILIES[type] === family);
}

/**
 * The login route of a provider type that has routes: where the sign-in page's link sends the browser.
 *
 * @param type - The provider type.
 * @returns `/.auth/<type>/login`.
 * @example
 * ```ts
 * loginPath('saml'); // '/.auth/saml/login'
 * ```
 */
export function loginPath(type: ProviderType): string {
  return `/.auth/${type}/login`;
}

/**
 * The callback route of a provider type: the core's callback path, `''` for a type without one (it has no route).
 *
 * @param type - The provider type.
 * @returns The path.
 * @example
 * ```ts
 * callbackPath('openidconnect'); // '/.auth/callback'
 * ```
 */
export function callbackPath(type: ProviderType): string {
  return callbackPathOf(type) ?? '';
}

/**
 * The paths of the sign-in routes for these providers: each configured type with routes, in the registry's order,
 * its login and callback paths.
 *
 * @param providers - The configured providers' types.
 * @returns The paths.
 * @example
 * ```ts
 * signInRoutePaths([{ type: 'saml' }]); // ['/.auth/saml/login', '/.auth/saml/acs']
 * ```
 */
export function signInRoutePaths(providers: readonly { readonly type: ProviderType }[]): readonly string[] {
  return (Object.keys(ROUTE_FAMILIES) as ProviderType[])
    .filter((type) => ROUTE_FAMILIES[type] !== 'none' && providers.some((p) => p.type === type))
    .flatMap((type) => [loginPath(type), callbackPath(type)]);
}
