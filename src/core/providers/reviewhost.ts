/**
 * The code review host (spec §5.3 `reviewhost`, beta): only adds credentials to existing accounts, so sign-up is off
 * and cannot be turned on; no callback, no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `reviewhost` provider type. */
export const REVIEWHOST: ProviderSpec<'reviewhost'> = {
  type: 'reviewhost',
  fields: ['url'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: () => ok({ kind: 'none' }),
  callbackPath: null,
  scopes: null,
};
