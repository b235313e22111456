/**
 * The route table: every route the server answers, in one list of `{ methods, path, handler }`. The router
 * (`router.ts`) matches a request against it: exact paths before prefixes (`/*`), then table order; a known
 * path asked with another method is `405` with `Allow`, any other path `404`.
 *
 * @module
 */
import { CONSOLE_ROUTE_PATHS } from './console/console.js';
import { GRAPHQL_PATH, graphqlBody } from './api/endpoint.js';
import { OAUTH_FORM_BODY, OAUTH_PATHS } from './oauth-server/server.js';
import type { OAuthIdpHandlers } from './oauth-server/server.js';
import { PAGE_FORM_BODY } from './pages/page-routes.js';
import { PASSWORD_FORM_BODY, SIGN_IN_PATH, SIGN_OUT_PATH, SIGN_UP_PATH } from './sign-in/password.js';
import type { PasswordHandlers } from './sign-in/password.js';
import { jsonResponse } from './kernel/respond.js';
import type { Route, RouteRequest, RouteResponse } from './kernel/route.js';
import type { RouteTableEntry, StreamRoute } from './kernel/router.js';

/** A route's handler. */
type Handler = (request: RouteRequest) => Promise<RouteResponse>;

/**
 * The paths of the probes: never authenticated, never refused for their `Host` (a load balancer asks by address).
 *
 * @example
 * ```ts
 * PROBE_PATHS.includes('/healthz'); // true
 * ```
 */
export const PROBE_PATHS: readonly string[] = Object.freeze(['/healthz', '/readyz']);

/**
 * The handlers the table is made of, built once, in order, by the server.
 *
 * @example
 * ```ts
 * const table = routeTable({ graphql, maxBodyBytes, password, idp, home, console: consoleParts, ready, hostRoutes: [], providers });
 * ```
 */
export interface RouteTableParts {
  /** `GET`/`POST /.api/graphql` (spec §4). */
  readonly graphql: Handler;
  /** Largest accepted API request body in bytes. */
  readonly maxBodyBytes: number;
  /** The built-in password pages and forms (§5.3 "Built-in"). */
  readonly password: PasswordHandlers;
  /** The OAuth authorization server (§2.4). */
  readonly idp: OAuthIdpHandlers;
  /** `GET /`: the settings area for a signed-in visitor, else the sign-in page. */
  readonly home: Handler;
  /** The debug console's page and assets. */
  readonly console: { readonly page: Handler; readonly asset: Handler };
  /** Whether the server can serve (`GET /readyz`). */
  readonly ready: () => Promise<boolean>;
  /** Routes the host adds (`GatehouseServerOptions.routes`). */
  readonly hostRoutes: readonly StreamRoute[];
  /** The providers' routes: the sign-in flows of `auth.providers` (login, callbacks, SAML ACS) and "Account security". */
  readonly providers: readonly Route[];
  /** The pages: the settings area, site administration and their assets. */
  readonly pages: readonly Route[];
}

/** A probe's answer: up or not, nothing else. */
function probe(up: boolean): RouteResponse {
  return jsonResponse(up ? 200 : 503, { status: up ? 'ok' : 'unavailable' }, { 'cache-control': 'no-store' });
}

/**
 * Every route of the server.
 *
 * @param parts - The handlers.
 * @returns The route table.
 *
 * @example
 * ```ts
 * await route(routeTable(parts), req, res, url, requestId, { base, log });
 * ```
 */
export function routeTable(parts: RouteTableParts): readonly RouteTableEntry[] {
  const { password, idp } = parts;
  return [
    { methods: ['GET', 'POST'], path: GRAPHQL_PATH, body: graphqlBody(parts.maxBodyBytes), handler: parts.graphql },

    { methods: ['GET'], path: SIGN_IN_PATH, handler: password.signInPage },
    { methods: ['POST'], path: SIGN_IN_PATH, body: PASSWORD_FORM_BODY, handler: password.signIn },
    { methods: ['GET'], path: SIGN_UP_PATH, handler: password.signUpPage },
    { methods: ['POST'], path: SIGN_UP_PATH, body: PASSWORD_FORM_BODY, handler: password.signUp },
    { methods: ['GET'], path: SIGN_OUT_PATH, handler: password.signOutPage },
    { methods: ['POST'], path: SIGN_OUT_PATH, body: PASSWORD_FORM_BODY, handler: password.signOut },

    { methods: ['GET'], path: OAUTH_PATHS.authorize, handler: idp.authorize },
    { methods: ['POST'], path: OAUTH_PATHS.authorize, body: PAGE_FORM_BODY, handler: idp.consent },
    { methods: ['POST'], path: OAUTH_PATHS.token, body: OAUTH_FORM_BODY, handler: idp.token },
    { methods: ['POST'], path: OAUTH_PATHS.revoke, body: OAUTH_FORM_BODY, handler: idp.revoke },
    { methods: ['GET'], path: OAUTH_PATHS.metadata, handler: idp.metadata },

    { methods: ['GET'], path: '/healthz', handler: async () => probe(true) },
    { methods: ['GET'], path: '/readyz', handler: async () => probe(await parts.ready()) },

    { methods: ['GET'], path: '/', handler: parts.home },
    { methods: ['GET'], path: CONSOLE_ROUTE_PATHS.page, handler: parts.console.page },
    { methods: ['GET'], path: CONSOLE_ROUTE_PATHS.pageSlash, handler: parts.console.page },
    { methods: ['GET'], path: CONSOLE_ROUTE_PATHS.assets, handler: parts.console.asset },

    ...parts.providers,

    ...parts.pages,

    ...parts.hostRoutes,
  ];
}
