/**
 * The "Account security" settings page (spec §5.3 `reviewhost`, §5.4 rule 4): the identities linked to the
 * signed-in account, which the person can unlink (never the last way to sign in), links to add another
 * provider, and the review host credentials they can add (checked against the host, sealed at rest, never shown).
 *
 * @module
 */
import { err, type Result } from 'neverthrow';
import type { AuthProvider, ReviewhostProvider } from '../../core/auth-providers.js';
import { reviewhostMatchesConnection } from '../../core/provider-urls.js';
import { countSignInMethods, decideUnlink } from '../../core/unlink.js';
import { escapeHtml, mediaType } from '../http-io.js';
import type { Route, RouteRequest, RouteResponse } from '../route.js';
import type { SignInPageLink } from '../sessions.js';
import type { AuditEvent, ExternalAccountRecord, ProviderCredentialRecord, UserRecord } from '../store/types.js';
import { sealSecret } from './credentials.js';
import { htmlPage, htmlResponse, redirectResponse } from './responses.js';
import { checkReviewhostCredentials } from './reviewhost.js';
import { signInLinks } from './sign-in-links.js';
import type { ProviderStore } from './provider-store.js';

/**
 * The path of the "Account security" page.
 *
 * @example
 * ```ts
 * await fetch(`${url}${ACCOUNT_SECURITY_PATH}`, { headers: { cookie } });
 * ```
 */
export const ACCOUNT_SECURITY_PATH = '/settings/security';

const UNLINK_PATH = `${ACCOUNT_SECURITY_PATH}/unlink`;
const ADD_CREDENTIALS_PATH = `${ACCOUNT_SECURITY_PATH}/reviewhost`;
const REMOVE_CREDENTIALS_PATH = `${ACCOUNT_SECURITY_PATH}/reviewhost/remove`;
const MAX_FORM_BYTES = 8 * 1024;

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
  return countSignInMethods({ links, hasPassword: user.passwordHash !== null, providerTypes: providers.map((p) => p.type) });
}

/**
 * What the "Account security" routes need, built once by the server and passed down.
 *
 * @example
 * ```ts
 * const deps: AccountSecurityDeps = { store, providers, currentUser, now, randomBytes, audit, credentialsKey,
 *   codeHostConnectionUrls: ['https://review.example.com'], origin: null, fetch, upstreamTimeoutMs: 10_000 };
 * ```
 */
export interface AccountSecurityDeps {
  /** The store (links, credentials, and the unlink transaction). */
  readonly store: ProviderStore;
  /** The configured providers. */
  readonly providers: readonly AuthProvider[];
  /** The account the request is signed in to, or `null`. */
  readonly currentUser: (request: RouteRequest) => Promise<UserRecord | null>;
  /** The clock. */
  readonly now: () => number;
  /** The random source (IVs). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: (event: AuditEvent) => Promise<void>;
  /** The 32-byte AES-256-GCM key that seals stored credentials. */
  readonly credentialsKey: Uint8Array;
  /** The URLs of the code host connections; a review host is offered only when its `url` matches one. */
  readonly codeHostConnectionUrls: readonly string[];
  /** The site's origin for the same-origin check of the forms, or `null`. */
  readonly origin: string | null;
  /** `fetch` for the review host check. */
  readonly fetch: typeof fetch;
  /** How long the review host check may take, in milliseconds; a timeout counts as unreachable. */
  readonly upstreamTimeoutMs: number;
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
type Notice = { readonly error: boolean; readonly text: string } | null;

/** The shared part of the routes, built once. */
interface Context {
  readonly deps: AccountSecurityDeps;
  readonly reviewhosts: readonly Reviewhost[];
  readonly offered: (provider: ReviewhostProvider) => boolean;
  /** The sign-in links (to link another provider while signed in, §5.4 rule 4). */
  readonly links: readonly SignInPageLink[];
}

const serviceIdOf = (provider: ReviewhostProvider): string => provider.url.replace(/\/+$/, '');

function linkRow(link: ExternalAccountRecord, last: boolean): string {
  const action = last
    ? '<span title="the last way to sign in">last way to sign in</span>'
    : `<form class="inline" method="post" action="${UNLINK_PATH}"><input type="hidden" name="serviceType" value="${escapeHtml(link.serviceType)}"><input type="hidden" name="serviceId" value="${escapeHtml(link.serviceId)}"><input type="hidden" name="accountId" value="${escapeHtml(link.accountId)}"><button type="submit">Unlink</button></form>`;
  return `<tr><td>${escapeHtml(link.serviceType)}</td><td>${escapeHtml(link.serviceId === '' ? '(public)' : link.serviceId)}</td><td>${escapeHtml(link.accountId)}</td><td>${action}</td></tr>`;
}

function reviewhostSection(ctx: Context, credentials: readonly ProviderCredentialRecord[]): string {
  return ctx.reviewhosts
    .map(({ index, provider }) => {
      const name = escapeHtml(provider.displayName ?? provider.url);
      if (!ctx.offered(provider)) return `<h3>${name}</h3><p>Not offered: its URL matches no code host connection.</p>`;
      const stored = credentials.find((c) => c.serviceType === 'reviewhost' && c.serviceId === serviceIdOf(provider));
      const storedLine =
        stored === undefined
          ? '<p>No credentials stored.</p>'
          : `<p>Credentials stored for <strong>${escapeHtml(stored.accountId)}</strong>.</p><form method="post" action="${REMOVE_CREDENTIALS_PATH}"><input type="hidden" name="provider" value="${index}"><button type="submit">Remove credentials</button></form>`;
      return `<h3>${name}</h3>${storedLine}<form method="post" action="${ADD_CREDENTIALS_PATH}"><input type="hidden" name="provider" value="${index}">
<label for="u${index}">Username</label><input id="u${index}" name="username" autocomplete="off" required>
<label for="p${index}">HTTP password</label><input id="p${index}" name="password" type="password" autocomplete="off" required>
<button type="submit">${stored === undefined ? 'Add credentials' : 'Replace credentials'}</button></form>`;
    })
    .join('\n');
}

async function render(ctx: Context, user: UserRecord, status: number, message: Notice): Promise<RouteResponse> {
  const { store, providers } = ctx.deps;
  const { links: signInLinks } = ctx;
  const [links, credentials] = await Promise.all([store.accounts.links(user.id), store.accounts.credentials(user.id)]);
  const ways = signInMethodCount(links, user, providers);
  const rows = links.map((link) => linkRow(link, signInMethodCount([link], { passwordHash: null }, providers) === 1 && ways <= 1)).join('\n');
  const identities =
    links.length === 0
      ? '<p>No external identity is linked to this account.</p>'
      : `<table><thead><tr><th>Provider</th><th>At</th><th>Account</th><th></th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
  const addLinks =
    signInLinks.length === 0
      ? ''
      : `<h2>Link another identity</h2><ul>${signInLinks
          .map((l) => `<li><a href="${escapeHtml(`${l.loginPath}&returnTo=${encodeURIComponent(ACCOUNT_SECURITY_PATH)}`)}">${escapeHtml(l.label)}</a></li>`)
          .join('')}</ul>`;
  const notice = message === null ? '' : `<p class="${message.error ? 'error' : 'notice'}" role="${message.error ? 'alert' : 'status'}">${escapeHtml(message.text)}</p>`;
  const review = ctx.reviewhosts.length === 0 ? '' : `<h2>Review host credentials</h2>${reviewhostSection(ctx, credentials)}`;
  return htmlResponse(
    status,
    htmlPage(
      'Account security',
      `<h1>Account security</h1>${notice}<p>Signed in as <strong>${escapeHtml(user.username)}</strong>.</p>
<h2>Linked identities</h2>${identities}${addLinks}${review}`,
    ),
    { 'cache-control': 'no-store' },
  );
}

async function unlink(ctx: Context, user: UserRecord, form: URLSearchParams): Promise<RouteResponse> {
  const target = { serviceType: form.get('serviceType') ?? '', serviceId: form.get('serviceId') ?? '', accountId: form.get('accountId') ?? '' };
  const providerTypes = ctx.deps.providers.map((p) => p.type);
  // the rule (§5.4 rule 4) is decided on the links read in the same transaction that removes the link
  const removed = await ctx.deps.store.transaction(async (tx): Promise<Result<ExternalAccountRecord, UnlinkRefusal>> => {
    const [current, links] = await Promise.all([tx.accounts.get(user.id), tx.accounts.links(user.id)]);
    if (current === null) return err('not_linked');
    const decision = decideUnlink({ links, hasPassword: current.passwordHash !== null, providerTypes, target });
    if (decision.isErr() || decision.value.kind === 'deny') return err(decision.isOk() && decision.value.kind === 'deny' ? decision.value.reason : 'not_linked');
    return (await tx.accounts.unlink(user.id, target)).mapErr((): UnlinkRefusal => 'not_linked');
  });
  if (removed.isErr()) {
    const last = removed.error === 'last_way_to_sign_in';
    const text = last
      ? 'This is the last way to sign in to your account, so it cannot be unlinked. Link another identity or set a password first.'
      : 'No such linked identity.';
    return render(ctx, user, last ? 409 : 404, { error: true, text });
  }
  await ctx.deps.audit({
    entity: 'user.externalAccount',
    action: 'unlinked',
    reason: null,
    actorUserId: user.id,
    subjectUserId: user.id,
    details: { serviceType: target.serviceType, serviceId: target.serviceId },
  });
  return render(ctx, user, 200, { error: false, text: 'The identity was unlinked.' });
}

type UnlinkRefusal = 'not_linked' | 'last_way_to_sign_in';

function pickReviewhost(ctx: Context, form: URLSearchParams): ReviewhostProvider | null {
  const entry = ctx.reviewhosts.find((r) => String(r.index) === form.get('provider'));
  return entry === undefined || !ctx.offered(entry.provider) ? null : entry.provider;
}

async function addCredentials(ctx: Context, user: UserRecord, form: URLSearchParams): Promise<RouteResponse> {
  const { deps } = ctx;
  const provider = pickReviewhost(ctx, form);
  if (provider === null) return render(ctx, user, 404, { error: true, text: 'No such review host.' });
  const password = form.get('password') ?? '';
  const check = await checkReviewhostCredentials(provider.url, form.get('username') ?? '', password, deps.fetch, deps.upstreamTimeoutMs);
  const details = { serviceType: 'reviewhost', serviceId: serviceIdOf(provider) };
  if (check.kind !== 'valid') {
    const refused = check.kind === 'refused';
    await deps.audit({
      entity: 'user.credentials',
      action: 'failed',
      reason: refused ? 'credentials refused by the review host' : 'review host unreachable',
      actorUserId: user.id,
      subjectUserId: user.id,
      details,
    });
    return render(ctx, user, refused ? 400 : 502, {
      error: true,
      text: refused ? 'The review host refused these credentials.' : 'The review host could not be reached. Try again later.',
    });
  }
  const sealed = sealSecret(deps.credentialsKey, deps.randomBytes(12), password, credentialContext(user.id, serviceIdOf(provider)));
  const put =
    sealed === null
      ? null
      : await deps.store.accounts.putCredential({ userId: user.id, ...details, accountId: check.username, sealed, createdAt: deps.now() });
  if (put === null || put.isErr()) return render(ctx, user, 500, { error: true, text: 'Could not store the credentials.' });
  await deps.audit({ entity: 'user.credentials', action: 'added', reason: null, actorUserId: user.id, subjectUserId: user.id, details });
  return render(ctx, user, 200, { error: false, text: 'The credentials were checked and stored.' });
}

async function removeCredentials(ctx: Context, user: UserRecord, form: URLSearchParams): Promise<RouteResponse> {
  const provider = pickReviewhost(ctx, form);
  const removed = provider === null ? null : await ctx.deps.store.accounts.deleteCredential(user.id, 'reviewhost', serviceIdOf(provider));
  if (removed === null || removed.isErr()) return render(ctx, user, 404, { error: true, text: 'No credentials to remove.' });
  return render(ctx, user, 200, { error: false, text: 'The credentials were removed.' });
}

/**
 * Whether a form post comes from this site: no `Origin` header, or the site's origin, or the request's own host.
 *
 * @param request - The request.
 * @param siteOrigin - The site's origin, or `null`.
 * @returns Whether to accept it.
 * @example
 * ```ts
 * sameOriginPost(request, 'https://search.example.com'); // false for `Origin: https://evil.example`
 * ```
 * @internal
 */
export function sameOriginPost(request: RouteRequest, siteOrigin: string | null): boolean {
  const origin = request.headers['origin'];
  if (origin === undefined) return true;
  if (siteOrigin !== null && origin === siteOrigin) return true;
  const host = request.headers['host'];
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

function formOf(request: RouteRequest): URLSearchParams | null {
  if (mediaType(request.headers['content-type']) !== 'application/x-www-form-urlencoded' || request.body === null) return null;
  return new URLSearchParams(request.body);
}

type Post = (ctx: Context, user: UserRecord, form: URLSearchParams) => Promise<RouteResponse>;

/** A person who is not signed in: sent to the sign-in page (`GET`), else refused with 401. */
function notSignedIn(request: RouteRequest): RouteResponse {
  if (request.method === 'GET' || request.method === 'HEAD') return redirectResponse(`/.auth/sign-in?returnTo=${encodeURIComponent(ACCOUNT_SECURITY_PATH)}`);
  return htmlResponse(401, htmlPage('Account security', '<h1>Account security</h1><p class="error" role="alert">Sign in first.</p>'));
}

function postHandler(ctx: Context, post: Post): Route['handler'] {
  return async (request) => {
    const user = await ctx.deps.currentUser(request);
    if (user === null) return notSignedIn(request);
    if (request.method !== 'POST') return htmlResponse(405, htmlPage('Account security', '<p>Use POST.</p>'), { allow: 'POST' });
    if (!sameOriginPost(request, ctx.deps.origin)) return render(ctx, user, 403, { error: true, text: 'Cross-origin form submissions are refused.' });
    const form = formOf(request);
    if (form === null) return render(ctx, user, 400, { error: true, text: 'Send the form as application/x-www-form-urlencoded.' });
    return post(ctx, user, form);
  };
}

/**
 * The "Account security" routes: `GET /settings/security`, and the form posts `POST /settings/security/unlink`,
 * `POST /settings/security/reviewhost` and `POST /settings/security/reviewhost/remove` (forms of at most 8 KiB).
 * A person who is not signed in is sent to the sign-in page (`GET`) or refused with 401 (`POST`).
 *
 * @param deps - Store, providers, who is signed in, key and code host connections.
 * @returns The routes.
 * @example
 * ```ts
 * accountSecurityRoutes(deps).map((r) => r.path);
 * // ['/settings/security', '/settings/security/unlink', '/settings/security/reviewhost', '/settings/security/reviewhost/remove']
 * ```
 */
export function accountSecurityRoutes(deps: AccountSecurityDeps): readonly Route[] {
  const ctx: Context = {
    deps,
    reviewhosts: deps.providers.flatMap((provider, index): Reviewhost[] => (provider.type === 'reviewhost' ? [{ index, provider }] : [])),
    offered: (provider) => reviewhostMatchesConnection(provider, deps.codeHostConnectionUrls).unwrapOr(false),
    links: signInLinks(deps.providers),
  };
  const body = { limit: MAX_FORM_BYTES, contentTypes: ['application/x-www-form-urlencoded'], decompress: false };
  const post = (path: string, handle: Post): Route => ({ methods: ['GET', 'POST'], path, body, handler: postHandler(ctx, handle) });
  return [
    {
      methods: ['GET', 'POST'],
      path: ACCOUNT_SECURITY_PATH,
      handler: async (request) => {
        const user = await deps.currentUser(request);
        if (user === null) return notSignedIn(request);
        if (request.method !== 'GET' && request.method !== 'HEAD') return htmlResponse(405, htmlPage('Account security', '<p>Use GET.</p>'), { allow: 'GET, HEAD' });
        return render(ctx, user, 200, null);
      },
    },
    post(UNLINK_PATH, unlink),
    post(ADD_CREDENTIALS_PATH, addCredentials),
    post(REMOVE_CREDENTIALS_PATH, removeCredentials),
  ];
}
