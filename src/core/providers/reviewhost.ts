/**
 * The code review host (spec §5.3 `reviewhost`, beta): only adds credentials to existing accounts, so sign-up is off
 * and cannot be turned on; no callback, no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { AuthProvider } from '../auth-providers.js';
import { at, type CommonFields, type EntryScope, readUrl } from '../site-configuration/fields.js';
import { formatPath, report } from '../site-configuration/problems.js';
import type { ProviderSpec } from './spec.js';

/** Reads and checks the fields of one `reviewhost` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readReviewhostEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  if (common.allowSignup) {
    report(
      scope.ctx,
      at(scope, 'allowSignup'),
      { code: 'signup_not_supported', type: 'reviewhost' },
      `${formatPath(at(scope, 'allowSignup'))} must be false or absent: a reviewhost provider only adds credentials to existing accounts.`,
    );
  }
  if (url === undefined) return null;
  return { type: 'reviewhost', ...common, url };
}

/** The `reviewhost` provider type. */
export const REVIEWHOST: ProviderSpec<'reviewhost'> = {
  type: 'reviewhost',
  fields: ['url'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: null,
  readEntry: readReviewhostEntry,
  scopes: null,
};
