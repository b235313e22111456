/**
 * The store contract: every piece of gatehouse's state goes through one {@link Store}, grouped by concern
 * (accounts, access tokens, sessions, OAuth, audit, ephemeral flow state), with a {@link Store.transaction} for
 * multi-step changes whose rule lives in the core.
 *
 * Rules every implementation keeps (the contract suite checks each):
 * - Lookups take the keys the core computes (`usernameKey`, `emailMatchKey`, `externalAccountKey`): a store
 *   compares strings and re-implements no rule. It computes the same keys on write with the same functions.
 * - Every method is atomic. A refusal is an `err` value ({@link StoreError}) and changes nothing; an
 *   infrastructure failure (a lost connection, a full disk) rejects the promise and changes nothing.
 * - Single-use operations (`take`, `redeemAuthorizationCode`, `rotateRefreshToken`) have at most one winner among
 *   concurrent callers, on one instance or several.
 * - Secrets never enter the store: tokens, sessions and codes are kept by SHA-256 digest, passwords as scrypt
 *   hashes, provider credentials sealed.
 * - Records are copied in and out: a caller never holds a reference into stored state.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AccessTokenScope, AccountOrigin, AuthorizationCodeRecord, IdentityFacts, LockoutState, OAuthAccessTokenRecord, OAuthClient, RefreshTokenRecord } from 'gatehouse-auth';
import type { AccountLinkStore, OutboxStore } from './lifecycle-types.js';

// ---------------------------------------------------------------------------------------------
// Accounts

/** An email address on an account. */
export interface EmailRecord {
  /** The address as the person or the provider gave it. */
  readonly email: string;
  /** Whether the address was verified (by the provider, or by an administrator who created the account). */
  readonly verified: boolean;
}

/** A user account (spec §1). Service accounts only ever authenticate with access tokens. */
export interface UserRecord {
  /** Opaque, stable identifier. */
  readonly id: string;
  /** The username; unique by the core's `usernameKey`. */
  readonly username: string;
  /** How the account came to be; only an `admin_created` account may be found by a provider username (§5.4 rule 5). */
  readonly origin: AccountOrigin;
  /** Whether the account is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether the account is a service account (no password, no browser sign-in). */
  readonly serviceAccount: boolean;
  /** Email addresses, primary first. */
  readonly emails: readonly EmailRecord[];
  /** The scrypt hash of the built-in password, or `null` when the account has none. */
  readonly passwordHash: string | null;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /**
   * When a site administrator suspended the account, milliseconds since the epoch; absent while it is not
   * suspended. A suspended account has no way in (the core's `decideAccountUse`); nothing of it is deleted.
   */
  readonly suspendedAt?: number;
}

/** A link between an account and an identity at an authentication provider (spec §5.4). */
export interface ExternalAccountRecord {
  /** The account the identity is linked to. */
  readonly userId: string;
  /** The provider type, such as `hosta` or `openidconnect`. */
  readonly serviceType: string;
  /** Which provider of that type (its URL, issuer or config id). */
  readonly serviceId: string;
  /** The identity's id at the provider. */
  readonly accountId: string;
  /** Link time, milliseconds since the epoch. */
  readonly createdAt: number;
}

/**
 * A link with what its provider said at the identity's last sign-in (orgs, teams, groups and access levels, emails
 * with their verification, the provider's username; never a token or a secret), or `null` facts when it has not
 * signed in since the store began keeping them.
 */
export interface StoredIdentity extends ExternalAccountRecord {
  /** The facts of the last sign-in, or `null`. */
  readonly facts: IdentityFacts | null;
  /** When they were recorded, milliseconds since the epoch, or `null`. */
  readonly factsAt: number | null;
}

/**
 * An account with what decides its sign-in from a browser: whether it has a password, and its linked identities with
 * the facts of their last sign-in (a page of {@link AccountStore.signInPage}; no password hash, no email).
 */
export interface AccountSignInRecord {
  /** The account id. */
  readonly id: string;
  /** Its username. */
  readonly username: string;
  /** How it came to be. */
  readonly origin: AccountOrigin;
  /** Whether it is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether it is a service account. */
  readonly serviceAccount: boolean;
  /** Whether it has a built-in password. */
  readonly hasPassword: boolean;
  /** Its linked identities, oldest first, with their facts (`null` when none were kept). */
  readonly identities: readonly { readonly serviceType: string; readonly serviceId: string; readonly accountId: string; readonly facts: IdentityFacts | null }[];
}

/**
 * Which link, as the store keys it: the identity's coordinates of an {@link ExternalAccountRecord} (its
 * `serviceType` a stored string). The core's `ExternalAccountRef` (`providerType`, a known type) is what the
 * sign-in decision reads; the sign-in flow turns stored links into it, skipping types this version does not know.
 *
 * @example
 * ```ts
 * const key: ExternalAccountKey = { serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: '42' };
 * ```
 */
export type ExternalAccountKey = Pick<ExternalAccountRecord, 'serviceType' | 'serviceId' | 'accountId'>;

/**
 * Credentials a person stored for a provider (the review host, spec §5.3 `reviewhost`), encrypted at rest: the
 * store only ever holds the AES-256-GCM ciphertext.
 */
export interface ProviderCredentialRecord {
  /** The account the credentials belong to. */
  readonly userId: string;
  /** The provider type (`reviewhost`). */
  readonly serviceType: string;
  /** Which provider of that type (its URL). */
  readonly serviceId: string;
  /** The person's username at the provider (safe to show). */
  readonly accountId: string;
  /** The encrypted secret (base64url parts); meaningless without the server's key. */
  readonly sealed: string;
  /** When they were stored, milliseconds since the epoch. */
  readonly createdAt: number;
}

/** The input of {@link AccountStore.create}. */
export interface NewAccount {
  /**
   * Username candidates in order of preference (at least one): the store takes the first whose `usernameKey` is
   * free, atomically with the insert (the core's suffix candidates of §5.5 rule 8). All taken: `username_taken`.
   */
  readonly usernames: readonly string[];
  /** How the account comes to be. */
  readonly origin: AccountOrigin;
  /** Whether the account is a site administrator. */
  readonly siteAdmin: boolean;
  /** Whether the account is a service account. */
  readonly serviceAccount: boolean;
  /** Email addresses, primary first; a verified one must not be verified on another account (`email_taken`). */
  readonly emails: readonly EmailRecord[];
  /** The scrypt hash of the built-in password, or `null`. */
  readonly passwordHash: string | null;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** An identity to link in the same atomic step (sign-up through a provider); taken: `external_account_taken`. */
  readonly externalAccount?: Omit<ExternalAccountRecord, 'userId'>;
}

/** One page of {@link AccountStore.list}. */
export interface AccountPage {
  /** At most this many accounts (1 to 1,000). */
  readonly first: number;
  /** Only accounts created after the account with this id (a keyset cursor; oldest first). */
  readonly after?: string;
  /** Only accounts whose `usernameKey` contains `usernameKey(query)`. */
  readonly query?: string;
}

/** Accounts with their emails, linked identities and stored provider credentials. */
export interface AccountStore {
  /** Creates an account with its emails and its link, or changes nothing. */
  create(input: NewAccount): Promise<Result<UserRecord, StoreError>>;
  /** The account with this id, or `null`. */
  get(id: string): Promise<UserRecord | null>;
  /** The account whose username has this `usernameKey`, or `null`. */
  findByUsernameKey(key: string): Promise<UserRecord | null>;
  /** The account on which an address with this `emailMatchKey` is verified, or `null` (unverified never matches). */
  findByVerifiedEmailKey(key: string): Promise<UserRecord | null>;
  /** The account the identity with this `externalAccountKey` is linked to, or `null`. */
  findByExternalAccountKey(key: string): Promise<UserRecord | null>;
  /** A page of accounts, oldest first (administration only, never on a sign-in path). */
  list(page: AccountPage): Promise<readonly UserRecord[]>;
  /** How many accounts exist. */
  count(): Promise<number>;
  /** How many accounts are site administrators. */
  countSiteAdmins(): Promise<number>;
  /** How many accounts are site administrators and not suspended. */
  countActiveSiteAdmins(): Promise<number>;
  /** Suspends the account (`suspendedAt` a time) or reinstates it (`null`); `unknown_user` when absent. */
  setSuspended(userId: string, suspendedAt: number | null): Promise<Result<UserRecord, StoreError>>;
  /** Grants or revokes site administration. */
  setSiteAdmin(userId: string, siteAdmin: boolean): Promise<Result<UserRecord, StoreError>>;
  /** Replaces the built-in password hash. */
  setPasswordHash(userId: string, passwordHash: string | null): Promise<Result<UserRecord, StoreError>>;
  /**
   * Replaces an account's email addresses (primary first) in one atomic step: `email_taken` when one marked verified
   * is verified on another account (an address is verified on one account only), `unknown_user` without the account.
   * Which list to write is the core's rule (`gatehouse-auth`'s account email functions); the store only keeps it.
   */
  setEmails(userId: string, emails: readonly EmailRecord[]): Promise<Result<UserRecord, StoreError>>;
  /** Renames an account (`username_taken` when another account holds the key). */
  setUsername(userId: string, username: string): Promise<Result<UserRecord, StoreError>>;
  /** Deletes an account with its emails, links, credentials, access tokens, sessions, OAuth tokens and consents. */
  delete(userId: string): Promise<Result<UserRecord, StoreError>>;
  /** Links an identity to an account. */
  link(input: ExternalAccountRecord): Promise<Result<ExternalAccountRecord, StoreError>>;
  /** Every identity linked to an account, oldest link first. */
  links(userId: string): Promise<readonly ExternalAccountRecord[]>;
  /** Unlinks an identity from an account (the "not the last way in" rule is the caller's, in a transaction). */
  unlink(userId: string, ref: ExternalAccountKey): Promise<Result<ExternalAccountRecord, StoreError>>;
  /** Stores (or replaces) an account's credentials for one provider. */
  putCredential(input: ProviderCredentialRecord): Promise<Result<ProviderCredentialRecord, StoreError>>;
  /** The credentials an account stored, oldest first. */
  credentials(userId: string): Promise<readonly ProviderCredentialRecord[]>;
  /** Removes an account's credentials for one provider. */
  deleteCredential(userId: string, serviceType: string, serviceId: string): Promise<Result<ProviderCredentialRecord, StoreError>>;
  /**
   * Keeps what the provider said at a sign-in of a linked identity, replacing what it said before
   * (`unknown_external_account` when the identity is not linked).
   */
  recordIdentityFacts(ref: ExternalAccountKey, facts: IdentityFacts, at: number): Promise<Result<StoredIdentity, StoreError>>;
  /** The identities linked to these accounts (at most 1,000 ids), with their facts: by account id, oldest link first. */
  identitiesOf(userIds: readonly string[]): Promise<readonly StoredIdentity[]>;
  /**
   * A page of accounts (1 to 1,000, by id: a keyset cursor `after`, oldest first) with whether each has a password and
   * its identities with their facts, in one read: what a configuration preview pages through.
   */
  signInPage(first: number, after?: string): Promise<readonly AccountSignInRecord[]>;
}

// ---------------------------------------------------------------------------------------------
// Access tokens

/** A stored access token (spec §2.3). Only the SHA-256 digest of the secret is kept. */
export interface AccessTokenRecord {
  /** Opaque identifier, safe to show and to log. */
  readonly id: string;
  /** The account that owns the token. */
  readonly userId: string;
  /** Lower-case hex SHA-256 digest of the secret. */
  readonly digest: string;
  /** The token's scopes. */
  readonly scopes: readonly AccessTokenScope[];
  /** What the owner wrote about the token. */
  readonly note: string;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** Expiry time in milliseconds since the epoch, or `null` for a token that does not expire. */
  readonly expiresAt: number | null;
  /**
   * When the token last authenticated a request, milliseconds since the epoch, or `null` when it never did. Coarse:
   * the server records a use at most once a minute per token and process.
   */
  readonly lastUsedAt: number | null;
}

/** The input of {@link AccessTokenStore.create}: a new token has never been used. */
export type NewAccessToken = Omit<AccessTokenRecord, 'id' | 'lastUsedAt'>;

/** Access tokens by digest and by owner. */
export interface AccessTokenStore {
  /** Stores a new token (`duplicate_digest` if the digest exists; `unknown_user` without its owner). */
  create(input: NewAccessToken): Promise<Result<AccessTokenRecord, StoreError>>;
  /** The token with this digest, or `null`. */
  findByDigest(digest: string): Promise<AccessTokenRecord | null>;
  /** The token with this id, or `null`. */
  get(id: string): Promise<AccessTokenRecord | null>;
  /** The tokens an account owns, oldest first. */
  list(userId: string): Promise<readonly AccessTokenRecord[]>;
  /** How many tokens an account owns (for the quota, read in a transaction with the insert). */
  count(userId: string): Promise<number>;
  /** Deletes a token; it stops working at once. */
  delete(id: string): Promise<Result<AccessTokenRecord, StoreError>>;
  /** Deletes every token an account owns; they stop working at once. Returns how many it deleted. */
  deleteForUser(userId: string): Promise<number>;
  /** Records a use: sets `lastUsedAt` to `at` unless it is later already; an unknown id changes nothing. */
  touch(id: string, at: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Sessions

/**
 * The most characters of a browser's `User-Agent` a {@link SessionRecord} keeps: the session layer truncates to it,
 * and a store truncates a longer one too.
 *
 * @example
 * ```ts
 * const userAgent = (req.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT_LENGTH);
 * ```
 */
export const MAX_USER_AGENT_LENGTH = 512;

/** A browser session. Only the SHA-256 digest of the session id in the cookie is kept. */
export interface SessionRecord {
  /** Lower-case hex SHA-256 digest of the cookie value. */
  readonly digest: string;
  /** The signed-in account. */
  readonly userId: string;
  /** Creation time, milliseconds since the epoch. */
  readonly createdAt: number;
  /** Expiry time, milliseconds since the epoch. */
  readonly expiresAt: number;
  /**
   * When the session last served a request, milliseconds since the epoch (`createdAt` at first). Coarse: the
   * session layer records it at most once a minute per session.
   */
  readonly lastSeenAt: number;
  /** The browser's `User-Agent` as sent when the session started (`''` when none), at most 512 characters. */
  readonly userAgent: string;
}

/** Browser sessions by digest and by owner. */
export interface SessionStore {
  /**
   * Stores a new session and, in the same atomic step, deletes the account's oldest sessions (smallest
   * `createdAt`; among equals, the first stored) so that at most `maxPerUser` remain, the new one included (a
   * bound below 1 counts as 1).
   */
  create(session: SessionRecord, maxPerUser: number): Promise<Result<SessionRecord, StoreError>>;
  /** The session with this digest, or `null` (an expired one may be returned until it is purged). */
  findByDigest(digest: string): Promise<SessionRecord | null>;
  /** The sessions of an account, oldest first. */
  list(userId: string): Promise<readonly SessionRecord[]>;
  /** Deletes a session; returns whether one existed. */
  delete(digest: string): Promise<boolean>;
  /** Deletes every session of an account but `exceptDigest` (when given); returns how many it deleted. */
  deleteForUser(userId: string, exceptDigest?: string): Promise<number>;
  /** Deletes at most `limit` sessions with `expiresAt` at or before `expiredBy`; fewer only when none remain. */
  purgeExpired(expiredBy: number, limit: number): Promise<number>;
  /** Records activity: sets `lastSeenAt` to `at` unless it is later already; an unknown digest changes nothing. */
  touch(digest: string, at: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// OAuth (spec §2.4)

/** A registered OAuth app. */
export interface OAuthAppRecord extends OAuthClient {
  /** Display name. */
  readonly name: string;
  /** The site administrator who registered it. */
  readonly ownerUserId: string;
  /** When it was registered (ms since the epoch). */
  readonly createdAt: number;
}

/** An OAuth access token as stored (its family's state is joined in on reads). */
export type StoredOAuthAccessToken = Omit<OAuthAccessTokenRecord, 'familyRevoked'>;

/** A refresh token as stored (its family's state is joined in on reads). */
export type StoredRefreshToken = Omit<RefreshTokenRecord, 'familyRevoked'>;

/** A user's remembered approval of an OAuth app for some scopes. */
export interface OAuthConsentRecord {
  /** The account that approved. */
  readonly userId: string;
  /** The app it approved. */
  readonly clientId: string;
  /** The scopes approved, sorted and without duplicates as stored. */
  readonly scopes: readonly string[];
  /** When the approval was last given, milliseconds since the epoch. */
  readonly grantedAt: number;
}

/**
 * The scopes a consent keeps: the union of what was approved before and now, sorted, without duplicates.
 *
 * @param before - The scopes stored until now.
 * @param added - The scopes just approved.
 * @returns A new sorted array.
 * @example
 * ```ts
 * consentScopes(['b', 'a'], ['c', 'a']); // ['a', 'b', 'c']
 * ```
 */
export function consentScopes(before: readonly string[], added: readonly string[]): string[] {
  // by UTF-16 code unit, the same in every store and under every database collation
  return [...new Set([...before, ...added])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The pair a code redemption or a refresh stores. */
export interface IssuedOAuthTokens {
  /** The new access token. */
  readonly accessToken: StoredOAuthAccessToken;
  /** The new refresh token. */
  readonly refreshToken: StoredRefreshToken;
}

/** OAuth apps, authorization codes and OAuth tokens. */
export interface OAuthStore {
  /** Adds an app (`client_id_taken` when its client id exists). */
  insertApp(app: OAuthAppRecord): Promise<Result<OAuthAppRecord, StoreError>>;
  /** The app with this client id, or `null`. */
  findApp(clientId: string): Promise<OAuthAppRecord | null>;
  /** Every app, oldest first. */
  listApps(): Promise<readonly OAuthAppRecord[]>;
  /** Replaces an app's client secret digest (`unknown_oauth_app` when absent). */
  setAppSecretHash(clientId: string, clientSecretHash: string): Promise<Result<OAuthAppRecord, StoreError>>;
  /** Deletes an app with its codes, tokens and consents (`unknown_oauth_app` when absent). */
  deleteApp(clientId: string): Promise<Result<OAuthAppRecord, StoreError>>;
  /** Adds an authorization code (`duplicate_digest` if its digest exists). */
  insertAuthorizationCode(record: AuthorizationCodeRecord): Promise<Result<AuthorizationCodeRecord, StoreError>>;
  /** The code with this digest, or `null`. */
  findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | null>;
  /** Single use: if the code exists and is unused, marks it used and stores the tokens (`true`); else `false`. */
  redeemAuthorizationCode(codeHash: string, tokens: IssuedOAuthTokens): Promise<boolean>;
  /** The refresh token with this digest, joined with its family's state, or `null`. */
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Single use: if the token exists, is unused and its family live, marks it used and stores its successors. */
  rotateRefreshToken(usedTokenHash: string, tokens: IssuedOAuthTokens): Promise<boolean>;
  /** The access token with this digest, joined with its family's state, or `null`. */
  findAccessToken(tokenHash: string): Promise<OAuthAccessTokenRecord | null>;
  /** Revokes a family: every access and refresh token in it stops working, now and later. */
  revokeFamily(familyId: string): Promise<void>;
  /** Revokes one access token (RFC 7009); its family and refresh token are untouched. */
  revokeAccessToken(tokenHash: string): Promise<void>;
  /**
   * Deletes every authorization code, access token and refresh token an account holds, for every app, in one
   * atomic step: they stop working at once (its consents stay). Returns how many access and refresh tokens it deleted.
   */
  revokeForUser(userId: string): Promise<number>;
  /** Deletes at most `limit` codes with `expiresAt` at or before `expiredBy`; fewer only when none remain. */
  purgeAuthorizationCodes(expiredBy: number, limit: number): Promise<number>;
  /** Deletes at most `limit` access and refresh tokens with `expiresAt` at or before `expiredBy`. */
  purgeTokens(expiredBy: number, limit: number): Promise<number>;
  /**
   * Remembers an account's approval of an app (spec §2.4), one per account and app: the stored scopes become the
   * sorted, de-duplicated union of those approved before and `record.scopes`, and `grantedAt` the new one.
   * `unknown_user` or `unknown_oauth_app` when either is missing. Resolves the stored record.
   */
  grantConsent(record: OAuthConsentRecord): Promise<Result<OAuthConsentRecord, StoreError>>;
  /** The account's approval of the app, or `null`. */
  findConsent(userId: string, clientId: string): Promise<OAuthConsentRecord | null>;
  /** Every approval an account gave, oldest `grantedAt` first (equal times by client id). */
  listConsents(userId: string): Promise<readonly OAuthConsentRecord[]>;
  /**
   * Forgets an approval and resolves it (`unknown_oauth_consent` when there is none), deleting in the same atomic
   * step the codes and tokens the app holds for the account: they stop working at once.
   */
  revokeConsent(userId: string, clientId: string): Promise<Result<OAuthConsentRecord, StoreError>>;
}

// ---------------------------------------------------------------------------------------------
// Audit (spec §6)

/** One audit log entry (spec §6). Never holds a secret or a raw header value. */
export interface AuditEntry {
  /** Sequential identifier (a decimal integer from 1). */
  readonly id: string;
  /** When it happened, milliseconds since the epoch. */
  readonly timestamp: number;
  /** What kind of thing it is about, such as `auth.accessToken`. */
  readonly entity: string;
  /** What happened, such as `failed` or `sudo`. */
  readonly action: string;
  /** Why, when there is a reason to give. */
  readonly reason: string | null;
  /** The account that acted, when known. */
  readonly actorUserId: string | null;
  /** The account acted upon, when there is one. */
  readonly subjectUserId: string | null;
  /** The account `actorUserId` acted as, only on entries made under `token-sudo` (§5.1 rule 2). */
  readonly impersonatedUserId?: string;
  /** Further non-secret facts. */
  readonly details: Readonly<Record<string, string>>;
  /** How many occurrences this entry stands for (more than 1 for a coalesced entry). */
  readonly count: number;
  /** When the first occurrence happened (equal to `timestamp`). */
  readonly firstAt: number;
  /** When the last occurrence happened; the entry is kept by this time. */
  readonly lastAt: number;
}

/** The input of {@link AuditStore.append}. */
export type NewAuditEntry = Omit<AuditEntry, 'id' | 'count' | 'firstAt' | 'lastAt'> & {
  /** The core's `auditCoalescingKey`: a kept entry with the same key counts this occurrence instead. */
  readonly coalesceKey?: string;
  /** How many occurrences this input stands for (a batch, see audit-batch.ts); 1 when absent or not a positive integer. */
  readonly count?: number;
  /** When the last of them happened (`timestamp` is the first); `timestamp` when absent or earlier. */
  readonly lastAt?: number;
};

/**
 * The occurrences an {@link NewAuditEntry} stands for: its `count` (1 unless a positive safe integer) and the time of
 * the last one (never before `timestamp`).
 *
 * @param entry - The input of an append.
 * @returns The count and the last time.
 *
 * @example
 * ```ts
 * occurrencesOf({ timestamp: 5, count: 3, lastAt: 9 }); // { count: 3, lastAt: 9 }
 * ```
 */
export function occurrencesOf(entry: Pick<NewAuditEntry, 'timestamp' | 'count' | 'lastAt'>): { readonly count: number; readonly lastAt: number } {
  const count = entry.count !== undefined && Number.isSafeInteger(entry.count) && entry.count > 0 ? entry.count : 1;
  const lastAt = entry.lastAt !== undefined && Number.isFinite(entry.lastAt) ? Math.max(entry.timestamp, entry.lastAt) : entry.timestamp;
  return { count, lastAt };
}

/** What a part of the server records: an audit entry before the clock stamps it. */
export type AuditEvent = Omit<NewAuditEntry, 'timestamp'>;

/** Which entries {@link AuditStore.list} returns (exact comparisons; an absent filter matches everything). */
export interface AuditQuery {
  /** Only entries with a lower id (a keyset cursor). */
  readonly before?: string;
  /** Only entries with this `entity`. */
  readonly entity?: string;
  /** Only entries with this `action`. */
  readonly action?: string;
  /** Only entries with this `actorUserId`. */
  readonly actorUserId?: string;
  /** Only entries with `lastAt` at or after this time. */
  readonly since?: number;
  /** Only entries with `timestamp` at or before this time. */
  readonly until?: number;
  /** Only entries whose `details.reference` is this (the reference code a refused person is shown). */
  readonly reference?: string;
}

/** The audit log: append in O(1), page newest first, purge by age. */
export interface AuditStore {
  /** Appends an entry, or counts it in the kept entry with the same `coalesceKey` (`coalesceAuditDetails`). */
  append(entry: NewAuditEntry): Promise<AuditEntry>;
  /** At most `first` entries matching `query`, newest first (by id); never a copy or sort of the whole log. */
  list(first: number, query?: AuditQuery): Promise<readonly AuditEntry[]>;
  /** Removes at most `limit` entries with `lastAt` before `before`, oldest first. */
  purge(before: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Ephemeral state with a time to live

/**
 * What an ephemeral entry is: a sign-in flow's `state` (OAuth, OpenID Connect, SAML `RelayState`), a SAML request
 * id awaiting its response, a sign-in throttle record, or the record that the seeded administrator token was not
 * shown yet (`administrator_seed`, one per database, removed once the token was printed).
 */
export type EphemeralKind = 'flow_state' | 'saml_request' | 'throttle' | 'administrator_seed';

/** Flow state, SAML request ids and throttle counters: small values that expire. */
export interface EphemeralEntry {
  /** Which table the entry belongs to. */
  readonly kind: EphemeralKind;
  /** Unique within its kind (a digest of a random value, or a throttle key). */
  readonly key: string;
  /**
   * Who the entry counts against, for bounds the caller decides in the core: a client network for flow state, or
   * `free`/`throttled` for throttle records.
   */
  readonly group: string;
  /** The payload (JSON text of the caller's choosing; never a secret in clear). */
  readonly value: string;
  /** When it stops existing, milliseconds since the epoch: no read returns it at or after this time. */
  readonly expiresAt: number;
}

/** The group of a kind holding the most live entries, as {@link EphemeralStore.heaviestGroup} reports it. */
export interface EphemeralGroupCount {
  /** The group. */
  readonly group: string;
  /** How many live entries it holds. */
  readonly count: number;
}

/**
 * Ephemeral entries with a time to live. Reads take `now` and never return an entry whose `expiresAt` is at or
 * before it. Entries of a kind are ordered by their last `put` (oldest first).
 */
export interface EphemeralStore {
  /** Stores an entry, replacing any with its kind and key; it becomes the newest of its kind. */
  put(entry: EphemeralEntry): Promise<void>;
  /** The live entry with this kind and key, or `null`. */
  get(kind: EphemeralKind, key: string, now: number): Promise<EphemeralEntry | null>;
  /** Single use: removes and returns the live entry; among concurrent callers at most one gets it. */
  take(kind: EphemeralKind, key: string, now: number): Promise<EphemeralEntry | null>;
  /** Removes the entry; returns whether a live one existed. */
  delete(kind: EphemeralKind, key: string, now: number): Promise<boolean>;
  /** How many live entries the kind holds, in all or in one group. */
  count(kind: EphemeralKind, now: number, group?: string): Promise<number>;
  /** The group of the kind holding the most live entries (ties: any of them), or `null` when the kind is empty. */
  heaviestGroup(kind: EphemeralKind, now: number): Promise<EphemeralGroupCount | null>;
  /** Removes the oldest live entry of the kind in the group; returns it, or `null` when there is none. */
  deleteOldest(kind: EphemeralKind, group: string, now: number): Promise<EphemeralEntry | null>;
  /** Deletes at most `limit` entries with `expiresAt` at or before `now`; fewer only when none remain. */
  purgeExpired(now: number, limit: number): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Lockout (the site option `auth.lockout`)

/** An account's failed password sign-ins and lock, as the core's `recordFailedSignIn` decided them. */
export interface LockoutRecord extends LockoutState {
  /** The account. */
  readonly userId: string;
}

/** Each account's lockout state: at most one record per account, gone with the account. */
export interface LockoutStore {
  /** The account's record, or `null` when it has none (never failed since the last success or unlock). */
  get(userId: string): Promise<LockoutRecord | null>;
  /** Stores (or replaces) the account's record (`unknown_user` without the account). */
  put(record: LockoutRecord): Promise<Result<LockoutRecord, StoreError>>;
  /** Forgets the account's record (a success or an unlock); returns whether one existed. */
  clear(userId: string): Promise<boolean>;
  /**
   * Of the accounts `userIds` (a page of Site admin → Users, at most a few hundred), those locked at `now`, with the
   * time each lock ends; one read for the whole page.
   */
  lockedUntil(userIds: readonly string[], now: number): Promise<ReadonlyMap<string, number>>;
}

// ---------------------------------------------------------------------------------------------
// The store

/** Why a store operation refused (nothing was changed). */
export type StoreError =
  /** Every username candidate is taken (`usernameKey` equal to another account's). */
  | { readonly code: 'username_taken'; readonly username: string }
  /** Another account already has this email verified. */
  | { readonly code: 'email_taken'; readonly email: string }
  /** No account has this id. */
  | { readonly code: 'unknown_user'; readonly userId: string }
  /** No access token has this id. */
  | { readonly code: 'unknown_access_token'; readonly id: string }
  /** The identity is already linked to an account. */
  | { readonly code: 'external_account_taken'; readonly serviceType: string; readonly accountId: string }
  /** The account has no such linked identity (or no such stored credentials). */
  | { readonly code: 'unknown_external_account'; readonly serviceType: string; readonly accountId: string }
  /** A token, session or code with the same digest exists already (a random-source failure). */
  | { readonly code: 'duplicate_digest' }
  /** An OAuth app with this client id exists already. */
  | { readonly code: 'client_id_taken'; readonly clientId: string }
  /** No OAuth app has this client id. */
  | { readonly code: 'unknown_oauth_app'; readonly clientId: string }
  /** The account has not approved this OAuth app. */
  | { readonly code: 'unknown_oauth_consent'; readonly userId: string; readonly clientId: string };

/**
 * A change to an account made by any instance on the same database, as a store's {@link Store.onAccountChange}
 * tells it: `account` when the account (or one of its access or OAuth tokens) changed or went away, so whatever
 * was kept of it must be read again; `missed` when changes may have gone untold (the feed reconnected), so
 * everything kept must be read again.
 *
 * @example
 * ```ts
 * const change: AccountChange = { kind: 'account', userId: '42' };
 * ```
 */
export type AccountChange = { readonly kind: 'account'; readonly userId: string } | { readonly kind: 'missed' };

/**
 * Where gatehouse keeps its state. Implementations: `createMemoryStore` (tests and embedders' unit tests; loses
 * everything on exit) and `createPostgresStore` (PGlite embedded, or a PostgreSQL server).
 */
export interface Store {
  /** Accounts, emails, links and provider credentials. */
  readonly accounts: AccountStore;
  /** Access tokens (spec §2.3). */
  readonly accessTokens: AccessTokenStore;
  /** Browser sessions. */
  readonly sessions: SessionStore;
  /** OAuth apps, codes and tokens (spec §2.4). */
  readonly oauth: OAuthStore;
  /** The audit log (spec §6). */
  readonly audit: AuditStore;
  /** Flow state, SAML request ids and throttle counters, with a time to live. */
  readonly ephemeral: EphemeralStore;
  /** Each account's failed password sign-ins and lock (`auth.lockout`). */
  readonly lockouts: LockoutStore;
  /** Single-use, expiring account links, kept by digest (`lifecycle-types.ts`). */
  readonly links: AccountLinkStore;
  /** The bounded queue of mail waiting to be sent (`lifecycle-types.ts`). */
  readonly outbox: OutboxStore;
  /**
   * Runs `work` against a store whose operations form one serializable transaction: the changes are kept
   * together when `work` resolves `ok`, and all undone when it resolves `err` or rejects. Concurrent
   * transactions behave as if run one after the other; a store may run `work` again after a serialization
   * conflict, so `work` must do nothing outside the store it is given. Calling `transaction` on that store runs
   * the inner work inside the same transaction.
   */
  transaction<T, E>(work: (store: Store) => Promise<Result<T, E>>): Promise<Result<T, E>>;
  /** Releases connections and files (a no-op for the memory store). */
  close(): Promise<void>;
  /**
   * Makes one round trip to the database (`SELECT 1`), resolving when it answered and rejecting when it cannot be
   * reached; what `GET /readyz` asks. Absent where there is no database to reach (the memory store).
   */
  readonly ping?: () => Promise<void>;
  /**
   * Calls `listener` on every {@link AccountChange} committed by any instance on the same database, this one
   * included; returns the function that stops it. Absent where one process holds the store alone (the memory store,
   * PGlite): there every change goes through this instance.
   */
  readonly onAccountChange?: (listener: (change: AccountChange) => void) => () => void;
}
