/**
 * The "Account security" settings page (spec §5.3 `reviewhost`, §5.4 rule 4, §2.4): the identities linked to the
 * signed-in account, which the person can unlink (never the last way to sign in), links to add another
 * provider, the review host credentials they can add (checked against the host, sealed at rest, never shown),
 * and the OAuth applications they approved, whose approval they can revoke. Every form is a page form
 * (`formRoute`: same-site and CSRF-token checked); every removal asks first on a page of its own.
 *
 * @module
 */
import { err, type Result } from 'neverthrow';
import type { ReactElement } from 'react';
import type { AuthProvider, ReviewhostProvider } from 'gatehouse-auth';
import { reviewhostMatchesConnection, countSignInMethods, decideUnlink, providerSignsIn } from 'gatehouse-auth';
import { ConfirmForm, Field, formatTime, PostForm, SETTINGS_NAV, type PageNotice } from '../pages/layout.js';
import { DataTable } from '../pages/table.js';
import { notFoundPage } from '../pages/not-found.js';
import { doneNotice, formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { ReviewhostCheck } from '../providers/reviewhost-check.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { SignInPageLink } from '../session/sessions.js';
import type { ExternalAccountRecord, OAuthConsentRecord, ProviderCredentialRecord, UserRecord } from '../store/types.js';
import { sealSecret } from '../store/credentials.js';
import { linkProviderLinks } from '../pages/sign-in-links.js';
import { auditedTransaction } from '../store/audited.js';

/**
 * The path of the "Account security" page.
 *
 * @example
 * ```ts
 * await fetch(`${url}${ACCOUNT_SECURITY_PATH}`, { headers: { cookie } });
 * ```
 */
export const ACCOUNT_SECURITY_PATH = '/settings/security';

/**
 * The form paths of the page: each is also a `GET` confirmation page (unlink, remove, revoke) or the page's own
 * form target (add credentials).
 *
 * @example
 * ```ts
 * browser.post(ACCOUNT_SECURITY_PATHS.revokeConsent, { clientId });
 * ```
 */
export const ACCOUNT_SECURITY_PATHS: {
  readonly unlink: string;
  readonly addCredentials: string;
  readonly removeCredentials: string;
  readonly revokeConsent: string;
} = Object.freeze({
  unlink: `${ACCOUNT_SECURITY_PATH}/unlink`,
  addCredentials: `${ACCOUNT_SECURITY_PATH}/reviewhost`,
  removeCredentials: `${ACCOUNT_SECURITY_PATH}/reviewhost/remove`,
  revokeConsent: `${ACCOUNT_SECURITY_PATH}/oauth/revoke`,
});

/** The notices of `?done=<code>` after a change (Post/Redirect/Get). */
const DONE: Readonly<Record<string, string>> = Object.freeze({
  unlinked: 'The identity was unlinked.',
  credentials_added: 'The credentials were checked and stored.',
  credentials_removed: 'The credentials were removed.',
  consent_revoked: 'The approval was revoked and the tokens the application held stopped working. It has to ask you again before it gets new access.',
});

/** The sidebar of this page and its confirmation pages. */
const NAV = { title: 'Settings', items: SETTINGS_NAV, current: ACCOUNT_SECURITY_PATH };

/**
 * How many ways to sign in an account keeps with these links (the core's `countSignInMethods`, §5.4 rule 4): its
 * password (when the `builtin` provider is configured) plus each linked identity of a configured sign-in provider
 * type. A review host link is not a way to sign in (it only adds credentials).
 *
 * @param links - The account's linked identities.
 * @param user - The account.
 * @param providers - The configured providers.
 * @returns The number of ways.
 * @example
 * ```ts
 * signInMethodCount([], { ...user, passwordHash: null }, providers); // 0: unlinking this one is refused
 * ```
 */
export function signInMethodCount(
  links: readonly ExternalAccountRecord[],
  user: Pick<UserRecord, 'passwordHash'>,
  providers: readonly AuthProvider[],
): number {
  // a `noSignIn` provider is no way in: its identities do not count
  return countSignInMethods({ links, hasPassword: user.passwordHash !== null, providerTypes: providers.filter(providerSignsIn).map((p) => p.type) });
}

/**
 * What the "Account security" routes need: the pages' dependencies (store, clock, audit, who is signed in, the
 * form token settings) and the providers' (configured providers, the credentials key, the review host check).
 *
 * @example
 * ```ts
 * const deps: AccountSecurityDeps = { ...pageDeps, providers, credentialsKey,
 *   codeHostConnectionUrls: ['https://review.example.com'],
 *   checkReviewhostCredentials: (url, user, password) => checkReviewhostCredentials(url, user, password, fetch, 10_000) };
 * ```
 */
export interface AccountSecurityDeps extends PageDeps {
  /** The configured providers. */
  readonly providers: readonly AuthProvider[];
  /** The 32-byte AES-256-GCM key that seals stored credentials. */
  readonly credentialsKey: Uint8Array;
  /** The URLs of the code host connections; a review host is offered only when its `url` matches one. */
  readonly codeHostConnectionUrls: readonly string[];
  /**
   * Checks a person's credentials at a review host (spec §5.3 reviewhost): the wiring passes the providers'
   * outbound check, bounded by the upstream deadline (a timeout counts as unreachable).
   */
  readonly checkReviewhostCredentials: (url: string, username: string, password: string) => Promise<ReviewhostCheck>;
}

/**
 * The context bound into sealed review host credentials: they open only for this account and this provider.
 *
 * @param userId - The account.
 * @param serviceId - The review host's URL without trailing slashes.
 * @returns The additional authenticated data.
 * @example
 * ```ts
 * openSecret(key, record.sealed, credentialContext(record.userId, record.serviceId)); // the password
 * ```
 */
export function credentialContext(userId: string, serviceId: string): string {
  return JSON.stringify(['reviewhost', userId, serviceId]);
}

type Reviewhost = { readonly index: number; readonly provider: ReviewhostProvider };

/** The shared part of the routes, built once. */
interface Context {
  readonly deps: AccountSecurityDeps;
  readonly reviewhosts: readonly Reviewhost[];
  readonly offered: (provider: ReviewhostProvider) => boolean;
  /** The sign-in links (to link another provider while signed in, §5.4 rule 4). */
  readonly links: readonly SignInPageLink[];
}

/** What the person typed into a review host form before a refusal (never the password). */
interface Typed {
  readonly provider: number;
  readonly username: string;
}

/** An approval with the app's name (`null` when the app is gone). */
interface Approval {
  readonly consent: OAuthConsentRecord;
  readonly appName: string | null;
}

const serviceIdOf = (provider: ReviewhostProvider): string => provider.url.replace(/\/+$/, '');
const reviewhostName = (provider: ReviewhostProvider): string => provider.displayName ?? provider.url;

/** The query of a link's unlink confirmation page. */
function unlinkHref(link: Pick<ExternalAccountRecord, 'serviceType' | 'serviceId' | 'accountId'>): string {
  const query = new URLSearchParams({ serviceType: link.serviceType, serviceId: link.serviceId, accountId: link.accountId });
  return `${ACCOUNT_SECURITY_PATHS.unlink}?${query.toString()}`;
}

function IdentitiesSection(props: { readonly links: readonly ExternalAccountRecord[]; readonly lastOf: (link: ExternalAccountRecord) => boolean }): ReactElement {
  return (
    <section className="panel" aria-labelledby="identities-heading">
      <h2 id="identities-heading">Linked identities</h2>
      <DataTable
        columns={['Provider', 'At', 'Account', 'Action']}
        rows={props.links}
        rowKey={(link) => `${link.serviceType}\0${link.serviceId}\0${link.accountId}`}
        empty="No external identity is linked to this account."
        row={(link) => (
          <>
            <td>{link.serviceType}</td>
            <td className="mono">{link.serviceId === '' ? '(public)' : link.serviceId}</td>
            <td className="mono">{link.accountId}</td>
            <td>
              {props.lastOf(link) ? (
                <span className="badge" title="Link another identity or set a password before unlinking this one.">
                  The last way to sign in
                </span>
              ) : (
                <a className="button secondary" href={unlinkHref(link)} aria-label={`Unlink ${link.serviceType} account ${link.accountId}`}>
                  Unlink
                </a>
              )}
            </td>
          </>
        )}
      />
    </section>
  );
}

function LinkSection(props: { readonly links: readonly SignInPageLink[] }): ReactElement | null {
  if (props.links.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="link-heading">
      <h2 id="link-heading">Link another identity</h2>
      <p className="muted">Sign in with another provider while signed in here to add it to this account.</p>
      <ul>
        {props.links.map((l) => (
          <li key={l.loginPath}>
            <a href={`${l.loginPath}&returnTo=${encodeURIComponent(ACCOUNT_SECURITY_PATH)}`}>{l.label}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function ReviewhostSection(props: {
  readonly ctx: Context;
  readonly csrf: string;
  readonly credentials: readonly ProviderCredentialRecord[];
  readonly typed: Typed | null;
}): ReactElement | null {
  const { ctx, csrf, credentials, typed } = props;
  if (ctx.reviewhosts.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="reviewhost-heading">
      <h2 id="reviewhost-heading">Review host credentials</h2>
      <p className="muted">Each review host checks the credentials when you add them; they are stored encrypted and never shown again.</p>
      {ctx.reviewhosts.map(({ index, provider }) => {
        const name = reviewhostName(provider);
        if (!ctx.offered(provider)) {
          return (
            <div key={index}>
              <h3>{name}</h3>
              <p className="muted">Not offered: its URL matches no code host connection.</p>
            </div>
          );
        }
        const stored = credentials.find((c) => c.serviceType === 'reviewhost' && c.serviceId === serviceIdOf(provider));
        return (
          <div key={index}>
            <h3>{name}</h3>
            {stored === undefined ? (
              <p>No credentials stored.</p>
            ) : (
              <div className="actions">
                <span>
                  Credentials stored for <strong>{stored.accountId}</strong>.
                </span>
                <a
                  className="button secondary"
                  href={`${ACCOUNT_SECURITY_PATHS.removeCredentials}?provider=${index}`}
                  aria-label={`Remove credentials for ${name}`}
                >
                  Remove credentials
                </a>
              </div>
            )}
            <PostForm action={ACCOUNT_SECURITY_PATHS.addCredentials} csrf={csrf} label={`Credentials for ${name}`}>
              <input type="hidden" name="provider" value={String(index)} />
              <Field
                id={`reviewhost-${index}-username`}
                name="username"
                label="Username"
                value={typed?.provider === index ? typed.username : ''}
                required
                autoComplete="off"
              />
              <Field id={`reviewhost-${index}-password`} name="password" label="HTTP password" type="password" required autoComplete="off" />
              <div className="actions">
                <button type="submit">{stored === undefined ? 'Add credentials' : 'Replace credentials'}</button>
              </div>
            </PostForm>
          </div>
        );
      })}
    </section>
  );
}

function ApplicationsSection(props: { readonly approvals: readonly Approval[] }): ReactElement {
  return (
    <section className="panel" aria-labelledby="applications-heading">
      <h2 id="applications-heading">Authorized applications</h2>
      <DataTable
        columns={['Application', 'Scopes', 'Approved', 'Action']}
        rows={props.approvals}
        rowKey={({ consent }) => consent.clientId}
        empty="You have not approved any application."
        row={({ consent, appName }) => {
          const name = appName ?? consent.clientId;
          return (
            <>
              <td>
                {name}
                <br />
                <span className="hint mono">{consent.clientId}</span>
              </td>
              <td>
                {consent.scopes.map((scope) => (
                  <code key={scope}>{scope} </code>
                ))}
              </td>
              <td>{formatTime(consent.grantedAt)}</td>
              <td>
                <a
                  className="button secondary"
                  href={`${ACCOUNT_SECURITY_PATHS.revokeConsent}?${new URLSearchParams({ clientId: consent.clientId }).toString()}`}
                  aria-label={`Revoke ${name}`}
                >
                  Revoke
                </a>
              </td>
            </>
          );
        }}
      />
    </section>
  );
}

/** The account's approvals with their apps' names. */
async function approvalsOf(ctx: Context, userId: string): Promise<readonly Approval[]> {
  const consents = await ctx.deps.store.oauth.listConsents(userId);
  return Promise.all(consents.map(async (consent) => ({ consent, appName: (await ctx.deps.store.oauth.findApp(consent.clientId))?.name ?? null })));
}

/** The "Account security" page with a notice (and, after a refused review host form, what was typed). */
async function render(ctx: Context, page: PageContext, status: number, notice: PageNotice | null, typed: Typed | null = null): Promise<RouteResponse> {
  const { store, providers } = ctx.deps;
  const user = page.viewer;
  const [links, credentials, approvals] = await Promise.all([store.accounts.links(user.id), store.accounts.credentials(user.id), approvalsOf(ctx, user.id)]);
  const ways = signInMethodCount(links, user, providers);
  const lastOf = (link: ExternalAccountRecord): boolean => signInMethodCount([link], { passwordHash: null }, providers) === 1 && ways <= 1;
  return pageResponse(page, status, {
    title: 'Account security',
    nav: NAV,
    notice,
    children: [
      <IdentitiesSection key="identities" links={links} lastOf={lastOf} />,
      <LinkSection key="link" links={ctx.links} />,
      <ReviewhostSection key="reviewhost" ctx={ctx} csrf={page.csrf} credentials={credentials} typed={typed} />,
      <ApplicationsSection key="applications" approvals={approvals} />,
    ],
  });
}

/** A confirmation page: what will happen, the form that does it (with its hidden fields) and a way back. */
function confirmation(
  page: PageContext,
  content: { readonly title: string; readonly text: ReactElement; readonly action: string; readonly fields: Readonly<Record<string, string>>; readonly button: string },
): RouteResponse {
  return pageResponse(page, 200, {
    title: content.title,
    nav: NAV,
    children: (
      <section className="panel" aria-label={content.title}>
        {content.text}
        <ConfirmForm action={content.action} csrf={page.csrf} label={content.title} fields={content.fields} button={content.button} cancelHref={ACCOUNT_SECURITY_PATH} />
      </section>
    ),
  });
}

/** The answer to a confirmation page asked for something the account does not have. */
function notFound(page: PageContext, title: string, text: string): RouteResponse {
  return notFoundPage(page, { title, nav: NAV, text, back: { href: ACCOUNT_SECURITY_PATH, label: 'Back to Account security' } });
}

const targetOf = (params: URLSearchParams): Pick<ExternalAccountRecord, 'serviceType' | 'serviceId' | 'accountId'> => ({
  serviceType: params.get('serviceType') ?? '',
  serviceId: params.get('serviceId') ?? '',
  accountId: params.get('accountId') ?? '',
});

async function confirmUnlink(ctx: Context, page: PageContext): Promise<RouteResponse> {
  const target = targetOf(page.request.url.searchParams);
  const links = await ctx.deps.store.accounts.links(page.viewer.id);
  const link = links.find((l) => l.serviceType === target.serviceType && l.serviceId === target.serviceId && l.accountId === target.accountId);
  if (link === undefined) return notFound(page, 'Unlink identity', 'No such linked identity.');
  return confirmation(page, {
    title: 'Unlink identity',
    text: (
      <p>
        Unlink the <strong>{link.serviceType}</strong> account <strong>{link.accountId}</strong>
        {link.serviceId === '' ? null : <> at <span className="mono">{link.serviceId}</span></>}? You can no longer sign in with it until you
        link it again.
      </p>
    ),
    action: ACCOUNT_SECURITY_PATHS.unlink,
    fields: target,
    button: 'Unlink',
  });
}

async function unlink(ctx: Context, page: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const user = page.viewer;
  const target = targetOf(form);
  // a `noSignIn` provider is no way in: unlinking must leave one that signs in
  const providerTypes = ctx.deps.providers.filter(providerSignsIn).map((p) => p.type);
  // the rule (§5.4 rule 4) is decided on the links read in the same transaction that removes the link
  const removed = await auditedTransaction(ctx.deps.store, async (tx): Promise<Result<ExternalAccountRecord, UnlinkRefusal>> => {
    const [current, links] = await Promise.all([tx.accounts.get(user.id), tx.accounts.links(user.id)]);
    if (current === null) return err('not_linked');
    const decision = decideUnlink({ links, hasPassword: current.passwordHash !== null, providerTypes, target });
    if (decision.isErr() || decision.value.kind === 'deny') return err(decision.isOk() && decision.value.kind === 'deny' ? decision.value.reason : 'not_linked');
    const unlinked = (await tx.accounts.unlink(user.id, target)).mapErr((): UnlinkRefusal => 'not_linked');
    if (unlinked.isOk()) {
      // in the same transaction: the link is removed only with its audit entry
      const details = { serviceType: target.serviceType, serviceId: target.serviceId };
      await ctx.deps.audit({ entity: 'user.externalAccount', action: 'unlinked', reason: null, actorUserId: user.id, subjectUserId: user.id, details }, tx);
    }
    return unlinked;
  });
  if (removed.isErr()) {
    const last = removed.error === 'last_way_to_sign_in';
    const text = last
      ? 'This is the last way to sign in to your account, so it cannot be unlinked. Link another identity or set a password first.'
      : 'No such linked identity.';
    return render(ctx, page, last ? 409 : 404, { kind: 'error', text });
  }
  return redirectResponse(`${ACCOUNT_SECURITY_PATH}?done=unlinked`);
}

type UnlinkRefusal = 'not_linked' | 'last_way_to_sign_in';

function pickReviewhost(ctx: Context, value: string | null): Reviewhost | null {
  const entry = ctx.reviewhosts.find((r) => String(r.index) === value);
  return entry === undefined || !ctx.offered(entry.provider) ? null : entry;
}

async function addCredentials(ctx: Context, page: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const { deps } = ctx;
  const user = page.viewer;
  const picked = pickReviewhost(ctx, form.get('provider'));
  if (picked === null) return render(ctx, page, 404, { kind: 'error', text: 'No such review host.' });
  const { provider } = picked;
  const username = form.get('username') ?? '';
  const password = form.get('password') ?? '';
  const typed: Typed = { provider: picked.index, username };
  const check = await deps.checkReviewhostCredentials(provider.url, username, password);
  const details = { serviceType: 'reviewhost', serviceId: serviceIdOf(provider) };
  if (check.kind !== 'valid') {
    const refused = check.kind === 'refused';
    // a refusal changes nothing: it is recorded as an event
    await deps.audit(
      {
        entity: 'user.credentials',
        action: 'failed',
        reason: refused ? 'credentials refused by the review host' : 'review host unreachable',
        actorUserId: user.id,
        subjectUserId: user.id,
        details,
      },
      deps.store,
    );
    const text = refused ? 'The review host refused these credentials.' : 'The review host could not be reached. Try again later.';
    return render(ctx, page, refused ? 400 : 502, { kind: 'error', text }, typed);
  }
  const sealed = sealSecret(deps.credentialsKey, deps.randomBytes(12), password, credentialContext(user.id, serviceIdOf(provider)));
  const put =
    sealed === null
      ? null
      : await auditedTransaction(deps.store, async (tx) => {
          const stored = await tx.accounts.putCredential({ userId: user.id, ...details, accountId: check.username, sealed, createdAt: deps.now() });
          if (stored.isOk()) await deps.audit({ entity: 'user.credentials', action: 'added', reason: null, actorUserId: user.id, subjectUserId: user.id, details }, tx);
          return stored;
        });
  if (put === null || put.isErr()) return render(ctx, page, 500, { kind: 'error', text: 'Could not store the credentials.' }, typed);
  return redirectResponse(`${ACCOUNT_SECURITY_PATH}?done=credentials_added`);
}

async function confirmRemoveCredentials(ctx: Context, page: PageContext): Promise<RouteResponse> {
  const picked = pickReviewhost(ctx, page.request.url.searchParams.get('provider'));
  const credentials = await ctx.deps.store.accounts.credentials(page.viewer.id);
  const stored = picked === null ? undefined : credentials.find((c) => c.serviceType === 'reviewhost' && c.serviceId === serviceIdOf(picked.provider));
  if (picked === null || stored === undefined) return notFound(page, 'Remove credentials', 'No credentials to remove.');
  return confirmation(page, {
    title: 'Remove credentials',
    text: (
      <p>
        Remove the credentials of <strong>{stored.accountId}</strong> for <strong>{reviewhostName(picked.provider)}</strong>?
      </p>
    ),
    action: ACCOUNT_SECURITY_PATHS.removeCredentials,
    fields: { provider: String(picked.index) },
    button: 'Remove credentials',
  });
}

async function removeCredentials(ctx: Context, page: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const user = page.viewer;
  const picked = pickReviewhost(ctx, form.get('provider'));
  const serviceId = picked === null ? null : serviceIdOf(picked.provider);
  const removed =
    serviceId === null
      ? null
      : await auditedTransaction(ctx.deps.store, async (tx) => {
          const gone = await tx.accounts.deleteCredential(user.id, 'reviewhost', serviceId);
          if (gone.isOk()) {
            const details = { serviceType: 'reviewhost', serviceId };
            await ctx.deps.audit({ entity: 'user.credentials', action: 'removed', reason: null, actorUserId: user.id, subjectUserId: user.id, details }, tx);
          }
          return gone;
        });
  if (removed === null || removed.isErr()) return render(ctx, page, 404, { kind: 'error', text: 'No credentials to remove.' });
  return redirectResponse(`${ACCOUNT_SECURITY_PATH}?done=credentials_removed`);
}

async function confirmRevoke(ctx: Context, page: PageContext): Promise<RouteResponse> {
  const clientId = page.request.url.searchParams.get('clientId') ?? '';
  const consent = await ctx.deps.store.oauth.findConsent(page.viewer.id, clientId);
  if (consent === null) return notFound(page, 'Revoke application', 'No such authorized application.');
  const name = (await ctx.deps.store.oauth.findApp(clientId))?.name ?? clientId;
  return confirmation(page, {
    title: 'Revoke application',
    text: (
      <p>
        Revoke your approval of <strong>{name}</strong>? The tokens it holds for your account stop working at once, and it has to ask you again before it gets new access.
      </p>
    ),
    action: ACCOUNT_SECURITY_PATHS.revokeConsent,
    fields: { clientId },
    button: 'Revoke',
  });
}

async function revokeConsent(ctx: Context, page: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const user = page.viewer;
  const clientId = form.get('clientId') ?? '';
  const revoked = await auditedTransaction(ctx.deps.store, async (tx) => {
    const gone = await tx.oauth.revokeConsent(user.id, clientId);
    if (gone.isOk()) await ctx.deps.audit({ entity: 'oauth.consent', action: 'revoked', reason: null, actorUserId: user.id, subjectUserId: user.id, details: { clientId } }, tx);
    return gone;
  });
  if (revoked.isErr()) return render(ctx, page, 404, { kind: 'error', text: 'No such authorized application.' });
  return redirectResponse(`${ACCOUNT_SECURITY_PATH}?done=consent_revoked`);
}

/**
 * The "Account security" routes: the page `GET /settings/security`; the forms `POST /settings/security/unlink`,
 * `POST /settings/security/reviewhost`, `POST /settings/security/reviewhost/remove` and
 * `POST /settings/security/oauth/revoke`; and the confirmation pages `GET` of the unlink, remove and revoke paths.
 * A person who is not signed in is sent to the sign-in page (`GET`) or refused with 401 (`POST`); a post that
 * does not come from this site's page is refused with 403 and changes nothing.
 *
 * @param deps - The pages' dependencies, the providers, the key and the code host connections.
 * @returns The routes.
 * @example
 * ```ts
 * accountSecurityRoutes(deps).map((r) => r.path);
 * // ['/settings/security', '/settings/security/unlink', '/settings/security/unlink', …]
 * ```
 */
export function accountSecurityRoutes(deps: AccountSecurityDeps): readonly Route[] {
  const ctx: Context = {
    deps,
    reviewhosts: deps.providers.flatMap((provider, index): Reviewhost[] => (provider.type === 'reviewhost' ? [{ index, provider }] : [])),
    offered: (provider) => reviewhostMatchesConnection(provider, deps.codeHostConnectionUrls).unwrapOr(false),
    links: linkProviderLinks(deps.providers),
  };
  const paths = ACCOUNT_SECURITY_PATHS;
  return [
    pageRoute(deps, ACCOUNT_SECURITY_PATH, 'signed_in', (page) => render(ctx, page, 200, doneNotice(page.request, DONE))),
    pageRoute(deps, paths.unlink, 'signed_in', (page) => confirmUnlink(ctx, page)),
    formRoute(deps, paths.unlink, 'signed_in', (page, form) => unlink(ctx, page, form)),
    formRoute(deps, paths.addCredentials, 'signed_in', (page, form) => addCredentials(ctx, page, form)),
    pageRoute(deps, paths.removeCredentials, 'signed_in', (page) => confirmRemoveCredentials(ctx, page)),
    formRoute(deps, paths.removeCredentials, 'signed_in', (page, form) => removeCredentials(ctx, page, form)),
    pageRoute(deps, paths.revokeConsent, 'signed_in', (page) => confirmRevoke(ctx, page)),
    formRoute(deps, paths.revokeConsent, 'signed_in', (page, form) => revokeConsent(ctx, page, form)),
  ];
}
