/**
 * The settings area (spec §1, §2.3, §5.3): the pages every signed-in account has under `/settings`. The
 * "Account security" page (`/settings/security`) lives with the providers; "Debug console" is the console's own.
 *
 * @module
 */
import type { Route } from '../kernel/route.js';
import type { PageDeps } from '../pages/page-routes.js';
import { passwordRoutes } from './password.js';
import { profileRoutes } from './profile.js';
import { sessionRoutes } from './sessions.js';
import { tokenRoutes } from './tokens.js';

/**
 * The settings area's routes: profile, password, access tokens and sessions.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * settingsRoutes(deps).map((r) => r.path);
 * ```
 */
export function settingsRoutes(deps: PageDeps): readonly Route[] {
  return [...profileRoutes(deps), ...passwordRoutes(deps), ...tokenRoutes(deps), ...sessionRoutes(deps)];
}
