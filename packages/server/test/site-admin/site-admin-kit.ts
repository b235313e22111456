/**
 * The page kit with the site administration dependencies: a real OAuth server over the kit's store (app
 * registration and secret rotation), and the site administration routes.
 */
import { createOAuthIdp } from '../../src/oauth-server/server.js';
import type { OAuthIdp } from '../../src/oauth-server/server.js';
import type { Route, RouteRequest } from '../../src/kernel/route.js';
import { DEFAULT_PUBLIC_CODE_HOST_URLS } from '../../src/providers/code-hosts.js';
import { checkStart } from '../../src/providers/start-checks.js';
import type { SiteAdminDeps } from '../../src/site-admin/deps.js';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import type { UserRecord } from '../../src/store/types.js';
import { pageKit } from '../helpers/page-kit.js';
import type { PageKit, PageKitOptions } from '../helpers/page-kit.js';

/** What {@link siteAdminKit} gives a test. */
export interface SiteAdminKit {
  readonly kit: PageKit;
  readonly idp: OAuthIdp;
  readonly deps: SiteAdminDeps;
  readonly routes: readonly Route[];
  /** A site administrator (`root`). */
  readonly admin: UserRecord;
  /** A member who is not one (`alice`). */
  readonly member: UserRecord;
}

/** The options of {@link siteAdminKit}: the page kit's, and the configuration page's inputs. */
export interface SiteAdminKitOptions extends PageKitOptions {
  readonly listeningURL?: string | null;
}

export async function siteAdminKit(options: SiteAdminKitOptions = {}): Promise<SiteAdminKit> {
  const kit = await pageKit(options);
  const idp = createOAuthIdp({
    store: kit.store.oauth,
    now: kit.clock.now,
    randomBytes: kit.deps.randomBytes,
    authenticateBrowser: async () => null,
    signInPath: '/.auth/sign-in',
  });
  const listening = options.listeningURL ?? null;
  const deps: SiteAdminDeps = {
    ...kit.deps,
    registerOAuthApp: (input, into) => idp.registerApp(input, into),
    rotateOAuthAppSecret: (clientId, into) => idp.rotateSecret(clientId, into),
    listeningURL: () => listening,
    startChecks: (listeningURL) => checkStart({ configuration: kit.deps.configuration, listeningURL, publicURLs: DEFAULT_PUBLIC_CODE_HOST_URLS }),
  };
  const admin = await kit.createUser('root', { siteAdmin: true });
  const member = await kit.createUser('alice');
  return { kit, idp, deps, routes: siteAdminRoutes(deps), admin, member };
}

/**
 * A revocation request (RFC 7009) authenticated with `client_secret_post`: the idp answers 200 for any token when
 * the client authenticates, and 401 `invalid_client` when it does not. It shows whether a client secret works.
 */
export function revocationRequest(clientId: string, clientSecret: string): RouteRequest {
  const headers = { host: 'gatehouse.test', 'content-type': 'application/x-www-form-urlencoded' };
  return {
    method: 'POST',
    url: new URL('http://gatehouse.test/.auth/idp/oauth/revoke'),
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'test',
    body: new URLSearchParams({ token: 'not-a-token', client_id: clientId, client_secret: clientSecret }).toString(),
  };
}
