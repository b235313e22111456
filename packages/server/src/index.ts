/**
 * gatehouse-server: the pure core of `gatehouse-auth` embedded in a minimal `node:http` server, with its stores, its
 * pages and its command line. It translates requests into core inputs and core results into responses, and holds
 * no policy of its own.
 *
 * @module gatehouse-server
 */
export { createGatehouseServer } from './server.js';
export { createMemoryStore } from './store/memory/store.js';
export { createPostgresStore } from './store/postgres/store.js';
export { openPgliteDriver } from './store/postgres/pglite.js';
export type { PgliteLocation, PgliteOptions } from './store/postgres/pglite.js';
export { DEFAULT_CONNECTION_TIMEOUT_MS, openNodePostgresDriver } from './store/postgres/node-postgres.js';
export type { NodePostgresOptions } from './store/postgres/node-postgres.js';
export { applyMigrations } from './store/postgres/migrate.js';
export type { MigrationError, MigrationReport } from './store/postgres/migrate.js';
export { MIGRATIONS } from './store/postgres/migrations/list.js';
export type { Migration } from './store/postgres/migrations/list.js';
export type { IsolationLevel, SqlClient, SqlDriver, SqlRow, TransactionOutcome } from './store/postgres/driver.js';
export { DEFAULT_DATA_DIR, openStore, resolveStoreLocation } from './store/open.js';
export { ADMINISTRATOR_TOKEN_SCOPES, NODE_MINT_SOURCES, SEEDED_ADMINISTRATOR_USERNAME, seedAdministrator } from './run/administrator.js';
export { createFirstAdministratorLink, FIRST_ADMIN_LINK_SECONDS } from './operations/password-reset.js';
export type { AdministratorTokenError, MintedToken, MintSources, SeedOutcome } from './run/administrator.js';
export type { OpenedStore, OpenStoreError, OpenStoreOptions, StoreLocation } from './store/open.js';
export type { PermissionsFixed } from './store/postgres/data-directory.js';
export type {
  AccessTokenRecord,
  AccessTokenStore,
  AccountPage,
  AccountChange,
  AccountStore,
  AuditEntry,
  AuditEvent,
  AuditQuery,
  AuditStore,
  EmailRecord,
  EphemeralEntry,
  EphemeralGroupCount,
  EphemeralKind,
  EphemeralStore,
  ExternalAccountRecord,
  ExternalAccountKey,
  IssuedOAuthTokens,
  NewAccessToken,
  NewAccount,
  NewAuditEntry,
  OAuthAppRecord,
  OAuthConsentRecord,
  OAuthStore,
  ProviderCredentialRecord,
  SessionRecord,
  SessionStore,
  Store,
  StoreError,
  StoredOAuthAccessToken,
  StoredRefreshToken,
  UserRecord,
} from './store/types.js';
export { createPinoLog } from './kernel/logging.js';
export type { LogDestination, LogEntry, PinoLogOptions } from './kernel/logging.js';
export type { GatehouseMetrics } from './kernel/metrics.js';
export type { PurgeReport } from './store/purge.js';
export { countLiteralMatches, createDirectorySearch } from './api/search.js';
export type { DirectorySearchOptions, SearchFunction, SearchResults } from './api/search.js';
export type { GatehouseContext, Viewer } from './api/schema.js';
export type { ProxyVerdict, SessionRequest, SignInPageLink, Sessions } from './session/sessions.js';
export type { SignInThrottleOptions } from './sign-in/password.js';
export { DEFAULT_CLIENT_ADDRESS_THROTTLE_POLICY } from './sign-in/password.js';
export type { GatehouseRoute, GatehouseServer, GatehouseServerOptions, ReloadResult, RouteContext } from './types.js';
export type { Route, RouteBody, RouteRequest, RouteResponse, ResponseCookie } from './kernel/route.js';
export { DEFAULT_PASSWORD_HASHING_LIMITS } from './sign-in/hashing-limiter.js';
export type { PasswordHashingLimits } from './sign-in/hashing-limiter.js';
export { DEFAULT_PUBLIC_CODE_HOST_URLS } from './providers/code-hosts.js';
export type { PublicCodeHostURLs } from './providers/code-hosts.js';
export { DEFAULT_DOCUMENT_LIMITS } from './api/endpoint.js';
export type { DocumentLimits } from './api/endpoint.js';
