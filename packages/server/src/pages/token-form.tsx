/**
 * The access token form and table both token pages share (a person's own tokens under Settings, a service
 * account's under Site admin, spec §2.3): the fields (note, scopes, expiry), reading them from a post, and the
 * list with its delete links. Who may create which token is the core's `authorizeAccessTokenCreation`, applied
 * by `issueAccessToken`; the form only offers what it would allow.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import type { ReactElement } from 'react';
import { accessTokenExpiryChoices, type AccessTokenOptions } from 'gatehouse-auth';
import type { AccessTokenRecord } from '../store/types.js';
import { Field, formatTime, PostForm } from './layout.js';
import { DataTable } from './table.js';

/**
 * The longest note the pages take, in characters (Unicode code points).
 *
 * @example
 * ```ts
 * [...note].length <= TOKEN_NOTE_MAX_LENGTH;
 * ```
 */
export const TOKEN_NOTE_MAX_LENGTH = 200;

/**
 * One expiry the form offers: its posted value, its label, and its lifetime in days (`null`: never).
 *
 * @example
 * ```ts
 * const choice: TokenExpiryChoice = { value: '30', label: 'In 30 days', days: 30 };
 * ```
 */
export interface TokenExpiryChoice {
  /** The posted value: the days as digits, or `never`. */
  readonly value: string;
  /** What the person reads. */
  readonly label: string;
  /** The lifetime in days, or `null` for a token that never expires. */
  readonly days: number | null;
}

/**
 * The expiries the site option `auth.accessTokens` allows, in the form's order: each of `expirationOptionDays`,
 * then "Never" when `allowNoExpiration`; and the choice selected at first (`defaultExpirationDays`).
 *
 * @param options - The parsed `auth.accessTokens`.
 * @returns The choices and the default choice's value.
 *
 * @example
 * ```ts
 * tokenExpiryChoices(DEFAULT_ACCESS_TOKEN_OPTIONS).choices.map((c) => c.value); // ['7', '14', '30', '60', '90', 'never']
 * ```
 */
export function tokenExpiryChoices(options: AccessTokenOptions): { readonly choices: readonly TokenExpiryChoice[]; readonly defaultValue: string } {
  const allowed = accessTokenExpiryChoices(options);
  const choices: TokenExpiryChoice[] = allowed.days.map((days) => ({ value: String(days), label: `In ${days} ${days === 1 ? 'day' : 'days'}`, days }));
  if (allowed.never) choices.push({ value: 'never', label: 'Never', days: null });
  return { choices, defaultValue: String(allowed.defaultDays) };
}

/**
 * The expiry choices of the form when no site option applies: days, or `never`.
 *
 * @example
 * ```ts
 * TOKEN_EXPIRY_CHOICES.map((c) => c.value); // ['7', '30', '90', '365', 'never']
 * ```
 */
export const TOKEN_EXPIRY_CHOICES: readonly TokenExpiryChoice[] = Object.freeze([
  { value: '7', label: 'In 7 days', days: 7 },
  { value: '30', label: 'In 30 days', days: 30 },
  { value: '90', label: 'In 90 days', days: 90 },
  { value: '365', label: 'In 1 year', days: 365 },
  { value: 'never', label: 'Never', days: null },
]);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What the form shows: what the person typed, or the page's defaults.
 *
 * @example
 * ```ts
 * const values: TokenFormValues = { note: '', scopes: ['user:all'], expires: '90' };
 * ```
 */
export interface TokenFormValues {
  /** The note. */
  readonly note: string;
  /** The checked scopes. */
  readonly scopes: readonly string[];
  /** The expiry choice (a `value` of {@link TOKEN_EXPIRY_CHOICES}). */
  readonly expires: string;
}

/**
 * A token request read from a valid post.
 *
 * @example
 * ```ts
 * const request: TokenRequest = { note: 'ci', scopes: ['user:all'], expiresAt: null };
 * ```
 */
export interface TokenRequest {
  /** The note, trimmed. */
  readonly note: string;
  /** The scopes as posted (the core decides which are allowed). */
  readonly scopes: readonly string[];
  /** When the token expires (ms since the epoch), or `null`. */
  readonly expiresAt: number | null;
}

/** Whether a note holds a control character (a note is one line of text shown on pages and in lists). */
function hasControlCharacter(note: string): boolean {
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u.test(note);
}

/**
 * Reads a token post: the values to show again, and the request or what to tell the person.
 *
 * @param form - The posted form.
 * @param now - The clock's time (expiry is counted from it).
 * @param defaultExpiry - The expiry when the post names none.
 * @param choices - The expiries offered (an expiry not among them is refused). Default {@link TOKEN_EXPIRY_CHOICES}.
 * @returns The typed values, and the request or the message of the refusal.
 *
 * @example
 * ```ts
 * readTokenForm(new URLSearchParams('note=ci&scopes=user:all&expires=never'), Date.now(), '90').request; // ok({ note: 'ci', … })
 * ```
 */
export function readTokenForm(
  form: URLSearchParams,
  now: number,
  defaultExpiry: string,
  choices: readonly TokenExpiryChoice[] = TOKEN_EXPIRY_CHOICES,
): { readonly values: TokenFormValues; readonly request: Result<TokenRequest, string> } {
  const posted = form.get('expires');
  const values: TokenFormValues = { note: form.get('note') ?? '', scopes: form.getAll('scopes'), expires: posted === null || posted === '' ? defaultExpiry : posted };
  const note = values.note.trim();
  const expiry = choices.find((c) => c.value === values.expires);
  const request = ((): Result<TokenRequest, string> => {
    if (note === '') return err('Enter a note saying what the token is for.');
    if ([...note].length > TOKEN_NOTE_MAX_LENGTH) return err(`The note is too long: at most ${TOKEN_NOTE_MAX_LENGTH} characters.`);
    if (hasControlCharacter(note)) return err('The note cannot hold line breaks or other control characters.');
    if (expiry === undefined) return err('Choose when the token expires.');
    return ok({ note, scopes: values.scopes, expiresAt: expiry.days === null ? null : now + expiry.days * DAY_MS });
  })();
  return { values, request };
}

/**
 * The form's fields: the note, the scopes (`site-admin:sudo` only when offered) and the expiry.
 *
 * @param props - The values, whether to offer `site-admin:sudo`, and the hints.
 * @returns The fields.
 *
 * @example
 * ```ts
 * <TokenFields values={values} offerSudo={viewer.siteAdmin} noteHint="What the token is for." userHint="Full access as you." />
 * ```
 */
export function TokenFields(props: {
  readonly values: TokenFormValues;
  readonly offerSudo: boolean;
  readonly noteHint: string;
  readonly userHint: string;
  readonly sudoHint: string;
  /** The expiries offered. Default {@link TOKEN_EXPIRY_CHOICES}. */
  readonly choices?: readonly TokenExpiryChoice[];
  /** Shown under `site-admin:sudo`: the current password field, when creating one needs re-authentication. */
  readonly reauthenticate?: boolean;
}): ReactElement {
  const { values } = props;
  const choices = props.choices ?? TOKEN_EXPIRY_CHOICES;
  return (
    <>
      <Field id="token-note" name="note" label="Note" value={values.note} required maxLength={TOKEN_NOTE_MAX_LENGTH} autoComplete="off" hint={props.noteHint} />
      <fieldset>
        <legend>Scopes</legend>
        <label>
          <input id="scope-user-all" type="checkbox" name="scopes" value="user:all" defaultChecked={values.scopes.includes('user:all')} aria-describedby="scope-user-hint" />
          <code>user:all</code>
        </label>
        <p className="hint" id="scope-user-hint">
          {props.userHint}
        </p>
        {props.offerSudo ? (
          <>
            <label>
              <input
                id="scope-site-admin-sudo"
                type="checkbox"
                name="scopes"
                value="site-admin:sudo"
                defaultChecked={values.scopes.includes('site-admin:sudo')}
                aria-describedby="scope-sudo-hint"
              />
              <code>site-admin:sudo</code>
            </label>
            <p className="hint" id="scope-sudo-hint">
              {props.sudoHint}
            </p>
          </>
        ) : null}
      </fieldset>
      {props.offerSudo && props.reauthenticate === true ? (
        <Field
          id="token-current-password"
          name="current"
          label="Current password (for site-admin:sudo)"
          type="password"
          autoComplete="current-password"
          hint="You signed in more than 10 minutes ago: a token with site-admin:sudo needs your current password."
        />
      ) : null}
      <label htmlFor="token-expires">Expires</label>
      <select id="token-expires" name="expires" defaultValue={values.expires}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </>
  );
}

/**
 * The form that creates a token, on both token pages: the hidden fields naming whose token it is, the
 * {@link TokenFields} and the "Create token" button.
 *
 * @param props - Where it posts, the form token, its label, the hidden fields, and what {@link TokenFields} shows.
 * @returns The form.
 *
 * @example
 * ```ts
 * <TokenForm action="/settings/tokens" csrf={csrf} label="New token" fields={{}} values={values} offerSudo={false} noteHint="…" userHint="…" sudoHint="…" />
 * ```
 */
export function TokenForm(
  props: Parameters<typeof TokenFields>[0] & {
    readonly action: string;
    readonly csrf: string;
    readonly label: string;
    readonly fields: Readonly<Record<string, string>>;
  },
): ReactElement {
  const { action, csrf, label, fields, ...tokenFields } = props;
  return (
    <PostForm action={action} csrf={csrf} label={label}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <TokenFields {...tokenFields} />
      <div className="actions">
        <button type="submit">Create token</button>
      </div>
    </PostForm>
  );
}

/**
 * A table of tokens: note, scopes, created, last used, expires (with an "Expired" badge), and a delete link; or
 * the `empty` sentence when there are none.
 *
 * @param props - The tokens, the time, the table's class, the sentence for no tokens, and each token's delete link.
 * @returns The table, or the sentence.
 *
 * @example
 * ```ts
 * <TokenTable tokens={tokens} now={now} className="settings-table" empty="You have no access tokens." deleteHref={(t) => `/settings/tokens/delete?id=${t.id}`} />
 * ```
 */
export function TokenTable(props: {
  readonly tokens: readonly AccessTokenRecord[];
  readonly now: number;
  readonly className: string;
  readonly empty: string;
  readonly deleteHref: (token: AccessTokenRecord) => string;
}): ReactElement {
  return (
    <DataTable
      columns={['Note', 'Scopes', 'Created', 'Last used', 'Expires', 'Actions']}
      rows={props.tokens}
      rowKey={(t) => t.id}
      className={props.className}
      empty={props.empty}
      row={(t) => (
        <>
          <td>{t.note === '' ? <span className="muted">(no note)</span> : t.note}</td>
          <td>
            {t.scopes.map((s, i) => (
              <span key={s}>
                {i === 0 ? null : ' '}
                <code>{s}</code>
              </span>
            ))}
          </td>
          <td>{formatTime(t.createdAt)}</td>
          <td>{formatTime(t.lastUsedAt)}</td>
          <td>
            {formatTime(t.expiresAt)}
            {t.expiresAt !== null && t.expiresAt <= props.now ? (
              <>
                {' '}
                <span className="badge">Expired</span>
              </>
            ) : null}
          </td>
          <td>
            <a href={props.deleteHref(t)} aria-label={`Delete token ${t.note === '' ? t.id : t.note}`}>
              Delete
            </a>
          </td>
        </>
      )}
    />
  );
}
