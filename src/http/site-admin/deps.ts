/**
 * What the site administration pages need besides the pages' common dependencies.
 *
 * @module
 */
import type { OAuthIdp } from '../oauth-idp.js';
import type { PageDeps } from '../pages/page-routes.js';

/**
 * The site administration pages' dependencies.
 *
 * @example
 * ```ts
 * const deps: SiteAdminDeps = { ...pageDeps, registerOAuthApp: (input) => idp.registerApp(input) };
 * ```
 */
export interface SiteAdminDeps extends PageDeps {
  /** Registers an OAuth app; the client secret is returned this once (spec §2.4). */
  readonly registerOAuthApp: OAuthIdp['registerApp'];
}
