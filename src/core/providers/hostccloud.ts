/**
 * The third code host, cloud edition (spec §2.5, §5.3 `hostccloud`): OAuth consumer with callback
 * `/.auth/hostccloud/callback`, `url` optional, sign-up on by default, no membership rule, no scopes.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `hostccloud` provider type. */
export const HOSTCCLOUD: ProviderSpec<'hostccloud'> = {
  type: 'hostccloud',
  fields: ['url', 'clientKey', 'clientSecret'],
  defaultAllowSignup: true,
  serviceId: { key: 'url', optional: true },
  gate: () => ok({ kind: 'none' }),
  callbackPath: '.auth/hostccloud/callback',
  scopes: () => [],
};
