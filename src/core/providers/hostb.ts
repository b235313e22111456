/**
 * The second code host (spec §2.5, §5.3 `hostb`): OAuth app with callback `/.auth/hostb/callback` (rule 1), `apiScope`
 * `api` by default (rule 2), sign-up on by default, membership by `allowGroups` (rules 4–7).
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { type FieldProblem, ownField, readOptionalStringArray } from '../internal/guard.js';
import type { Gate, ProviderSpec } from './spec.js';

/** The value of `apiScope` when unset (spec §5.3 hostb rule 2). */
export const HOSTB_DEFAULT_API_SCOPE = 'api';

/** §5.3 hostb rules 4–7: a non-empty `allowGroups` restricts to members of the listed groups. */
function hostbGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalStringArray(provider, '', 'allowGroups').map(
    (paths): Gate => (paths === undefined || paths.length === 0 ? { kind: 'none' } : { kind: 'groups', paths }),
  );
}

/** The `hostb` provider type. */
export const HOSTB: ProviderSpec<'hostb'> = {
  type: 'hostb',
  fields: ['url', 'clientID', 'clientSecret', 'apiScope', 'allowGroups', 'ssoURL', 'syncInternalRepoPermissions'],
  defaultAllowSignup: true,
  serviceId: { key: 'url', optional: false },
  gate: hostbGate,
  callbackPath: '.auth/hostb/callback',
  scopes: (provider) => {
    const apiScope = ownField(provider, 'apiScope');
    return ['read_user', typeof apiScope === 'string' && apiScope !== '' ? apiScope : HOSTB_DEFAULT_API_SCOPE];
  },
};
