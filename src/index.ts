/**
 * gatehouse: the pure core. Total functions from plain data to neverthrow `Result`s; no I/O, no clock,
 * no randomness, no `node:*`.
 *
 * @module
 */
export { CODE_HOST_PROVIDER_TYPES, PROVIDER_TYPES } from './core/auth-providers.js';
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
  INVALID_USERNAME_REASONS,
  SUFFIX_LENGTH,
  SUFFIX_RANDOM_BYTES,
  USERNAME_MAX_LENGTH,
  normalizeUsername,
  validateUsername,
  withRandomSuffix,
} from './core/username.js';
export type { InvalidUsernameReason, RuntimeType, UsernameError } from './core/username.js';
