/**
 * The first code host (spec §2.5, §5.3 `hosta`): OAuth app with callback `/.auth/hosta/callback` (rule 1), sign-up
 * off by default (rule 2), membership by `allowOrgs` and `allowOrgsMap` (rules 3–6), `requiredSsoOrgs` (rule 7).
 *
 * @module
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { asciiLowercase } from '../internal/email-address.js';
import { type FieldProblem, ownField, readOptionalStringArray, readRecord, readStringArray } from '../internal/guard.js';
import type { AuthProvider } from '../auth-providers.js';
import {
  at,
  type CommonFields,
  type EntryScope,
  optional,
  readList,
  readListMap,
  readSecretPair,
  readUrl,
  validRequiredSsoOrgs,
} from '../site-configuration/fields.js';
import { formatPath, report } from '../site-configuration/problems.js';
import type { Gate, ListedTeam, ProviderSpec } from './spec.js';

function readAllowOrgsMap(provider: object): Result<readonly ListedTeam[], FieldProblem> {
  const map = ownField(provider, 'allowOrgsMap');
  if (map === undefined) return ok([]);
  return readRecord(map, 'allowOrgsMap').andThen((record) => {
    const teams: ListedTeam[] = [];
    for (const org of Object.keys(record)) {
      const names = readStringArray(ownField(record, org), `allowOrgsMap[${JSON.stringify(org)}]`);
      if (names.isErr()) return err(names.error);
      for (const name of names.value) teams.push({ org: asciiLowercase(org), name });
    }
    return ok(teams);
  });
}

/** §5.3 hosta rules 3–6: a non-empty org list or a team map restricts; org names compare ASCII-case-insensitively. */
function hostaGate(provider: object): Result<Gate, FieldProblem> {
  return safeTry(function* () {
    const orgs = (yield* readOptionalStringArray(provider, '', 'allowOrgs')) ?? [];
    const teams = yield* readAllowOrgsMap(provider);
    const gate: Gate =
      orgs.length === 0 && teams.length === 0
        ? { kind: 'none' }
        : { kind: 'orgs_and_teams', orgs: orgs.map(asciiLowercase), teams };
    return ok(gate);
  });
}

/** Reads and checks the fields of one `hosta` entry (spec §2.5); `null` when one is bad (each problem is reported). */
export function readHostaEntry(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: false, allowEmpty: true, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const allowOrgs = readList(scope, 'allowOrgs');
  const allowOrgsMap = readListMap(scope, 'allowOrgsMap');
  const requiredSsoOrgs = readList(scope, 'requiredSsoOrgs');
  if (requiredSsoOrgs !== undefined && !validRequiredSsoOrgs(requiredSsoOrgs)) {
    report(
      scope.ctx,
      at(scope, 'requiredSsoOrgs'),
      { code: 'invalid_required_sso_orgs', value: requiredSsoOrgs },
      `${formatPath(at(scope, 'requiredSsoOrgs'))} must list numeric organisation IDs as strings (such as ["1234"]) or be exactly ["all"].`,
    );
  }
  if (pair === null) return null;
  return {
    type: 'hosta',
    ...common,
    url: url ?? '',
    clientID: pair.id,
    clientSecret: pair.secret,
    ...optional('allowOrgs', allowOrgs),
    ...optional('allowOrgsMap', allowOrgsMap),
    ...optional('requiredSsoOrgs', requiredSsoOrgs),
  };
}

/** The `hosta` provider type. */
export const HOSTA: ProviderSpec<'hosta'> = {
  type: 'hosta',
  fields: ['url', 'clientID', 'clientSecret', 'allowOrgs', 'allowOrgsMap', 'requiredSsoOrgs'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: hostaGate,
  callbackPath: '.auth/hosta/callback',
  // The user's verified emails and org/team membership for allowOrgs/allowOrgsMap (§5.3 hosta rules 4–6, 8).
  readEntry: readHostaEntry,
  scopes: () => ['user:email', 'read:org'],
};
