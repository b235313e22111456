/**
 * Why a sign-in decides what it decides: {@link explainSignIn} runs the very steps of `resolveSignIn` (one code
 * path, so the decision cannot drift) and reports, in order, each rule of the spec it applied (§5.3 gating, §5.4
 * linking, §5.5 naming, §7 refusals), the plain facts that rule read and its outcome. {@link signInRefusalReason}
 * turns a refusal's trace into a sentence the person can act on.
 *
 * A trace holds only what the rules read: the provider's type, `allowSignup` and membership lists, the identity's
 * username, emails and memberships, and the accounts found (id, username, origin, verified emails). Never a
 * provider's client id or secret, its URLs, or anything else of the entry.
 *
 * @module
 */
import { match } from 'ts-pattern';
import type { Result } from 'neverthrow';
import type { Account } from '../account-directory.js';
import type { ProviderType } from '../auth-providers.js';
import { GROUP_ACCESS_LEVEL, parseExternalIdentity, type ExternalIdentity } from '../external-identity.js';
import { asciiLowercase, emailDomain, emailMatchKey } from '../internal/email-address.js';
import { ownField } from '../internal/guard.js';
import type { Gate, ProviderFacts } from '../internal/provider-facts.js';
import { readProviderForAccess } from '../provider-access.js';
import { normalizeUsername } from '../username.js';
import { SIGN_IN_DENIAL_REASONS, type SignInDenialReason, type SignInFacts, type SignInPlan } from './plan.js';
import { resolveSignInSteps, type SignInDecision, type SignInError, type SignInInput, type SignInSteps } from './resolve.js';
import type { SignInRuleId } from './rules.js';

/**
 * A plain value a trace step read: JSON-shaped data.
 *
 * @example
 * ```ts
 * const fact: TraceValue = { address: 'octo@example.com', verified: true };
 * ```
 */
export type TraceValue = string | number | boolean | null | readonly TraceValue[] | { readonly [key: string]: TraceValue };

/**
 * One step of a sign-in's trace: the rule applied, what it read, and what it found.
 *
 * @example
 * ```ts
 * const step: SignInTraceStep = {
 *   rule: '§5.3 hosta rule 4',
 *   facts: { allowOrgs: ['acme'], orgs: ['acme'], matched: ['acme'] },
 *   outcome: 'admitted',
 *   note: 'A member of a listed organization.',
 * };
 * ```
 */
export interface SignInTraceStep {
  /** The rule of the spec, as `SIGN_IN_RULES` names it. */
  readonly rule: SignInRuleId;
  /** The plain data the rule read. */
  readonly facts: { readonly [key: string]: TraceValue };
  /**
   * What the rule found, a snake_case code: `admitted`, `not_admitted`, `membership_unknown`, `no_restriction`,
   * `no_membership_rule`, `teams_not_consulted`, `teams_consulted`, `guest_or_above`, `minimal_access_only`,
   * `below_guest`, `linked`, `linked_to_other_user`, `not_linked`, `link_to_signed_in_user`, `matched`, `no_match`,
   * `not_claimable`, `verified_email_missing`, `signup_allowed`, `signup_not_allowed`, `normalized`,
   * `no_name`, `suffixed`, `no_free_name`, `not_for_sign_in`, and, for the last step, `sign_in`, `create` or `deny`.
   */
  readonly outcome: string;
  /** The outcome in one English sentence. */
  readonly note: string;
}

/**
 * What {@link explainSignIn} returns: the decision `resolveSignIn` makes on the same input, and the rules that made it.
 *
 * @example
 * ```ts
 * const explanation: SignInExplanation = { decision: { kind: 'deny', reason: 'signup_not_allowed', message: '…' }, trace: [] };
 * ```
 */
export interface SignInExplanation {
  /** Exactly what `resolveSignIn` returns on the same input. */
  readonly decision: SignInDecision;
  /** The rules applied, in the order they were applied; the last step states the decision. */
  readonly trace: readonly SignInTraceStep[];
}

type Facts = { readonly [key: string]: TraceValue };

function step(rule: SignInRuleId, facts: Facts, outcome: string, note: string): SignInTraceStep {
  return { rule, facts, outcome, note };
}

function emailFacts(identity: ExternalIdentity): TraceValue {
  return identity.emails.map((e) => ({ address: e.address, verified: e.verified }));
}

function accountFacts(account: Account | null): TraceValue {
  if (account === null) return null;
  return {
    id: account.id,
    username: account.username,
    origin: account.origin,
    verifiedEmails: account.emails.filter((e) => e.verified).map((e) => e.address),
  };
}

// How one membership list stands against one listed set (the same reading as `decideProviderAccess`).
type Evidence = 'admitted' | 'not_admitted' | 'membership_unknown' | 'no_restriction';

function evidenceOf(listed: number, memberships: readonly unknown[] | undefined, admitted: number, complete: boolean): Evidence {
  if (listed === 0) return 'no_restriction';
  if (memberships === undefined) return 'membership_unknown';
  if (admitted > 0) return 'admitted';
  return complete ? 'not_admitted' : 'membership_unknown';
}

const EVIDENCE_NOTES: Readonly<Record<Evidence, string>> = {
  admitted: 'A listed membership admits the person.',
  not_admitted: 'No listed membership admits the person.',
  membership_unknown: 'The membership list is missing or was cut short, so it cannot say no.',
  no_restriction: 'The list is empty or unset: no restriction.',
};

// §5.3 hosta rules 3–6.
function hostaSteps(gate: Gate, allowSignup: boolean, identity: ExternalIdentity, complete: boolean): SignInTraceStep[] {
  const orgs = gate.kind === 'orgs_and_teams' ? gate.orgs : [];
  const teams = gate.kind === 'orgs_and_teams' ? gate.teams : [];
  const steps: SignInTraceStep[] = [];
  if (orgs.length === 0 && teams.length === 0 && allowSignup) {
    steps.push(step('§5.3 hosta rule 3', { allowSignup, allowOrgs: [], allowOrgsMap: [] }, 'no_restriction', 'Sign-up is on and no organization or team is listed: any user of the code host may join.'));
  }
  const matchedOrgs = (identity.orgs ?? []).filter((org) => orgs.includes(asciiLowercase(org)));
  const org = evidenceOf(orgs.length, identity.orgs, matchedOrgs.length, complete);
  steps.push(
    step(
      '§5.3 hosta rule 4',
      { allowOrgs: [...orgs], orgs: identity.orgs === undefined ? null : [...identity.orgs], matched: matchedOrgs, membershipComplete: complete },
      org,
      org === 'admitted' ? 'A member of a listed organization.' : EVIDENCE_NOTES[org],
    ),
  );
  const listedTeams = teams.map((t) => ({ org: t.org, name: t.name }));
  if (orgs.length > 0 && teams.length > 0) {
    steps.push(
      step(
        '§5.3 hosta rule 6',
        { orgMembership: org },
        org === 'admitted' ? 'teams_not_consulted' : 'teams_consulted',
        org === 'admitted'
          ? 'Organization membership is checked first and admits: teams are not consulted.'
          : 'In none of the listed organizations: team membership decides.',
      ),
    );
    if (org === 'admitted') return steps;
  }
  const personTeams = identity.teams;
  const isListed = (t: { readonly org: string; readonly name: string }): boolean =>
    teams.some((listed) => listed.org === asciiLowercase(t.org) && listed.name === t.name);
  const matchedTeams = (personTeams ?? []).filter(isListed).map((t) => ({ org: t.org, name: t.name }));
  // teams of a listed org whose name differs from a listed one only in case or surrounding spaces: a mismatch
  const nearMisses = (personTeams ?? [])
    .filter((t) => !isListed(t))
    .filter((t) => teams.some((listed) => listed.org === asciiLowercase(t.org) && asciiLowercase(listed.name.trim()) === asciiLowercase(t.name.trim())))
    .map((t) => ({ org: t.org, name: t.name }));
  const team = evidenceOf(teams.length, personTeams, matchedTeams.length, complete);
  const teamNote = match(team)
    .returnType<string>()
    .with('admitted', () => 'A direct member of a listed team (display names match exactly).')
    .with('not_admitted', () =>
      nearMisses.length > 0
        ? 'A team name differs from a listed one (team display names must match exactly; child teams do not inherit).'
        : 'In none of the listed teams (team display names must match exactly; child teams do not inherit).',
    )
    .with('membership_unknown', 'no_restriction', (e) => EVIDENCE_NOTES[e])
    .exhaustive();
  steps.push(
    step(
      '§5.3 hosta rule 5',
      {
        allowOrgsMap: listedTeams,
        teams: personTeams === undefined ? null : personTeams.map((t) => ({ org: t.org, name: t.name })),
        matched: matchedTeams,
        nameMismatches: nearMisses,
        membershipComplete: complete,
      },
      team,
      teamNote,
    ),
  );
  return steps;
}

// §5.3 hostb rules 4–5.
function hostbSteps(gate: Gate, identity: ExternalIdentity, complete: boolean): SignInTraceStep[] {
  const paths = gate.kind === 'groups' ? gate.paths : [];
  const groups = identity.groups;
  const listed = (groups ?? []).filter((g) => paths.includes(g.fullPath)).map((g) => ({ fullPath: g.fullPath, accessLevel: g.accessLevel }));
  const inGroup = evidenceOf(paths.length, groups, listed.length, complete);
  const steps = [
    step(
      '§5.3 hostb rule 4',
      {
        allowGroups: [...paths],
        groups: groups === undefined ? null : groups.map((g) => ({ fullPath: g.fullPath, accessLevel: g.accessLevel })),
        listedMemberships: listed,
        membershipComplete: complete,
      },
      inGroup,
      inGroup === 'admitted' ? 'A member of a listed group (full paths match exactly).' : EVIDENCE_NOTES[inGroup],
    ),
  ];
  if (listed.length === 0) return steps;
  const guest = listed.some((g) => g.accessLevel >= GROUP_ACCESS_LEVEL.guest);
  const minimal = listed.some((g) => g.accessLevel === GROUP_ACCESS_LEVEL.minimalAccess);
  const [outcome, note] = guest
    ? ['guest_or_above', 'Guest access or above in a listed group.']
    : !complete
      ? ['membership_unknown', 'No listed membership at Guest or above, and the list was cut short.']
      : minimal
        ? ['minimal_access_only', 'The listed memberships are at the Minimal Access level, which cannot sign in.']
        : ['below_guest', 'The listed memberships are below the Guest level.'];
  steps.push(step('§5.3 hostb rule 5', { listedMemberships: listed, guestLevel: GROUP_ACCESS_LEVEL.guest, minimalAccessLevel: GROUP_ACCESS_LEVEL.minimalAccess }, outcome, note));
  return steps;
}

// §5.3 openidconnect rule 5.
function emailDomainStep(gate: Gate, identity: ExternalIdentity): SignInTraceStep {
  const domain = gate.kind === 'email_domain' ? gate.domain : null;
  const primary = identity.emails[0];
  const facts: Facts = {
    requireEmailDomain: domain,
    primaryEmail: primary === undefined ? null : { address: primary.address, verified: primary.verified },
  };
  if (domain === null) return step('§5.3 openidconnect rule 5', facts, 'no_restriction', 'No `requireEmailDomain`: no restriction.');
  if (primary === undefined || emailDomain(primary.address) !== domain) {
    return step('§5.3 openidconnect rule 5', facts, 'not_admitted', 'The primary email is not an address in the required domain.');
  }
  return primary.verified
    ? step('§5.3 openidconnect rule 5', facts, 'admitted', 'The primary email is in the required domain and verified.')
    : step('§5.3 openidconnect rule 5', facts, 'unverified', 'The primary email is in the required domain but not verified by the provider.');
}

// The membership rules of the provider (spec §5.3), or the block that says it has none.
function gatingSteps(provider: ProviderFacts, identity: ExternalIdentity): SignInTraceStep[] {
  const complete = identity.membershipComplete !== false;
  const none = (rule: SignInRuleId): SignInTraceStep[] => [
    step(rule, { providerType: provider.type }, 'no_membership_rule', 'This provider type has no membership rule.'),
  ];
  return match(provider.type)
    .returnType<SignInTraceStep[]>()
    .with('hosta', () => hostaSteps(provider.gate, provider.allowSignup, identity, complete))
    .with('hostb', () => hostbSteps(provider.gate, identity, complete))
    .with('openidconnect', () => [emailDomainStep(provider.gate, identity)])
    .with('hostccloud', () => none('§5.3 hostccloud'))
    .with('hostcserver', () => none('§5.3 hostcserver'))
    .with('reviewhost', () => none('§5.3 reviewhost'))
    .with('http-header', () => none('§5.3 http-header'))
    .with('builtin', 'saml', () => none('§5.2'))
    .exhaustive();
}

// The rule that says whether an unmatched person may sign up through this provider type.
function signupRule(type: ProviderType): SignInRuleId {
  return match(type)
    .returnType<SignInRuleId>()
    .with('hosta', () => '§5.3 hosta rule 2')
    .with('hostb', () => '§5.3 hostb rule 3')
    .with('openidconnect', () => '§5.3 openidconnect rule 4')
    .with('hostccloud', () => '§5.3 hostccloud')
    .with('hostcserver', () => '§5.3 hostcserver')
    .with('builtin', 'reviewhost', 'http-header', 'saml', () => '§5.4 rule 2')
    .exhaustive();
}

function usernameRule(type: ProviderType): SignInRuleId {
  return type === 'http-header' ? '§5.3 http-header rule 3' : '§5.4 rule 5';
}

/** The rule a refusal for `reason` cites. */
function denialRule(reason: SignInDenialReason, provider: ProviderFacts): SignInRuleId {
  return match(reason)
    .returnType<SignInRuleId>()
    .with('not_in_allowed_orgs_or_teams', 'not_in_allowed_groups', 'signup_not_allowed', () => '§7 rule 3')
    .with('minimal_access', () => '§7 rule 4')
    .with('email_domain_not_allowed', 'unverified_email', () => '§5.3 openidconnect rule 5')
    .with('membership_unknown', () => (provider.type === 'hostb' ? '§5.3 hostb rule 4' : '§5.3 hosta rule 4'))
    .with('provider_not_for_sign_in', () => '§5.3 reviewhost')
    .with('identity_linked_to_other_user', () => '§5.4 rule 4')
    .with('verified_email_missing', () => '§7 rule 2')
    .with('username_missing', () => '§5.4 rule 2')
    .with('username_unavailable', () => '§5.5 rule 8')
    .exhaustive();
}

function decisionStep(decision: SignInDecision, provider: ProviderFacts): SignInTraceStep {
  return match(decision)
    .returnType<SignInTraceStep>()
    .with({ kind: 'deny' }, (d) => step(denialRule(d.reason, provider), { reason: d.reason }, 'deny', `Refused: ${d.message}`))
    .with({ kind: 'create' }, (d) =>
      step('§5.4 rule 2', { username: d.username, emails: d.emails.map((e) => ({ address: e.address, verified: e.verified })) }, 'create', `A new account named ${d.username} is created and the identity linked to it.`),
    )
    .with({ kind: 'sign_in' }, (d) => {
      const rule = match(d.via)
        .returnType<SignInRuleId>()
        .with('external_account', 'signed_in_user', () => '§5.4 rule 4')
        .with('verified_email', () => '§5.4 rule 2')
        .with('username', () => usernameRule(provider.type))
        .exhaustive();
      return step(rule, { userId: d.userId, via: d.via, linkExternalAccount: d.linkExternalAccount }, 'sign_in', `Signed in to the existing account (found by ${d.via.replace(/_/gu, ' ')}).`);
    })
    .exhaustive();
}

// §5.5: how the new account's name was made from the identity.
function namingSteps(identity: ExternalIdentity, username: string | null, taken: readonly string[]): SignInTraceStep[] {
  const fromUsername = identity.username !== null && normalizeUsername(identity.username).isOk();
  const source = fromUsername ? identity.username : (identity.emails[0]?.address ?? null);
  if (source === null) return [step('§5.4 rule 2', { username: identity.username, primaryEmail: null }, 'no_name', 'Nothing to name a new account after.')];
  const normalized = normalizeUsername(source).unwrapOr('');
  const atSigns = source.split('@').length - 1;
  const steps = [
    step(
      atSigns === 1 ? '§5.5 rule 2' : '§5.5 rule 1',
      { from: fromUsername ? 'username' : 'primary_email', name: source, normalized },
      'normalized',
      normalized === source ? 'The name is already a valid username.' : `The name normalizes to ${normalized}.`,
    ),
  ];
  if (taken.length > 0) {
    steps.push(
      step(
        '§5.5 rule 8',
        { taken: [...taken], chosen: username },
        username === null ? 'no_free_name' : 'suffixed',
        username === null ? 'Every candidate name is taken.' : `The name is taken: a random suffix makes it ${username}.`,
      ),
    );
  }
  return steps;
}

// §5.4: the lookups, in the order `decideSignIn` weighs them, up to the one that decided.
function linkingSteps(
  plan: Extract<SignInPlan, { readonly kind: 'look_up' }>,
  found: SignInFacts,
  steps: SignInSteps,
  provider: ProviderFacts,
  identity: ExternalIdentity,
): SignInTraceStep[] {
  const out: SignInTraceStep[] = [];
  const { lookups, signedInUserId } = plan;
  const linked = found.externalAccount;
  const link = linked === null ? 'not_linked' : signedInUserId === null || signedInUserId === linked.id ? 'linked' : 'linked_to_other_user';
  out.push(
    step(
      '§5.4 rule 4',
      { providerType: provider.type, accountId: identity.accountId, linkedAccount: accountFacts(linked), signedInUserId },
      link,
      match(link)
        .returnType<string>()
        .with('linked', () => 'The identity is already linked to an account.')
        .with('linked_to_other_user', () => 'The identity is linked to an account other than the signed-in one.')
        .with('not_linked', () => 'The identity is not linked to any account yet.')
        .exhaustive(),
    ),
  );
  if (link !== 'not_linked') return out;
  if (signedInUserId !== null) {
    out.push(step('§5.4 rule 4', { signedInUserId }, 'link_to_signed_in_user', 'Someone is signed in: the identity is added to their account.'));
    return out;
  }
  const candidates = lookups.verifiedEmails.map((email, i) => {
    const account = found.verifiedEmails[i] ?? null;
    const verifiedThere = account !== null && account.emails.some((e) => e.verified && emailMatchKey(e.address) === email.key);
    return { address: email.address, account: accountFacts(account), verifiedThere };
  });
  const byEmail = candidates.find((c) => c.verifiedThere);
  out.push(
    step(
      '§5.4 rule 2',
      { emails: emailFacts(identity), lookups: candidates },
      byEmail === undefined ? 'no_match' : 'matched',
      byEmail === undefined
        ? 'No verified email of the identity is a verified email of an account here.'
        : `The verified email ${byEmail.address} is verified on an account here.`,
    ),
  );
  if (byEmail !== undefined) return out;
  const codeHostWithoutEmail = plan.whenNoAccount.kind === 'deny' && plan.whenNoAccount.reason === 'verified_email_missing';
  if (codeHostWithoutEmail) {
    out.push(step('§5.4 rule 3', { emails: emailFacts(identity) }, 'verified_email_missing', 'The code host reported no verified email: no account can be matched, even by username.'));
    return out;
  }
  if (lookups.username !== null) {
    const named = found.username;
    const claimed = steps.decision.kind === 'sign_in' && steps.decision.via === 'username';
    out.push(
      step(
        usernameRule(provider.type),
        { username: lookups.username.name, account: accountFacts(named) },
        claimed ? 'matched' : named === null ? 'no_match' : 'not_claimable',
        claimed
          ? 'An account an administrator created with this username, not yet linked to this provider type, matches.'
          : named === null
            ? 'No account has this username.'
            : 'An account has this name, but it is someone else\'s: only an unlinked administrator-created account matches by username.',
      ),
    );
    if (claimed) return out;
  }
  out.push(
    step(
      signupRule(provider.type),
      { providerType: provider.type, allowSignup: provider.allowSignup },
      provider.allowSignup ? 'signup_allowed' : 'signup_not_allowed',
      provider.allowSignup ? 'No account matched and sign-up is allowed.' : 'No account matched and sign-up is not allowed.',
    ),
  );
  if (provider.allowSignup) {
    const username = steps.decision.kind === 'create' ? steps.decision.username : null;
    out.push(...namingSteps(identity, username, steps.takenUsernames));
  }
  return out;
}

function traceOf(input: SignInInput, steps: SignInSteps): readonly SignInTraceStep[] {
  const provider = readProviderForAccess(ownField(input, 'provider'));
  const identity = parseExternalIdentity(ownField(input, 'identity'));
  // both parsed when the steps ran; a value that changed since is explained by the decision alone
  if (provider.isErr() || identity.isErr()) return [decisionStep(steps.decision, { type: 'builtin', allowSignup: false, serviceId: '', gate: { kind: 'none' } })];
  const trace = gatingSteps(provider.value, identity.value);
  return match(steps.plan)
    .returnType<readonly SignInTraceStep[]>()
    .with({ kind: 'denied', reason: 'provider_not_for_sign_in' }, () => [
      ...trace,
      step('§5.3 reviewhost', { signedInUserId: null }, 'not_for_sign_in', '`reviewhost` only adds credentials to a signed-in account.'),
      decisionStep(steps.decision, provider.value),
    ])
    .with({ kind: 'denied' }, () => [...trace, decisionStep(steps.decision, provider.value)])
    .with({ kind: 'look_up' }, (plan) => [
      ...trace,
      ...linkingSteps(plan, steps.facts, steps, provider.value, identity.value),
      decisionStep(steps.decision, provider.value),
    ])
    .exhaustive();
}

/**
 * Explains a sign-in: the decision `resolveSignIn` makes on `input` (the same steps run: one code path) and the
 * ordered trace of the rules that made it. Each step names the spec rule (`§5.3 hosta rule 6`, `§5.4 rule 2`,
 * `§5.5 rule 8` …), the plain facts it read and its outcome; the last step states the decision and, for a refusal,
 * the rule that refuses. Nothing is written and nothing is thrown: the directory is only read.
 *
 * @param input - Exactly what `resolveSignIn` takes.
 * @returns `ok` with the decision and its trace; `err` exactly when `resolveSignIn` returns `err`.
 * @example A team-name mismatch in allowOrgsMap
 * ```ts
 * explainSignIn({
 *   provider: { type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } },
 *   identity: { accountId: '1', username: 'octo', emails: [], orgs: ['acme'], teams: [{ org: 'acme', name: 'core team' }] },
 *   signedInUserId: null, directory, randomBytes,
 * });
 * // ok({ decision: { kind: 'deny', reason: 'not_in_allowed_orgs_or_teams', … },
 * //      trace: [{ rule: '§5.3 hosta rule 4', outcome: 'no_restriction', … },
 * //              { rule: '§5.3 hosta rule 5', outcome: 'not_admitted', facts: { nameMismatches: [{ org: 'acme', name: 'core team' }], … } },
 * //              { rule: '§7 rule 3', outcome: 'deny', … }] })
 * ```
 */
export function explainSignIn(input: SignInInput): Result<SignInExplanation, SignInError> {
  return resolveSignInSteps(input).map((steps) => ({ decision: steps.decision, trace: traceOf(input, steps) }));
}

/**
 * The reason a refused person is shown: one sentence they can act on, derived from the refusal's trace (its last
 * step), naming the provider as `providerName`. It names no other account and no part of the configuration.
 *
 * @param trace - The trace of {@link explainSignIn}.
 * @param providerName - How the person knows the provider (its display name).
 * @returns The sentence, or `null` when the trace does not end in a refusal.
 * @example
 * ```ts
 * signInRefusalReason(explanation.trace, 'hosta');
 * // 'Your account at hosta is not in one of the organizations or teams this site allows. Ask an administrator …'
 * ```
 */
export function signInRefusalReason(trace: readonly SignInTraceStep[], providerName: string): string | null {
  const last = trace[trace.length - 1];
  if (last === undefined || last.outcome !== 'deny') return null;
  const reason = last.facts['reason'];
  const teamMismatch = trace.some((s) => s.rule === '§5.3 hosta rule 5' && Array.isArray(s.facts['nameMismatches']) && s.facts['nameMismatches'].length > 0);
  const at = `Your account at ${providerName}`;
  const reasons: Readonly<Record<SignInDenialReason, string>> = {
    not_in_allowed_orgs_or_teams: teamMismatch
      ? `${at} is in a team whose name differs from an allowed team only in letter case or spacing; team names must match exactly. Ask an administrator to check the team's name.`
      : `${at} is not in one of the organizations or teams this site allows. Ask an administrator to add you to one.`,
    not_in_allowed_groups: `${at} is not a member, at Guest level or above, of one of the groups this site allows. Ask an administrator for access.`,
    minimal_access: `${at} has only Minimal Access in the groups this site allows. Ask for Guest access or above (for example in a subgroup).`,
    email_domain_not_allowed: `The primary email address of your account at ${providerName} is not in the email domain this site allows.`,
    unverified_email: `The primary email address of your account at ${providerName} is not verified there. Verify it, then sign in again.`,
    membership_unknown: `Your memberships at ${providerName} could not be read completely. Try again later.`,
    provider_not_for_sign_in: `${providerName} only adds credentials to an account you are signed in to. Sign in first.`,
    identity_linked_to_other_user: `${at} is already linked to a different user here. Sign out, then sign in with it.`,
    verified_email_missing: `${at} has no verified email address. Verify one at ${providerName}, then sign in again.`,
    signup_not_allowed: `No account here has a verified email matching your account at ${providerName}, and sign-up through ${providerName} is off. Ask an administrator to create your account.`,
    username_missing: `${at} gives neither a username nor an email address to name a new account.`,
    username_unavailable: 'No free username could be found for your new account. Try again.',
  };
  const known = SIGN_IN_DENIAL_REASONS.find((r) => r === reason);
  return known === undefined ? null : reasons[known];
}
