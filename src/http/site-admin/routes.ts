/**
 * Site administration (spec §1, §2.4, §6): the pages site administrators have under `/site-admin`.
 *
 * @module
 */
import type { Route } from '../route.js';
import { auditLogRoutes } from './audit-log.js';
import { configurationRoutes } from './configuration.js';
import type { SiteAdminDeps } from './deps.js';
import { oauthAppRoutes } from './oauth-apps.js';

/**
 * The site administration routes.
 *
 * @param deps - The pages' dependencies and the OAuth app registry.
 * @returns The routes.
 *
 * @example
 * ```ts
 * siteAdminRoutes(deps).map((r) => r.path);
 * ```
 */
export function siteAdminRoutes(deps: SiteAdminDeps): readonly Route[] {
  return [...oauthAppRoutes(deps), ...auditLogRoutes(deps), ...configurationRoutes(deps)];
}
