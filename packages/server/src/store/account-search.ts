/**
 * What Site admin's user search matches, the same in every store: a query holding `@` is an email address and
 * matches an account with that address (verified or not, compared by `emailMatchKey`); any other query is part of a
 * username (compared by `usernameKey`). No username holds `@` (spec §5.5), so the two never overlap.
 *
 * @module
 */

/**
 * Whether a search query is an email address rather than part of a username.
 *
 * @param query - What the administrator typed.
 * @returns `true` when it holds `@`.
 * @example
 * ```ts
 * isEmailQuery('alice@example.com'); // true
 * isEmailQuery('ali'); // false
 * ```
 */
export function isEmailQuery(query: string): boolean {
  return query.includes('@');
}
