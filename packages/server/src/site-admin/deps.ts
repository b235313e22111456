/**
 * What the site administration pages need besides the pages' common dependencies.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { OAuthAppInput, OAuthAppRefusal } from '../oauth-server/contract.js';
import type { PageDeps } from '../pages/page-routes.js';
import type { Store } from '../store/types.js';
import type { LogEntry } from '../kernel/logging.js';
import type { RejectedReload } from './rejected-reload.js';
import type { VerificationLinkDeps } from './verification-links.js';
import type { PasswordResetLinkMaker } from '../operations/password-reset.js';
import type { ConfigurationPreview } from '../operations/configuration-preview.js';

/**
 * The site administration pages' dependencies.
 *
 * @example
 * ```ts
 * const deps: SiteAdminDeps = {
 *   ...pageDeps,
 *   registerOAuthApp: (input, into) => idp.registerApp(input, into),
 *   rotateOAuthAppSecret: (clientId, into) => idp.rotateSecret(clientId, into),
 * };
 * ```
 */
export interface SiteAdminDeps extends PageDeps {
  /** Registers an OAuth app; the client secret is returned this once (spec §2.4). */
  readonly registerOAuthApp: (input: OAuthAppInput, into?: Store) => Promise<Result<{ clientId: string; clientSecret: string }, OAuthAppRefusal>>;
  /** Gives an OAuth app a new client secret, returned this once; the old one stops working at once. */
  readonly rotateOAuthAppSecret: (clientId: string, into?: Store) => Promise<Result<{ clientSecret: string }, OAuthAppRefusal>>;
  /**
   * The address the server listens on, once it does: the configuration page checks `externalURL` against it and
   * derives the callback addresses from it when `externalURL` is unset. Default: unknown.
   */
  readonly listeningURL?: () => string | null;
  /**
   * The start-time checks of the configuration against the address the server is reached at (`externalURL`, each
   * provider's callback and public addresses), as the log entries `gatehouse serve` prints. Default: none.
   */
  readonly startChecks?: (listeningURL: string) => readonly LogEntry[];
  /** The last reload the server refused, until a valid configuration applies. Default: none. */
  readonly rejectedReload?: () => RejectedReload | null;
  /** Where the verification links an administrator makes are mailed from and made on. Default: not mailed, made on the listening address. */
  readonly emailVerification?: VerificationLinkDeps;
  /** Makes a password reset link as a site administrator (Users, "Make a password reset link"). Default: none. */
  readonly passwordResetLink?: PasswordResetLinkMaker;
  /** Previews a candidate configuration against the running one and every stored account. Default: none (no preview form). */
  readonly previewConfiguration?: (text: string) => Promise<ConfigurationPreview>;
}
