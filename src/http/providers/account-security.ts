/**
 * The "Account security" settings page (spec §5.3 `reviewhost`, §5.4 rule 4): the identities linked to the
 * signed-in account, which the person can unlink (never the last way to sign in), links to add another
 * provider, and the review host credentials they can add (checked against the host, sealed at rest, never shown).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthProvider, ReviewhostProvider } from '../../core/auth-providers.js';
import { reviewhostMatchesConnection } from '../../core/provider-urls.js';
import { escapeHtml, readBody, sendHtml, sendRedirect } from '../http-io.js';
import { originAllowed } from '../sessions.js';
import type { Sessions } from '../sessions.js';
import type { AuditEvent, ExternalAccountRecord, ProviderCredentialRecord, Store, UserRecord } from '../store.js';
import { checkReviewhostCredentials, sealSecret } from './credentials.js';
import { upstreamTimeoutMs } from './upstream.js';
import type { SignInPageLink } from '../sessions.js';

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
 * How many ways to sign in an account keeps with these links: its password (when the `builtin` provider is
 * configured) plus each linked identity of a configured sign-in provider type. A review host link is not a way
 * to sign in (it only adds credentials).
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
  user: UserRecord,
  providers: readonly AuthProvider[],
): number {
  const password = user.passwordHash !== null && providers.some((p) => p.type === 'builtin') ? 1 : 0;
  const viaProviders = links.filter((link) =>
    providers.some((p) => p.type === link.serviceType && p.type !== 'builtin' && p.type !== 'reviewhost'),
  ).length;
  return password + viaProviders;
}

/**
 * Options of {@link createAccountSecurity}.
 *
 * @example
 * ```ts
 * const options: AccountSecurityOptions = { store, providers, sessions, now, randomBytes, audit,
 *   credentialsKey, codeHostConnectionUrls: ['https://review.example.com'], links: [], origin: null };
 * ```
 */
export interface AccountSecurityOptions {
  /** The store. */
  readonly store: Store;
  /** The configured providers. */
  readonly providers: readonly AuthProvider[];
  /** The session layer (who is signed in). */
  readonly sessions: Sessions;
  /** The clock. */
  readonly now: () => number;
  /** The random source (IVs). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** The 32-byte AES-256-GCM key that seals stored credentials. */
  readonly credentialsKey: Uint8Array;
  /** The URLs of the code host connections; a review host is offered only when its `url` matches one. */
  readonly codeHostConnectionUrls: readonly string[];
  /** The sign-in links (to link another provider while signed in, §5.4 rule 4). */
  readonly links: readonly SignInPageLink[];
  /** The site's origin for the same-origin check of the forms, or `null`. */
  readonly origin: string | null;
  /** `fetch` for the review host check. */
  readonly fetch?: typeof fetch;
  /** How long the review host check may take, in milliseconds (default 10 s); a timeout counts as unreachable. */
  readonly upstreamTimeoutMs?: number;
}

/**
 * The "Account security" routes.
 *
 * @example
 * ```ts
 * if (await accountSecurity.handle(req, res, url)) return;
 * ```
 */
export interface AccountSecurity {
  /** Serves the page and its forms; `false` for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
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

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · gatehouse</title><link rel="icon" href="data:,">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}table{border-collapse:collapse}td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}form.inline{display:inline}label{display:block;margin:.6rem 0 .2rem}.error{color:#b00020}.notice{color:#155724}</style>
</head><body>${body}</body></html>`;
}

/**
 * Creates the "Account security" routes: `GET /settings/security`, and the form posts
 * `POST /settings/security/unlink`, `POST /settings/security/reviewhost` and `POST /settings/security/reviewhost/remove`.
 *
 * @param options - Store, providers, sessions, key and code host connections.
 * @returns The routes.
 * @example
 * ```ts
 * const accountSecurity = createAccountSecurity(options);
 * ```
 */
export function createAccountSecurity(options: AccountSecurityOptions): AccountSecurity {
  const { store, providers, sessions, audit } = options;
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = upstreamTimeoutMs(options.upstreamTimeoutMs);
  const reviewhosts = providers.flatMap((p, index): { index: number; provider: ReviewhostProvider }[] =>
    p.type === 'reviewhost' ? [{ index, provider: p }] : [],
  );
  const offered = (provider: ReviewhostProvider): boolean =>
    reviewhostMatchesConnection(provider, options.codeHostConnectionUrls).match(
      (v) => v,
      () => false,
    );
  const serviceIdOf = (provider: ReviewhostProvider): string => provider.url.replace(/\/+$/, '');

  const render = async (res: ServerResponse, user: UserRecord, status: number, message: { error: boolean; text: string } | null): Promise<void> => {
    const links = await store.listExternalAccounts(user.id);
    const credentials = await store.listProviderCredentials(user.id);
    const ways = signInMethodCount(links, user, providers);
    const rows = links
      .map((link) => {
        const counts = signInMethodCount([link], { ...user, passwordHash: null }, providers) === 1;
        const last = counts && ways <= 1;
        return `<tr><td>${escapeHtml(link.serviceType)}</td><td>${escapeHtml(link.serviceId === '' ? '(public)' : link.serviceId)}</td><td>${escapeHtml(link.accountId)}</td><td>${
          last
            ? '<span title="the last way to sign in">last way to sign in</span>'
            : `<form class="inline" method="post" action="${UNLINK_PATH}"><input type="hidden" name="serviceType" value="${escapeHtml(link.serviceType)}"><input type="hidden" name="serviceId" value="${escapeHtml(link.serviceId)}"><input type="hidden" name="accountId" value="${escapeHtml(link.accountId)}"><button type="submit">Unlink</button></form>`
        }</td></tr>`;
      })
      .join('\n');
    const identities =
      links.length === 0
        ? '<p>No external identity is linked to this account.</p>'
        : `<table><thead><tr><th>Provider</th><th>At</th><th>Account</th><th></th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
    const addLinks =
      options.links.length === 0
        ? ''
        : `<h2>Link another identity</h2><ul>${options.links
            .map((l) => `<li><a href="${escapeHtml(`${l.loginPath}&returnTo=${encodeURIComponent(ACCOUNT_SECURITY_PATH)}`)}">${escapeHtml(l.label)}</a></li>`)
            .join('')}</ul>`;
    const reviewSection = reviewhosts
      .map(({ index, provider }) => {
        const name = escapeHtml(provider.displayName ?? provider.url);
        if (!offered(provider)) return `<h3>${name}</h3><p>Not offered: its URL matches no code host connection.</p>`;
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
    const notice = message === null ? '' : `<p class="${message.error ? 'error' : 'notice'}" role="${message.error ? 'alert' : 'status'}">${escapeHtml(message.text)}</p>`;
    sendHtml(
      res,
      status,
      page(
        'Account security',
        `<h1>Account security</h1>${notice}<p>Signed in as <strong>${escapeHtml(user.username)}</strong>.</p>
<h2>Linked identities</h2>${identities}${addLinks}${reviewhosts.length === 0 ? '' : `<h2>Review host credentials</h2>${reviewSection}`}`,
      ),
      { 'cache-control': 'no-store' },
    );
  };

  const readForm = async (req: IncomingMessage): Promise<URLSearchParams | null> => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'application/x-www-form-urlencoded') return null;
    const body = await readBody(req, MAX_FORM_BYTES);
    return body.isOk() ? new URLSearchParams(body.value) : null;
  };

  const unlink = async (res: ServerResponse, user: UserRecord, form: URLSearchParams): Promise<void> => {
    const serviceType = form.get('serviceType') ?? '';
    const serviceId = form.get('serviceId') ?? '';
    const accountId = form.get('accountId') ?? '';
    // the check and the removal happen in one atomic store step
    const removed = await store.deleteExternalAccount(user.id, serviceType, serviceId, accountId, (remaining, current) =>
      signInMethodCount(remaining, current, providers) >= 1,
    );
    if (removed.isErr()) {
      const text =
        removed.error.code === 'guard_refused'
          ? 'This is the last way to sign in to your account, so it cannot be unlinked. Link another identity or set a password first.'
          : 'No such linked identity.';
      await render(res, user, removed.error.code === 'guard_refused' ? 409 : 404, { error: true, text });
      return;
    }
    await audit({
      entity: 'user.externalAccount',
      action: 'unlinked',
      reason: null,
      actorUserId: user.id,
      subjectUserId: user.id,
      details: { serviceType, serviceId },
    });
    await render(res, user, 200, { error: false, text: 'The identity was unlinked.' });
  };

  const pickReviewhost = (form: URLSearchParams): ReviewhostProvider | null => {
    const entry = reviewhosts.find((r) => String(r.index) === form.get('provider'));
    return entry === undefined || !offered(entry.provider) ? null : entry.provider;
  };

  const addCredentials = async (res: ServerResponse, user: UserRecord, form: URLSearchParams): Promise<void> => {
    const provider = pickReviewhost(form);
    if (provider === null) {
      await render(res, user, 404, { error: true, text: 'No such review host.' });
      return;
    }
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    const check = await checkReviewhostCredentials(provider.url, username, password, fetchFn, timeoutMs);
    if (check.kind !== 'valid') {
      await audit({
        entity: 'user.credentials',
        action: 'failed',
        reason: check.kind === 'refused' ? 'credentials refused by the review host' : 'review host unreachable',
        actorUserId: user.id,
        subjectUserId: user.id,
        details: { serviceType: 'reviewhost', serviceId: serviceIdOf(provider) },
      });
      await render(res, user, check.kind === 'refused' ? 400 : 502, {
        error: true,
        text: check.kind === 'refused' ? 'The review host refused these credentials.' : 'The review host could not be reached. Try again later.',
      });
      return;
    }
    const sealed = sealSecret(options.credentialsKey, options.randomBytes(12), password, credentialContext(user.id, serviceIdOf(provider)));
    if (sealed === null) {
      await render(res, user, 500, { error: true, text: 'Could not store the credentials.' });
      return;
    }
    const stored: ProviderCredentialRecord = {
      userId: user.id,
      serviceType: 'reviewhost',
      serviceId: serviceIdOf(provider),
      accountId: check.username,
      sealed,
      createdAt: options.now(),
    };
    const put = await store.putProviderCredential(stored);
    if (put.isErr()) {
      await render(res, user, 500, { error: true, text: 'Could not store the credentials.' });
      return;
    }
    await audit({
      entity: 'user.credentials',
      action: 'added',
      reason: null,
      actorUserId: user.id,
      subjectUserId: user.id,
      details: { serviceType: 'reviewhost', serviceId: serviceIdOf(provider) },
    });
    await render(res, user, 200, { error: false, text: 'The credentials were checked and stored.' });
  };

  const removeCredentials = async (res: ServerResponse, user: UserRecord, form: URLSearchParams): Promise<void> => {
    const provider = pickReviewhost(form);
    const removed = provider === null ? null : await store.deleteProviderCredential(user.id, 'reviewhost', serviceIdOf(provider));
    if (removed === null || removed.isErr()) {
      await render(res, user, 404, { error: true, text: 'No credentials to remove.' });
      return;
    }
    await render(res, user, 200, { error: false, text: 'The credentials were removed.' });
  };

  const posts: Readonly<Record<string, (res: ServerResponse, user: UserRecord, form: URLSearchParams) => Promise<void>>> = {
    [UNLINK_PATH]: unlink,
    [ADD_CREDENTIALS_PATH]: addCredentials,
    [REMOVE_CREDENTIALS_PATH]: removeCredentials,
  };

  return {
    async handle(req, res, url) {
      const path = url.pathname;
      const post = Object.hasOwn(posts, path) ? posts[path] : undefined;
      if (path !== ACCOUNT_SECURITY_PATH && post === undefined) return false;
      const method = req.method ?? '';
      const user = await sessions.authenticate(req);
      if (user === null) {
        if (method === 'GET' || method === 'HEAD') sendRedirect(res, `/.auth/sign-in?returnTo=${encodeURIComponent(ACCOUNT_SECURITY_PATH)}`);
        else sendHtml(res, 401, page('Account security', '<h1>Account security</h1><p class="error" role="alert">Sign in first.</p>'));
        return true;
      }
      if (post === undefined) {
        if (method !== 'GET' && method !== 'HEAD') {
          sendHtml(res, 405, page('Account security', '<p>Use GET.</p>'), { allow: 'GET, HEAD' });
          return true;
        }
        await render(res, user, 200, null);
        return true;
      }
      if (method !== 'POST') {
        sendHtml(res, 405, page('Account security', '<p>Use POST.</p>'), { allow: 'POST' });
        return true;
      }
      if (!originAllowed(req, options.origin)) {
        await render(res, user, 403, { error: true, text: 'Cross-origin form submissions are refused.' });
        return true;
      }
      const form = await readForm(req);
      if (form === null) {
        await render(res, user, 400, { error: true, text: 'Send the form as application/x-www-form-urlencoded.' });
        return true;
      }
      await post(res, user, form);
      return true;
    },
  };
}
