/**
 * Every route of the provider package, as {@link Route} values for the server's route table: the sign-in flows
 * of the code hosts, OpenID Connect and SAML, and the "Account security" page.
 *
 * @module
 */
import type { Route } from '../kernel/route.js';
import { codeHostRoutes } from './code-host-routes.js';
import { createFlowContext, type SignInRouteDeps } from './flow-context.js';
import { openIdConnectRoutes } from './openid-connect-routes.js';
import { samlRoutes } from './saml-routes.js';

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
