/**
 * Site administration, Users, one account's sign-in state: whether it is locked after failed password sign-ins
 * (the site option `auth.lockout`) with an Unlock button, and a button that makes a password reset link, shown to
 * copy (and mailed when mail is on). Service accounts have no password, so no reset link. The operations are the
 * ones the GraphQL mutations `unlockUser` and `createPasswordResetLink` run, each audited.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { accountLockStatus, unlockAccount } from '../operations/lockout.js';
import type { PasswordResetLinkMaker } from '../operations/password-reset.js';
import { failureStatus } from '../operations/failure.js';
import { formatTime, PostForm } from '../pages/layout.js';
import { pageResponse } from '../pages/page-routes.js';
import { formRoute } from '../pages/page-routes.js';
import type { PageContext, PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { UserRecord } from '../store/types.js';
import { adminNav, idParam, missingPage } from './account-pages.js';

/** The form that unlocks an account (`id`). */
export const USER_UNLOCK_PATH = '/site-admin/users/unlock';
/** The form that makes a password reset link for an account (`id`). */
export const USER_RESET_LINK_PATH = '/site-admin/users/reset-link';
/** The Users page and one account's page (the users module owns them). */
const USERS_PATH = '/site-admin/users';
const USER_PATH = '/site-admin/users/user';

/** What these forms need besides the pages' common dependencies. */
export interface AccountLifecycleAdminDeps extends PageDeps {
  /** Makes a password reset link as a site administrator; absent: the button says links are not available. */
  readonly passwordResetLink?: PasswordResetLinkMaker;
}

/** The account's "Sign-in" panel: its lock, Unlock, and Make a password reset link. */
function SignInPanel(props: { readonly user: UserRecord; readonly csrf: string; readonly lockedUntil: number | null }): ReactElement {
  const { user, csrf, lockedUntil } = props;
  return (
    <section className="panel" aria-labelledby="sign-in-state-heading">
      <h2 id="sign-in-state-heading">Sign-in</h2>
      <dl className="facts">
        <dt>Locked</dt>
        <dd>
          {lockedUntil === null ? 'No' : <><span className="badge">Locked</span> {`until ${formatTime(lockedUntil)}, after too many failed password sign-ins`}</>}
        </dd>
      </dl>
      {lockedUntil === null ? null : (
        <PostForm action={USER_UNLOCK_PATH} csrf={csrf} label="Unlock the account">
          <input type="hidden" name="id" value={user.id} />
          <div className="actions">
            <button type="submit">Unlock account</button>
          </div>
        </PostForm>
      )}
      {user.serviceAccount ? (
        <p className="hint">A service account has no password, so it gets no password reset link.</p>
      ) : (
        <PostForm action={USER_RESET_LINK_PATH} csrf={csrf} label="Password reset link">
          <input type="hidden" name="id" value={user.id} />
          <p className="hint">A single-use link that sets a new password and ends the account's sessions. It is shown to you to copy, and mailed to the account when mail is on.</p>
          <div className="actions">
            <button type="submit" className="secondary">Make a password reset link</button>
          </div>
        </PostForm>
      )}
    </section>
  );
}

/**
 * The "Sign-in" panel of one account's page.
 *
 * @param deps - The pages' dependencies.
 * @param ctx - The page's context.
 * @param user - The account shown.
 * @returns The panel.
 * @example
 * ```ts
 * children: [..., await signInStatePanel(deps, ctx, user)]
 * ```
 */
export async function signInStatePanel(deps: PageDeps, ctx: PageContext, user: UserRecord): Promise<ReactElement> {
  const lock = await accountLockStatus(deps, user.id);
  return <SignInPanel key="sign-in-state" user={user} csrf={ctx.csrf} lockedUntil={lock.kind === 'locked' ? lock.lockedUntil : null} />;
}

/** The page that shows a reset link made just now, to copy. */
function resetLinkPage(ctx: PageContext, user: UserRecord, url: string, emailSent: boolean, mailOn: boolean): RouteResponse {
  return pageResponse(ctx, 200, {
    title: 'Password reset link',
    nav: adminNav(USERS_PATH),
    notice: { kind: 'ok', text: emailSent ? `A password reset link for ${user.username} was made and mailed to the account.` : `A password reset link for ${user.username} was made.` },
    children: (
      <section className="panel" aria-labelledby="reset-link-heading">
        <h2 id="reset-link-heading">{`Password reset link for ${user.username}`}</h2>
        {mailOn ? null : <p className="notice info">Mail is off on this site (no email.smtp): give the link to the account's owner yourself.</p>}
        <label htmlFor="reset-link">Copy this link; it works once, and is not shown again</label>
        <input id="reset-link" className="mono" readOnly value={url} />
        <p>
          <a href={`${USER_PATH}?id=${encodeURIComponent(user.id)}`}>{`Back to ${user.username}`}</a>
        </p>
      </section>
    ),
  });
}

/**
 * The forms of the "Sign-in" panel:
 * - `POST /site-admin/users/unlock` (`id`): unlocks the account, then `303` to its page with `?done=unlocked`;
 * - `POST /site-admin/users/reset-link` (`id`): makes a password reset link and shows it (mailed when mail is on).
 *
 * @param deps - The pages' dependencies and the reset link maker.
 * @returns The routes.
 * @example
 * ```ts
 * const routes = [...usersRoutes(deps), ...accountLifecycleAdminRoutes(deps)];
 * ```
 */
export function accountLifecycleAdminRoutes(deps: AccountLifecycleAdminDeps): readonly Route[] {
  const refused = (ctx: PageContext, status: number, text: string): RouteResponse =>
    pageResponse(ctx, status, { title: 'Users', nav: adminNav(USERS_PATH), notice: { kind: 'error', text }, children: <p><a href={USERS_PATH}>Back to users</a></p> });
  return [
    formRoute(deps, USER_UNLOCK_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      if (userId === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
      const unlocked = await unlockAccount(deps, { kind: 'site_admin', admin: ctx.viewer }, userId);
      if (unlocked.isErr()) return refused(ctx, failureStatus(unlocked.error), unlocked.error.message);
      return redirectResponse(`${USER_PATH}?id=${encodeURIComponent(userId)}&done=unlocked`);
    }),
    formRoute(deps, USER_RESET_LINK_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      const user = userId === null ? null : await deps.store.accounts.get(userId);
      if (user === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
      if (deps.passwordResetLink === undefined) return refused(ctx, 503, 'Password reset links are not available on this server.');
      const made = await deps.passwordResetLink(ctx.viewer, user.id, deps.audit);
      if (made.isErr()) return refused(ctx, failureStatus(made.error), made.error.message);
      return resetLinkPage(ctx, user, made.value.url, made.value.emailSent, made.value.mailOn);
    }),
  ];
}
