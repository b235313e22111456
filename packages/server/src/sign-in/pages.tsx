/**
 * The content of the built-in sign-in, sign-up and sign-out pages (spec §5.3 "Built-in"), shown in the one page
 * shell without a sidebar. React escapes every value: provider labels, what the person typed and `returnTo`.
 *
 * @module
 */
import type { ReactElement } from 'react';
import type { BuiltinProvider } from 'gatehouse-auth';
import { Field, PostForm } from '../pages/layout.js';
import type { SignInPageLink } from '../session/sessions.js';

/** The sign-in page's path. */
const SIGN_IN = '/.auth/sign-in';
/** The sign-up page's path. */
const SIGN_UP = '/.auth/sign-up';
/** The sign-out page's path. */
const SIGN_OUT = '/.auth/sign-out';

/**
 * A provider's login route with `returnTo` added to its query.
 *
 * @param loginPath - The login route (it may carry a query already).
 * @param returnTo - Where to come back to, a path on this site.
 * @returns The link.
 *
 * @example
 * ```ts
 * withReturnTo('/.auth/hosta/login?provider=1', '/settings'); // '/.auth/hosta/login?provider=1&returnTo=%2Fsettings'
 * ```
 */
export function withReturnTo(loginPath: string, returnTo: string): string {
  return `${loginPath}${loginPath.includes('?') ? '&' : '?'}returnTo=${encodeURIComponent(returnTo)}`;
}

/**
 * What the sign-in and sign-up forms show: the configured provider, where to go afterwards, the form token, and
 * what the person typed (never the password).
 *
 * @example
 * ```ts
 * const form: CredentialsForm = { builtin, returnTo: '/settings', csrf, username: 'alice', email: '' };
 * ```
 */
export interface CredentialsForm {
  /** The configured `builtin` provider, or `null`. */
  readonly builtin: BuiltinProvider | null;
  /** Where a successful post goes (a path on this site, already checked). */
  readonly returnTo: string;
  /** The form token. */
  readonly csrf: string;
  /** The username typed before, re-shown after a refusal. */
  readonly username: string;
  /** The email typed before (sign-up). */
  readonly email: string;
}

/**
 * The sign-in page's content: the password form (when `builtin` is configured), a link to sign up (when
 * allowed) and a link per other provider (§5.3 "Built-in").
 *
 * @param props - The form and the provider links.
 * @returns The content.
 *
 * @example
 * ```ts
 * <SignInContent builtin={builtin} returnTo="/settings" csrf={csrf} username="" email="" links={[]} />
 * ```
 */
export function SignInContent(props: CredentialsForm & { readonly links: readonly SignInPageLink[] }): ReactElement {
  const { builtin, links, returnTo } = props;
  const providers =
    links.length === 0 ? null : (
      <section className="panel" aria-labelledby="providers-heading">
        <h2 id="providers-heading">{builtin === null ? 'Choose how to sign in' : 'Or sign in with'}</h2>
        <ul className="providers">
          {links.map((l) => (
            <li key={l.loginPath}>
              <a className="provider" href={withReturnTo(l.loginPath, returnTo)}>{`Sign in with ${l.label}`}</a>
            </li>
          ))}
        </ul>
      </section>
    );
  if (builtin === null) {
    return <>{providers ?? <p className="panel">Password sign-in is not enabled on this site.</p>}</>;
  }
  return (
    <>
      <section className="panel" aria-labelledby="password-heading">
        <h2 id="password-heading">With your password</h2>
        <PostForm action={SIGN_IN} csrf={props.csrf}>
          <input type="hidden" name="returnTo" value={returnTo} />
          <Field id="username" name="username" label="Username" value={props.username} required autoComplete="username" />
          <Field id="password" name="password" label="Password" type="password" required autoComplete="current-password" />
          <div className="actions">
            <button type="submit">Sign in</button>
          </div>
        </PostForm>
        <p>
          <a href="/.auth/forgot-password">Forgot password?</a>
        </p>
        {builtin.allowSignup ? (
          <p>
            No account? <a href={`${SIGN_UP}?returnTo=${encodeURIComponent(returnTo)}`}>Sign up</a>
          </p>
        ) : null}
      </section>
      {providers}
    </>
  );
}

/**
 * The sign-up page's content: the form when `allowSignup` is on (§5.3 "Built-in"), else why not.
 *
 * @param props - The form.
 * @returns The content.
 *
 * @example
 * ```ts
 * <SignUpContent builtin={builtin} returnTo="/settings" csrf={csrf} username="" email="" minPasswordLength={8} />
 * ```
 */
export function SignUpContent(props: CredentialsForm & { readonly minPasswordLength: number }): ReactElement {
  const { builtin, returnTo } = props;
  if (builtin === null || !builtin.allowSignup) {
    return <p className="panel">Sign-up is not allowed on this site. Ask a site administrator to create your account.</p>;
  }
  return (
    <section className="panel" aria-label="Create an account">
      <PostForm action={SIGN_UP} csrf={props.csrf}>
        <input type="hidden" name="returnTo" value={returnTo} />
        <Field
          id="username"
          name="username"
          label="Username"
          value={props.username}
          required
          autoComplete="username"
          hint={'Letters, digits, "-", "." and "_".'}
        />
        <Field id="email" name="email" label="Email" type="email" value={props.email} required autoComplete="email" />
        <Field
          id="password"
          name="password"
          label="Password"
          type="password"
          required
          autoComplete="new-password"
          hint={`At least ${props.minPasswordLength} characters.`}
        />
        <div className="actions">
          <button type="submit">Sign up</button>
        </div>
      </PostForm>
      <p>
        Have an account? <a href={`${SIGN_IN}?returnTo=${encodeURIComponent(returnTo)}`}>Sign in</a>
      </p>
    </section>
  );
}

/**
 * The sign-out page's content: who is signed in and the button, or a link to sign in.
 *
 * @param props - The signed-in username (`null` when nobody is) and the form token.
 * @returns The content.
 *
 * @example
 * ```ts
 * <SignOutContent username="alice" csrf={csrf} />
 * ```
 */
export function SignOutContent(props: { readonly username: string | null; readonly csrf: string }): ReactElement {
  if (props.username === null) {
    return (
      <p className="panel">
        You are not signed in. <a href={SIGN_IN}>Sign in</a>
      </p>
    );
  }
  return (
    <section className="panel" aria-label="Sign out">
      <p>
        You are signed in as <strong>{props.username}</strong>.
      </p>
      <PostForm action={SIGN_OUT} csrf={props.csrf}>
        <div className="actions">
          <button type="submit">Sign out</button>
          <a className="button secondary" href="/settings">
            Stay signed in
          </a>
        </div>
      </PostForm>
    </section>
  );
}
