/**
 * The built-in username/password provider (spec §5.2, §5.3 "Built-in"): no fields of its own, sign-up off by
 * default, no membership rule, no callback, no OAuth.
 *
 * @module
 */
import { ok } from 'neverthrow';
import type { ProviderSpec } from './spec.js';

/** The `builtin` provider type. */
export const BUILTIN: ProviderSpec<'builtin'> = {
  type: 'builtin',
  fields: [],
  defaultAllowSignup: false,
  serviceId: null,
  gate: () => ok({ kind: 'none' }),
  callbackPath: null,
  readEntry: (_scope, common) => ({ type: 'builtin', ...common }),
  scopes: null,
};
