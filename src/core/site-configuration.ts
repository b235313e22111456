/**
 * Parses the administrator's site configuration (JSONC): `externalURL`, `auth.providers`, `rateLimits` and `auth.public` (spec §2.5, §8).
 *
 * The parts live in `site-configuration/`: `jsonc.ts` (text to values), `fields.ts` (field readers and value rules),
 * `providers.ts` (entries per provider type), `parse.ts` (the whole document).
 *
 * @module
 */
export { MAX_SITE_CONFIGURATION_DEPTH } from './site-configuration/types.js';
export type {
  JsonPathSegment,
  SiteConfigurationLocation,
  JsonTypeName,
  InvalidUrlReason,
  SiteConfigurationProblem,
  SiteConfigurationError,
  SiteConfigurationWarning,
  SiteConfiguration,
} from './site-configuration/types.js';
export { DEFAULT_ALLOW_SIGNUP, DEFAULT_HOSTB_API_SCOPE, PROVIDER_FIELDS } from './site-configuration/providers.js';
export { parseSiteConfiguration } from './site-configuration/parse.js';
