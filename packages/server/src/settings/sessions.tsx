/**
 * The sessions page (`/settings/sessions`): the account's browser sessions (created, last seen, browser), and
 * forms to sign out any other one, or all others at once. The session making the request is marked and is ended
 * only with "Sign out".
 *
 * @module
 */
import { formatTime, PostForm, type PageNotice } from '../pages/layout.js';
import { DataTable } from '../pages/table.js';
import { notFoundPage } from '../pages/not-found.js';
import { doneNotice, formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import { sessionDigestOf } from '../session/sessions.js';
import type { SessionRecord, Store } from '../store/types.js';
import { ok } from 'neverthrow';
import { settingsNav } from './common.js';
import { summarizeUserAgent } from './user-agent.js';
import { auditedTransaction } from '../store/audited.js';

/** The sessions page's path. */
export const SESSIONS_PATH = '/settings/sessions';
/** Where the form that signs out one session posts (hidden field `session`: the session's digest). */
export const SESSION_REVOKE_PATH = '/settings/sessions/revoke';
/** Where the form that signs out every other session posts. */
export const SESSION_REVOKE_OTHERS_PATH = '/settings/sessions/revoke-others';

/** The notices after a form redirected back. */
const DONE: Readonly<Record<string, string>> = {
  revoked: 'The session was signed out.',
  others: 'All your other sessions were signed out.',
  none: 'There were no other sessions to sign out.',
};

/** The account's sessions that still work, most recently seen first. */
async function liveSessions(deps: PageDeps, userId: string): Promise<readonly SessionRecord[]> {
  const now = deps.now();
  return [...(await deps.store.sessions.list(userId))].filter((s) => s.expiresAt > now).sort((a, b) => b.lastSeenAt - a.lastSeenAt);
}

/** The sessions page. */
async function sessionsPage(deps: PageDeps, ctx: PageContext, status: number, notice: PageNotice | null): Promise<RouteResponse> {
  const sessions = await liveSessions(deps, ctx.viewer.id);
  const current = sessionDigestOf(ctx.request);
  const others = sessions.filter((s) => s.digest !== current).length;
  return pageResponse(ctx, status, {
    title: 'Sessions',
    nav: settingsNav(SESSIONS_PATH),
    notice,
    children: (
      <section className="panel" aria-labelledby="sessions-list">
        <h2 id="sessions-list">Where you are signed in</h2>
        <DataTable
          columns={['Browser', 'Signed in', 'Last seen', 'Actions']}
          rows={sessions}
          rowKey={(s) => s.digest}
          className="settings-table"
          empty="You have no browser sessions (this site signs you in through an authentication proxy)."
          row={(s) => {
            const summary = summarizeUserAgent(s.userAgent);
            const isCurrent = s.digest === current;
            return (
              <>
                <td>
                  {summary}
                  {isCurrent ? (
                    <>
                      {' '}
                      <span className="badge ok">This session</span>
                    </>
                  ) : null}
                  {s.userAgent === '' ? (
                    <p className="hint">No user agent sent</p>
                  ) : (
                    <details className="settings-ua">
                      <summary>Full user agent</summary>
                      <span className="mono">{s.userAgent}</span>
                    </details>
                  )}
                </td>
                <td>{formatTime(s.createdAt)}</td>
                <td>{formatTime(s.lastSeenAt)}</td>
                <td>
                  {isCurrent ? (
                    <span className="muted">Use Sign out</span>
                  ) : (
                    <PostForm action={SESSION_REVOKE_PATH} csrf={ctx.csrf} className="inline">
                      <input type="hidden" name="session" value={s.digest} />
                      <button type="submit" className="secondary" aria-label={`Revoke session: ${summary}, last seen ${formatTime(s.lastSeenAt)}`}>
                        Revoke
                      </button>
                    </PostForm>
                  )}
                </td>
              </>
            );
          }}
        />
        {others === 0 ? null : (
          <PostForm action={SESSION_REVOKE_OTHERS_PATH} csrf={ctx.csrf}>
            <div className="actions">
              <button type="submit" className="danger">
                Sign out all other sessions
              </button>
            </div>
          </PostForm>
        )}
      </section>
    ),
  });
}

/** Signs out one other session of the account. */
async function revokeSession(deps: PageDeps, ctx: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const digest = form.get('session') ?? '';
  const session = (await liveSessions(deps, ctx.viewer.id)).find((s) => s.digest === digest);
  if (session === undefined) {
    return notFoundPage(ctx, {
      title: 'Session not found',
      nav: settingsNav(SESSIONS_PATH),
      text: 'There is no such session among yours. It may have ended already.',
      back: { href: SESSIONS_PATH, label: 'Back to your sessions' },
    });
  }
  if (session.digest === sessionDigestOf(ctx.request)) {
    return sessionsPage(deps, ctx, 400, { kind: 'error', text: 'That is the session you are using now. To end it, use Sign out at the top of the page.' });
  }
  // the session ends only with its audit entry
  await auditedTransaction(deps.store, async (tx) => {
    if (await tx.sessions.delete(session.digest)) await audit(deps, ctx, 1, tx);
    return ok(undefined);
  });
  return redirectResponse(`${SESSIONS_PATH}?done=revoked`);
}

/** Signs out every session of the account but the one making the request. */
async function revokeOthers(deps: PageDeps, ctx: PageContext): Promise<RouteResponse> {
  const ended = await auditedTransaction(deps.store, async (tx) => {
    const count = await tx.sessions.deleteForUser(ctx.viewer.id, sessionDigestOf(ctx.request) ?? undefined);
    if (count > 0) await audit(deps, ctx, count, tx);
    return ok(count);
  });
  if (ended.isOk() && ended.value === 0) return redirectResponse(`${SESSIONS_PATH}?done=none`);
  return redirectResponse(`${SESSIONS_PATH}?done=others`);
}

/** Audits the end of `count` sessions of the viewer, by the viewer, in the transaction of `tx`. */
async function audit(deps: PageDeps, ctx: PageContext, count: number, tx: Store): Promise<void> {
  await deps.audit(
    { entity: 'user.session', action: 'revoked', reason: null, actorUserId: ctx.viewer.id, subjectUserId: ctx.viewer.id, details: { count: String(count) } },
    tx,
  );
}

/**
 * The sessions page's routes: `GET /settings/sessions`, `POST /settings/sessions/revoke` and
 * `POST /settings/sessions/revoke-others`.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * sessionRoutes(deps).map((r) => r.path); // ['/settings/sessions', '/settings/sessions/revoke', '/settings/sessions/revoke-others']
 * ```
 */
export function sessionRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, SESSIONS_PATH, 'signed_in', (ctx) => sessionsPage(deps, ctx, 200, doneNotice(ctx.request, DONE))),
    formRoute(deps, SESSION_REVOKE_PATH, 'signed_in', (ctx, form) => revokeSession(deps, ctx, form)),
    formRoute(deps, SESSION_REVOKE_OTHERS_PATH, 'signed_in', (ctx) => revokeOthers(deps, ctx)),
  ];
}
