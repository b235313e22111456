/**
 * What a review host says about a pair of credentials (spec §5.3 reviewhost): a type alone, so that the settings
 * page that asks and the provider module that calls the host share it without importing each other.
 *
 * @module
 */

/**
 * What the review host said about a pair of credentials.
 *
 * @example
 * ```ts
 * const r: ReviewhostCheck = { kind: 'valid', username: 'alice' };
 * ```
 */
export type ReviewhostCheck =
  /** The host accepted them; `username` is the account it names. */
  | { readonly kind: 'valid'; readonly username: string }
  /** The host refused them (401/403, or they name another account). */
  | { readonly kind: 'refused' }
  /** The host could not be reached or answered something else. */
  | { readonly kind: 'unreachable' };
