/**
 * The site administrator's account operations, shared by the GraphQL mutations and the site administration
 * pages so that each rule and each audit entry exists once: create an account (spec §5.3 hosta rule 2) or a
 * service account (§1), grant or revoke site administration, delete an account. Granting, revoking and deleting
 * ask the core's `decideSiteAdminChange` inside one store transaction (never the last site administrator).
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { decideSiteAdminChange, validateUsername } from 'gatehouse-auth';
import type { SiteAdminChange, SiteAdminChangeError, UsernameError } from 'gatehouse-auth';
import type { AuditEvent, Store, StoreError, UserRecord } from '../store/types.js';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';

/**
 * What the operations need: the store, the clock and the audit sink (entries attributed to the acting admin).
 *
 * @example
 * ```ts
 * const deps: AdminOperationDeps = { store, now: () => Date.now(), audit };
 * ```
 */
export interface AdminOperationDeps {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** Records an audit entry (spec §6), in the change's transaction. */
  readonly audit: AuditSink;
}

/** The longest email address an administrator may enter (RFC 5321 §4.5.3.1.3 path limit less the brackets). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * Why an operation was refused; it changed nothing.
 *
 * @example
 * ```ts
 * const e: AdminOperationError = { code: 'last_site_admin' };
 * ```
 */
export type AdminOperationError =
  /** The username breaks spec §5.5 (rule 7: usernames chosen directly are checked, never normalized). */
  | { readonly code: 'invalid_username'; readonly problem: UsernameError }
  /** The email address is longer than {@link MAX_EMAIL_LENGTH} or is not of the form `local@domain`. */
  | { readonly code: 'invalid_email' }
  /** The change would leave the site without a site administrator. */
  | { readonly code: 'last_site_admin' }
  /** The core could not decide (the facts read were inconsistent). */
  | { readonly code: 'undecided'; readonly cause: SiteAdminChangeError }
  /** The store refused (the username is taken, the account is gone, …). */
  | { readonly code: 'store_refused'; readonly cause: StoreError };

/**
 * What {@link createAccount} creates.
 *
 * @example
 * ```ts
 * const input: NewAccountInput = { kind: 'user', username: 'carol', email: 'carol@example.com', verified: true };
 * ```
 */
export type NewAccountInput =
  /** A person's account created ahead of their first sign-in (spec §5.3 hosta rule 2; origin `admin_created`). */
  | { readonly kind: 'user'; readonly username: string; readonly email: string | null; readonly verified: boolean }
  /** A service account (spec §1): it authenticates with access tokens only (origin `service_account`). */
  | { readonly kind: 'service_account'; readonly username: string };

/** `local@domain` with no space: enough to catch a slip; a provider's verified email decides real matches. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/u;

/**
 * Creates an account as a site administrator: the username must pass the core's `validateUsername` (spec §5.5
 * rule 7). A person's account has origin `admin_created`, so a provider sign-in may later claim it (§5.3 hosta
 * rule 2); a service account has origin `service_account`. Audited `user`/`created`.
 *
 * @param deps - Store, clock and audit.
 * @param admin - The site administrator acting.
 * @param input - The account to create.
 * @returns The new account, or why nothing was created.
 *
 * @example
 * ```ts
 * await createAccount(deps, admin, { kind: 'service_account', username: 'ci-bot' }); // ok({ username: 'ci-bot', … })
 * await createAccount(deps, admin, { kind: 'service_account', username: '-bad' }); // err({ code: 'invalid_username', … })
 * ```
 */
export async function createAccount(deps: AdminOperationDeps, admin: UserRecord, input: NewAccountInput): Promise<Result<UserRecord, AdminOperationError>> {
  const username = validateUsername(input.username);
  if (username.isErr()) return err({ code: 'invalid_username', problem: username.error });
  const email = input.kind === 'user' && input.email !== null && input.email !== '' ? input.email : null;
  if (email !== null && (email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(email))) return err({ code: 'invalid_email' });
  const service = input.kind === 'service_account';
  const created = await auditedTransaction(deps.store, async (tx) => {
    const account = await tx.accounts.create({
      usernames: [username.value],
      origin: service ? 'service_account' : 'admin_created',
      siteAdmin: false,
      serviceAccount: service,
      emails: email === null || input.kind !== 'user' ? [] : [{ email, verified: input.verified }],
      passwordHash: null,
      createdAt: deps.now(),
    });
    if (account.isOk()) {
      const reason = service ? 'service account' : 'created by a site administrator';
      await deps.audit({ entity: 'user', action: 'created', reason, actorUserId: admin.id, subjectUserId: account.value.id, details: {} }, tx);
    }
    return account;
  });
  if (created.isErr()) return err({ code: 'store_refused', cause: created.error });
  return ok(created.value);
}

/** Reads the target and the count, asks the core, and (when allowed) writes and audits: all in one transaction. */
async function changeWithin(
  deps: AdminOperationDeps,
  userId: string,
  change: SiteAdminChange,
  write: (tx: Store, target: UserRecord) => Promise<Result<UserRecord, StoreError>>,
  audited: (changed: UserRecord) => AuditEvent,
): Promise<Result<UserRecord, AdminOperationError>> {
  return auditedTransaction(deps.store, async (tx): Promise<Result<UserRecord, AdminOperationError>> => {
    const target = await tx.accounts.get(userId);
    if (target === null) return err({ code: 'store_refused', cause: { code: 'unknown_user', userId } });
    // a suspended site administrator administers nothing: the rule counts the active ones
    const decision = decideSiteAdminChange({
      change,
      target: { siteAdmin: target.siteAdmin && target.suspendedAt === undefined },
      siteAdminCount: await tx.accounts.countActiveSiteAdmins(),
    });
    if (decision.isErr()) return err({ code: 'undecided', cause: decision.error });
    if (decision.value.kind === 'deny') return err({ code: decision.value.reason });
    const written = await write(tx, target);
    if (written.isErr()) return err({ code: 'store_refused', cause: written.error });
    await deps.audit(audited(written.value), tx);
    return ok(written.value);
  });
}

/**
 * Grants or revokes site administration; revoking the last site administrator is refused (`last_site_admin`).
 * Audited `user`/`site_admin_granted` or `user`/`site_admin_revoked`.
 *
 * @param deps - Store, clock and audit.
 * @param admin - The site administrator acting.
 * @param userId - Whose role changes.
 * @param siteAdmin - The new value.
 * @returns The updated account, or why nothing changed.
 *
 * @example
 * ```ts
 * await setSiteAdmin(deps, root, root.id, false); // err({ code: 'last_site_admin' }) when root is the only one
 * ```
 */
export async function setSiteAdmin(
  deps: AdminOperationDeps,
  admin: UserRecord,
  userId: string,
  siteAdmin: boolean,
): Promise<Result<UserRecord, AdminOperationError>> {
  return changeWithin(
    deps,
    userId,
    siteAdmin ? 'grant' : 'revoke',
    (tx) => tx.accounts.setSiteAdmin(userId, siteAdmin),
    (updated) => ({
      entity: 'user',
      action: siteAdmin ? 'site_admin_granted' : 'site_admin_revoked',
      reason: null,
      actorUserId: admin.id,
      subjectUserId: updated.id,
      details: {},
    }),
  );
}

/**
 * Deletes an account with its emails, links, access tokens, sessions and OAuth tokens; deleting the last site
 * administrator is refused (`last_site_admin`). Audited `user`/`deleted` with the username.
 *
 * @param deps - Store, clock and audit.
 * @param admin - The site administrator acting (may be the account deleted).
 * @param userId - The account to delete.
 * @returns The deleted account, or why nothing changed.
 *
 * @example
 * ```ts
 * await deleteAccount(deps, root, alice.id); // ok(alice)
 * ```
 */
export async function deleteAccount(deps: AdminOperationDeps, admin: UserRecord, userId: string): Promise<Result<UserRecord, AdminOperationError>> {
  return changeWithin(
    deps,
    userId,
    'delete',
    (tx) => tx.accounts.delete(userId),
    (deleted) => ({ entity: 'user', action: 'deleted', reason: null, actorUserId: admin.id, subjectUserId: deleted.id, details: { username: deleted.username } }),
  );
}
