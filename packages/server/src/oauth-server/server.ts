/**
 * The OAuth 2.0 authorization server of gatehouse (`/.auth/idp/oauth/authorize` and `/.auth/idp/oauth/token`) on `node:http`, with its store; every decision is made by `core/oauth-authorization`.
 *
 * Flow: the authorization code grant with PKCE (S256 only) for confidential clients that a site
 * administrator registered (`client_secret_basic` or `client_secret_post`). At the authorize step a
 * user who is not signed in is sent to the sign-in page and comes back; a signed-in user approves or
 * denies the app on a consent page, and an approval is remembered per account, app and scope (the
 * same request later gets its code at once; "Account security" revokes it). Access tokens are
 * short-lived (default 3600 s); refresh tokens rotate on every use; a replayed refresh token or
 * authorization code revokes its whole family, access tokens included (RFC 9700 §4.14.2).
 *
 * The adapter only translates: request → plain input, lookups in the store, core decision →
 * store write (an atomic compare-and-set) and HTTP response.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import {
  decideOAuthAccessTokenUse,
  resolveAccessTokenTtl,
  validateOAuthAppRegistration,
} from 'gatehouse-auth';
import type { OAuthAppRegistrationError } from 'gatehouse-auth';
import { registrationMessage } from './errors.js';
import type { ConsentPageOptions } from './consent.js';
import { digestOf, handleAuthorize, handleConsent, handleMetadata, handleRevocation, handleToken, lookupDigest, secret } from './handlers.js';
import type { IdpContext, OAuthIdpHandlers } from './handlers.js';
import type { OAuthAppInput, OAuthAppRefusal } from './contract.js';
import type { RouteRequest } from '../kernel/route.js';
import type { OAuthStore, Store } from '../store/types.js';
import { auditedTransaction } from '../store/audited.js';

export { OAUTH_FORM_BODY } from './handlers.js';
export { OAUTH_METADATA_PATH, OAUTH_PATHS } from './contract.js';
export type { OAuthAppInput, OAuthAppRefusal } from './contract.js';
export type { OAuthIdpHandlers } from './handlers.js';
export type { ConsentPageOptions } from './consent.js';

// ---------------------------------------------------------------------------------------------
// Store

export type { IssuedOAuthTokens, OAuthAppRecord, OAuthStore, StoredOAuthAccessToken, StoredRefreshToken } from '../store/types.js';

// ---------------------------------------------------------------------------------------------
// Options and result

/**
 * What {@link createOAuthIdp} needs.
 *
 * @example
 * ```ts
 * const options: OAuthIdpOptions = {
 *   store: createMemoryStore().oauth, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)),
 *   authenticateBrowser: async (req) => sessions.userOf(req), signInPath: '/.auth/sign-in',
 *   pages: { randomBytes, secureCookies: true, origin: 'https://search.example.com' },
 * };
 * ```
 */
export interface OAuthIdpOptions {
  /** Where apps, codes and tokens live. */
  readonly store: OAuthStore;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** A CSPRNG: `n` random bytes. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Lifetime of access tokens in seconds (1 to 86400). Default 3600. */
  readonly accessTokenTtlSeconds?: number;
  /** The signed-in browser user of a request (session cookie), or `null`. */
  readonly authenticateBrowser: (req: RouteRequest) => Promise<OAuthBrowserUser | null>;
  /** The sign-in page; it receives `?returnTo=<path and query>` and sends the user back there. */
  readonly signInPath: string;
  /**
   * Whether an account may be given tokens now (not suspended); a code or refresh token of an account that may
   * not is refused as `invalid_grant`, keeping the token. Default: every account may.
   */
  readonly accountUsable?: (userId: string) => Promise<boolean>;
  /**
   * The whole store `store` is part of. With it, every change the server audits (a code redeemed, a token family
   * revoked, a consent granted) is written in one of its transactions together with its audit entry, and is undone
   * when the entry cannot be written.
   */
  readonly transactionStore?: Store;
  /**
   * Where security events go (the server's audit log); none are recorded without it. `into` is the store of the
   * change's transaction (with {@link OAuthIdpOptions.transactionStore}), else `null`. A rejection fails the
   * request and, in a transaction, undoes the change.
   */
  readonly audit?: (entry: OAuthAuditEntry | OAuthConsentAuditEntry, into: Store | null) => Promise<void>;
  /**
   * The issuer identifier published in the metadata (RFC 8414 §2): the site's `externalURL`, or the address the
   * server listens on; `null` when neither is known yet (the metadata then names the request's `Host`).
   */
  readonly issuer?: () => string | null;
  /**
   * What the consent page needs of the pages: the random source of form-token cookies, whether cookies get
   * `Secure`, and the site's origin. Default: `randomBytes`, not `Secure`, no origin (the request's `Host`).
   */
  readonly pages?: ConsentPageOptions;
}

/**
 * The signed-in browser user as the authorize endpoint needs it: the account id, and the name and role the
 * consent page shows.
 *
 * @example
 * ```ts
 * const user: OAuthBrowserUser = { userId: 'u1', username: 'alice', siteAdmin: false };
 * ```
 */
export interface OAuthBrowserUser {
  /** The account id. */
  readonly userId: string;
  /** The username shown on the consent page. */
  readonly username: string;
  /** Whether the page header links to site administration. */
  readonly siteAdmin: boolean;
}

/**
 * A security event of the authorization server, in the shape of the server's audit log entries. It never
 * holds a secret: no token, code, verifier or client secret, only account ids and a fixed reason.
 *
 * @example
 * ```ts
 * const entry: OAuthAuditEntry = {
 *   entity: 'oauth.token', action: 'revoked', reason: 'refresh token reused', actorUserId: null, subjectUserId: 'u1',
 * };
 * ```
 */
export interface OAuthAuditEntry {
  /** Always `oauth.token`. */
  readonly entity: 'oauth.token';
  /** `issued`: an authorization code was redeemed (a new token family); `revoked`: a family or an access token was revoked. */
  readonly action: 'issued' | 'revoked';
  /**
   * Why: `authorization code grant`, which replay revoked the family (RFC 9700 §4.14.2), or the app asked at the
   * revocation endpoint (RFC 7009) for its refresh token's family or one access token.
   */
  readonly reason:
    | 'authorization code grant'
    | 'refresh token reused'
    | 'authorization code reused'
    | 'refresh token revoked by client'
    | 'access token revoked by client';
  /** Who acted: the user for `issued`; `null` for `revoked` (a replayer is unknown; an app is not an account). */
  readonly actorUserId: string | null;
  /** The user whose tokens these are. */
  readonly subjectUserId: string;
}

/**
 * A decision on the consent page, in the shape of the server's audit log entries: the account approved
 * (`granted`, the approval is remembered) or refused (`denied`) an app's request.
 *
 * @example
 * ```ts
 * const entry: OAuthConsentAuditEntry = {
 *   entity: 'oauth.consent', action: 'granted', reason: null, actorUserId: 'u1', subjectUserId: 'u1',
 *   details: { clientId: 'gai_…', scopes: 'user:all' },
 * };
 * ```
 */
export interface OAuthConsentAuditEntry {
  /** Always `oauth.consent`. */
  readonly entity: 'oauth.consent';
  /** `granted` or `denied`. */
  readonly action: 'granted' | 'denied';
  /** None: the action says it. */
  readonly reason: null;
  /** The account deciding. */
  readonly actorUserId: string;
  /** The same account. */
  readonly subjectUserId: string;
  /** The app's client id and the requested scopes, space-separated. */
  readonly details: { readonly clientId: string; readonly scopes: string };
}

/**
 * The authorization server.
 *
 * @example
 * ```ts
 * const idp: OAuthIdp = createOAuthIdp(options);
 * http.createServer(async (req, res) => {
 *   const url = new URL(req.url ?? '/', 'http://localhost');
 *   if (await idp.handle(req, res, url)) return;
 *   // … other routes
 * });
 * ```
 */
export interface OAuthIdp {
  /** The handlers of the authorization server's routes; the route table names their paths (`OAUTH_PATHS`). */
  readonly handlers: OAuthIdpHandlers;
  /** The user and scopes of a valid, unexpired, unrevoked OAuth access token, or `null`. */
  verifyAccessToken(token: string): Promise<{ userId: string; scopes: readonly string[] } | null>;
  /**
   * Registers an app and returns its client id and (only this once) its client secret; `into` is the store to
   * write it to (a transaction's, which also writes its audit entry), the idp's store by default.
   */
  registerApp(input: OAuthAppInput, into?: Store): Promise<Result<{ clientId: string; clientSecret: string }, OAuthAppRefusal>>;
  /**
   * Gives an app a new client secret and returns it (only this once); the old secret stops working at once, at the
   * token and revocation endpoints alike. `unknown_oauth_app` when no app has this client id.
   */
  rotateSecret(clientId: string, into?: Store): Promise<Result<{ clientSecret: string }, OAuthAppRefusal>>;
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * Creates the OAuth authorization server (spec §2.4, §5.1 rules 1 and 3).
 * Throws a `RangeError` at construction when `accessTokenTtlSeconds` is not 1 to 86400 (a
 * configuration error, reported before the server serves anything).
 *
 * @param options - Store, clock, random source, token lifetime, browser authentication and sign-in path.
 * @returns The request handler, the `Bearer` token verifier and app registration.
 * @example
 * ```ts
 * const idp = createOAuthIdp({
 *   store: createMemoryStore().oauth, now: Date.now, randomBytes: (n) => new Uint8Array(crypto.randomBytes(n)),
 *   authenticateBrowser: async () => null, signInPath: '/.auth/sign-in',
 * });
 * const app = await idp.registerApp({ name: 'CI', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'], ownerUserId: 'admin' });
 * // ok({ clientId: 'gai_…', clientSecret: 'gas_…' })
 * ```
 */
export function createOAuthIdp(options: OAuthIdpOptions): OAuthIdp {
  const record = options.audit;
  const full = options.transactionStore;
  // an audited change and its entry: one transaction of the whole store when there is one
  const audited: IdpContext['audited'] = (work) =>
    full === undefined
      ? work(options.store, (entry) => (record === undefined ? Promise.resolve() : record(entry, null)))
      : auditedTransaction(full, (tx) => work(tx.oauth, (entry) => (record === undefined ? Promise.resolve() : record(entry, tx))));
  const ttl = resolveAccessTokenTtl(options.accessTokenTtlSeconds);
  if (ttl.isErr()) throw new RangeError(`accessTokenTtlSeconds must be an integer from 1 to ${ttl.error.max}.`);
  const ctx: IdpContext = {
    store: options.store,
    now: options.now,
    randomBytes: options.randomBytes,
    audited,
    accessTokenTtlSeconds: ttl.value,
    authenticateBrowser: options.authenticateBrowser,
    signInPath: options.signInPath,
    accountUsable: options.accountUsable ?? (() => Promise.resolve(true)),
    issuer: options.issuer ?? (() => null),
    pages: options.pages ?? { randomBytes: options.randomBytes, secureCookies: false, origin: null },
  };
  const { store, now } = ctx;

  return {
    handlers: {
      authorize: (request) => handleAuthorize(ctx, request),
      consent: (request) => handleConsent(ctx, request),
      token: (request) => handleToken(ctx, request),
      revoke: (request) => handleRevocation(ctx, request),
      metadata: (request) => handleMetadata(ctx, request),
    },

    async verifyAccessToken(token) {
      const tokenHash = lookupDigest('access_token', token);
      const record = tokenHash === null ? null : await store.findAccessToken(tokenHash);
      const decision = decideOAuthAccessTokenUse({ now: now(), record });
      if (decision.isErr() || decision.value.kind === 'deny') return null;
      return { userId: decision.value.userId, scopes: decision.value.scopes };
    },

    async registerApp(input, into) {
      const fail = (e: OAuthAppRegistrationError | { readonly code: 'invalid_owner' | 'internal_error' }) =>
        err({ code: e.code, message: registrationMessage(e) });
      const registration = validateOAuthAppRegistration(input);
      if (registration.isErr()) return fail(registration.error);
      const owner: unknown = input.ownerUserId;
      if (typeof owner !== 'string' || owner === '') return fail({ code: 'invalid_owner' });
      const clientId = secret(ctx, 'client_id');
      const clientSecret = secret(ctx, 'client_secret');
      const clientSecretHash = clientSecret === null ? null : digestOf(clientSecret);
      if (clientId === null || clientSecret === null || clientSecretHash === null) return fail({ code: 'internal_error' });
      const inserted = await (into?.oauth ?? store).insertApp({
        clientId,
        clientSecretHash,
        redirectUris: registration.value.redirectUris,
        scopes: registration.value.scopes,
        name: registration.value.name,
        ownerUserId: owner,
        createdAt: now(),
      });
      // a taken client id means the random source repeated itself: the registration fails as an internal error
      return inserted.isOk() ? ok({ clientId, clientSecret }) : fail({ code: 'internal_error' });
    },

    async rotateSecret(clientId, into) {
      const clientSecret = secret(ctx, 'client_secret');
      const clientSecretHash = clientSecret === null ? null : digestOf(clientSecret);
      if (clientSecret === null || clientSecretHash === null) return err({ code: 'internal_error', message: 'The client secret could not be rotated.' });
      // one atomic write replaces the digest: the old secret matches nothing from here on
      const updated = await (into?.oauth ?? store).setAppSecretHash(clientId, clientSecretHash);
      return updated.isOk() ? ok({ clientSecret }) : err({ code: 'unknown_oauth_app', message: 'No such OAuth app.' });
    },
  };
}

