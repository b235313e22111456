/**
 * The typed entries of the site option `auth.providers` (spec §2.5), after parsing and defaults.
 *
 * These are the values {@link parseSiteConfiguration} returns: every default is already applied
 * (`allowSignup` is always a boolean, `apiScope` is always set for `hostb`), so code that decides
 * access never has to know a provider type's defaults.
 *
 * @module
 */
import type { ProviderSignInFields } from './sign-in-offer.js';

/**
 * Every provider `type` gatehouse understands, in the order of spec §2.5.
 *
 * @example
 * ```ts
 * PROVIDER_TYPES.includes('hosta'); // true
 * ```
 */
export const PROVIDER_TYPES = [
  'builtin',
  'hosta',
  'hostb',
  'hostccloud',
  'hostcserver',
  'reviewhost',
  'openidconnect',
  'http-header',
  'saml',
] as const;

/** A provider `type` (spec §2.5). */
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/**
 * The provider types that are code hosts signing people in with OAuth (spec §5.4 rule 3 applies to them).
 *
 * @example
 * ```ts
 * CODE_HOST_PROVIDER_TYPES.includes('hostcserver'); // true
 * ```
 */
export const CODE_HOST_PROVIDER_TYPES = ['hosta', 'hostb', 'hostccloud', 'hostcserver'] as const;

/** A code host provider type. */
export type CodeHostProviderType = (typeof CODE_HOST_PROVIDER_TYPES)[number];

/** The built-in username/password provider (spec §5.2). `allowSignup` defaults to `false`. */
export interface BuiltinProvider extends ProviderSignInFields {
  /** Always `builtin`. */
  readonly type: 'builtin';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Whether anyone may create an account with a password. Defaults to `false`. */
  readonly allowSignup: boolean;
}

/** The first code host, OAuth (spec §2.5, §5.3 `hosta`). `allowSignup` defaults to `false`. */
export interface HostaProvider extends ProviderSignInFields {
  /** Always `hosta`. */
  readonly type: 'hosta';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Code host URL; the empty string means the public hosted edition. */
  readonly url: string;
  /** OAuth client identifier. */
  readonly clientID: string;
  /** OAuth client secret. */
  readonly clientSecret: string;
  /** Whether new accounts may be created (spec §5.3 hosta rule 2: `false` when unset). */
  readonly allowSignup: boolean;
  /** Organisation names whose members are admitted; unset or empty means no restriction (rule 4). */
  readonly allowOrgs?: readonly string[];
  /** Org name to team display names whose direct members are admitted (rule 5). */
  readonly allowOrgsMap?: Readonly<Record<string, readonly string[]>>;
  /** Numeric organisation IDs as strings, or exactly `["all"]` (rule 7). */
  readonly requiredSsoOrgs?: readonly string[];
}

/** The second code host, OAuth (spec §2.5, §5.3 `hostb`). `allowSignup` defaults to `true`. */
export interface HostbProvider extends ProviderSignInFields {
  /** Always `hostb`. */
  readonly type: 'hostb';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Code host URL. */
  readonly url: string;
  /** OAuth client identifier. */
  readonly clientID: string;
  /** OAuth client secret. */
  readonly clientSecret: string;
  /** Whether new accounts may be created (spec §5.3 hostb rule 3: `true` when unset). */
  readonly allowSignup: boolean;
  /** The API scope requested besides `read_user`; `api` when unset (rule 2). */
  readonly apiScope: string;
  /** Full paths of groups or subgroups whose members (Guest or above) are admitted (rules 4, 5). */
  readonly allowGroups?: readonly string[];
  /** Group-level SSO entry URL with a `token` query parameter (rule 6). */
  readonly ssoURL?: string;
  /** When `false`, permissions of internal repositories are not synced. */
  readonly syncInternalRepoPermissions?: boolean;
}

/** The third code host, cloud edition, OAuth consumer (spec §5.3 `hostccloud`). `allowSignup` defaults to `true`. */
export interface HostccloudProvider extends ProviderSignInFields {
  /** Always `hostccloud`. */
  readonly type: 'hostccloud';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Code host URL, when not the public cloud edition. */
  readonly url?: string;
  /** OAuth consumer key, used in place of `clientID`. */
  readonly clientKey: string;
  /** OAuth consumer secret. */
  readonly clientSecret: string;
  /** Whether new accounts may be created; `true` when unset. */
  readonly allowSignup: boolean;
}

/** The third code host, self-hosted edition, incoming link (spec §5.3 `hostcserver`). `allowSignup` defaults to `false`. */
export interface HostcserverProvider extends ProviderSignInFields {
  /** Always `hostcserver`. */
  readonly type: 'hostcserver';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Code host URL. */
  readonly url: string;
  /** OAuth client identifier of the incoming link. */
  readonly clientID: string;
  /** OAuth client secret of the incoming link. */
  readonly clientSecret: string;
  /** Whether new accounts may be created; `false` when unset. */
  readonly allowSignup: boolean;
}

/** The code review host (beta): users add credentials to verify repository access (spec §5.3 `reviewhost`). */
export interface ReviewhostProvider extends ProviderSignInFields {
  /** Always `reviewhost`. */
  readonly type: 'reviewhost';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Must match the URL of the code host connection that requires authorization. */
  readonly url: string;
  /** Never used for sign-up: a review host only adds credentials to an existing account. Always `false`. */
  readonly allowSignup: boolean;
}

/** An OpenID Connect provider (spec §5.3 `openidconnect`). `allowSignup` defaults to `true`. */
export interface OpenIdConnectProvider extends ProviderSignInFields {
  /** Always `openidconnect`. */
  readonly type: 'openidconnect';
  /** Label shown to users (optional for this type). */
  readonly displayName?: string;
  /** OpenID Connect issuer URL; discovery reads `{issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** OAuth client identifier. */
  readonly clientID: string;
  /** OAuth client secret. */
  readonly clientSecret: string;
  /** Arbitrary value used to reference this provider within the site config. */
  readonly configID?: string;
  /** The single email domain users must belong to (rule 5). */
  readonly requireEmailDomain?: string;
  /** Whether new accounts may be created; `true` when unset (rule 4). */
  readonly allowSignup: boolean;
}

/** An HTTP authentication proxy (spec §5.3 `http-header`). `allowSignup` defaults to `true`. */
export interface HttpHeaderProvider extends ProviderSignInFields {
  /** Always `http-header`. */
  readonly type: 'http-header';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Name of the request header carrying the username. */
  readonly usernameHeader?: string;
  /** Name of the request header carrying the email. */
  readonly emailHeader?: string;
  /** Prefix removed from the username header value when it starts with it (rule 2). */
  readonly stripUsernameHeaderPrefix?: string;
  /** Whether new accounts may be created; `true` when unset. */
  readonly allowSignup: boolean;
}

/**
 * A SAML 2.0 identity provider (spec §5.2). The spec shows no fields; gatehouse reads the
 * ones a service provider needs (see docs/spec-readings.md). `allowSignup` defaults to `true`.
 */
export interface SamlProvider extends ProviderSignInFields {
  /** Always `saml`. */
  readonly type: 'saml';
  /** Label shown to users. */
  readonly displayName?: string;
  /** Arbitrary value used to reference this provider within the site config. */
  readonly configID?: string;
  /** The identity provider's single sign-on URL. */
  readonly entryPoint: string;
  /** The identity provider's signing certificate (PEM or base64 DER). */
  readonly idpCertificate: string;
  /** The entity ID of this service provider; `{externalURL}/.auth/saml/metadata` when unset. */
  readonly serviceProviderIssuer?: string;
  /** Whether new accounts may be created; `true` when unset. */
  readonly allowSignup: boolean;
}

/** One parsed entry of `auth.providers`, discriminated by `type`. */
export type AuthProvider =
  | BuiltinProvider
  | HostaProvider
  | HostbProvider
  | HostccloudProvider
  | HostcserverProvider
  | ReviewhostProvider
  | OpenIdConnectProvider
  | HttpHeaderProvider
  | SamlProvider;

/** A parsed code host provider. */
export type CodeHostProvider = HostaProvider | HostbProvider | HostccloudProvider | HostcserverProvider;
