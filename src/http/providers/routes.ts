/**
 * Every route of the provider package, as {@link Route} values for the server's route table: the sign-in flows
 * of the code hosts, OpenID Connect and SAML, and the "Account security" page.
 *
 * @module
 */
import type { AuthProvider } from '../../core/auth-providers.js';
import type { Route } from '../route.js';
import { accountSecurityRoutes, type AccountSecurityDeps } from './account-security.js';
import { CODE_HOST_TYPES, codeHostRoutes } from './code-host-routes.js';
import { createFlowContext, type SignInRouteDeps } from './flow-context.js';
import { openIdConnectRoutes } from './openid-connect-routes.js';
import { samlRoutes } from './saml-routes.js';

/**
 * What the provider routes need, built once by the server, in order, and passed down:
 *
 * - the configuration: `providers`, `externalURL`, `publicURLs`, `pendingSignIns`, `stateTtlMs`,
 *   `codeHostConnectionUrls`, `origin`, `credentialsKey`;
 * - the platform: `store` (any `Store`), `now`, `randomBytes`, `fetch`, `upstreamTimeoutMs`, `audit`;
 * - the session layer: `currentUserId`/`currentUser` (who the request is signed in as), `startSession`, and
 *   the pages' `sessions`, `secureCookies` and `configuration` ("Account security" is a settings page);
 * - the sign-in flow: `signIn` (decide with the core, write to the store).
 *
 * @example
 * ```ts
 * const routes = providerRoutes({ ...signInDeps, ...pageDeps, providers, credentialsKey, codeHostConnectionUrls });
 * ```
 */
export type ProviderRouteDeps = SignInRouteDeps & AccountSecurityDeps;

/**
 * The sign-in routes of the configured providers (only the types that are configured): `GET
 * /.auth/<hosta|hostb|hostccloud|hostcserver|openidconnect|saml>/login`, the code hosts' `GET
 * /.auth/<type>/callback`, OpenID Connect's `GET /.auth/callback` and SAML's `POST /.auth/saml/acs`.
 *
 * @param deps - The dependencies.
 * @returns The routes.
 * @example
 * ```ts
 * signInRoutes(deps).map((r) => r.path); // ['/.auth/hosta/login', '/.auth/hosta/callback', …]
 * ```
 */
export function signInRoutes(deps: SignInRouteDeps): readonly Route[] {
  const ctx = createFlowContext(deps);
  return [...codeHostRoutes(ctx), ...openIdConnectRoutes(ctx), ...samlRoutes(ctx)];
}

/**
 * The paths of {@link signInRoutes} for these providers, in the same order: they depend on the configured
 * provider types only.
 *
 * @param providers - The configured providers.
 * @returns The paths.
 * @example
 * ```ts
 * signInRoutePaths([{ type: 'saml', entryPoint, idpCertificate, allowSignup: true }]); // ['/.auth/saml/login', '/.auth/saml/acs']
 * ```
 */
export function signInRoutePaths(providers: readonly AuthProvider[]): readonly string[] {
  const has = (type: AuthProvider['type']): boolean => providers.some((p) => p.type === type);
  return [
    ...CODE_HOST_TYPES.flatMap((type) => (has(type) ? [`/.auth/${type}/login`, `/.auth/${type}/callback`] : [])),
    ...(has('openidconnect') ? ['/.auth/openidconnect/login', '/.auth/callback'] : []),
    ...(has('saml') ? ['/.auth/saml/login', '/.auth/saml/acs'] : []),
  ];
}

/**
 * Every provider route: {@link signInRoutes} and the "Account security" routes.
 *
 * @param deps - The dependencies.
 * @returns The routes, for the server's route table.
 * @example
 * ```ts
 * const table = [...otherRoutes, ...providerRoutes(deps)];
 * ```
 */
export function providerRoutes(deps: ProviderRouteDeps): readonly Route[] {
  return [...signInRoutes(deps), ...accountSecurityRoutes(deps)];
}
