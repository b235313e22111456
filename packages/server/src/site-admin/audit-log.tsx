/**
 * Site administration: the audit log (spec §6), newest first, filtered by entity, action, actor and time, 50
 * entries a page. The filters travel in the query string (a `GET` form), so a filtered view is a link; the pages
 * follow the store's keyset cursor (`before=<id>`), so each entry appears on exactly one page even while new
 * entries arrive.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import type { ReactElement } from 'react';
import { usernameKey } from 'gatehouse-auth';
import { formatTime, SITE_ADMIN_NAV } from '../pages/layout.js';
import type { PageNotice } from '../pages/layout.js';
import { DataTable } from '../pages/table.js';
import { pageResponse, pageRoute } from '../pages/page-routes.js';
import type { PageContext } from '../pages/page-routes.js';
import type { Route, RouteResponse } from '../kernel/route.js';
import type { AuditEntry, AuditQuery } from '../store/types.js';
import { usernamesById } from './account-names.js';
import { readAuditedTrace, SignInTrace } from './sign-in-trace.js';
import type { SiteAdminDeps } from './deps.js';

/**
 * The path of the audit log page.
 *
 * @example
 * ```ts
 * `${AUDIT_LOG_PATH}?entity=auth.accessToken&action=failed`;
 * ```
 */
export const AUDIT_LOG_PATH = '/site-admin/audit-log';

/** Entries a page shows. */
const PAGE_SIZE = 50;

/** The longest text filter accepted (entities and actions are short names; usernames are shorter still). */
const MAX_FILTER_LENGTH = 200;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The entities the server records, offered as suggestions in the entity filter (any other text is accepted too:
 * an embedder's routes may record their own).
 *
 * @example
 * ```ts
 * KNOWN_AUDIT_ENTITIES.includes('auth.accessToken'); // true (spec §6)
 * ```
 */
export const KNOWN_AUDIT_ENTITIES: readonly string[] = Object.freeze([
  'auth.accessToken',
  'auth.session',
  'oauth.app',
  'oauth.consent',
  'oauth.token',
  'user',
  'user.credentials',
  'user.externalAccount',
  'user.password',
  'user.reauthentication',
  'user.session',
]);

/**
 * The actions the server records, offered as suggestions in the action filter.
 *
 * @example
 * ```ts
 * KNOWN_AUDIT_ACTIONS.includes('failed'); // true (spec §6)
 * ```
 */
export const KNOWN_AUDIT_ACTIONS: readonly string[] = Object.freeze([
  'added',
  'change_failed',
  'changed',
  'created',
  'deleted',
  'denied',
  'email_added',
  'email_verification_sent',
  'email_verified',
  'failed',
  'first_admin_link_created',
  'first_admin_password_set',
  'granted',
  'issued',
  'locked',
  'password_reset',
  'password_reset_link_created',
  'password_reset_requested',
  'primary_email_changed',
  'registered',
  'reinstated',
  'removed',
  'reset',
  'revoked',
  'secret_rotated',
  'sessions_ended',
  'signed_in',
  'site_admin_granted',
  'site_admin_revoked',
  'sudo',
  'sudo_denied',
  'suspended',
  'tokens_revoked',
  'unlinked',
  'unlock_link_mailed',
  'unlocked',
  'username_changed',
]);

/** The filters as typed (query parameters; an empty one is no filter). */
interface TypedFilters {
  readonly entity: string;
  readonly action: string;
  readonly actor: string;
  readonly since: string;
  readonly until: string;
  readonly reference: string;
}

/** The filters read from the query string. */
interface AuditFilters {
  readonly typed: TypedFilters;
  /** The store query, but the actor (a username to resolve first). */
  readonly query: Omit<AuditQuery, 'actorUserId'>;
  /** The actor's username, if filtered by one. */
  readonly actor: string | null;
}

/** A day typed in a date input (`YYYY-MM-DD`, UTC) as the time it starts, or `null` when it is not a real day. */
function dayStart(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/u.test(text)) return null;
  const start = Date.parse(`${text}T00:00:00.000Z`);
  // a day that does not exist (2025-02-30) parses into another one, or not at all
  return Number.isFinite(start) && new Date(start).toISOString().slice(0, 10) === text ? start : null;
}

/** Reads and checks the filters and the cursor; an error is a sentence for the page. */
function readFilters(params: URLSearchParams): Result<AuditFilters, string> {
  const text = (name: string): string => (params.get(name) ?? '').trim();
  const typed: TypedFilters = { entity: text('entity'), action: text('action'), actor: text('actor'), since: text('since'), until: text('until'), reference: text('reference').toUpperCase() };
  for (const [name, value] of Object.entries(typed)) {
    if (value.length > MAX_FILTER_LENGTH) return err(`The ${name} filter is too long (at most ${MAX_FILTER_LENGTH} characters).`);
  }
  const since = typed.since === '' ? undefined : dayStart(typed.since);
  // fixed sentences: a link must not make this page say what its author chose (the typed value stays in its field)
  if (since === null) return err('The "since" filter is not a day: give it as YYYY-MM-DD.');
  const untilStart = typed.until === '' ? undefined : dayStart(typed.until);
  if (untilStart === null) return err('The "until" filter is not a day: give it as YYYY-MM-DD.');
  if (since !== undefined && untilStart !== undefined && since > untilStart) return err('The "since" day is after the "until" day.');
  const before = text('before');
  // entry ids are decimal integers from 1 (the store's keyset cursor)
  if (before !== '' && !/^[1-9][0-9]{0,15}$/u.test(before)) return err('This page link is broken: "before" must be an entry id. Start again from the newest entries.');
  return ok({
    typed,
    actor: typed.actor === '' ? null : typed.actor,
    query: {
      ...(typed.entity === '' ? {} : { entity: typed.entity }),
      ...(typed.action === '' ? {} : { action: typed.action }),
      ...(typed.reference === '' ? {} : { reference: typed.reference }),
      ...(since === undefined ? {} : { since }),
      // until is inclusive: to the last millisecond of the day
      ...(untilStart === undefined ? {} : { until: untilStart + DAY_MS - 1 }),
      ...(before === '' ? {} : { before }),
    },
  });
}

/** The link to the log with these filters (and a cursor). */
function logHref(typed: TypedFilters, before: string | null): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(typed)) if (value !== '') params.set(name, value);
  if (before !== null) params.set('before', before);
  const query = params.toString();
  return query === '' ? AUDIT_LOG_PATH : `${AUDIT_LOG_PATH}?${query}`;
}

/** An account named by id: its username, else its id, else a dash. */
function Account(props: { readonly id: string | null | undefined; readonly names: ReadonlyMap<string, string> }): ReactElement {
  if (props.id === null || props.id === undefined || props.id === '') return <span className="muted">—</span>;
  const name = props.names.get(props.id);
  return name === undefined ? <code>{props.id}</code> : <>{name}</>;
}

/** The details of an entry as `key=value` lines, and whom a `token-sudo` request acted as. */
function Details(props: { readonly entry: AuditEntry; readonly names: ReadonlyMap<string, string> }): ReactElement {
  const { entry, names } = props;
  const lines = Object.entries(entry.details)
    .filter(([key]) => key !== 'trace')
    .map(([key, value]) => `${key}=${value}`);
  const trace = readAuditedTrace(entry.details['trace']);
  if (entry.impersonatedUserId !== undefined) {
    const name = names.get(entry.impersonatedUserId);
    lines.push(`impersonatedUserId=${entry.impersonatedUserId}${name === undefined ? '' : ` (${name})`}`);
  }
  if (lines.length === 0 && trace === null) return <span className="muted">—</span>;
  return (
    <>
      <ul className="plain-list">
        {lines.map((line, i) => (
          <li key={i}>
            <code>{line}</code>
          </li>
        ))}
      </ul>
      {trace === null ? null : (
        <details className="audited-trace">
          <summary>Sign-in trace ({trace.length} rules)</summary>
          <SignInTrace steps={trace} label={`Sign-in trace of entry ${entry.id}`} compact />
        </details>
      )}
    </>
  );
}

/** A time as the pages show it (the day over the time of day), with the exact instant for machines. */
function Time(props: { readonly ms: number }): ReactElement {
  const [day, ...rest] = formatTime(props.ms).split(' ');
  return (
    <time dateTime={new Date(props.ms).toISOString()}>
      {day}
      <br />
      {rest.join(' ')}
    </time>
  );
}

/** The entries, each row with its id as anchor (`#entry-7`), or the `empty` sentence. */
function EntriesTable(props: { readonly entries: readonly AuditEntry[]; readonly names: ReadonlyMap<string, string>; readonly empty: string }): ReactElement {
  const { names } = props;
  return (
    <DataTable
      columns={['Time', 'Entity', 'Action', 'Reason', 'Actor', 'Subject', 'Details', 'Count']}
      rows={props.entries}
      rowKey={(entry) => entry.id}
      rowId={(entry) => `entry-${entry.id}`}
      className="audit-log"
      scrollLabel="Audit log entries table"
      empty={props.empty}
      row={(entry) => (
        <>
          <td className="time">
            <Time ms={entry.timestamp} />
          </td>
          <td className="nowrap">
            <code>{entry.entity}</code>
          </td>
          <td className="nowrap">
            <code>{entry.action}</code>
          </td>
          <td>{entry.reason ?? <span className="muted">—</span>}</td>
          <td>
            <Account id={entry.actorUserId} names={names} />
          </td>
          <td>
            <Account id={entry.subjectUserId} names={names} />
          </td>
          <td className="details">
            <Details entry={entry} names={names} />
          </td>
          <td className="time">
            {entry.count > 1 ? (
              <>
                {entry.count}
                <br />
                <span className="hint">
                  last <Time ms={entry.lastAt} />
                </span>
              </>
            ) : (
              entry.count
            )}
          </td>
        </>
      )}
    />
  );
}

/** A labelled text input offering suggestions (any text is accepted). */
function SuggestField(props: { readonly id: string; readonly label: string; readonly value: string; readonly options: readonly string[] }): ReactElement {
  return (
    <div>
      <label htmlFor={props.id}>{props.label}</label>
      <input id={props.id} name={props.id} type="text" list={`${props.id}-options`} defaultValue={props.value} maxLength={MAX_FILTER_LENGTH} autoComplete="off" />
      <datalist id={`${props.id}-options`}>
        {props.options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
    </div>
  );
}

function FilterForm(props: { readonly typed: TypedFilters }): ReactElement {
  const { typed } = props;
  return (
    <form method="get" action={AUDIT_LOG_PATH} role="search" aria-label="Filter the audit log">
      <div className="filters">
        <SuggestField id="entity" label="Entity" value={typed.entity} options={KNOWN_AUDIT_ENTITIES} />
        <SuggestField id="action" label="Action" value={typed.action} options={KNOWN_AUDIT_ACTIONS} />
        <div>
          <label htmlFor="actor">Actor (username)</label>
          <input id="actor" name="actor" type="text" defaultValue={typed.actor} maxLength={MAX_FILTER_LENGTH} autoComplete="off" />
        </div>
        <div>
          <label htmlFor="reference">Reference code</label>
          <input id="reference" name="reference" type="text" defaultValue={typed.reference} maxLength={MAX_FILTER_LENGTH} autoComplete="off" />
        </div>
        <div>
          <label htmlFor="since">Since (UTC day)</label>
          <input id="since" name="since" type="date" defaultValue={typed.since} />
        </div>
        <div>
          <label htmlFor="until">Until (UTC day, inclusive)</label>
          <input id="until" name="until" type="date" defaultValue={typed.until} />
        </div>
      </div>
      <div className="actions">
        <button type="submit">Filter</button>
        <a href={AUDIT_LOG_PATH}>Clear filters</a>
      </div>
    </form>
  );
}

/** The page: filters, the entries of this page, and links to the older and the newest entries. */
async function logPage(
  deps: SiteAdminDeps,
  ctx: PageContext,
  status: number,
  notice: PageNotice | null,
  typed: TypedFilters,
  listing: { readonly entries: readonly AuditEntry[]; readonly older: string | null; readonly paged: boolean } | null,
): Promise<RouteResponse> {
  const entries = listing?.entries ?? [];
  const names = await usernamesById(
    deps.store,
    entries.flatMap((e) => [e.actorUserId, e.subjectUserId, e.impersonatedUserId]),
  );
  const filtered = Object.values(typed).some((v) => v !== '');
  return pageResponse(ctx, status, {
    title: 'Audit log',
    nav: { title: 'Site admin', items: SITE_ADMIN_NAV, current: AUDIT_LOG_PATH },
    notice,
    children: (
      <>
        <section className="panel" aria-labelledby="filters-heading">
          <h2 id="filters-heading">Filters</h2>
          <FilterForm typed={typed} />
        </section>
        <section className="panel" aria-labelledby="entries-heading">
          <h2 id="entries-heading">{listing?.paged === true ? 'Older entries' : 'Entries, newest first'}</h2>
          <EntriesTable entries={entries} names={names} empty={filtered ? 'No entries match these filters.' : 'No entries.'} />
          {listing === null || (listing.older === null && !listing.paged) ? null : (
            <nav className="pager" aria-label="Audit log pages">
              {listing.paged ? <a href={logHref(typed, null)}>Newest entries</a> : null}
              {listing.older === null ? null : <a href={logHref(typed, listing.older)}>Older entries</a>}
            </nav>
          )}
        </section>
      </>
    ),
  });
}

/**
 * The audit log page, for site administrators only: `GET /site-admin/audit-log` with the query parameters
 * `entity`, `action`, `actor` (a username), `reference` (a refused sign-in's reference code), `since` and `until` (UTC days, `YYYY-MM-DD`, both inclusive) and
 * `before` (an entry id: the page after it). A bad value is a 400 page saying which.
 *
 * @param deps - The pages' dependencies.
 * @returns The route.
 *
 * @example
 * ```ts
 * auditLogRoutes(deps).map((r) => r.path); // ['/site-admin/audit-log']
 * ```
 */
export function auditLogRoutes(deps: SiteAdminDeps): readonly Route[] {
  return [
    pageRoute(deps, AUDIT_LOG_PATH, 'site_admin', async (ctx) => {
      const read = readFilters(ctx.request.url.searchParams);
      if (read.isErr()) {
        const p = ctx.request.url.searchParams;
        const raw = (name: string): string => (p.get(name) ?? '').slice(0, MAX_FILTER_LENGTH);
        const typed: TypedFilters = { entity: raw('entity'), action: raw('action'), actor: raw('actor'), since: raw('since'), until: raw('until'), reference: raw('reference') };
        return logPage(deps, ctx, 400, { kind: 'error', text: read.error }, typed, null);
      }
      const { typed, query, actor } = read.value;
      const paged = query.before !== undefined;
      let actorUserId: string | undefined;
      if (actor !== null) {
        const user = await deps.store.accounts.findByUsernameKey(usernameKey(actor));
        if (user === null) {
          return logPage(deps, ctx, 200, { kind: 'info', text: 'No account has the username in the actor filter.' }, typed, { entries: [], older: null, paged });
        }
        actorUserId = user.id;
      }
      const found = await deps.store.audit.list(PAGE_SIZE + 1, actorUserId === undefined ? query : { ...query, actorUserId });
      const entries = found.slice(0, PAGE_SIZE);
      const older = found.length > PAGE_SIZE ? (entries[entries.length - 1]?.id ?? null) : null;
      return logPage(deps, ctx, 200, null, typed, { entries, older, paged });
    }),
  ];
}
