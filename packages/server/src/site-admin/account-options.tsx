/**
 * The account options on the Site configuration page: each setting of `auth.accessTokens`, `auth.sessionExpiry`,
 * `auth.sessionIdleTimeout`, `auth.minPasswordLength`, `auth.passwordPolicy` and `auth.enableUsernameChanges`
 * with the value in effect and its default.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { DEFAULT_ACCOUNT_OPTIONS, formatDuration } from 'gatehouse-auth';
import type { AccountOptions } from 'gatehouse-auth';

/** One row: the option's path and how a value of it reads. */
interface OptionRow {
  readonly path: string;
  readonly show: (options: AccountOptions) => string;
}

const days = (list: readonly number[]): string => `[${list.join(', ')}]`;
const idle = (ms: number | null): string => (ms === null ? '0 (no idle limit)' : `"${formatDuration(ms)}"`);

const ROWS: readonly OptionRow[] = [
  { path: 'auth.accessTokens.allow', show: (o) => `"${o.accessTokens.allow}"` },
  { path: 'auth.accessTokens.allowNoExpiration', show: (o) => String(o.accessTokens.allowNoExpiration) },
  { path: 'auth.accessTokens.expirationOptionDays', show: (o) => days(o.accessTokens.expirationOptionDays) },
  { path: 'auth.accessTokens.defaultExpirationDays', show: (o) => String(o.accessTokens.defaultExpirationDays) },
  { path: 'auth.accessTokens.maxTokensPerUser', show: (o) => String(o.accessTokens.maxTokensPerUser) },
  { path: 'auth.sessionExpiry', show: (o) => `"${formatDuration(o.sessionLifetime.expiryMs)}"` },
  { path: 'auth.sessionIdleTimeout', show: (o) => idle(o.sessionLifetime.idleTimeoutMs) },
  { path: 'auth.minPasswordLength', show: (o) => String(o.passwordRule.minLength) },
  { path: 'auth.passwordPolicy.enabled', show: (o) => String(o.passwordRule.policy.enabled) },
  { path: 'auth.passwordPolicy.numberOfSpecialCharacters', show: (o) => String(o.passwordRule.policy.numberOfSpecialCharacters) },
  { path: 'auth.passwordPolicy.requireAtLeastOneNumber', show: (o) => String(o.passwordRule.policy.requireAtLeastOneNumber) },
  { path: 'auth.passwordPolicy.requireUpperandLowerCase', show: (o) => String(o.passwordRule.policy.requireUpperandLowerCase) },
  { path: 'auth.enableUsernameChanges', show: (o) => String(o.enableUsernameChanges) },
];

/**
 * The table of account options: setting, value in effect (marked when it is the default), default.
 *
 * @param props - The parsed account options.
 * @returns The table.
 *
 * @example
 * ```ts
 * <AccountOptionsTable options={configuration.accountOptions} />
 * ```
 */
export function AccountOptionsTable(props: { readonly options: AccountOptions }): ReactElement {
  return (
    <div className="table-wrap">
      <table className="limits" id="account-options">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">In effect</th>
            <th scope="col">Default</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => {
            const value = row.show(props.options);
            const fallback = row.show(DEFAULT_ACCOUNT_OPTIONS);
            return (
              <tr key={row.path}>
                <td>
                  <code>{row.path}</code>
                </td>
                <td>
                  <code>{value}</code> {value === fallback ? <span className="badge">default</span> : null}
                </td>
                <td>
                  <code>{fallback}</code>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
