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
