/**
 * Email verification links made by a site administrator (Site admin → Users → a user): for an unverified address
 * of an account, a new link (it replaces the account's earlier one) is made, audited as `email_verification_sent`
 * with the administrator as actor, mailed when mail is on, and shown this once to copy (the store keeps only its
 * digest). With mail off this is how a person gets the link; the panel says so.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { PostForm, SecretValue } from '../pages/layout.js';
import { formRoute, pageResponse, type PageContext, type PageDeps } from '../pages/page-routes.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { UserRecord } from '../store/types.js';
import { sendEmailVerification } from '../operations/email-verification.js';
import type { MailQueue } from '../operations/mail.js';
import { adminNav, idParam, missingPage } from './account-pages.js';

/**
 * The form post that makes a verification link (`id`, `email`).
 *
 * @example
 * ```ts
 * VERIFICATION_LINK_PATH; // '/site-admin/users/verification-link'
 * ```
 */
export const VERIFICATION_LINK_PATH = '/site-admin/users/verification-link';

const USERS = '/site-admin/users';
const userHref = (id: string): string => `${USERS}/user?id=${encodeURIComponent(id)}`;

/** Where verification links go: the outbox (`null`: none) and the site's base address the links are made on. */
export interface VerificationLinkDeps {
  /** The outbox, or `null` without one (mail off). */
  readonly mail: MailQueue | null;
  /** The site's base address: `externalURL`, else the address it listens on. */
  readonly baseURL: () => string;
}

/**
 * The account's unverified addresses, each with "Make verification link"; says whether the link is also mailed.
 * Nothing is shown for an account whose addresses are all verified.
 *
 * @param props - The account, the form token, whether mail is on.
 * @returns The panel, or `null`.
 * @example
 * ```tsx
 * <VerificationLinksPanel user={user} csrf={ctx.csrf} mailOn={deps.configuration.email.smtp !== null} />
 * ```
 */
export function VerificationLinksPanel(props: { readonly user: UserRecord; readonly csrf: string; readonly mailOn: boolean }): ReactElement | null {
  const unverified = props.user.emails.filter((e) => !e.verified);
  if (unverified.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="verification-heading">
      <h2 id="verification-heading">Email verification</h2>
      <p className="hint">
        {props.mailOn
          ? 'A new link is mailed to the address and shown here once to copy; it replaces the earlier link and works once, for 24 hours.'
          : 'Mail is off on this site: links are not mailed. Make one, copy it, and give it to the person; it works once, for 24 hours, for this account.'}
      </p>
      <ul>
        {unverified.map((e) => (
          <li key={e.email}>
            <span className="mono">{e.email}</span>{' '}
            <PostForm action={VERIFICATION_LINK_PATH} csrf={props.csrf} className="inline" label={`Make a verification link for ${e.email}`}>
              <input type="hidden" name="id" value={props.user.id} />
              <input type="hidden" name="email" value={e.email} />
              <button type="submit" className="secondary">
                Make verification link
              </button>
            </PostForm>
          </li>
        ))}
      </ul>
    </section>
  );
}

function answer(ctx: PageContext, status: number, user: UserRecord, text: string, body: ReactElement | null): RouteResponse {
  return pageResponse(ctx, status, {
    title: 'Email verification link',
    nav: adminNav(USERS),
    notice: { kind: status >= 400 ? 'error' : 'ok', text },
    children: [
      <p key="back">
        <a href={userHref(user.id)}>{`Back to ${user.username}`}</a>
      </p>,
      ...(body === null ? [] : [body]),
    ],
  });
}

/**
 * `POST /site-admin/users/verification-link` (`id`, `email`): makes the link for an unverified address of the
 * account and shows it once (`200`); `400` for an address the account does not have or has verified, `404` for no
 * such account. Nothing is changed on a refusal.
 *
 * @param deps - The pages' dependencies.
 * @param links - The outbox and the base address.
 * @returns The route.
 * @example
 * ```ts
 * verificationLinkRoutes(deps, { mail: null, baseURL: () => 'https://gatehouse.example' }).length; // 1
 * ```
 */
export function verificationLinkRoutes(deps: PageDeps, links: VerificationLinkDeps): readonly Route[] {
  return [
    formRoute(deps, VERIFICATION_LINK_PATH, 'site_admin', async (ctx, form) => {
      const userId = idParam(form, 'id');
      const user = userId === null ? null : await deps.store.accounts.get(userId);
      if (user === null) return missingPage(ctx, USERS, 'No such user: it may have been deleted.', { href: USERS, label: 'Back to users' });
      const email = form.get('email') ?? '';
      const entry = user.emails.find((e) => e.email === email);
      if (entry === undefined) return answer(ctx, 400, user, `${user.username} has no such address.`, null);
      if (entry.verified) return answer(ctx, 400, user, `${email} is verified already.`, null);
      const made = await sendEmailVerification({ store: deps.store, now: deps.now, randomBytes: deps.randomBytes, audit: deps.audit, mail: links.mail, baseURL: links.baseURL }, user, email, ctx.viewer.id);
      if (made.isErr()) return answer(ctx, 409, user, 'The link could not be made; try again.', null);
      const fate =
        made.value.mail === 'queued'
          ? `A verification link for ${email} was made and mailed to it.`
          : made.value.mail === 'mail_off'
            ? `A verification link for ${email} was made. Mail is off on this site: copy it and give it to ${user.username}.`
            : `A verification link for ${email} was made, but the mail queue is full: copy it and give it to ${user.username}.`;
      return answer(
        ctx,
        200,
        user,
        fate,
        <section key="link" className="panel" aria-labelledby="link-heading">
          <h2 id="link-heading">Link</h2>
          <p>It is shown only this once, works once, for 24 hours, and only when {user.username} is signed in. Making another one replaces it.</p>
          <SecretValue id="verification-link" value={made.value.url} label={`Verification link for ${email}`} />
        </section>,
      );
    }),
  ];
}
