/**
 * Reading result rows into the store's records. Both drivers parse `bigint` differently (node-postgres as a
 * string, PGlite as a number), so every number goes through `Number`; `jsonb` arrives parsed.
 *
 * @module
 */
import { ACCESS_TOKEN_SCOPES, ACCOUNT_ORIGINS } from 'gatehouse-auth';
import type { AccessTokenScope, AccountOrigin } from 'gatehouse-auth';
import type { SqlRow } from './driver.js';

/**
 * A column as text (`''` when absent).
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The text.
 * @example
 * ```ts
 * text({ id: 7n }, 'id'); // '7'
 * ```
 */
export function text(row: SqlRow, column: string): string {
  const value = row[column];
  return value === null || value === undefined ? '' : String(value);
}

/**
 * A nullable text column.
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The text, or `null`.
 * @example
 * ```ts
 * textOrNull({ reason: null }, 'reason'); // null
 * ```
 */
export function textOrNull(row: SqlRow, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : String(value);
}

/**
 * A number column (`bigint` or `integer`).
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The number.
 * @example
 * ```ts
 * num({ created_at: '1700000000000' }, 'created_at'); // 1_700_000_000_000
 * ```
 */
export function num(row: SqlRow, column: string): number {
  return Number(row[column] ?? 0);
}

/**
 * A nullable number column.
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The number, or `null`.
 * @example
 * ```ts
 * numOrNull({ expires_at: null }, 'expires_at'); // null
 * ```
 */
export function numOrNull(row: SqlRow, column: string): number | null {
  const value = row[column];
  return value === null || value === undefined ? null : Number(value);
}

/**
 * A boolean column.
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The boolean.
 * @example
 * ```ts
 * bool({ used: true }, 'used'); // true
 * ```
 */
export function bool(row: SqlRow, column: string): boolean {
  return row[column] === true;
}

/**
 * A `jsonb` array of strings.
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The strings, in order.
 * @example
 * ```ts
 * strings({ scopes: ['user:all'] }, 'scopes'); // ['user:all']
 * ```
 */
export function strings(row: SqlRow, column: string): string[] {
  const value = row[column];
  return Array.isArray(value) ? value.map((v) => String(v)) : [];
}

/**
 * A `jsonb` object of strings.
 *
 * @param row - The row.
 * @param column - The column.
 * @returns A fresh object.
 * @example
 * ```ts
 * stringRecord({ details: { scheme: 'basic' } }, 'details'); // { scheme: 'basic' }
 * ```
 */
export function stringRecord(row: SqlRow, column: string): Record<string, string> {
  const value = row[column];
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, item] of Object.entries(value)) out[key] = String(item);
  return out;
}

/**
 * The access-token scopes of a `jsonb` column (unknown values are dropped).
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The scopes.
 * @example
 * ```ts
 * accessTokenScopes({ scopes: ['user:all'] }, 'scopes'); // ['user:all']
 * ```
 */
export function accessTokenScopes(row: SqlRow, column: string): AccessTokenScope[] {
  return strings(row, column).flatMap((s) => ACCESS_TOKEN_SCOPES.filter((scope) => scope === s));
}

/**
 * An account origin column (`admin_created` if the database holds something else).
 *
 * @param row - The row.
 * @param column - The column.
 * @returns The origin.
 * @example
 * ```ts
 * accountOrigin({ origin: 'password_signup' }, 'origin'); // 'password_signup'
 * ```
 */
export function accountOrigin(row: SqlRow, column: string): AccountOrigin {
  const value = row[column];
  // a value this code does not know (a newer release wrote it) reads as an account no provider username may claim
  return ACCOUNT_ORIGINS.find((origin) => origin === value) ?? 'provider_signup';
}

/**
 * A store id as a `bigint` parameter: decimal digits without a leading zero, at most 18 of them; `null` for
 * anything else, which then names no row (a lookup finds nothing rather than failing on a cast).
 *
 * @param id - An id from a caller.
 * @returns The id, or `null`.
 * @example
 * ```ts
 * dbId('42'); // '42'
 * dbId('u1'); // null
 * ```
 */
export function dbId(id: string): string | null {
  return /^[1-9][0-9]{0,17}$/u.test(id) ? id : null;
}

/**
 * A count or limit argument: a safe integer of at least 1, else 0 (nothing to do).
 *
 * @param n - The caller's number.
 * @returns A non-negative integer.
 * @example
 * ```ts
 * bound(50); // 50
 * bound(-1); // 0
 * ```
 */
export function bound(n: number): number {
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
