/**
 * What the settings pages share: their sidebar.
 *
 * @module
 */
import { SETTINGS_NAV } from '../pages/layout.js';
import type { PageContent } from '../pages/page-routes.js';

/**
 * The settings sidebar with `current` marked as the page shown.
 *
 * @param current - The path of the page shown.
 * @returns The sidebar of {@link PageContent}.
 *
 * @example
 * ```ts
 * pageResponse(ctx, 200, { title: 'Sessions', nav: settingsNav('/settings/sessions'), children });
 * ```
 */
export function settingsNav(current: string): PageContent['nav'] {
  return { title: 'Settings', items: SETTINGS_NAV, current };
}

