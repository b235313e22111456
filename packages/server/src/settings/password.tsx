/**
 * The password page (`/settings/password`, spec §5.3 "Built-in"): change the built-in password (the current one
 * required) or set a first one; every other session of the account is signed out. Only when the site configures
 * the `builtin` provider; otherwise the page says password sign-in is not configured.
 *
 * @module
 */
import { DEFAULT_SIGN_IN_THROTTLE_POLICY, checkNewPassword, describePasswordRule, MAX_PASSWORD_BYTES, newPasswordMessage } from 'gatehouse-auth';
import { reauthenticate, reauthenticationMessage, recentlySignedIn } from '../session/reauthentication.js';
import { sha256Hex } from '../kernel/digest.js';
import { Field, PostForm, type PageNotice } from '../pages/layout.js';
import { doneNotice, formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import { hashPassword, sessionDigestOf, verifyPassword } from '../session/sessions.js';
import { admitAttempt, clearFailures, type ThrottleTableSpec } from '../store/throttle.js';
import { settingsNav } from './common.js';
import { auditedTransaction } from '../store/audited.js';

/** The password page's path; its form posts to the same path. */
export const PASSWORD_PATH = '/settings/password';

/** The notice after a change redirected back. */
const DONE: Readonly<Record<string, string>> = { changed: 'Your password was changed. Your other sessions were signed out.' };

/**
 * Wrong current passwords are throttled per account like failed sign-ins (the core's default policy), so a
 * stolen session cannot be used to guess the password at hashing speed.
 */
const CHANGE_THROTTLE: ThrottleTableSpec = Object.freeze({ name: 'password-change', policy: DEFAULT_SIGN_IN_THROTTLE_POLICY, maxEntries: 100_000 });

/** Whether the site signs people in with the built-in password. */
function builtinConfigured(deps: PageDeps): boolean {
  return deps.configuration.authProviders.some((p) => p.type === 'builtin');
}

/** The password page: the form, or the explanation when the built-in provider is not configured. */
function passwordPage(deps: PageDeps, ctx: PageContext, status: number, notice: PageNotice | null, recent = true): RouteResponse {
  const hasPassword = ctx.viewer.passwordHash !== null;
  const heading = hasPassword ? 'Change password' : 'Set a password';
  const children = builtinConfigured(deps) ? (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">{heading}</h2>
      {hasPassword ? null : <p className="muted">Your account has no password yet. Set one to sign in with your username and password.</p>}
      {hasPassword || recent ? null : (
        <p id="password-reauthenticate">
          For your security, a first password needs a recent sign-in: sign out and sign in again, then set it within 10 minutes.
        </p>
      )}
      <PostForm action={PASSWORD_PATH} csrf={ctx.csrf} label={heading}>
        {hasPassword ? <Field id="current" name="current" label="Current password" type="password" required autoComplete="current-password" /> : null}
        <Field
          id="password"
          name="password"
          label="New password"
          type="password"
          required
          autoComplete="new-password"
          hint={`${describePasswordRule(deps.configuration.accountOptions.passwordRule)} Your other sessions are signed out when it changes.`}
        />
        <Field id="confirm" name="confirm" label="Confirm new password" type="password" required autoComplete="new-password" />
        <div className="actions">
          <button type="submit">{hasPassword ? 'Change password' : 'Set password'}</button>
        </div>
      </PostForm>
    </section>
  ) : (
    <section className="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password sign-in is not configured</h2>
      <p>
        This site does not sign people in with a password: you sign in through the site&apos;s authentication provider, where your
        password (if any) is managed.
      </p>
    </section>
  );
  return pageResponse(ctx, status, { title: 'Password', nav: settingsNav(PASSWORD_PATH), notice, children });
}

/** Changes (or sets) the password, ends every other session of the account, and audits both outcomes. */
async function changePassword(deps: PageDeps, ctx: PageContext, form: URLSearchParams): Promise<RouteResponse> {
  const user = ctx.viewer;
  const refuse = (status: number, text: string): RouteResponse => passwordPage(deps, ctx, status, { kind: 'error', text });
  if (!builtinConfigured(deps)) return refuse(403, 'Password sign-in is not configured on this site, so there is no password to change.');
  // §1: service accounts authenticate with access tokens only, never a password
  if (user.serviceAccount) return refuse(403, 'A service account has no password: it authenticates with access tokens only.');
  const current = form.get('current') ?? '';
  const password = form.get('password') ?? '';
  const confirm = form.get('confirm') ?? '';
  if (user.passwordHash !== null && current === '') return refuse(400, 'Enter your current password.');
  // auth.minPasswordLength and auth.passwordPolicy: the one rule of sign-up, reset and the command line
  const checked = checkNewPassword(password, deps.configuration.accountOptions.passwordRule);
  if (checked.isErr()) return refuse(400, newPasswordMessage(checked.error));
  if (password !== confirm) return refuse(400, 'The new password and its confirmation differ. Type the same password twice.');
  const slot = { table: CHANGE_THROTTLE, key: sha256Hex(`password-change\u0000${user.id}`) };
  if (user.passwordHash !== null) {
    const checks = await admitAttempt(deps.store, { slots: [slot], failOpen: [false] }, deps.now());
    const wait = checks.reduce((most, c) => (c.kind === 'allow' ? most : Math.max(most, c.retryAfterSeconds)), 0);
    if (wait > 0) {
      const answer = refuse(429, `Too many wrong passwords. Try again in ${wait} ${wait === 1 ? 'second' : 'seconds'}.`);
      return { ...answer, headers: { ...answer.headers, 'retry-after': String(wait) } };
    }
    if (Buffer.byteLength(current) > MAX_PASSWORD_BYTES || !(await verifyPassword(current, user.passwordHash))) {
      // a refusal changes nothing: it is recorded as an event
      await deps.audit(
        { entity: 'user.password', action: 'change_failed', reason: 'wrong current password', actorUserId: user.id, subjectUserId: user.id, details: {} },
        deps.store,
      );
      return refuse(400, 'Your current password is not correct. Nothing was changed.');
    }
    await clearFailures(deps.store, slot, deps.now());
  } else {
    // a first password is a new way into the account: it needs a recent sign-in (the account has no password to give)
    const reauth = await reauthenticate(deps, ctx.request, user, 'first_password', null);
    if (reauth.kind !== 'allow') return refuse(403, reauthenticationMessage(reauth));
  }
  const hash = await hashPassword(password, deps.randomBytes);
  const digest = sessionDigestOf(ctx.request);
  // the new password, the other sessions ending and the audit entry: together or not at all
  const changed = await auditedTransaction(deps.store, async (tx) => {
    const updated = await tx.accounts.setPasswordHash(user.id, hash);
    if (updated.isErr()) return updated;
    const ended = await tx.sessions.deleteForUser(user.id, digest ?? undefined);
    await deps.audit(
      {
        entity: 'user.password',
        action: 'changed',
        reason: user.passwordHash === null ? 'first password set' : null,
        actorUserId: user.id,
        subjectUserId: user.id,
        details: { otherSessionsEnded: String(ended) },
      },
      tx,
    );
    return updated;
  });
  if (changed.isErr()) return refuse(409, 'Your password could not be changed. Try again.');
  return redirectResponse(`${PASSWORD_PATH}?done=changed`);
}

/**
 * The password page's routes: `GET /settings/password` and its form, `POST /settings/password`.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 *
 * @example
 * ```ts
 * passwordRoutes(deps).map((r) => r.path); // ['/settings/password', '/settings/password']
 * ```
 */
export function passwordRoutes(deps: PageDeps): readonly Route[] {
  return [
    pageRoute(deps, PASSWORD_PATH, 'signed_in', async (ctx) => passwordPage(deps, ctx, 200, doneNotice(ctx.request, DONE), await recentlySignedIn(deps, ctx.request))),
    formRoute(deps, PASSWORD_PATH, 'signed_in', (ctx, form) => changePassword(deps, ctx, form)),
  ];
}
