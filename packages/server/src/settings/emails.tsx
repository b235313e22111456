/**
 * Email addresses on the profile page: add one (a verification link goes out at once), send its verification link
 * again, make a verified one the primary; and the page a verification link opens, whose `GET` only shows a confirm
 * button (so link scanners that fetch it verify nothing) and whose `POST` uses the link up and marks the address
 * verified. When mail is off the pages say so: a site administrator copies the link from Site admin → Users.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { match } from 'ts-pattern';
import { addAccountEmail, makePrimaryEmail, primaryEmailOf } from 'gatehouse-auth';
import { Field, PostForm } from '../pages/layout.js';
import { formRoute, pageResponse, pageRoute, type PageContext, type PageDeps } from '../pages/page-routes.js';
import { redirectResponse } from '../kernel/respond.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import { auditedTransaction } from '../store/audited.js';
import type { UserRecord } from '../store/types.js';
import { peekAccountLink } from '../operations/account-links.js';
import { sendEmailVerification, VERIFY_EMAIL_PATH, verifyEmailLink, type EmailVerificationDeps, type VerifyEmailError } from '../operations/email-verification.js';
import type { MailQueue } from '../operations/mail.js';
import { reauthenticate, reauthenticationMessage } from '../session/reauthentication.js';
import { settingsNav } from './common.js';

/** The profile page's path, where every email form comes back to. */
const PROFILE = '/settings';

/**
 * The notices the profile page shows after an email form (`?done=<code>`).
 *
 * @example
 * ```ts
 * EMAIL_DONE['verified']; // 'Your email address is verified.'
 * ```
 */
export const EMAIL_DONE: Readonly<Record<string, string>> = {
  email_added: 'The address was added; a verification link was mailed to it.',
  email_added_mail_off: 'The address was added. Mail is off on this site: ask a site administrator for its verification link.',
  verification_sent: 'A verification link was mailed; it works once, for 24 hours.',
  verification_mail_off: 'Mail is off on this site: ask a site administrator for the verification link.',
  verification_refused: 'The verification mail could not be queued now; try again later.',
  primary: 'Your primary email address was changed.',
  verified: 'Your email address is verified.',
};

/** What the email routes need besides the pages' dependencies. */
export interface EmailRouteDeps {
  /** The outbox, or `null` without one. */
  readonly mail: MailQueue | null;
  /** The site's base address for links. */
  readonly baseURL: () => string;
}

/**
 * The account's addresses with their state and actions: "Send verification" for an unverified one, "Make primary"
 * for a verified one that is not, and the form to add one.
 *
 * @param props - The account, the form token and whether mail is on.
 * @returns The panel.
 */
export function EmailsPanel(props: { readonly user: UserRecord; readonly csrf: string; readonly mailOn: boolean }): ReactElement {
  const { emails } = props.user;
  // only a verified address is the primary one: with none verified, the account has no primary address yet
  const primary = primaryEmailOf(emails);
  return (
    <section className="panel" aria-labelledby="profile-emails">
      <h2 id="profile-emails">Email addresses</h2>
      {props.mailOn ? null : <p className="hint">Mail is off on this site: verification links are not mailed. A site administrator can copy yours from Site admin → Users.</p>}
      {emails.length === 0 ? (
        <p className="muted">No email address</p>
      ) : (
        <ul>
          {emails.map((e, i) => (
            <li key={`${i}:${e.email}`}>
              <span className="mono">{e.email}</span> {e.verified ? <span className="badge ok">Verified</span> : <span className="badge">Unverified</span>}
              {e.email === primary ? <span className="muted"> (primary)</span> : null}
              {e.verified ? null : (
                <PostForm action="/settings/emails/send-verification" csrf={props.csrf} className="inline" label={`Send verification to ${e.email}`}>
                  <input type="hidden" name="email" value={e.email} />
                  <button type="submit">Send verification</button>
                </PostForm>
              )}
              {e.verified && e.email !== primary ? (
                <PostForm action="/settings/emails/make-primary" csrf={props.csrf} className="inline" label={`Make ${e.email} primary`}>
                  <input type="hidden" name="email" value={e.email} />
                  {props.user.passwordHash === null ? null : (
                    <input type="password" name="current" maxLength={1024} autoComplete="current-password" placeholder="Current password" aria-label={`Current password, to make ${e.email} primary (needed when you signed in more than 10 minutes ago)`} />
                  )}
                  <button type="submit">Make primary</button>
                </PostForm>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <PostForm action="/settings/emails" csrf={props.csrf} label="Add an email address">
        <Field id="new-email" name="email" label="Add an email address" type="email" required maxLength={254} autoComplete="email" />
        {props.user.passwordHash === null ? null : (
          <Field id="new-email-current" name="current" label="Current password (needed when you signed in more than 10 minutes ago)" type="password" maxLength={1024} autoComplete="current-password" />
        )}
        <div className="actions">
          <button type="submit">Add</button>
        </div>
      </PostForm>
    </section>
  );
}

function verificationDeps(deps: PageDeps, extra: EmailRouteDeps): EmailVerificationDeps {
  return { store: deps.store, now: deps.now, randomBytes: deps.randomBytes, audit: deps.audit, mail: extra.mail, baseURL: extra.baseURL };
}

const mailDone = (kind: 'queued' | 'mail_off' | 'refused', queued: string, off: string): string =>
  kind === 'queued' ? queued : kind === 'mail_off' ? off : 'verification_refused';

function refusalText(error: VerifyEmailError): string {
  return match(error)
    .returnType<string>()
    .with({ code: 'unknown_link' }, () => 'This verification link is not valid (a newer link replaces an older one). Send a new one from your profile.')
    .with({ code: 'link_used' }, () => 'This verification link was used already.')
    .with({ code: 'link_expired' }, () => 'This verification link expired (links work for 24 hours). Send a new one from your profile.')
    .with({ code: 'wrong_purpose' }, () => 'This is not an email verification link.')
    .with({ code: 'wrong_account' }, () => 'This verification link is for another account: sign in to that account to use it.')
    .with({ code: 'unknown_email' }, () => 'This address is no longer on your account.')
    .with({ code: 'email_taken' }, (e) => `${e.email} is already verified on another account; an address is verified on one account only.`)
    .exhaustive();
}

function verifyPage(ctx: PageContext, status: number, body: ReactElement | null, error: string | null): RouteResponse {
  return pageResponse(ctx, status, {
    title: 'Verify your email address',
    nav: settingsNav(PROFILE),
    notice: error === null ? null : { kind: 'error', text: error },
    children: body,
  });
}

async function back(ctx: PageContext, deps: PageDeps, status: number, text: string): Promise<RouteResponse> {
  return pageResponse(ctx, status, { title: 'Email addresses', nav: settingsNav(PROFILE), notice: { kind: 'error', text }, children: <EmailsPanel user={ctx.viewer} csrf={ctx.csrf} mailOn={deps.configuration.email.smtp !== null} /> });
}

/**
 * The email routes: `POST /settings/emails` (add), `POST /settings/emails/send-verification`,
 * `POST /settings/emails/make-primary`, and `GET`/`POST /settings/emails/verify`.
 *
 * @param deps - The pages' dependencies.
 * @param extra - The outbox and the base address.
 * @returns The routes.
 * @example
 * ```ts
 * emailRoutes(pageDeps, { mail: shared.mailQueue ?? null, baseURL: () => externalURL ?? listeningURL }).length; // 5
 * ```
 */
export function emailRoutes(deps: PageDeps, extra: EmailRouteDeps): readonly Route[] {
  const verification = verificationDeps(deps, extra);
  return [
    formRoute(deps, '/settings/emails', 'signed_in', async (ctx, form) => {
      const email = (form.get('email') ?? '').trim();
      const added = addAccountEmail(ctx.viewer.emails, email);
      if (added.isErr()) {
        const text = match(added.error)
          .returnType<string>()
          .with({ code: 'invalid_email' }, () => 'Enter one email address, such as alice@example.com.')
          .with({ code: 'already_added' }, () => 'That address is already on your account.')
          .with({ code: 'too_many_emails' }, (e) => `An account has at most ${e.max} addresses; remove one first.`)
          .otherwise(() => 'That address cannot be added.');
        return back(ctx, deps, 400, text);
      }
      // a new address is a new way to reach (and, once verified, to link) the account: a recent sign-in or the password
      const reauth = await reauthenticate(deps, ctx.request, ctx.viewer, 'email', form.get('current'));
      if (reauth.kind !== 'allow') return back(ctx, deps, reauth.kind === 'throttled' ? 429 : 403, reauthenticationMessage(reauth));
      const saved = await auditedTransaction(deps.store, async (tx) => {
        const changed = await tx.accounts.setEmails(ctx.viewer.id, added.value);
        if (changed.isOk()) await deps.audit({ entity: 'user', action: 'email_added', reason: null, actorUserId: ctx.viewer.id, subjectUserId: ctx.viewer.id, details: { email } }, tx);
        return changed;
      });
      if (saved.isErr()) return back(ctx, deps, 409, 'That address could not be added; try again.');
      const sent = await sendEmailVerification(verification, saved.value, email, ctx.viewer.id);
      return redirectResponse(`${PROFILE}?done=${sent.isOk() ? mailDone(sent.value.mail, 'email_added', 'email_added_mail_off') : 'verification_refused'}`);
    }),
    formRoute(deps, '/settings/emails/send-verification', 'signed_in', async (ctx, form) => {
      const email = form.get('email') ?? '';
      const entry = ctx.viewer.emails.find((e) => e.email === email);
      if (entry === undefined) return back(ctx, deps, 400, 'That address is not on your account.');
      if (entry.verified) return redirectResponse(`${PROFILE}?done=verified`);
      // resend is throttled: at most one link a minute, so per address too. It is counted per account because the
      // account keeps one verification link (a new one replaces it): counted per address, alternating two addresses
      // would mail without limit
      const last = await deps.store.links.find(ctx.viewer.id, 'verify_email');
      if (last !== null && deps.now() - last.createdAt < RESEND_INTERVAL_MS) {
        return back(ctx, deps, 429, 'A verification link was sent less than a minute ago; check your mail, or try again in a minute.');
      }
      const sent = await sendEmailVerification(verification, ctx.viewer, email, ctx.viewer.id);
      return redirectResponse(`${PROFILE}?done=${sent.isOk() ? mailDone(sent.value.mail, 'verification_sent', 'verification_mail_off') : 'verification_refused'}`);
    }),
    formRoute(deps, '/settings/emails/make-primary', 'signed_in', async (ctx, form) => {
      const email = form.get('email') ?? '';
      const next = makePrimaryEmail(ctx.viewer.emails, email);
      if (next.isErr()) return back(ctx, deps, 400, next.error.code === 'not_verified' ? 'Only a verified address can be the primary one: verify it first.' : 'That address is not on your account.');
      // the primary address is where the account's mail (a password reset link) goes: a recent sign-in or the password
      const reauth = await reauthenticate(deps, ctx.request, ctx.viewer, 'email', form.get('current'));
      if (reauth.kind !== 'allow') return back(ctx, deps, reauth.kind === 'throttled' ? 429 : 403, reauthenticationMessage(reauth));
      const saved = await auditedTransaction(deps.store, async (tx) => {
        const changed = await tx.accounts.setEmails(ctx.viewer.id, next.value);
        if (changed.isOk()) await deps.audit({ entity: 'user', action: 'primary_email_changed', reason: null, actorUserId: ctx.viewer.id, subjectUserId: ctx.viewer.id, details: { email } }, tx);
        return changed;
      });
      return saved.isOk() ? redirectResponse(`${PROFILE}?done=primary`) : back(ctx, deps, 409, 'The primary address could not be changed; try again.');
    }),
    pageRoute(deps, VERIFY_EMAIL_PATH, 'signed_in', async (ctx) => {
      const token = ctx.request.url.searchParams.get('token');
      const live = await peekAccountLink(deps.store, 'verify_email', token, deps.now());
      if (live.isErr()) return verifyPage(ctx, 400, null, refusalText(live.error));
      if (live.value.userId !== ctx.viewer.id) return verifyPage(ctx, 403, null, refusalText({ code: 'wrong_account' }));
      return verifyPage(
        ctx,
        200,
        <section className="panel" aria-labelledby="verify-heading">
          <h2 id="verify-heading">Confirm</h2>
          <p>
            Verify <span className="mono">{live.value.email ?? ''}</span> on your account <strong>{ctx.viewer.username}</strong>?
          </p>
          <PostForm action={VERIFY_EMAIL_PATH} csrf={ctx.csrf} label="Verify this email address">
            <input type="hidden" name="token" value={token ?? ''} />
            <div className="actions">
              <button type="submit">Verify this address</button>
            </div>
          </PostForm>
        </section>,
        null,
      );
    }),
    formRoute(deps, VERIFY_EMAIL_PATH, 'signed_in', async (ctx, form) => {
      const verified = await verifyEmailLink(verification, ctx.viewer, form.get('token'));
      if (verified.isErr()) return verifyPage(ctx, verified.error.code === 'email_taken' ? 409 : 400, null, refusalText(verified.error));
      return redirectResponse(`${PROFILE}?done=verified`);
    }),
  ];
}

/** The shortest time between two verification links an account asks for (so for one address too), in milliseconds. */
const RESEND_INTERVAL_MS = 60_000;
