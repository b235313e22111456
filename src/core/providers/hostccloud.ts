/**
 * The third code host, cloud edition (spec §2.5, §5.3 `hostccloud`): OAuth consumer with callback
 * `/.auth/hostccloud/callback`, `url` optional, sign-up on by default, no membership rule, no scopes.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { AuthProvider } from '../auth-providers.js';
import { type CommonFields, type EntryScope, optional, readSecretPair, readUrl } from '../site-configuration/fields.js';
import type { ProviderSpec } from './spec.js';

/** Reads and checks the fields of one `hostccloud` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readHostccloudEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: false, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientKey');
  if (pair === null) return null;
  return {
    type: 'hostccloud',
    ...common,
    ...optional('url', url),
    clientKey: pair.id,
    clientSecret: pair.secret,
  };
}

/** The `hostccloud` provider type. */
export const HOSTCCLOUD: ProviderSpec<'hostccloud'> = {
  type: 'hostccloud',
  fields: ['url', 'clientKey', 'clientSecret'],
  defaultAllowSignup: true,
  serviceId: { key: 'url', optional: true },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/hostccloud/callback',
  readEntry: readHostccloudEntry,
  scopes: () => [],
};
