/**
 * Site administration: the OAuth apps of the site's authorization server (spec §2.4). A site administrator
 * registers an app (name and exact redirect URIs, scope `user:all`), sees its client secret once, gives it a new
 * secret (the old one stops working at once) and deletes it (its codes and tokens go with it). Every change is
 * audited as entity `oauth.app` (`registered`, `secret_rotated`, `deleted`).
 *
 * @module
 */
import type { ReactElement } from 'react';
import { OAUTH_PATHS } from '../oauth-server/contract.js';
import type { OAuthAppRecord } from '../store/types.js';
import { ConfirmForm, Field, formatTime, PostForm, SecretValue, SITE_ADMIN_NAV } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { DataTable } from '../pages/table.js';
import { notFoundPage } from '../pages/not-found.js';
import { doneNotice, formRoute, pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import { usernamesById } from './account-names.js';
import type { SiteAdminDeps } from './deps.js';
import { auditedTransaction } from '../store/audited.js';

/**
 * The paths of the OAuth app pages: the list with the registration form (`GET`, and `POST` to register), one app
 * (`GET ?clientId=`), the secret rotation (`POST`, hidden `clientId`) and the deletion (`GET ?clientId=` asks,
 * `POST` deletes).
 *
 * @example
 * ```ts
 * OAUTH_APP_PATHS.rotate; // '/site-admin/oauth-apps/rotate'
 * ```
 */
export const OAUTH_APP_PATHS: { readonly list: string; readonly app: string; readonly rotate: string; readonly delete: string } = Object.freeze({
  list: '/site-admin/oauth-apps',
  app: '/site-admin/oauth-apps/app',
  rotate: '/site-admin/oauth-apps/rotate',
  delete: '/site-admin/oauth-apps/delete',
});

/** The one scope an app registered here holds (spec §2.4: OAuth tokens act with the user's full access). */
const APP_SCOPES: readonly string[] = ['user:all'];

const nav = { title: 'Site admin', items: SITE_ADMIN_NAV, current: OAUTH_APP_PATHS.list };

const appHref = (clientId: string): string => `${OAUTH_APP_PATHS.app}?clientId=${encodeURIComponent(clientId)}`;
const deleteHref = (clientId: string): string => `${OAUTH_APP_PATHS.delete}?clientId=${encodeURIComponent(clientId)}`;

/** What the registration form shows: what the person typed, or nothing. */
interface TypedRegistration {
  readonly name: string;
  readonly redirectUris: string;
}

/** The redirect URIs of the form's textarea: one per line, surrounding spaces and blank lines dropped. */
function redirectUrisOf(text: string): readonly string[] {
  return text
    .split(/\r\n|\r|\n/u)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The owner's username, or their id when the account is gone. */
function Owner(props: { readonly id: string; readonly names: ReadonlyMap<string, string> }): ReactElement {
  const name = props.names.get(props.id);
  return name === undefined ? (
    <span className="muted">
      <code>{props.id}</code> (deleted account)
    </span>
  ) : (
    <>{name}</>
  );
}

function UriList(props: { readonly uris: readonly string[] }): ReactElement {
  return (
    <ul className="plain-list">
      {props.uris.map((uri) => (
        <li key={uri}>
          <code>{uri}</code>
        </li>
      ))}
    </ul>
  );
}

function Scopes(props: { readonly scopes: readonly string[] }): ReactElement {
  return (
    <>
      {props.scopes.map((scope) => (
        <span key={scope} className="badge">
          {scope}
        </span>
      ))}
    </>
  );
}

/** The list of apps and the registration form, with `typed` filled in when a registration was refused. */
async function listPage(deps: SiteAdminDeps, ctx: PageContext, status: number, notice: PageNotice | null, typed: TypedRegistration): Promise<RouteResponse> {
  const apps = await deps.store.oauth.listApps();
  const names = await usernamesById(deps.store, apps.map((a) => a.ownerUserId));
  return pageResponse(ctx, status, {
    title: 'OAuth apps',
    nav,
    notice,
    children: (
      <>
        <section className="panel" aria-labelledby="apps-heading">
          <h2 id="apps-heading">Registered apps</h2>
          <p className="hint">
            Apps registered here sign people in with the site&apos;s OAuth server (authorization code with PKCE) and act with their access.
          </p>
          <DataTable
            columns={['Name', 'Client ID', 'Redirect URIs', 'Scopes', 'Registered', 'Owner', 'Actions']}
            rows={apps}
            rowKey={(app) => app.clientId}
            className="oauth-apps"
            scrollLabel="Registered apps table"
            empty="No OAuth apps are registered."
            row={(app) => (
              <>
                <td>
                  <a href={appHref(app.clientId)}>{app.name}</a>
                </td>
                <td>
                  <code>{app.clientId}</code>
                </td>
                <td>
                  <UriList uris={app.redirectUris} />
                </td>
                <td>
                  <Scopes scopes={app.scopes} />
                </td>
                <td>{formatTime(app.createdAt)}</td>
                <td>
                  <Owner id={app.ownerUserId} names={names} />
                </td>
                <td>
                  <a href={deleteHref(app.clientId)} aria-label={`Delete app ${app.name}`}>
                    Delete
                  </a>
                </td>
              </>
            )}
          />
        </section>
        <section className="panel" aria-labelledby="register-heading">
          <h2 id="register-heading">Register an app</h2>
          <PostForm action={OAUTH_APP_PATHS.list} csrf={ctx.csrf} label="Register an OAuth app">
            <Field id="app-name" name="name" label="App name" required maxLength={100} value={typed.name} autoComplete="off" />
            <label htmlFor="app-redirect-uris">Redirect URIs</label>
            <textarea
              id="app-redirect-uris"
              name="redirectUris"
              required
              rows={3}
              defaultValue={typed.redirectUris}
              aria-describedby="app-redirect-uris-hint"
              spellCheck={false}
            />
            <p className="hint" id="app-redirect-uris-hint">
              One per line, matched exactly: https, or http to a loopback address. The app gets the scope user:all.
            </p>
            <div className="actions">
              <button type="submit">Register app</button>
            </div>
          </PostForm>
        </section>
      </>
    ),
  });
}

/** The app's page; `secret` is the client secret to show this once (after registration or rotation). */
async function appPage(
  deps: SiteAdminDeps,
  ctx: PageContext,
  status: number,
  app: OAuthAppRecord,
  notice: PageNotice | null,
  secret: string | null,
): Promise<RouteResponse> {
  const names = await usernamesById(deps.store, [app.ownerUserId]);
  const base = deps.origin ?? '';
  return pageResponse(ctx, status, {
    title: app.name,
    nav,
    notice,
    children: (
      <>
        {secret === null ? null : (
          <section className="panel" aria-labelledby="secret-heading">
            <h2 id="secret-heading">Client secret</h2>
            <p>Give it to the app now, with the client ID. It is shown only this once; if it is lost, rotate it.</p>
            <SecretValue id="client-secret" value={secret} label="Client secret" />
          </section>
        )}
        <section className="panel" aria-labelledby="app-heading">
          <h2 id="app-heading">App</h2>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{app.name}</dd>
            <dt>Client ID</dt>
            <dd>
              <code id="client-id">{app.clientId}</code>
            </dd>
            <dt>Redirect URIs</dt>
            <dd>
              <UriList uris={app.redirectUris} />
            </dd>
            <dt>Scopes</dt>
            <dd>
              <Scopes scopes={app.scopes} />
            </dd>
            <dt>Registered</dt>
            <dd>{formatTime(app.createdAt)}</dd>
            <dt>Owner</dt>
            <dd>
              <Owner id={app.ownerUserId} names={names} />
            </dd>
            <dt>Authorization endpoint</dt>
            <dd>
              <code>{`${base}${OAUTH_PATHS.authorize}`}</code>
            </dd>
            <dt>Token endpoint</dt>
            <dd>
              <code>{`${base}${OAUTH_PATHS.token}`}</code>
            </dd>
          </dl>
        </section>
        <section className="panel" aria-labelledby="rotate-heading">
          <h2 id="rotate-heading">Rotate the client secret</h2>
          <p>A new secret replaces the current one, which stops working at once: the app cannot get or refresh tokens until it has the new one.</p>
          <PostForm action={OAUTH_APP_PATHS.rotate} csrf={ctx.csrf} label="Rotate the client secret">
            <input type="hidden" name="clientId" value={app.clientId} />
            <div className="actions">
              <button type="submit" className="secondary">
                Rotate secret
              </button>
            </div>
          </PostForm>
        </section>
        <section className="panel" aria-labelledby="delete-heading">
          <h2 id="delete-heading">Delete the app</h2>
          <p>Its authorization codes and tokens stop working at once.</p>
          <div className="actions">
            <a className="button danger" href={deleteHref(app.clientId)}>
              Delete app
            </a>
            <a href={OAUTH_APP_PATHS.list}>Back to OAuth apps</a>
          </div>
        </section>
      </>
    ),
  });
}

/** The answer for a client id no app has (an old link, or an app deleted meanwhile). */
function unknownApp(ctx: PageContext): RouteResponse {
  return notFoundPage(ctx, {
    title: 'OAuth app not found',
    nav,
    text: 'No OAuth app has this client ID. It may have been deleted.',
    back: { href: OAUTH_APP_PATHS.list, label: 'Back to OAuth apps' },
  });
}

/** The app a page or form names by `clientId`, or `null`. */
async function findApp(deps: SiteAdminDeps, clientId: string | null): Promise<OAuthAppRecord | null> {
  return clientId === null || clientId === '' ? null : deps.store.oauth.findApp(clientId);
}

/**
 * The OAuth app pages (spec §2.4), for site administrators only:
 * - `GET /site-admin/oauth-apps`: the apps and the registration form (`name`, `redirectUris`; button "Register app");
 * - `POST /site-admin/oauth-apps`: registers, answering `201` with the app's page showing the client secret once;
 * - `GET /site-admin/oauth-apps/app?clientId=…`: one app, with "Rotate secret" and "Delete app";
 * - `POST /site-admin/oauth-apps/rotate` (`clientId`): a new secret, shown once; the old one stops working at once;
 * - `GET /site-admin/oauth-apps/delete?clientId=…` asks, `POST` (`clientId`) deletes, with its codes and tokens.
 *
 * @param deps - The pages' dependencies, app registration and secret rotation.
 * @returns The routes.
 *
 * @example
 * ```ts
 * oauthAppRoutes(deps).map((r) => `${r.methods.join()} ${r.path}`);
 * // ['GET /site-admin/oauth-apps', 'POST /site-admin/oauth-apps', 'GET /site-admin/oauth-apps/app', …]
 * ```
 */
export function oauthAppRoutes(deps: SiteAdminDeps): readonly Route[] {
  const empty: TypedRegistration = { name: '', redirectUris: '' };
  return [
    pageRoute(deps, OAUTH_APP_PATHS.list, 'site_admin', (ctx) =>
      listPage(deps, ctx, 200, doneNotice(ctx.request, { deleted: 'The app was deleted; its tokens no longer work.' }), empty),
    ),

    formRoute(deps, OAUTH_APP_PATHS.list, 'site_admin', async (ctx, form) => {
      const typed: TypedRegistration = { name: form.get('name') ?? '', redirectUris: form.get('redirectUris') ?? '' };
      const name = typed.name.trim();
      // the app is kept only with its audit entry (the same entry as the GraphQL `registerOAuthApp` mutation)
      const registered = await auditedTransaction(deps.store, async (tx) => {
        const app = await deps.registerOAuthApp({ name, redirectUris: redirectUrisOf(typed.redirectUris), scopes: APP_SCOPES, ownerUserId: ctx.viewer.id }, tx);
        if (app.isOk()) {
          await deps.audit({ entity: 'oauth.app', action: 'registered', reason: null, actorUserId: ctx.viewer.id, subjectUserId: null, details: { clientId: app.value.clientId, name } }, tx);
        }
        return app;
      });
      if (registered.isErr()) return listPage(deps, ctx, 400, { kind: 'error', text: registered.error.message }, typed);
      const { clientId, clientSecret } = registered.value;
      const app = await deps.store.oauth.findApp(clientId);
      if (app === null) return unknownApp(ctx);
      const notice: PageNotice = { kind: 'info', text: `The app ${app.name} was registered. Copy its client secret now: it is not shown again.` };
      return appPage(deps, ctx, 201, app, notice, clientSecret);
    }),

    pageRoute(deps, OAUTH_APP_PATHS.app, 'site_admin', async (ctx) => {
      const app = await findApp(deps, ctx.request.url.searchParams.get('clientId'));
      return app === null ? unknownApp(ctx) : appPage(deps, ctx, 200, app, null, null);
    }),

    formRoute(deps, OAUTH_APP_PATHS.rotate, 'site_admin', async (ctx, form) => {
      const app = await findApp(deps, form.get('clientId'));
      if (app === null) return unknownApp(ctx);
      const rotated = await auditedTransaction(deps.store, async (tx) => {
        const replaced = await deps.rotateOAuthAppSecret(app.clientId, tx);
        if (replaced.isOk()) {
          const details = { clientId: app.clientId, name: app.name };
          await deps.audit({ entity: 'oauth.app', action: 'secret_rotated', reason: null, actorUserId: ctx.viewer.id, subjectUserId: null, details }, tx);
        }
        return replaced;
      });
      if (rotated.isErr()) {
        return rotated.error.code === 'unknown_oauth_app'
          ? unknownApp(ctx)
          : appPage(deps, ctx, 500, app, { kind: 'error', text: `${rotated.error.message} The current secret still works.` }, null);
      }
      const notice: PageNotice = { kind: 'info', text: 'The client secret was replaced; the old one no longer works. Copy the new one now: it is not shown again.' };
      return appPage(deps, ctx, 200, app, notice, rotated.value.clientSecret);
    }),

    pageRoute(deps, OAUTH_APP_PATHS.delete, 'site_admin', async (ctx) => {
      const app = await findApp(deps, ctx.request.url.searchParams.get('clientId'));
      if (app === null) return unknownApp(ctx);
      return pageResponse(ctx, 200, {
        title: 'Delete OAuth app',
        nav,
        children: (
          <section className="panel" aria-labelledby="confirm-heading">
            <h2 id="confirm-heading">{`Delete ${app.name}? Its tokens stop working at once.`}</h2>
            <p>
              The app with client ID <code>{app.clientId}</code> can no longer sign anyone in, and its authorization codes and access and refresh
              tokens are deleted with it. This cannot be undone.
            </p>
            <ConfirmForm
              action={OAUTH_APP_PATHS.delete}
              csrf={ctx.csrf}
              label={`Delete app ${app.name}`}
              fields={{ clientId: app.clientId }}
              button="Delete app"
              cancelHref={appHref(app.clientId)}
            />
          </section>
        ),
      });
    }),

    formRoute(deps, OAUTH_APP_PATHS.delete, 'site_admin', async (ctx, form) => {
      const clientId = form.get('clientId');
      if (clientId === null || clientId === '') return unknownApp(ctx);
      const deleted = await auditedTransaction(deps.store, async (tx) => {
        const gone = await tx.oauth.deleteApp(clientId);
        if (gone.isOk()) {
          const details = { clientId: gone.value.clientId, name: gone.value.name };
          await deps.audit({ entity: 'oauth.app', action: 'deleted', reason: null, actorUserId: ctx.viewer.id, subjectUserId: null, details }, tx);
        }
        return gone;
      });
      if (deleted.isErr()) return unknownApp(ctx);
      return redirectResponse(`${OAUTH_APP_PATHS.list}?done=deleted`);
    }),
  ];
}
