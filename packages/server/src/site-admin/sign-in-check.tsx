/**
 * Site administration: the Sign-in check. A site administrator picks a configured provider and types an identity
 * as that provider would describe it (username, emails and whether each is verified, orgs, teams, groups with
 * access levels, or the proxy's headers for `http-header`); the page shows the decision, the account it lands in
 * or the username it would create (§5.5), and the trace of the spec's rules with their text (`explainSignIn`).
 * Nothing is written: the check only reads the store.
 *
 * @module
 */
import type { ReactElement } from 'react';
import type { AuthProvider } from 'gatehouse-auth';
import { Field, PostForm } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { formRoute, pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext } from '../pages/page-routes.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import { checkSignIn, MAX_CHECK_LIST_LENGTH, MAX_CHECK_TEXT_LENGTH, type SignInCheckRequest, type SignInCheckResult } from '../operations/sign-in-check.js';
import { adminNav } from './account-pages.js';
import type { SiteAdminDeps } from './deps.js';
import { SignInTrace } from './sign-in-trace.js';

/**
 * The path of the Sign-in check page (`GET` shows the form, `POST` runs the check).
 *
 * @example
 * ```ts
 * SIGN_IN_CHECK_PATH; // '/site-admin/sign-in-check'
 * ```
 */
export const SIGN_IN_CHECK_PATH = '/site-admin/sign-in-check';

/** The form as typed. */
interface Typed {
  readonly provider: string;
  readonly username: string;
  readonly accountId: string;
  readonly emails: string;
  readonly orgs: string;
  readonly teams: string;
  readonly groups: string;
  readonly headers: string;
  readonly incomplete: boolean;
  readonly signedIn: string;
}

const EMPTY: Typed = { provider: '0', username: '', accountId: '', emails: '', orgs: '', teams: '', groups: '', headers: '', incomplete: false, signedIn: '' };

/** Non-blank lines, trimmed. */
function lines(text: string): string[] {
  return text
    .split(/\r?\n/u)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** `text` up to the first `separator`, and the rest (both trimmed), or `null` without one. */
function splitOnce(text: string, separator: string): readonly [string, string] | null {
  const at = text.indexOf(separator);
  return at < 0 ? null : [text.slice(0, at).trim(), text.slice(at + separator.length).trim()];
}

/**
 * Reads the form into a check: emails one a line (` unverified` after an address the provider did not verify),
 * orgs one a line, teams as `org: Team name`, groups as `full/path accessLevel`, headers as `Name: value`.
 */
function readCheck(typed: Typed): { readonly request: SignInCheckRequest } | { readonly problem: string } {
  const emails = lines(typed.emails).map((line) => {
    const [address = '', flag = ''] = line.split(/\s+/u);
    return { address, verified: flag.toLowerCase() !== 'unverified' };
  });
  const teams: { org: string; name: string }[] = [];
  for (const line of lines(typed.teams)) {
    const pair = splitOnce(line, ':');
    if (pair === null || pair[0] === '' || pair[1] === '') return { problem: `A team line must read "org: Team name": ${line.slice(0, 80)}` };
    teams.push({ org: pair[0], name: pair[1] });
  }
  const groups: { fullPath: string; accessLevel: number }[] = [];
  for (const line of lines(typed.groups)) {
    const match = /^(\S+)\s+(\d{1,3})$/u.exec(line);
    if (match === null) return { problem: `A group line must read "full/path accessLevel" (such as "acme/platform 30"): ${line.slice(0, 80)}` };
    groups.push({ fullPath: match[1] ?? '', accessLevel: Number(match[2]) });
  }
  const headers: { name: string; value: string }[] = [];
  for (const line of lines(typed.headers)) {
    const pair = splitOnce(line, ':');
    if (pair === null || pair[0] === '') return { problem: `A header line must read "Name: value": ${line.slice(0, 80)}` };
    headers.push({ name: pair[0], value: pair[1] });
  }
  return {
    request: {
      provider: typed.provider,
      accountId: typed.accountId === '' ? null : typed.accountId,
      username: typed.username,
      emails,
      orgs: lines(typed.orgs),
      teams,
      groups,
      headers,
      membershipComplete: !typed.incomplete,
      signedInUsername: typed.signedIn,
    },
  };
}

function providerLabel(provider: AuthProvider, index: number): string {
  return `${index}: ${provider.type}${provider.displayName === undefined ? '' : ` · ${provider.displayName}`}`;
}

function TextArea(props: { readonly id: string; readonly label: string; readonly value: string; readonly hint: string }): ReactElement {
  return (
    <>
      <label htmlFor={props.id}>{props.label}</label>
      <textarea id={props.id} name={props.id} rows={3} defaultValue={props.value} aria-describedby={`${props.id}-hint`} spellCheck={false} />
      <p className="hint" id={`${props.id}-hint`}>
        {props.hint}
      </p>
    </>
  );
}

function CheckForm(props: { readonly ctx: PageContext; readonly providers: readonly AuthProvider[]; readonly typed: Typed }): ReactElement {
  const { typed } = props;
  return (
    <PostForm action={SIGN_IN_CHECK_PATH} csrf={props.ctx.csrf} label="Check a sign-in">
      <label htmlFor="provider">Provider</label>
      <select id="provider" name="provider" defaultValue={typed.provider}>
        {props.providers.map((p, i) => (
          <option key={i} value={String(i)}>
            {providerLabel(p, i)}
          </option>
        ))}
      </select>
      <Field id="username" name="username" label="Username at the provider" value={typed.username} maxLength={MAX_CHECK_TEXT_LENGTH} autoComplete="off" />
      <Field id="accountId" name="accountId" label="Account id at the provider (optional)" value={typed.accountId} maxLength={MAX_CHECK_TEXT_LENGTH} autoComplete="off" hint="Defaults to the username, else the first email." />
      <TextArea id="emails" label="Emails" value={typed.emails} hint='One a line, primary first; add " unverified" after an address the provider has not verified.' />
      <TextArea id="orgs" label="Organizations (hosta)" value={typed.orgs} hint="One a line." />
      <TextArea id="teams" label="Teams (hosta)" value={typed.teams} hint='One a line, as "org: Team display name".' />
      <TextArea id="groups" label="Groups (hostb)" value={typed.groups} hint='One a line, as "full/path accessLevel": 5 Minimal Access, 10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner.' />
      <TextArea id="headers" label="Proxy headers (http-header)" value={typed.headers} hint='One a line, as "Name: value"; for an http-header provider the identity is read from these alone.' />
      <div className="checkbox">
        <input id="incomplete" name="incomplete" type="checkbox" value="1" defaultChecked={typed.incomplete} />
        <label htmlFor="incomplete">The membership lists were cut short</label>
      </div>
      <Field id="signedIn" name="signedIn" label="Signed in as (username, optional)" value={typed.signedIn} maxLength={MAX_CHECK_TEXT_LENGTH} autoComplete="off" hint="The account of the session the identity arrives in: the identity is added to it." />
      <div className="actions">
        <button type="submit">Check</button>
      </div>
    </PostForm>
  );
}

function Outcome(props: { readonly result: SignInCheckResult }): ReactElement {
  const { explanation, account, refusalReason } = props.result;
  const { decision } = explanation;
  const summary =
    decision.kind === 'deny'
      ? `Refused (${decision.reason}).`
      : decision.kind === 'create'
        ? `A new account would be created, named ${decision.username}.`
        : `Signs in to the existing account ${account?.username ?? decision.userId}${decision.linkExternalAccount ? ', linking the identity to it' : ''}.`;
  return (
    <section className="panel" aria-labelledby="decision-heading">
      <h2 id="decision-heading">Decision</h2>
      <p className="decision" data-decision={decision.kind}>
        <strong>{summary}</strong>
      </p>
      {decision.kind === 'deny' ? (
        <dl>
          <dt>The person would read</dt>
          <dd>{decision.message}</dd>
          {refusalReason === null ? null : (
            <>
              <dt>The reason shown with it</dt>
              <dd>{refusalReason}</dd>
            </>
          )}
        </dl>
      ) : null}
      {account?.serviceAccount === true ? <p>This account is a service account: a browser sign-in into it is refused.</p> : null}
      <h3 id="trace-heading">Rules applied, in order</h3>
      <SignInTrace steps={explanation.trace} label="Rules applied, in order" />
    </section>
  );
}

function checkPage(
  deps: SiteAdminDeps,
  ctx: PageContext,
  status: number,
  notice: PageNotice | null,
  typed: Typed,
  result: SignInCheckResult | null,
): RouteResponse {
  const providers = deps.configuration.authProviders;
  return pageResponse(ctx, status, {
    title: 'Sign-in check',
    nav: adminNav(SIGN_IN_CHECK_PATH),
    notice,
    children: (
      <>
        <section className="panel" aria-labelledby="check-heading">
          <h2 id="check-heading">Check a sign-in</h2>
          <p>How a person a provider describes like this would fare now: nothing is written.</p>
          {providers.length === 0 ? <p>No provider is configured.</p> : <CheckForm ctx={ctx} providers={providers} typed={typed} />}
        </section>
        {result === null ? null : <Outcome result={result} />}
      </>
    ),
  });
}

/**
 * The Sign-in check routes, for site administrators only: `GET /site-admin/sign-in-check` (the form) and `POST`
 * (the check; a malformed line or an unknown provider is a 400 page saying which). Nothing is written.
 *
 * @param deps - The pages' dependencies.
 * @returns The routes.
 * @example
 * ```ts
 * signInCheckRoutes(deps).map((r) => r.path); // ['/site-admin/sign-in-check', '/site-admin/sign-in-check']
 * ```
 */
export function signInCheckRoutes(deps: SiteAdminDeps): readonly Route[] {
  return [
    pageRoute(deps, SIGN_IN_CHECK_PATH, 'site_admin', async (ctx) => checkPage(deps, ctx, 200, null, EMPTY, null)),
    formRoute(deps, SIGN_IN_CHECK_PATH, 'site_admin', async (ctx, form) => {
      const field = (name: string): string => (form.get(name) ?? '').slice(0, MAX_CHECK_TEXT_LENGTH * MAX_CHECK_LIST_LENGTH);
      const typed: Typed = {
        provider: field('provider'),
        username: field('username').trim(),
        accountId: field('accountId').trim(),
        emails: field('emails'),
        orgs: field('orgs'),
        teams: field('teams'),
        groups: field('groups'),
        headers: field('headers'),
        incomplete: form.get('incomplete') === '1',
        signedIn: field('signedIn').trim(),
      };
      const read = readCheck(typed);
      if ('problem' in read) return checkPage(deps, ctx, 400, { kind: 'error', text: read.problem }, typed, null);
      const checked = await checkSignIn(deps.store, deps.configuration.authProviders, read.request, deps.randomBytes);
      if (checked.isErr()) return checkPage(deps, ctx, 400, { kind: 'error', text: checked.error.message }, typed, null);
      return checkPage(deps, ctx, 200, null, typed, checked.value);
    }),
  ];
}
