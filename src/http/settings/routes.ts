/**
 * The settings area (spec §1, §2.3, §5.3): the pages every signed-in account has under `/settings`.
 *
 * @module
 */
import type { Route } from '../route.js';
import type { PageDeps } from '../pages/page-routes.js';

/**
 * The settings area's routes.
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
  void deps;
  return [];
}
