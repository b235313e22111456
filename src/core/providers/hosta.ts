/**
 * The first code host (spec §2.5, §5.3 `hosta`): OAuth app with callback `/.auth/hosta/callback` (rule 1), sign-up
 * off by default (rule 2), membership by `allowOrgs` and `allowOrgsMap` (rules 3–6), `requiredSsoOrgs` (rule 7).
 *
 * @module
 */
import { err, ok, type Result, safeTry } from 'neverthrow';
import { asciiLowercase } from '../internal/email-address.js';
import { type FieldProblem, ownField, readOptionalStringArray, readRecord, readStringArray } from '../internal/guard.js';
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

/** The `hosta` provider type. */
export const HOSTA: ProviderSpec<'hosta'> = {
  type: 'hosta',
  fields: ['url', 'clientID', 'clientSecret', 'allowOrgs', 'allowOrgsMap', 'requiredSsoOrgs'],
  defaultAllowSignup: false,
  serviceId: { key: 'url', optional: false },
  gate: hostaGate,
  callbackPath: '.auth/hosta/callback',
  // The user's verified emails and org/team membership for allowOrgs/allowOrgsMap (§5.3 hosta rules 4–6, 8).
  scopes: () => ['user:email', 'read:org'],
};
