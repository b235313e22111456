/**
 * gatehouse: the pure core. Total functions from plain data to neverthrow `Result`s; no I/O, no clock,
 * no randomness, no `node:*`.
 *
 * @module
 */

export {
  CODE_HOST_PROVIDER_TYPES,
  PROVIDER_TYPES,
} from './core/auth-providers.js';
export type {
  AuthProvider,
  BuiltinProvider,
  CodeHostProvider,
  CodeHostProviderType,
  HostaProvider,
  HostbProvider,
  HostccloudProvider,
  HostcserverProvider,
  HttpHeaderProvider,
  OpenIdConnectProvider,
  ProviderType,
  ReviewhostProvider,
  SamlProvider,
} from './core/auth-providers.js';

export {
  CREDENTIALS_SCHEMES,
  formatAuthorizationHeader,
  INVALID_AUTHORIZATION_HEADER_AUDIT,
  MAX_AUTHORIZATION_HEADER_LENGTH,
  parseAuthorizationHeader,
  validateCredentials,
} from './core/authorization-header.js';
export type {
  AuthorizationHeaderAudit,
  AuthorizationHeaderError,
  BearerCredentials,
  Credentials,
  CredentialsMalformation,
  CredentialsScheme,
  HeaderMalformation,
  InvalidCredentialsError,
  TokenCredentials,
  TokenSudoCredentials,
} from './core/authorization-header.js';

export {
  INVALID_USERNAME_REASONS,
  normalizeUsername,
  SUFFIX_LENGTH,
  SUFFIX_RANDOM_BYTES,
  USERNAME_MAX_LENGTH,
  validateUsername,
  withRandomSuffix,
} from './core/username.js';
export type {
  InvalidUsernameReason,
  RuntimeType,
  UsernameError,
} from './core/username.js';

export {
  ACCESS_TOKEN_LENGTH,
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_RANDOM_BYTES,
  ACCESS_TOKEN_SCOPES,
  accessTokenDigestsEqual,
  authorizeAccessTokenCreation,
  generateAccessToken,
  hashAccessToken,
  parseAccessToken,
} from './core/access-token.js';
export type {
  AccessTokenActor,
  AccessTokenCreationDecision,
  AccessTokenCreationDenialReason,
  AccessTokenCreationError,
  AccessTokenCreationInput,
  AccessTokenFormatError,
  AccessTokenGenerationError,
  AccessTokenHashError,
  AccessTokenScope,
  AccessTokenSubject,
} from './core/access-token.js';

export {
  authorizeSudo,
} from './core/sudo.js';
export type {
  SudoError,
  SudoInput,
} from './core/sudo.js';

export {
  computeRefreshAt,
  decideTokenRefresh,
  DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
  mergeRefreshedToken,
  parseTokenResponse,
} from './core/oauth-token.js';
export type {
  OAuthToken,
  OAuthTokenField,
  TokenMergeError,
  TokenRefreshDecision,
  TokenRefreshError,
  TokenRefreshInput,
  TokenResponseError,
  TokenResponseField,
  TokenResponseOptions,
} from './core/oauth-token.js';
