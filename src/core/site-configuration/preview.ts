/**
 * What a candidate site configuration would change before it applies: for every stored way into an account (the
 * built-in password, each linked identity with the facts its provider gave at its last sign-in), whether it signs
 * in under the current and under the candidate configuration, decided by `resolveSignIn` itself (spec §5.3–§5.5,
 * §7 rule 3); which providers come and go or open and close sign-up; and the query cost limits that change (§8).
 *
 * A host pages through its accounts, calls {@link previewSignInPage} on each page and folds the answers into a
 * {@link PreviewTally} with {@link tallyPreviewPage}; {@link configurationChanges} compares the providers and limits.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match } from 'ts-pattern';
import type { Account, AccountOrigin, ExternalAccountRef } from '../account-directory.js';
import type { AuthProvider, ProviderType } from '../auth-providers.js';
import { mayUsePassword } from '../browser-sign-in.js';
import type { ExternalIdentity } from '../external-identity.js';
import { emailDomain } from '../internal/email-address.js';
import { isObject } from '../internal/guard.js';
import { isProviderType, type Gate } from '../internal/provider-facts.js';
import { ACCESS_DENIAL_REASONS, readProviderForAccess } from '../provider-access.js';
import type { QueryLimits } from '../query-cost/limits.js';
import { resolveSignIn, type SignInDenialReason } from '../sign-in/resolve.js';
import type { SiteConfiguration } from './types.js';

/**
 * What a provider said about a person at their last sign-in: the identity without its account id. Never a token or
 * a secret.
 *
 * @example
 * ```ts
 * const facts: IdentityFacts = { username: 'octo', emails: [{ address: 'octo@example.com', verified: true }], orgs: ['acme'], teams: [] };
 * ```
 */
export type IdentityFacts = Omit<ExternalIdentity, 'accountId'>;

/**
 * The facts worth keeping of an identity a provider vouched for: everything but the account id, lists copied.
 *
 * @param identity - What the provider reported.
 * @returns A fresh {@link IdentityFacts}.
 * @example
 * ```ts
 * identityFacts({ accountId: '7', username: 'octo', emails: [], orgs: ['acme'] });
 * // { username: 'octo', emails: [], orgs: ['acme'] }
 * ```
 */
export function identityFacts(identity: ExternalIdentity): IdentityFacts {
  return {
    username: identity.username,
    emails: identity.emails.map((e) => ({ address: e.address, verified: e.verified })),
    ...(identity.orgs === undefined ? {} : { orgs: [...identity.orgs] }),
    ...(identity.teams === undefined ? {} : { teams: identity.teams.map((t) => ({ org: t.org, name: t.name })) }),
    ...(identity.groups === undefined ? {} : { groups: identity.groups.map((g) => ({ fullPath: g.fullPath, accessLevel: g.accessLevel })) }),
    ...(identity.membershipComplete === undefined ? {} : { membershipComplete: identity.membershipComplete }),
  };
}

/** One stored identity of an account, with the facts of its last sign-in (`null` when none were recorded). */
export interface PreviewIdentity {
  /** The provider type as stored (a type this version does not know never signs in). */
  readonly serviceType: string;
  /** Which provider of that type (its URL, issuer or entry point, without trailing slashes; `''` when none). */
  readonly serviceId: string;
  /** The identity's id at the provider. */
  readonly accountId: string;
  /** What the provider gave at the last sign-in, or `null` (an identity that last signed in before facts were kept). */
  readonly facts: IdentityFacts | null;
}

/**
 * One stored account with its ways in, as {@link previewSignInPage} reads it.
 *
 * @example
 * ```ts
 * const account: PreviewAccount = {
 *   id: '1', username: 'octo', origin: 'provider_signup', siteAdmin: false, serviceAccount: false, passwordHash: null,
 *   identities: [{ serviceType: 'hosta', serviceId: '', accountId: '7', facts: { username: 'octo', emails: [], orgs: ['acme'] } }],
 * };
 * ```
 */
export interface PreviewAccount {
  /** The account's id. */
  readonly id: string;
  /** Its username. */
  readonly username: string;
  /** How it came to be. */
  readonly origin: AccountOrigin;
  /** Whether it is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether it is a service account (never signs in from a browser). */
  readonly serviceAccount: boolean;
  /** Its built-in password hash, or `null` (only whether there is one is read). */
  readonly passwordHash: string | null;
  /** Its linked identities. */
  readonly identities: readonly PreviewIdentity[];
}

/**
 * Whether a way in signs in under one configuration: `allowed`, `denied`, or `unknown` (an identity without facts
 * whose answer depends on them: a membership rule applies).
 */
export type SignInState = 'allowed' | 'denied' | 'unknown';

/**
 * Why a way in does not sign in: a denial of `resolveSignIn`, `provider_absent` (no provider of the configuration
 * serves this identity, or no `builtin` for a password), or `not_decided` (the stored facts could not be judged).
 */
export type PreviewDenial = SignInDenialReason | 'provider_absent' | 'not_decided';

/** One way into an account under the two configurations. */
export interface WayPreview {
  /** The built-in password, or a linked identity (with the username the provider gave, when known). */
  readonly way:
    | { readonly kind: 'password' }
    | {
        readonly kind: 'identity';
        readonly serviceType: string;
        readonly serviceId: string;
        readonly accountId: string;
        readonly providerUsername: string | null;
        readonly hasFacts: boolean;
      };
  /** Under the current configuration. */
  readonly current: SignInState;
  /** Why not, under the current configuration (`null` when allowed). */
  readonly currentReason: PreviewDenial | null;
  /** Under the candidate configuration. */
  readonly candidate: SignInState;
  /** Why not, under the candidate configuration (`null` when allowed). */
  readonly candidateReason: PreviewDenial | null;
  /**
   * Whether both configurations serve this way in by the same providers with the same membership rules: its two
   * answers are then equal by construction, even when both are `unknown`.
   */
  readonly sameRules: boolean;
}

/** One account under the two configurations: each way in, and the account as a whole (any way in that signs in). */
export interface AccountPreview {
  /** The account's id. */
  readonly id: string;
  /** Its username. */
  readonly username: string;
  /** Whether it is a site administrator. */
  readonly siteAdmin: boolean;
  /** Each way in: the password first (when the account has one), then each identity in the given order. */
  readonly ways: readonly WayPreview[];
  /** `allowed` when a way signs in under the current configuration, else `unknown` when one may, else `denied`. */
  readonly current: SignInState;
  /** The same under the candidate configuration. */
  readonly candidate: SignInState;
}

/** Why {@link previewSignInPage} could not answer: an input is not of the documented shape. */
export type PreviewError = { readonly code: 'invalid_preview_input'; readonly path: string };

const DEPENDS_ON_FACTS: readonly string[] = ACCESS_DENIAL_REASONS;

const zeros = (n: number): Uint8Array => new Uint8Array(n);

interface ProviderKey {
  readonly type: ProviderType;
  readonly serviceId: string;
  readonly allowSignup: boolean;
  readonly provider: AuthProvider;
  /** The membership rule. */
  readonly gate: Gate;
  /** The membership rule, as JSON: equal texts decide every identity alike. */
  readonly rule: string;
  /** Its position among the configuration's providers (the memo's key). */
  readonly index: number;
  /** The facts its membership rule reads, as text (see {@link projection}); chosen once per provider entry. */
  readonly project: (facts: IdentityFacts | null) => Result<string, null>;
}

function providerKeys(configuration: SiteConfiguration): readonly ProviderKey[] {
  return configuration.authProviders.flatMap((provider, index): ProviderKey[] => {
    const facts = readProviderForAccess(provider);
    return facts.isOk()
      ? [
          {
            type: facts.value.type,
            serviceId: facts.value.serviceId,
            allowSignup: facts.value.allowSignup,
            provider,
            gate: facts.value.gate,
            rule: JSON.stringify(facts.value.gate),
            index,
            project: projection(facts.value.gate),
          },
        ]
      : [];
  });
}

const rank = (state: SignInState): number => (state === 'allowed' ? 2 : state === 'unknown' ? 1 : 0);

/** The best of several answers: allowed over unknown over denied (any provider of the key may sign the person in). */
function best(a: { state: SignInState; reason: PreviewDenial | null }, b: { state: SignInState; reason: PreviewDenial | null }) {
  return rank(b.state) > rank(a.state) ? b : a;
}

// One identity through one provider entry, decided by resolveSignIn over a directory holding only its account.
function decideIdentity(provider: AuthProvider, account: Account, ref: ExternalAccountRef, facts: IdentityFacts | null): { state: SignInState; reason: PreviewDenial | null } {
  const identity: ExternalIdentity = facts === null ? { accountId: ref.accountId, username: null, emails: [] } : { ...facts, accountId: ref.accountId };
  const directory = {
    findByExternalAccount: (wanted: ExternalAccountRef): Account | null =>
      wanted.providerType === ref.providerType && wanted.serviceId === ref.serviceId && wanted.accountId === ref.accountId ? account : null,
    findByVerifiedEmail: (): Account | null => null,
    findByUsername: (): Account | null => null,
    isUsernameTaken: (): boolean => true,
  };
  const decided = resolveSignIn({ provider, identity, signedInUserId: null, directory, randomBytes: zeros });
  if (decided.isErr()) return { state: facts === null ? 'unknown' : 'denied', reason: 'not_decided' };
  return match(decided.value)
    .returnType<{ state: SignInState; reason: PreviewDenial | null }>()
    .with({ kind: 'sign_in' }, (d) => (d.userId === account.id ? { state: 'allowed', reason: null } : { state: 'denied', reason: 'not_decided' }))
    .with({ kind: 'create' }, () => ({ state: 'denied', reason: 'not_decided' }))
    .with({ kind: 'deny' }, (d) => ({ state: facts === null && DEPENDS_ON_FACTS.includes(d.reason) ? 'unknown' : 'denied', reason: d.reason }))
    .exhaustive();
}

/**
 * The facts a membership rule reads, as text: two identities with the same text under one provider entry get the same
 * answer from `resolveSignIn` (the rule decides alike, and the link of §5.4 then finds each one's own account), so a
 * page decides each distinct text once. The reader is chosen once per rule (a page projects every identity);
 * `err` when the facts cannot be read as JSON (decided one by one then).
 */
function projection(gate: Gate): (facts: IdentityFacts | null) => Result<string, null> {
  const read = match(gate)
    .returnType<(facts: IdentityFacts) => string>()
    .with({ kind: 'none' }, () => () => 'none')
    .with({ kind: 'orgs_and_teams' }, () => (facts) => JSON.stringify([facts.orgs ?? null, facts.teams ?? null, facts.membershipComplete ?? null]))
    .with({ kind: 'groups' }, () => (facts) => JSON.stringify([facts.groups ?? null, facts.membershipComplete ?? null]))
    .with({ kind: 'email_domain' }, () => (facts) => {
      const primary = facts.emails[0];
      return JSON.stringify(primary === undefined ? null : [typeof primary.address === 'string' ? emailDomain(primary.address) : null, primary.verified]);
    })
    .exhaustive();
  return Result.fromThrowable(
    (facts: IdentityFacts | null): string => (facts === null ? 'no facts' : read(facts)),
    () => null,
  );
}

/** A page's answers by provider entry and projected facts. */
type Memo = Map<string, { state: SignInState; reason: PreviewDenial | null }>;

function decideMemo(memo: Memo, key: ProviderKey, asCore: () => Account, ref: ExternalAccountRef, facts: IdentityFacts | null): { state: SignInState; reason: PreviewDenial | null } {
  const projected = key.project(facts);
  if (projected.isErr()) return decideIdentity(key.provider, asCore(), ref, facts);
  const id = `${key.index}\u0000${projected.value}`;
  const known = memo.get(id);
  if (known !== undefined) return known;
  const decided = decideIdentity(key.provider, asCore(), ref, facts);
  memo.set(id, decided);
  return decided;
}

function decideWay(
  keys: readonly ProviderKey[],
  memo: Memo,
  asCore: () => Account,
  identity: PreviewIdentity | null,
): { state: SignInState; reason: PreviewDenial | null } {
  if (identity === null) {
    return keys.some((k) => k.type === 'builtin') ? { state: 'allowed', reason: null } : { state: 'denied', reason: 'provider_absent' };
  }
  const type = identity.serviceType;
  if (!isProviderType(type)) return { state: 'denied', reason: 'provider_absent' };
  const ref: ExternalAccountRef = { providerType: type, serviceId: identity.serviceId, accountId: identity.accountId };
  let answer: { state: SignInState; reason: PreviewDenial | null } | null = null;
  for (const key of keys) {
    if (key.type !== type || key.serviceId !== identity.serviceId) continue;
    const decided = decideMemo(memo, key, asCore, ref, identity.facts);
    answer = answer === null ? decided : best(answer, decided);
    if (answer.state === 'allowed') break;
  }
  return answer ?? { state: 'denied', reason: 'provider_absent' };
}

// The rules that decide each way in: the membership rule of each provider of its type and namespace, in order.
function rulesByWay(keys: readonly ProviderKey[]): ReadonlyMap<string, string> {
  const rules = new Map<string, string[]>();
  for (const k of keys) {
    const id = JSON.stringify([k.type, k.serviceId]);
    rules.set(id, [...(rules.get(id) ?? []), k.rule]);
  }
  return new Map([...rules].map(([id, list]) => [id, JSON.stringify(list)]));
}

function sameRules(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>, type: string, serviceId: string): boolean {
  const id = JSON.stringify([type, serviceId]);
  return before.get(id) === after.get(id);
}

/** {@link sameRules} remembered per type and namespace for one page (a page asks it for every way in). */
function sameRulesOfPage(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): (type: string, serviceId: string) => boolean {
  const known = new Map<string, Map<string, boolean>>();
  return (type, serviceId) => {
    let byId = known.get(type);
    if (byId === undefined) {
      byId = new Map();
      known.set(type, byId);
    }
    const seen = byId.get(serviceId);
    if (seen !== undefined) return seen;
    const same = sameRules(before, after, type, serviceId);
    byId.set(serviceId, same);
    return same;
  };
}

/** The account as the core's sign-in reads it, built on first use (a page decided from its memo never needs it). */
function lazyCoreAccount(account: PreviewAccount): () => Account {
  let built: Account | undefined;
  return () => (built ??= coreAccount(account));
}

function overall(states: readonly SignInState[]): SignInState {
  return states.reduce<SignInState>((acc, s) => (rank(s) > rank(acc) ? s : acc), 'denied');
}

function coreAccount(account: PreviewAccount): Account {
  return {
    id: account.id,
    username: account.username,
    origin: account.origin,
    emails: [],
    externalAccounts: account.identities.flatMap((i): ExternalAccountRef[] =>
      isProviderType(i.serviceType) ? [{ providerType: i.serviceType, serviceId: i.serviceId, accountId: i.accountId }] : [],
    ),
  };
}

function wellFormed(accounts: unknown): accounts is readonly PreviewAccount[] {
  return (
    Array.isArray(accounts) &&
    accounts.every(
      (a: unknown) =>
        isObject(a) &&
        'id' in a && typeof a.id === 'string' && a.id !== '' &&
        'username' in a && typeof a.username === 'string' &&
        'identities' in a && Array.isArray(a.identities),
    )
  );
}

/**
 * Decides, for each account of a page, whether each of its ways in signs in under `current` and under `candidate`:
 * the password signs in when the configuration has a `builtin` provider (and the account may use one, spec §1);
 * an identity signs in when a provider of its type and namespace admits it, as `resolveSignIn` decides with the
 * identity's stored facts (the membership rules of §5.3, then the link of §5.4). An identity without stored facts
 * is `unknown` wherever a membership rule would read them. Service accounts have no way in from a browser.
 *
 * @param current - The configuration that runs.
 * @param candidate - The configuration that would replace it.
 * @param accounts - One page of stored accounts with their identities.
 * @returns `ok` with one {@link AccountPreview} per account (service accounts left out), or `err` when the page is
 * not a list of accounts.
 * @example
 * ```ts
 * previewSignInPage(current, candidate, [octo]);
 * // ok([{ id: '1', username: 'octo', siteAdmin: false, current: 'allowed', candidate: 'denied',
 * //       ways: [{ way: { kind: 'identity', serviceType: 'hosta', … }, current: 'allowed', currentReason: null,
 * //                candidate: 'denied', candidateReason: 'not_in_allowed_orgs_or_teams' }] }])
 * ```
 */
export function previewSignInPage(
  current: SiteConfiguration,
  candidate: SiteConfiguration,
  accounts: readonly PreviewAccount[],
): Result<readonly AccountPreview[], PreviewError> {
  if (!isObject(current) || !Array.isArray(current.authProviders)) return err({ code: 'invalid_preview_input', path: 'current' });
  if (!isObject(candidate) || !Array.isArray(candidate.authProviders)) return err({ code: 'invalid_preview_input', path: 'candidate' });
  if (!wellFormed(accounts)) return err({ code: 'invalid_preview_input', path: 'accounts' });
  const before = providerKeys(current);
  const after = providerKeys(candidate);
  const same = sameRulesOfPage(rulesByWay(before), rulesByWay(after));
  const memoBefore: Memo = new Map();
  const memoAfter: Memo = new Map();
  const previews: AccountPreview[] = [];
  for (const account of accounts) {
    if (account.serviceAccount === true) continue;
    const asCore = lazyCoreAccount(account);
    const ways: WayPreview[] = [];
    if (mayUsePassword({ serviceAccount: account.serviceAccount, passwordHash: account.passwordHash ?? null })) {
      const now = decideWay(before, memoBefore, asCore, null);
      const then = decideWay(after, memoAfter, asCore, null);
      ways.push({
        way: { kind: 'password' },
        current: now.state,
        currentReason: now.reason,
        candidate: then.state,
        candidateReason: then.reason,
        sameRules: same('builtin', ''),
      });
    }
    for (const identity of account.identities) {
      const now = decideWay(before, memoBefore, asCore, identity);
      const then = decideWay(after, memoAfter, asCore, identity);
      ways.push({
        way: {
          kind: 'identity',
          serviceType: identity.serviceType,
          serviceId: identity.serviceId,
          accountId: identity.accountId,
          providerUsername: identity.facts?.username ?? null,
          hasFacts: identity.facts !== null,
        },
        current: now.state,
        currentReason: now.reason,
        candidate: then.state,
        candidateReason: then.reason,
        sameRules: same(identity.serviceType, identity.serviceId),
      });
    }
    previews.push({
      id: account.id,
      username: account.username,
      siteAdmin: account.siteAdmin === true,
      ways,
      current: overall(ways.map((w) => w.current)),
      candidate: overall(ways.map((w) => w.candidate)),
    });
  }
  return ok(previews);
}

/** One way in that changes, as the tally lists it. */
export interface WayChange {
  /** The account's id. */
  readonly userId: string;
  /** The account's username. */
  readonly username: string;
  /** Whether the account is a site administrator. */
  readonly siteAdmin: boolean;
  /** The way in: `builtin` for the password, else the identity's provider type. */
  readonly serviceType: string;
  /** Which provider of that type (`''` for the password and for providers without a namespace). */
  readonly serviceId: string;
  /** The identity's id at the provider (`''` for the password). */
  readonly accountId: string;
  /** The username the provider gave at the last sign-in, when known. */
  readonly providerUsername: string | null;
  /** Why the way is refused after the change (for a loss), or was refused before it (for a gain). */
  readonly reason: PreviewDenial | null;
  /** Whether the account keeps another way in after the change (for a loss). */
  readonly accountStillSignsIn: boolean;
}

/** A capped list: its first entries and how many there are in all. */
export interface CappedList<T> {
  /** At most the tally's cap of entries, in the order the pages came. */
  readonly first: readonly T[];
  /** How many there are in all. */
  readonly count: number;
}

/**
 * What a preview found over every page so far.
 *
 * @example
 * ```ts
 * let tally = emptyPreviewTally(200);
 * tally = tallyPreviewPage(tally, previews);
 * tally.losing.count; // ways in that sign in now and would not after
 * ```
 */
export interface PreviewTally {
  /** The most entries each list keeps. */
  readonly cap: number;
  /** Accounts seen (service accounts excluded). */
  readonly accounts: number;
  /** Identities seen. */
  readonly identities: number;
  /** Identities seen without stored facts. */
  readonly identitiesWithoutFacts: number;
  /** Ways in that sign in now and would be refused. */
  readonly losing: CappedList<WayChange>;
  /** Ways in that are refused now and would sign in. */
  readonly gaining: CappedList<WayChange>;
  /** Ways in whose answer under either configuration is unknown (no stored facts), unless the same rules decide both. */
  readonly unknown: CappedList<WayChange>;
  /** Accounts that sign in now (or may) and would have no way in left. */
  readonly accountsLockedOut: CappedList<{ readonly userId: string; readonly username: string; readonly siteAdmin: boolean }>;
  /** Site administrators seen. */
  readonly siteAdmins: number;
  /** Site administrators who sign in now, or may (`unknown`). */
  readonly siteAdminsSigningInNow: number;
  /** Site administrators who would sign in, or may (`unknown`), after the change. */
  readonly siteAdminsSigningInAfter: number;
}

/**
 * A tally before any page.
 *
 * @param cap - The most entries each list keeps (at least 0; default 200).
 * @returns The empty tally.
 * @example
 * ```ts
 * emptyPreviewTally().losing; // { first: [], count: 0 }
 * ```
 */
export function emptyPreviewTally(cap = 200): PreviewTally {
  const empty = { first: [], count: 0 };
  return {
    cap: Number.isSafeInteger(cap) && cap > 0 ? cap : 0,
    accounts: 0,
    identities: 0,
    identitiesWithoutFacts: 0,
    losing: empty,
    gaining: empty,
    unknown: empty,
    accountsLockedOut: empty,
    siteAdmins: 0,
    siteAdminsSigningInNow: 0,
    siteAdminsSigningInAfter: 0,
  };
}

/** One page's additions to a capped list: the entries it has room for, and how many there are in all. */
interface Collecting<T> {
  readonly room: number;
  readonly items: T[];
  count: number;
}

function collecting<T>(list: CappedList<T>, cap: number): Collecting<T> {
  return { room: Math.max(0, cap - list.first.length), items: [], count: 0 };
}

function collected<T>(list: CappedList<T>, page: Collecting<T>): CappedList<T> {
  if (page.count === 0) return list;
  return { first: page.items.length === 0 ? list.first : [...list.first, ...page.items], count: list.count + page.count };
}

/**
 * Folds one page of {@link previewSignInPage} into a tally. A way whose two answers are equal changes nothing; one
 * `unknown` on either side makes it `unknown`; `allowed` → `denied` is a loss and `denied` → `allowed` a gain.
 *
 * @param tally - The tally so far.
 * @param page - One page's previews.
 * @returns The new tally (the given one is not changed).
 * @example
 * ```ts
 * tallyPreviewPage(emptyPreviewTally(), previewSignInPage(current, candidate, page)._unsafeUnwrap());
 * ```
 */
export function tallyPreviewPage(tally: PreviewTally, page: readonly AccountPreview[]): PreviewTally {
  // each list collects only the entries it still has room for, and counts the rest
  const losing = collecting<WayChange>(tally.losing, tally.cap);
  const gaining = collecting<WayChange>(tally.gaining, tally.cap);
  const unknown = collecting<WayChange>(tally.unknown, tally.cap);
  const lockedOut = collecting<{ readonly userId: string; readonly username: string; readonly siteAdmin: boolean }>(tally.accountsLockedOut, tally.cap);
  let identities = 0;
  let withoutFacts = 0;
  let admins = 0;
  let adminsNow = 0;
  let adminsAfter = 0;
  for (const account of page) {
    const stillSignsIn = account.candidate !== 'denied';
    for (const way of account.ways) {
      if (way.way.kind === 'identity') {
        identities++;
        if (!way.way.hasFacts) withoutFacts++;
      }
      if (way.current === way.candidate && (way.current !== 'unknown' || way.sameRules)) continue;
      const list = way.current === 'unknown' || way.candidate === 'unknown' ? unknown : way.current === 'allowed' ? losing : gaining;
      list.count++;
      if (list.items.length >= list.room) continue;
      list.items.push({
        userId: account.id,
        username: account.username,
        siteAdmin: account.siteAdmin,
        serviceType: way.way.kind === 'password' ? 'builtin' : way.way.serviceType,
        serviceId: way.way.kind === 'password' ? '' : way.way.serviceId,
        accountId: way.way.kind === 'password' ? '' : way.way.accountId,
        providerUsername: way.way.kind === 'password' ? null : way.way.providerUsername,
        reason: way.candidate === 'allowed' ? way.currentReason : way.candidateReason,
        accountStillSignsIn: stillSignsIn,
      });
    }
    if (account.current !== 'denied' && account.candidate === 'denied') {
      lockedOut.count++;
      if (lockedOut.items.length < lockedOut.room) lockedOut.items.push({ userId: account.id, username: account.username, siteAdmin: account.siteAdmin });
    }
    if (account.siteAdmin) {
      admins++;
      if (account.current !== 'denied') adminsNow++;
      if (account.candidate !== 'denied') adminsAfter++;
    }
  }
  return {
    cap: tally.cap,
    accounts: tally.accounts + page.length,
    identities: tally.identities + identities,
    identitiesWithoutFacts: tally.identitiesWithoutFacts + withoutFacts,
    losing: collected(tally.losing, losing),
    gaining: collected(tally.gaining, gaining),
    unknown: collected(tally.unknown, unknown),
    accountsLockedOut: collected(tally.accountsLockedOut, lockedOut),
    siteAdmins: tally.siteAdmins + admins,
    siteAdminsSigningInNow: tally.siteAdminsSigningInNow + adminsNow,
    siteAdminsSigningInAfter: tally.siteAdminsSigningInAfter + adminsAfter,
  };
}

/**
 * Whether the change would lock out every site administrator: at least one signs in now (or may), and none would
 * (nor may) afterwards. An administrator whose identity has no stored facts counts as one who may.
 *
 * @param tally - The tally over every page.
 * @returns `true` when the candidate should be refused as a reload.
 * @example
 * ```ts
 * locksOutSiteAdmins({ ...emptyPreviewTally(), siteAdmins: 1, siteAdminsSigningInNow: 1, siteAdminsSigningInAfter: 0 }); // true
 * ```
 */
export function locksOutSiteAdmins(tally: PreviewTally): boolean {
  return tally.siteAdminsSigningInNow > 0 && tally.siteAdminsSigningInAfter === 0;
}

/** A provider that comes, goes, or changes `allowSignup`. */
export interface ProviderChange {
  /** `added`, `removed`, or `signup` (present in both, `allowSignup` differs). */
  readonly kind: 'added' | 'removed' | 'signup';
  /** The provider type. */
  readonly type: ProviderType;
  /** Its namespace (URL, issuer or entry point without trailing slashes; `''` when none). */
  readonly serviceId: string;
  /** Whether it allows sign-up now (`null` when it is added). */
  readonly signupBefore: boolean | null;
  /** Whether it would allow sign-up (`null` when it is removed). */
  readonly signupAfter: boolean | null;
}

/** A query cost limit of spec §8 that changes. */
export interface LimitChange {
  /** The `rateLimits` setting, as the spec's table names it. */
  readonly setting: string;
  /** The limit now. */
  readonly before: number;
  /** The limit after the change. */
  readonly after: number;
}

/** What {@link configurationChanges} reports. */
export interface ConfigurationChanges {
  /** Providers added, removed, or opening or closing sign-up, in the candidate's order then the removed ones. */
  readonly providers: readonly ProviderChange[];
  /** The query cost limits that change, in the order of spec §8. */
  readonly limits: readonly LimitChange[];
}

const LIMIT_SETTINGS: readonly (readonly [keyof QueryLimits, string])[] = [
  ['maxDepth', 'graphQLMaxDepth'],
  ['maxFieldCount', 'graphQLMaxFieldCount'],
  ['maxAliases', 'graphQLMaxAliases'],
  ['maxDuplicateFieldCount', 'GraphqlMaxDuplicateFieldCount'],
  ['maxUniqueFieldCount', 'GraphqlMaxUniqueFieldCount'],
];

function signupByKey(keys: readonly ProviderKey[]): Map<string, { type: ProviderType; serviceId: string; allowSignup: boolean }> {
  const byKey = new Map<string, { type: ProviderType; serviceId: string; allowSignup: boolean }>();
  for (const k of keys) {
    const id = JSON.stringify([k.type, k.serviceId]);
    const seen = byKey.get(id);
    byKey.set(id, { type: k.type, serviceId: k.serviceId, allowSignup: (seen?.allowSignup ?? false) || k.allowSignup });
  }
  return byKey;
}

/**
 * The providers and query cost limits a candidate configuration changes. Providers are matched by type and
 * namespace (several entries of one key count as one, allowing sign-up when any does).
 *
 * @param current - The configuration that runs.
 * @param candidate - The configuration that would replace it.
 * @returns The changes; both lists empty when nothing of this kind changes.
 * @example
 * ```ts
 * configurationChanges(current, { ...current, queryLimits: { ...current.queryLimits, maxDepth: 10 } });
 * // { providers: [], limits: [{ setting: 'graphQLMaxDepth', before: 30, after: 10 }] }
 * ```
 */
export function configurationChanges(current: SiteConfiguration, candidate: SiteConfiguration): ConfigurationChanges {
  const before = signupByKey(providerKeys(current));
  const after = signupByKey(providerKeys(candidate));
  const providers: ProviderChange[] = [];
  for (const [id, p] of after) {
    const was = before.get(id);
    if (was === undefined) providers.push({ kind: 'added', type: p.type, serviceId: p.serviceId, signupBefore: null, signupAfter: p.allowSignup });
    else if (was.allowSignup !== p.allowSignup) {
      providers.push({ kind: 'signup', type: p.type, serviceId: p.serviceId, signupBefore: was.allowSignup, signupAfter: p.allowSignup });
    }
  }
  for (const [id, p] of before) {
    if (!after.has(id)) providers.push({ kind: 'removed', type: p.type, serviceId: p.serviceId, signupBefore: p.allowSignup, signupAfter: null });
  }
  const limits: LimitChange[] = [];
  for (const [key, setting] of LIMIT_SETTINGS) {
    const a = current.queryLimits[key];
    const b = candidate.queryLimits[key];
    if (a !== b) limits.push({ setting, before: a, after: b });
  }
  return { providers, limits };
}
