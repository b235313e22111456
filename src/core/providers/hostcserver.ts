/**
 * The third code host, self-hosted edition (spec §2.5, §5.3 `hostcserver`): incoming link with callback
 * `/.auth/hostcserver/callback`, sign-up off by default, no membership rule, no scopes.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { AuthProvider } from '../auth-providers.js';
import { type CommonFields, type EntryScope, readSecretPair, readUrl } from '../site-configuration/fields.js';
import type { ProviderSpec } from './spec.js';

/** Reads and checks the fields of one `hostcserver` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readHostcserverEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  if (url === undefined || pair === null) return null;
  return {
    type: 'hostcserver',
    ...common,
    url,
    clientID: pair.id,
    clientSecret: pair.secret,
  };
}

/** The `hostcserver` provider type. */
export const HOSTCSERVER: ProviderSpec<'hostcserver'> = {
  type: 'hostcserver',
  fields: ['url', 'clientID', 'clientSecret'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/hostcserver/callback',
  readEntry: readHostcserverEntry,
  scopes: () => [],
};
