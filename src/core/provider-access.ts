/**
 * Whether a person a provider authenticated passes that provider's membership rules (spec §5.3).
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import type { AuthProvider } from './auth-providers.js';
import {
  GROUP_ACCESS_LEVEL,
  parseExternalIdentity,
  type ExternalIdentity,
  type ExternalIdentityError,
} from './external-identity.js';
import { asciiLowercase, emailDomain } from './internal/email-address.js';
import { readProviderFacts, type Gate, type ProviderFacts } from './internal/provider-facts.js';

/**
 * Every reason {@link decideProviderAccess} may deny.
 *
 * @example
 * ```ts
 * ACCESS_DENIAL_REASONS.includes('minimal_access'); // true
 * ```
 */
export const ACCESS_DENIAL_REASONS = [
  'not_in_allowed_orgs_or_teams',
  'not_in_allowed_groups',
  'minimal_access',
  'email_domain_not_allowed',
  'unverified_email',
  'membership_unknown',
] as const;

/**
 * Why a person is kept out:
 * `not_in_allowed_orgs_or_teams` (`hosta`: in none of `allowOrgs`, and in no team of `allowOrgsMap`),
 * `not_in_allowed_groups` (`hostb`: no membership of Guest or above in a group of `allowGroups`),
 * `minimal_access` (`hostb`: the listed memberships are at Minimal Access, rule 5),
 * `email_domain_not_allowed` (`openidconnect`: the primary email is not an address in `requireEmailDomain`),
 * `unverified_email` (`openidconnect`: the primary email is in the domain but the provider has not verified it),
 * `membership_unknown` (a membership list the rule needs is missing or was cut short).
 */
export type AccessDenialReason = (typeof ACCESS_DENIAL_REASONS)[number];

/**
 * What admitted a person: no rule (`unrestricted`), an `allowOrgs` org, an `allowOrgsMap` team, an
 * `allowGroups` group, or the `requireEmailDomain` domain.
 */
export type AdmittedBy = 'unrestricted' | 'org' | 'team' | 'group' | 'email_domain';

/** The outcome of {@link decideProviderAccess}. */
export type AccessDecision =
  /** The person passes the provider's membership rules. */
  | { readonly kind: 'allow'; readonly admittedBy: AdmittedBy }
  /** The person may neither sign in nor sign up through this provider. */
  | { readonly kind: 'deny'; readonly reason: AccessDenialReason };

/** Why {@link decideProviderAccess} could not decide: the input does not have the documented shape. */
export type ProviderAccessError =
  /** A field of the provider entry that gating reads is missing or has the wrong type; `path` names it. */
  | { readonly code: 'invalid_provider'; readonly path: string; readonly expected: string }
  /** The identity is malformed (see `parseExternalIdentity`). */
  | ExternalIdentityError;

// How the evidence of one membership list stands against one listed set.
type Evidence = 'admitted' | 'not_admitted' | 'unknown' | 'not_checked';

function evidence<T>(
  listed: readonly unknown[],
  memberships: readonly T[] | undefined,
  complete: boolean,
  admits: (membership: T) => boolean,
): Evidence {
  if (listed.length === 0) return 'not_checked';
  if (memberships === undefined) return 'unknown';
  if (memberships.some(admits)) return 'admitted';
  return complete ? 'not_admitted' : 'unknown';
}

function decideOrgsAndTeams(
  gate: Extract<Gate, { kind: 'orgs_and_teams' }>,
  identity: ExternalIdentity,
  complete: boolean,
): AccessDecision {
  const org = evidence(gate.orgs, identity.orgs, complete, (name) => gate.orgs.includes(asciiLowercase(name)));
  const team = evidence(gate.teams, identity.teams, complete, (t) => {
    const teamOrg = asciiLowercase(t.org);
    return gate.teams.some((listed) => listed.org === teamOrg && listed.name === t.name);
  });
  const denied = 'not_in_allowed_orgs_or_teams';
  // Rule 6: the org check comes first; teams are consulted only when no listed org admits.
  return match([org, team] as const)
    .returnType<AccessDecision>()
    .with(['admitted', P._], () => ({ kind: 'allow', admittedBy: 'org' }))
    .with([P.union('not_admitted', 'unknown', 'not_checked'), 'admitted'], () => ({ kind: 'allow', admittedBy: 'team' }))
    .with(['unknown', P.union('not_admitted', 'unknown', 'not_checked')], () => ({ kind: 'deny', reason: 'membership_unknown' }))
    .with([P.union('not_admitted', 'not_checked'), 'unknown'], () => ({ kind: 'deny', reason: 'membership_unknown' }))
    .with([P.union('not_admitted', 'not_checked'), P.union('not_admitted', 'not_checked')], () => ({
      kind: 'deny',
      reason: denied,
    }))
    .exhaustive();
}

function decideGroups(
  gate: Extract<Gate, { kind: 'groups' }>,
  identity: ExternalIdentity,
  complete: boolean,
): AccessDecision {
  const listed = identity.groups?.filter((g) => gate.paths.includes(g.fullPath));
  const state = match([listed, complete] as const)
    .returnType<'admitted' | 'minimal_access_only' | 'not_admitted' | 'unknown'>()
    .with([undefined, P._], () => 'unknown')
    .with([P.array(), P._], ([groups]) => groups.some((g) => g.accessLevel >= GROUP_ACCESS_LEVEL.guest), () => 'admitted')
    .with([P.array(), false], () => 'unknown')
    .with(
      [P.array(), true],
      ([groups]) => groups.some((g) => g.accessLevel === GROUP_ACCESS_LEVEL.minimalAccess),
      () => 'minimal_access_only',
    )
    .with([P.array(), true], () => 'not_admitted')
    .exhaustive();
  return match(state)
    .returnType<AccessDecision>()
    .with('admitted', () => ({ kind: 'allow', admittedBy: 'group' }))
    .with('unknown', () => ({ kind: 'deny', reason: 'membership_unknown' }))
    .with('minimal_access_only', () => ({ kind: 'deny', reason: 'minimal_access' }))
    .with('not_admitted', () => ({ kind: 'deny', reason: 'not_in_allowed_groups' }))
    .exhaustive();
}

function decideEmailDomain(gate: Extract<Gate, { kind: 'email_domain' }>, identity: ExternalIdentity): AccessDecision {
  // The primary (first) email decides; see docs/spec-readings.md.
  const primary = identity.emails[0];
  const inDomain = primary !== undefined && emailDomain(primary.address) === gate.domain;
  return match([inDomain, primary?.verified === true] as const)
    .returnType<AccessDecision>()
    .with([false, P.boolean], () => ({ kind: 'deny', reason: 'email_domain_not_allowed' }))
    .with([true, false], () => ({ kind: 'deny', reason: 'unverified_email' }))
    .with([true, true], () => ({ kind: 'allow', admittedBy: 'email_domain' }))
    .exhaustive();
}

/**
 * Gating on already-validated input; {@link decideProviderAccess} and `resolveSignIn` share it.
 *
 * @param facts - The provider's facts.
 * @param identity - A validated identity.
 * @returns The decision.
 * @internal
 * @example
 * ```ts
 * decideAccessWithFacts({ type: 'hostb', allowSignup: true, serviceId: '', gate: { kind: 'groups', paths: ['acme'] } },
 *   { accountId: '1', username: 'b', emails: [], groups: [{ fullPath: 'acme', accessLevel: 5 }] });
 * // { kind: 'deny', reason: 'minimal_access' }
 * ```
 */
export function decideAccessWithFacts(facts: ProviderFacts, identity: ExternalIdentity): AccessDecision {
  const complete = identity.membershipComplete !== false;
  return match(facts.gate)
    .returnType<AccessDecision>()
    .with({ kind: 'none' }, () => ({ kind: 'allow', admittedBy: 'unrestricted' }))
    .with({ kind: 'orgs_and_teams' }, (gate) => decideOrgsAndTeams(gate, identity, complete))
    .with({ kind: 'groups' }, (gate) => decideGroups(gate, identity, complete))
    .with({ kind: 'email_domain' }, (gate) => decideEmailDomain(gate, identity))
    .exhaustive();
}

/**
 * Reads a provider entry for gating, mapping a bad field to `invalid_provider`.
 *
 * @param provider - A value that should be an {@link AuthProvider}.
 * @returns The facts, or `err`.
 * @internal
 * @example
 * ```ts
 * readProviderForAccess({ type: 'builtin', allowSignup: false });
 * // ok({ type: 'builtin', allowSignup: false, serviceId: '', gate: { kind: 'none' } })
 * ```
 */
export function readProviderForAccess(provider: unknown): Result<ProviderFacts, ProviderAccessError> {
  return readProviderFacts(provider).mapErr((problem) => ({
    code: 'invalid_provider',
    path: problem.path,
    expected: problem.expected,
  }));
}

/**
 * Decides whether the person `identity` describes passes the membership rules of `provider`
 * (spec §5.3, §7 rules 3–4). The rules restrict sign-in and sign-up alike; whether an account may
 * be created is decided afterwards by `resolveSignIn`.
 *
 * - `hosta`: with neither a non-empty `allowOrgs` nor an `allowOrgsMap` listing a team,
 *   `unrestricted`. A member of a listed org is admitted (`org`; org names compare
 *   case-insensitively). Only when no listed org admits, a direct member of a listed team is
 *   admitted (`team`; the org compares case-insensitively, the team's display name exactly, and a
 *   parent team does not admit members of its child teams nor the reverse). Otherwise
 *   `not_in_allowed_orgs_or_teams`.
 * - `hostb`: with a non-empty `allowGroups`, the person needs Guest (10) or above in a group whose
 *   full path is listed exactly; listed memberships only at Minimal Access (5) give `minimal_access`,
 *   anything else `not_in_allowed_groups`.
 * - `openidconnect`: with `requireEmailDomain`, the primary email must be an address (exactly one
 *   `@`) whose domain equals it ASCII-case-insensitively, subdomains excluded
 *   (`email_domain_not_allowed`), and be verified by the provider (`unverified_email`).
 * - A rule whose membership list is absent, or cut short (`membershipComplete: false`), denies with
 *   `membership_unknown` — unless what is known already admits, since a longer list can only add
 *   memberships.
 * - Every other provider type has no membership rule: `unrestricted`.
 *
 * @param provider - A parsed provider entry (defaults applied).
 * @param identity - What the provider reported about the person.
 * @returns `ok` with `allow` (and what admitted) or `deny` (and why); `err` only when a field that
 * gating reads is malformed at run time.
 * @example Organisations and teams
 * ```ts
 * const hosta: HostaProvider = {
 *   type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup: false,
 *   allowOrgs: ['acme'], allowOrgsMap: { globex: ['Core Team'] },
 * };
 * decideProviderAccess(hosta, { accountId: '1', username: 'octo', emails: [], orgs: ['ACME'], teams: [] });
 * // ok({ kind: 'allow', admittedBy: 'org' })
 * decideProviderAccess(hosta, { accountId: '1', username: 'octo', emails: [], orgs: [], teams: [{ org: 'globex', name: 'core team' }] });
 * // ok({ kind: 'deny', reason: 'not_in_allowed_orgs_or_teams' })
 * ```
 * @example Minimal Access
 * ```ts
 * decideProviderAccess(hostb, { accountId: '2', username: 'b', emails: [], groups: [{ fullPath: 'acme', accessLevel: 5 }] });
 * // ok({ kind: 'deny', reason: 'minimal_access' })   (hostb.allowGroups = ['acme'])
 * ```
 */
export function decideProviderAccess(
  provider: AuthProvider,
  identity: ExternalIdentity,
): Result<AccessDecision, ProviderAccessError> {
  const facts = readProviderForAccess(provider);
  if (facts.isErr()) return err(facts.error);
  const parsed = parseExternalIdentity(identity);
  if (parsed.isErr()) return err(parsed.error);
  return ok(decideAccessWithFacts(facts.value, parsed.value));
}
