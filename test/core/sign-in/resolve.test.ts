import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_ORIGINS,
  accountDirectoryFromArray,
  type Account,
  type AccountOrigin,
  type AccountDirectory,
  type AccountEmail,
  type ExternalAccountRef,
} from '../../../src/core/account-directory.js';
import type {
  AuthProvider,
  HostaProvider,
  HostbProvider,
  HttpHeaderProvider,
  OpenIdConnectProvider,
  ProviderType,
} from '../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../src/core/external-identity.js';
import { ACCESS_DENIAL_REASONS, decideProviderAccess } from '../../../src/core/provider-access.js';
import {
  MAX_USERNAME_SUFFIX_ATTEMPTS,
  resolveSignIn,
  SIGN_IN_DENIAL_MESSAGES,
  SIGN_IN_DENIAL_REASONS,
  type SignInDecision,
  type SignInDenialReason,
  type SignInInput,
  type SignInVia,
} from '../../../src/core/sign-in/resolve.js';
import { normalizeUsername, validateUsername } from '../../../src/core/username.js';
import {
  accounts as accountsArb,
  authProvider,
  externalIdentity,
  identityReordered,
  providerReordered,
} from '../../arbitraries/identity.js';

// ---------------------------------------------------------------------------------------------
// Fixtures

const hosta = (extra: Partial<HostaProvider> = {}): HostaProvider => ({
  type: 'hosta',
  url: '',
  clientID: 'id',
  clientSecret: 'secret',
  allowSignup: false,
  ...extra,
});
const hostb = (extra: Partial<HostbProvider> = {}): HostbProvider => ({
  type: 'hostb',
  url: 'https://hostb.example.com/',
  clientID: 'id',
  clientSecret: 'secret',
  apiScope: 'api',
  allowSignup: true,
  ...extra,
});
const hostccloud: AuthProvider = { type: 'hostccloud', clientKey: 'k', clientSecret: 's', allowSignup: true };
const hostcserver = (allowSignup = false): AuthProvider => ({
  type: 'hostcserver',
  url: 'https://hostc.example.com',
  clientID: 'id',
  clientSecret: 's',
  allowSignup,
});
const reviewhost: AuthProvider = { type: 'reviewhost', url: 'https://review.example.com', allowSignup: false };
const oidc = (extra: Partial<OpenIdConnectProvider> = {}): OpenIdConnectProvider => ({
  type: 'openidconnect',
  issuer: 'https://accounts.example.com',
  clientID: 'id',
  clientSecret: 'secret',
  allowSignup: true,
  ...extra,
});
const proxy = (allowSignup = true): HttpHeaderProvider => ({
  type: 'http-header',
  usernameHeader: 'X-Forwarded-User',
  emailHeader: 'X-Forwarded-Email',
  allowSignup,
});

const octoEmail = (verified = true): AccountEmail => ({ address: 'octo@example.com', verified });
const person = (extra: Partial<ExternalIdentity> = {}): ExternalIdentity => ({
  accountId: '1234',
  username: 'octo',
  emails: [octoEmail()],
  ...extra,
});
const account = (
  id: string,
  username: string,
  emails: AccountEmail[] = [],
  links: ExternalAccountRef[] = [],
  origin: AccountOrigin = 'admin_created',
): Account => ({
  id,
  username,
  origin,
  emails,
  externalAccounts: links,
});
const link = (providerType: ProviderType, serviceId: string, accountId = '1234'): ExternalAccountRef => ({
  providerType,
  serviceId,
  accountId,
});
const directoryOf = (list: readonly Account[]): AccountDirectory => accountDirectoryFromArray(list)._unsafeUnwrap();

/** Deterministic "random" bytes: the k-th call returns bytes all equal to k, so the suffix is five times the k-th letter. */
const countingBytes = (): ((n: number) => Uint8Array) => {
  let calls = 0;
  return (n) => new Uint8Array(n).fill(calls++ % 26);
};

interface Scenario {
  readonly provider: AuthProvider;
  readonly identity?: ExternalIdentity;
  readonly accounts?: readonly Account[];
  readonly signedInUserId?: string | null;
}
const input = (s: Scenario): SignInInput => ({
  provider: s.provider,
  identity: s.identity ?? person(),
  signedInUserId: s.signedInUserId ?? null,
  directory: directoryOf(s.accounts ?? []),
  randomBytes: countingBytes(),
});

const signIn = (userId: string, via: SignInVia, linkExternalAccount: boolean, externalAccount: ExternalAccountRef) =>
  ok({ kind: 'sign_in', userId, via, linkExternalAccount, externalAccount });
const create = (username: string, emails: AccountEmail[], externalAccount: ExternalAccountRef) =>
  ok({ kind: 'create', username, emails, externalAccount });
const deny = (reason: SignInDenialReason) => ok({ kind: 'deny', reason, message: SIGN_IN_DENIAL_MESSAGES[reason] });

const octavia = account('u-octavia', 'octavia', [octoEmail()]);
const octoNoEmail = account('u-octo', 'octo');
const HOSTA = link('hosta', '');
const HOSTB = link('hostb', 'https://hostb.example.com');
const HOSTC = link('hostcserver', 'https://hostc.example.com');
const OIDC = link('openidconnect', 'https://accounts.example.com');

// ---------------------------------------------------------------------------------------------

describe('resolveSignIn', () => {
  it.each([
    // §5.4 Account linking
    { ref: '§5.4 rule 1', scenario: { provider: hosta(), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 1 (emails compare ASCII case-insensitively)', scenario: { provider: hosta(), identity: person({ emails: [{ address: 'OCTO@Example.COM', verified: true }] }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 2: any provider email may match', scenario: { provider: hosta(), identity: person({ emails: [{ address: 'other@example.org', verified: true }, octoEmail()] }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 2 (primary email tried first)', scenario: { provider: hosta(), identity: person({ emails: [{ address: 'bob@example.org', verified: true }, octoEmail()] }), accounts: [octavia, account('u-bob', 'bob', [{ address: 'bob@example.org', verified: true }])] }, expected: signIn('u-bob', 'verified_email', true, HOSTA) },
    { ref: '§5.4 rule 2 (unverified at the provider never links)', scenario: { provider: oidc(), identity: person({ emails: [octoEmail(false)] }), accounts: [octavia] }, expected: create('octo', [octoEmail(false)], OIDC) },
    { ref: '§5.4 rule 2 (unverified on the account never links)', scenario: { provider: oidc(), accounts: [account('u-octavia', 'octavia', [octoEmail(false)])] }, expected: create('octo', [octoEmail()], OIDC) },
    { ref: '§5.4 rule 2: no match, sign-up allowed', scenario: { provider: hosta({ allowSignup: true }) }, expected: create('octo', [octoEmail()], HOSTA) },
    { ref: '§5.4 rule 2: no match, sign-up not allowed', scenario: { provider: hosta({ allowSignup: false }) }, expected: deny('signup_not_allowed') },
    { ref: '§5.4 rule 3: hosta, usernames match', scenario: { provider: hosta(), identity: person({ emails: [] }), accounts: [octoNoEmail] }, expected: deny('verified_email_missing') },
    { ref: '§5.4 rule 3: hostb, only an unverified email', scenario: { provider: hostb(), identity: person({ emails: [octoEmail(false)] }), accounts: [octoNoEmail] }, expected: deny('verified_email_missing') },
    { ref: '§5.4 rule 3: hostccloud', scenario: { provider: hostccloud, identity: person({ emails: [] }), accounts: [octoNoEmail] }, expected: deny('verified_email_missing') },
    { ref: '§5.4 rule 3: hostcserver, even though it matches usernames (rule 5)', scenario: { provider: hostcserver(true), identity: person({ emails: [] }), accounts: [octoNoEmail] }, expected: deny('verified_email_missing') },
    { ref: '§5.4 rule 3: also when sign-up is allowed', scenario: { provider: hosta({ allowSignup: true }), identity: person({ emails: [] }) }, expected: deny('verified_email_missing') },
    { ref: '§5.4 rule 4: a signed-in user adds an identity', scenario: { provider: hostb(), signedInUserId: 'u-octavia', accounts: [account('u-octavia', 'octavia', [], [HOSTA])] }, expected: signIn('u-octavia', 'signed_in_user', true, HOSTB) },
    { ref: '§5.4 rule 4: several providers on one account', scenario: { provider: hostb(), accounts: [account('u-octavia', 'octavia', [], [HOSTA, HOSTB])] }, expected: signIn('u-octavia', 'external_account', false, HOSTB) },
    { ref: '§5.4 rule 4: linked to the signed-in user', scenario: { provider: hosta(), signedInUserId: 'u-octavia', accounts: [account('u-octavia', 'octavia', [], [HOSTA])] }, expected: signIn('u-octavia', 'external_account', false, HOSTA) },
    { ref: '§5.4 rule 4 (linked to someone else)', scenario: { provider: hosta(), signedInUserId: 'u-me', accounts: [account('u-octavia', 'octavia', [], [HOSTA]), account('u-me', 'me')] }, expected: deny('identity_linked_to_other_user') },
    { ref: '§5.4 rule 4: a link outlives an email change', scenario: { provider: hosta(), identity: person({ emails: [{ address: 'new@example.org', verified: true }] }), accounts: [account('u-octavia', 'octavia', [octoEmail()], [HOSTA])] }, expected: signIn('u-octavia', 'external_account', false, HOSTA) },
    { ref: '§5.4 rule 4: links are per provider namespace', scenario: { provider: hostb(), accounts: [account('u-octavia', 'octavia', [], [link('hostb', 'https://other.example.com')])] }, expected: create('octo', [octoEmail()], HOSTB) },
    { ref: '§5.4 rule 5', scenario: { provider: hostcserver(), identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [octoNoEmail] }, expected: signIn('u-octo', 'username', true, HOSTC) },
    { ref: '§5.4 rule 5: a verified email still wins', scenario: { provider: hostcserver(), accounts: [octoNoEmail, octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTC) },
    { ref: '§5.4 rule 5: only hostcserver matches code host usernames', scenario: { provider: hosta({ allowSignup: true }), accounts: [octoNoEmail], identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }) }, expected: create('octo-aaaaa', [{ address: 'octo@corp.example', verified: true }], HOSTA) },
    // §5.3 per provider
    { ref: '§5.3 hosta rule 2: admin-created account with a matching verified email', scenario: { provider: hosta({ allowSignup: false }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.3 hosta rule 2: sign-up blocked', scenario: { provider: hosta({ allowSignup: false }), accounts: [account('u-octavia', 'octavia', [octoEmail(false)])] }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 hosta rule 3', scenario: { provider: hosta({ allowSignup: true }) }, expected: create('octo', [octoEmail()], HOSTA) },
    { ref: '§5.3 hosta rule 4: sign-up for members', scenario: { provider: hosta({ allowSignup: true, allowOrgs: ['acme'] }), identity: person({ orgs: ['acme'] }) }, expected: create('octo', [octoEmail()], HOSTA) },
    { ref: '§5.3 hosta rule 4: sign-up for non-members', scenario: { provider: hosta({ allowSignup: true, allowOrgs: ['acme'] }), identity: person({ orgs: [] }) }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 4: admin-created account, member', scenario: { provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: ['acme'] }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTA) },
    { ref: '§5.3 hosta rule 4: admin-created account, not a member', scenario: { provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: [] }), accounts: [octavia] }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 4: a linked identity is still gated', scenario: { provider: hosta({ allowOrgs: ['acme'] }), identity: person({ orgs: [] }), accounts: [account('u-octavia', 'octavia', [], [HOSTA])] }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 5', scenario: { provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: [{ org: 'acme', name: 'Core Team' }] }) }, expected: create('octo', [octoEmail()], HOSTA) },
    { ref: '§5.3 hosta rule 5: child team not inherited', scenario: { provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Engineering'] } }), identity: person({ teams: [{ org: 'acme', name: 'Core Team' }] }) }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§5.3 hosta rule 6', scenario: { provider: hosta({ allowSignup: true, allowOrgs: ['globex'], allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ orgs: ['acme'], teams: [{ org: 'acme', name: 'Core Team' }] }) }, expected: create('octo', [octoEmail()], HOSTA) },
    { ref: '§5.3 hostb rule 3: sign-up by default', scenario: { provider: hostb() }, expected: create('octo', [octoEmail()], HOSTB) },
    { ref: '§5.3 hostb rule 3: admin-created account with the primary email', scenario: { provider: hostb({ allowSignup: false }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTB) },
    { ref: '§5.3 hostb rule 3: sign-up blocked', scenario: { provider: hostb({ allowSignup: false }) }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 hostb rule 4: sign-up for members', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [{ fullPath: 'acme', accessLevel: 10 }] }) }, expected: create('octo', [octoEmail()], HOSTB) },
    { ref: '§5.3 hostb rule 4: sign-up for non-members', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [] }) }, expected: deny('not_in_allowed_groups') },
    { ref: '§5.3 hostb rule 4: admin-created account', scenario: { provider: hostb({ allowSignup: false, allowGroups: ['acme'] }), identity: person({ groups: [{ fullPath: 'acme', accessLevel: 20 }] }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, HOSTB) },
    { ref: '§5.3 hostb rule 5', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [{ fullPath: 'acme', accessLevel: 5 }] }), accounts: [octavia] }, expected: deny('minimal_access') },
    { ref: '§5.3 openidconnect rule 4: sign-up by default', scenario: { provider: oidc() }, expected: create('octo', [octoEmail()], OIDC) },
    { ref: '§5.3 openidconnect rule 4: admins create accounts', scenario: { provider: oidc({ allowSignup: false }) }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 openidconnect rule 4: admin-created account', scenario: { provider: oidc({ allowSignup: false }), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, OIDC) },
    { ref: '§5.3 openidconnect rule 5', scenario: { provider: oidc({ requireEmailDomain: 'example.com' }) }, expected: create('octo', [octoEmail()], OIDC) },
    { ref: '§5.3 openidconnect rule 5: another domain', scenario: { provider: oidc({ requireEmailDomain: 'example.org' }), accounts: [octavia] }, expected: deny('email_domain_not_allowed') },
    { ref: '§5.3 openidconnect rule 5: unverified', scenario: { provider: oidc({ requireEmailDomain: 'example.com' }), identity: person({ emails: [octoEmail(false)] }) }, expected: deny('unverified_email') },
    { ref: '§5.3 http-header rule 1: email from the proxy', scenario: { provider: proxy(false), accounts: [octavia] }, expected: signIn('u-octavia', 'verified_email', true, link('http-header', '')) },
    { ref: '§5.3 http-header rule 3: username only', scenario: { provider: proxy(false), identity: person({ accountId: 'octo', emails: [] }), accounts: [octoNoEmail] }, expected: signIn('u-octo', 'username', true, link('http-header', '', 'octo')) },
    { ref: '§5.3 http-header rule 3: usernames compare ASCII case-insensitively', scenario: { provider: proxy(false), identity: person({ accountId: 'OCTO', username: 'OCTO', emails: [] }), accounts: [octoNoEmail] }, expected: signIn('u-octo', 'username', true, link('http-header', '', 'OCTO')) },
    // A username match takes the provider's username unmodified, only when it is already a valid username
    // (normalizing leaves it unchanged); a name that only normalizes to an account's name is someone else.
    { ref: '§5.3 http-header rule 3, §5.5 rule 8: an email-shaped name is not its local part', scenario: { provider: proxy(false), identity: person({ accountId: 'OCTO@corp', username: 'OCTO@corp', emails: [] }), accounts: [octoNoEmail] }, expected: deny('signup_not_allowed') },
    { ref: '§5.5 rule 8: admin@evil.example is not the site admin admin (sign-up on)', scenario: { provider: proxy(true), identity: person({ accountId: 'admin@evil.example', username: 'admin@evil.example', emails: [] }), accounts: [account('u-admin', 'admin')] }, expected: create('admin-aaaaa', [], link('http-header', '', 'admin@evil.example')) },
    { ref: '§5.5 rule 8: admin@evil.example is not the site admin admin (sign-up off)', scenario: { provider: proxy(false), identity: person({ accountId: 'admin@evil.example', username: 'admin@evil.example', emails: [] }), accounts: [account('u-admin', 'admin')] }, expected: deny('signup_not_allowed') },
    { ref: '§5.5 rule 8: .admin is not admin', scenario: { provider: proxy(true), identity: person({ accountId: '.admin', username: '.admin', emails: [] }), accounts: [account('u-admin', 'admin')] }, expected: create('admin-aaaaa', [], link('http-header', '', '.admin')) },
    { ref: '§5.5 rule 8: admin. is not admin', scenario: { provider: proxy(true), identity: person({ accountId: 'admin.', username: 'admin.', emails: [] }), accounts: [account('u-admin', 'admin')] }, expected: create('admin-aaaaa', [], link('http-header', '', 'admin.')) },
    { ref: '§5.5 rule 8: -admin is not admin', scenario: { provider: proxy(true), identity: person({ accountId: '-admin', username: '-admin', emails: [] }), accounts: [account('u-admin', 'admin')] }, expected: create('admin-aaaaa', [], link('http-header', '', '-admin')) },
    { ref: '§5.4 rule 5, §5.5 rule 8: hostcserver .admin is not admin', scenario: { provider: hostcserver(false), identity: person({ username: '.admin', emails: [{ address: 'mallory@corp.example', verified: true }] }), accounts: [account('u-admin', 'admin')] }, expected: deny('signup_not_allowed') },
    // A username match lands only in an account an administrator created, with no link of the provider's type
    // yet or one already linked to the same provider.
    { ref: '§5.4 rule 5: not into an account signed up with a password', scenario: { provider: hostcserver(true), identity: person({ username: 'carol', emails: [{ address: 'carol@corp.example', verified: true }] }), accounts: [account('u-carol', 'carol', [{ address: 'carol@example.com', verified: false }], [], 'password_signup')] }, expected: create('carol-aaaaa', [{ address: 'carol@corp.example', verified: true }], HOSTC) },
    { ref: '§5.3 http-header rule 3: not into an account signed up with a password', scenario: { provider: proxy(false), identity: person({ accountId: 'carol', username: 'carol', emails: [] }), accounts: [account('u-carol', 'carol', [], [], 'password_signup')] }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 http-header rule 3: not into an account another provider sign-in created', scenario: { provider: proxy(true), identity: person({ accountId: 'carol', username: 'carol', emails: [] }), accounts: [account('u-carol', 'carol', [], [HOSTA], 'provider_signup')] }, expected: create('carol-aaaaa', [], link('http-header', '', 'carol')) },
    { ref: '§5.3 http-header rule 3: not into a service account', scenario: { provider: proxy(true), identity: person({ accountId: 'robot', username: 'robot', emails: [] }), accounts: [account('u-robot', 'robot', [], [], 'service_account')] }, expected: create('robot-aaaaa', [], link('http-header', '', 'robot')) },
    { ref: '§5.4 rule 5: into an admin-created account linked to another provider type', scenario: { provider: hostcserver(), identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [account('u-octo', 'octo', [], [HOSTA])] }, expected: signIn('u-octo', 'username', true, HOSTC) },
    { ref: '§5.4 rule 5: not into an admin-created account linked to another identity of this provider (a name taken over after a rename)', scenario: { provider: hostcserver(), identity: person({ accountId: '99', emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [account('u-octo', 'octo', [], [HOSTC])] }, expected: deny('signup_not_allowed') },
    { ref: '§5.4 rule 4: the identity linked to an admin-created account signs in through its link', scenario: { provider: hostcserver(), identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [account('u-octo', 'octo', [], [HOSTC])] }, expected: signIn('u-octo', 'external_account', false, HOSTC) },
    { ref: '§5.4 rule 5: not into an admin-created account linked to another provider of this type', scenario: { provider: hostcserver(), identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [account('u-octo', 'octo', [], [link('hostcserver', 'https://other-hostc.example.com')])] }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 http-header rule 3: not when the proxy sends an email', scenario: { provider: proxy(false), identity: person({ emails: [{ address: 'octo@corp.example', verified: true }] }), accounts: [octoNoEmail] }, expected: deny('signup_not_allowed') },
    { ref: '§5.3 http-header rule 3: username only, no match', scenario: { provider: proxy(true), identity: person({ accountId: 'octo', emails: [] }) }, expected: create('octo', [], link('http-header', '', 'octo')) },
    { ref: '§5.3 reviewhost: never signs in', scenario: { provider: reviewhost, accounts: [account('u-octavia', 'octavia', [octoEmail()], [link('reviewhost', 'https://review.example.com')])] }, expected: deny('provider_not_for_sign_in') },
    { ref: '§5.3 reviewhost: adds credentials to the signed-in account', scenario: { provider: reviewhost, signedInUserId: 'u-octavia', accounts: [octavia] }, expected: signIn('u-octavia', 'signed_in_user', true, link('reviewhost', 'https://review.example.com')) },
    // §5.5 usernames of new accounts
    { ref: '§5.5 rule 1', scenario: { provider: oidc(), identity: person({ username: 'john doe' }) }, expected: create('john-doe', [octoEmail()], OIDC) },
    { ref: '§5.5 rule 2 (primary email local part when no username)', scenario: { provider: oidc(), identity: person({ username: null, emails: [{ address: 'first.last@example.com', verified: true }, octoEmail()] }) }, expected: create('first.last', [{ address: 'first.last@example.com', verified: true }, octoEmail()], OIDC) },
    { ref: '§5.5 rule 2: a username that normalizes to nothing falls back to the email', scenario: { provider: oidc(), identity: person({ username: '@@' }) }, expected: create('octo', [octoEmail()], OIDC) },
    { ref: '§5.5 (nothing to name the account)', scenario: { provider: oidc(), identity: person({ username: null, emails: [] }) }, expected: deny('username_missing') },
    { ref: '§5.5 rule 8', scenario: { provider: oidc(), accounts: [account('u1', 'octo')] }, expected: create('octo-aaaaa', [octoEmail()], OIDC) },
    { ref: '§5.5 rule 8: taken names compare ASCII case-insensitively', scenario: { provider: oidc(), identity: person({ username: 'Octo' }), accounts: [account('u1', 'octo')] }, expected: create('Octo-aaaaa', [octoEmail()], OIDC) },
    { ref: '§5.5 rule 8: a suffixed name taken too', scenario: { provider: oidc(), accounts: [account('u1', 'octo'), account('u2', 'octo-aaaaa'), account('u3', 'octo-bbbbb')] }, expected: create('octo-ccccc', [octoEmail()], OIDC) },
    { ref: '§5.5 rule 8: the fifth suffix', scenario: { provider: oidc(), accounts: ['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc', 'octo-ddddd'].map((name, i) => account(`u${i}`, name)) }, expected: create('octo-eeeee', [octoEmail()], OIDC) },
    { ref: '§5.5 rule 8 (at most five tries)', scenario: { provider: oidc(), accounts: ['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc', 'octo-ddddd', 'octo-eeeee'].map((name, i) => account(`u${i}`, name)) }, expected: deny('username_unavailable') },
    { ref: 'new account emails deduplicated, verified as the provider says', scenario: { provider: oidc(), identity: person({ emails: [octoEmail(false), { address: 'OCTO@example.com', verified: true }, { address: 'b@example.com', verified: false }] }) }, expected: create('octo', [octoEmail(true), { address: 'b@example.com', verified: false }], OIDC) },
    // §7
    { ref: '§7 rule 2: no verified email at the code host', scenario: { provider: hostb(), identity: person({ emails: [] }), accounts: [octoNoEmail] }, expected: deny('verified_email_missing') },
    { ref: '§7 rule 2: no verified matching email on the account', scenario: { provider: hosta(), accounts: [account('u-octavia', 'octavia', [octoEmail(false)])] }, expected: deny('signup_not_allowed') },
    { ref: '§7 rule 3: allowSignup false', scenario: { provider: hostcserver(false) }, expected: deny('signup_not_allowed') },
    { ref: '§7 rule 3: outside allowOrgs', scenario: { provider: hosta({ allowSignup: true, allowOrgs: ['acme'] }), identity: person({ orgs: ['globex'] }) }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§7 rule 3: outside allowOrgsMap', scenario: { provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: [] }) }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§7 rule 3: team-name mismatch', scenario: { provider: hosta({ allowSignup: true, allowOrgsMap: { acme: ['Core Team'] } }), identity: person({ teams: [{ org: 'acme', name: 'Core-Team' }] }) }, expected: deny('not_in_allowed_orgs_or_teams') },
    { ref: '§7 rule 3: outside allowGroups', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [{ fullPath: 'globex', accessLevel: 50 }] }) }, expected: deny('not_in_allowed_groups') },
    { ref: '§7 rule 4: even with a linked account', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [{ fullPath: 'acme', accessLevel: 5 }] }), accounts: [account('u-octavia', 'octavia', [], [HOSTB])] }, expected: deny('minimal_access') },
    { ref: 'membership unknown', scenario: { provider: hostb({ allowGroups: ['acme'] }), identity: person({ groups: [], membershipComplete: false }) }, expected: deny('membership_unknown') },
  ] satisfies { ref: string; scenario: Scenario; expected: unknown }[])('should follow $ref', ({ scenario, expected }) => {
    expect(resolveSignIn(input(scenario))).toStrictEqual(expected);
  });

  it('should say that a verified email is missing (§5.4 rule 3, §7 rule 2; the message is contract)', () => {
    const decision = resolveSignIn(input({ provider: hosta(), identity: person({ emails: [] }) }))._unsafeUnwrap();
    expect(decision.kind === 'deny' && decision.message).toContain('verified email is missing');
    const noMatch = resolveSignIn(input({ provider: hosta() }))._unsafeUnwrap();
    expect(noMatch.kind === 'deny' && noMatch.message).toContain('verified email is missing');
  });

  it('should have a message for every reason and cover every gating reason', () => {
    expect(SIGN_IN_DENIAL_REASONS.filter((reason) => SIGN_IN_DENIAL_MESSAGES[reason].length === 0)).toStrictEqual([]);
    expect(Object.keys(SIGN_IN_DENIAL_MESSAGES).sort()).toStrictEqual([...SIGN_IN_DENIAL_REASONS].sort());
    expect(ACCESS_DENIAL_REASONS.filter((reason) => !SIGN_IN_DENIAL_REASONS.some((known) => known === reason))).toStrictEqual([]);
  });

  it('should draw random bytes only for taken names, at most five times (§5.5 rule 8)', () => {
    const sizes: number[] = [];
    const taken = ['octo', 'octo-aaaaa', 'octo-bbbbb', 'octo-ccccc', 'octo-ddddd', 'octo-eeeee', 'octo-fffff'];
    const directory = directoryOf(taken.map((name, i) => account(`u${i}`, name)));
    const randomBytes = (n: number): Uint8Array => {
      sizes.push(n);
      return new Uint8Array(n).fill(sizes.length - 1);
    };
    const base = { provider: oidc(), identity: person(), signedInUserId: null, directory, randomBytes };
    expect(resolveSignIn(base)).toStrictEqual(deny('username_unavailable'));
    expect(sizes).toStrictEqual(Array(MAX_USERNAME_SUFFIX_ATTEMPTS).fill(16));
    sizes.length = 0;
    expect(resolveSignIn({ ...base, directory: directoryOf([]) }).isOk()).toBe(true);
    expect(sizes).toStrictEqual([]);
  });

  it('should spend an attempt when the bytes yield too few letters', () => {
    let call = 0;
    const randomBytes = (n: number): Uint8Array => new Uint8Array(n).fill(call++ === 0 ? 255 : 1);
    const directory = directoryOf([account('u1', 'octo')]);
    expect(resolveSignIn({ provider: oidc(), identity: person(), signedInUserId: null, directory, randomBytes })).toStrictEqual(
      create('octo-bbbbb', [octoEmail()], OIDC),
    );
  });

  const throwing = (): never => {
    throw new Error('boom');
  };
  const good = input({ provider: oidc(), accounts: [account('u1', 'octo')] });
  it.each([
    { ref: 'input not an object', value: null, expected: err({ code: 'invalid_sign_in_input', path: 'input' }) },
    { ref: 'provider', value: { ...good, provider: { type: 'oauth' } }, expected: err({ code: 'invalid_provider', path: 'type', expected: 'one of builtin, hosta, hostb, hostccloud, hostcserver, reviewhost, openidconnect, http-header, saml' }) },
    { ref: 'identity', value: { ...good, identity: { accountId: '', username: null, emails: [] } }, expected: err({ code: 'invalid_identity', path: 'accountId', expected: 'non-empty string' }) },
    { ref: 'signedInUserId undefined', value: { ...good, signedInUserId: undefined }, expected: err({ code: 'invalid_sign_in_input', path: 'signedInUserId' }) },
    { ref: 'signedInUserId empty', value: { ...good, signedInUserId: '' }, expected: err({ code: 'invalid_sign_in_input', path: 'signedInUserId' }) },
    { ref: 'directory', value: { ...good, directory: [] }, expected: err({ code: 'invalid_sign_in_input', path: 'directory.findByExternalAccount' }) },
    { ref: 'directory lookup missing', value: { ...good, directory: { ...good.directory, findByUsername: 1 } }, expected: err({ code: 'invalid_sign_in_input', path: 'directory.findByUsername' }) },
    { ref: 'a directory getter throws', value: { ...good, directory: Object.defineProperty({ ...good.directory }, 'findByUsername', { get: throwing }) }, expected: err({ code: 'invalid_sign_in_input', path: 'directory.findByUsername' }) },
    { ref: 'randomBytes', value: { ...good, randomBytes: new Uint8Array(16) }, expected: err({ code: 'invalid_sign_in_input', path: 'randomBytes' }) },
    { ref: 'directory throws', value: { ...good, directory: { ...good.directory, findByExternalAccount: throwing } }, expected: err({ code: 'directory_failed', operation: 'findByExternalAccount', cause: 'threw' }) },
    { ref: 'directory returns garbage', value: { ...good, directory: { ...good.directory, findByVerifiedEmail: () => ({ id: 'u1' }) } }, expected: err({ code: 'directory_failed', operation: 'findByVerifiedEmail', cause: 'malformed_result' }) },
    { ref: 'isUsernameTaken not a boolean', value: { ...good, directory: { ...good.directory, isUsernameTaken: () => 'no' } }, expected: err({ code: 'directory_failed', operation: 'isUsernameTaken', cause: 'malformed_result' }) },
    { ref: 'randomBytes throws', value: { ...good, randomBytes: throwing }, expected: err({ code: 'random_bytes_failed', cause: 'threw' }) },
    { ref: 'randomBytes too short', value: { ...good, randomBytes: () => new Uint8Array(3) }, expected: err({ code: 'random_bytes_failed', cause: 'not_enough_bytes' }) },
    { ref: 'randomBytes not bytes', value: { ...good, randomBytes: (n: number) => Array<number>(n).fill(0) }, expected: err({ code: 'random_bytes_failed', cause: 'not_enough_bytes' }) },
  ])('should not decide on malformed input or failing dependencies: $ref', ({ value, expected }) => {
    // @ts-expect-error -- deliberately malformed at run time
    expect(resolveSignIn(value)).toStrictEqual(expected);
  });

  it('should accept a class-based directory and undefined for "not found"', () => {
    class Directory implements AccountDirectory {
      readonly #names = new Set(['octo']);
      findByExternalAccount(): Account | null {
        return null;
      }
      findByVerifiedEmail(): Account | null {
        return null;
      }
      findByUsername(): Account | null {
        return null;
      }
      isUsernameTaken(name: string): boolean {
        return this.#names.has(name);
      }
    }
    const directory = new Directory();
    // @ts-expect-error -- undefined is accepted at run time as "not found"
    directory.findByVerifiedEmail = () => undefined;
    expect(resolveSignIn({ ...input({ provider: oidc() }), directory })).toStrictEqual(create('octo-aaaaa', [octoEmail()], OIDC));
  });
});

// ---------------------------------------------------------------------------------------------
// Exhaustive decision tables compared with an oracle written from the spec's wording.

const ACCOUNT_STATES = ['none', 'verified_match', 'unverified_match', 'linked', 'signed_in'] as const;
type AccountState = (typeof ACCOUNT_STATES)[number];
const bystander = account('u-other', 'other', [{ address: 'other@example.com', verified: true }]);

/** The existing accounts and the session for each account state, against the identity `octo@example.com` (hosta id 1234). */
const world = (state: AccountState, type: 'hosta' | 'hostb', serviceId: string): { accounts: Account[]; signedInUserId: string | null } =>
  ({
    none: { accounts: [bystander], signedInUserId: null },
    verified_match: { accounts: [bystander, account('u-match', 'match', [{ address: 'OCTO@example.com', verified: true }])], signedInUserId: null },
    unverified_match: { accounts: [bystander, account('u-match', 'match', [{ address: 'octo@example.com', verified: false }])], signedInUserId: null },
    linked: { accounts: [bystander, account('u-linked', 'linked', [{ address: 'linked@example.com', verified: true }], [link(type, serviceId)])], signedInUserId: null },
    signed_in: { accounts: [bystander, account('u-session', 'session', [{ address: 'session@example.com', verified: true }])], signedInUserId: 'u-session' },
  })[state];

type Outcome =
  | { kind: 'sign_in'; userId: string; via: SignInVia; linkExternalAccount: boolean }
  | { kind: 'create'; username: string }
  | { kind: 'deny'; reason: SignInDenialReason };

const outcomeOf = (decision: SignInDecision): Outcome =>
  decision.kind === 'sign_in'
    ? { kind: 'sign_in', userId: decision.userId, via: decision.via, linkExternalAccount: decision.linkExternalAccount }
    : decision.kind === 'create'
      ? { kind: 'create', username: decision.username }
      : { kind: 'deny', reason: decision.reason };

/** What the account state yields once the provider has admitted the person and reported a verified email. */
const linkingOracle = (state: AccountState): Outcome | null =>
  (({
    linked: { kind: 'sign_in', userId: 'u-linked', via: 'external_account', linkExternalAccount: false },
    signed_in: { kind: 'sign_in', userId: 'u-session', via: 'signed_in_user', linkExternalAccount: true },
    verified_match: { kind: 'sign_in', userId: 'u-match', via: 'verified_email', linkExternalAccount: true },
    none: null,
    unverified_match: null,
  }) satisfies Record<AccountState, Outcome | null>)[state];

describe('resolveSignIn, hosta decision table (exhaustive)', () => {
  const ORGS = {
    unset: undefined,
    empty: [],
    matching: ['acme'], // the person is in "Acme": org names compare case-insensitively
    not_matching: ['globex'],
  } as const;
  const ORGS_MAP = {
    unset: undefined,
    empty: {},
    matching: { acme: ['Core Team'] },
    not_matching: { acme: ['Ops'] },
    parent_team_only: { acme: ['Engineering'] }, // "Core Team" is a child of "Engineering"
    case_differing: { acme: ['core team'] },
  } as const;
  const ORG_CASES = ['unset', 'empty', 'matching', 'not_matching'] as const;
  const MAP_CASES = ['unset', 'empty', 'matching', 'not_matching', 'parent_team_only', 'case_differing'] as const;
  const rows = (['unset', true, false] as const).flatMap((allowSignup) =>
    ORG_CASES.flatMap((allowOrgs) =>
      MAP_CASES.flatMap((allowOrgsMap) =>
        ACCOUNT_STATES.flatMap((account) =>
          (['verified', 'unverified', 'none'] as const).map((email) => ({ allowSignup, allowOrgs, allowOrgsMap, account, email })),
        ),
      ),
    ),
  );

  type Row = (typeof rows)[number];
  /** The oracle: §5.3 hosta rules 2–6, §5.4 rules 1–4, §7 rules 2–3, in plain words. */
  const oracle = (row: Row): Outcome => {
    const restrictedByOrgs = row.allowOrgs === 'matching' || row.allowOrgs === 'not_matching';
    const restrictedByTeams = !['unset', 'empty'].includes(row.allowOrgsMap);
    const admitted = row.allowOrgs === 'matching' || row.allowOrgsMap === 'matching';
    if ((restrictedByOrgs || restrictedByTeams) && !admitted) return { kind: 'deny', reason: 'not_in_allowed_orgs_or_teams' };
    const existing = linkingOracle(row.account);
    if (existing !== null && (row.account !== 'verified_match' || row.email === 'verified')) return existing;
    if (row.email !== 'verified') return { kind: 'deny', reason: 'verified_email_missing' };
    if (row.allowSignup !== true) return { kind: 'deny', reason: 'signup_not_allowed' }; // unset means false (rule 2)
    return { kind: 'create', username: 'octo-cat' };
  };

  it('should enumerate every combination exactly once', () => {
    expect(rows).toHaveLength(3 * 4 * 6 * 5 * 3);
    expect(new Set(rows.map((row) => JSON.stringify(row))).size).toBe(rows.length);
  });

  it.each(rows)(
    'allowSignup=$allowSignup allowOrgs=$allowOrgs allowOrgsMap=$allowOrgsMap account=$account email=$email',
    (row) => {
      const orgs = ORGS[row.allowOrgs];
      const map = ORGS_MAP[row.allowOrgsMap];
      const provider: HostaProvider = hosta({
        // What the site configuration yields: allowSignup false when unset.
        allowSignup: row.allowSignup === 'unset' ? false : row.allowSignup,
        ...(orgs === undefined ? {} : { allowOrgs: orgs }),
        ...(map === undefined ? {} : { allowOrgsMap: map }),
      });
      const identity: ExternalIdentity = {
        accountId: '1234',
        username: 'octo-cat',
        emails: row.email === 'none' ? [] : [{ address: 'octo@example.com', verified: row.email === 'verified' }],
        orgs: ['Acme'],
        teams: [{ org: 'acme', name: 'Core Team' }],
        membershipComplete: true,
      };
      const { accounts, signedInUserId } = world(row.account, 'hosta', '');
      const decision = resolveSignIn({ provider, identity, signedInUserId, directory: directoryOf(accounts), randomBytes: countingBytes() });
      expect(outcomeOf(decision._unsafeUnwrap())).toStrictEqual(oracle(row));
    },
  );
});

describe('resolveSignIn, hostb decision table (exhaustive)', () => {
  const GROUPS = {
    unset: undefined,
    empty: [],
    listed: ['acme/platform'],
    unlisted: ['globex'],
    subgroup_listed: ['acme/platform/ci'], // the person is a member of the parent only
  } as const;
  const GROUP_CASES = ['unset', 'empty', 'listed', 'unlisted', 'subgroup_listed'] as const;
  const LEVELS = ['none', 5, 10, 20, 30, 40, 50] as const; // no membership, then every documented access level
  const rows = (['unset', true, false] as const).flatMap((allowSignup) =>
    GROUP_CASES.flatMap((allowGroups) =>
      LEVELS.flatMap((membership) =>
        ACCOUNT_STATES.flatMap((account) =>
          (['verified', 'unverified', 'none'] as const).map((email) => ({ allowSignup, allowGroups, membership, account, email })),
        ),
      ),
    ),
  );
  type Row = (typeof rows)[number];
  /** The oracle: §5.3 hostb rules 3–5, §5.4 rules 1–4, §7 rules 2–4, in plain words. */
  const oracle = (row: Row): Outcome => {
    const restricted = row.allowGroups !== 'unset' && row.allowGroups !== 'empty';
    const guestOrAbove = row.membership !== 'none' && row.membership >= 10;
    if (restricted && !(row.allowGroups === 'listed' && guestOrAbove)) {
      return row.allowGroups === 'listed' && row.membership === 5
        ? { kind: 'deny', reason: 'minimal_access' }
        : { kind: 'deny', reason: 'not_in_allowed_groups' };
    }
    const existing = linkingOracle(row.account);
    if (existing !== null && (row.account !== 'verified_match' || row.email === 'verified')) return existing;
    if (row.email !== 'verified') return { kind: 'deny', reason: 'verified_email_missing' };
    if (row.allowSignup === false) return { kind: 'deny', reason: 'signup_not_allowed' }; // unset means true (rule 3)
    return { kind: 'create', username: 'octo-cat' };
  };

  it('should enumerate every combination exactly once', () => {
    expect(rows).toHaveLength(3 * 5 * 7 * 5 * 3);
    expect(new Set(rows.map((row) => JSON.stringify(row))).size).toBe(rows.length);
  });

  it.each(rows)(
    'allowSignup=$allowSignup allowGroups=$allowGroups membership=$membership account=$account email=$email',
    (row) => {
      const paths = GROUPS[row.allowGroups];
      const provider = hostb({
        allowSignup: row.allowSignup === 'unset' ? true : row.allowSignup,
        ...(paths === undefined ? {} : { allowGroups: paths }),
      });
      const identity: ExternalIdentity = {
        accountId: '1234',
        username: 'octo-cat',
        emails: row.email === 'none' ? [] : [{ address: 'octo@example.com', verified: row.email === 'verified' }],
        groups: row.membership === 'none' ? [] : [{ fullPath: 'acme/platform', accessLevel: row.membership }],
        membershipComplete: true,
      };
      const { accounts, signedInUserId } = world(row.account, 'hostb', 'https://hostb.example.com');
      const decision = resolveSignIn({ provider, identity, signedInUserId, directory: directoryOf(accounts), randomBytes: countingBytes() });
      expect(outcomeOf(decision._unsafeUnwrap())).toStrictEqual(oracle(row));
    },
  );
});

describe('resolveSignIn, username matching decision table (exhaustive; §5.4 rule 5, §5.3 http-header rule 3, §5.5 rule 8)', () => {
  /**
   * Provider usernames against the account `admin`, each with what the spec's rules say about it, written out
   * by hand: `valid` (normalizing leaves it unchanged, §5.5 rule 7), `sameName` (equal to `admin` with ASCII
   * case ignored) and `normalized` (the name a new account starts from, §5.5 rules 1–6).
   */
  const NAMES = {
    exact: { username: 'admin', valid: true, sameName: true, normalized: 'admin' },
    case_variant: { username: 'ADMIN', valid: true, sameName: true, normalized: 'ADMIN' },
    email_shaped: { username: 'admin@evil.example', valid: false, sameName: false, normalized: 'admin' },
    leading_dot: { username: '.admin', valid: false, sameName: false, normalized: 'admin' },
    trailing_dot: { username: 'admin.', valid: false, sameName: false, normalized: 'admin' },
    leading_dash: { username: '-admin', valid: false, sameName: false, normalized: 'admin' },
    other_name: { username: 'alice', valid: true, sameName: false, normalized: 'alice' },
    none: { username: null, valid: false, sameName: false, normalized: null },
  } as const;
  const NAME_CASES = ['exact', 'case_variant', 'email_shaped', 'leading_dot', 'trailing_dot', 'leading_dash', 'other_name', 'none'] as const;
  const LINK_CASES = ['none', 'same_provider', 'same_type_other_service', 'other_type'] as const;
  const PROVIDERS = ['hostcserver', 'http-header'] as const;
  const rows = PROVIDERS.flatMap((provider) =>
    [true, false].flatMap((allowSignup) =>
      NAME_CASES.flatMap((name) =>
        (['verified', 'unverified', 'none'] as const).flatMap((email) =>
          ACCOUNT_ORIGINS.flatMap((origin) => LINK_CASES.map((links) => ({ provider, allowSignup, name, email, origin, links }))),
        ),
      ),
    ),
  );
  type Row = (typeof rows)[number];

  const SERVICE = { hostcserver: 'https://hostc.example.com', 'http-header': '' } as const;
  const linksOf = (row: Row): ExternalAccountRef[] =>
    ({
      none: [],
      same_provider: [link(row.provider, SERVICE[row.provider], 'someone-else')],
      same_type_other_service: [link(row.provider, 'https://elsewhere.example', 'someone-else')],
      other_type: [link('hosta', '', 'someone-else')],
    })[row.links];

  /** The oracle, from the readings in plain words: §5.4 rules 3 and 5, §5.3 http-header rule 3, §5.5 rule 8, §7 rule 3. */
  const oracle = (row: Row): Outcome => {
    const name = NAMES[row.name];
    // §5.4 rule 3: a code host without a verified email is refused, even when a username matches.
    if (row.provider === 'hostcserver' && row.email !== 'verified') return { kind: 'deny', reason: 'verified_email_missing' };
    // hostcserver always matches usernames; a proxy only when it sends no email at all.
    const usernameMatching = row.provider === 'hostcserver' || row.email === 'none';
    // The provider's name as given, already valid, equal to the account's name.
    const sameAccount = name.valid && name.sameName;
    // Only an administrator-created account with no link of this type: one linked to this same provider belongs to
    // the identity linked there (here 'someone-else'), never to a namesake.
    const claimable = row.origin === 'admin_created' && (row.links === 'none' || row.links === 'other_type');
    if (usernameMatching && sameAccount && claimable) {
      return { kind: 'sign_in', userId: 'u-admin', via: 'username', linkExternalAccount: true };
    }
    if (!row.allowSignup) return { kind: 'deny', reason: 'signup_not_allowed' };
    // A new account: the provider's name normalized, else the email's local part; suffixed when taken (§5.5 rule 8).
    const base = name.normalized ?? (row.email === 'none' ? null : 'person');
    if (base === null) return { kind: 'deny', reason: 'username_missing' };
    return { kind: 'create', username: base.toLowerCase() === 'admin' ? `${base}-aaaaa` : base };
  };

  it('should enumerate every combination exactly once', () => {
    expect(rows).toHaveLength(2 * 2 * 8 * 3 * 5 * 4);
    expect(new Set(rows.map((row) => JSON.stringify(row))).size).toBe(rows.length);
  });

  it.each(rows)(
    '$provider allowSignup=$allowSignup name=$name email=$email origin=$origin links=$links',
    (row) => {
      const provider: AuthProvider = row.provider === 'hostcserver' ? hostcserver(row.allowSignup) : proxy(row.allowSignup);
      const username = NAMES[row.name].username;
      const identity: ExternalIdentity = {
        accountId: '1234',
        username,
        emails: row.email === 'none' ? [] : [{ address: 'person@example.com', verified: row.email === 'verified' }],
      };
      const accounts = [bystander, account('u-admin', 'admin', [], linksOf(row), row.origin)];
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory: directoryOf(accounts), randomBytes: countingBytes() });
      expect(outcomeOf(decision._unsafeUnwrap())).toStrictEqual(oracle(row));
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Random bytes from a generated pool, cycled. */
const byteSource = fc
  .array(fc.uint8Array({ minLength: 16, maxLength: 16 }), { minLength: 1, maxLength: 6 })
  .map((pool) => {
    let call = 0;
    return (n: number): Uint8Array => {
      const chunk = pool[call++ % pool.length] ?? new Uint8Array(16);
      const bytes = new Uint8Array(n);
      bytes.set(chunk.subarray(0, n));
      return bytes;
    };
  });

const signedInUser = fc.constantFrom(null, 'u0', 'u1', 'u9');

describe('resolveSignIn properties', () => {
  test.prop([fc.anything()])('should never throw on anything', (value) => {
    // @ts-expect-error -- arbitrary values at run time
    expect(() => resolveSignIn(value)).not.toThrow();
  });

  test.prop([
    fc.oneof(authProvider, fc.anything()),
    fc.oneof(externalIdentity, fc.anything()),
    fc.oneof(signedInUser, fc.anything()),
    fc.oneof(accountsArb.map(directoryOf), fc.anything()),
    fc.oneof(byteSource, fc.anything()),
  ])('should never throw when any field is replaced by anything', (provider, identity, signedInUserId, directory, randomBytes) => {
    // @ts-expect-error -- arbitrary values at run time
    const result = resolveSignIn({ provider, identity, signedInUserId, directory, randomBytes });
    expect(result.isOk() || result.isErr()).toBe(true);
  });

  test.prop([authProvider, externalIdentity, signedInUser, accountsArb, byteSource])(
    'should decide every well-formed input, and deny with the gating reason whenever gating denies',
    (provider, identity, signedInUserId, accounts, randomBytes) => {
      const decision = resolveSignIn({ provider, identity, signedInUserId, directory: directoryOf(accounts), randomBytes })._unsafeUnwrap();
      const access = decideProviderAccess(provider, identity)._unsafeUnwrap();
      if (access.kind === 'deny') expect(decision).toStrictEqual(deny(access.reason)._unsafeUnwrap());
    },
  );

  test.prop([authProvider, externalIdentity, accountsArb, byteSource, fc.boolean()])(
    'should never link an email verified on only one side, even when the directory lies',
    (provider, identity, accounts, randomBytes, lying) => {
      const honest = directoryOf(accounts);
      // A lying directory answers any email lookup with some account, verified or not.
      const directory: AccountDirectory = lying
        ? { ...honest, findByVerifiedEmail: (address) => accounts.find((a) => a.emails.some((e) => e.address.toLowerCase() === address.toLowerCase())) ?? accounts[0] ?? null }
        : honest;
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory, randomBytes })._unsafeUnwrap();
      if (decision.kind === 'sign_in' && decision.via === 'verified_email') {
        const target = accounts.find((a) => a.id === decision.userId);
        const providerVerified = identity.emails.filter((e) => e.verified).map((e) => e.address.toLowerCase());
        const accountVerified = (target?.emails ?? []).filter((e) => e.verified).map((e) => e.address.toLowerCase());
        expect(providerVerified.filter((address) => accountVerified.includes(address))).not.toStrictEqual([]);
      }
    },
  );

  test.prop([authProvider, externalIdentity, accountsArb, byteSource])(
    'should only create usernames that validate and are not taken',
    (provider, identity, accounts, randomBytes) => {
      const directory = directoryOf(accounts);
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory, randomBytes })._unsafeUnwrap();
      if (decision.kind === 'create') {
        expect(validateUsername(decision.username)).toStrictEqual(ok(decision.username));
        expect(directory.isUsernameTaken(decision.username)).toBe(false);
      }
    },
  );

  test.prop(
    [
      fc.constantFrom<AuthProvider>(hosta({ allowSignup: true }), oidc()),
      fc.constantFrom('octo', 'Octo', 'x_y', 'john doe'),
      fc.uniqueArray(fc.constantFrom('octo', 'octo-aaaaa', 'octo-abcde', 'x_y', 'john-doe', 'x_y-aaaaa'), { maxLength: 6 }),
    ],
  )('should create the provider username normalized when it is free, else a suffixed one (§5.5 rule 8)', (provider, username, taken) => {
    const directory = directoryOf(taken.map((name, i) => account(`u${i}`, name)));
    const identity = person({ username });
    const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory, randomBytes: countingBytes() })._unsafeUnwrap();
    const base = username.replace(' ', '-');
    if (!taken.some((name) => name.toLowerCase() === base.toLowerCase())) {
      expect(decision).toMatchObject({ kind: 'create', username: base });
    } else {
      expect(decision.kind === 'create' && decision.username.startsWith(`${base}-`)).toBe(true);
    }
  });

  /** Provider usernames near the generated accounts' names: exact, case variants, and names that only normalize to them. */
  const nearUsername = fc.constantFrom('octo', 'OCTO', 'alice', 'carol', 'x_y', 'john-doe', 'octo@evil.example', '.octo', 'octo.', '-alice', 'alice..', 'x_y@corp', 'john doe', 'John--Doe');
  /** The providers that match by username (§5.4 rule 5, §5.3 http-header rule 3). */
  const usernameMatcher = fc.constantFrom<AuthProvider>(hostcserver(true), hostcserver(false), proxy(true), proxy(false));
  const matchingIdentity = fc.record(
    {
      accountId: fc.constantFrom('1', '2', 'carol'),
      username: nearUsername,
      emails: fc.array(fc.record({ address: fc.constantFrom('octo@example.com', 'new@corp.example'), verified: fc.boolean() }, { noNullPrototype: true }), { maxLength: 1 }),
    },
    { noNullPrototype: true },
  );
  const namedAccounts = fc
    .uniqueArray(
      fc.record(
        {
          username: fc.constantFrom('octo', 'alice', 'carol', 'x_y', 'john-doe', 'John-Doe'),
          origin: fc.constantFrom(...ACCOUNT_ORIGINS),
          links: fc.subarray([link('hostcserver', 'https://hostc.example.com', '7'), link('hostcserver', 'https://other.example', '8'), link('http-header', '', 'x'), HOSTA]),
        },
        { noNullPrototype: true },
      ),
      { maxLength: 5, selector: (a) => a.username.toLowerCase() },
    )
    .map((list) => list.map((a, i) => account(`u${i}`, a.username, [], a.links.map((l) => ({ ...l, accountId: `${l.accountId}-${i}` })), a.origin)));

  test.prop([usernameMatcher, matchingIdentity, namedAccounts, byteSource])(
    'should never land a username match in an account whose origin is password_signup, provider_signup or service_account (§5.4 rule 5)',
    (provider, identity, accounts, randomBytes) => {
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory: directoryOf(accounts), randomBytes })._unsafeUnwrap();
      if (decision.kind === 'sign_in' && decision.via === 'username') {
        expect(accounts.find((a) => a.id === decision.userId)?.origin).toBe('admin_created');
      }
    },
  );

  test.prop([usernameMatcher, matchingIdentity, namedAccounts, byteSource])(
    'should never match by a provider username that normalization changes, and match only the same name (§5.5 rules 7–8)',
    (provider, identity, accounts, randomBytes) => {
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory: directoryOf(accounts), randomBytes })._unsafeUnwrap();
      if (decision.kind === 'sign_in' && decision.via === 'username') {
        const name = identity.username ?? '';
        expect(normalizeUsername(name)).toStrictEqual(ok(name));
        expect(accounts.find((a) => a.id === decision.userId)?.username.toLowerCase()).toBe(name.toLowerCase());
      }
    },
  );

  test.prop([usernameMatcher, matchingIdentity, namedAccounts, byteSource])(
    'should link by username only to an account with no link of the provider type (§5.4 rule 5)',
    (provider, identity, accounts, randomBytes) => {
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory: directoryOf(accounts), randomBytes })._unsafeUnwrap();
      if (decision.kind === 'sign_in' && decision.via === 'username') {
        const ofType = accounts.find((a) => a.id === decision.userId)?.externalAccounts.filter((l) => l.providerType === provider.type) ?? [];
        expect(ofType).toStrictEqual([]);
      }
    },
  );

  test.prop([usernameMatcher, matchingIdentity, namedAccounts, byteSource])(
    'should give a provider username that finds no claimable account a new account or a denial, never another account (§5.5 rule 8)',
    (provider, identity, accounts, randomBytes) => {
      // Every generated account made unclaimable by origin: no username match may happen at all.
      const unclaimable = accounts.map((a) => ({ ...a, origin: a.origin === 'admin_created' ? ('password_signup' as const) : a.origin }));
      const decision = resolveSignIn({ provider, identity, signedInUserId: null, directory: directoryOf(unclaimable), randomBytes })._unsafeUnwrap();
      expect(decision.kind === 'sign_in' && decision.via === 'username').toBe(false);
      if (decision.kind === 'create') expect(unclaimable.some((a) => a.username.toLowerCase() === decision.username.toLowerCase())).toBe(false);
    },
  );

  test.prop([providerReordered, identityReordered, signedInUser, accountsArb], { numRuns: 500 })(
    'should not depend on the order of orgs, teams or groups, in the identity or in the provider',
    ([provider, reorderedProvider], [identity, reorderedIdentity], signedInUserId, accounts) => {
      const run = (p: AuthProvider, id: ExternalIdentity) =>
        resolveSignIn({ provider: p, identity: id, signedInUserId, directory: directoryOf(accounts), randomBytes: countingBytes() });
      expect(run(reorderedProvider, reorderedIdentity)).toStrictEqual(run(provider, identity));
    },
  );
});
