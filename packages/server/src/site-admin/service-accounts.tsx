/**
 * Site administration, Service accounts (spec §1, §2.3): accounts for scripts and integrations that authenticate
 * with access tokens only. The page lists them and creates them (through `admin-operations.ts`, as the GraphQL
 * `createServiceAccount` does); each has a page of its access tokens, created through `issueAccessToken` (the
 * core's `authorizeAccessTokenCreation` lets a site administrator create tokens for another account) and deleted
 * after a confirmation.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { USERNAME_MAX_LENGTH } from 'gatehouse-auth';
import { issueAccessToken, issueAccessTokenFailure } from '../operations/access-tokens.js';
import { failureStatus } from '../operations/failure.js';
import { createAccount } from '../operations/accounts.js';
import { ConfirmForm, Field, formatTime, PostForm, SecretValue } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { doneNotice, formRoute, pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext, PageDeps } from '../pages/page-routes.js';
import { readTokenForm, TokenForm, TokenTable, tokenExpiryChoices, type TokenExpiryChoice, type TokenFormValues } from '../pages/token-form.js';
import { reauthenticate, reauthenticationMessage, recentlySignedIn } from '../session/reauthentication.js';
import { DataTable } from '../pages/table.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { AccessTokenRecord, UserRecord } from '../store/types.js';
import { adminNav, idParam, missingPage, operationRefusal } from './account-pages.js';
import { auditedTransaction } from '../store/audited.js';

/** The Service accounts page. */
export const SERVICE_ACCOUNTS_PATH = '/site-admin/service-accounts';
/** A service account's tokens (`?id=`). */
export const SERVICE_ACCOUNT_TOKENS_PATH = '/site-admin/service-accounts/tokens';
/** The confirmation page (`GET ?id=&token=`) and the form (`POST`) that delete a service account's token. */
export const SERVICE_ACCOUNT_TOKEN_DELETE_PATH = '/site-admin/service-accounts/tokens/delete';
/** An account's page on the Users side. */
const USER_PATH = '/site-admin/users/user';

/** Accounts read per page while looking for service accounts. */
const SCAN_PAGE_SIZE = 1000;
/**
 * How many pages of accounts the Service accounts page reads at most: the store has no index of service
 * accounts, so the page filters `accounts.list`, bounded to the first 10,000 accounts and saying so beyond.
 */
export const SERVICE_ACCOUNT_SCAN_PAGES = 10;

/** The token lifetimes the form offers, in days (`never`: no expiry). */

const tokensHref = (id: string): string => `${SERVICE_ACCOUNT_TOKENS_PATH}?id=${encodeURIComponent(id)}`;

/** The service accounts among the first {@link SERVICE_ACCOUNT_SCAN_PAGES} pages of accounts, and whether more remain. */
async function scanServiceAccounts(deps: PageDeps): Promise<{ readonly accounts: readonly UserRecord[]; readonly truncated: boolean }> {
  const found: UserRecord[] = [];
  let after: string | null = null;
  for (let page = 0; page < SERVICE_ACCOUNT_SCAN_PAGES; page += 1) {
    const batch: readonly UserRecord[] = await deps.store.accounts.list({ first: SCAN_PAGE_SIZE, ...(after === null ? {} : { after }) });
    found.push(...batch.filter((u) => u.serviceAccount));
    const last = batch[batch.length - 1];
    if (batch.length < SCAN_PAGE_SIZE || last === undefined) return { accounts: found, truncated: false };
    after = last.id;
  }
  const more = after === null ? [] : await deps.store.accounts.list({ first: 1, after });
  return { accounts: found, truncated: more.length > 0 };
}

/** The Service accounts page, with a status, a notice and the create form's value. */
async function serviceAccountsPage(deps: PageDeps, ctx: PageContext, status: number, notice: PageNotice | null, username: string): Promise<RouteResponse> {
  const { accounts, truncated } = await scanServiceAccounts(deps);
  const scanned: PageNotice = {
    kind: 'info',
    text: `Only the first ${SERVICE_ACCOUNT_SCAN_PAGES * SCAN_PAGE_SIZE} accounts were searched for service accounts. Find others by name on the Users page.`,
  };
  return pageResponse(ctx, status, {
    title: 'Service accounts',
    nav: adminNav(SERVICE_ACCOUNTS_PATH),
    notice: notice ?? (truncated ? scanned : null),
    children: [
      <section key="list" className="panel" aria-labelledby="service-accounts-heading">
        <h2 id="service-accounts-heading">Service accounts</h2>
        <p className="hint">Scripts, CI jobs and integrations use service accounts: they have no password and authenticate with access tokens only.</p>
        <DataTable
          columns={['Username', 'Created', 'Access tokens']}
          rows={accounts}
          rowKey={(account) => account.id}
          className="admin-table"
          empty="There are no service accounts yet."
          row={(account) => (
            <>
              <td>
                <a href={`${USER_PATH}?id=${encodeURIComponent(account.id)}`}>{account.username}</a>
                {account.siteAdmin ? (
                  <>
                    {' '}
                    <span className="badge admin">Site admin</span>
                  </>
                ) : null}
              </td>
              <td>{formatTime(account.createdAt)}</td>
              <td>
                <a href={tokensHref(account.id)} aria-label={`Manage tokens of ${account.username}`}>
                  Manage tokens
                </a>
              </td>
            </>
          )}
        />
        {truncated && notice !== null ? <p className="muted">{scanned.text}</p> : null}
      </section>,
      <section key="create" className="panel" aria-labelledby="create-service-account-heading">
        <h2 id="create-service-account-heading">Create a service account</h2>
        <PostForm action={SERVICE_ACCOUNTS_PATH} csrf={ctx.csrf} label="Create a service account">
          <Field
            id="service-account-username"
            name="username"
            label="Username"
            value={username}
            required
            maxLength={USERNAME_MAX_LENGTH}
            autoComplete="off"
            hint='Letters, digits, "-", "." and "_"; for example "ci-bot".'
          />
          <div className="actions">
            <button type="submit">Create service account</button>
          </div>
        </PostForm>
      </section>,
    ],
  });
}

/** The expiries `auth.accessTokens` offers, and the form's first choice: never, when the site allows it. */
function serviceTokenChoices(deps: PageDeps): { readonly choices: readonly TokenExpiryChoice[]; readonly defaultValue: string } {
  const offered = tokenExpiryChoices(deps.configuration.accountOptions.accessTokens);
  return { choices: offered.choices, defaultValue: offered.choices.some((c) => c.value === 'never') ? 'never' : offered.defaultValue };
}

/** The empty token form. */
function defaultTokenValues(deps: PageDeps): TokenFormValues {
  return { note: '', scopes: ['user:all'], expires: serviceTokenChoices(deps).defaultValue };
}

/** The service account with this id, or `null` (also for an account that is not a service account). */
async function serviceAccountOf(deps: PageDeps, id: string | null): Promise<UserRecord | null> {
  const account = id === null ? null : await deps.store.accounts.get(id);
  return account !== null && account.serviceAccount ? account : null;
}

/** The 404 page of a missing service account. */
const noSuchServiceAccount = (ctx: PageContext): RouteResponse =>
  missingPage(ctx, SERVICE_ACCOUNTS_PATH, 'No such service account: it may have been deleted.', { href: SERVICE_ACCOUNTS_PATH, label: 'Back to service accounts' });

/** The tokens table. */
function TokensTable(props: { readonly account: UserRecord; readonly tokens: readonly AccessTokenRecord[]; readonly now: number }): ReactElement {
  const { account, tokens } = props;
  return (
    <TokenTable
      tokens={tokens}
      now={props.now}
      className="admin-table"
      empty="This service account has no access tokens."
      deleteHref={(token) => `${SERVICE_ACCOUNT_TOKEN_DELETE_PATH}?id=${encodeURIComponent(account.id)}&token=${encodeURIComponent(token.id)}`}
    />
  );
}

/** The token form. */
function CreateTokenForm(props: {
  readonly account: UserRecord;
  readonly csrf: string;
  readonly values: TokenFormValues;
  readonly choices: readonly TokenExpiryChoice[];
  readonly reauthenticate: boolean;
}): ReactElement {
  const { account, values } = props;
  return (
    <section className="panel" aria-labelledby="create-token-heading">
      <h2 id="create-token-heading">Create an access token</h2>
      <TokenForm
        action={SERVICE_ACCOUNT_TOKENS_PATH}
        csrf={props.csrf}
        label={`Create an access token for ${account.username}`}
        fields={{ id: account.id }}
        values={values}
        offerSudo
        noteHint="What the token is for, such as the job or host that uses it."
        userHint="Required: the token acts as the service account."
        sudoHint="Lets the token act as any user with token-sudo."
        choices={props.choices}
        reauthenticate={props.reauthenticate}
      />
    </section>
  );
}

/** A service account's tokens page, with a status, a notice, the form's values and a secret to show once. */
async function tokensPage(
  deps: PageDeps,
  ctx: PageContext,
  account: UserRecord,
  status: number,
  notice: PageNotice | null,
  values: TokenFormValues,
  created: { readonly secret: string; readonly note: string } | null,
): Promise<RouteResponse> {
  const tokens = await deps.store.accessTokens.list(account.id);
  return pageResponse(ctx, status, {
    title: `Access tokens of ${account.username}`,
    nav: adminNav(SERVICE_ACCOUNTS_PATH),
    notice,
    children: [
      <p key="back">
        <a href={SERVICE_ACCOUNTS_PATH}>All service accounts</a> · <a href={`${USER_PATH}?id=${encodeURIComponent(account.id)}`}>Account details</a>
      </p>,
      ...(created === null
        ? []
        : [
            <section key="secret" className="panel" aria-labelledby="new-token-heading">
              <h2 id="new-token-heading">New access token</h2>
              <p>{`The token "${created.note}" for ${account.username}:`}</p>
              <SecretValue id="token-secret" value={created.secret} label={`New access token for ${account.username}`} />
            </section>,
          ]),
      <section key="tokens" className="panel" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Tokens</h2>
        <TokensTable account={account} tokens={tokens} now={deps.now()} />
      </section>,
      <CreateTokenForm
        key="create"
        account={account}
        csrf={ctx.csrf}
        values={values}
        choices={serviceTokenChoices(deps).choices}
        reauthenticate={!(await recentlySignedIn(deps, ctx.request))}
      />,
    ],
  });
}

/** The token of a service account named by `id` and `token`, or `null`. */
async function tokenOf(deps: PageDeps, params: URLSearchParams): Promise<{ readonly account: UserRecord; readonly token: AccessTokenRecord } | null> {
  const account = await serviceAccountOf(deps, idParam(params, 'id'));
  const tokenId = idParam(params, 'token');
  const token = account === null || tokenId === null ? null : await deps.store.accessTokens.get(tokenId);
  return account === null || token === null || token.userId !== account.id ? null : { account, token };
}

/**
 * The Service accounts pages and forms:
 * - `GET /site-admin/service-accounts`: the service accounts (the first 10,000 accounts are searched) and the
 *   create form; `POST` (`username`) creates one, then `303` to its tokens page with `?done=created`;
 * - `GET /site-admin/service-accounts/tokens?id=`: its tokens and the token form; `POST` (`id`, `note`, `scopes`,
 *   `expires=never|7|30|90|365`) creates a token and answers with the page showing the secret once (201);
 * - `GET /site-admin/service-accounts/tokens/delete?id=&token=` asks, `POST` (`id`, `token`) deletes.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * const routes = [...usersRoutes(deps), ...serviceAccountRoutes(deps)];
 * ```
 */
export function serviceAccountRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, SERVICE_ACCOUNTS_PATH, 'site_admin', (ctx) => serviceAccountsPage(deps, ctx, 200, null, '')),
    formRoute(deps, SERVICE_ACCOUNTS_PATH, 'site_admin', async (ctx, form) => {
      const username = (form.get('username') ?? '').trim();
      const created = await createAccount(deps, ctx.viewer, { kind: 'service_account', username });
      if (created.isErr()) {
        const refused = operationRefusal(created.error);
        return serviceAccountsPage(deps, ctx, refused.status, { kind: 'error', text: refused.text }, username);
      }
      return redirectResponse(`${tokensHref(created.value.id)}&done=created`);
    }),
    pageRoute(deps, SERVICE_ACCOUNT_TOKENS_PATH, 'site_admin', async (ctx) => {
      const account = await serviceAccountOf(deps, idParam(ctx.request.url.searchParams, 'id'));
      if (account === null) return noSuchServiceAccount(ctx);
      const notice = doneNotice(ctx.request, {
        created: `The service account ${account.username} was created. Create an access token for it below.`,
        deleted: 'The access token was deleted. Anything still using it is refused from now on.',
      });
      return tokensPage(deps, ctx, account, 200, notice, defaultTokenValues(deps), null);
    }),
    formRoute(deps, SERVICE_ACCOUNT_TOKENS_PATH, 'site_admin', async (ctx, form) => {
      const account = await serviceAccountOf(deps, idParam(form, 'id'));
      if (account === null) return noSuchServiceAccount(ctx);
      const { choices, defaultValue } = serviceTokenChoices(deps);
      const { values, request } = readTokenForm(form, deps.now(), defaultValue, choices);
      if (request.isErr()) return tokensPage(deps, ctx, account, 400, { kind: 'error', text: request.error }, values, null);
      const { note, scopes, expiresAt } = request.value;
      if (scopes.includes('site-admin:sudo')) {
        // a token that acts as anyone needs a recent sign-in or the current password
        const reauth = await reauthenticate(deps, ctx.request, ctx.viewer, 'sudo_token', form.get('current'));
        if (reauth.kind !== 'allow') return tokensPage(deps, ctx, account, reauth.kind === 'throttled' ? 429 : 403, { kind: 'error', text: reauthenticationMessage(reauth) }, values, null);
      }
      const options = deps.configuration.accountOptions.accessTokens;
      const issued = await issueAccessToken({ ...deps, accessTokenOptions: options }, ctx.viewer, account.id, scopes, note, expiresAt, 'session');
      if (issued.isErr()) {
        const failure = issueAccessTokenFailure(issued.error);
        return tokensPage(deps, ctx, account, failureStatus(failure), { kind: 'error', text: failure.message }, values, null);
      }
      return tokensPage(
        deps,
        ctx,
        account,
        201,
        { kind: 'info', text: 'Copy the new token now: it is shown only this once.' },
        defaultTokenValues(deps),
        { secret: issued.value.secret, note },
      );
    }),
    pageRoute(deps, SERVICE_ACCOUNT_TOKEN_DELETE_PATH, 'site_admin', async (ctx) => {
      const found = await tokenOf(deps, ctx.request.url.searchParams);
      if (found === null) {
        return missingPage(ctx, SERVICE_ACCOUNTS_PATH, 'No such access token: it may have been deleted.', { href: SERVICE_ACCOUNTS_PATH, label: 'Back to service accounts' });
      }
      const { account, token } = found;
      return pageResponse(ctx, 200, {
        title: 'Delete access token',
        nav: adminNav(SERVICE_ACCOUNTS_PATH),
        children: (
          <section className="panel" aria-labelledby="delete-token-heading">
            <h2 id="delete-token-heading">{`Delete the token "${token.note}" of ${account.username}?`}</h2>
            <p>Anything that uses it is refused from the moment it is deleted. This cannot be undone.</p>
            <ConfirmForm
              action={SERVICE_ACCOUNT_TOKEN_DELETE_PATH}
              csrf={ctx.csrf}
              label={`Delete the token ${token.note}`}
              fields={{ id: account.id, token: token.id }}
              button="Delete token"
              cancelHref={tokensHref(account.id)}
            />
          </section>
        ),
      });
    }),
    formRoute(deps, SERVICE_ACCOUNT_TOKEN_DELETE_PATH, 'site_admin', async (ctx, form) => {
      const found = await tokenOf(deps, form);
      if (found === null) {
        return missingPage(ctx, SERVICE_ACCOUNTS_PATH, 'No such access token: it may have been deleted.', { href: SERVICE_ACCOUNTS_PATH, label: 'Back to service accounts' });
      }
      const deleted = await auditedTransaction(deps.store, async (tx) => {
        const gone = await tx.accessTokens.delete(found.token.id);
        if (gone.isOk()) {
          const details = { tokenId: found.token.id };
          await deps.audit({ entity: 'auth.accessToken', action: 'deleted', reason: null, actorUserId: ctx.viewer.id, subjectUserId: found.account.id, details }, tx);
        }
        return gone;
      });
      if (deleted.isErr()) {
        return missingPage(ctx, SERVICE_ACCOUNTS_PATH, 'No such access token: it may have been deleted.', { href: tokensHref(found.account.id), label: 'Back to the tokens' });
      }
      return redirectResponse(`${tokensHref(found.account.id)}&done=deleted`);
    }),
  ];
}
