/**
 * The read-only view of existing accounts that account linking consults (spec §5.4).
 *
 * @module
 */
import { err, ok, safeTry, type Result } from 'neverthrow';
import type { ProviderType } from './auth-providers.js';
import { emailMatchKey, externalAccountKey as linkKey, usernameKey } from './store-keys.js';
import { fieldPath, type FieldProblem, ownField, readArray, readBoolean, readRecord, readString } from './internal/guard.js';
import { isProviderType } from './internal/provider-facts.js';

/**
 * An email address of an account, as the service stores it.
 *
 * @example
 * ```ts
 * const email: AccountEmail = { address: 'alice@example.com', verified: true };
 * ```
 */
export interface AccountEmail {
  /** The address. */
  readonly address: string;
  /** Whether the service (or a provider it trusts) has verified the address. */
  readonly verified: boolean;
}

/**
 * A link between an account and an identity at a provider: the provider type, the namespace of
 * the provider's account IDs (`serviceId`) and the provider's account ID.
 *
 * `serviceId` is the code host's `url` (public `hosta`: `''`), the OpenID Connect `issuer`, the
 * SAML `entryPoint`, or `''` for `http-header` and `builtin`, each without trailing slashes: two
 * OAuth apps of one code host see the same people, so the client is not part of it.
 *
 * @example
 * ```ts
 * const link: ExternalAccountRef = { providerType: 'hostb', serviceId: 'https://hostb.example.com', accountId: '42' };
 * ```
 */
export interface ExternalAccountRef {
  /** The provider type. */
  readonly providerType: ProviderType;
  /** The namespace of the provider's account IDs. */
  readonly serviceId: string;
  /** The provider's stable identifier of the account. */
  readonly accountId: string;
}

/**
 * How an account came to be, each value once: created by a site administrator (`admin_created`, the
 * account of §5.3 hosta rule 2 that a person's first sign-in claims), signed up with a password
 * (`password_signup`), created by a provider sign-in (`provider_signup`), a service account
 * (`service_account`, §1), or the administrator the server creates on an empty database (`seeded`: made for no
 * person at any provider, so no namesake may claim it). Only an `admin_created` account may be found by a
 * provider username.
 *
 * @example
 * ```ts
 * ACCOUNT_ORIGINS.includes('admin_created'); // true
 * ```
 */
export const ACCOUNT_ORIGINS = ['admin_created', 'password_signup', 'provider_signup', 'service_account', 'seeded'] as const;

/**
 * One of {@link ACCOUNT_ORIGINS}.
 *
 * @example
 * ```ts
 * const origin: AccountOrigin = 'password_signup';
 * ```
 */
export type AccountOrigin = (typeof ACCOUNT_ORIGINS)[number];

/**
 * Whether a value is one of {@link ACCOUNT_ORIGINS}.
 *
 * @param value - Any value.
 * @returns Whether it is an account origin.
 *
 * @example
 * ```ts
 * isAccountOrigin('seeded'); // true
 * ```
 */
export function isAccountOrigin(value: unknown): value is AccountOrigin {
  return ACCOUNT_ORIGINS.some((origin) => origin === value);
}

/**
 * An existing account, as far as linking needs to know it.
 *
 * @example
 * ```ts
 * const account: Account = {
 *   id: 'u1', username: 'alice', origin: 'admin_created',
 *   emails: [{ address: 'alice@example.com', verified: true }],
 *   externalAccounts: [{ providerType: 'hosta', serviceId: '', accountId: '1234' }],
 * };
 * ```
 */
export interface Account {
  /** The account's identifier. */
  readonly id: string;
  /** The account's username. */
  readonly username: string;
  /** How the account came to be; decides whether a provider username may find it (§5.4 rule 5). */
  readonly origin: AccountOrigin;
  /** The account's email addresses. */
  readonly emails: readonly AccountEmail[];
  /** The provider identities linked to the account (several providers may be linked, §5.4 rule 4). */
  readonly externalAccounts: readonly ExternalAccountRef[];
}

/**
 * Synchronous, side-effect-free lookups over existing accounts. A host backed by a database loads
 * what a sign-in needs first, or implements these over a snapshot. Implementations must compare
 * email addresses ASCII-case-insensitively (`A`–`Z` lowercased, nothing else) and usernames the
 * same way, as {@link accountDirectoryFromArray} does.
 *
 * @example
 * ```ts
 * const directory: AccountDirectory = accountDirectoryFromArray([])._unsafeUnwrap();
 * directory.isUsernameTaken('alice'); // false
 * ```
 */
export interface AccountDirectory {
  /** The account the provider identity is linked to, or `null`. */
  readonly findByExternalAccount: (ref: ExternalAccountRef) => Account | null;
  /** The account holding `address` as a verified email, or `null` (an unverified email never matches). */
  readonly findByVerifiedEmail: (address: string) => Account | null;
  /** The account named `username`, or `null`. */
  readonly findByUsername: (username: string) => Account | null;
  /** Whether an account (or a reserved name) already uses `username`. */
  readonly isUsernameTaken: (username: string) => boolean;
}

/**
 * Why an account did not have the documented shape.
 *
 * @example
 * ```ts
 * const e: AccountError = { code: 'invalid_account', path: 'emails[0].verified', expected: 'boolean' };
 * ```
 */
export type AccountError =
  /** A field is missing or has the wrong type at run time; `path` names it. */
  { readonly code: 'invalid_account'; readonly path: string; readonly expected: string };

/**
 * Why {@link accountDirectoryFromArray} refused the accounts.
 *
 * @example
 * ```ts
 * const e: AccountDirectoryError = { code: 'conflicting_accounts', key: 'username', indexes: [0, 3] };
 * ```
 */
export type AccountDirectoryError =
  /** An account is malformed; `path` starts with its index, for example `[2].emails[0].verified`. */
  | AccountError
  /** Two accounts share an id, a username, a verified email or a linked identity, so lookups would be ambiguous. */
  | {
      readonly code: 'conflicting_accounts';
      readonly key: 'id' | 'username' | 'verified_email' | 'external_account';
      readonly indexes: readonly [number, number];
    };

function readAccountEmail(value: unknown, path: string): Result<AccountEmail, FieldProblem> {
  return readRecord(value, path).andThen((record) =>
    readString(record, path, 'address', true).andThen((address) =>
      readBoolean(record, path, 'verified').map((verified) => ({ address, verified })),
    ),
  );
}

function readExternalAccountRef(value: unknown, path: string): Result<ExternalAccountRef, FieldProblem> {
  return readRecord(value, path).andThen((record) => {
    const providerType = ownField(record, 'providerType');
    if (!isProviderType(providerType)) return err({ path: fieldPath(path, 'providerType'), expected: 'provider type' });
    return readString(record, path, 'serviceId', false).andThen((serviceId) =>
      readString(record, path, 'accountId', true).map((accountId) => ({ providerType, serviceId, accountId })),
    );
  });
}

/**
 * Checks a value that should be an {@link Account} and returns a fresh copy.
 *
 * @param value - A candidate account.
 * @param path - The value's path, prefixed to error paths (`''` at the root).
 * @returns The account, or `err` naming the first bad field.
 * @internal
 * @example
 * ```ts
 * readAccount({ id: 'u1', username: 'alice', origin: 'admin_created', emails: [], externalAccounts: [] }, '');
 * // ok({ id: 'u1', username: 'alice', origin: 'admin_created', emails: [], externalAccounts: [] })
 * readAccount({ id: 'u1' }, '[3]'); // err({ code: 'invalid_account', path: '[3].username', expected: 'non-empty string' })
 * ```
 */
export function readAccount(value: unknown, path: string): Result<Account, AccountError> {
  return safeTry(function* () {
    const record = yield* readRecord(value, path);
    const id = yield* readString(record, path, 'id', true);
    const username = yield* readString(record, path, 'username', true);
    const origin = ownField(record, 'origin');
    if (!isAccountOrigin(origin)) return err({ path: fieldPath(path, 'origin'), expected: ACCOUNT_ORIGINS.join(' | ') });
    const emails = yield* readArray(ownField(record, 'emails'), fieldPath(path, 'emails'), readAccountEmail);
    const externalAccounts = yield* readArray(
      ownField(record, 'externalAccounts'),
      fieldPath(path, 'externalAccounts'),
      readExternalAccountRef,
    );
    const account: Account = { id, username, origin, emails, externalAccounts };
    return ok(account);
  }).mapErr((problem) => ({ code: 'invalid_account', path: problem.path, expected: problem.expected }));
}

/**
 * The lookup key of a linked identity.
 *
 * @param ref - A linked identity.
 * @returns A string equal for equal links.
 * @internal
 * @example
 * ```ts
 * externalAccountKey({ providerType: 'hostb', serviceId: 'https://hostb.example.com', accountId: '42' });
 * // '["hostb","https://hostb.example.com","42"]'
 * ```
 */
export function externalAccountKey(ref: ExternalAccountRef): string {
  return linkKey(ref.providerType, ref.serviceId, ref.accountId);
}

type Index = Map<string, number>;

function claim(index: Index, key: string, position: number): number | undefined {
  const previous = index.get(key);
  if (previous === undefined) index.set(key, position);
  return previous;
}

function lookup(accounts: readonly Account[], index: Index, key: unknown, toKey: (key: string) => string): Account | null {
  if (typeof key !== 'string') return null;
  const position = index.get(toKey(key));
  return position === undefined ? null : (accounts[position] ?? null);
}

/**
 * Builds an {@link AccountDirectory} over an array of accounts, for tests and small hosts. Email
 * addresses and usernames are compared ASCII-case-insensitively. Lookups given a value of the wrong
 * type at run time find nothing.
 *
 * @param accounts - The existing accounts.
 * @returns The directory, or `err` when an account is malformed or two accounts share an id, a
 * username, a verified email or a linked identity.
 * @example
 * ```ts
 * const directory = accountDirectoryFromArray([
 *   { id: 'u1', username: 'alice', origin: 'admin_created', emails: [{ address: 'Alice@Example.com', verified: true }], externalAccounts: [] },
 * ])._unsafeUnwrap();
 * directory.findByVerifiedEmail('alice@example.com')?.id; // 'u1'
 * directory.isUsernameTaken('ALICE');                      // true
 * ```
 * @example Ambiguous accounts
 * ```ts
 * accountDirectoryFromArray([alice, { ...bob, username: 'Alice' }]);
 * // err({ code: 'conflicting_accounts', key: 'username', indexes: [0, 1] })
 * ```
 */
export function accountDirectoryFromArray(accounts: readonly Account[]): Result<AccountDirectory, AccountDirectoryError> {
  const read = readArray(accounts, '', (value, path): Result<Account, FieldProblem> => readAccount(value, path));
  if (read.isErr()) return err({ code: 'invalid_account', path: read.error.path, expected: read.error.expected });
  const all = read.value;
  const ids: Index = new Map();
  const usernames: Index = new Map();
  const verifiedEmails: Index = new Map();
  const links: Index = new Map();
  for (const [position, account] of all.entries()) {
    const conflicts: readonly ['id' | 'username' | 'verified_email' | 'external_account', Index, readonly string[]][] = [
      ['id', ids, [account.id]],
      ['username', usernames, [usernameKey(account.username)]],
      // An account may list the same verified address twice; only other accounts conflict.
      ['verified_email', verifiedEmails, [...new Set(account.emails.filter((e) => e.verified).map((e) => emailMatchKey(e.address)))]],
      ['external_account', links, [...new Set(account.externalAccounts.map(externalAccountKey))]],
    ];
    for (const [key, index, values] of conflicts) {
      for (const value of values) {
        const previous = claim(index, value, position);
        if (previous !== undefined) return err({ code: 'conflicting_accounts', key, indexes: [previous, position] });
      }
    }
  }
  const directory: AccountDirectory = {
    findByExternalAccount: (ref) => {
      const [providerType, serviceId, accountId] = [
        ownField(ref, 'providerType'),
        ownField(ref, 'serviceId'),
        ownField(ref, 'accountId'),
      ];
      if (!isProviderType(providerType) || typeof serviceId !== 'string' || typeof accountId !== 'string') return null;
      return lookup(all, links, externalAccountKey({ providerType, serviceId, accountId }), (key) => key);
    },
    findByVerifiedEmail: (address) => lookup(all, verifiedEmails, address, emailMatchKey),
    findByUsername: (username) => lookup(all, usernames, username, usernameKey),
    isUsernameTaken: (username) => lookup(all, usernames, username, usernameKey) !== null,
  };
  return ok(directory);
}
