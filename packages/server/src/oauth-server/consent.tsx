/**
 * The consent page of the authorization server (spec §2.4; RFC 6749 §4.1.1: the authorization server asks the
 * resource owner to approve or deny the app's request): the app's name, the account, the requested scopes in
 * plain words and where the browser goes next, with Approve and Deny in one form that carries the authorization
 * request back as hidden fields. Rendered in the pages' shell; React escapes every value.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { formToken } from '../pages/csrf.js';
import { PostForm } from '../pages/layout.js';
import type { PageViewer } from '../pages/layout.js';
import { pageResponse } from '../pages/page-routes.js';
import type { RouteRequest, RouteResponse } from '../kernel/route.js';

/**
 * What a scope lets an app do, in the words the consent page uses.
 *
 * @example
 * ```ts
 * OAUTH_SCOPE_DESCRIPTIONS['user:all']; // 'Full access to the API as you: …'
 * ```
 */
export const OAUTH_SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = Object.freeze({
  'user:all': 'Full access to the API as you: read and change everything your account can',
});

/**
 * The plain-language description of a scope, or a generic one for a scope without its own.
 *
 * @param scope - The scope.
 * @returns What it allows.
 *
 * @example
 * ```ts
 * scopeDescription('user:all'); // 'Full access to the API as you: read and change everything your account can'
 * ```
 */
export function scopeDescription(scope: string): string {
  return Object.hasOwn(OAUTH_SCOPE_DESCRIPTIONS, scope) ? (OAUTH_SCOPE_DESCRIPTIONS[scope] ?? scope) : 'Access this scope allows';
}

/**
 * The decision a consent form posts in its `decision` field.
 *
 * @example
 * ```ts
 * const decision: ConsentDecision = 'approve';
 * ```
 */
export type ConsentDecision = 'approve' | 'deny';

/**
 * The pages' parts the consent page needs: the random source of new form-token cookies, whether cookies get
 * `Secure`, and the site's origin (a form post from another origin is refused).
 *
 * @example
 * ```ts
 * const pages: ConsentPageOptions = { randomBytes, secureCookies: true, origin: 'https://search.example.com' };
 * ```
 */
export interface ConsentPageOptions {
  /** The random source (a new `gatehouse_csrf` cookie). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Whether cookies get `Secure`. */
  readonly secureCookies: boolean;
  /** The site's origin (`externalURL`'s), or `null`. */
  readonly origin: string | null;
}

/**
 * What the consent page shows.
 *
 * @example
 * ```ts
 * const props: ConsentPageProps = {
 *   action: '/.auth/idp/oauth/authorize', csrf, appName: 'CI bot', username: 'alice', scopes: ['user:all'],
 *   redirectOrigin: 'https://ci.example', fields: [['client_id', 'gai_…']],
 * };
 * ```
 */
export interface ConsentPageProps {
  /** Where the form posts. */
  readonly action: string;
  /** The form token. */
  readonly csrf: string;
  /** The app's registered name. */
  readonly appName: string;
  /** The signed-in account's username. */
  readonly username: string;
  /** The requested scopes. */
  readonly scopes: readonly string[];
  /** The origin of the redirect URI the browser is sent to afterwards. */
  readonly redirectOrigin: string;
  /** The authorization request's parameters, carried back as hidden fields. */
  readonly fields: readonly (readonly [string, string])[];
}

/**
 * The consent page's content: who asks, as whom, for what, where the browser goes next, and the two buttons.
 *
 * @param props - The request to show.
 * @returns The content (the shell renders the title).
 *
 * @example
 * ```ts
 * <ConsentPage action={path} csrf={csrf} appName="CI bot" username="alice" scopes={['user:all']} redirectOrigin="https://ci.example" fields={[]} />
 * ```
 */
export function ConsentPage(props: ConsentPageProps): ReactElement {
  return (
    <section className="panel" aria-labelledby="consent-request">
      <h2 id="consent-request">{`${props.appName} wants to use your account`}</h2>
      <p>
        You are signed in as <strong>{props.username}</strong>.
      </p>
      <p>{`If you approve, ${props.appName} may act as you with this access:`}</p>
      <dl className="facts">
        {props.scopes.map((scope) => (
          <ConsentScope key={scope} scope={scope} />
        ))}
      </dl>
      <p>{`You will be sent to ${props.redirectOrigin}.`}</p>
      <p className="hint">
        You can revoke an approval at any time in <a href="/settings/security">Account security</a>.
      </p>
      <PostForm action={props.action} csrf={props.csrf} label={`Authorize ${props.appName}`}>
        {props.fields.map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div className="actions">
          <button type="submit" name="decision" value="approve">
            Approve
          </button>
          <button type="submit" name="decision" value="deny" className="secondary">
            Deny
          </button>
        </div>
      </PostForm>
    </section>
  );
}

/** One requested scope: its name and what it allows. */
function ConsentScope(props: { readonly scope: string }): ReactElement {
  return (
    <>
      <dt>
        <code>{props.scope}</code>
      </dt>
      <dd>{scopeDescription(props.scope)}</dd>
    </>
  );
}

/**
 * The origin of a URI for display, or the URI itself when it has none a person would recognise.
 *
 * @param uri - An absolute URI.
 * @returns `https://app.example` for `https://app.example/cb?x=1`.
 *
 * @example
 * ```ts
 * displayOrigin('https://app.example/cb'); // 'https://app.example'
 * ```
 */
export function displayOrigin(uri: string): string {
  try {
    const origin = new URL(uri).origin;
    return origin === 'null' ? uri : origin;
  } catch {
    return uri;
  }
}

/**
 * The `form-action` source that allows a redirect URI: the URI as registered without its query or fragment (a CSP
 * source expression has neither; a path matches whatever query follows it, and a redirect is matched without its
 * path: CSP3 "Does url match expression in origin with redirect count?").
 *
 * @param redirectUri - The registered redirect URI.
 * @returns The source expression.
 *
 * @example
 * ```ts
 * formActionSource('https://app.example/cb?tenant=1'); // 'https://app.example/cb'
 * ```
 */
export function formActionSource(redirectUri: string): string {
  const end = redirectUri.search(/[?#]/);
  return end === -1 ? redirectUri : redirectUri.slice(0, end);
}

/**
 * The consent page as a response: the pages' shell with the viewer shown, a form-action policy that allows the
 * redirect that follows the form (browsers apply `form-action` to it), and the form-token cookie when needed.
 *
 * @param pages - The random source, cookie flag and origin.
 * @param request - The authorization request.
 * @param viewer - The signed-in account.
 * @param props - What the page shows, but the token (derived here).
 * @param redirectUri - The exact registered redirect URI the code or the refusal will be sent to.
 * @returns The 200 response.
 *
 * @example
 * ```ts
 * consentResponse(pages, request, viewer, { action, appName, username, scopes, redirectOrigin, fields }, redirectUri);
 * ```
 */
export function consentResponse(
  pages: ConsentPageOptions,
  request: RouteRequest,
  viewer: PageViewer,
  props: Omit<ConsentPageProps, 'csrf'>,
  redirectUri: string,
): RouteResponse {
  const issued = formToken(request, pages.randomBytes, pages.secureCookies);
  return pageResponse(
    { viewer, csrf: issued.token, cookies: issued.cookie === null ? [] : [issued.cookie] },
    200,
    {
      title: `Authorize ${props.appName}`,
      nav: null,
      children: <ConsentPage {...props} csrf={issued.token} />,
      formActions: [formActionSource(redirectUri)],
    },
  );
}

/**
 * A refusal page of the authorization endpoint in the pages' shell: an error notice, nothing else, nothing
 * issued.
 *
 * @param pages - The random source, cookie flag and origin.
 * @param request - The request refused.
 * @param viewer - The signed-in account, or `null`.
 * @param status - The HTTP status.
 * @param title - The page title.
 * @param text - What went wrong and what to do.
 * @returns The response.
 *
 * @example
 * ```ts
 * authorizeRefusal(pages, request, null, 401, 'Sign in first', 'Your session ended. Sign in and try again.');
 * ```
 */
export function authorizeRefusal(
  pages: ConsentPageOptions,
  request: RouteRequest,
  viewer: PageViewer | null,
  status: number,
  title: string,
  text: string,
): RouteResponse {
  const issued = formToken(request, pages.randomBytes, pages.secureCookies);
  return pageResponse(
    { viewer, csrf: issued.token, cookies: issued.cookie === null ? [] : [issued.cookie] },
    status,
    { title, nav: null, notice: { kind: 'error', text }, children: null },
  );
}
