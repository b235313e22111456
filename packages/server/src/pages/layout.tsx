/**
 * The one page shell of the server's pages and the components they share. Pages are React elements rendered to
 * static markup on the server (`react-dom/server`): React escapes every value, so no page escapes by hand, and
 * no script runs but the one same-origin asset (copy buttons).
 *
 * @module
 */
import type { ReactElement, ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { CONSOLE_PATH } from './console-path.js';
import { ASSET_PATHS } from './assets.js';
import { CSRF_FIELD } from './csrf.js';

/** The sign-out path the header's button posts to. */
const SIGN_OUT_PATH = '/.auth/sign-out';

/**
 * Who the page is for: the signed-in account's name and role, or `null` on the sign-in pages.
 *
 * @example
 * ```ts
 * const viewer: PageViewer = { username: 'alice', siteAdmin: false };
 * ```
 */
export interface PageViewer {
  /** The username shown in the header. */
  readonly username: string;
  /** Whether the "Site admin" link is shown. */
  readonly siteAdmin: boolean;
}

/**
 * A message at the top of a page.
 *
 * @example
 * ```ts
 * const notice: PageNotice = { kind: 'ok', text: 'The token was deleted.' };
 * ```
 */
export interface PageNotice {
  /** `ok` for a success, `error` for a refusal, `info` for anything else. */
  readonly kind: 'ok' | 'error' | 'info';
  /** What the person reads. */
  readonly text: string;
}

/**
 * One entry of a sidebar.
 *
 * @example
 * ```ts
 * const item: NavItem = { label: 'Access tokens', href: '/settings/tokens' };
 * ```
 */
export interface NavItem {
  /** The link text. */
  readonly label: string;
  /** Where it goes. */
  readonly href: string;
}

/**
 * The settings area's sidebar (spec §1: "Debug console" is reached from it; §2.3 "Access tokens"; §5.3
 * "Account security").
 *
 * @example
 * ```ts
 * SETTINGS_NAV.map((i) => i.label); // ['Profile', 'Password', 'Access tokens', …]
 * ```
 */
export const SETTINGS_NAV: readonly NavItem[] = Object.freeze([
  { label: 'Profile', href: '/settings' },
  { label: 'Password', href: '/settings/password' },
  { label: 'Access tokens', href: '/settings/tokens' },
  { label: 'Account security', href: '/settings/security' },
  { label: 'Sessions', href: '/settings/sessions' },
  { label: 'Debug console', href: CONSOLE_PATH },
]);

/**
 * The site administration sidebar.
 *
 * @example
 * ```ts
 * SITE_ADMIN_NAV[0]?.href; // '/site-admin/users'
 * ```
 */
export const SITE_ADMIN_NAV: readonly NavItem[] = Object.freeze([
  { label: 'Users', href: '/site-admin/users' },
  { label: 'Service accounts', href: '/site-admin/service-accounts' },
  { label: 'OAuth apps', href: '/site-admin/oauth-apps' },
  { label: 'Audit log', href: '/site-admin/audit-log' },
  { label: 'Site configuration', href: '/site-admin/configuration' },
  { label: 'Sign-in check', href: '/site-admin/sign-in-check' },
]);

/**
 * What {@link Page} shows.
 *
 * @example
 * ```ts
 * const props: PageProps = { title: 'Profile', viewer, csrf, nav: { title: 'Settings', items: SETTINGS_NAV, current: '/settings' }, children: null };
 * ```
 */
export interface PageProps {
  /** The page title (also the `<title>`). */
  readonly title: string;
  /** The signed-in account, or `null` on the sign-in pages. */
  readonly viewer: PageViewer | null;
  /** The form token for the header's sign-out button (and nothing else reads it here). */
  readonly csrf: string | null;
  /** The sidebar, or `null` for a page in one narrow column (sign-in, consent). */
  readonly nav: { readonly title: string; readonly items: readonly NavItem[]; readonly current: string } | null;
  /** A message at the top, if any. */
  readonly notice?: PageNotice | null;
  /** Whether a page without a sidebar gets the wider column (tables, long text). */
  readonly wide?: boolean;
  /** The page's content. */
  readonly children: ReactNode;
}

/**
 * The page shell: header with the product name, the account and sign-out, an optional sidebar, and the content.
 *
 * @param props - Title, viewer, sidebar, notice and content.
 * @returns The `<html>` element.
 *
 * @example
 * ```ts
 * renderPage(<Page title="Sign in" viewer={null} csrf={null} nav={null}><p>…</p></Page>);
 * ```
 */
export function Page(props: PageProps): ReactElement {
  const { title, viewer, csrf, nav } = props;
  const frame = nav === null ? (props.wide === true ? 'frame wide' : 'frame single') : 'frame';
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${title} · gatehouse`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={ASSET_PATHS.stylesheet} />
        <script src={ASSET_PATHS.script} defer />
      </head>
      <body>
        <a className="skip" href="#content">
          Skip to content
        </a>
        <header className="topbar">
          <a className="brand" href={viewer === null ? '/' : '/settings'}>
            gatehouse
          </a>
          {viewer === null ? null : (
            <nav aria-label="Main">
              <ul className="topnav">
                <li>
                  <a href="/settings">Settings</a>
                </li>
                {viewer.siteAdmin ? (
                  <li>
                    <a href="/site-admin">Site admin</a>
                  </li>
                ) : null}
                <li>
                  <a href={CONSOLE_PATH}>Debug console</a>
                </li>
                <li className="who">
                  Signed in as <strong>{viewer.username}</strong>
                </li>
                <li>
                  <form method="post" action={SIGN_OUT_PATH}>
                    {csrf === null ? null : <input type="hidden" name={CSRF_FIELD} value={csrf} />}
                    <button type="submit">Sign out</button>
                  </form>
                </li>
              </ul>
            </nav>
          )}
        </header>
        <div className={frame}>
          {nav === null ? null : (
            <nav className="sidebar" aria-label={nav.title}>
              <h2>{nav.title}</h2>
              <ul>
                {nav.items.map((item) => (
                  <li key={item.href}>
                    <a href={item.href} aria-current={item.href === nav.current ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <main id="content">
            <h1>{title}</h1>
            {props.notice === undefined || props.notice === null ? null : <Notice notice={props.notice} />}
            {props.children}
          </main>
        </div>
      </body>
    </html>
  );
}

/**
 * A message box: a status for successes and information, an alert for refusals.
 *
 * @param props - The notice.
 * @returns The element.
 *
 * @example
 * ```ts
 * <Notice notice={{ kind: 'error', text: 'That username is taken.' }} />
 * ```
 */
export function Notice(props: { readonly notice: PageNotice }): ReactElement {
  const { kind, text } = props.notice;
  return (
    <p className={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {text}
    </p>
  );
}

/**
 * A `POST` form with its CSRF token field.
 *
 * @param props - Where it posts, the token, an optional class and label, and the controls.
 * @returns The form element.
 *
 * @example
 * ```ts
 * <PostForm action="/settings/tokens/delete" csrf={csrf}><button type="submit">Delete</button></PostForm>
 * ```
 */
export function PostForm(props: {
  readonly action: string;
  readonly csrf: string;
  readonly className?: string;
  readonly label?: string;
  readonly children: ReactNode;
}): ReactElement {
  return (
    <form method="post" action={props.action} className={props.className} aria-label={props.label}>
      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
      {props.children}
    </form>
  );
}

/**
 * The form of a confirmation page: the hidden fields naming what is acted on, the danger button that does it, and
 * Cancel back to where the person came from (deletions ask first, with no JavaScript).
 *
 * @param props - Where it posts, the token, its label, the hidden fields, the button text and where Cancel goes.
 * @returns The form element.
 *
 * @example
 * ```ts
 * <ConfirmForm action="/settings/tokens/delete" csrf={csrf} label="Delete token" fields={{ id }} button="Delete token" cancelHref="/settings/tokens" />
 * ```
 */
export function ConfirmForm(props: {
  readonly action: string;
  readonly csrf: string;
  readonly label: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly button: string;
  readonly cancelHref: string;
}): ReactElement {
  return (
    <PostForm action={props.action} csrf={props.csrf} label={props.label}>
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="actions">
        <button type="submit" className="danger">
          {props.button}
        </button>
        <a className="button secondary" href={props.cancelHref}>
          Cancel
        </a>
      </div>
    </PostForm>
  );
}

/**
 * A labelled text input (the label is tied to the control by id).
 *
 * @param props - Id, name, label, type, value, hint and the input's own attributes.
 * @returns The label, the input and the hint.
 *
 * @example
 * ```ts
 * <Field id="note" name="note" label="Note" required maxLength={200} />
 * ```
 */
export function Field(props: {
  readonly id: string;
  readonly name: string;
  readonly label: string;
  readonly type?: 'text' | 'password' | 'email' | 'search' | 'date' | 'url';
  readonly value?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly autoComplete?: string;
}): ReactElement {
  const hintId = props.hint === undefined ? undefined : `${props.id}-hint`;
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? 'text'}
        defaultValue={props.value}
        required={props.required}
        maxLength={props.maxLength}
        autoComplete={props.autoComplete}
        aria-describedby={hintId}
      />
      {props.hint === undefined ? null : (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </>
  );
}

/**
 * A secret shown once, with a copy button (shown by the page script) for the element holding it.
 *
 * @param props - The element id and the secret.
 * @returns The element.
 *
 * @example
 * ```ts
 * <SecretValue id="token-secret" value={secret} />
 * ```
 */
export function SecretValue(props: { readonly id: string; readonly value: string; readonly label: string }): ReactElement {
  return (
    <div className="secret">
      <code id={props.id} aria-label={props.label}>
        {props.value}
      </code>
      <button type="button" className="secondary" data-copy={props.id} hidden>
        Copy
      </button>
    </div>
  );
}

/**
 * Formats a time for the pages: UTC, to the minute (`2026-11-24 18:30 UTC`), or `never`.
 *
 * @param ms - Milliseconds since the epoch, or `null`.
 * @param never - The text for `null`.
 * @returns The text.
 *
 * @example
 * ```ts
 * formatTime(0); // '1970-01-01 00:00 UTC'
 * ```
 */
export function formatTime(ms: number | null, never = 'never'): string {
  if (ms === null || !Number.isFinite(ms)) return never;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * Renders a page element to an HTML document.
 *
 * @param element - The `<Page>` element.
 * @returns `<!doctype html>` and the markup.
 *
 * @example
 * ```ts
 * renderPage(<Page title="Profile" viewer={viewer} csrf={csrf} nav={null}>{null}</Page>);
 * ```
 */
export function renderPage(element: ReactElement): string {
  return `<!doctype html>${renderToStaticMarkup(element)}`;
}
