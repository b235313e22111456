/**
 * What the spec says about one provider type, as data: its fields (§2.5), the default of `allowSignup` (§5.3), its
 * membership rule (§5.3), the field that names its account namespace, its callback path (§4) and its OAuth scopes
 * (§5.3). Each provider type has one file in this folder; `index.ts` gathers them in one registry.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AuthProvider, ProviderType } from '../auth-providers.js';
import type { FieldProblem } from '../internal/guard.js';
import type { CommonFields, EntryScope } from '../site-configuration/fields.js';

/** The provider types that have no callback address: they never redirect the browser back from elsewhere. */
export type ProviderWithoutCallback = 'builtin' | 'http-header' | 'reviewhost';

/** The provider types that sign people in with OAuth 2.0 (they have OAuth scopes). */
export type OAuthProviderType = 'hosta' | 'hostb' | 'hostccloud' | 'hostcserver' | 'openidconnect';

/** A team an `allowOrgsMap` entry admits. */
export interface ListedTeam {
  /** The organisation, ASCII-lowercased (organisation names are case-insensitive). */
  readonly org: string;
  /** The team's display name, exactly as configured (compared case-sensitively). */
  readonly name: string;
}

/** The membership rule of a provider entry (spec §5.3). */
export type Gate =
  /** No membership rule: anyone the provider authenticates passes. */
  | { readonly kind: 'none' }
  /** `hosta` with a non-empty `allowOrgs` or an `allowOrgsMap` that lists a team. */
  | { readonly kind: 'orgs_and_teams'; readonly orgs: readonly string[]; readonly teams: readonly ListedTeam[] }
  /** `hostb` with a non-empty `allowGroups`. */
  | { readonly kind: 'groups'; readonly paths: readonly string[] }
  /** `openidconnect` with `requireEmailDomain`. */
  | { readonly kind: 'email_domain'; readonly domain: string };

/** The field whose value (without trailing slashes) names the provider's account namespace, and whether it may be absent. */
export interface ServiceIdField {
  /** `url`, `issuer` or `entryPoint`. */
  readonly key: 'url' | 'issuer' | 'entryPoint';
  /** Whether the entry may leave it out (then the namespace is `''`). */
  readonly optional: boolean;
}

/** What the spec says about provider type `T`. */
export interface ProviderSpec<T extends ProviderType> {
  /** The provider type. */
  readonly type: T;
  /** The fields the type accepts besides `type`, `displayName` and `allowSignup` (spec §2.5). */
  readonly fields: readonly string[];
  /** The value of `allowSignup` when the entry leaves it unset (spec §5.3). */
  readonly defaultAllowSignup: boolean;
  /** The field that names the account namespace, or `null` when the type has one namespace only. */
  readonly serviceId: ServiceIdField | null;
  /** Reads the membership rule from an entry (already an object); `err` names a malformed field. */
  readonly gate: (provider: object) => Result<Gate, FieldProblem>;
  /** Reads and checks one entry of this type from the site configuration (spec §2.5), reporting every problem. */
  readonly readEntry: (scope: EntryScope, common: CommonFields) => AuthProvider | null;
  /** The callback path under `externalURL` (spec §4), or `null` for types that never redirect back. */
  readonly callbackPath: T extends ProviderWithoutCallback ? null : string;
  /** The OAuth scopes to request for an entry (spec §5.3), or `null` for types that do not use OAuth. */
  readonly scopes: T extends OAuthProviderType ? (provider: object) => readonly string[] : null;
}
