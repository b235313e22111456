/**
 * The profile page (`/settings`): the account's username, which its owner may change within the rules of spec
 * §5.5 (rule 7: a username chosen directly that breaks the rules is rejected), and its email addresses with
 * their verified state.
 *
 * @module
 */
import { match } from 'ts-pattern';
import { decideUsernameChange, decideUsernameChangeOption, USERNAME_MAX_LENGTH, validateUsername, type UsernameError } from 'gatehouse-auth';
import { Field, formatTime, PostForm, type PageNotice } from '../pages/layout.js';
import { doneNotice, formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { UserRecord } from '../store/types.js';
import { settingsNav } from './common.js';
import { EMAIL_DONE, EmailsPanel } from './emails.js';
import { auditedTransaction } from '../store/audited.js';

/** The profile page's path; its username form posts to the same path. */
export const PROFILE_PATH = '/settings';

/** The notices after the username form redirected back. */
const DONE: Readonly<Record<string, string>> = { username: 'Your username was changed.', unchanged: 'Your username is unchanged.' };

/**
 * The message for a username the rules of §5.5 refuse (rule 7).
 *
 * @param error - Why `validateUsername` refused it.
 * @returns What the person reads.
 */
function usernameMessage(error: UsernameError): string {
  return match(error)
    .returnType<string>()
    .with({ code: 'empty_username' }, () => 'Enter a username.')
    .with({ code: 'too_long' }, (e) => `Usernames have at most ${e.maxLength} characters.`)
    .with({ code: 'invalid_username', reason: 'contains_at' }, () => 'Usernames cannot contain "@" (enter a name, not an email address).')
    .with({ code: 'invalid_username', reason: 'invalid_character' }, () => 'Usernames use only letters (A–Z, a–z), digits, "-", "." and "_".')
    .with({ code: 'invalid_username', reason: 'leading_separator' }, () => 'Usernames cannot start with "-" or ".".')
    .with({ code: 'invalid_username', reason: 'consecutive_separators' }, () => 'Usernames cannot have "-" or "." twice in a row.')
    .with({ code: 'invalid_username', reason: 'trailing_dot' }, () => 'Usernames cannot end with ".".')
    .otherwise(() => 'That username is not allowed.');
}

/**
 * Why this account may not rename itself, or `null` when it may: the site option `auth.enableUsernameChanges`
 * (the core's `decideUsernameChangeOption`: off by default, site administrators always may), then the account's
 * own rule (`decideUsernameChange`).
 */
function renameRefusal(user: UserRecord, enableUsernameChanges: boolean): string | null {
  const byOption = decideUsernameChangeOption({ enableUsernameChanges, actorSiteAdmin: user.siteAdmin });
  if (byOption.isErr() || byOption.value.kind === 'refuse') {
    return 'Usernames cannot be changed on this site (auth.enableUsernameChanges is off). Ask a site administrator.';
  }
  const decided = decideUsernameChange({ origin: user.origin });
  const decision = decided.isOk() ? decided.value : null;
  if (decision !== null && decision.kind === 'allow') return null;
  return decision !== null && decision.reason === 'service_account'
    ? 'A service account is renamed by site administrators only.'
    : 'A site administrator created this account under this username, and a sign-in through a code host finds the account by it, so it cannot be changed here. Ask a site administrator.';
}

/** The profile page: the username form (with `username` as typed) and the email addresses. */
/** A page context with whether mail is on (the email panel says when it is off). */
type ProfileContext = PageContext & { readonly mailOn: boolean };

const withMail = (deps: PageDeps, ctx: PageContext): ProfileContext => ({ ...ctx, mailOn: deps.configuration.email.smtp !== null });

function profilePage(deps: PageDeps, ctx: ProfileContext, status: number, notice: PageNotice | null, username: string): RouteResponse {
  const user = ctx.viewer;
  const refusal = renameRefusal(user, deps.configuration.accountOptions.enableUsernameChanges);
  return pageResponse(ctx, status, {
    title: 'Profile',
    nav: settingsNav(PROFILE_PATH),
    notice,
    children: (
      <>
        <section className="panel" aria-labelledby="profile-username">
          <h2 id="profile-username">Username</h2>
          {refusal === null ? (
          <PostForm action={PROFILE_PATH} csrf={ctx.csrf} label="Change username">
              <Field
                id="username"
                name="username"
                label="Username"
                value={username}
                required
                maxLength={USERNAME_MAX_LENGTH}
                autoComplete="username"
                hint={'Letters, digits, "-", "." and "_"; not starting with "-" or ".", not ending with ".". Sign in with the new name afterwards.'}
              />
              <div className="actions">
                <button type="submit">Change username</button>
              </div>
            </PostForm>
          ) : (
            <p>
              <strong>{user.username}</strong> <span className="muted">— {refusal}</span>
            </p>
          )}
        </section>
        <EmailsPanel user={user} csrf={ctx.csrf} mailOn={ctx.mailOn} />
        <section className="panel" aria-labelledby="profile-account">
          <h2 id="profile-account">Account</h2>
          <dl className="facts">
            <dt>Created</dt>
            <dd>{formatTime(user.createdAt)}</dd>
            <dt>Role</dt>
            <dd>{user.siteAdmin ? <span className="badge admin">Site admin</span> : 'Member'}</dd>
          </dl>
        </section>
      </>
    ),
  });
}

/** Changes the username: validated by §5.5 rule 7, unique by the store's `usernameKey` rule, audited. */
async function changeUsername(deps: PageDeps, ctx: ProfileContext, form: URLSearchParams): Promise<RouteResponse> {
  const typed = form.get('username') ?? '';
  const user = ctx.viewer;
  // §5.3 hosta rule 2, §5.4 rule 5: an account a provider's username may claim keeps the name it was given
  const refusal = renameRefusal(user, deps.configuration.accountOptions.enableUsernameChanges);
  if (refusal !== null) return profilePage(deps, ctx, 403, { kind: 'error', text: refusal }, typed);
  const valid = validateUsername(typed);
  if (valid.isErr()) return profilePage(deps, ctx, 400, { kind: 'error', text: usernameMessage(valid.error) }, typed);
  if (valid.value === user.username) return redirectResponse(`${PROFILE_PATH}?done=unchanged`);
  // the new name is kept only with its audit entry
  const renamed = await auditedTransaction(deps.store, async (tx) => {
    const changed = await tx.accounts.setUsername(user.id, valid.value);
    if (changed.isOk()) {
      const details = { from: user.username, to: changed.value.username };
      await deps.audit({ entity: 'user', action: 'username_changed', reason: null, actorUserId: user.id, subjectUserId: user.id, details }, tx);
    }
    return changed;
  });
  if (renamed.isErr()) {
    const text = renamed.error.code === 'username_taken' ? 'That username is taken. Choose another.' : 'Your username could not be changed. Try again.';
    return profilePage(deps, ctx, 409, { kind: 'error', text }, typed);
  }
  return redirectResponse(`${PROFILE_PATH}?done=username`);
}

/**
 * The profile page's routes: `GET /settings` and the username form, `POST /settings`.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * profileRoutes(deps).map((r) => `${r.methods.join()} ${r.path}`); // ['GET /settings', 'POST /settings']
 * ```
 */
export function profileRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, PROFILE_PATH, 'signed_in', async (ctx) => profilePage(deps, withMail(deps, ctx), 200, doneNotice(ctx.request, { ...DONE, ...EMAIL_DONE }), ctx.viewer.username)),
    formRoute(deps, PROFILE_PATH, 'signed_in', (ctx, form) => changeUsername(deps, withMail(deps, ctx), form)),
  ];
}
