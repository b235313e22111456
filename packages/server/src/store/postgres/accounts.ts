/**
 * Accounts on PostgreSQL: `accounts` with `account_emails`, `external_accounts` and `provider_credentials`. The
 * unique indexes decide every conflict (username key, verified email match key, external account key), so two
 * instances creating the same account concurrently get one `ok` and one `err`, never two accounts.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { emailMatchKey, externalAccountKey, identityFacts, usernameKey } from 'gatehouse-auth';
import type { IdentityFacts } from 'gatehouse-auth';
import { EMAIL_MATCH_KEY_SQL } from './migrations/006_search_indexes.js';
import { isEmailQuery } from '../account-search.js';
import { usernameSubstringPatterns } from './username-search.js';
import type {
  AccountPage,
  AccountStore,
  EmailRecord,
  ExternalAccountRecord,
  ExternalAccountKey,
  NewAccount,
  ProviderCredentialRecord,
  StoreError,
  StoredIdentity,
  UserRecord,
} from '../types.js';
import type { SqlRow } from './driver.js';
import { accountOrigin, bool, bound, dbId, num, numOrNull, text, textOrNull } from './rows.js';
import type { Sql } from './sql.js';
import { notifyAccountChange } from './change-feed.js';
import { isFacts, signInPage } from './sign-in-page.js';

/** The most accounts one page of {@link AccountStore.list} returns. */
const MAX_PAGE = 1000;

/** The columns of a {@link UserRecord} from an `accounts` row named `a`, emails in order. */
const USER_COLUMNS = `a.id, a.username, a.origin, a.site_admin, a.service_account, a.password_hash, a.created_at, a.suspended_at,
  coalesce((SELECT jsonb_agg(jsonb_build_object('email', e.email, 'verified', e.verified) ORDER BY e.position)
            FROM account_emails e WHERE e.account_id = a.id), '[]'::jsonb) AS emails`;

/** The select list of a statement that changes the account `a`: the account, and its change notified on commit. */
const CHANGED_USER_COLUMNS = `${USER_COLUMNS}, ${notifyAccountChange('a.id')} AS notified`;

const LINK_COLUMNS = 'account_id, service_type, service_id, external_id, created_at';
const CREDENTIAL_COLUMNS = 'account_id, service_type, service_id, external_id, sealed, created_at';

function emailsOf(row: SqlRow): EmailRecord[] {
  const value = row['emails'];
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) =>
    typeof item === 'object' && item !== null && 'email' in item && 'verified' in item
      ? [{ email: String(item.email), verified: item.verified === true }]
      : [],
  );
}

function userOf(row: SqlRow): UserRecord {
  return {
    id: text(row, 'id'),
    username: text(row, 'username'),
    origin: accountOrigin(row, 'origin'),
    siteAdmin: bool(row, 'site_admin'),
    serviceAccount: bool(row, 'service_account'),
    emails: emailsOf(row),
    passwordHash: textOrNull(row, 'password_hash'),
    createdAt: num(row, 'created_at'),
    ...suspension(numOrNull(row, 'suspended_at')),
  };
}

/** The `suspendedAt` field of a {@link UserRecord}: absent while the account is not suspended. */
const suspension = (suspendedAt: number | null): { readonly suspendedAt?: number } => (suspendedAt === null ? {} : { suspendedAt });

function linkOf(row: SqlRow): ExternalAccountRecord {
  return {
    userId: text(row, 'account_id'),
    serviceType: text(row, 'service_type'),
    serviceId: text(row, 'service_id'),
    accountId: text(row, 'external_id'),
    createdAt: num(row, 'created_at'),
  };
}

function credentialOf(row: SqlRow): ProviderCredentialRecord {
  return { ...linkOf(row), sealed: text(row, 'sealed') };
}

async function oneUser(sql: Sql, where: string, params: readonly unknown[]): Promise<UserRecord | null> {
  const [row] = await sql.query(`SELECT ${USER_COLUMNS} FROM accounts a WHERE ${where}`, params);
  return row === undefined ? null : userOf(row);
}

/** Runs `UPDATE accounts SET <assignments> WHERE id = $1` and reads the account back in the same statement. */
async function updateUser(sql: Sql, userId: string, assignments: string, params: readonly unknown[]): Promise<Result<UserRecord, StoreError>> {
  const id = dbId(userId);
  if (id === null) return err({ code: 'unknown_user', userId });
  const [row] = await sql.query(`WITH a AS (UPDATE accounts SET ${assignments} WHERE id = $1 RETURNING *) SELECT ${CHANGED_USER_COLUMNS} FROM a`, [id, ...params]);
  return row === undefined ? err({ code: 'unknown_user', userId }) : ok(userOf(row));
}

/** The email rows of a new account: a verified address holds the match key, once per account. */
function emailRows(emails: readonly EmailRecord[]): readonly { position: number; email: string; verified: boolean; verified_key: string | null }[] {
  const seen = new Set<string>();
  return emails.map((e, position) => {
    const key = emailMatchKey(e.email);
    const first = e.verified && !seen.has(key);
    if (first) seen.add(key);
    return { position, email: e.email, verified: e.verified, verified_key: first ? key : null };
  });
}

async function createAccount(sql: Sql, input: NewAccount): Promise<Result<UserRecord, StoreError>> {
  return sql.atomic(async (tx): Promise<Result<UserRecord, StoreError>> => {
    let created: { id: string; username: string } | null = null;
    // the first free candidate, decided by the unique index (a concurrent insert of the same key makes this one wait)
    for (const username of input.usernames) {
      const [row] = await tx.query(
        `INSERT INTO accounts (username, username_key, origin, site_admin, service_account, password_hash, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (username_key) DO NOTHING RETURNING id`,
        [username, usernameKey(username), input.origin, input.siteAdmin, input.serviceAccount, input.passwordHash, input.createdAt],
      );
      if (row !== undefined) {
        created = { id: text(row, 'id'), username };
        break;
      }
    }
    if (created === null) return err({ code: 'username_taken', username: input.usernames[0] ?? '' });
    const rows = emailRows(input.emails);
    if (rows.length > 0) {
      const inserted = await tx.query(
        `INSERT INTO account_emails (account_id, position, email, verified, verified_key)
         SELECT $1::bigint, x.position, x.email, x.verified, x.verified_key
         FROM jsonb_to_recordset($2::jsonb) AS x(position integer, email text, verified boolean, verified_key text)
         ON CONFLICT DO NOTHING RETURNING position`,
        [created.id, JSON.stringify(rows)],
      );
      const stored = new Set(inserted.map((r) => num(r, 'position')));
      const refused = rows.find((r) => !stored.has(r.position));
      if (refused !== undefined) return err({ code: 'email_taken', email: refused.email });
    }
    const ext = input.externalAccount;
    if (ext !== undefined) {
      const linked = await tx.query(
        `INSERT INTO external_accounts (external_key, ${LINK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (external_key) DO NOTHING RETURNING 1`,
        [externalAccountKey(ext.serviceType, ext.serviceId, ext.accountId), created.id, ext.serviceType, ext.serviceId, ext.accountId, ext.createdAt],
      );
      if (linked.length === 0) return err({ code: 'external_account_taken', serviceType: ext.serviceType, accountId: ext.accountId });
    }
    return ok({
      id: created.id,
      username: created.username,
      origin: input.origin,
      siteAdmin: input.siteAdmin,
      serviceAccount: input.serviceAccount,
      emails: input.emails.map((e) => ({ email: e.email, verified: e.verified })),
      passwordHash: input.passwordHash,
      createdAt: input.createdAt,
    });
  });
}

async function setEmails(sql: Sql, userId: string, emails: readonly EmailRecord[]): Promise<Result<UserRecord, StoreError>> {
  const id = dbId(userId);
  if (id === null) return err({ code: 'unknown_user', userId });
  return sql.atomic(async (tx): Promise<Result<UserRecord, StoreError>> => {
    // the row lock orders concurrent changes of one account's emails
    const [owner] = await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [id]);
    if (owner === undefined) return err({ code: 'unknown_user', userId });
    await tx.query('DELETE FROM account_emails WHERE account_id = $1', [id]);
    const rows = emailRows(emails);
    if (rows.length > 0) {
      const inserted = await tx.query(
        `INSERT INTO account_emails (account_id, position, email, verified, verified_key)
         SELECT $1::bigint, x.position, x.email, x.verified, x.verified_key
         FROM jsonb_to_recordset($2::jsonb) AS x(position integer, email text, verified boolean, verified_key text)
         ON CONFLICT DO NOTHING RETURNING position`,
        [id, JSON.stringify(rows)],
      );
      const stored = new Set(inserted.map((r) => num(r, 'position')));
      const refused = rows.find((r) => !stored.has(r.position));
      if (refused !== undefined) return err({ code: 'email_taken', email: refused.email });
    }
    const [row] = await tx.query(`SELECT ${USER_COLUMNS} FROM accounts a WHERE a.id = $1`, [id]);
    return row === undefined ? err({ code: 'unknown_user', userId }) : ok(userOf(row));
  });
}

async function listAccounts(sql: Sql, page: AccountPage): Promise<readonly UserRecord[]> {
  const first = Math.min(bound(page.first), MAX_PAGE);
  const after = page.after === undefined ? null : dbId(page.after);
  if (first === 0 || (page.after !== undefined && after === null)) return [];
  // Only the conditions asked for are written, so that the planner sees each one (a generic `$n IS NULL OR …` hides
  // the indexes of migration 6). A query with `@` is an email address: no username holds `@` (§5.5), so it matches
  // exactly one of an account's addresses, through their match-key index; any other query is a username substring,
  // through the trigram index.
  const params: unknown[] = [first];
  const where: string[] = [];
  if (after !== null) where.push(`a.id > $${params.push(after)}::bigint`);
  if (page.query !== undefined && isEmailQuery(page.query)) {
    where.push(`a.id IN (SELECT e.account_id FROM account_emails e WHERE ${EMAIL_MATCH_KEY_SQL('e.email')} = $${params.push(emailMatchKey(page.query))}::text)`);
  } else if (page.query !== undefined) {
    // the most selective pattern first: the trigram index scans each in turn (see username-search.ts)
    for (const pattern of usernameSubstringPatterns(usernameKey(page.query))) where.push(`a.username_key LIKE $${params.push(pattern)}::text ESCAPE '\\'`);
  }
  const rows = await sql.query(
    `SELECT ${USER_COLUMNS} FROM accounts a ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`} ORDER BY a.id LIMIT $1`,
    params,
  );
  return rows.map(userOf);
}

async function setUsername(sql: Sql, userId: string, username: string): Promise<Result<UserRecord, StoreError>> {
  const id = dbId(userId);
  if (id === null) return err({ code: 'unknown_user', userId });
  const updated = await sql.attempt(
    `WITH a AS (UPDATE accounts SET username = $2, username_key = $3 WHERE id = $1 RETURNING *) SELECT ${CHANGED_USER_COLUMNS} FROM a`,
    [id, username, usernameKey(username)],
  );
  if (updated.isErr()) {
    return updated.error.constraint === 'accounts_username_key' ? err({ code: 'username_taken', username }) : Promise.reject(new Error(`unexpected ${updated.error.kind} violation of ${updated.error.constraint}`));
  }
  const [row] = updated.value;
  return row === undefined ? err({ code: 'unknown_user', userId }) : ok(userOf(row));
}

async function link(sql: Sql, input: ExternalAccountRecord): Promise<Result<ExternalAccountRecord, StoreError>> {
  const id = dbId(input.userId);
  if (id === null) return err({ code: 'unknown_user', userId: input.userId });
  const inserted = await sql.attempt(
    `INSERT INTO external_accounts (external_key, ${LINK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (external_key) DO NOTHING RETURNING 1`,
    [externalAccountKey(input.serviceType, input.serviceId, input.accountId), id, input.serviceType, input.serviceId, input.accountId, input.createdAt],
  );
  if (inserted.isErr()) return err({ code: 'unknown_user', userId: input.userId });
  if (inserted.value.length > 0) return ok({ ...input });
  // a missing account is reported before a taken identity
  const exists = await sql.query('SELECT 1 FROM accounts WHERE id = $1', [id]);
  return exists.length === 0
    ? err({ code: 'unknown_user', userId: input.userId })
    : err({ code: 'external_account_taken', serviceType: input.serviceType, accountId: input.accountId });
}

async function unlink(sql: Sql, userId: string, ref: ExternalAccountKey): Promise<Result<ExternalAccountRecord, StoreError>> {
  const id = dbId(userId);
  if (id === null) return err({ code: 'unknown_user', userId });
  const [row] = await sql.query(
    `DELETE FROM external_accounts WHERE external_key = $1 AND account_id = $2 RETURNING ${LINK_COLUMNS}`,
    [externalAccountKey(ref.serviceType, ref.serviceId, ref.accountId), id],
  );
  if (row !== undefined) return ok(linkOf(row));
  const exists = await sql.query('SELECT 1 FROM accounts WHERE id = $1', [id]);
  return exists.length === 0 ? err({ code: 'unknown_user', userId }) : err({ code: 'unknown_external_account', serviceType: ref.serviceType, accountId: ref.accountId });
}

async function putCredential(sql: Sql, input: ProviderCredentialRecord): Promise<Result<ProviderCredentialRecord, StoreError>> {
  const id = dbId(input.userId);
  if (id === null) return err({ code: 'unknown_user', userId: input.userId });
  const stored = await sql.attempt(
    `INSERT INTO provider_credentials (${CREDENTIAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, service_type, service_id)
     DO UPDATE SET external_id = EXCLUDED.external_id, sealed = EXCLUDED.sealed, created_at = EXCLUDED.created_at`,
    [id, input.serviceType, input.serviceId, input.accountId, input.sealed, input.createdAt],
  );
  return stored.isErr() ? err({ code: 'unknown_user', userId: input.userId }) : ok({ ...input });
}

async function deleteCredential(sql: Sql, userId: string, serviceType: string, serviceId: string): Promise<Result<ProviderCredentialRecord, StoreError>> {
  const id = dbId(userId);
  const [row] =
    id === null
      ? []
      : await sql.query(`DELETE FROM provider_credentials WHERE account_id = $1 AND service_type = $2 AND service_id = $3 RETURNING ${CREDENTIAL_COLUMNS}`, [
          id,
          serviceType,
          serviceId,
        ]);
  return row === undefined ? err({ code: 'unknown_external_account', serviceType, accountId: '' }) : ok(credentialOf(row));
}

/**
 * The facts column as written by {@link recordIdentityFacts} (the core's `identityFacts` of a parsed identity); a
 * value without their shape counts as no facts. Read with a shallow check: a preview reads 100,000 of them.
 */
function factsOf(row: SqlRow): IdentityFacts | null {
  const value: unknown = row['facts'];
  return isFacts(value) ? value : null;
}

function storedIdentityOf(row: SqlRow): StoredIdentity {
  const at = row['facts_at'];
  return { ...linkOf(row), facts: factsOf(row), factsAt: at === null || at === undefined ? null : num(row, 'facts_at') };
}

async function recordIdentityFacts(sql: Sql, ref: ExternalAccountKey, facts: IdentityFacts, at: number): Promise<Result<StoredIdentity, StoreError>> {
  const kept = identityFacts({ ...facts, accountId: ref.accountId });
  const [row] = await sql.query(
    `UPDATE external_accounts SET facts = $2::jsonb, facts_at = $3 WHERE external_key = $1 RETURNING ${LINK_COLUMNS}, facts, facts_at`,
    [externalAccountKey(ref.serviceType, ref.serviceId, ref.accountId), JSON.stringify(kept), at],
  );
  return row === undefined ? err({ code: 'unknown_external_account', serviceType: ref.serviceType, accountId: ref.accountId }) : ok(storedIdentityOf(row));
}

async function identitiesOf(sql: Sql, userIds: readonly string[]): Promise<readonly StoredIdentity[]> {
  const ids = userIds.slice(0, MAX_PAGE).flatMap((id) => {
    const key = dbId(id);
    return key === null ? [] : [key];
  });
  if (ids.length === 0) return [];
  const rows = await sql.query(
    `SELECT ${LINK_COLUMNS}, facts, facts_at FROM external_accounts WHERE account_id = ANY($1::bigint[]) ORDER BY account_id, seq`,
    [ids],
  );
  return rows.map(storedIdentityOf);
}

async function countOf(sql: Sql, statement: string): Promise<number> {
  const [row] = await sql.query(statement);
  return row === undefined ? 0 : num(row, 'n');
}

/**
 * The accounts part of the PostgreSQL store.
 *
 * @param sql - Where its statements run.
 * @returns The {@link AccountStore}.
 * @example
 * ```ts
 * const accounts = postgresAccounts(rootSql(driver));
 * await accounts.findByUsernameKey(usernameKey('Alice'));
 * ```
 */
export function postgresAccounts(sql: Sql): AccountStore {
  return {
    create: (input) => createAccount(sql, input),
    get: async (id) => {
      const key = dbId(id);
      return key === null ? null : oneUser(sql, 'a.id = $1', [key]);
    },
    findByUsernameKey: (key) => oneUser(sql, 'a.username_key = $1', [key]),
    findByVerifiedEmailKey: (key) => oneUser(sql, 'a.id = (SELECT account_id FROM account_emails WHERE verified_key = $1)', [key]),
    findByExternalAccountKey: (key) => oneUser(sql, 'a.id = (SELECT account_id FROM external_accounts WHERE external_key = $1)', [key]),
    list: (page) => listAccounts(sql, page),
    count: () => countOf(sql, 'SELECT count(*) AS n FROM accounts'),
    countSiteAdmins: () => countOf(sql, 'SELECT count(*) AS n FROM accounts WHERE site_admin'),
    countActiveSiteAdmins: () => countOf(sql, 'SELECT count(*) AS n FROM accounts WHERE site_admin AND suspended_at IS NULL'),
    setSuspended: (userId, suspendedAt) => updateUser(sql, userId, 'suspended_at = $2', [suspendedAt]),
    setSiteAdmin: (userId, siteAdmin) => updateUser(sql, userId, 'site_admin = $2', [siteAdmin]),
    setPasswordHash: (userId, passwordHash) => updateUser(sql, userId, 'password_hash = $2', [passwordHash]),
    setUsername: (userId, username) => setUsername(sql, userId, username),
    setEmails: (userId, emails) => setEmails(sql, userId, emails),
    delete: async (userId) => {
      const id = dbId(userId);
      // the outer SELECT reads the statement's snapshot, so it still sees the emails the delete cascades to
      const [row] = id === null ? [] : await sql.query(`WITH a AS (DELETE FROM accounts WHERE id = $1 RETURNING *) SELECT ${CHANGED_USER_COLUMNS} FROM a`, [id]);
      return row === undefined ? err({ code: 'unknown_user', userId }) : ok(userOf(row));
    },
    link: (input) => link(sql, input),
    links: async (userId) => {
      const id = dbId(userId);
      const rows = id === null ? [] : await sql.query(`SELECT ${LINK_COLUMNS} FROM external_accounts WHERE account_id = $1 ORDER BY seq`, [id]);
      return rows.map(linkOf);
    },
    unlink: (userId, ref) => unlink(sql, userId, ref),
    putCredential: (input) => putCredential(sql, input),
    credentials: async (userId) => {
      const id = dbId(userId);
      const rows = id === null ? [] : await sql.query(`SELECT ${CREDENTIAL_COLUMNS} FROM provider_credentials WHERE account_id = $1 ORDER BY created_at, seq`, [id]);
      return rows.map(credentialOf);
    },
    deleteCredential: (userId, serviceType, serviceId) => deleteCredential(sql, userId, serviceType, serviceId),
    recordIdentityFacts: (ref, facts, at) => recordIdentityFacts(sql, ref, facts, at),
    identitiesOf: (userIds) => identitiesOf(sql, userIds),
    signInPage: (first, after) => signInPage(sql, first, after),
  };
}
