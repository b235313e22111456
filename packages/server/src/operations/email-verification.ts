/**
 * Email verification: a verification link for one address of an account (24 h, single use, kept by digest),
 * mailed through the outbox when mail is on, and, when followed and confirmed, the address marked verified (from then
 * on it links provider identities by §5.4 rule 2). Each change is audited in its transaction. Whether an address
 * may be added, verified or made primary is the core's (`addAccountEmail`, `markEmailVerified`, `makePrimaryEmail`);
 * an address verified on another account is refused by the store (`email_taken`).
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { markEmailVerified, VERIFY_EMAIL_LINK_TTL_SECONDS } from 'gatehouse-auth';
import type { AccountLinkRefusalReason } from 'gatehouse-auth';
import { auditedTransaction, type AuditSink } from '../store/audited.js';
import type { Store, UserRecord } from '../store/types.js';
import { accountLinkURL, consumeAccountLink, createAccountLink } from './account-links.js';
import { enqueueMail, type EnqueueMailOutcome, type MailQueue } from './mail.js';

/**
 * The page a verification link opens (`?token=…`); its form posts to the same path.
 *
 * @example
 * ```ts
 * VERIFY_EMAIL_PATH; // '/settings/emails/verify'
 * ```
 */
export const VERIFY_EMAIL_PATH = '/settings/emails/verify';

/** What the verification operations need. */
export interface EmailVerificationDeps {
  /** The store. */
  readonly store: Store;
  /** The clock. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records audit entries in the change's transaction. */
  readonly audit: AuditSink;
  /** The outbox, or `null` when the server has none (mail off). */
  readonly mail: MailQueue | null;
  /** The site's base address: `externalURL`, else the address it listens on. */
  readonly baseURL: () => string;
}

/** A verification link made: its URL (to show a site administrator when mail is off) and what became of its mail. */
export interface SentVerification {
  /** The absolute link. */
  readonly url: string;
  /** `queued`, `mail_off` or `refused`. */
  readonly mail: EnqueueMailOutcome['kind'];
}

/**
 * Makes a verification link for `email` of `user` (replacing an earlier one), queues its mail when mail is on, and
 * audits `email_verification_sent`, all in one transaction.
 *
 * @param deps - Store, clock, random source, audit, outbox, base address.
 * @param user - The account.
 * @param email - One of its addresses.
 * @param actorUserId - Who asked (the owner, or a site administrator).
 * @returns The link and the mail's fate.
 * @example
 * ```ts
 * const sent = await sendEmailVerification(deps, viewer, 'alice@example.com', viewer.id);
 * ```
 */
export async function sendEmailVerification(
  deps: EmailVerificationDeps,
  user: UserRecord,
  email: string,
  actorUserId: string,
): Promise<Result<SentVerification, { readonly code: 'unknown_email' | 'link_failed' }>> {
  if (!user.emails.some((e) => e.email === email)) return err({ code: 'unknown_email' });
  return auditedTransaction(deps.store, async (tx) => {
    const made = await createAccountLink(tx, { purpose: 'verify_email', userId: user.id, email, ttlSeconds: VERIFY_EMAIL_LINK_TTL_SECONDS, now: deps.now(), randomBytes: deps.randomBytes });
    if (made.isErr()) return err({ code: 'link_failed' as const });
    const url = accountLinkURL(deps.baseURL(), VERIFY_EMAIL_PATH, made.value.token);
    const text = `Hello ${user.username},\n\nOpen this link to verify ${email} on gatehouse (it works once, for 24 hours):\n\n${url}\n\nIf you did not ask for this, ignore this message.\n`;
    const mailed = deps.mail === null ? ({ kind: 'mail_off' } as const) : await enqueueMail(deps.mail, tx, { to: email, subject: 'Verify your email address', text });
    await deps.audit(
      { entity: 'user', action: 'email_verification_sent', reason: null, actorUserId, subjectUserId: user.id, details: { email, mail: mailed.kind } },
      tx,
    );
    return ok({ url, mail: mailed.kind });
  });
}

/** Why a verification link did not verify: the link's reason, another account's link, the address gone, or verified elsewhere. */
export type VerifyEmailError =
  | { readonly code: AccountLinkRefusalReason }
  | { readonly code: 'wrong_account' }
  | { readonly code: 'unknown_email' }
  | { readonly code: 'email_taken'; readonly email: string };

/**
 * Uses up a verification link as `viewer` (the account it was made for) and marks its address verified, audited as
 * `email_verified`, in one transaction: a refusal changes nothing (the link stays usable unless it is the link's own
 * refusal).
 *
 * @param deps - Store, clock, audit.
 * @param viewer - The signed-in account.
 * @param token - The link's token.
 * @returns The account as changed, or why not.
 * @example
 * ```ts
 * const verified = await verifyEmailLink(deps, viewer, form.get('token'));
 * ```
 */
export async function verifyEmailLink(
  deps: Pick<EmailVerificationDeps, 'store' | 'now' | 'audit'>,
  viewer: UserRecord,
  token: string | null,
): Promise<Result<UserRecord, VerifyEmailError>> {
  return auditedTransaction(deps.store, async (tx): Promise<Result<UserRecord, VerifyEmailError>> => {
    const used = await consumeAccountLink(tx, 'verify_email', token, deps.now());
    if (used.isErr()) return err(used.error);
    if (used.value.userId !== viewer.id) return err({ code: 'wrong_account' });
    const current = await tx.accounts.get(viewer.id);
    const email = used.value.email ?? '';
    const next = markEmailVerified(current?.emails ?? [], email);
    if (next.isErr()) return err({ code: 'unknown_email' });
    const saved = await tx.accounts.setEmails(viewer.id, next.value);
    if (saved.isErr()) return err(saved.error.code === 'email_taken' ? { code: 'email_taken', email } : { code: 'unknown_email' });
    await deps.audit({ entity: 'user', action: 'email_verified', reason: null, actorUserId: viewer.id, subjectUserId: viewer.id, details: { email } }, tx);
    return ok(saved.value);
  });
}
