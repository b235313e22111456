/**
 * The third code host, self-hosted edition (spec §2.5, §5.3 `hostcserver`): incoming link with callback
 * `/.auth/hostcserver/callback`, sign-up off by default, no membership rule, no scopes.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `hostcserver` provider type. */
export const HOSTCSERVER: ProviderSpec<'hostcserver'> = {
  type: 'hostcserver',
  fields: ['url', 'clientID', 'clientSecret'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/hostcserver/callback',
  scopes: () => [],
};
