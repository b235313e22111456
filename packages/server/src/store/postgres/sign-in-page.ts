/**
 * A page of accounts with what decides their sign-in from a browser (`AccountStore.signInPage`), read as two JSON
 * texts: the accounts of one keyset page by primary key, then their links by one range of the `(account_id, seq)`
 * index (every account whose id lies between the page's first and last is on the page). Each statement answers one
 * row holding one JSON array, decoded with one `JSON.parse`: the embedded driver decodes every field of every row in
 * JavaScript, so a thousand rows of five or six fields cost several times what one text of the same content costs,
 * and a configuration preview reads 100,000 accounts this way.
 *
 * @module
 */
import { ACCOUNT_ORIGINS } from 'gatehouse-auth';
import type { IdentityFacts } from 'gatehouse-auth';
import type { AccountSignInRecord } from '../types.js';
import { bound, dbId } from './rows.js';
import type { Sql } from './sql.js';

/** Accounts a page holds at most. */
const MAX_PAGE = 1000;

// The aggregates read ordered subqueries; the decoder still orders by id (and by seq within an account) itself
// rather than rely on the order an aggregate without ORDER BY happens to keep.
const ACCOUNTS_SQL = `SELECT json_agg(json_build_array(a.id::text, a.username, a.origin, a.site_admin, a.service_account, a.has_password))::text AS page
  FROM (SELECT id, username, origin, site_admin, service_account, password_hash IS NOT NULL AS has_password
        FROM accounts WHERE id > $1::bigint ORDER BY id LIMIT $2) a`;

const LINKS_SQL = `SELECT json_agg(json_build_array(e.account_id::text, e.seq::text, e.service_type, e.service_id, e.external_id, e.facts))::text AS page
  FROM (SELECT account_id, seq, service_type, service_id, external_id, facts
        FROM external_accounts WHERE account_id BETWEEN $1::bigint AND $2::bigint ORDER BY account_id, seq) e`;

/**
 * Whether a facts value has the fields of {@link IdentityFacts} at the top (the core checks the rest where it reads
 * them): a shallow check, as a preview reads 100,000 of them.
 *
 * @param value - A parsed `facts` column.
 * @returns `true` when it has a `username` (text or `null`), an `emails` list, and lists where `orgs`, `teams` or
 * `groups` are present.
 * @example
 * ```ts
 * isFacts({ username: 'octo', emails: [] }); // true
 * isFacts({ emails: 'x' }); // false
 * ```
 */
export function isFacts(value: unknown): value is IdentityFacts {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const username: unknown = 'username' in value ? value.username : undefined;
  const emails: unknown = 'emails' in value ? value.emails : undefined;
  const lists = ['orgs', 'teams', 'groups'].every((key) => !(key in value) || Array.isArray(Reflect.get(value, key)));
  return (username === null || typeof username === 'string') && Array.isArray(emails) && lists;
}

/** Decimal ids (`bigint` as text) in numeric order: the shorter first, then by digits. */
function before(a: string, b: string): number {
  return a.length === b.length ? (a < b ? -1 : a > b ? 1 : 0) : a.length - b.length;
}

const str = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

/** The one JSON array a statement answers (`[]` when it aggregated no row). */
async function jsonRows(sql: Sql, statement: string, params: readonly unknown[]): Promise<readonly unknown[]> {
  const [row] = await sql.query(statement, params);
  const page: unknown = row?.['page'];
  if (typeof page !== 'string') return [];
  const parsed: unknown = JSON.parse(page);
  return Array.isArray(parsed) ? parsed : [];
}

type Identity = AccountSignInRecord['identities'][number];

/**
 * Reads one page of {@link AccountSignInRecord}s: up to `count` accounts (at most 1,000) whose id comes after
 * `after`, by id, each with its identities (oldest link first) and their facts.
 *
 * @param sql - Where to read.
 * @param count - Accounts wanted (0 or less reads nothing).
 * @param after - The keyset cursor: the last id of the previous page (an id that is not a store id reads nothing).
 * @returns The page, by id.
 * @example
 * ```ts
 * const page = await signInPage(sql, 1000, undefined);
 * const next = await signInPage(sql, 1000, page.at(-1)?.id);
 * ```
 */
export async function signInPage(sql: Sql, count: number, after: string | undefined): Promise<readonly AccountSignInRecord[]> {
  const first = Math.min(bound(count), MAX_PAGE);
  const from = after === undefined ? '0' : dbId(after);
  if (first === 0 || from === null) return [];
  const users = (await jsonRows(sql, ACCOUNTS_SQL, [from, first])).flatMap((u): (readonly unknown[])[] => (Array.isArray(u) ? [u] : []));
  const ids = users.map((u) => str(u[0]));
  const order = ids.map((_, i) => i);
  if (ids.some((id, i) => i > 0 && before(ids[i - 1] ?? '', id) > 0)) order.sort((a, b) => before(ids[a] ?? '', ids[b] ?? ''));
  const lo = ids[order[0] ?? -1];
  const hi = ids[order.at(-1) ?? -1];
  const links = lo === undefined || hi === undefined ? [] : await jsonRows(sql, LINKS_SQL, [lo, hi]);
  const byAccount = new Map<string, { seq: string; identity: Identity }[]>();
  for (const link of links) {
    if (!Array.isArray(link)) continue;
    const row: readonly unknown[] = link;
    const id = str(row[0]);
    const facts: unknown = row[5];
    const entry = {
      seq: str(row[1]),
      identity: { serviceType: str(row[2]), serviceId: str(row[3]), accountId: str(row[4]), facts: isFacts(facts) ? facts : null },
    };
    const list = byAccount.get(id);
    if (list === undefined) byAccount.set(id, [entry]);
    else list.push(entry);
  }
  return order.map((i): AccountSignInRecord => {
    const u = users[i] ?? [];
    const id = ids[i] ?? '';
    const list = byAccount.get(id) ?? [];
    if (list.some((e, j) => j > 0 && before(list[j - 1]?.seq ?? '', e.seq) > 0)) list.sort((a, b) => before(a.seq, b.seq));
    return {
      id,
      username: str(u[1]),
      // a value this code does not know (a newer release wrote it) reads as an account no provider username may claim
      origin: ACCOUNT_ORIGINS.find((origin) => origin === u[2]) ?? 'provider_signup',
      siteAdmin: u[3] === true,
      serviceAccount: u[4] === true,
      hasPassword: u[5] === true,
      identities: list.map((e) => e.identity),
    };
  });
}
