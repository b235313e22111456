/**
 * The memory store's accounts: users with their emails, linked identities and stored provider credentials, with the
 * unique indexes a database keeps (username key, verified-email match key, external account key), each kept up to
 * date in the same step as the records.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { emailMatchKey, externalAccountKey, usernameKey } from 'gatehouse-auth';
import { isEmailQuery } from '../account-search.js';
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';
import type {
  AccountPage,
  AccountStore,
  EmailRecord,
  ExternalAccountRecord,
  NewAccount,
  ProviderCredentialRecord,
  StoreError,
  UserRecord,
} from '../types.js';

/** The largest page {@link AccountStore.list} returns. */
const MAX_PAGE = 1000;

/**
 * What the accounts table needs from the rest of the memory store.
 *
 * @internal
 */
export interface AccountHooks {
  /** Deletes everything else an account owns (access tokens, sessions, OAuth codes and tokens). */
  readonly cascade: (userId: string) => void;
}

/**
 * A copy of a user record, so callers never hold a reference into stored state.
 *
 * @param user - A stored or given record.
 * @returns A new record with new email objects.
 * @example
 * ```ts
 * copyUser(user) !== user; // true, and copyUser(user).emails !== user.emails
 * ```
 * @internal
 */
export function copyUser(user: UserRecord): UserRecord {
  return { ...user, emails: user.emails.map((e): EmailRecord => ({ email: e.email, verified: e.verified })) };
}

const copyLink = (link: ExternalAccountRecord): ExternalAccountRecord => ({
  userId: link.userId,
  serviceType: link.serviceType,
  serviceId: link.serviceId,
  accountId: link.accountId,
  createdAt: link.createdAt,
});

const copyCredential = (c: ProviderCredentialRecord): ProviderCredentialRecord => ({ ...c });

const credentialKey = (userId: string, serviceType: string, serviceId: string): string =>
  JSON.stringify([userId, serviceType, serviceId]);

/** The numeric order of a memory account id (ids are decimal integers from 1); `NaN` for anything else. */
const idOrder = (id: string): number => (/^[1-9][0-9]{0,15}$/u.test(id) ? Number(id) : Number.NaN);

/** The tables of the accounts part and the next id. */
interface AccountTables {
  readonly users: TrackedMap<string, UserRecord>;
  readonly idByName: TrackedMap<string, string>;
  readonly idByVerifiedEmail: TrackedMap<string, string>;
  readonly links: TrackedMap<string, ExternalAccountRecord>;
  readonly linkKeysByUser: TrackedMap<string, readonly string[]>;
  readonly credentials: TrackedMap<string, ProviderCredentialRecord>;
  readonly credentialKeysByUser: TrackedMap<string, readonly string[]>;
  nextId: number;
}

const addKey = (index: TrackedMap<string, readonly string[]>, userId: string, key: string): void => {
  const keys = index.get(userId) ?? [];
  if (!keys.includes(key)) index.set(userId, [...keys, key]);
};

const removeKey = (index: TrackedMap<string, readonly string[]>, userId: string, key: string): void => {
  const keys = (index.get(userId) ?? []).filter((k) => k !== key);
  if (keys.length === 0) index.delete(userId);
  else index.set(userId, keys);
};

/** The first verified address of `emails` that another account has verified, or `null`. */
function emailConflict(t: AccountTables, emails: readonly EmailRecord[], userId: string | null): string | null {
  for (const e of emails) {
    if (!e.verified) continue;
    const owner = t.idByVerifiedEmail.get(emailMatchKey(e.email));
    if (owner !== undefined && owner !== userId) return e.email;
  }
  return null;
}

function commitLink(t: AccountTables, record: ExternalAccountRecord): void {
  const key = externalAccountKey(record.serviceType, record.serviceId, record.accountId);
  t.links.set(key, copyLink(record));
  addKey(t.linkKeysByUser, record.userId, key);
}

function createAccount(t: AccountTables, input: NewAccount): Result<UserRecord, StoreError> {
  const username = input.usernames.find((name) => !t.idByName.has(usernameKey(name)));
  if (username === undefined) return err({ code: 'username_taken', username: input.usernames[0] ?? '' });
  const conflict = emailConflict(t, input.emails, null);
  if (conflict !== null) return err({ code: 'email_taken', email: conflict });
  const ext = input.externalAccount;
  if (ext !== undefined && t.links.has(externalAccountKey(ext.serviceType, ext.serviceId, ext.accountId))) {
    return err({ code: 'external_account_taken', serviceType: ext.serviceType, accountId: ext.accountId });
  }
  // every check passed: commit
  const id = String(t.nextId++);
  const user = copyUser({
    id,
    username,
    origin: input.origin,
    siteAdmin: input.siteAdmin,
    serviceAccount: input.serviceAccount,
    emails: input.emails,
    passwordHash: input.passwordHash,
    createdAt: input.createdAt,
  });
  t.users.set(id, user);
  t.idByName.set(usernameKey(username), id);
  for (const e of user.emails) if (e.verified) t.idByVerifiedEmail.set(emailMatchKey(e.email), id);
  if (ext !== undefined) commitLink(t, { ...ext, userId: id });
  return ok(copyUser(user));
}

function deleteAccount(t: AccountTables, hooks: AccountHooks, userId: string): Result<UserRecord, StoreError> {
  const user = t.users.get(userId);
  if (user === undefined) return err({ code: 'unknown_user', userId });
  hooks.cascade(userId);
  for (const key of t.linkKeysByUser.get(userId) ?? []) t.links.delete(key);
  t.linkKeysByUser.delete(userId);
  for (const key of t.credentialKeysByUser.get(userId) ?? []) t.credentials.delete(key);
  t.credentialKeysByUser.delete(userId);
  for (const e of user.emails) {
    const key = emailMatchKey(e.email);
    if (t.idByVerifiedEmail.get(key) === userId) t.idByVerifiedEmail.delete(key);
  }
  t.idByName.delete(usernameKey(user.username));
  t.users.delete(userId);
  return ok(copyUser(user));
}

function listAccounts(t: AccountTables, page: AccountPage): readonly UserRecord[] {
  const first = Number.isSafeInteger(page.first) ? Math.min(Math.max(page.first, 0), MAX_PAGE) : 0;
  const after = page.after === undefined ? 0 : idOrder(page.after);
  // a cursor that is not an account id lists nothing
  if (Number.isNaN(after)) return [];
  const { query } = page;
  const matches = (u: UserRecord): boolean =>
    query === undefined
      ? true
      : isEmailQuery(query)
        ? u.emails.some((e) => emailMatchKey(e.email) === emailMatchKey(query))
        : usernameKey(u.username).includes(usernameKey(query));
  return [...t.users.values()]
    .filter((u) => idOrder(u.id) > after && matches(u))
    .sort((a, b) => idOrder(a.id) - idOrder(b.id))
    .slice(0, first)
    .map(copyUser);
}

function updateAccount(
  t: AccountTables,
  userId: string,
  change: (user: UserRecord) => UserRecord,
): Result<UserRecord, StoreError> {
  const user = t.users.get(userId);
  if (user === undefined) return err({ code: 'unknown_user', userId });
  const updated = change(user);
  t.users.set(userId, updated);
  return ok(copyUser(updated));
}

function renameAccount(t: AccountTables, userId: string, username: string): Result<UserRecord, StoreError> {
  const user = t.users.get(userId);
  if (user === undefined) return err({ code: 'unknown_user', userId });
  const key = usernameKey(username);
  const holder = t.idByName.get(key);
  if (holder !== undefined && holder !== userId) return err({ code: 'username_taken', username });
  t.idByName.delete(usernameKey(user.username));
  t.idByName.set(key, userId);
  return updateAccount(t, userId, (u) => ({ ...u, username }));
}

/** The link and credential operations. */
function linkOperations(
  t: AccountTables,
): Pick<Sync<AccountStore>, 'link' | 'links' | 'unlink' | 'putCredential' | 'credentials' | 'deleteCredential'> {
  return {
    link: (input) => {
      if (!t.users.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      if (t.links.has(externalAccountKey(input.serviceType, input.serviceId, input.accountId))) {
        return err({ code: 'external_account_taken', serviceType: input.serviceType, accountId: input.accountId });
      }
      commitLink(t, input);
      return ok(copyLink(input));
    },
    links: (userId) => (t.linkKeysByUser.get(userId) ?? []).flatMap((key) => {
      const link = t.links.get(key);
      return link === undefined ? [] : [copyLink(link)];
    }),
    unlink: (userId, ref) => {
      if (!t.users.has(userId)) return err({ code: 'unknown_user', userId });
      const key = externalAccountKey(ref.serviceType, ref.serviceId, ref.accountId);
      const link = t.links.get(key);
      if (link === undefined || link.userId !== userId) {
        return err({ code: 'unknown_external_account', serviceType: ref.serviceType, accountId: ref.accountId });
      }
      t.links.delete(key);
      removeKey(t.linkKeysByUser, userId, key);
      return ok(copyLink(link));
    },
    putCredential: (input) => {
      if (!t.users.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      const key = credentialKey(input.userId, input.serviceType, input.serviceId);
      t.credentials.set(key, copyCredential(input));
      addKey(t.credentialKeysByUser, input.userId, key);
      return ok(copyCredential(input));
    },
    credentials: (userId) => (t.credentialKeysByUser.get(userId) ?? []).flatMap((key) => {
      const c = t.credentials.get(key);
      return c === undefined ? [] : [copyCredential(c)];
    }),
    deleteCredential: (userId, serviceType, serviceId) => {
      const key = credentialKey(userId, serviceType, serviceId);
      const c = t.credentials.get(key);
      if (c === undefined) return err({ code: 'unknown_external_account', serviceType, accountId: '' });
      t.credentials.delete(key);
      removeKey(t.credentialKeysByUser, userId, key);
      return ok(copyCredential(c));
    },
  };
}

/**
 * Creates the accounts part of a memory store, writing through `journal`.
 *
 * @param journal - Where writes record their undo steps.
 * @param users - The users table (shared with the tables that check an owner exists).
 * @param hooks - The cascade into the other tables.
 * @returns The synchronous account operations.
 * @example
 * ```ts
 * const accounts = createMemoryAccounts(journal, new TrackedMap(journal), { cascade: () => {} });
 * accounts.create({ usernames: ['alice'], … }).isOk(); // true
 * ```
 * @internal
 */
export function createMemoryAccounts(
  journal: Journal,
  users: TrackedMap<string, UserRecord>,
  hooks: AccountHooks,
): Sync<AccountStore> {
  const t: AccountTables = {
    users,
    idByName: new TrackedMap(journal),
    idByVerifiedEmail: new TrackedMap(journal),
    links: new TrackedMap(journal),
    linkKeysByUser: new TrackedMap(journal),
    credentials: new TrackedMap(journal),
    credentialKeysByUser: new TrackedMap(journal),
    nextId: 1,
  };
  const byId = (id: string | undefined): UserRecord | null => {
    const user = id === undefined ? undefined : users.get(id);
    return user === undefined ? null : copyUser(user);
  };
  return {
    create: (input) => createAccount(t, input),
    get: (id) => byId(id),
    findByUsernameKey: (key) => byId(t.idByName.get(key)),
    findByVerifiedEmailKey: (key) => byId(t.idByVerifiedEmail.get(key)),
    findByExternalAccountKey: (key) => byId(t.links.get(key)?.userId),
    list: (page) => listAccounts(t, page),
    count: () => users.size,
    countSiteAdmins: () => {
      let admins = 0;
      for (const u of users.values()) if (u.siteAdmin) admins++;
      return admins;
    },
    setSiteAdmin: (userId, siteAdmin) => updateAccount(t, userId, (u) => ({ ...u, siteAdmin })),
    setPasswordHash: (userId, passwordHash) => updateAccount(t, userId, (u) => ({ ...u, passwordHash })),
    setUsername: (userId, username) => renameAccount(t, userId, username),
    delete: (userId) => deleteAccount(t, hooks, userId),
    ...linkOperations(t),
  };
}
