/**
 * The 404 page of the settings and site administration pages: a page or form named something that is not there
 * (an old link, or a record deleted meanwhile). It says what was not found and links back to the list.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { pageResponse } from './page-routes.js';
import type { PageContent, PageContext } from './page-routes.js';
import type { RouteResponse } from '../kernel/route.js';

/**
 * A 404 page in the shell: the title, the sidebar, what was not found as an error notice, and a link back.
 *
 * @param ctx - The page context.
 * @param page - The title, the sidebar, the text of the notice and where the link back goes and what it says.
 * @returns The `404` response.
 *
 * @example
 * ```ts
 * return notFoundPage(ctx, { title: 'Token not found', nav: settingsNav(TOKENS_PATH), text: 'There is no such token among yours.', back: { href: TOKENS_PATH, label: 'Back to your access tokens' } });
 * ```
 */
export function notFoundPage(
  ctx: PageContext,
  page: { readonly title: string; readonly nav: PageContent['nav']; readonly text: string; readonly back: { readonly href: string; readonly label: string } },
): RouteResponse {
  const children: ReactElement = (
    <p>
      <a href={page.back.href}>{page.back.label}</a>
    </p>
  );
  return pageResponse(ctx, 404, { title: page.title, nav: page.nav, notice: { kind: 'error', text: page.text }, children });
}
