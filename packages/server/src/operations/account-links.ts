/**
 * Account links for every flow that mails one (email verification, password reset, the first administrator's
 * password, unlocking an account): {@link createAccountLink} makes a single-use, expiring link and returns its token
 * once (the store keeps only the token's SHA-256 digest, and a new link of the same purpose for the same account
 * replaces the earlier one); {@link consumeAccountLink} uses it up; {@link accountLinkURL} builds the absolute address
 * to mail or to show. Whether a link may be used is the core's `decideAccountLinkUse`.
 *
 * @example Make a verification link inside the transaction that audits it, then consume it
 * ```ts
 * const made = await createAccountLink(tx, { purpose: 'verify_email', userId, email: 'a@example.com', ttlSeconds: VERIFY_EMAIL_LINK_TTL_SECONDS, now, randomBytes });
 * const url = accountLinkURL(baseURL, VERIFY_EMAIL_PATH, made._unsafeUnwrap().token);
 * await consumeAccountLink(store, 'verify_email', token, now); // ok(link) once, then err({ code: 'link_used' })
 * ```
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { ACCOUNT_LINK_TOKEN_BYTES, accountLinkExpiry, decideAccountLinkUse, isAccountLinkToken } from 'gatehouse-auth';
import type { AccountLinkPurpose } from 'gatehouse-auth';
import { sha256Hex } from '../kernel/digest.js';
import type { AccountLinkRecord, AccountLinkRefusal } from '../store/lifecycle-types.js';
import type { Store, StoreError } from '../store/types.js';

/** What {@link createAccountLink} needs. */
export interface NewAccountLinkInput {
  /** What the link does. */
  readonly purpose: AccountLinkPurpose;
  /** The account it acts on. */
  readonly userId: string;
  /** For `verify_email`, the address it verifies; `null` for the other purposes. */
  readonly email: string | null;
  /** How long it works, in seconds. */
  readonly ttlSeconds: number;
  /** The time, milliseconds since the epoch. */
  readonly now: number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
}

/** A link just made: its token (shown or mailed once, never stored) and the stored record. */
export interface CreatedAccountLink {
  /** The token: 43 base64url characters, the only copy. */
  readonly token: string;
  /** The stored link (its digest, expiry …). */
  readonly link: AccountLinkRecord;
}

/** Why a link was not made: the store refused (`unknown_user`, `duplicate_digest`) or the lifetime is not positive. */
export type CreateAccountLinkError = StoreError | { readonly code: 'invalid_link_lifetime' };

/**
 * The digest a link's token is stored and looked up by: lower-case hex SHA-256 of its text.
 *
 * @param token - The token.
 * @returns 64 hex digits.
 * @example
 * ```ts
 * accountLinkDigest('A'.repeat(43)).length; // 64
 * ```
 */
export function accountLinkDigest(token: string): string {
  return sha256Hex(token);
}

/**
 * Makes a link: a fresh random token whose digest is stored with the purpose, the account, the address and the
 * expiry, replacing the account's earlier link of the same purpose. Run it on the store of the transaction that
 * audits the change and mails the link, so that all three are kept together.
 *
 * @param store - The store (or a transaction's store).
 * @param input - Purpose, account, address, lifetime, time and random source.
 * @returns The token and the record, or why not.
 * @example
 * ```ts
 * const made = await createAccountLink(store, { purpose: 'reset_password', userId: '7', email: null, ttlSeconds: 14_400, now: Date.now(), randomBytes });
 * ```
 */
export async function createAccountLink(store: Pick<Store, 'links'>, input: NewAccountLinkInput): Promise<Result<CreatedAccountLink, CreateAccountLinkError>> {
  const expiresAt = accountLinkExpiry(input.now, input.ttlSeconds);
  if (expiresAt.isErr()) return err({ code: 'invalid_link_lifetime' });
  const token = Buffer.from(input.randomBytes(ACCOUNT_LINK_TOKEN_BYTES)).toString('base64url');
  const created = await store.links.create({
    purpose: input.purpose,
    userId: input.userId,
    email: input.email,
    digest: accountLinkDigest(token),
    createdAt: input.now,
    expiresAt: expiresAt.value,
  });
  return created.map((link) => ({ token, link }));
}

/**
 * Uses up the link whose token is `token` for `purpose` at `now`: on success it is marked used and resolved (a
 * second use answers `link_used`); a token that is not a well-formed one answers `unknown_link` without a lookup.
 * A refusal changes nothing.
 *
 * @param store - The store (or a transaction's store, to change the account in the same step).
 * @param purpose - What the page following the link does.
 * @param token - The token from the link.
 * @param now - The time, milliseconds since the epoch.
 * @returns The used link, or why it cannot be used.
 * @example
 * ```ts
 * const used = await consumeAccountLink(tx, 'verify_email', form.get('token'), Date.now());
 * ```
 */
export async function consumeAccountLink(
  store: Pick<Store, 'links'>,
  purpose: AccountLinkPurpose,
  token: string | null,
  now: number,
): Promise<Result<AccountLinkRecord, AccountLinkRefusal>> {
  if (!isAccountLinkToken(token)) return err({ code: 'unknown_link' });
  return store.links.consume(purpose, accountLinkDigest(token), now);
}

/**
 * Whether a token is that of a live link for `purpose` now, without using it (the page a link opens shows its
 * confirm button only then). A malformed token answers `unknown_link`.
 *
 * @param store - The store.
 * @param purpose - What the page does.
 * @param token - The token from the link.
 * @param now - The time.
 * @returns The link, or why it cannot be used.
 * @example
 * ```ts
 * const live = await peekAccountLink(store, 'verify_email', url.searchParams.get('token'), Date.now());
 * ```
 */
export async function peekAccountLink(
  store: Pick<Store, 'links'>,
  purpose: AccountLinkPurpose,
  token: string | null,
  now: number,
): Promise<Result<AccountLinkRecord, AccountLinkRefusal>> {
  if (!isAccountLinkToken(token)) return err({ code: 'unknown_link' });
  const link = await store.links.findByDigest(accountLinkDigest(token));
  const decided = decideAccountLinkUse(link, purpose, now);
  if (decided.isErr() || link === null) return err({ code: 'unknown_link' });
  return decided.value.kind === 'refused' ? err({ code: decided.value.reason }) : ok(link);
}

/**
 * The absolute address of a link: the site's base address (its `externalURL`, or the address it listens on) with
 * `path` and the token as the `token` query parameter (the request log records paths without their query).
 *
 * @param baseURL - `externalURL`, or the listening URL when it is unset; a trailing `/` is ignored.
 * @param path - The page's path, starting with `/`.
 * @param token - The link's token.
 * @returns The URL to mail or to show.
 * @example
 * ```ts
 * accountLinkURL('https://search.example.com/', '/.auth/verify-email', 'tok'); // 'https://search.example.com/.auth/verify-email?token=tok'
 * ```
 */
export function accountLinkURL(baseURL: string, path: string, token: string): string {
  const base = baseURL.endsWith('/') ? baseURL.slice(0, -1) : baseURL;
  return `${base}${path}?token=${encodeURIComponent(token)}`;
}
