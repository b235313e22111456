/**
 * Site administration → Site configuration → "Preview a change": a form to paste a candidate site configuration
 * (JSONC), and the answer: its problems with their JSON paths, or what it would change over every stored account
 * (who would lose sign-in, who would gain it, who is unknown for want of stored sign-in facts, the providers that
 * come, go, or open or close sign-up, and the query cost limits of spec §8 that change). Nothing is applied.
 *
 * @module
 */
import type { ReactElement } from 'react';
import type { CappedList, WayChange } from 'gatehouse-auth';
import { PostForm, SITE_ADMIN_NAV } from '../pages/layout.js';
import { formRoute, pageResponse, pageRoute, PAGE_FORM_BODY } from '../pages/page-routes.js';
import type { PageContext } from '../pages/page-routes.js';
import { DataTable } from '../pages/table.js';
import type { Route } from '../kernel/route.js';
import type { ConfigurationPreview } from '../operations/configuration-preview.js';
import type { SiteAdminDeps } from './deps.js';

/**
 * The path of the preview page and its form.
 *
 * @example
 * ```ts
 * CONFIGURATION_PREVIEW_PATH; // '/site-admin/configuration/preview'
 * ```
 */
export const CONFIGURATION_PREVIEW_PATH = '/site-admin/configuration/preview';

/** The largest form the preview takes: a configuration of a few hundred KiB, URL-encoded. */
const PREVIEW_FORM_LIMIT = 1024 * 1024;

/** The most characters of candidate text read (the GraphQL argument's bound too). */
const MAX_CANDIDATE_LENGTH = 256 * 1024;

function wayLabel(change: WayChange): string {
  if (change.serviceType === 'builtin') return 'password (builtin)';
  return change.serviceId === '' ? change.serviceType : `${change.serviceType} ${change.serviceId}`;
}

function WayTable(props: {
  readonly id: string;
  readonly title: string;
  readonly list: CappedList<WayChange>;
  readonly empty: string;
  readonly hint?: string;
  /** Whether to show if the account keeps another way in (not for unknown answers, where it only may). */
  readonly otherWay?: boolean;
}): ReactElement {
  const { list } = props;
  const otherWay = props.otherWay ?? true;
  return (
    <section className="panel" aria-labelledby={props.id}>
      <h2 id={props.id}>
        {props.title} ({list.count})
      </h2>
      {props.hint === undefined ? null : <p className="hint">{props.hint}</p>}
      <DataTable
        columns={['Account', 'Way in', 'Provider username', 'Reason', ...(otherWay ? ['Other way in after'] : [])]}
        rows={list.first}
        rowKey={(c) => `${c.userId} ${c.serviceType} ${c.serviceId} ${c.accountId}`}
        scrollLabel={props.title}
        empty={props.empty}
        row={(c) => (
          <>
            <td>
              {c.username}
              {c.siteAdmin ? <span className="badge"> site admin</span> : null}
            </td>
            <td className="mono">{wayLabel(c)}</td>
            <td>{c.providerUsername ?? <span className="muted">(unknown)</span>}</td>
            <td className="mono">{c.reason ?? ''}</td>
            {otherWay ? <td>{c.accountStillSignsIn ? 'yes' : 'no'}</td> : null}
          </>
        )}
      />
      {list.count > list.first.length ? (
        <p className="hint">
          The first {list.first.length} of {list.count} are listed.
        </p>
      ) : null}
    </section>
  );
}

function Result(props: { readonly preview: ConfigurationPreview }): ReactElement {
  const { preview } = props;
  if (preview.kind === 'invalid') {
    return (
      <section className="panel" aria-labelledby="preview-problems">
        <h2 id="preview-problems">Problems ({preview.problems.length})</h2>
        <p className="notice error" role="alert">
          The candidate configuration has problems; a reload of it would be refused.
        </p>
        <ul className="problems">
          {preview.problems.map((p, i) => (
            <li key={i}>
              <code>{p.path === '' ? '(document)' : p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      </section>
    );
  }
  const { tally, changes } = preview;
  return (
    <>
      {preview.locksOutSiteAdmins ? (
        <p className="notice error" role="alert">
          This configuration would lock out every site administrator: none could sign in by any provider left. A reload of this file would be
          refused.
        </p>
      ) : null}
      <section className="panel" aria-labelledby="preview-summary">
        <h2 id="preview-summary">Summary</h2>
        <dl className="facts">
          <dt>Accounts examined</dt>
          <dd>{tally.accounts}</dd>
          <dt>Linked identities</dt>
          <dd>{tally.identities}</dd>
          <dt>Identities without sign-in facts</dt>
          <dd>
            {tally.identitiesWithoutFacts}{' '}
            <span className="muted">(not signed in since gatehouse began keeping what providers say; where a rule reads them they count as unknown)</span>
          </dd>
          <dt>Would lose sign-in</dt>
          <dd>{tally.losing.count}</dd>
          <dt>Would gain sign-in</dt>
          <dd>{tally.gaining.count}</dd>
          <dt>Unknown</dt>
          <dd>{tally.unknown.count}</dd>
          <dt>Accounts left without a way in</dt>
          <dd>{tally.accountsLockedOut.count}</dd>
          <dt>Site administrators signing in now / after</dt>
          <dd>
            {tally.siteAdminsSigningInNow} / {tally.siteAdminsSigningInAfter} (of {tally.siteAdmins})
          </dd>
        </dl>
        {preview.warnings.length === 0 ? null : (
          <ul className="problems">
            {preview.warnings.map((w, i) => (
              <li key={i}>
                <span className="badge">warning</span> {w}
              </li>
            ))}
          </ul>
        )}
      </section>
      <WayTable id="preview-losing" title="Who would lose sign-in" list={tally.losing} empty="Nobody would lose sign-in." />
      <WayTable id="preview-gaining" title="Who would gain sign-in" list={tally.gaining} empty="Nobody would gain sign-in." />
      <WayTable
        id="preview-unknown"
        title="Unknown"
        list={tally.unknown}
        empty="No answer depends on facts gatehouse has not kept."
        otherWay={false}
        hint="These identities have not signed in since gatehouse began keeping what providers say about them, and a membership rule decides them."
      />
      <section className="panel" aria-labelledby="preview-providers">
        <h2 id="preview-providers">Providers and sign-up ({changes.providers.length})</h2>
        <DataTable
          columns={['Change', 'Provider', 'Sign-up now', 'Sign-up after']}
          rows={changes.providers}
          rowKey={(p) => `${p.kind} ${p.type} ${p.serviceId}`}
          empty="No provider is added or removed, and none opens or closes sign-up."
          row={(p) => (
            <>
              <td>{p.kind === 'signup' ? (p.signupAfter === true ? 'opens sign-up' : 'closes sign-up') : p.kind}</td>
              <td className="mono">{p.serviceId === '' ? p.type : `${p.type} ${p.serviceId}`}</td>
              <td>{p.signupBefore === null ? '—' : p.signupBefore ? 'allowed' : 'not allowed'}</td>
              <td>{p.signupAfter === null ? '—' : p.signupAfter ? 'allowed' : 'not allowed'}</td>
            </>
          )}
        />
      </section>
      <section className="panel" aria-labelledby="preview-limits">
        <h2 id="preview-limits">Query cost limits ({changes.limits.length})</h2>
        <DataTable
          columns={['Setting', 'Now', 'After']}
          rows={changes.limits}
          rowKey={(l) => l.setting}
          empty="No query cost limit changes."
          row={(l) => (
            <>
              <td className="mono">{l.setting}</td>
              <td>{l.before}</td>
              <td>{l.after}</td>
            </>
          )}
        />
      </section>
    </>
  );
}

function render(ctx: PageContext, text: string, preview: ConfigurationPreview | null, available: boolean): ReturnType<typeof pageResponse> {
  return pageResponse(ctx, 200, {
    title: 'Preview a configuration change',
    nav: { title: 'Site admin', items: SITE_ADMIN_NAV, current: '/site-admin/configuration' },
    children: (
      <>
        <p className="hint">
          Paste a candidate site configuration (JSONC, as the file would hold it). gatehouse checks it and decides, for every stored account, whether
          each way in would still sign in. Nothing is applied: edit the file and reload to change the configuration.{' '}
          <a href="/site-admin/configuration">Back to the site configuration</a>
        </p>
        {available ? (
          <section className="panel" aria-labelledby="preview-form-heading">
            <h2 id="preview-form-heading">Candidate configuration</h2>
            <PostForm action={CONFIGURATION_PREVIEW_PATH} csrf={ctx.csrf} label="Preview a configuration change">
              <label htmlFor="preview-configuration">Site configuration (JSONC)</label>
              <textarea id="preview-configuration" name="configuration" required rows={16} defaultValue={text} spellCheck={false} className="mono" />
              <div className="actions">
                <button type="submit">Preview</button>
              </div>
            </PostForm>
          </section>
        ) : (
          <p className="muted">Previews are not available on this server.</p>
        )}
        {preview === null ? null : (
          <>
            <p className="notice" role="status">
              Preview only: nothing was applied.
            </p>
            <Result preview={preview} />
          </>
        )}
      </>
    ),
  });
}

/**
 * The preview page (`GET /site-admin/configuration/preview`) and its form (`POST`, field `configuration`), for site
 * administrators only.
 *
 * @param deps - The pages' dependencies and the preview.
 * @returns The routes.
 * @example
 * ```ts
 * configurationPreviewRoutes(deps).map((r) => r.path); // ['/site-admin/configuration/preview', '/site-admin/configuration/preview']
 * ```
 */
export function configurationPreviewRoutes(deps: SiteAdminDeps): readonly Route[] {
  const preview = deps.previewConfiguration;
  return [
    pageRoute(deps, CONFIGURATION_PREVIEW_PATH, 'site_admin', async (ctx) => render(ctx, '', null, preview !== undefined)),
    {
      ...formRoute(deps, CONFIGURATION_PREVIEW_PATH, 'site_admin', async (ctx, form) => {
        const text = (form.get('configuration') ?? '').slice(0, MAX_CANDIDATE_LENGTH);
        if (preview === undefined) return render(ctx, text, null, false);
        return render(ctx, text, await preview(text), true);
      }),
      body: { ...PAGE_FORM_BODY, limit: PREVIEW_FORM_LIMIT },
    },
  ];
}
