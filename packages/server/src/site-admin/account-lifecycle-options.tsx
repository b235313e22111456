/**
 * Site administration, Site configuration: the effective values of `auth.lockout`, `auth.passwordResetLinkExpiry`
 * and `auth.unlockAccountLinkExpiry`, each marked when it is the default.
 *
 * @module
 */
import type { ReactElement } from 'react';
import { DEFAULT_LOCKOUT_POLICY, DEFAULT_PASSWORD_RESET_LINK_EXPIRY, DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY } from 'gatehouse-auth';
import type { SiteConfiguration } from 'gatehouse-auth';

/** A number of seconds with a readable form: `1800 s (30 min)`. */
function seconds(value: number): string {
  const readable = value % 3600 === 0 ? `${value / 3600} h` : value % 60 === 0 ? `${value / 60} min` : null;
  return readable === null ? `${value} s` : `${value} s (${readable})`;
}

/** One option's row: its key, its effective value, and whether that is the default. */
function Row(props: { readonly name: string; readonly value: string; readonly isDefault: boolean }): ReactElement {
  return (
    <>
      <dt>{props.name}</dt>
      <dd>
        <code>{props.value}</code> {props.isDefault ? <span className="muted">(the default)</span> : null}
      </dd>
    </>
  );
}

/**
 * The "Account lockout and links" panel of the Site configuration page.
 *
 * @param props - The configuration in effect.
 * @returns The panel.
 * @example
 * ```ts
 * <AccountLifecycleOptions configuration={configuration} />
 * ```
 */
export function AccountLifecycleOptions(props: { readonly configuration: SiteConfiguration }): ReactElement {
  const { lockout, passwordResetLinkExpiry, unlockAccountLinkExpiry } = props.configuration;
  return (
    <section className="panel" aria-labelledby="lifecycle-heading">
      <h2 id="lifecycle-heading">Account lockout and links</h2>
      <p className="hint">
        An account whose password fails failedAttemptThreshold times in a row, each within consecutivePeriod of the one before, is locked for
        lockoutPeriod; its owner is mailed an unlock link.
      </p>
      <dl className="facts">
        <Row name="auth.lockout.failedAttemptThreshold" value={String(lockout.failedAttemptThreshold)} isDefault={lockout.failedAttemptThreshold === DEFAULT_LOCKOUT_POLICY.failedAttemptThreshold} />
        <Row name="auth.lockout.lockoutPeriod" value={seconds(lockout.lockoutPeriod)} isDefault={lockout.lockoutPeriod === DEFAULT_LOCKOUT_POLICY.lockoutPeriod} />
        <Row name="auth.lockout.consecutivePeriod" value={seconds(lockout.consecutivePeriod)} isDefault={lockout.consecutivePeriod === DEFAULT_LOCKOUT_POLICY.consecutivePeriod} />
        <Row name="auth.passwordResetLinkExpiry" value={seconds(passwordResetLinkExpiry)} isDefault={passwordResetLinkExpiry === DEFAULT_PASSWORD_RESET_LINK_EXPIRY} />
        <Row name="auth.unlockAccountLinkExpiry" value={seconds(unlockAccountLinkExpiry)} isDefault={unlockAccountLinkExpiry === DEFAULT_UNLOCK_ACCOUNT_LINK_EXPIRY} />
      </dl>
    </section>
  );
}
