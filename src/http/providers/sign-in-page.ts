/**
 * The pages a provider sign-in ends on: a redirect with the session cookie, or a small page with a message.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';
import type { AuthProvider } from '../../core/auth-providers.js';
import type { ExternalIdentity } from '../../core/external-identity.js';
import { escapeHtml, sendHtml, sendRedirect } from '../http-io.js';
import type { SignInFlowError, SignInOutcome } from '../sign-in-flow.js';

/**
 * Writes the response for a sign-in: a `303` to `returnTo` (with `headers`, such as the session cookie)
 * when signed in, a `403` page showing the denial's message, `409` or `500` otherwise.
 *
 * @param res - The response.
 * @param result - What `runSignIn` returned.
 * @param returnTo - Where to send a signed-in person (a path on this site).
 * @param headers - Extra headers for the redirect (for example `set-cookie`).
 * @returns Nothing.
 * @example
 * ```ts
 * sendSignInOutcome(res, await runSignIn(deps, request), '/search', { 'set-cookie': cookie });
 * ```
 */
export function sendSignInOutcome(
  res: ServerResponse,
  result: Result<SignInOutcome, SignInFlowError>,
  returnTo: string,
  headers: Readonly<Record<string, string | readonly string[]>> = {},
): void {
  if (result.isOk()) {
    match(result.value)
      .with({ kind: 'signed_in' }, () => sendRedirect(res, returnTo, headers))
      .with({ kind: 'denied' }, (d) => sendMessagePage(res, 403, 'Sign-in refused', d.message))
      .exhaustive();
    return;
  }
  match(result.error)
    .with({ code: 'store_conflict' }, () => sendMessagePage(res, 409, 'Sign-in failed', 'Your account changed while signing in. Try again.'))
    .with({ code: 'sign_in_error' }, () => sendMessagePage(res, 500, 'Sign-in failed', 'Sign-in failed because of an internal error.'))
    .exhaustive();
}

/**
 * Writes a small HTML page with a title and a message (escaped).
 *
 * @param res - The response.
 * @param status - HTTP status.
 * @param title - Page title.
 * @param message - Text shown to the person.
 * @returns Nothing.
 * @example
 * ```ts
 * sendMessagePage(res, 400, 'Sign-in failed', 'The sign-in link expired. Start again.');
 * ```
 */
export function sendMessagePage(res: ServerResponse, status: number, title: string, message: string): void {
  sendHtml(
    res,
    status,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body><h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p>` +
      `<p><a href="/.auth/sign-in">Back to sign-in</a></p></body></html>`,
  );
}

/**
 * What a sign-in flow hands to the server once the provider vouched for the person.
 *
 * @example
 * ```ts
 * const complete = async ({ provider, identity, res, returnTo }: CompleteSignInArgs): Promise<void> => {
 *   sendSignInOutcome(res, await runSignIn(deps, { provider, identity, signedInUserId: null }), returnTo);
 * };
 * ```
 */
export interface CompleteSignInArgs {
  /** The provider the person came through. */
  readonly provider: AuthProvider;
  /** What the provider reported. */
  readonly identity: ExternalIdentity;
  /** The callback request (read the session cookie from it). */
  readonly req: IncomingMessage;
  /** The response to write (redirect with a session cookie, or the denial). */
  readonly res: ServerResponse;
  /** Where the person wanted to go, a path on this site. */
  readonly returnTo: string;
}
