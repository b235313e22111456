/**
 * The values and problems of the site configuration: paths, problem codes, the parsed configuration (spec §2.5).
 *
 * @module
 */
import type { AddressRange, AddressRangeError } from '../address-range.js';
import type { AuthProvider } from '../auth-providers.js';
import type { LockoutPolicy } from '../sign-in/lockout.js';
import type { QueryLimits, RateLimitsProblem } from '../query-cost/limits.js';
import type { EmailConfiguration } from './email.js';
import type { HttpUrlProblem } from './url.js';

/** One step of a JSON path: an object key or an array index. */
export type JsonPathSegment = string | number;

/** Where a problem or warning is, and what a person should do about it. */
export interface SiteConfigurationLocation {
  /** The JSON path, such as `auth.providers[2].clientKey`; the empty string for the whole document. */
  readonly path: string;
  /** The same path as a list of keys and indices (top-level keys such as `auth.providers` are one segment). */
  readonly segments: readonly JsonPathSegment[];
  /** A sentence a person can act on. Not a contract: match on `code`. */
  readonly message: string;
}

/** The JSON type of a value, as reported by `wrong_type`. */
export type JsonTypeName = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/**
 * Why a URL field was rejected: not `scheme://host…` (`not_absolute`), not http/https, no host, a malformed host or
 * port, a user name or password in it, a space, control, backslash or non-ASCII character, or (for `externalURL` and
 * `issuer`, which must have neither) a query or fragment.
 */
export type InvalidUrlReason = HttpUrlProblem | 'has_query_or_fragment';

/** One thing wrong with the site configuration. Every member carries a {@link SiteConfigurationLocation}. */
export type SiteConfigurationProblem = SiteConfigurationLocation &
  (
    /** The text is not JSONC; `line` and `column` are 1-based (columns count UTF-16 code units); `error` is jsonc-parser's name. */
    | { readonly code: 'syntax_error'; readonly error: string; readonly line: number; readonly column: number }
    /** Arrays and objects are nested deeper than {@link MAX_SITE_CONFIGURATION_DEPTH}. */
    | { readonly code: 'too_deeply_nested'; readonly line: number; readonly column: number; readonly maxDepth: number }
    /** A key appears twice in one object that gatehouse reads (JSON parsers disagree on which one wins). */
    | { readonly code: 'duplicate_key'; readonly key: string }
    /** A provider's `type` is not one of {@link PROVIDER_TYPES}; `suggestion` is the nearest type, if any is close. */
    | { readonly code: 'unknown_provider_type'; readonly type: string; readonly suggestion: string | null }
    /** A provider entry has a key that its type does not define; `suggestion` is the intended field, if guessable. */
    | { readonly code: 'unknown_field'; readonly field: string; readonly suggestion: string | null }
    /** A required field is absent; when `fields` has several names, at least one of them is required. */
    | { readonly code: 'missing_field'; readonly fields: readonly string[] }
    /** A value has the wrong JSON type. */
    | { readonly code: 'wrong_type'; readonly expected: JsonTypeName; readonly actual: JsonTypeName }
    /** A string that must say something is empty (a client ID, an org name, a display name …). */
    | { readonly code: 'empty_value' }
    /** A URL field is not an absolute `http`/`https` URL with a host (or has a query where none is allowed). */
    | { readonly code: 'invalid_url'; readonly value: string; readonly reason: InvalidUrlReason }
    /** `requiredSsoOrgs` is neither all numeric strings nor exactly `["all"]` (spec §2.5, §5.3 hosta rule 7). */
    | { readonly code: 'invalid_required_sso_orgs'; readonly value: readonly string[] }
    /** An `allowGroups` entry is not a full group path such as `group/subgroup` (spec §2.5, §5.3 hostb rule 4). */
    | { readonly code: 'invalid_group_path'; readonly value: string }
    /** `ssoURL` has no non-empty `token` query parameter (spec §2.5, §5.3 hostb rule 6). */
    | { readonly code: 'sso_url_missing_token'; readonly value: string }
    /** `requireEmailDomain` is not a bare domain such as `example.com` (spec §5.3 openidconnect rule 5). */
    | { readonly code: 'invalid_email_domain'; readonly value: string }
    /** `usernameHeader` or `emailHeader` is not a valid HTTP header name (RFC 9110 token). */
    | { readonly code: 'invalid_header_name'; readonly value: string }
    /** `apiScope` is not a single OAuth scope token (RFC 6749 §3.3). */
    | { readonly code: 'invalid_api_scope'; readonly value: string }
    /** `allowSignup: true` on a `reviewhost` provider, which only adds credentials to existing accounts. */
    | { readonly code: 'signup_not_supported'; readonly type: 'reviewhost' }
    /** A provider has the same type, URL and client as an earlier one (index `duplicateOf`). */
    | { readonly code: 'duplicate_provider'; readonly duplicateOf: number }
    /** A provider has the same `configID` as an earlier one (index `duplicateOf`). */
    | { readonly code: 'duplicate_config_id'; readonly configID: string; readonly duplicateOf: number }
    /** An `openidconnect` or `saml` provider while `externalURL` is unset: its callback address cannot be derived. */
    | { readonly code: 'external_url_required'; readonly type: 'openidconnect' | 'saml' }
    /** gatehouse's own reader failed on this text: a defect in gatehouse, not in the configuration. */
    | { readonly code: 'internal_error' }
    /** A problem inside `rateLimits` (spec §8), as reported by `queryLimitsFromRateLimits`. */
    | { readonly code: 'invalid_rate_limit'; readonly reason: RateLimitsProblem['code'] }
    /** A `trustedProxies` entry is not an IP address or CIDR range (or has bits set past its prefix). */
    | { readonly code: 'invalid_address_range'; readonly value: string; readonly reason: Exclude<AddressRangeError['code'], 'invalid_input'> }
    /**
     * An `http-header` provider while `trustedProxies` is unset or empty: identity headers would be believed from
     * anyone who reaches the port.
     */
    | { readonly code: 'trusted_proxies_required'; readonly type: 'http-header' }
    /** A number is not a whole number from `min` to `max` (`auth.lockout`, the link expiries). */
    | { readonly code: 'out_of_range'; readonly value: number; readonly min: number; readonly max: number }
    /** A value of `email.smtp`, `email.address` or `email.senderName` that cannot work (a port out of range, an unknown authentication, an address that is not one address). */
    | { readonly code: 'invalid_email_setting'; readonly value: string }
  );

/**
 * Why the site configuration gave no value. `invalid_site_configuration`: every problem found, grouped in this order:
 * syntax (alone, when the text is not JSONC), duplicate keys, `externalURL`, `auth.providers` (entry by entry),
 * `rateLimits`, `auth.public`, `trustedProxies` (entry by entry, then each `http-header` provider it leaves unguarded). `internal_error`: gatehouse's own reader failed (a defect in gatehouse, never the administrator's
 * mistake); its one problem says so, and the caller logs it.
 */
export type SiteConfigurationError =
  | {
      /** The configuration breaks a rule of spec §2.5 or §8. */
      readonly code: 'invalid_site_configuration';
      /** Every problem found; never empty when returned by {@link parseSiteConfiguration}. */
      readonly problems: readonly SiteConfigurationProblem[];
    }
  | {
      /** gatehouse's own reader failed. */
      readonly code: 'internal_error';
      /** One problem with code `internal_error` whose message says the fault is gatehouse's. */
      readonly problems: readonly SiteConfigurationProblem[];
    };

/** Something allowed but discouraged. */
export type SiteConfigurationWarning = SiteConfigurationLocation &
  /** An `http-header` provider without `emailHeader`: accounts are matched by (mutable) username only (§5.3 http-header rule 3). */
  { readonly code: 'username_only_matching' };

/** The parsed site configuration, every default applied. */
export interface SiteConfiguration {
  /** The public address of the instance, exactly as written; absent when unset. */
  readonly externalURL?: string;
  /** The entries of `auth.providers` in order, defaults applied; `[]` when `auth.providers` is absent. */
  readonly authProviders: readonly AuthProvider[];
  /** The limits read from `rateLimits` (spec §8); the defaults when `rateLimits` is absent. */
  readonly queryLimits: QueryLimits;
  /**
   * `auth.public`: whether anonymous requests may use `search`. Default `false`: `search` needs a signed-in viewer
   * (an access token, an OAuth token or a session).
   */
  readonly authPublic: boolean;
  /**
   * `trustedProxies`: the reverse proxies (addresses and CIDR ranges) whose `X-Forwarded-For` names the client and
   * whose `http-header` identity headers are believed; `[]` when unset (no header says anything about the client).
   */
  readonly trustedProxies: readonly AddressRange[];
  /** `auth.lockout`: failures in a row that lock an account, and for how long (defaults: 5, 1800 s, 3600 s). */
  readonly lockout: LockoutPolicy;
  /** `auth.passwordResetLinkExpiry`: how long a password reset link works, in seconds (default 14400). */
  readonly passwordResetLinkExpiry: number;
  /** `auth.unlockAccountLinkExpiry`: how long an unlock link works, in seconds (default 300). */
  readonly unlockAccountLinkExpiry: number;
  /** `email.smtp`, `email.address`, `email.senderName`: outgoing mail; `EMAIL_OFF` when `email.smtp` is unset. */
  readonly email: EmailConfiguration;
  /** Discouraged but allowed settings. */
  readonly warnings: readonly SiteConfigurationWarning[];
}

/**
 * The deepest nesting of arrays and objects accepted in the site configuration text. Real configurations nest a
 * few levels; the limit keeps parsing total (no stack overflow) on hostile input.
 *
 * @example
 * ```ts
 * MAX_SITE_CONFIGURATION_DEPTH; // 256
 * ```
 */
export const MAX_SITE_CONFIGURATION_DEPTH = 256;
