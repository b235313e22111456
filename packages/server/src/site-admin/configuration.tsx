/**
 * Site administration: the site configuration in effect (spec §2.5, §8), read-only. It shows `externalURL`,
 * `auth.public`, the mail options (`email.smtp` with its password masked, `email.address`, `email.senderName`), every entry of `auth.providers` with its defaults applied, the account options (access tokens,
 * sessions, passwords, username changes) and the query limits of `rateLimits` with their defaults; and it lists every problem the server knows of, each with its JSON path: the parser's
 * warnings, the start checks (`externalURL` against the listening address, providers that cannot be used) and
 * missing optional peer packages. After a reload the server refused, it says so first, with the time, the file and
 * every problem of the refused text, until a valid configuration applies (the configuration shown is then still
 * the previous one).
 *
 * Secrets never reach the page. A provider field is shown as `•••••• (set)` when its name says it may hold one:
 * it contains `secret`, `password`, `passphrase`, `private`, `token`, `credential`, `certificate`, `cert` or `key`
 * (any case), except `clientKey`, which is `hostccloud`'s public consumer key (its `clientID`). A SAML
 * `idpCertificate` is public, but is masked too: it is long, and a private key pasted there by mistake must not
 * show. In URL values (`url`, `issuer`, `ssoURL`, …) a user name, a password and the value of every query
 * parameter whose name says it may hold a secret (`ssoURL`'s `token`) are masked the same way.
 *
 * @module
 */
import { AccountLifecycleOptions } from './account-lifecycle-options.js';
import type { ReactElement } from 'react';
import type { AuthProvider, QueryLimits, SiteConfiguration } from 'gatehouse-auth';
import { DEFAULT_QUERY_LIMITS, DEFAULT_ALLOW_SIGNUP, PROVIDER_FIELDS, maskSiteConfigurationSecrets } from 'gatehouse-auth';
import { formatTime, SITE_ADMIN_NAV } from '../pages/layout.js';
import { pageResponse, pageRoute } from '../pages/page-routes.js';
import type { Route } from '../kernel/route.js';
import type { LogEntry } from '../kernel/logging.js';
import type { RejectedReload } from './rejected-reload.js';
import type { SiteAdminDeps } from './deps.js';
import { AccountOptionsTable } from './account-options.js';

/**
 * The path of the site configuration page.
 *
 * @example
 * ```ts
 * CONFIGURATION_PATH; // '/site-admin/configuration'
 * ```
 */
export const CONFIGURATION_PATH = '/site-admin/configuration';

/** What a masked value shows. */
const MASK = '••••••';

/** Fields whose names look secret but hold a public identifier. */
const PUBLIC_FIELDS: ReadonlySet<string> = new Set(['clientKey']);

const SECRET_NAME = /secret|password|passphrase|private|token|credential|cert|key/iu;

/**
 * Whether a configuration field (or URL query parameter) may hold a secret, by its name: see the module comment.
 *
 * @param name - The field or parameter name.
 * @returns `true` when its value must not be shown.
 *
 * @example
 * ```ts
 * isSecretField('clientSecret'); // true
 * isSecretField('clientKey'); // false (hostccloud's public consumer key)
 * isSecretField('idpCertificate'); // true
 * ```
 */
export function isSecretField(name: string): boolean {
  return !PUBLIC_FIELDS.has(name) && SECRET_NAME.test(name);
}

/**
 * A URL with its user name, password and secret-named query parameter values masked; any other text unchanged.
 *
 * @param text - A configured value.
 * @returns The text to show.
 *
 * @example
 * ```ts
 * maskUrlSecrets('https://hostb.example.com/groups/g/-/saml/sso?token=abc'); // 'https://hostb.example.com/groups/g/-/saml/sso?token=••••••'
 * ```
 */
export function maskUrlSecrets(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//iu.test(text) || !URL.canParse(text)) return text;
  const url = new URL(text);
  const params = [...url.searchParams];
  const secretParam = params.some(([name]) => isSecretField(name));
  const secretHash = isSecretField(url.hash);
  if (url.username === '' && url.password === '' && !secretParam && !secretHash) return text;
  const auth = url.username === '' && url.password === '' ? '' : `${MASK}@`;
  const query = params.length === 0 ? '' : `?${params.map(([name, value]) => `${encodeURIComponent(name)}=${isSecretField(name) ? MASK : encodeURIComponent(value)}`).join('&')}`;
  return `${url.protocol}//${auth}${url.host}${url.pathname}${query}${secretHash ? `#${MASK}` : url.hash}`;
}

/** One problem the page lists. */
interface ProblemRow {
  /** The JSON path, or `''` for the installation. */
  readonly path: string;
  /**
   * `rejected`: a problem of a reload the server refused; `error`: something configured cannot work; `warning`: it
   * works but is discouraged or likely wrong.
   */
  readonly level: 'rejected' | 'error' | 'warning';
  /** What to do. */
  readonly message: string;
}

/** Per provider index, what the start checks say about it: its callback address and the public edition it uses. */
interface ProviderFacts {
  readonly callbackURL?: string;
  readonly publicURL?: string;
}

const providerPath = (index: number): string => `auth.providers[${index}]`;

/** The start checks, as problems with their paths and as facts per provider. */
function startReport(
  configuration: SiteConfiguration,
  listeningURL: string | null,
  startChecks: (listeningURL: string) => readonly LogEntry[],
): { readonly problems: readonly ProblemRow[]; readonly facts: ReadonlyMap<number, ProviderFacts> } {
  const listening = listeningURL ?? configuration.externalURL ?? null;
  if (listening === null) return { problems: [], facts: new Map() };
  const problems: ProblemRow[] = [];
  const facts = new Map<number, ProviderFacts>();
  for (const entry of startChecks(listening)) {
    const index = entry['index'];
    const message = typeof entry['message'] === 'string' ? entry['message'] : entry.event;
    if (entry.event === 'external_url_mismatch') problems.push({ path: 'externalURL', level: 'warning', message });
    if (typeof index !== 'number') continue;
    if (entry.event === 'provider_unusable') problems.push({ path: providerPath(index), level: 'error', message });
    const url = entry['callbackURL'] ?? entry['url'];
    if (typeof url !== 'string') continue;
    const known = facts.get(index) ?? {};
    facts.set(index, entry.event === 'provider_callback' ? { ...known, callbackURL: url } : entry.event === 'provider_public_url' ? { ...known, publicURL: url } : known);
  }
  return { problems, facts };
}

/** A configured value as text: secrets masked, URLs' secrets masked, lists and maps spelled out. */
function Value(props: { readonly name: string; readonly value: unknown }): ReactElement {
  const { name, value } = props;
  if (isSecretField(name)) {
    const empty = value === '' || value === null || value === undefined || (Array.isArray(value) && value.length === 0);
    return empty ? <span className="muted">(empty)</span> : <span>{`${MASK} (set)`}</span>;
  }
  if (typeof value === 'string') return value === '' ? <span className="muted">(empty)</span> : <code>{maskUrlSecrets(value)}</code>;
  if (typeof value === 'boolean' || typeof value === 'number') return <code>{String(value)}</code>;
  if (Array.isArray(value)) {
    return value.length === 0 ? (
      <span className="muted">(empty list)</span>
    ) : (
      <ul>
        {value.map((item, i) => (
          <li key={i}>
            <Value name={name} value={item} />
          </li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? (
      <span className="muted">(empty)</span>
    ) : (
      <ul>
        {entries.map(([key, item]) => (
          <li key={key}>
            <code>{key}</code>: <Value name={key} value={item} />
          </li>
        ))}
      </ul>
    );
  }
  return <span className="muted">(not set)</span>;
}

/** The fields of a provider entry in the order of its type's definition, then any other. */
function fieldsOf(provider: AuthProvider): readonly (readonly [string, unknown])[] {
  const shown = new Set(['type', 'displayName', 'allowSignup', 'hidden', 'order', 'noSignIn']);
  const known = PROVIDER_FIELDS[provider.type];
  const entries = Object.entries(provider).filter(([key]) => !shown.has(key));
  const rank = (key: string): number => (known.includes(key) ? known.indexOf(key) : known.length);
  return [...entries].sort(([a], [b]) => rank(a) - rank(b));
}

function ProviderCard(props: { readonly provider: AuthProvider; readonly index: number; readonly facts: ProviderFacts | undefined }): ReactElement {
  const { provider, index, facts } = props;
  const headingId = `provider-${index}`;
  const defaultSignup = DEFAULT_ALLOW_SIGNUP[provider.type];
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>
        <code>{providerPath(index)}</code> {provider.type}
        {provider.displayName === undefined ? null : ` · ${provider.displayName}`}
      </h3>
      <dl className="facts">
        <dt>type</dt>
        <dd>
          <code>{provider.type}</code>
        </dd>
        <dt>displayName</dt>
        <dd>{provider.displayName === undefined ? <span className="muted">(not set)</span> : provider.displayName}</dd>
        <dt>allowSignup</dt>
        <dd>
          <code>{String(provider.allowSignup)}</code>{' '}
          <span className="muted">
            {provider.allowSignup === defaultSignup ? `(the default for ${provider.type})` : `(the default for ${provider.type} is ${String(defaultSignup)})`}
          </span>
        </dd>
        {fieldsOf(provider).map(([key, value]) => (
          <Fact key={key} name={key} value={value} />
        ))}
        <dt>order</dt>
        <dd>{provider.order === undefined ? <span className="muted">(not set: after the ordered providers)</span> : <code>{String(provider.order)}</code>}</dd>
        <dt>hidden</dt>
        <dd>
          <code>{String(provider.hidden ?? false)}</code>{' '}
          <span className="muted">{provider.hidden === true ? '(not on the sign-in page; its address still signs in)' : '(the default)'}</span>
        </dd>
        <dt>noSignIn</dt>
        <dd>
          <code>{String(provider.noSignIn ?? false)}</code>{' '}
          <span className="muted">{provider.noSignIn === true ? '(no sign-in: only linked from Account security)' : '(the default)'}</span>
        </dd>
        {facts?.publicURL === undefined ? null : (
          <>
            <dt>Public edition in use</dt>
            <dd>
              <code>{facts.publicURL}</code>
            </dd>
          </>
        )}
        {facts?.callbackURL === undefined ? null : (
          <>
            <dt>Callback URL</dt>
            <dd>
              <code>{facts.callbackURL}</code> <span className="muted">(register it at the provider)</span>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

function Fact(props: { readonly name: string; readonly value: unknown }): ReactElement {
  return (
    <>
      <dt>{props.name}</dt>
      <dd>
        <Value name={props.name} value={props.value} />
      </dd>
    </>
  );
}

/** The `rateLimits` keys of spec §8, by the limit each sets. */
const LIMIT_KEYS: readonly (readonly [keyof QueryLimits, string])[] = [
  ['maxDepth', 'graphQLMaxDepth'],
  ['maxFieldCount', 'graphQLMaxFieldCount'],
  ['maxAliases', 'graphQLMaxAliases'],
  ['maxDuplicateFieldCount', 'GraphqlMaxDuplicateFieldCount'],
  ['maxUniqueFieldCount', 'GraphqlMaxUniqueFieldCount'],
];

function LimitsTable(props: { readonly limits: QueryLimits }): ReactElement {
  return (
    <div className="table-wrap">
      <table className="limits">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">In effect</th>
            <th scope="col">Default</th>
          </tr>
        </thead>
        <tbody>
          {LIMIT_KEYS.map(([limit, key]) => (
            <tr key={key}>
              <td>
                <code>{`rateLimits.${key}`}</code>
              </td>
              <td className="num">
                {props.limits[limit].toLocaleString('en-US')}{' '}
                {props.limits[limit] === DEFAULT_QUERY_LIMITS[limit] ? <span className="badge">default</span> : null}
              </td>
              <td className="num">{DEFAULT_QUERY_LIMITS[limit].toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ProblemList(props: { readonly problems: readonly ProblemRow[] }): ReactElement {
  if (props.problems.length === 0) {
    return (
      <p>
        <span className="badge ok">OK</span> No problems found.
      </p>
    );
  }
  return (
    <ul className="problems">
      {props.problems.map((p, i) => (
        <li key={i}>
          <span className="badge">{p.level}</span> <code>{p.path === '' ? '(installation)' : p.path}</code>: {p.message}
        </li>
      ))}
    </ul>
  );
}

/** The refused reload: when and which file; the configuration shown is still the previous one. */
function RejectedReloadNotice(props: { readonly rejected: RejectedReload }): ReactElement {
  const { rejected } = props;
  return (
    <p className="notice error" role="alert">
      The last reload was rejected: the site configuration {rejected.file === null ? 'given to the server' : <code>{rejected.file}</code>} was
      refused at <time dateTime={new Date(rejected.at).toISOString()}>{formatTime(rejected.at)}</time> for the problems marked{' '}
      <em>rejected</em> below. The server keeps running the previous configuration, shown on this page, until a valid one is loaded.
    </p>
  );
}

/** The trusted proxies, as written. */
function TrustedProxies(props: { readonly configuration: SiteConfiguration }): ReactElement {
  const ranges = props.configuration.trustedProxies;
  if (ranges.length === 0) return <span className="muted">(none: the client is the connection's peer; X-Forwarded-For is not read)</span>;
  return (
    <ul>
      {ranges.map((range, i) => (
        <li key={i}>
          <code>{range.text}</code>
        </li>
      ))}
    </ul>
  );
}

/** `email.smtp`, `email.address` and `email.senderName` in effect; the password masked. */
function EmailSettings(props: { readonly configuration: SiteConfiguration }): ReactElement {
  const { smtp, address, senderName } = props.configuration.email;
  return (
    <dl className="facts">
      <dt>email.smtp</dt>
      <dd>
        {smtp === null ? (
          <span className="muted">(not set: mail is off; site administrators copy each link from Site admin → Users)</span>
        ) : (
          <Value name="email.smtp" value={{ ...smtp, domain: smtp.domain ?? '(the machine\'s host name)' }} />
        )}
      </dd>
      <dt>email.address</dt>
      <dd>{address === null ? <span className="muted">(not set)</span> : <code>{address}</code>}</dd>
      <dt>email.senderName</dt>
      <dd>
        <code>{senderName}</code>
      </dd>
    </dl>
  );
}

/**
 * The site configuration page, for site administrators only: `GET /site-admin/configuration`.
 *
 * @param deps - The pages' dependencies, the listening address, the public code host addresses and the peer check.
 * @returns The route.
 *
 * @example
 * ```ts
 * configurationRoutes(deps).map((r) => r.path); // ['/site-admin/configuration']
 * ```
 */
export function configurationRoutes(deps: SiteAdminDeps): readonly Route[] {
  // the secrets the core knows by type are gone before anything is shown; the names above mask the rest
  const configuration = maskSiteConfigurationSecrets(deps.configuration);
  return [
    pageRoute(deps, CONFIGURATION_PATH, 'site_admin', async (ctx) => {
      const listeningURL = deps.listeningURL?.() ?? null;
      const start = startReport(configuration, listeningURL, deps.startChecks ?? (() => []));
      const rejected = deps.rejectedReload?.() ?? null;
      const problems: readonly ProblemRow[] = [
        ...(rejected?.problems ?? []).map((p): ProblemRow => ({ path: p.path, level: 'rejected', message: p.message })),
        ...configuration.warnings.map((w): ProblemRow => ({ path: w.path, level: 'warning', message: w.message })),
        ...start.problems,
      ];
      return pageResponse(ctx, 200, {
        title: 'Site configuration',
        nav: { title: 'Site admin', items: SITE_ADMIN_NAV, current: CONFIGURATION_PATH },
        children: (
          <>
            <p className="hint">
              The configuration in effect, with every default applied. It is read-only here: edit the site configuration file and reload the
              server to change it. Secrets are never shown.{' '}
              <a href="/site-admin/configuration/preview">Preview a change</a> before you apply it.
            </p>
            <section className="panel" aria-labelledby="problems-heading">
              <h2 id="problems-heading">Problems</h2>
              {rejected === null ? null : <RejectedReloadNotice rejected={rejected} />}
              <ProblemList problems={problems} />
            </section>
            <section className="panel" aria-labelledby="general-heading">
              <h2 id="general-heading">General</h2>
              <dl className="facts">
                <dt>externalURL</dt>
                <dd>
                  {configuration.externalURL === undefined ? (
                    <span className="muted">(not set: the address the server listens on is used)</span>
                  ) : (
                    <code>{maskUrlSecrets(configuration.externalURL)}</code>
                  )}
                </dd>
                {listeningURL === null ? null : (
                  <>
                    <dt>Listening address</dt>
                    <dd>
                      <code>{listeningURL}</code>
                    </dd>
                  </>
                )}
                <dt>auth.public</dt>
                <dd>
                  <code>{String(configuration.authPublic)}</code>{' '}
                  <span className="muted">{configuration.authPublic ? '(anonymous requests may search)' : '(the default: search needs a signed-in viewer)'}</span>
                </dd>
                <dt>trustedProxies</dt>
                <dd>
                  <TrustedProxies configuration={configuration} />
                </dd>
              </dl>
            </section>
            <AccountLifecycleOptions configuration={configuration} />
            <section className="panel" aria-labelledby="email-heading">
              <h2 id="email-heading">Email</h2>
              <EmailSettings configuration={configuration} />
            </section>
            <section className="panel" aria-labelledby="providers-heading">
              <h2 id="providers-heading">Authentication providers</h2>
              {configuration.authProviders.length === 0 ? (
                <p className="muted">No providers are configured (auth.providers is empty): nobody can sign in with a browser.</p>
              ) : (
                configuration.authProviders.map((provider, index) => <ProviderCard key={index} provider={provider} index={index} facts={start.facts.get(index)} />)
              )}
            </section>
            <section className="panel" aria-labelledby="accounts-heading">
              <h2 id="accounts-heading">Accounts</h2>
              <p className="hint">Access tokens, session lifetime, the password rule and username changes.</p>
              <AccountOptionsTable options={configuration.accountOptions} />
            </section>
            <section className="panel" aria-labelledby="limits-heading">
              <h2 id="limits-heading">Query limits</h2>
              <p className="hint">A GraphQL query over any of these limits is refused (spec §8).</p>
              <LimitsTable limits={configuration.queryLimits} />
            </section>
          </>
        ),
      });
    }),
  ];
}
