/**
 * The account links this module makes and follows: password reset (`auth.passwordResetLinkExpiry`), the first
 * administrator's password (24 h) and the unlock link of a locked account (`auth.unlockAccountLinkExpiry`). Each
 * link is single-use, expiring and kept as a digest by the account link store; its mail goes through the outbox
 * in the transaction that makes the link and audits it, so a link exists only with its entry and its mail.
 *
 * The link store and the outbox are reached through {@link AccountLinkPorts}, which the wiring builds from the
 * store's account links and the mail queue.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { accountMailAddressOf, checkNewPassword, DEFAULT_PASSWORD_RULE, newPasswordMessage } from 'gatehouse-auth';
import type { AccountLinkPurpose, PasswordRule } from 'gatehouse-auth';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';
import type { Store, UserRecord } from '../store/types.js';
import { accountLinkURL, createAccountLink } from './account-links.js';
import type { OperationFailure } from './failure.js';

/** The purposes of the links this module makes (the core's `AccountLinkPurpose` but `verify_email`). */
export type LifecycleLinkPurpose = Exclude<AccountLinkPurpose, 'verify_email'>;

/**
 * How long the first administrator's link works: 24 hours, in seconds.
 *
 * @example
 * ```ts
 * FIRST_ADMIN_LINK_SECONDS; // 86400
 * ```
 */
export const FIRST_ADMIN_LINK_SECONDS = 86_400;

/**
 * The paths the links open.
 *
 * @example
 * ```ts
 * `${base}${LINK_PATHS.reset_password}?token=${token}`;
 * ```
 */
export const LINK_PATHS: Readonly<Record<LifecycleLinkPurpose, string>> = Object.freeze({
  reset_password: '/.auth/reset-password',
  first_admin: '/.auth/first-admin',
  unlock_account: '/.auth/unlock-account',
});

/** Why a link cannot be used: none has this token, it was used, it expired, or it is for something else. */
export type LinkRefusalCode = 'unknown_link' | 'link_used' | 'link_expired' | 'wrong_purpose';

/**
 * The account links and the mail queue, as this module uses them. Every method that takes a store runs on it (the
 * store of the transaction that audits the change).
 *
 * @example
 * ```ts
 * const ports: AccountLinkPorts = { create, consume, peek, latest, mailOn, enqueue, baseURL };
 * ```
 */
export interface AccountLinkPorts {
  /** Makes a link (replacing the account's earlier one of the purpose); resolves its token, or `null` when refused. */
  readonly create: (store: Store, purpose: LifecycleLinkPurpose, userId: string, ttlSeconds: number) => Promise<string | null>;
  /** Uses a link once: its account, or why not (nothing changed). */
  readonly consume: (store: Store, purpose: LifecycleLinkPurpose, token: string | null) => Promise<Result<string, LinkRefusalCode>>;
  /** Whether a link may be used now, without using it: its account, or why not. */
  readonly peek: (purpose: LifecycleLinkPurpose, token: string | null) => Promise<Result<string, LinkRefusalCode>>;
  /** When the account's link of the purpose was made, or `null` when it has none. */
  readonly latest: (userId: string, purpose: LifecycleLinkPurpose) => Promise<number | null>;
  /** Whether mail is on (`email.smtp`). */
  readonly mailOn: () => boolean;
  /** Queues a mail in the store's outbox; resolves whether it was queued. */
  readonly enqueue: (store: Store, to: string, subject: string, text: string) => Promise<boolean>;
  /** The site's address the links start with (`externalURL`, else the listening address). */
  readonly baseURL: () => string;
}

/**
 * What the link operations need.
 *
 * @example
 * ```ts
 * const deps: AccountLinkDeps = { store, now, audit, ports, expiry: () => configuration };
 * ```
 */
export interface AccountLinkDeps {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Records an audit entry, in the change's transaction. */
  readonly audit: AuditSink;
  /** The link store and the mail queue. */
  readonly ports: AccountLinkPorts;
  /** The effective link lifetimes (seconds), read at each use so a reload applies at once. */
  readonly expiry: () => { readonly passwordResetLinkExpiry: number; readonly unlockAccountLinkExpiry: number };
  /** The rule a new password follows (`auth.minPasswordLength`, `auth.passwordPolicy`). Default: the core's default rule. */
  readonly passwordRule?: PasswordRule;
}

/**
 * The link's address.
 *
 * @param base - The site's address.
 * @param purpose - What the link does.
 * @param token - The link's token.
 * @returns The URL.
 * @example
 * ```ts
 * linkURL('https://example.com/', 'reset_password', 'abc'); // 'https://example.com/.auth/reset-password?token=abc'
 * ```
 */
export function linkURL(base: string, purpose: LifecycleLinkPurpose, token: string): string {
  return accountLinkURL(base, LINK_PATHS[purpose], token);
}

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
 * const maker: PasswordResetLinkMaker = (admin, userId, audit) => makeResetLinkAsAdmin({ ...deps, audit }, admin, userId);
 * ```
 */
export type PasswordResetLinkMaker = (admin: UserRecord, userId: string, audit: AuditSink) => Promise<Result<MadeResetLink, OperationFailure>>;

/** The reset mail's text. */
function resetMail(user: UserRecord, url: string, seconds: number): { subject: string; text: string } {
  return {
    subject: 'Set a new password',
    text:
      `Someone asked to set a new password for the account ${user.username}.\n\n` +
      `Open this link to choose one (it works once, for ${describeSeconds(seconds)}):\n\n${url}\n\n` +
      'Setting a new password signs the account out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.\n',
  };
}

/** `4 hours`, `5 minutes`, `90 seconds`. */
function describeSeconds(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} ${seconds === 3600 ? 'hour' : 'hours'}`;
  if (seconds % 60 === 0) return `${seconds / 60} ${seconds === 60 ? 'minute' : 'minutes'}`;
  return `${seconds} seconds`;
}

/** Where the account's mail goes: its primary (verified) address, else the address it signed up with (the core's rule). */
const primaryEmail = (user: UserRecord): string | null => accountMailAddressOf(user.emails);

/**
 * Makes a password reset link for any account but a service account, as a site administrator: shown to copy, and
 * queued to the account's primary email when mail is on. Audited `user`/`password_reset_link_created`.
 *
 * @param deps - Store, clock, audit, links and mail.
 * @param admin - The acting site administrator.
 * @param userId - The account.
 * @returns The link, or why none was made.
 * @example
 * ```ts
 * const made = await makeResetLinkAsAdmin(deps, admin, alice.id); // ok({ url, emailSent: true, mailOn: true })
 * ```
 */
export async function makeResetLinkAsAdmin(deps: AccountLinkDeps, admin: UserRecord, userId: string): Promise<Result<MadeResetLink, OperationFailure>> {
  if (!admin.siteAdmin) return err({ message: 'Only site administrators may make password reset links.', code: 'FORBIDDEN' });
  const seconds = deps.expiry().passwordResetLinkExpiry;
  const mailOn = deps.ports.mailOn();
  return auditedTransaction(deps.store, async (tx): Promise<Result<MadeResetLink, OperationFailure>> => {
    const user = await tx.accounts.get(userId);
    if (user === null) return err({ message: 'No such user.', code: 'NOT_FOUND' });
    if (user.serviceAccount) return err({ message: 'A service account has no password, so it gets no password reset link.', code: 'SERVICE_ACCOUNT' });
    const token = await deps.ports.create(tx, 'reset_password', user.id, seconds);
    if (token === null) return err({ message: 'Could not make the link; try again.', code: 'INTERNAL' });
    const url = linkURL(deps.ports.baseURL(), 'reset_password', token);
    const to = primaryEmail(user);
    const mail = resetMail(user, url, seconds);
    const emailSent = mailOn && to !== null && (await deps.ports.enqueue(tx, to, mail.subject, mail.text));
    await deps.audit(
      { entity: 'user', action: 'password_reset_link_created', reason: 'by a site administrator', actorUserId: admin.id, subjectUserId: user.id, details: { emailSent: String(emailSent) } },
      tx,
    );
    return ok({ url, emailSent, mailOn });
  });
}

/**
 * The least time between two reset mails to one account: asking again sooner sends nothing (the answer does not
 * change), so nobody can fill an inbox through the "Forgot password?" page.
 *
 * @example
 * ```ts
 * RESET_MAIL_INTERVAL_MS; // 60000
 * ```
 */
export const RESET_MAIL_INTERVAL_MS = 60_000;

/**
 * What became of a "Forgot password?" request (never shown to the person: the page answers the same every time).
 *
 * @example
 * ```ts
 * const outcome: ResetRequestOutcome = 'no_account';
 * ```
 */
export type ResetRequestOutcome = 'mailed' | 'no_account' | 'no_email' | 'mail_off' | 'too_soon' | 'not_queued';

/**
 * Mails a password reset link to the account `account` found (by username or verified email), unless it is a
 * service account, has no email, mail is off, or a link was mailed less than {@link RESET_MAIL_INTERVAL_MS} ago.
 * Audited `user`/`password_reset_requested` when mailed.
 *
 * @param deps - Store, clock, audit, links and mail.
 * @param user - The account found, or `null`.
 * @returns What happened (for the log only).
 * @example
 * ```ts
 * await mailResetLink(deps, await findAccount(login)); // 'mailed'
 * ```
 */
export async function mailResetLink(deps: AccountLinkDeps, user: UserRecord | null): Promise<ResetRequestOutcome> {
  if (user === null || user.serviceAccount) return 'no_account';
  const to = primaryEmail(user);
  if (to === null) return 'no_email';
  if (!deps.ports.mailOn()) return 'mail_off';
  const last = await deps.ports.latest(user.id, 'reset_password');
  if (last !== null && deps.now() - last < RESET_MAIL_INTERVAL_MS) return 'too_soon';
  const seconds = deps.expiry().passwordResetLinkExpiry;
  const done = await auditedTransaction(deps.store, async (tx): Promise<Result<ResetRequestOutcome, 'not_queued'>> => {
    const token = await deps.ports.create(tx, 'reset_password', user.id, seconds);
    if (token === null) return err('not_queued');
    const mail = resetMail(user, linkURL(deps.ports.baseURL(), 'reset_password', token), seconds);
    if (!(await deps.ports.enqueue(tx, to, mail.subject, mail.text))) return err('not_queued');
    await deps.audit({ entity: 'user', action: 'password_reset_requested', reason: 'forgot password', actorUserId: null, subjectUserId: user.id, details: {} }, tx);
    return ok('mailed');
  });
  return done.unwrapOr('not_queued');
}

/**
 * Mails the owner of an account that was just locked a link that unlocks it (`auth.unlockAccountLinkExpiry`).
 * Audited `user`/`unlock_link_mailed`. Nothing is made when mail is off or the account has no email.
 *
 * @param deps - Store, clock, audit, links and mail.
 * @param user - The locked account.
 * @returns Whether the mail was queued.
 * @example
 * ```ts
 * await mailUnlockLink(deps, user); // true
 * ```
 */
export async function mailUnlockLink(deps: AccountLinkDeps, user: UserRecord): Promise<boolean> {
  const to = primaryEmail(user);
  if (to === null || !deps.ports.mailOn()) return false;
  const seconds = deps.expiry().unlockAccountLinkExpiry;
  const done = await auditedTransaction(deps.store, async (tx): Promise<Result<true, 'not_queued'>> => {
    const token = await deps.ports.create(tx, 'unlock_account', user.id, seconds);
    if (token === null) return err('not_queued');
    const url = linkURL(deps.ports.baseURL(), 'unlock_account', token);
    const text =
      `The account ${user.username} was locked after too many failed password sign-ins.\n\n` +
      `If it was you, open this link to unlock it now (it works once, for ${describeSeconds(seconds)}):\n\n${url}\n\n` +
      'If it was not you, someone may be guessing your password: consider setting a new one.\n';
    if (!(await deps.ports.enqueue(tx, to, 'Your account was locked', text))) return err('not_queued');
    await deps.audit({ entity: 'user', action: 'unlock_link_mailed', reason: null, actorUserId: null, subjectUserId: user.id, details: {} }, tx);
    return ok(true);
  });
  return done.isOk();
}

/**
 * Why a new password from a link was not set (nothing changed).
 *
 * @example
 * ```ts
 * const e: SetPasswordByLinkError = { code: 'link', reason: 'link_used' };
 * ```
 */
export type SetPasswordByLinkError =
  /** The link cannot be used. */
  | { readonly code: 'link'; readonly reason: LinkRefusalCode }
  /** The link's account is gone, or is a service account. */
  | { readonly code: 'no_account' };

/**
 * The new-password rule (the core's `checkNewPassword` with the site's rule) as a sentence, or `null` when the
 * password passes.
 *
 * @param password - The password typed.
 * @param rule - The site's rule (`auth.minPasswordLength`, `auth.passwordPolicy`).
 * @returns The refusal's sentence, or `null`.
 * @example
 * ```ts
 * newPasswordProblem('short'); // 'The new password is too short: passwords have at least 12 characters.'
 * ```
 */
export function newPasswordProblem(password: string, rule: PasswordRule = DEFAULT_PASSWORD_RULE): string | null {
  const checked = checkNewPassword(password, rule);
  return checked.isOk() ? null : newPasswordMessage(checked.error);
}

/**
 * Sets a new password by a reset or first-administrator link: in one transaction the link is used, the password
 * hash replaced, every session of the account ended and its lockout forgotten, audited `user`/`password_reset`
 * (or `user`/`first_admin_password_set`). The hash is made by the caller before (a store may run the work again).
 *
 * @param deps - Store, clock, audit, links.
 * @param purpose - `reset_password` or `first_admin`.
 * @param token - The link's token.
 * @param passwordHash - The new password's scrypt hash.
 * @returns The account, or why nothing changed.
 * @example
 * ```ts
 * await setPasswordByLink(deps, 'reset_password', token, await hashPassword(password, randomBytes));
 * ```
 */
export async function setPasswordByLink(
  deps: AccountLinkDeps,
  purpose: 'reset_password' | 'first_admin',
  token: string | null,
  passwordHash: string,
): Promise<Result<{ readonly user: UserRecord; readonly sessionsEnded: number }, SetPasswordByLinkError>> {
  return auditedTransaction(deps.store, async (tx): Promise<Result<{ readonly user: UserRecord; readonly sessionsEnded: number }, SetPasswordByLinkError>> => {
    const used = await deps.ports.consume(tx, purpose, token);
    if (used.isErr()) return err({ code: 'link', reason: used.error });
    const account = await tx.accounts.get(used.value);
    if (account === null || account.serviceAccount) return err({ code: 'no_account' });
    const updated = await tx.accounts.setPasswordHash(account.id, passwordHash);
    if (updated.isErr()) return err({ code: 'no_account' });
    const sessionsEnded = await tx.sessions.deleteForUser(account.id);
    await tx.lockouts.clear(account.id);
    await deps.audit(
      {
        entity: 'user',
        action: purpose === 'reset_password' ? 'password_reset' : 'first_admin_password_set',
        reason: purpose === 'reset_password' ? 'by a password reset link' : 'by the first start\'s link',
        actorUserId: account.id,
        subjectUserId: account.id,
        details: { sessionsEnded: String(sessionsEnded) },
      },
      tx,
    );
    return ok({ user: updated.value, sessionsEnded });
  });
}

/**
 * Makes the first start's link that sets the seeded administrator's password (purpose `first_admin`, 24 hours,
 * single-use, kept as a digest), replacing an earlier one; audited `user`/`first_admin_link_created`. Nothing is
 * made for an account that has a password already or is no site administrator.
 *
 * @param store - The store.
 * @param input - The administrator, the site's address, the clock and the random source.
 * @returns The link to print, or `null` when none was made.
 * @example
 * ```ts
 * const link = await createFirstAdministratorLink(store, { userId: seeded.user.id, baseURL: url, now: Date.now, randomBytes });
 * // 'http://127.0.0.1:3080/.auth/first-admin?token=…'
 * ```
 */
export async function createFirstAdministratorLink(
  store: Store,
  input: { readonly userId: string; readonly baseURL: string; readonly now: () => number; readonly randomBytes: (n: number) => Uint8Array },
): Promise<string | null> {
  const made = await auditedTransaction(store, async (tx): Promise<Result<string, 'not_made'>> => {
    const user = await tx.accounts.get(input.userId);
    if (user === null || !user.siteAdmin || user.passwordHash !== null) return err('not_made');
    const created = await createAccountLink(tx, { purpose: 'first_admin', userId: user.id, email: null, ttlSeconds: FIRST_ADMIN_LINK_SECONDS, now: input.now(), randomBytes: input.randomBytes });
    if (created.isErr()) return err('not_made');
    await tx.audit.append({
      timestamp: input.now(),
      entity: 'user',
      action: 'first_admin_link_created',
      reason: 'first start',
      actorUserId: user.id,
      subjectUserId: user.id,
      details: {},
    });
    return ok(linkURL(input.baseURL, 'first_admin', created.value.token));
  });
  return made.unwrapOr(null);
}
