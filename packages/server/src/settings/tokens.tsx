/**
 * The access tokens page (`/settings/tokens`, spec §2.3): create a personal access token (a note, its scopes,
 * an optional expiry), see its secret once with the `curl` line and the `gatehouse api` lines that use it, list
 * the account's tokens, and delete one after a confirmation page.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { quoteShellArgument, buildCurlCommand } from '../cli/curl.js';
import { issueAccessToken, issueAccessTokenFailure } from '../operations/access-tokens.js';
import { failureStatus } from '../operations/failure.js';
import { ConfirmForm, formatTime, SecretValue, type PageNotice } from '../pages/layout.js';
import { doneNotice, formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { readTokenForm, TokenForm, TokenTable, tokenExpiryChoices, type TokenFormValues } from '../pages/token-form.js';
import { mayCreateAccessTokens } from 'gatehouse-auth';
import { reauthenticate, reauthenticationMessage, recentlySignedIn } from '../session/reauthentication.js';
import { notFoundPage } from '../pages/not-found.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteRequest, RouteResponse } from '../kernel/route.js';
import type { AccessTokenRecord } from '../store/types.js';
import { settingsNav } from './common.js';
import { auditedTransaction } from '../store/audited.js';

/** The tokens page's path; the create form posts to the same path. */
export const TOKENS_PATH = '/settings/tokens';
/** The delete confirmation page's path (`?id=…`); its form posts to the same path. */
export const TOKEN_DELETE_PATH = '/settings/tokens/delete';

/** The query the `curl` line sends: it answers with the token's account. */
const TRY_QUERY = 'query { currentUser { username } }';

/** The notice after a deletion redirected back. */
const DONE: Readonly<Record<string, string>> = { deleted: 'The token was deleted. Programs using it can no longer sign in with it.' };

/** The empty form, its expiry the site's `auth.accessTokens.defaultExpirationDays`. */
function emptyForm(deps: PageDeps): TokenFormValues {
  return { note: '', scopes: ['user:all'], expires: tokenExpiryChoices(deps.configuration.accountOptions.accessTokens).defaultValue };
}

/** A token just created: its secret is shown on this one answer and never again. */
interface Created {
  readonly secret: string;
  readonly curl: string;
  readonly cli: string;
}

/** The tokens page: the secret of a token just created, the create form and the list. */
async function tokensPage(
  deps: PageDeps,
  ctx: PageContext,
  status: number,
  view: { readonly notice: PageNotice | null; readonly form: TokenFormValues; readonly created: Created | null },
): Promise<RouteResponse> {
  const tokens = [...(await deps.store.accessTokens.list(ctx.viewer.id))].reverse();
  const options = deps.configuration.accountOptions.accessTokens;
  const { choices } = tokenExpiryChoices(options);
  const reauthenticate = ctx.viewer.siteAdmin && !(await recentlySignedIn(deps, ctx.request));
  return pageResponse(ctx, status, {
    title: 'Access tokens',
    nav: settingsNav(TOKENS_PATH),
    notice: view.notice,
    children: (
      <>
        {view.created === null ? null : <CreatedPanel created={view.created} />}
        <section className="panel" aria-labelledby="tokens-new">
          <h2 id="tokens-new">New token</h2>
          <p className="muted">
            A token lets a program (such as <code>curl</code> or <code>gatehouse api</code>) call the API as you. Send it in the header{' '}
            <code>Authorization: token …</code>.
          </p>
          {mayCreateAccessTokens(options, ctx.viewer.siteAdmin) ? (
          <TokenForm
            action={TOKENS_PATH}
            csrf={ctx.csrf}
            label="New token"
            fields={{}}
            values={view.form}
            offerSudo={ctx.viewer.siteAdmin}
            noteHint="What the token is for, such as the program or machine that uses it."
            userHint="Full access to the API as you. Every token has it."
            sudoHint="Lets the token act as any other account (site administrators only)."
            choices={choices}
            reauthenticate={reauthenticate}
          />
          ) : (
            <p id="tokens-not-allowed">
              {options.allow === 'none'
                ? 'Access tokens are turned off on this site.'
                : 'Only site administrators may create access tokens on this site.'}
            </p>
          )}
        </section>
        <TokenList tokens={tokens} now={deps.now()} />
      </>
    ),
  });
}

/** The secret of the token just created, with the lines that use it. */
function CreatedPanel(props: { readonly created: Created }): ReactElement {
  const { created } = props;
  return (
    <section className="panel" aria-labelledby="tokens-created">
      <h2 id="tokens-created">Your new token</h2>
      <SecretValue id="token-secret" value={created.secret} label="New access token" />
      <CommandBlock id="token-curl" heading="Try it with curl" text={created.curl} button="Copy command" />
      <CommandBlock id="token-cli" heading="Use it with gatehouse api" text={created.cli} button="Copy commands" />
    </section>
  );
}

/** Commands to copy: a heading, the text in a `<pre>` it labels, and the copy button (shown by the page script). */
function CommandBlock(props: { readonly id: string; readonly heading: string; readonly text: string; readonly button: string }): ReactElement {
  return (
    <>
      <h3 id={`${props.id}-heading`}>{props.heading}</h3>
      <pre id={props.id} aria-labelledby={`${props.id}-heading`}>
        {props.text}
      </pre>
      <button type="button" className="secondary" data-copy={props.id} hidden>
        {props.button}
      </button>
    </>
  );
}

/** The account's tokens, newest first. */
function TokenList(props: { readonly tokens: readonly AccessTokenRecord[]; readonly now: number }): ReactElement {
  return (
    <section className="panel" aria-labelledby="tokens-list">
      <h2 id="tokens-list">Your tokens</h2>
      <TokenTable
        tokens={props.tokens}
        now={props.now}
        className="settings-table"
        empty="You have no access tokens."
        deleteHref={(t) => `${TOKEN_DELETE_PATH}?id=${encodeURIComponent(t.id)}`}
      />
    </section>
  );
}

/** Creates a token from the form: the secret is answered on the page (201), once. */
async function createToken(deps: PageDeps, ctx: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const options = deps.configuration.accountOptions.accessTokens;
  const { choices, defaultValue } = tokenExpiryChoices(options);
  // only the expiries auth.accessTokens offers are accepted
  const { values: typed, request } = readTokenForm(form, deps.now(), defaultValue, choices);
  const refuse = (status: number, text: string): Promise<RouteResponse> => tokensPage(deps, ctx, status, { notice: { kind: 'error', text }, form: typed, created: null });
  if (request.isErr()) return refuse(400, request.error);
  const { note, scopes, expiresAt } = request.value;
  if (scopes.includes('site-admin:sudo') && ctx.viewer.siteAdmin) {
    // a token that acts as anyone needs a recent sign-in or the current password
    const reauth = await reauthenticate(deps, ctx.request, ctx.viewer, 'sudo_token', form.get('current'));
    if (reauth.kind !== 'allow') {
      const answer = await refuse(reauth.kind === 'throttled' ? 429 : 403, reauthenticationMessage(reauth));
      return reauth.kind === 'throttled' ? { ...answer, headers: { ...answer.headers, 'retry-after': String(reauth.retryAfterSeconds) } } : answer;
    }
  }
  // The core's `authorizeAccessTokenCreation` decides the scopes (`site-admin:sudo` for site admins only, §2.3)
  // and the quota, `decideAccessTokenOptions` the site's auth.accessTokens; the page only offers what they allow.
  const created = await issueAccessToken({ ...deps, accessTokenOptions: options }, ctx.viewer, ctx.viewer.id, scopes, note, expiresAt, 'session');
  if (created.isErr()) {
    const failure = issueAccessTokenFailure(created.error);
    return refuse(failureStatus(failure), failure.message);
  }
  const origin = siteOrigin(deps, ctx.request);
  const curl = buildCurlCommand({
    url: `${origin}/.api/graphql`,
    headers: [
      ['Authorization', `token ${created.value.secret}`],
      ['Content-Type', 'application/json'],
    ],
    body: JSON.stringify({ query: TRY_QUERY }),
  });
  const cli = `export SRC_ENDPOINT=${quoteShellArgument(origin)} SRC_ACCESS_TOKEN=${quoteShellArgument(created.value.secret)}\ngatehouse api -query ${quoteShellArgument(TRY_QUERY)}`;
  return tokensPage(deps, ctx, 201, {
    notice: { kind: 'info', text: 'Copy the token now: it is not shown again.' },
    form: emptyForm(deps),
    created: { secret: created.value.secret, curl, cli },
  });
}

/**
 * The origin the `curl` line calls: the configured `externalURL`'s; without one, the `Host` the browser used (the
 * server admits only a `Host` naming it) over plain HTTP, since the request URL's base is a placeholder then.
 */
function siteOrigin(deps: PageDeps, request: RouteRequest): string {
  if (deps.origin !== null) return deps.origin;
  const host = request.headers['host'];
  return host !== undefined && /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host) ? `http://${host}` : request.url.origin;
}

/** The viewer's own token with this id, or `null` (someone else's token is as good as none). */
async function ownToken(deps: PageDeps, ctx: PageContext, id: string | null): Promise<AccessTokenRecord | null> {
  if (id === null || id === '') return null;
  const token = await deps.store.accessTokens.get(id);
  return token !== null && token.userId === ctx.viewer.id ? token : null;
}

/** The 404 answer for a token that is not among the viewer's. */
function noSuchToken(ctx: PageContext): RouteResponse {
  return notFoundPage(ctx, {
    title: 'Token not found',
    nav: settingsNav(TOKENS_PATH),
    text: 'There is no such token among yours. It may have been deleted already.',
    back: { href: TOKENS_PATH, label: 'Back to your access tokens' },
  });
}

/** The confirmation page of a deletion. */
async function confirmDelete(deps: PageDeps, ctx: PageContext): Promise<RouteResponse> {
  const token = await ownToken(deps, ctx, ctx.request.url.searchParams.get('id'));
  if (token === null) return noSuchToken(ctx);
  return pageResponse(ctx, 200, {
    title: 'Delete access token',
    nav: settingsNav(TOKENS_PATH),
    children: (
      <section className="panel" aria-labelledby="token-delete">
        <h2 id="token-delete">Delete this token?</h2>
        <p>
          Delete the token <strong>{token.note}</strong>? Programs using it stop working at once.
        </p>
        <dl className="facts">
          <dt>Scopes</dt>
          <dd>{token.scopes.join(' ')}</dd>
          <dt>Created</dt>
          <dd>{formatTime(token.createdAt)}</dd>
          <dt>Last used</dt>
          <dd>{formatTime(token.lastUsedAt)}</dd>
        </dl>
        <ConfirmForm action={TOKEN_DELETE_PATH} csrf={ctx.csrf} label="Delete token" fields={{ id: token.id }} button="Delete token" cancelHref={TOKENS_PATH} />
      </section>
    ),
  });
}

/** Deletes one of the viewer's tokens; it stops working at once (the store's contract). */
async function deleteToken(deps: PageDeps, ctx: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const token = await ownToken(deps, ctx, form.get('id'));
  if (token === null) return noSuchToken(ctx);
  // the deletion is kept only with its audit entry
  const deleted = await auditedTransaction(deps.store, async (tx) => {
    const gone = await tx.accessTokens.delete(token.id);
    if (gone.isOk()) {
      await deps.audit({ entity: 'auth.accessToken', action: 'deleted', reason: null, actorUserId: ctx.viewer.id, subjectUserId: ctx.viewer.id, details: { tokenId: token.id } }, tx);
    }
    return gone;
  });
  if (deleted.isErr()) return noSuchToken(ctx);
  return redirectResponse(`${TOKENS_PATH}?done=deleted`);
}

/**
 * The access tokens page's routes: `GET /settings/tokens`, the create form `POST /settings/tokens`, and the
 * deletion's confirmation page `GET /settings/tokens/delete?id=…` with its form `POST /settings/tokens/delete`.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * tokenRoutes(deps).length; // 4
 * ```
 */
export function tokenRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, TOKENS_PATH, 'signed_in', (ctx) => tokensPage(deps, ctx, 200, { notice: doneNotice(ctx.request, DONE), form: emptyForm(deps), created: null })),
    formRoute(deps, TOKENS_PATH, 'signed_in', (ctx, form) => createToken(deps, ctx, form)),
    pageRoute(deps, TOKEN_DELETE_PATH, 'signed_in', (ctx) => confirmDelete(deps, ctx)),
    formRoute(deps, TOKEN_DELETE_PATH, 'signed_in', (ctx, form) => deleteToken(deps, ctx, form)),
  ];
}
