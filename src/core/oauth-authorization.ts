/**
 * Pure decisions of gatehouse's OAuth 2.0 authorization server: app registration, authorize and token requests, refresh-token rotation and family revocation (spec §2.4, §5.1 rules 1 and 3).
 *
 * gatehouse is the authorization server for OAuth apps that a site administrator registers. The
 * flow is the authorization code grant with PKCE (S256 only, RFC 7636; required, as RFC 9700 §2.1.1
 * recommends) and confidential clients (`client_secret_basic` or `client_secret_post`, RFC 6749
 * §2.3.1). Access tokens are short-lived; refresh tokens rotate on every use and belong to a
 * *family* (every token descending from one authorization code): presenting a refresh token that
 * was already used, or an authorization code a second time, revokes the whole family, access tokens
 * included (RFC 9700 §4.14.2, RFC 6749 §4.1.2).
 *
 * Every function here is total and does no I/O: the adapter looks records up, passes them in, and
 * applies the returned decision to its store with an atomic compare-and-set (so two concurrent uses
 * of one refresh token cannot both rotate: the loser re-reads the record, sees it used, and gets
 * `revoke_family`). Time, random bytes and SHA-256 are parameters. Times are milliseconds since the
 * epoch (like `Date.now()`); a record is expired when `now >= expiresAt`.
 *
 * @module
 */
export {
  OAUTH_SCOPES,
  REQUIRED_OAUTH_SCOPE,
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  AUTHORIZATION_CODE_TTL_SECONDS,
  REFRESH_TOKEN_TTL_SECONDS,
  MAX_REDIRECT_URIS,
  OAUTH_SECRET_KINDS,
} from './oauth/records.js';
export type {
  OAuthScope,
  OAuthSecretKind,
  OAuthClient,
  AuthorizationCodeRecord,
  RefreshTokenRecord,
  OAuthAccessTokenRecord,
  OAuthParameters,
  Sha256,
} from './oauth/records.js';
export { generateOAuthSecret, parseOAuthSecret } from './oauth/secrets.js';
export type { OAuthSecretError } from './oauth/secrets.js';
export { resolveAccessTokenTtl, decideOAuthAccessTokenUse } from './oauth/access-tokens.js';
export type {
  AccessTokenTtlError,
  OAuthAccessTokenDecision,
  OAuthAccessTokenUseError,
  OAuthAccessTokenUseInput,
} from './oauth/access-tokens.js';
export { validateOAuthAppRegistration } from './oauth/registration.js';
export type {
  RedirectUriProblem,
  OAuthAppRegistrationInput,
  OAuthAppRegistration,
  OAuthAppRegistrationError,
} from './oauth/registration.js';
export { validateAuthorizeRequest } from './oauth/authorize.js';
export type {
  AuthorizeErrorRedirect,
  AuthorizeRequestInput,
  AuthorizeRequest,
  AuthorizeRequestError,
} from './oauth/authorize.js';
export { readTokenRequest, authenticateOAuthClient } from './oauth/token-request.js';
export type {
  ClientAuthenticationMethod,
  ClientCredentials,
  AuthorizationCodeGrant,
  RefreshTokenGrant,
  TokenRequest,
  TokenRequestInput,
  ClientPartError,
  TokenRequestError,
  ClientAuthenticationError,
  ClientAuthenticationInput,
} from './oauth/token-request.js';
export { decideAuthorizationCodeGrant, decideRefreshTokenGrant } from './oauth/grants.js';
export type {
  AuthorizationCodeGrantDecision,
  AuthorizationCodeGrantError,
  AuthorizationCodeGrantInput,
  RefreshTokenGrantDecision,
  RefreshTokenGrantError,
  RefreshTokenGrantInput,
} from './oauth/grants.js';
export { readRevocationRequest, decideTokenRevocation } from './oauth/revocation.js';
export type {
  RevocationRequest,
  RevocationRequestError,
  TokenRevocationDecision,
  TokenRevocationError,
  TokenRevocationInput,
} from './oauth/revocation.js';
