/**
 * fast-check generators for provider entries, external identities and accounts (gating and linking).
 *
 * Values come from small pools so that generated identities and accounts often share emails,
 * usernames, organisations and groups.
 *
 * @module
 */
import fc from 'fast-check';
import { ACCOUNT_ORIGINS, type Account, type AccountEmail, type ExternalAccountRef } from '../../src/core/account-directory.js';
import type { AuthProvider, HostaProvider, HostbProvider, OpenIdConnectProvider } from '../../src/core/auth-providers.js';
import { GROUP_ACCESS_LEVEL, type ExternalEmail, type ExternalIdentity } from '../../src/core/external-identity.js';

const noNull = { noNullPrototype: true } as const;

/** A few mailbox names and domains, in different letter cases. */
export const emailAddress: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('octo', 'Octo', 'alice', 'ALICE', 'bob', 'x_y'), fc.constantFrom('example.com', 'EXAMPLE.com', 'other.org'))
  .map(([local, domain]) => `${local}@${domain}`);

/** An email as a provider reports it. */
export const externalEmail: fc.Arbitrary<ExternalEmail> = fc.record({ address: emailAddress, verified: fc.boolean() }, noNull);

/** An email as an account stores it. */
export const accountEmail: fc.Arbitrary<AccountEmail> = fc.record({ address: emailAddress, verified: fc.boolean() }, noNull);

/** Organisation names (case variants of a few). */
export const orgName: fc.Arbitrary<string> = fc.constantFrom('acme', 'ACME', 'Acme', 'globex', 'initech');

/** Team display names (case variants, a parent and a child team). */
export const teamName: fc.Arbitrary<string> = fc.constantFrom('Core Team', 'core team', 'Engineering', 'Engineering/Core', 'Ops');

/** Group full paths, including a subgroup. */
export const groupPath: fc.Arbitrary<string> = fc.constantFrom('acme', 'acme/platform', 'acme/platform/ci', 'globex');

/** Access levels, the documented ones and a few others. */
export const accessLevel: fc.Arbitrary<number> = fc.constantFrom(0, ...Object.values(GROUP_ACCESS_LEVEL), 7, 60);

/** Usernames a provider might report. */
export const providerUsername: fc.Arbitrary<string | null> = fc.option(
  fc.constantFrom('octo', 'Octo', 'alice', 'bob', 'x_y', 'john doe', '@@', 'alice@example.com'),
  { nil: null },
);

/** An external identity with every optional field sometimes present. */
export const externalIdentity: fc.Arbitrary<ExternalIdentity> = fc.record(
  {
    accountId: fc.constantFrom('1', '2', '3', 'alice@example.com'),
    username: providerUsername,
    emails: fc.array(externalEmail, { maxLength: 3 }),
    orgs: fc.array(orgName, { maxLength: 3 }),
    teams: fc.array(fc.record({ org: orgName, name: teamName }, noNull), { maxLength: 3 }),
    groups: fc.array(fc.record({ fullPath: groupPath, accessLevel }, noNull), { maxLength: 3 }),
    membershipComplete: fc.boolean(),
  },
  { ...noNull, requiredKeys: ['accountId', 'username', 'emails'] },
);

/** A `hosta` entry with sometimes-set `allowOrgs` and `allowOrgsMap`. */
export const hostaProvider: fc.Arbitrary<HostaProvider> = fc
  .record(
    {
      allowSignup: fc.boolean(),
      allowOrgs: fc.option(fc.array(orgName, { maxLength: 2 }), { nil: undefined }),
      allowOrgsMap: fc.option(fc.dictionary(orgName, fc.array(teamName, { maxLength: 2 }), { maxKeys: 2, noNullPrototype: true }), {
        nil: undefined,
      }),
    },
    noNull,
  )
  .map(({ allowSignup, allowOrgs, allowOrgsMap }) => ({
    type: 'hosta' as const,
    url: '',
    clientID: 'id',
    clientSecret: 'secret',
    allowSignup,
    ...(allowOrgs === undefined ? {} : { allowOrgs }),
    ...(allowOrgsMap === undefined ? {} : { allowOrgsMap }),
  }));

/** A `hostb` entry with a sometimes-set `allowGroups`. */
export const hostbProvider: fc.Arbitrary<HostbProvider> = fc
  .record({ allowSignup: fc.boolean(), allowGroups: fc.option(fc.array(groupPath, { maxLength: 2 }), { nil: undefined }) }, noNull)
  .map(({ allowSignup, allowGroups }) => ({
    type: 'hostb' as const,
    url: 'https://hostb.example.com',
    clientID: 'id',
    clientSecret: 'secret',
    apiScope: 'api',
    allowSignup,
    ...(allowGroups === undefined ? {} : { allowGroups }),
  }));

/** An `openidconnect` entry with a sometimes-set `requireEmailDomain`. */
export const openIdConnectProvider: fc.Arbitrary<OpenIdConnectProvider> = fc
  .record(
    { allowSignup: fc.boolean(), requireEmailDomain: fc.option(fc.constantFrom('example.com', 'Example.COM'), { nil: undefined }) },
    noNull,
  )
  .map(({ allowSignup, requireEmailDomain }) => ({
    type: 'openidconnect' as const,
    issuer: 'https://accounts.example.com',
    clientID: 'id',
    clientSecret: 'secret',
    allowSignup,
    ...(requireEmailDomain === undefined ? {} : { requireEmailDomain }),
  }));

/** A provider entry of any type. */
export const authProvider: fc.Arbitrary<AuthProvider> = fc.oneof(
  hostaProvider,
  hostbProvider,
  openIdConnectProvider,
  fc.boolean().map((allowSignup): AuthProvider => ({ type: 'hostccloud', clientKey: 'k', clientSecret: 's', allowSignup })),
  fc.boolean().map(
    (allowSignup): AuthProvider => ({ type: 'hostcserver', url: 'https://hostc.example.com', clientID: 'i', clientSecret: 's', allowSignup }),
  ),
  fc.boolean().map((allowSignup): AuthProvider => ({ type: 'reviewhost', url: 'https://review.example.com', allowSignup })),
  fc.boolean().map(
    (allowSignup): AuthProvider => ({ type: 'http-header', usernameHeader: 'X-User', emailHeader: 'X-Email', allowSignup }),
  ),
  fc.boolean().map((allowSignup): AuthProvider => ({ type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'c', allowSignup })),
  fc.boolean().map((allowSignup): AuthProvider => ({ type: 'builtin', allowSignup })),
);

/** A link to an identity at one of the generated providers. */
export const externalAccountRef: fc.Arbitrary<ExternalAccountRef> = fc.record(
  {
    providerType: fc.constantFrom('hosta', 'hostb', 'openidconnect', 'http-header'),
    serviceId: fc.constantFrom('', 'https://hostb.example.com', 'https://accounts.example.com'),
    accountId: fc.constantFrom('1', '2', '3', 'alice@example.com'),
  },
  noNull,
);

/**
 * Accounts of every origin without conflicts: ids and usernames are unique by construction, and a verified email
 * or a link already claimed by an earlier account is dropped (or kept unverified) from later ones.
 */
export const accounts: fc.Arbitrary<readonly Account[]> = fc
  .uniqueArray(fc.constantFrom('octo', 'alice', 'bob', 'x_y', 'john-doe', 'Octo-abcde', 'carol'), {
    maxLength: 5,
    comparator: (a, b) => a.toLowerCase() === b.toLowerCase(),
  })
  .chain((usernames) =>
    fc.tuple(
      fc.constant(usernames),
      fc.array(fc.tuple(fc.array(accountEmail, { maxLength: 3 }), fc.array(externalAccountRef, { maxLength: 2 }), fc.constantFrom(...ACCOUNT_ORIGINS)), {
        minLength: usernames.length,
        maxLength: usernames.length,
      }),
    ),
  )
  .map(([usernames, details]) => {
    const claimedEmails = new Set<string>();
    const claimedLinks = new Set<string>();
    return usernames.map((username, index): Account => {
      const [emails, links, origin] = details[index] ?? [[], [], 'admin_created'];
      const ownEmails = new Set<string>();
      const keptEmails = emails.map((email) => {
        const key = email.address.toLowerCase();
        if (!email.verified) return email;
        if (claimedEmails.has(key) && !ownEmails.has(key)) return { address: email.address, verified: false };
        claimedEmails.add(key);
        ownEmails.add(key);
        return email;
      });
      const keptLinks = links.filter((link) => {
        const key = JSON.stringify([link.providerType, link.serviceId, link.accountId]);
        if (claimedLinks.has(key)) return false;
        claimedLinks.add(key);
        return true;
      });
      return { id: `u${index}`, username, origin, emails: keptEmails, externalAccounts: keptLinks };
    });
  });

/** Every permutation of `list` (`undefined` stays `undefined`). */
function permutation<T>(list: readonly T[] | undefined): fc.Arbitrary<readonly T[] | undefined> {
  return list === undefined
    ? fc.constant(undefined)
    : fc.shuffledSubarray([...list], { minLength: list.length, maxLength: list.length });
}

function withList<K extends string, T>(key: K, list: readonly T[] | undefined): Partial<Record<K, readonly T[]>> {
  const out: Partial<Record<K, readonly T[]>> = {};
  if (list !== undefined) out[key] = list;
  return out;
}

/** An identity and the same identity with its `orgs`, `teams` and `groups` listed in another order. */
export const identityReordered: fc.Arbitrary<readonly [ExternalIdentity, ExternalIdentity]> = externalIdentity.chain((identity) =>
  fc
    .tuple(permutation(identity.orgs), permutation(identity.teams), permutation(identity.groups))
    .map(
      ([orgs, teams, groups]) =>
        [identity, { ...identity, ...withList('orgs', orgs), ...withList('teams', teams), ...withList('groups', groups) }] as const,
    ),
);

function reorderProvider(provider: AuthProvider): fc.Arbitrary<readonly [AuthProvider, AuthProvider]> {
  if (provider.type === 'hosta') {
    const map = Object.entries(provider.allowOrgsMap ?? {});
    return fc
      .tuple(
        permutation(provider.allowOrgs),
        fc.tuple(...map.map(([org, teams]) => permutation(teams).map((list) => [org, list ?? []] as const))),
        fc.boolean(),
      )
      .map(([allowOrgs, entries, reverseKeys]) => {
        const reordered: HostaProvider = {
          ...provider,
          ...withList('allowOrgs', allowOrgs),
          ...(provider.allowOrgsMap === undefined
            ? {}
            : { allowOrgsMap: Object.fromEntries(reverseKeys ? [...entries].reverse() : entries) }),
        };
        return [provider, reordered] as const;
      });
  }
  if (provider.type === 'hostb') {
    return permutation(provider.allowGroups).map(
      (allowGroups) => [provider, { ...provider, ...withList('allowGroups', allowGroups) }] as const,
    );
  }
  return fc.constant([provider, provider] as const);
}

/**
 * A provider and the same provider with `allowOrgs`, the teams and keys of `allowOrgsMap`, and `allowGroups` reordered;
 * mostly `hosta` and `hostb`, the types with membership lists.
 */
export const providerReordered: fc.Arbitrary<readonly [AuthProvider, AuthProvider]> = fc
  .oneof(
    { weight: 4, arbitrary: fc.oneof(hostaProvider, hostbProvider) },
    { weight: 1, arbitrary: authProvider },
  )
  .chain(reorderProvider);
