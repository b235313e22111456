/**
 * The second code host (spec §2.5, §5.3 `hostb`): OAuth app with callback `/.auth/hostb/callback` (rule 1), `apiScope`
 * `api` by default (rule 2), sign-up on by default, membership by `allowGroups` (rules 4–7).
 *
 * @module
 */
import type { Result } from 'neverthrow';
import { type FieldProblem, ownField, readOptionalStringArray } from '../internal/guard.js';
import type { AuthProvider } from '../auth-providers.js';
import {
  at,
  type CommonFields,
  type EntryScope,
  hasToken,
  optional,
  readBoolean,
  readList,
  readSecretPair,
  readString,
  readUrl,
  SCOPE_TOKEN,
  validGroupPath,
} from '../site-configuration/fields.js';
import { formatPath, report } from '../site-configuration/problems.js';
import type { Gate, ProviderSpec } from './spec.js';

/** The value of `apiScope` when unset (spec §5.3 hostb rule 2). */
export const HOSTB_DEFAULT_API_SCOPE = 'api';

/** §5.3 hostb rules 4–7: a non-empty `allowGroups` restricts to members of the listed groups. */
function hostbGate(provider: object): Result<Gate, FieldProblem> {
  return readOptionalStringArray(provider, '', 'allowGroups').map(
    (paths): Gate => (paths === undefined || paths.length === 0 ? { kind: 'none' } : { kind: 'groups', paths }),
  );
}

/** Reads and checks the fields of one `hostb` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readHostbEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const apiScope = readString(scope, 'apiScope', { required: false, allowEmpty: false });
  if (apiScope !== undefined && !SCOPE_TOKEN.test(apiScope)) {
    report(
      scope.ctx,
      at(scope, 'apiScope'),
      { code: 'invalid_api_scope', value: apiScope },
      `${formatPath(at(scope, 'apiScope'))} must be a single OAuth scope such as "api" or "read_api", without spaces or quotes.`,
    );
  }
  const allowGroups = readList(scope, 'allowGroups');
  (allowGroups ?? []).forEach((group, index) => {
    if (validGroupPath(group)) return;
    const segments = [...at(scope, 'allowGroups'), index];
    report(
      scope.ctx,
      segments,
      { code: 'invalid_group_path', value: group },
      `${formatPath(segments)} (${JSON.stringify(group)}) is not a full group path: write it as in the group's URL, such as "group/subgroup", with no leading, trailing or doubled "/".`,
    );
  });
  const ssoURL = readUrl(scope, 'ssoURL', { required: false, allowEmpty: false, allowQuery: true });
  if (ssoURL !== undefined && !hasToken(ssoURL)) {
    report(
      scope.ctx,
      at(scope, 'ssoURL'),
      { code: 'sso_url_missing_token', value: ssoURL },
      `${formatPath(at(scope, 'ssoURL'))} must contain the group's SSO token as a query parameter, such as https://hostb.example.com/groups/acme/-/saml/sso?token=…`,
    );
  }
  const sync = readBoolean(scope, 'syncInternalRepoPermissions');
  if (url === undefined || pair === null) return null;
  return {
    type: 'hostb',
    ...common,
    url,
    clientID: pair.id,
    clientSecret: pair.secret,
    apiScope: apiScope ?? HOSTB_DEFAULT_API_SCOPE,
    ...optional('allowGroups', allowGroups),
    ...optional('ssoURL', ssoURL),
    ...optional('syncInternalRepoPermissions', sync),
  };
}

/** The `hostb` provider type. */
export const HOSTB: ProviderSpec<'hostb'> = {
  type: 'hostb',
  fields: ['url', 'clientID', 'clientSecret', 'apiScope', 'allowGroups', 'ssoURL', 'syncInternalRepoPermissions'],
  defaultAllowSignup: true,
  serviceId: { key: 'url', optional: false },
  gate: hostbGate,
  callbackPath: '.auth/hostb/callback',
  readEntry: readHostbEntry,
  scopes: (provider) => {
    const apiScope = ownField(provider, 'apiScope');
    return ['read_user', typeof apiScope === 'string' && apiScope !== '' ? apiScope : HOSTB_DEFAULT_API_SCOPE];
  },
};
