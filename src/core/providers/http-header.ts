/**
 * An HTTP authentication proxy (spec §2.5, §5.3 `http-header`): `usernameHeader`, optional `emailHeader` and
 * `stripUsernameHeaderPrefix`; sign-up on by default; the proxy signs people in, so there is no callback and no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `http-header` provider type. */
export const HTTP_HEADER: ProviderSpec<'http-header'> = {
  type: 'http-header',
  fields: ['usernameHeader', 'emailHeader', 'stripUsernameHeaderPrefix'],
  defaultAllowSignup: true,
  serviceId: null,
  gate: () => ok({ kind: 'none' }),
  callbackPath: null,
  scopes: null,
};
