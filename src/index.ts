/**
 * gatehouse-auth: the pure core. Total functions from plain data to neverthrow `Result`s; no I/O, no clock,
 * no randomness, no `node:*`. It needs the peer `graphql@16` (query cost analysis); `gatehouse-auth/username`
 * holds username normalization alone, without it.
 *
 * @module gatehouse-auth
 */

// Spec §2.2, §4: the GraphQL endpoint — who may search
export {
  authorizeSearch,
  DEFAULT_MAX_SEARCH_FIELDS,
} from './core/search-access.js';
export type {
  SearchAccessDecision,
  SearchAccessError,
  SearchAccessInput,
} from './core/search-access.js';

// Spec §2.3, §5.1: access tokens
export {
  ACCESS_TOKEN_LENGTH,
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_RANDOM_BYTES,
  ACCESS_TOKEN_SCOPES,
  accessTokenDigestsEqual,
  authorizeAccessTokenCreation,
  generateAccessToken,
  hashAccessToken,
  MAX_ACCESS_TOKEN_NOTE_LENGTH,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
  parseAccessToken,
  REQUEST_CREDENTIALS,
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
  RequestCredential,
} from './core/access-token.js';

// Spec §2.4, §5.1 rules 1 and 3: OAuth tokens of a code host, and gatehouse as an OAuth authorization server
export {
  computeRefreshAt,
  decideTokenRefresh,
  DEFAULT_MAX_TOKEN_LIFETIME_SECONDS,
  mergeRefreshedToken,
  parseTokenResponse,
} from './core/oauth/client/token.js';
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
} from './core/oauth/client/token.js';

export {
  authenticateOAuthClient,
  readTokenRequest,
} from './core/oauth/server/token-request.js';
export {
  AUTHORIZATION_CODE_TTL_SECONDS,
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  MAX_REDIRECT_URIS,
  OAUTH_SCOPES,
  OAUTH_SECRET_KINDS,
  REFRESH_TOKEN_TTL_SECONDS,
  REQUIRED_OAUTH_SCOPE,
} from './core/oauth/server/records.js';
export {
  decideAuthorizationCodeGrant,
  decideRefreshTokenGrant,
} from './core/oauth/server/grants.js';
export {
  decideOAuthAccessTokenUse,
  resolveAccessTokenTtl,
} from './core/oauth/server/access-tokens.js';
export {
  decideTokenRevocation,
  readRevocationRequest,
} from './core/oauth/server/revocation.js';
export {
  generateOAuthSecret,
  parseOAuthSecret,
} from './core/oauth/server/secrets.js';
export {
  validateAuthorizeRequest,
} from './core/oauth/server/authorize.js';
export {
  validateOAuthAppRegistration,
} from './core/oauth/server/registration.js';
export type {
  AccessTokenTtlError,
  OAuthAccessTokenDecision,
  OAuthAccessTokenUseError,
  OAuthAccessTokenUseInput,
} from './core/oauth/server/access-tokens.js';
export type {
  AuthorizationCodeGrant,
  ClientAuthenticationError,
  ClientAuthenticationInput,
  ClientAuthenticationMethod,
  ClientCredentials,
  RefreshTokenGrant,
  TokenRequest,
  TokenRequestError,
  ClientPartError,
  TokenRequestInput,
} from './core/oauth/server/token-request.js';
export type {
  AuthorizationCodeGrantDecision,
  AuthorizationCodeGrantError,
  AuthorizationCodeGrantInput,
  RefreshTokenGrantDecision,
  RefreshTokenGrantError,
  RefreshTokenGrantInput,
} from './core/oauth/server/grants.js';
export type {
  AuthorizationCodeRecord,
  OAuthAccessTokenRecord,
  OAuthClient,
  OAuthParameters,
  OAuthScope,
  OAuthSecretKind,
  RefreshTokenRecord,
  Sha256,
} from './core/oauth/server/records.js';
export type {
  AuthorizeErrorRedirect,
  AuthorizeRequest,
  AuthorizeRequestError,
  AuthorizeRequestInput,
} from './core/oauth/server/authorize.js';
export type {
  OAuthAppRegistration,
  OAuthAppRegistrationError,
  OAuthAppRegistrationInput,
  RedirectUriProblem,
} from './core/oauth/server/registration.js';
export type {
  OAuthSecretError,
} from './core/oauth/server/secrets.js';
export type {
  RevocationRequest,
  RevocationRequestError,
  TokenRevocationDecision,
  TokenRevocationError,
  TokenRevocationInput,
} from './core/oauth/server/revocation.js';

// Spec §2.5: authentication provider entries and the site configuration
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
  DEFAULT_ALLOW_SIGNUP,
  DEFAULT_HOSTB_API_SCOPE,
  PROVIDER_FIELDS,
} from './core/site-configuration/providers.js';
export {
  MAX_SITE_CONFIGURATION_DEPTH,
} from './core/site-configuration/types.js';
export {
  parseSiteConfiguration,
} from './core/site-configuration/parse.js';
export {
  effectiveSiteConfigurationText,
  maskSiteConfigurationSecrets,
  REDACTED,
  siteConfigurationDocument,
} from './core/site-configuration/effective.js';
export type { SiteConfigurationDocument, SiteConfigurationDocumentValue } from './core/site-configuration/effective.js';
export type {
  InvalidUrlReason,
  JsonPathSegment,
  JsonTypeName,
  SiteConfiguration,
  SiteConfigurationError,
  SiteConfigurationLocation,
  SiteConfigurationProblem,
  SiteConfigurationWarning,
} from './core/site-configuration/types.js';
export type { HttpUrlProblem } from './core/site-configuration/url.js';

// Spec §5.3–§5.5, §8: what a candidate site configuration would change before it applies
export {
  configurationChanges,
  emptyPreviewTally,
  identityFacts,
  locksOutSiteAdmins,
  previewSignInPage,
  tallyPreviewPage,
} from './core/site-configuration/preview.js';
export type {
  AccountPreview,
  CappedList,
  ConfigurationChanges,
  IdentityFacts,
  LimitChange,
  PreviewAccount,
  PreviewDenial,
  PreviewError,
  PreviewIdentity,
  PreviewTally,
  ProviderChange,
  SignInState,
  WayChange,
  WayPreview,
} from './core/site-configuration/preview.js';

// Spec §4, §5.3: what each provider implies on the wire (callbacks, scopes)
export {
  callbackPathOf,
  callbackUrl,
  oauthScopes,
  reviewhostMatchesConnection,
  signInPageBehavior,
} from './core/provider-urls.js';
export type {
  CallbackUrlError,
  OAuthScopesError,
  ProviderWithoutCallback,
  RedirectProvider,
  ReviewhostMatchError,
  SignInPageBehavior,
  SignInPageBehaviorError,
} from './core/provider-urls.js';

// Spec §5.1: the Authorization header and sudo
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
  authorizeSudo,
} from './core/sudo.js';
export type {
  SudoError,
  SudoInput,
} from './core/sudo.js';

// Spec §1, §2.3, §5.1 rule 2: site administration — a site keeps at least one site administrator
export {
  decideSiteAdminChange,
  SITE_ADMIN_CHANGES,
} from './core/site-admin.js';
export type {
  SiteAdminChange,
  SiteAdminChangeDecision,
  SiteAdminChangeError,
  SiteAdminChangeInput,
} from './core/site-admin.js';

// Spec §1, §2.3, §5.1 rule 2: a site administrator's controls over an account; a suspended account has no way in
export {
  ACCOUNT_CONTROLS,
  ACCOUNT_USES,
  decideAccountControl,
  decideAccountUse,
} from './core/account-controls.js';
export type {
  AccountControl,
  AccountControlDecision,
  AccountControlError,
  AccountControlInput,
  AccountUse,
  AccountUseDecision,
} from './core/account-controls.js';

// Spec §5.2, §5.3: sign-in — identities, provider access rules, the proxy identity, throttling
export { checkNewPassword, MAX_PASSWORD_BYTES, MIN_PASSWORD_LENGTH } from './core/password-policy.js';
export { decideUsernameChange } from './core/username-change.js';
export type { UsernameChangeDecision, UsernameChangeError } from './core/username-change.js';
export type { NewPasswordError } from './core/password-policy.js';

export {
  GROUP_ACCESS_LEVEL,
  parseExternalIdentity,
} from './core/external-identity.js';
export type {
  ExternalEmail,
  ExternalGroup,
  ExternalIdentity,
  ExternalIdentityError,
  ExternalTeam,
} from './core/external-identity.js';

export {
  ACCESS_DENIAL_REASONS,
  decideProviderAccess,
} from './core/provider-access.js';
export type {
  AccessDecision,
  AccessDenialReason,
  AdmittedBy,
  ProviderAccessError,
} from './core/provider-access.js';

export {
  identityFromProxyHeaders,
} from './core/sign-in/proxy-identity.js';
export type {
  ProxyHeaders,
  ProxyIdentityError,
} from './core/sign-in/proxy-identity.js';

export {
  decideSignInAttempt,
  DEFAULT_SIGN_IN_THROTTLE_POLICY,
  expireSignInFailures,
  recordSignInFailure,
  withdrawSignInFailure,
} from './core/sign-in/throttle.js';
export type {
  SignInAttemptDecision,
  SignInAttemptInput,
  SignInFailureInput,
  SignInFailures,
  SignInFailureWithdrawal,
  SignInThrottleError,
  SignInThrottlePolicy,
} from './core/sign-in/throttle.js';

export {
  DEFAULT_LOCKOUT_POLICY,
  lockoutStatus,
  recordFailedSignIn,
} from './core/sign-in/lockout.js';
export { DEFAULT_PASSWORD_RESET_LINK_EXPIRY, DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY } from './core/site-configuration/account-lifecycle.js';
export type {
  FailedSignInDecision,
  LockoutError,
  LockoutInput,
  LockoutPolicy,
  LockoutState,
  LockoutStatus,
} from './core/sign-in/lockout.js';

export {
  MAX_USERNAME_SUFFIX_ATTEMPTS,
  resolveSignIn,
  SIGN_IN_DENIAL_MESSAGES,
  SIGN_IN_DENIAL_REASONS,
} from './core/sign-in/resolve.js';
export type {
  DirectoryOperation,
  SignInDecision,
  SignInDenialReason,
  SignInError,
  SignInInput,
  SignInVia,
} from './core/sign-in/resolve.js';

export { decideSignIn, planSignIn } from './core/sign-in/plan.js';
export type { SignInFacts, SignInLookups, SignInPlan, SignInPlanDecision, SignInPlanInput } from './core/sign-in/plan.js';

// Spec §5.3–§5.5, §7: why a sign-in decides what it decides, rule by rule
export { explainSignIn, signInRefusalReason } from './core/sign-in/explain.js';
export type { SignInExplanation, SignInTraceStep, TraceValue } from './core/sign-in/explain.js';
export { isSignInRuleId, SIGN_IN_RULES } from './core/sign-in/rules.js';
export type { SignInRuleId } from './core/sign-in/rules.js';

// Spec §5.3, §5.4: the browser's ways in — who may use a password, where a sign-in returns, when a credential has
// expired, and never unlinking the last way in
export { mayUsePassword } from './core/browser-sign-in.js';
export type { BrowserSignInAccount } from './core/browser-sign-in.js';
export { MAX_RETURN_TO_LENGTH, safeReturnTo } from './core/return-to.js';
export { isExpired } from './core/credential-expiry.js';
export { countSignInMethods, decideUnlink } from './core/unlink.js';
export type { LinkedIdentity, SignInMethodsInput, UnlinkDecision, UnlinkError, UnlinkInput } from './core/unlink.js';

// Spec §2.3, §8: bounded text lengths, counted in characters as people count them
export { longerThan } from './core/internal/text-length.js';

// Spec §5.4: account linking — the account directory and the keys a store indexes by
export {
  ACCOUNT_ORIGINS,
  accountDirectoryFromArray,
} from './core/account-directory.js';
export type {
  Account,
  AccountDirectory,
  AccountDirectoryError,
  AccountEmail,
  AccountError,
  AccountOrigin,
  ExternalAccountRef,
} from './core/account-directory.js';

export {
  emailMatchKey,
  externalAccountKey,
  usernameKey,
} from './core/store-keys.js';

// Spec §5.5: username normalization
export {
  INVALID_USERNAME_REASONS,
  normalizeUsername,
  SUFFIX_LENGTH,
  SUFFIX_RANDOM_BYTES,
  USERNAME_MAX_LENGTH,
  usernameCandidates,
  validateUsername,
  withRandomSuffix,
} from './core/username.js';
export type {
  InvalidUsernameReason,
  RuntimeType,
  UsernameError,
} from './core/username.js';

// Spec §6 rule 1, §7 rule 1: what the audit log keeps (by age; unsupported-scheme entries coalesced)
export {
  auditCoalescingKey,
  auditCoalescingNetwork,
  auditRetentionCutoff,
  auditWindowOf,
  coalesceAuditDetails,
  DEFAULT_AUDIT_COALESCE_MAX_NETWORKS,
  DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS,
  DEFAULT_AUDIT_RETENTION_DAYS,
  MAX_AUDITED_SCHEMES,
  OTHER_NETWORKS_CLIENT,
} from './core/audit-retention.js';
export type {
  AuditCoalescingInput,
  AuditNetworkDecision,
  AuditNetworkInput,
  AuditRetentionError,
  AuditRetentionInput,
  CoalescableAuditFacts,
} from './core/audit-retention.js';

// Operations: reverse proxies — IP addresses, CIDR ranges, the client address behind trusted proxies
export {
  addressInRange,
  addressInRanges,
  formatIpAddress,
  parseAddressRange,
  parseIpAddress,
} from './core/address-range.js';
export type { AddressRange, AddressRangeError, IpAddress } from './core/address-range.js';
export { decideClientAddress, UNTRUSTED_PROXY_HEADERS_AUDIT } from './core/trusted-proxy.js';
export type { ClientAddress, ClientAddressError, ClientAddressInput } from './core/trusted-proxy.js';

// Spec §8: limits — query cost, rate limits, quotas
export {
  DEFAULT_QUERY_LIMITS,
  queryLimitsFromRateLimits,
  RATE_LIMIT_KEYS,
} from './core/query-cost/limits.js';
export type {
  QueryLimits,
  RateLimitKey,
  RateLimitsError,
  RateLimitsProblem,
} from './core/query-cost/limits.js';

export {
  analyzeQueryCost,
  checkQueryCost,
  countFieldSelections,
  QUERY_LIMIT_ORDER,
  queryCostErrorMessage,
} from './core/query-cost/analyze.js';
export type {
  ExceededQueryLimit,
  ListFieldPagination,
  ListFields,
  QueryCost,
  QueryCostError,
  QueryCostOptions,
  QueryLimitMessage,
  QueryLimitsExceeded,
} from './core/query-cost/analyze.js';

export {
  queryCostRule,
} from './core/query-cost/rule.js';
export type {
  QueryCostErrorCode,
  QueryCostRuleOptions,
} from './core/query-cost/rule.js';

export { explainQueryCost, MAX_EXPLAINED_LISTS } from './core/query-cost/explain.js';
export type { FieldCountMeasure, ListFieldBound, QueryCostExplanation, QueryCostMeasure } from './core/query-cost/explain.js';

// Resource bounds: pending sign-ins per client network, sessions per account, the purge of expired records
export {
  AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS,
  clientNetwork,
  decidePendingSignIn,
  DEFAULT_MAX_PENDING_SIGN_INS,
  DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT,
  DEFAULT_MAX_SESSIONS_PER_ACCOUNT,
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_PURGE_INTERVAL_SECONDS,
  purgeCutoffs,
} from './core/quotas.js';
export type {
  PendingSignInDecision,
  PendingSignInInput,
  PurgeCutoffInput,
  PurgeCutoffs,
  QuotaError,
} from './core/quotas.js';

// Text a database can hold: U+0000 and unpaired surrogates are refused where text enters
export { findUnstorableText, findUnstorableValue, isStorableText } from './core/storable-text.js';
export type { UnstorableText } from './core/storable-text.js';

// Outgoing mail: the site options email.smtp, email.address and email.senderName; retries and the queue's bound
export {
  DEFAULT_EMAIL_SENDER_NAME,
  EMAIL_OFF,
  isPlainEmailAddress,
  SMTP_AUTHENTICATIONS,
} from './core/site-configuration/email.js';
export type {
  EmailConfiguration,
  SmtpAuthentication,
  SmtpConfiguration,
} from './core/site-configuration/email.js';
export {
  decideMailEnqueue,
  decideMailRetry,
  DEFAULT_MAIL_MAX_ATTEMPTS,
  DEFAULT_MAIL_QUEUE_CAPACITY,
  DEFAULT_MAIL_RETRY_BASE_MS,
  DEFAULT_MAIL_RETRY_MAX_MS,
} from './core/mail-retry.js';
export type {
  MailEnqueueDecision,
  MailQueueInputError,
  MailRetryDecision,
  MailRetryInput,
} from './core/mail-retry.js';

// Account links: single-use, expiring links that verify an email, reset a password, set the first administrator's password, unlock an account
export {
  ACCOUNT_LINK_PURPOSES,
  ACCOUNT_LINK_TOKEN_BYTES,
  accountLinkExpiry,
  decideAccountLinkUse,
  isAccountLinkToken,
  VERIFY_EMAIL_LINK_TTL_SECONDS,
} from './core/account-link.js';
export type {
  AccountLinkInputError,
  AccountLinkPurpose,
  AccountLinkRefusalReason,
  AccountLinkState,
  AccountLinkUse,
} from './core/account-link.js';

// An account's email addresses: add, mark verified, make primary (only a verified one)
export { accountMailAddressOf, addAccountEmail, makePrimaryEmail, markEmailVerified, MAX_EMAILS_PER_ACCOUNT, primaryEmailOf } from './core/account-emails.js';
export type { AccountEmailError, StoredEmail } from './core/account-emails.js';

// Account site options: access tokens, session lifetime, the password rule, username changes, the sign-in
// page's providers, and re-authentication before sensitive changes
export {
  ACCESS_TOKEN_ALLOW_VALUES,
  ACCESS_TOKEN_OPTION_REFUSALS,
  accessTokenExpiryChoices,
  decideAccessTokenOptions,
  DEFAULT_ACCESS_TOKEN_OPTIONS,
  longestTokenLifetimeDays,
  MAX_EXPIRATION_OPTION_DAYS,
  mayCreateAccessTokens,
} from './core/access-token-options.js';
export type {
  AccessTokenAllow,
  AccessTokenOptionRefusal,
  AccessTokenOptions,
  AccessTokenOptionsDecision,
  AccessTokenOptionsError,
  AccessTokenOptionsInput,
} from './core/access-token-options.js';
export { DURATION_UNITS_MS, formatDuration, MAX_DURATION_MS, parseDuration } from './core/duration.js';
export type { DurationError } from './core/duration.js';
export {
  decideSession,
  DEFAULT_SESSION_LIFETIME_OPTIONS,
  MIN_SESSION_EXPIRY_MS,
  MIN_SESSION_IDLE_TIMEOUT_MS,
  SESSION_TOUCH_INTERVAL_MS,
} from './core/session-lifetime.js';
export type { SessionDecision, SessionDecisionError, SessionLifetimeOptions, SessionTimes } from './core/session-lifetime.js';
export {
  DEFAULT_PASSWORD_POLICY,
  DEFAULT_PASSWORD_RULE,
  describePasswordRule,
  LOWEST_MIN_PASSWORD_LENGTH,
  newPasswordMessage,
} from './core/password-policy.js';
export type { PasswordPolicy, PasswordRule } from './core/password-policy.js';
export { decideUsernameChangeOption, DEFAULT_ENABLE_USERNAME_CHANGES } from './core/username-change-option.js';
export type { UsernameChangeOptionDecision, UsernameChangeOptionError } from './core/username-change-option.js';
export { providerSignsIn, signInOffer } from './core/sign-in-offer.js';
export type { OfferedProvider, ProviderSignInFields } from './core/sign-in-offer.js';
export { decideReauthentication, REAUTHENTICATION_WINDOW_MS, SENSITIVE_CHANGES, signedInRecently } from './core/reauthentication.js';
export type { ReauthenticationDecision, ReauthenticationError, ReauthenticationInput, SensitiveChange } from './core/reauthentication.js';
export { ACCOUNT_OPTION_KEYS, DEFAULT_ACCOUNT_OPTIONS } from './core/site-configuration/account-options.js';
export type { AccountOptionProblem, AccountOptions } from './core/site-configuration/account-options.js';
