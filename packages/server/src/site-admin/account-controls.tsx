/**
 * Site administration, Users, one account: its controls (suspend or reinstate, end every session, revoke every
 * token), through `operations/account-controls.ts`, which the GraphQL mutations share (never the last active site
 * administrator: the core's `decideAccountControl`). The destructive controls ask first on a confirmation page;
 * reinstating, which only gives back, does not.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { match } from 'ts-pattern';
import type { AccountControl } from 'gatehouse-auth';
import { accountControlFailure, controlAccount } from '../operations/account-controls.js';
import { ConfirmForm, formatTime, PostForm } from '../pages/layout.js';
import { formRoute, pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext, PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { UserRecord } from '../store/types.js';
import { adminNav, idParam, missingPage } from './account-pages.js';

/** The confirmation page (`GET ?id=&control=`) and the form (`POST`) of an account control. */
export const USER_CONTROL_PATH = '/site-admin/users/control';
/** The Users page (the navigation's current entry). */
const USERS_PATH = '/site-admin/users';
/** One account's page. */
const USER_PATH = '/site-admin/users/user';

const userHref = (id: string): string => `${USER_PATH}?id=${encodeURIComponent(id)}`;

/**
 * The `?done=` code of each control's success and what the account's page says for it.
 *
 * @example
 * ```ts
 * ACCOUNT_CONTROL_NOTICES.suspended; // 'The account is suspended: …'
 * ```
 */
export const ACCOUNT_CONTROL_NOTICES: Readonly<Record<string, string>> = {
  suspended: 'The account is suspended: its sessions, access tokens and OAuth tokens are refused and it cannot sign in, until reinstated.',
  reinstated: 'The account is reinstated: everything it had works again.',
  sessions_ended: 'Every session of the account ended.',
  tokens_revoked: 'Every access token and OAuth token of the account was revoked.',
};

/** The `?done=` code of each control. */
const DONE: Readonly<Record<AccountControl, string>> = {
  suspend: 'suspended',
  reinstate: 'reinstated',
  end_sessions: 'sessions_ended',
  revoke_tokens: 'tokens_revoked',
};

const controlOf = (value: string | null): AccountControl | null =>
  value === 'suspend' || value === 'reinstate' || value === 'end_sessions' || value === 'revoke_tokens' ? value : null;

/** What a confirmation page says and its button, for a destructive control. */
function asked(control: Exclude<AccountControl, 'reinstate'>, user: UserRecord): { readonly title: string; readonly text: string; readonly button: string } {
  return match(control)
    .returnType<{ readonly title: string; readonly text: string; readonly button: string }>()
    .with('suspend', () => ({
      title: `Suspend ${user.username}?`,
      text: `Suspend ${user.username}? Their sessions, access tokens and OAuth tokens are refused at once, on every instance, and they cannot sign in by any provider until the account is reinstated. Nothing is deleted.`,
      button: 'Suspend account',
    }))
    .with('end_sessions', () => ({
      title: `End every session of ${user.username}?`,
      text: `End every browser session of ${user.username}? They are signed out everywhere and may sign in again.`,
      button: 'End all sessions',
    }))
    .with('revoke_tokens', () => ({
      title: `Revoke every token of ${user.username}?`,
      text: `Delete every access token and OAuth token of ${user.username}? Scripts and apps using them stop working at once; new ones must be made.`,
      button: 'Revoke all tokens',
    }))
    .exhaustive();
}

const controlHref = (user: UserRecord, control: AccountControl): string =>
  `${USER_CONTROL_PATH}?id=${encodeURIComponent(user.id)}&control=${control}`;

/**
 * The account's state and its controls, for its page under Site admin → Users.
 *
 * @param props - The account, the form token, and whether it is the viewer's own.
 * @returns The panel.
 *
 * @example
 * ```tsx
 * <AccountControls user={user} csrf={ctx.csrf} self={user.id === ctx.viewer.id} />
 * ```
 */
export function AccountControls(props: { readonly user: UserRecord; readonly csrf: string; readonly self: boolean }): ReactElement {
  const { user } = props;
  const suspendedAt = user.suspendedAt;
  return (
    <section className="panel" aria-labelledby="controls-heading">
      <h2 id="controls-heading">Account controls</h2>
      <dl className="facts">
        <dt>State</dt>
        <dd>
          {suspendedAt === undefined ? (
            <span className="badge ok">Active</span>
          ) : (
            <>
              <span className="badge">Suspended</span> since {formatTime(suspendedAt)}
            </>
          )}
        </dd>
      </dl>
      <p className="hint">
        {suspendedAt === undefined
          ? 'A suspended account keeps everything but has no way in: no session, token or sign-in works until it is reinstated.'
          : 'Reinstating gives back every session and token that has not expired, and sign-in.'}
        {props.self ? ' This is your own account.' : null}
      </p>
      <div className="actions">
        {suspendedAt === undefined ? (
          <a className="button danger" href={controlHref(user, 'suspend')}>
            Suspend account
          </a>
        ) : (
          <PostForm action={USER_CONTROL_PATH} csrf={props.csrf} label="Reinstate account">
            <input type="hidden" name="id" value={user.id} />
            <input type="hidden" name="control" value="reinstate" />
            <button type="submit">Reinstate account</button>
          </PostForm>
        )}
        <a className="button secondary" href={controlHref(user, 'end_sessions')}>
          End all sessions
        </a>
        <a className="button secondary" href={controlHref(user, 'revoke_tokens')}>
          Revoke all tokens
        </a>
      </div>
    </section>
  );
}

/** The confirmation page of a destructive control, with a notice when a post was refused. */
async function confirmation(
  deps: PageDeps,
  ctx: PageContext,
  userId: string | null,
  control: AccountControl | null,
  status: number,
  error: string | null,
): Promise<RouteResponse> {
  const user = userId === null ? null : await deps.store.accounts.get(userId);
  if (user === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
  if (control === null || control === 'reinstate') {
    return pageResponse(ctx, error === null ? 400 : status, {
      title: 'Account controls',
      nav: adminNav(USERS_PATH),
      notice: { kind: 'error', text: error ?? 'Choose an account control from the account page.' },
      children: (
        <p>
          <a href={userHref(user.id)}>{`Back to ${user.username}`}</a>
        </p>
      ),
    });
  }
  const page = asked(control, user);
  return pageResponse(ctx, status, {
    title: page.button,
    nav: adminNav(USERS_PATH),
    notice: error === null ? null : { kind: 'error', text: error },
    children: (
      <section className="panel" aria-labelledby="control-heading">
        <h2 id="control-heading">{page.title}</h2>
        <p>{page.text}</p>
        <ConfirmForm action={USER_CONTROL_PATH} csrf={ctx.csrf} label={page.button} fields={{ id: user.id, control }} button={page.button} cancelHref={userHref(user.id)} />
      </section>
    ),
  });
}

/**
 * The account control pages and form:
 * - `GET /site-admin/users/control?id=&control=suspend|end_sessions|revoke_tokens` asks;
 * - `POST /site-admin/users/control` (`id`, `control`, also `reinstate`) does it, then `303` to the account's page
 *   with `?done=` (see {@link ACCOUNT_CONTROL_NOTICES}); a refusal (the last active site administrator: `409`)
 *   shows the confirmation page again with why.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * const routes = [...usersRoutes(deps), ...accountControlRoutes(deps)];
 * ```
 */
export function accountControlRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, USER_CONTROL_PATH, 'site_admin', (ctx) => {
      const params = ctx.request.url.searchParams;
      return confirmation(deps, ctx, idParam(params, 'id'), controlOf(params.get('control')), 200, null);
    }),
    formRoute(deps, USER_CONTROL_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      const control = controlOf(form.get('control'));
      if (userId === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
      if (control === null) return confirmation(deps, ctx, userId, null, 400, null);
      const done = await controlAccount(deps, ctx.viewer, userId, control);
      if (done.isErr()) {
        const failure = accountControlFailure(done.error);
        if (failure.code === 'NOT_FOUND') return confirmation(deps, ctx, null, control, 404, null);
        return confirmation(deps, ctx, userId, control, failure.code === 'LAST_SITE_ADMIN' ? 409 : 500, failure.message);
      }
      // an administrator who ended their own sessions is signed out: the account page then asks them to sign in
      return redirectResponse(`${userHref(userId)}&done=${DONE[control]}`);
    }),
  ];
}
