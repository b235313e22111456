/**
 * An account's email addresses as a person manages them: add one (unverified), mark one verified after its link
 * was followed, make a verified one the primary. Each returns the whole new list (primary first) for the store to
 * keep; addresses are compared by their match key (`emailMatchKey`). The list is kept primary first, but the primary
 * address is only ever a verified one ({@link primaryEmailOf}): an account whose addresses are all unverified has no
 * primary address, and the first address verified becomes the primary one.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { isPlainEmailAddress } from './site-configuration/email.js';
import { emailMatchKey } from './store-keys.js';

/**
 * The most addresses one account holds (what an account can make the server keep is bounded).
 *
 * @example
 * ```ts
 * MAX_EMAILS_PER_ACCOUNT; // 10
 * ```
 */
export const MAX_EMAILS_PER_ACCOUNT = 10;

/** An address on an account, as the store keeps it. */
export interface StoredEmail {
  /** The address as given. */
  readonly email: string;
  /** Whether it was verified. */
  readonly verified: boolean;
}

/** Why a change of the list was refused. */
export type AccountEmailError =
  /** Not one plain address `local@domain`. */
  | { readonly code: 'invalid_email' }
  /** The account has this address already. */
  | { readonly code: 'already_added' }
  /** The account has {@link MAX_EMAILS_PER_ACCOUNT} addresses already. */
  | { readonly code: 'too_many_emails'; readonly max: number }
  /** The account has no such address. */
  | { readonly code: 'unknown_email' }
  /** Only a verified address can be the primary one. */
  | { readonly code: 'not_verified' };

/** Whether `emails` is a list of stored addresses (the functions below answer as for a malformed input otherwise). */
function isEmailList(emails: unknown): emails is readonly StoredEmail[] {
  return Array.isArray(emails) && emails.every((e: unknown) => typeof e === 'object' && e !== null && 'email' in e && typeof e.email === 'string' && 'verified' in e && typeof e.verified === 'boolean');
}

const sameAddress = (a: string, b: string): boolean => emailMatchKey(a) === emailMatchKey(b);
const copy = (emails: readonly StoredEmail[]): StoredEmail[] => emails.map((e) => ({ email: e.email, verified: e.verified }));

/**
 * Adds an unverified address at the end of the list.
 *
 * @param emails - The account's addresses, primary first.
 * @param email - The address to add.
 * @returns The new list, or why not.
 * @example
 * ```ts
 * addAccountEmail([{ email: 'a@example.com', verified: true }], 'b@example.com');
 * // ok([{ email: 'a@example.com', verified: true }, { email: 'b@example.com', verified: false }])
 * ```
 */
export function addAccountEmail(emails: readonly StoredEmail[], email: string): Result<StoredEmail[], AccountEmailError> {
  if (!isEmailList(emails) || typeof email !== 'string' || !isPlainEmailAddress(email)) return err({ code: 'invalid_email' });
  if (emails.some((e) => sameAddress(e.email, email))) return err({ code: 'already_added' });
  if (emails.length >= MAX_EMAILS_PER_ACCOUNT) return err({ code: 'too_many_emails', max: MAX_EMAILS_PER_ACCOUNT });
  return ok([...copy(emails), { email, verified: false }]);
}

/**
 * Marks an address verified (every entry with its match key), in place; when the primary address was not verified,
 * the newly verified one becomes the primary.
 *
 * @param emails - The account's addresses, primary first.
 * @param email - The address its link verified.
 * @returns The new list, or `unknown_email` when the account no longer has it.
 * @example
 * ```ts
 * markEmailVerified([{ email: 'a@example.com', verified: false }], 'A@example.com'); // ok([{ email: 'a@example.com', verified: true }])
 * ```
 */
export function markEmailVerified(emails: readonly StoredEmail[], email: string): Result<StoredEmail[], AccountEmailError> {
  if (!isEmailList(emails) || typeof email !== 'string') return err({ code: 'unknown_email' });
  if (!emails.some((e) => sameAddress(e.email, email))) return err({ code: 'unknown_email' });
  const marked = emails.map((e) => ({ email: e.email, verified: e.verified || sameAddress(e.email, email) }));
  const primaryVerified = emails[0]?.verified === true;
  return ok(primaryVerified ? marked : moveToFront(marked, email));
}

function moveToFront(emails: readonly StoredEmail[], email: string): StoredEmail[] {
  const index = emails.findIndex((e) => sameAddress(e.email, email));
  const chosen = emails[index];
  if (chosen === undefined) return copy(emails);
  return [{ ...chosen }, ...copy(emails.filter((_, i) => i !== index))];
}

/**
 * Makes a verified address the primary one (first in the list).
 *
 * @param emails - The account's addresses, primary first.
 * @param email - The address to make primary.
 * @returns The new list, or why not: `unknown_email`, `not_verified`.
 * @example
 * ```ts
 * makePrimaryEmail([{ email: 'a@x.io', verified: true }, { email: 'b@x.io', verified: true }], 'b@x.io');
 * // ok([{ email: 'b@x.io', verified: true }, { email: 'a@x.io', verified: true }])
 * makePrimaryEmail([{ email: 'a@x.io', verified: true }, { email: 'b@x.io', verified: false }], 'b@x.io'); // err({ code: 'not_verified' })
 * ```
 */
export function makePrimaryEmail(emails: readonly StoredEmail[], email: string): Result<StoredEmail[], AccountEmailError> {
  if (!isEmailList(emails) || typeof email !== 'string') return err({ code: 'unknown_email' });
  const found = emails.find((e) => sameAddress(e.email, email));
  if (found === undefined) return err({ code: 'unknown_email' });
  if (!found.verified) return err({ code: 'not_verified' });
  return ok(moveToFront(emails, email));
}

/**
 * The account's primary address: the first verified one of the list (the list is kept with it first), or `null` when
 * none is verified. Only a verified address is ever the primary one.
 *
 * @param emails - The account's addresses, primary first.
 * @returns The primary address, or `null`.
 * @example
 * ```ts
 * primaryEmailOf([{ email: 'a@x.io', verified: false }]); // null
 * primaryEmailOf([{ email: 'a@x.io', verified: true }, { email: 'b@x.io', verified: true }]); // 'a@x.io'
 * ```
 */
export function primaryEmailOf(emails: readonly StoredEmail[]): string | null {
  if (!isEmailList(emails)) return null;
  return emails.find((e) => e.verified)?.email ?? null;
}

/**
 * Where the account's own mail (a password reset or unlock link) goes: its primary address, or, when no address is
 * verified yet, the first one (the address it signed up with; following the mailed link proves it receives mail,
 * and the link is all the mail carries). `null` for an account without an address.
 *
 * @param emails - The account's addresses, primary first.
 * @returns The address to mail, or `null`.
 * @example
 * ```ts
 * accountMailAddressOf([{ email: 'a@x.io', verified: false }, { email: 'b@x.io', verified: true }]); // 'b@x.io'
 * accountMailAddressOf([{ email: 'a@x.io', verified: false }]); // 'a@x.io'
 * ```
 */
export function accountMailAddressOf(emails: readonly StoredEmail[]): string | null {
  if (!isEmailList(emails)) return null;
  return primaryEmailOf(emails) ?? emails[0]?.email ?? null;
}
