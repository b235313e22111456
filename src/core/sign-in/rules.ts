/**
 * The spec's rules a sign-in decision applies, by the id an explanation cites them with (`§5.3 hosta rule 6`),
 * each with a short quote of the spec's text (spec §5.2–§5.5, §7). The Sign-in check page shows them beside the
 * steps of `explainSignIn`.
 *
 * @module
 */

/**
 * The text of each rule a sign-in trace may cite, quoted (shortened) from the spec.
 *
 * @example
 * ```ts
 * SIGN_IN_RULES['§5.3 hosta rule 6'].startsWith('When both'); // true
 * ```
 */
export const SIGN_IN_RULES: Readonly<Record<SignInRuleId, string>> = {
  '§5.2': 'Supported: built-in password; OAuth …; SAML; OpenID Connect; HTTP authentication proxies. Several may be active together.',
  '§5.3 hosta rule 2':
    '`allowSignup` is false when unset: sign-up is blocked, and an admin must first create the account; the account\'s email must match one of the user\'s verified emails at the code host.',
  '§5.3 hosta rule 3': 'When `allowSignup` is true and neither `allowOrgs` nor `allowOrgsMap` is set, any user of the code host can sign up.',
  '§5.3 hosta rule 4':
    '`allowOrgs`: empty or unset means no restriction. With `allowSignup` true, only members of listed orgs can create accounts. With `allowSignup` false or unset, an admin creates the account first and the user can sign in if in a listed org.',
  '§5.3 hosta rule 5':
    '`allowOrgsMap`: empty or unset means no restriction. Team names are the teams\' display names and must match exactly, otherwise the user cannot create an account. Child teams do not inherit from parents.',
  '§5.3 hosta rule 6':
    'When both `allowOrgs` and `allowOrgsMap` are set, org membership is checked first; team membership is checked only if the user is in none of the listed orgs.',
  '§5.3 hostb rule 3':
    '`allowSignup` defaults to true. When false, new users sign in only after an admin creates their account, with the email matching their primary email at the code host.',
  '§5.3 hostb rule 4':
    '`allowGroups`: full path from the URL, empty or unset means no restriction. Only members of listed groups can create accounts.',
  '§5.3 hostb rule 5':
    'A user needs at least the Guest access level in one listed group. The "Minimal Access" level is not supported and those users cannot sign in.',
  '§5.3 hostccloud': '`hostccloud`: … `allowSignup` defaults to true.',
  '§5.3 hostcserver': '`hostcserver`: … `allowSignup` defaults to false.',
  '§5.3 reviewhost': '`reviewhost` (beta): users add credentials under their settings page "Account security".',
  '§5.3 openidconnect rule 4': '`allowSignup` is true when unset; when false, admins must create accounts.',
  '§5.3 openidconnect rule 5': '`requireEmailDomain` limits sign-in to a single email domain.',
  '§5.3 http-header':
    'The proxy authenticates and manages sessions, then passes the username and/or email in the headers named by `usernameHeader` and `emailHeader`.',
  '§5.3 http-header rule 3':
    'Matching by username only is possible for proxies but discouraged, since usernames are mutable.',
  '§5.4 rule 2':
    'On sign-in, if any email on the provider-side account matches any verified email of an existing account, the accounts are linked; otherwise a new account is created only if the provider allows sign-up.',
  '§5.4 rule 3':
    'An account with no email cannot sign in through a code host provider even when usernames match; an error says a verified email is missing.',
  '§5.4 rule 4': 'One user account may be linked with identities from several providers.',
  '§5.4 rule 5': 'Code host usernames for `hostcserver` are matched by username.',
  '§5.5 rule 1': 'Characters outside `[a-zA-Z0-9-._]` become `-`.',
  '§5.5 rule 2': 'A name with exactly one `@` is taken as an email; the part before the `@` is used.',
  '§5.5 rule 8':
    'When several external accounts normalize to the same name, separate accounts are created and a randomized suffix is added for uniqueness.',
  '§7 rule 2':
    'Sign-in via a code host provider with no verified matching email on the account: sign-in fails with an error stating a verified email is missing.',
  '§7 rule 3':
    'Sign-up with `allowSignup` false, or a user outside `allowOrgs`, `allowOrgsMap` or `allowGroups`, or a team-name mismatch in `allowOrgsMap`: the account is not created.',
  '§7 rule 4': 'A user at the Minimal Access level in `hostb` cannot sign in.',
};

/**
 * The id of a rule a sign-in trace cites: a key of {@link SIGN_IN_RULES}.
 *
 * @example
 * ```ts
 * const rule: SignInRuleId = '§5.4 rule 2';
 * ```
 */
export type SignInRuleId =
  | '§5.2'
  | '§5.3 hosta rule 2'
  | '§5.3 hosta rule 3'
  | '§5.3 hosta rule 4'
  | '§5.3 hosta rule 5'
  | '§5.3 hosta rule 6'
  | '§5.3 hostb rule 3'
  | '§5.3 hostb rule 4'
  | '§5.3 hostb rule 5'
  | '§5.3 hostccloud'
  | '§5.3 hostcserver'
  | '§5.3 reviewhost'
  | '§5.3 openidconnect rule 4'
  | '§5.3 openidconnect rule 5'
  | '§5.3 http-header'
  | '§5.3 http-header rule 3'
  | '§5.4 rule 2'
  | '§5.4 rule 3'
  | '§5.4 rule 4'
  | '§5.4 rule 5'
  | '§5.5 rule 1'
  | '§5.5 rule 2'
  | '§5.5 rule 8'
  | '§7 rule 2'
  | '§7 rule 3'
  | '§7 rule 4';

/**
 * Whether `value` is the id of a rule a sign-in trace may cite.
 *
 * @param value - Anything.
 * @returns `true` for a key of {@link SIGN_IN_RULES}.
 * @example
 * ```ts
 * isSignInRuleId('§5.3 hosta rule 5'); // true
 * isSignInRuleId('§9'); // false
 * ```
 */
export function isSignInRuleId(value: unknown): value is SignInRuleId {
  return typeof value === 'string' && Object.hasOwn(SIGN_IN_RULES, value);
}
