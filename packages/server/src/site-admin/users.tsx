/**
 * Site administration, Users (spec §1, §5.3 hosta rule 2, §5.5 rule 7): every account with search and keyset
 * pagination, creating an account ahead of its first sign-in, one account's facts and linked identities, granting
 * and revoking site administration and deleting an account (never the last site administrator: the core's
 * `decideSiteAdminChange`, through `admin-operations.ts`, which the GraphQL mutations share).
 *
 * @module
 */
import type { ReactElement } from 'react';
import { match } from 'ts-pattern';
import type { AccountOrigin } from 'gatehouse-auth';
import { USERNAME_MAX_LENGTH } from 'gatehouse-auth';
import { createAccount, deleteAccount, MAX_EMAIL_LENGTH, setSiteAdmin } from '../operations/accounts.js';
import { ConfirmForm, Field, formatTime, PostForm } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { DataTable } from '../pages/table.js';
import { doneNotice, formRoute, pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext, PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { ExternalAccountRecord, UserRecord } from '../store/types.js';
import { adminNav, idParam, missingPage, operationRefusal } from './account-pages.js';
import { VerificationLinksPanel } from './verification-links.js';
import { signInStatePanel, USER_UNLOCK_PATH } from './account-lifecycle.js';
import { ACCOUNT_CONTROL_NOTICES, AccountControls } from './account-controls.js';

/** The Users page. */
export const USERS_PATH = '/site-admin/users';
/** One account's page (`?id=`). */
export const USER_PATH = '/site-admin/users/user';
/** The form that grants or revokes site administration. */
export const USER_SITE_ADMIN_PATH = '/site-admin/users/site-admin';
/** The confirmation page (`GET ?id=`) and the form (`POST`) that delete an account. */
export const USER_DELETE_PATH = '/site-admin/users/delete';
/** The service account tokens page (the service accounts module owns it; linked from a service account's page). */
const SERVICE_ACCOUNT_TOKENS_PATH = '/site-admin/service-accounts/tokens';
/** Where a person goes after deleting their own account. */
const SIGN_IN_PATH = '/.auth/sign-in';

/** Accounts per page of the Users table. */
export const USERS_PAGE_SIZE = 25;
/** The longest search the Users page takes. */
const MAX_QUERY_LENGTH = 100;

/** The link to an account's page. */
const userHref = (id: string): string => `${USER_PATH}?id=${encodeURIComponent(id)}`;

/** The Users page's address with a search and a cursor. */
function usersHref(q: string, after: string | null): string {
  const params = new URLSearchParams();
  if (q !== '') params.set('q', q);
  if (after !== null) params.set('after', after);
  const query = params.toString();
  return query === '' ? USERS_PATH : `${USERS_PATH}?${query}`;
}

/** What the create form shows: what the person typed, or the defaults. */
interface CreateValues {
  readonly username: string;
  readonly email: string;
  readonly verified: boolean;
}

const EMPTY_CREATE: CreateValues = { username: '', email: '', verified: true };

/** What a person reads about an account's origin. */
function originText(origin: AccountOrigin): string {
  return match(origin)
    .returnType<string>()
    .with('admin_created', () => 'Created by a site administrator')
    .with('password_signup', () => 'Signed up with a password')
    .with('provider_signup', () => 'Signed up through an authentication provider')
    .with('service_account', () => 'Service account')
    .with('seeded', () => 'Created when the server first started')
    .exhaustive();
}

/** The Site admin and Service account badges of an account, and its Suspended and Locked states. */
function Badges(props: { readonly user: UserRecord; readonly lockedUntil?: number | undefined }): ReactElement {
  return (
    <>
      {props.user.siteAdmin ? <span className="badge admin">Site admin</span> : null}
      {props.user.siteAdmin && props.user.serviceAccount ? ' ' : null}
      {props.user.serviceAccount ? <span className="badge">Service account</span> : null}
      {props.user.suspendedAt === undefined ? null : <> <span className="badge">Suspended</span></>}
      {props.lockedUntil === undefined ? null : <> <span className="badge">Locked</span> <span className="muted">{`until ${formatTime(props.lockedUntil)}`}</span></>}
    </>
  );
}

/** The Unlock button of a locked account's row (the account's page has it too). */
function UnlockForm(props: { readonly user: UserRecord; readonly csrf: string }): ReactElement {
  return (
    <PostForm action={USER_UNLOCK_PATH} csrf={props.csrf} className="inline" label={`Unlock ${props.user.username}`}>
      <input type="hidden" name="id" value={props.user.id} />
      <button type="submit" className="secondary">Unlock</button>
    </PostForm>
  );
}

/** The search form, the table and the pager. */
function UsersTable(props: {
  readonly q: string;
  readonly after: string | null;
  readonly users: readonly UserRecord[];
  readonly next: string | null;
  readonly locked: ReadonlyMap<string, number>;
  readonly csrf: string;
}): ReactElement {
  const { q, after, users, next, locked } = props;
  return (
    <section className="panel" aria-labelledby="users-heading">
      <h2 id="users-heading">Accounts</h2>
      <form method="get" action={USERS_PATH} className="filters" role="search" aria-label="Search users">
        <div>
          <label htmlFor="users-q">Search users</label>
          <input id="users-q" name="q" type="search" defaultValue={q} maxLength={MAX_QUERY_LENGTH} />
        </div>
        <div>
          <button type="submit">Search</button>
        </div>
      </form>
      <DataTable
        columns={['Username', 'Emails', 'Role and state', 'Created']}
        rows={users}
        rowKey={(user) => user.id}
        className="admin-table"
        empty={q === '' ? 'No accounts on this page.' : 'No account\'s username contains the search text.'}
        row={(user) => (
          <>
            <td>
              <a href={userHref(user.id)}>{user.username}</a>
            </td>
            <td>{user.emails.length === 0 ? <span className="muted">none</span> : user.emails.map((e) => e.email).join(', ')}</td>
            <td>
              <Badges user={user} lockedUntil={locked.get(user.id)} />
              {locked.has(user.id) ? <> <UnlockForm user={user} csrf={props.csrf} /></> : null}
            </td>
            <td>{formatTime(user.createdAt)}</td>
          </>
        )}
      />
      {after === null && next === null ? null : (
        <nav className="pager" aria-label="Pages of accounts">
          {after === null ? null : <a href={usersHref(q, null)}>First page</a>}
          {next === null ? null : <a href={usersHref(q, next)}>Next page</a>}
        </nav>
      )}
    </section>
  );
}

/** The "Create an account" form. */
function CreateAccountForm(props: { readonly csrf: string; readonly values: CreateValues }): ReactElement {
  const { values } = props;
  return (
    <section className="panel" aria-labelledby="create-heading">
      <h2 id="create-heading">Create an account</h2>
      <p className="hint">
        Create an account for someone before they first sign in. Where sign-up through an authentication provider is closed, a
        person can sign in only to an account a site administrator created first.
      </p>
      <PostForm action={USERS_PATH} csrf={props.csrf} label="Create an account">
        <Field
          id="create-username"
          name="username"
          label="Username"
          value={values.username}
          required
          maxLength={USERNAME_MAX_LENGTH}
          autoComplete="off"
          hint='Letters, digits, "-", "." and "_"; not starting with "." or "-".'
        />
        <Field id="create-email" name="email" label="Email (optional)" type="email" value={values.email} maxLength={MAX_EMAIL_LENGTH} autoComplete="off" />
        <label>
          <input type="checkbox" name="verified" value="true" defaultChecked={values.verified} /> Mark the email as verified
        </label>
        <div className="actions">
          <button type="submit">Create account</button>
        </div>
      </PostForm>
    </section>
  );
}

/** The Users page: the table for `q` and `after`, the create form, and a notice. */
async function usersPage(
  deps: PageDeps,
  ctx: PageContext,
  status: number,
  notice: PageNotice | null,
  values: CreateValues,
): Promise<RouteResponse> {
  const params = ctx.request.url.searchParams;
  const q = (params.get('q') ?? '').trim();
  const cursor = idParam(params, 'after');
  const refusal: PageNotice | null =
    q.length > MAX_QUERY_LENGTH
      ? { kind: 'error', text: `A search is at most ${MAX_QUERY_LENGTH} characters long.` }
      : (params.get('after') ?? '') !== '' && cursor === null
        ? { kind: 'error', text: 'That page link is not valid: start from the first page.' }
        : null;
  const page =
    refusal !== null
      ? []
      : await deps.store.accounts.list({ first: USERS_PAGE_SIZE + 1, ...(cursor === null ? {} : { after: cursor }), ...(q === '' ? {} : { query: q }) });
  const users = page.slice(0, USERS_PAGE_SIZE);
  const next = page.length > USERS_PAGE_SIZE ? (users[users.length - 1]?.id ?? null) : null;
  // the page's locked accounts, in one read (auth.lockout)
  const locked = await deps.store.lockouts.lockedUntil(users.map((u) => u.id), deps.now());
  return pageResponse(ctx, refusal === null ? status : 400, {
    title: 'Users',
    nav: adminNav(USERS_PATH),
    notice: refusal ?? notice,
    children: [
      <UsersTable key="table" q={refusal === null ? q : ''} after={cursor} users={users} next={next} locked={locked} csrf={ctx.csrf} />,
      <CreateAccountForm key="create" csrf={ctx.csrf} values={values} />,
    ],
  });
}

/** One account's facts. */
function Facts(props: { readonly user: UserRecord; readonly tokens: number; readonly sessions: number }): ReactElement {
  const { user } = props;
  return (
    <section className="panel" aria-labelledby="facts-heading">
      <h2 id="facts-heading">Account</h2>
      <dl className="facts">
        <dt>Username</dt>
        <dd>{user.username}</dd>
        <dt>ID</dt>
        <dd className="mono">{user.id}</dd>
        <dt>Origin</dt>
        <dd>{originText(user.origin)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(user.createdAt)}</dd>
        <dt>Emails</dt>
        <dd>
          {user.emails.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <ul>
              {user.emails.map((e) => (
                <li key={e.email}>
                  {e.email} {e.verified ? <span className="badge ok">verified</span> : <span className="badge">not verified</span>}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Site administrator</dt>
        <dd>{user.siteAdmin ? 'Yes' : 'No'}</dd>
        <dt>Service account</dt>
        <dd>
          {user.serviceAccount ? (
            <>
              Yes (<a href={`${SERVICE_ACCOUNT_TOKENS_PATH}?id=${encodeURIComponent(user.id)}`}>manage its access tokens</a>)
            </>
          ) : (
            'No'
          )}
        </dd>
        <dt>Access tokens</dt>
        <dd>{props.tokens}</dd>
        <dt>Sessions</dt>
        <dd>{props.sessions}</dd>
      </dl>
    </section>
  );
}

/** The identities linked to an account (spec §5.4). */
function LinkedIdentities(props: { readonly links: readonly ExternalAccountRecord[] }): ReactElement {
  return (
    <section className="panel" aria-labelledby="links-heading">
      <h2 id="links-heading">Linked identities</h2>
      <DataTable
        columns={['Service type', 'Service ID', 'Account ID', 'Linked at']}
        rows={props.links}
        rowKey={(link) => `${link.serviceType} ${link.serviceId} ${link.accountId}`}
        className="admin-table"
        scrollLabel="Table of linked identities"
        empty="No identity at an authentication provider is linked to this account."
        row={(link) => (
          <>
            <td>{link.serviceType}</td>
            <td className="mono">{link.serviceId}</td>
            <td className="mono">{link.accountId}</td>
            <td>{formatTime(link.createdAt)}</td>
          </>
        )}
      />
    </section>
  );
}

/** The role form and the link to the delete confirmation. */
function Manage(props: { readonly user: UserRecord; readonly csrf: string; readonly self: boolean }): ReactElement {
  const { user } = props;
  return (
    <section className="panel" aria-labelledby="manage-heading">
      <h2 id="manage-heading">Manage</h2>
      <PostForm action={USER_SITE_ADMIN_PATH} csrf={props.csrf} label="Site administration">
        <input type="hidden" name="id" value={user.id} />
        <input type="hidden" name="siteAdmin" value={user.siteAdmin ? 'false' : 'true'} />
        <p className="hint">
          {user.siteAdmin
            ? props.self
              ? 'You are a site administrator. Removing the role takes effect at once; the site always keeps at least one.'
              : 'Site administrators manage accounts, OAuth apps and the site configuration. The site always keeps at least one.'
            : 'Site administrators manage accounts, OAuth apps and the site configuration, and may create "site-admin:sudo" tokens.'}
        </p>
        <div className="actions">
          <button type="submit" className={user.siteAdmin ? 'secondary' : undefined}>
            {user.siteAdmin ? 'Remove site administrator' : 'Make site administrator'}
          </button>
        </div>
      </PostForm>
      <div className="actions">
        <a className="button danger" href={`${USER_DELETE_PATH}?id=${encodeURIComponent(user.id)}`}>
          Delete user
        </a>
      </div>
    </section>
  );
}

/** One account's page (or 404), with a status and notice. */
async function userPage(deps: PageDeps, ctx: PageContext, userId: string | null, status: number, notice: PageNotice | null): Promise<RouteResponse> {
  const user = userId === null ? null : await deps.store.accounts.get(userId);
  if (user === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
  const [links, tokens, sessions] = await Promise.all([
    deps.store.accounts.links(user.id),
    deps.store.accessTokens.count(user.id),
    deps.store.sessions.list(user.id),
  ]);
  const now = deps.now();
  return pageResponse(ctx, status, {
    title: user.username,
    nav: adminNav(USERS_PATH),
    notice,
    children: [
      <p key="back">
        <a href={USERS_PATH}>All users</a>
      </p>,
      <Facts key="facts" user={user} tokens={tokens} sessions={sessions.filter((s) => s.expiresAt > now).length} />,
      <LinkedIdentities key="links" links={links} />,
      <VerificationLinksPanel key="verification" user={user} csrf={ctx.csrf} mailOn={deps.configuration.email.smtp !== null} />,
      <AccountControls key="controls" user={user} csrf={ctx.csrf} self={user.id === ctx.viewer.id} />,
      <Manage key="manage" user={user} csrf={ctx.csrf} self={user.id === ctx.viewer.id} />,
      await signInStatePanel(deps, ctx, user),
    ],
  });
}

/** The delete confirmation page. */
async function deleteConfirmation(deps: PageDeps, ctx: PageContext): Promise<RouteResponse> {
  const user = await idOrNull(deps, idParam(ctx.request.url.searchParams, 'id'));
  if (user === null) return missingPage(ctx, USERS_PATH, 'No such user: it may have been deleted.', { href: USERS_PATH, label: 'Back to users' });
  const self = user.id === ctx.viewer.id;
  return pageResponse(ctx, 200, {
    title: 'Delete user',
    nav: adminNav(USERS_PATH),
    children: (
      <section className="panel" aria-labelledby="delete-heading">
        <h2 id="delete-heading">{`Delete ${user.username}?`}</h2>
        <p>{`Delete ${user.username}? Their access tokens, sessions and OAuth tokens are deleted with the account.`}</p>
        {self ? <p className="notice info">This is your own account: you will be signed out.</p> : null}
        <ConfirmForm action={USER_DELETE_PATH} csrf={ctx.csrf} label={`Delete ${user.username}`} fields={{ id: user.id }} button="Delete user" cancelHref={userHref(user.id)} />
      </section>
    ),
  });
}

/** The account with this id, or `null`. */
async function idOrNull(deps: PageDeps, id: string | null): Promise<UserRecord | null> {
  return id === null ? null : deps.store.accounts.get(id);
}

/**
 * The Users pages and forms:
 * - `GET /site-admin/users?q=&after=`: search (`q`), 25 accounts a page oldest first (`after`: the last id of the
 *   previous page), and the "Create an account" form;
 * - `POST /site-admin/users` (`username`, `email`, `verified`): creates an `admin_created` account, then `303` to
 *   its page with `?done=created`;
 * - `GET /site-admin/users/user?id=`: the account's facts, linked identities, role form and delete link;
 * - `POST /site-admin/users/site-admin` (`id`, `siteAdmin=true|false`): grants or revokes site administration;
 * - `GET /site-admin/users/delete?id=` asks, `POST` (`id`) deletes.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * const routes = [...usersRoutes(deps), ...serviceAccountRoutes(deps)];
 * ```
 */
export function usersRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, USERS_PATH, 'site_admin', (ctx) =>
      usersPage(deps, ctx, 200, doneNotice(ctx.request, { deleted: 'The account was deleted, with its access tokens, sessions and OAuth tokens.' }), EMPTY_CREATE),
    ),
    formRoute(deps, USERS_PATH, 'site_admin', async (ctx, form) => {
      const values: CreateValues = {
        username: (form.get('username') ?? '').trim(),
        email: (form.get('email') ?? '').trim(),
        verified: form.get('verified') === 'true',
      };
      const created = await createAccount(deps, ctx.viewer, {
        kind: 'user',
        username: values.username,
        email: values.email === '' ? null : values.email,
        verified: values.verified,
      });
      if (created.isErr()) {
        const refused = operationRefusal(created.error);
        return usersPage(deps, ctx, refused.status, { kind: 'error', text: refused.text }, values);
      }
      return redirectResponse(`${userHref(created.value.id)}&done=created`);
    }),
    pageRoute(deps, USER_PATH, 'site_admin', async (ctx) => {
      const user = await idOrNull(deps, idParam(ctx.request.url.searchParams, 'id'));
      const name = user?.username ?? '';
      const notice = doneNotice(ctx.request, {
        created: `The account ${name} was created.`,
        granted: `${name} is now a site administrator.`,
        revoked: `${name} is no longer a site administrator.`,
        unlocked: `${name} is unlocked.`,
        ...ACCOUNT_CONTROL_NOTICES,
      });
      return userPage(deps, ctx, user?.id ?? null, 200, notice);
    }),
    formRoute(deps, USER_SITE_ADMIN_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      const value = form.get('siteAdmin');
      if (value !== 'true' && value !== 'false') {
        return userPage(deps, ctx, userId, 400, { kind: 'error', text: 'Choose whether the account is a site administrator.' });
      }
      const siteAdmin = value === 'true';
      const updated = userId === null ? null : await setSiteAdmin(deps, ctx.viewer, userId, siteAdmin);
      if (updated === null) return userPage(deps, ctx, null, 404, null);
      if (updated.isErr()) {
        const refused = operationRefusal(updated.error);
        return userPage(deps, ctx, userId, refused.status, { kind: 'error', text: refused.text });
      }
      // A site administrator who removed their own role may no longer open these pages.
      if (!siteAdmin && updated.value.id === ctx.viewer.id) return redirectResponse('/settings');
      return redirectResponse(`${userHref(updated.value.id)}&done=${siteAdmin ? 'granted' : 'revoked'}`);
    }),
    pageRoute(deps, USER_DELETE_PATH, 'site_admin', (ctx) => deleteConfirmation(deps, ctx)),
    formRoute(deps, USER_DELETE_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      const deleted = userId === null ? null : await deleteAccount(deps, ctx.viewer, userId);
      if (deleted === null) return userPage(deps, ctx, null, 404, null);
      if (deleted.isErr()) {
        const refused = operationRefusal(deleted.error);
        return userPage(deps, ctx, userId, refused.status, { kind: 'error', text: refused.text });
      }
      // Deleting one's own account ends the session with it (the store deleted it); the cookie is cleared too.
      if (deleted.value.id === ctx.viewer.id) return redirectResponse(SIGN_IN_PATH, [await deps.sessions.endCookie(ctx.request)]);
      return redirectResponse(`${USERS_PATH}?done=deleted`);
    }),
  ];
}
