/**
 * The registry of provider types: one entry per type of `PROVIDER_TYPES`, each from its own file. The dispatchers
 * (`readProviderFacts`, `callbackUrl`, `oauthScopes`, the site configuration's defaults and fields) read it.
 *
 * @module
 */
import type { ProviderType } from '../auth-providers.js';
import { BUILTIN } from './builtin.js';
import { HOSTA } from './hosta.js';
import { HOSTB } from './hostb.js';
import { HOSTCCLOUD } from './hostccloud.js';
import { HOSTCSERVER } from './hostcserver.js';
import { HTTP_HEADER } from './http-header.js';
import { OPENIDCONNECT } from './openidconnect.js';
import { REVIEWHOST } from './reviewhost.js';
import { SAML } from './saml.js';
import type { ProviderSpec } from './spec.js';

/** What the spec says about each provider type; a missing type is a compile error. */
export const PROVIDER_SPECS: { readonly [T in ProviderType]: ProviderSpec<T> } = {
  builtin: BUILTIN,
  hosta: HOSTA,
  hostb: HOSTB,
  hostccloud: HOSTCCLOUD,
  hostcserver: HOSTCSERVER,
  reviewhost: REVIEWHOST,
  openidconnect: OPENIDCONNECT,
  'http-header': HTTP_HEADER,
  saml: SAML,
};

export type { Gate, ListedTeam, OAuthProviderType, ProviderSpec, ProviderWithoutCallback, ServiceIdField } from './spec.js';
