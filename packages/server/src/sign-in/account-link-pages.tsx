/**
 * The signed-out pages of the account links: "Forgot password?" (`/.auth/forgot-password`), the pages a reset
 * link and the first start's link open to set a password (`/.auth/reset-password`, `/.auth/first-admin`), and the
 * page the unlock link opens (`/.auth/unlock-account`). A link's `GET` only shows a form; its `POST` uses the link.
 *
 * "Forgot password?" answers the same text and status whatever was typed, and does its work (finding the account,
 * making the link, queuing the mail) after answering, so neither the answer nor its timing tells whether an
 * account matched. At most {@link MAX_PENDING_RESET_REQUESTS} such requests wait at once; more are dropped (and
 * logged), with the same answer.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { emailMatchKey, usernameKey, validateUsername } from 'gatehouse-auth';
import { err } from 'neverthrow';
import type { Result } from 'neverthrow';
import type { LogEntry } from '../kernel/logging.js';
import type { Route, RouteRequest, RouteResponse } from '../kernel/route.js';
import { unlockAccount } from '../operations/lockout.js';
import { LINK_PATHS, mailResetLink, newPasswordProblem, setPasswordByLink } from '../operations/password-reset.js';
import type { AccountLinkDeps, LifecycleLinkPurpose, LinkRefusalCode } from '../operations/password-reset.js';
import { checkFormPost, CSRF_FIELD, formToken } from '../pages/csrf.js';
import { Field, PostForm } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { PAGE_FORM_BODY, pageResponse } from '../pages/page-routes.js';
import { hashPassword } from '../session/sessions.js';
import { auditedTransaction } from '../store/audited.js';
import type { UserRecord } from '../store/types.js';

/** The "Forgot password?" page and form. */
export const FORGOT_PASSWORD_PATH = '/.auth/forgot-password';
/** The most "Forgot password?" requests whose work waits at once. */
export const MAX_PENDING_RESET_REQUESTS = 64;
/** The longest username or email the form takes. */
const MAX_LOGIN_LENGTH = 320;
const SIGN_IN_PATH = '/.auth/sign-in';

/**
 * What the pages need: the link operations' dependencies, the random source, the site's origin and the log.
 *
 * @example
 * ```ts
 * const routes = accountLinkPages({ ...linkDeps, randomBytes, origin, secureCookies, log });
 * ```
 */
export interface AccountLinkPageDeps extends AccountLinkDeps {
  /** The random source (form tokens, password salts). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** The site's origin, or `null` (the Origin check of form posts). */
  readonly origin: string | null;
  /** Whether cookies get `Secure`. */
  readonly secureCookies: boolean;
  /** The log sink. */
  readonly log: (entry: LogEntry) => void;
}

/** The one answer of "Forgot password?", whatever was typed. */
const FORGOT_ANSWER =
  'If an account has that username or email address, a link to set a new password is on its way to the account\'s email address. Check your mail.';

/** What a person reads when a link cannot be used. */
function refusalText(reason: LinkRefusalCode): string {
  return reason === 'link_expired'
    ? 'This link has expired.'
    : reason === 'link_used'
      ? 'This link was used already: each link works once.'
      : 'This link is not valid: it may have been replaced by a newer one, or mistyped.';
}

/** The texts of each link's page. */
const LINK_TEXTS: Readonly<Record<LifecycleLinkPurpose, { readonly title: string; readonly intro: string; readonly button: string; readonly again: string }>> = {
  reset_password: {
    title: 'Set a new password',
    intro: 'Choose a new password. Setting it signs this account out everywhere.',
    button: 'Set password',
    again: 'Ask for a new link on the "Forgot password?" page.',
  },
  first_admin: {
    title: 'Set the administrator\'s password',
    intro: 'Choose the password of the site administrator account made on the first start.',
    button: 'Set password',
    again: 'Run "gatehouse admin set-password" on the server instead.',
  },
  unlock_account: {
    title: 'Unlock your account',
    intro: 'Your account was locked after too many failed password sign-ins. Unlock it to sign in again.',
    button: 'Unlock account',
    again: 'Wait for the lock to end, or ask a site administrator to unlock the account.',
  },
};

/** The fields of a URL-encoded form post (the first of repeated names wins). */
function formFields(request: RouteRequest): URLSearchParams {
  return new URLSearchParams(request.body ?? '');
}

/**
 * The account-link pages' routes: `GET`/`POST` of `/.auth/forgot-password`, `/.auth/reset-password`,
 * `/.auth/first-admin` and `/.auth/unlock-account`.
 *
 * @param deps - Links, mail, store, clock, audit, random source, origin and log.
 * @returns The routes.
 * @example
 * ```ts
 * accountLinkPages(deps).map((r) => r.path);
 * ```
 */
export function accountLinkPages(deps: AccountLinkPageDeps): readonly Route[] {
  let pending = 0;

  const page = (request: RouteRequest, status: number, title: string, notice: PageNotice | null, content: (csrf: string) => ReactElement): RouteResponse => {
    const issued = formToken(request, deps.randomBytes, deps.secureCookies);
    return pageResponse({ viewer: null, csrf: issued.token, cookies: issued.cookie === null ? [] : [issued.cookie] }, status, {
      title,
      nav: null,
      notice,
      children: content(issued.token),
    });
  };

  const mailOffNote = (): ReactElement | null =>
    deps.ports.mailOn() ? null : <p className="notice info">Mail is off on this site: no link can be mailed. Ask a site administrator for a password reset link.</p>;

  const forgotPage = (request: RouteRequest, status: number, notice: PageNotice | null): RouteResponse =>
    page(request, status, 'Forgot password?', notice, (csrf) => (
      <section className="panel" aria-labelledby="forgot-heading">
        <h2 id="forgot-heading">Set a new password by email</h2>
        {mailOffNote()}
        <PostForm action={FORGOT_PASSWORD_PATH} csrf={csrf} label="Forgot password">
          <Field id="login" name="login" label="Username or email" required maxLength={MAX_LOGIN_LENGTH} autoComplete="username" />
          <div className="actions">
            <button type="submit">Send me a link</button>
          </div>
        </PostForm>
        <p>
          <a href={SIGN_IN_PATH}>Back to sign in</a>
        </p>
      </section>
    ));

  /** Finds the account the person typed (a username, or an email verified on an account), then mails its link. */
  const handleReset = async (login: string): Promise<void> => {
    let user: UserRecord | null = null;
    if (login.includes('@')) user = await deps.store.accounts.findByVerifiedEmailKey(emailMatchKey(login));
    else if (validateUsername(login).isOk()) user = await deps.store.accounts.findByUsernameKey(usernameKey(login));
    const outcome = await mailResetLink(deps, user);
    deps.log({ level: 'info', event: 'password_reset_request', outcome });
  };

  const forgot = async (request: RouteRequest): Promise<RouteResponse> => {
    const form = formFields(request);
    if (checkFormPost(request, form.get(CSRF_FIELD), deps.origin).isErr()) {
      return forgotPage(request, 403, { kind: 'error', text: 'This form expired or came from another site. Reload the page and try again.' });
    }
    const login = (form.get('login') ?? '').trim();
    if (login === '' || login.length > MAX_LOGIN_LENGTH) return forgotPage(request, 400, { kind: 'error', text: `Enter a username or an email address (at most ${MAX_LOGIN_LENGTH} characters).` });
    // the work runs after the answer: the answer and its timing are the same whether or not an account matched
    if (pending >= MAX_PENDING_RESET_REQUESTS) {
      deps.log({ level: 'warn', event: 'password_reset_request', outcome: 'dropped' });
    } else {
      pending += 1;
      setImmediate(() => {
        handleReset(login)
          .catch((error: unknown) => deps.log({ level: 'error', event: 'password_reset_failed', name: error instanceof Error ? error.name : typeof error }))
          .finally(() => {
            pending -= 1;
          });
      });
    }
    return forgotPage(request, 200, { kind: 'ok', text: FORGOT_ANSWER });
  };

  const linkForm = (purpose: LifecycleLinkPurpose, request: RouteRequest, token: string, status: number, notice: PageNotice | null): RouteResponse => {
    const texts = LINK_TEXTS[purpose];
    return page(request, status, texts.title, notice, (csrf) => (
      <section className="panel" aria-labelledby="link-heading">
        <h2 id="link-heading">{texts.title}</h2>
        <p>{texts.intro}</p>
        <PostForm action={LINK_PATHS[purpose]} csrf={csrf} label={texts.title}>
          <input type="hidden" name="token" value={token} />
          {purpose === 'unlock_account' ? null : (
            <>
              <Field id="password" name="password" label="New password" type="password" required autoComplete="new-password" />
              <Field id="confirm" name="confirm" label="New password again" type="password" required autoComplete="new-password" />
            </>
          )}
          <div className="actions">
            <button type="submit">{texts.button}</button>
          </div>
        </PostForm>
      </section>
    ));
  };

  const refusedLink = (purpose: LifecycleLinkPurpose, request: RouteRequest, reason: LinkRefusalCode): RouteResponse => {
    const texts = LINK_TEXTS[purpose];
    // a used or expired link is gone (410); any other token is a bad request (400), not a missing page: the page is there
    return page(request, reason === 'link_expired' || reason === 'link_used' ? 410 : 400, texts.title, { kind: 'error', text: refusalText(reason) }, () => (
      <section className="panel" aria-labelledby="link-heading">
        <h2 id="link-heading">{texts.title}</h2>
        <p>{texts.again}</p>
        <p>
          {purpose === 'reset_password' ? <a href={FORGOT_PASSWORD_PATH}>Forgot password?</a> : null} <a href={SIGN_IN_PATH}>Sign in</a>
        </p>
      </section>
    ));
  };

  const done = (request: RouteRequest, title: string, text: string): RouteResponse =>
    page(request, 200, title, { kind: 'ok', text }, () => (
      <section className="panel" aria-labelledby="done-heading">
        <h2 id="done-heading">{title}</h2>
        <p>
          <a href={SIGN_IN_PATH}>Sign in</a>
        </p>
      </section>
    ));

  const linkRoutes = (purpose: LifecycleLinkPurpose): Route[] => [
    {
      methods: ['GET'],
      path: LINK_PATHS[purpose],
      handler: async (request) => {
        const token = request.url.searchParams.get('token');
        const peeked = await deps.ports.peek(purpose, token);
        if (peeked.isErr()) return refusedLink(purpose, request, peeked.error);
        return linkForm(purpose, request, token ?? '', 200, null);
      },
    },
    {
      methods: ['POST'],
      path: LINK_PATHS[purpose],
      body: PAGE_FORM_BODY,
      handler: async (request) => {
        const form = formFields(request);
        const token = form.get('token');
        if (checkFormPost(request, form.get(CSRF_FIELD), deps.origin).isErr()) {
          return linkForm(purpose, request, token ?? '', 403, { kind: 'error', text: 'This form expired or came from another site. Reload the page and try again.' });
        }
        if (purpose === 'unlock_account') {
          const used = await deps.ports.peek(purpose, token);
          if (used.isErr()) return refusedLink(purpose, request, used.error);
          // the link is used and the account unlocked in one transaction
          const unlocked = await auditedTransaction(deps.store, async (tx): Promise<Result<unknown, LinkRefusalCode>> => {
            const consumed = await deps.ports.consume(tx, purpose, token);
            if (consumed.isErr()) return err(consumed.error);
            return (await unlockAccount({ ...deps, store: tx }, { kind: 'unlock_link' }, consumed.value)).mapErr((): LinkRefusalCode => 'unknown_link');
          });
          if (unlocked.isErr()) return refusedLink(purpose, request, unlocked.error);
          return done(request, 'Account unlocked', 'Your account is unlocked: you can sign in again.');
        }
        const password = form.get('password') ?? '';
        const problem = password !== (form.get('confirm') ?? '') ? 'The two passwords differ: type the same password twice.' : newPasswordProblem(password, deps.passwordRule);
        if (problem !== null) return linkForm(purpose, request, token ?? '', 400, { kind: 'error', text: problem });
        // a link that cannot be used is told before the hash is made
        const usable = await deps.ports.peek(purpose, token);
        if (usable.isErr()) return refusedLink(purpose, request, usable.error);
        const hash = await hashPassword(password, deps.randomBytes);
        const set = await setPasswordByLink(deps, purpose, token, hash);
        if (set.isErr()) return refusedLink(purpose, request, set.error.code === 'link' ? set.error.reason : 'unknown_link');
        return done(request, 'Password set', `The password of ${set.value.user.username} was set${set.value.sessionsEnded > 0 ? ', and every session of the account was ended' : ''}. Sign in with it.`);
      },
    },
  ];

  return [
    { methods: ['GET'], path: FORGOT_PASSWORD_PATH, handler: async (request) => forgotPage(request, 200, null) },
    { methods: ['POST'], path: FORGOT_PASSWORD_PATH, body: PAGE_FORM_BODY, handler: forgot },
    ...linkRoutes('reset_password'),
    ...linkRoutes('first_admin'),
    ...linkRoutes('unlock_account'),
  ];
}
