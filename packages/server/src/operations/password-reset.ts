/**
 * Password reset links: made by a site administrator for any account but a service account, or asked for on the
 * "Forgot password?" page; each single-use, expiring after `auth.passwordResetLinkExpiry`, kept as a digest.
 *
 * @module
 */
import type { Result } from 'neverthrow';
import type { AuditSink } from '../store/audited.js';
import type { UserRecord } from '../store/types.js';
import type { OperationFailure } from './failure.js';

/**
 * A password reset link made by a site administrator.
 *
 * @example
 * ```ts
 * const made: MadeResetLink = { url: 'https://example.com/.auth/reset-password?token=…', emailSent: false, mailOn: false };
 * ```
 */
export interface MadeResetLink {
  /** The link, with its token: shown once. */
  readonly url: string;
  /** Whether it was queued to the account's primary email. */
  readonly emailSent: boolean;
  /** Whether mail is on (`email.smtp` is set). */
  readonly mailOn: boolean;
}

/**
 * Makes a password reset link for an account as a site administrator (audited as the given sink records).
 *
 * @example
 * ```ts
 * const maker: PasswordResetLinkMaker = async (admin, userId, audit) => makeResetLinkAsAdmin(deps, admin, userId, audit);
 * ```
 */
export type PasswordResetLinkMaker = (admin: UserRecord, userId: string, audit: AuditSink) => Promise<Result<MadeResetLink, OperationFailure>>;
