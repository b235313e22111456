/**
 * Site administration (spec §1, §2.4, §6): the pages site administrators have under `/site-admin`.
 *
 * @module
 */
import { pageRoute } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route } from '../kernel/route.js';
import { accountLifecycleAdminRoutes } from './account-lifecycle.js';
import { auditLogRoutes } from './audit-log.js';
import { configurationRoutes } from './configuration.js';
import { configurationPreviewRoutes } from './configuration-preview.js';
import type { SiteAdminDeps } from './deps.js';
import { oauthAppRoutes } from './oauth-apps.js';
import { serviceAccountRoutes } from './service-accounts.js';
import { signInCheckRoutes } from './sign-in-check.js';
import { USERS_PATH, usersRoutes } from './users.js';
import { verificationLinkRoutes } from './verification-links.js';
import { accountControlRoutes } from './account-controls.js';

/**
 * The site administration routes: `GET /site-admin` (303 to the Users page), then each page's routes.
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
  return [
    pageRoute(deps, '/site-admin', 'site_admin', async () => redirectResponse(USERS_PATH)),
    ...usersRoutes(deps),
    ...verificationLinkRoutes(deps, deps.emailVerification ?? { mail: null, baseURL: () => deps.listeningURL?.() ?? 'http://127.0.0.1' }),
    ...accountLifecycleAdminRoutes(deps),
    ...accountControlRoutes(deps),
    ...serviceAccountRoutes(deps),
    ...oauthAppRoutes(deps),
    ...auditLogRoutes(deps),
    ...configurationRoutes(deps),
    ...signInCheckRoutes(deps),
    ...configurationPreviewRoutes(deps),
  ];
}
