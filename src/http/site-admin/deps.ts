/**
 * What the site administration pages need besides the pages' common dependencies.
 *
 * @module
 */
import type { OAuthIdp } from '../oauth-idp.js';
import type { OptionalPeerProblem } from '../optional-peers.js';
import type { PageDeps } from '../pages/page-routes.js';
import type { PublicCodeHostURLs } from '../providers/code-hosts.js';
import type { RejectedReload } from '../rejected-reload.js';

/**
 * The site administration pages' dependencies.
 *
 * @example
 * ```ts
 * const deps: SiteAdminDeps = {
 *   ...pageDeps,
 *   registerOAuthApp: (input) => idp.registerApp(input),
 *   rotateOAuthAppSecret: (clientId) => idp.rotateSecret(clientId),
 * };
 * ```
 */
export interface SiteAdminDeps extends PageDeps {
  /** Registers an OAuth app; the client secret is returned this once (spec §2.4). */
  readonly registerOAuthApp: OAuthIdp['registerApp'];
  /** Gives an OAuth app a new client secret, returned this once; the old one stops working at once. */
  readonly rotateOAuthAppSecret: OAuthIdp['rotateSecret'];
  /**
   * The address the server listens on, once it does: the configuration page checks `externalURL` against it and
   * derives the callback addresses from it when `externalURL` is unset. Default: unknown.
   */
  readonly listeningURL?: () => string | null;
  /** The public code host addresses `hosta`/`hostccloud` entries without `url` use. Default: the built-in ones. */
  readonly publicCodeHostURLs?: PublicCodeHostURLs;
  /** The optional peer packages the configuration needs but the installation lacks. Default: `checkOptionalPeers`. */
  readonly optionalPeerProblems?: () => Promise<readonly OptionalPeerProblem[]>;
  /** The last reload the server refused, until a valid configuration applies. Default: none. */
  readonly rejectedReload?: () => RejectedReload | null;
}
