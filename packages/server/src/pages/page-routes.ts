/**
 * How a page route is built: {@link pageRoute} for a page (`GET`) and {@link formRoute} for a form post
 * (`POST`). Both find the signed-in account (a visitor who is not signed in goes to the sign-in page, a person
 * who is not a site administrator gets 403 on the site administration pages); a form post is refused unless it
 * comes from one of this site's pages (`csrf.ts`). Handlers return a {@link RouteResponse} built with
 * {@link pageResponse}, which sets the pages' Content-Security-Policy and the CSRF cookie.
 *
 * @module
 */
import type { ReactElement } from 'react';
import type { SiteConfiguration } from 'gatehouse-auth';
import { mediaType } from '../kernel/http-io.js';
import { redirectResponse } from '../kernel/respond.js';
import type { ResponseCookie, Route, RouteBody, RouteRequest, RouteResponse } from '../kernel/route.js';
import type { Sessions } from '../session/sessions.js';
import type { Store, UserRecord } from '../store/types.js';
import type { AuditSink } from '../store/audited.js';
import { checkFormPost, CSRF_FIELD, formToken } from './csrf.js';
import { Page, renderPage, type PageNotice, type PageViewer } from './layout.js';
import { createElement } from 'react';

/**
 * What the pages need, built once per site configuration.
 *
 * @example
 * ```ts
 * const deps: PageDeps = { store, now, randomBytes, audit, currentUser, sessions, origin: null, secureCookies: false, configuration };
 * ```
 */
export interface PageDeps {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry (spec §6): every change a page makes is audited, in the change's transaction. */
  readonly audit: AuditSink;
  /** The account the request is signed in to (session cookie or authentication proxy), or `null`. */
  readonly currentUser: (request: RouteRequest) => Promise<UserRecord | null>;
  /** The session layer (cookie sessions), to end and list sessions. */
  readonly sessions: Sessions;
  /** The site's origin (`externalURL`'s), or `null`. */
  readonly origin: string | null;
  /** Whether cookies get `Secure`. */
  readonly secureCookies: boolean;
  /** The effective site configuration. */
  readonly configuration: SiteConfiguration;
}

/**
 * What a page or form handler gets: the request, the signed-in account, the form token, and the cookies to set
 * with the page ({@link pageResponse} adds them).
 *
 * @example
 * ```ts
 * const render = async (ctx: PageContext) => pageResponse(ctx, 200, { title: 'Profile', nav: null, children: null });
 * ```
 */
export interface PageContext {
  /** The request. */
  readonly request: RouteRequest;
  /** The signed-in account. */
  readonly viewer: UserRecord;
  /** The value of every form's hidden `_csrf` field. */
  readonly csrf: string;
  /** The CSRF cookie to set with the page, when the browser had none. */
  readonly cookies: readonly ResponseCookie[];
}

/**
 * The Content-Security-Policy of the pages: nothing but this origin's stylesheet and script, no inline script
 * or style, never framed; forms post to this origin, plus `formActions` (the consent page's redirect URI: a
 * browser applies `form-action` to the redirect that follows a form post).
 *
 * @param formActions - Further form targets (exact URLs), each checked to hold no CSP separator.
 * @returns The header value.
 *
 * @example
 * ```ts
 * pagesCsp([]); // "default-src 'none'; style-src 'self'; script-src 'self'; …"
 * ```
 */
export function pagesCsp(formActions: readonly string[] = []): string {
  const extra = formActions.filter((u) => /^[^\s;,']+$/.test(u));
  return [
    "default-src 'none'",
    "style-src 'self'",
    "script-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self'${extra.map((u) => ` ${u}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * What {@link pageResponse} renders: the shell's props but the viewer and token, which come from the context.
 *
 * @example
 * ```ts
 * const content: PageContent = { title: 'Sessions', nav: settingsNav('/settings/sessions'), children: table };
 * ```
 */
export interface PageContent {
  /** The title. */
  readonly title: string;
  /** The sidebar, or `null`. */
  readonly nav: { readonly title: string; readonly items: readonly { readonly label: string; readonly href: string }[]; readonly current: string } | null;
  /** A message at the top. */
  readonly notice?: PageNotice | null;
  /** The wider single column. */
  readonly wide?: boolean;
  /** The content. */
  readonly children: ReactElement | readonly ReactElement[] | null;
  /** Further `form-action` targets ({@link pagesCsp}). */
  readonly formActions?: readonly string[];
}

/**
 * A page in the shell, as a response: the pages' CSP, `no-store`, and the context's cookies.
 *
 * @param ctx - The page context (viewer, token, cookies), or just the token and cookies on a signed-out page.
 * @param status - HTTP status.
 * @param content - Title, sidebar, notice and content.
 * @returns The response.
 *
 * @example
 * ```ts
 * return pageResponse(ctx, 200, { title: 'Profile', nav: null, children: null });
 * ```
 */
export function pageResponse(
  ctx: Pick<PageContext, 'cookies'> & { readonly csrf: string | null; readonly viewer: PageViewer | null },
  status: number,
  content: PageContent,
): RouteResponse {
  const viewer = ctx.viewer === null ? null : { username: ctx.viewer.username, siteAdmin: ctx.viewer.siteAdmin };
  const html = renderPage(
    createElement(Page, {
      title: content.title,
      viewer,
      csrf: ctx.csrf,
      nav: content.nav,
      notice: content.notice ?? null,
      wide: content.wide ?? false,
      children: content.children,
    }),
  );
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': pagesCsp(content.formActions ?? []),
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'referrer-policy': 'same-origin',
    },
    body: html,
    ...(ctx.cookies.length === 0 ? {} : { cookies: ctx.cookies }),
  };
}

/** Who may open a page. */
export type PageAccess = 'signed_in' | 'site_admin';

/** The largest form a settings page posts: 64 KiB (redirect URI lists are the longest). */
const FORM_LIMIT = 64 * 1024;

/**
 * The body rule of a form route: URL-encoded forms within the limit, never decompressed.
 *
 * @example
 * ```ts
 * const route: Route = { methods: ['POST'], path, body: PAGE_FORM_BODY, handler };
 * ```
 */
export const PAGE_FORM_BODY: RouteBody = Object.freeze({ limit: FORM_LIMIT, contentTypes: ['application/x-www-form-urlencoded'], decompress: false });

/** The sign-in page with this request's path as where to come back. */
function toSignIn(request: RouteRequest): RouteResponse {
  return redirectResponse(`/.auth/sign-in?returnTo=${encodeURIComponent(request.url.pathname + request.url.search)}`);
}

/** A refusal page in the shell (status and text). */
function refusal(deps: PageDeps, request: RouteRequest, viewer: UserRecord | null, status: number, title: string, text: string): RouteResponse {
  const issued = formToken(request, deps.randomBytes, deps.secureCookies);
  return pageResponse(
    { viewer, csrf: issued.token, cookies: issued.cookie === null ? [] : [issued.cookie] },
    status,
    { title, nav: null, notice: { kind: 'error', text }, children: null },
  );
}

/** The context of a request by a signed-in account allowed here, or the response that turns it away. */
async function admit(deps: PageDeps, request: RouteRequest, access: PageAccess): Promise<PageContext | RouteResponse> {
  const viewer = await deps.currentUser(request);
  if (viewer === null) {
    if (request.method === 'GET' || request.method === 'HEAD') return toSignIn(request);
    return refusal(deps, request, null, 401, 'Sign in first', 'Your session ended. Sign in and try again.');
  }
  if (access === 'site_admin' && !viewer.siteAdmin) {
    return refusal(deps, request, viewer, 403, 'Site administrators only', 'Only site administrators may open this page.');
  }
  const issued = formToken(request, deps.randomBytes, deps.secureCookies);
  return { request, viewer, csrf: issued.token, cookies: issued.cookie === null ? [] : [issued.cookie] };
}

const isResponse = (value: PageContext | RouteResponse): value is RouteResponse => 'status' in value;

/**
 * A page: `GET` (and `HEAD`) for a signed-in account (or a site administrator).
 *
 * @param deps - The pages' dependencies.
 * @param path - The exact path.
 * @param access - Who may open it.
 * @param render - Builds the page.
 * @returns The route.
 *
 * @example
 * ```ts
 * pageRoute(deps, '/settings/sessions', 'signed_in', async (ctx) => pageResponse(ctx, 200, content));
 * ```
 */
export function pageRoute(deps: PageDeps, path: string, access: PageAccess, render: (ctx: PageContext) => Promise<RouteResponse>): Route {
  return {
    methods: ['GET'],
    path,
    handler: async (request) => {
      const ctx = await admit(deps, request, access);
      return isResponse(ctx) ? ctx : render(ctx);
    },
  };
}

/**
 * A form post: `POST` of a URL-encoded form from one of this site's pages, by a signed-in account (or a site
 * administrator). A cross-site post is answered 403 and changes nothing.
 *
 * @param deps - The pages' dependencies.
 * @param path - The exact path.
 * @param access - Who may post.
 * @param handle - Acts on the form and builds the answer (a page, or a `303` to one).
 * @returns The route.
 *
 * @example
 * ```ts
 * formRoute(deps, '/settings/tokens/delete', 'signed_in', async (ctx, form) => redirectResponse('/settings/tokens?done=deleted'));
 * ```
 */
export function formRoute(
  deps: PageDeps,
  path: string,
  access: PageAccess,
  handle: (ctx: PageContext, form: URLSearchParams) => Promise<RouteResponse>,
): Route {
  return {
    methods: ['POST'],
    path,
    body: PAGE_FORM_BODY,
    handler: async (request) => {
      const ctx = await admit(deps, request, access);
      if (isResponse(ctx)) return ctx;
      const form =
        request.body !== null && mediaType(request.headers['content-type']) === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(request.body)
          : new URLSearchParams();
      const checked = checkFormPost(request, form.get(CSRF_FIELD), deps.origin);
      if (checked.isErr()) {
        return refusal(deps, request, ctx.viewer, 403, 'Form refused', 'This form did not come from this site, or the page was too old. Go back, reload the page and try again.');
      }
      return handle(ctx, form);
    },
  };
}

/**
 * The notice a page shows after a form post redirected to it with `?done=<code>`: only codes the page knows are
 * shown, so a link cannot make a page say anything else.
 *
 * @param request - The page request.
 * @param texts - The page's codes and their texts.
 * @returns The notice, or `null`.
 *
 * @example
 * ```ts
 * doneNotice(request, { deleted: 'The token was deleted.' });
 * ```
 */
export function doneNotice(request: RouteRequest, texts: Readonly<Record<string, string>>): PageNotice | null {
  const code = request.url.searchParams.get('done');
  if (code === null || !Object.hasOwn(texts, code)) return null;
  const text = texts[code];
  return text === undefined ? null : { kind: 'ok', text };
}

/**
 * A small page in the shell with a title, a message and a link back to the sign-in page: how a sign-in flow
 * that stopped (a provider refused, a state expired) answers a person.
 *
 * @param status - HTTP status.
 * @param title - Page title.
 * @param message - Text shown to the person.
 * @param headers - Extra headers (such as `retry-after`).
 * @returns The response value.
 *
 * @example
 * ```ts
 * messagePage(403, 'Sign-in failed', 'Your account cannot sign in here.');
 * ```
 */
export function messagePage(status: number, title: string, message: string, headers: Readonly<Record<string, string>> = {}): RouteResponse {
  const page = pageResponse({ viewer: null, csrf: null, cookies: [] }, status, {
    title,
    nav: null,
    notice: { kind: 'error', text: message },
    children: createElement('p', null, createElement('a', { href: '/.auth/sign-in' }, 'Back to sign-in')),
  });
  return { ...page, headers: { ...page.headers, ...headers } };
}
