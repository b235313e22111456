/**
 * The identity an authentication provider reports about the person signing in.
 *
 * @module
 */
import { err, ok, safeTry, type Result } from 'neverthrow';
import {
  fieldPath,
  type FieldProblem,
  isObject,
  isParsed,
  markParsed,
  ownField,
  readArray,
  readBoolean,
  readRecord,
  readString,
  readStringArray,
} from './internal/guard.js';

/**
 * The numeric access levels of `hostb` group memberships (spec §5.3 `hostb` rules 5 and 7).
 *
 * @example
 * ```ts
 * const canSignIn = (level: number): boolean => level >= GROUP_ACCESS_LEVEL.guest;
 * ```
 */
export const GROUP_ACCESS_LEVEL = {
  /** Minimal Access: not enough to sign in (rule 5). */
  minimalAccess: 5,
  /** Guest: the lowest level that admits (rule 5). */
  guest: 10,
  /** Reporter. */
  reporter: 20,
  /** Developer. */
  developer: 30,
  /** Maintainer. */
  maintainer: 40,
  /** Owner. */
  owner: 50,
} as const;

/** One email address of the provider-side account. */
export interface ExternalEmail {
  /** The address as the provider reports it. */
  readonly address: string;
  /** Whether the provider says the person proved control of the address. */
  readonly verified: boolean;
}

/** A team the person belongs to directly (not through a child or parent team), `hosta` only. */
export interface ExternalTeam {
  /** The organisation's name. */
  readonly org: string;
  /** The team's display name, as the code host shows it. */
  readonly name: string;
}

/** A group membership of the person, `hostb` only. */
export interface ExternalGroup {
  /** The group's full path from its URL, for example `group/subgroup`. */
  readonly fullPath: string;
  /** The code host's numeric access level (see {@link GROUP_ACCESS_LEVEL}). */
  readonly accessLevel: number;
}

/**
 * What a provider reports about the person signing in. The HTTP adapter builds it from the code
 * host's API, the OpenID Connect claims or the proxy's headers (`identityFromProxyHeaders`).
 */
export interface ExternalIdentity {
  /** The provider's stable, immutable identifier of the account (never the username when avoidable). */
  readonly accountId: string;
  /** The provider-side username, or `null` when the provider has none. */
  readonly username: string | null;
  /** The account's email addresses, primary first. */
  readonly emails: readonly ExternalEmail[];
  /** `hosta`: names of the organisations the person is a member of. */
  readonly orgs?: readonly string[];
  /** `hosta`: the teams the person belongs to directly. */
  readonly teams?: readonly ExternalTeam[];
  /** `hostb`: the person's group memberships with their access levels. */
  readonly groups?: readonly ExternalGroup[];
  /** `false` when one of the lists above was cut short (for example a page failed to load). */
  readonly membershipComplete?: boolean;
}

/** Why {@link parseExternalIdentity} rejected a value. */
export type ExternalIdentityError =
  /** A field is missing or has the wrong type at run time; `path` names it (`''` is the identity itself). */
  { readonly code: 'invalid_identity'; readonly path: string; readonly expected: string };

function toIdentityError(problem: FieldProblem): ExternalIdentityError {
  return { code: 'invalid_identity', path: problem.path, expected: problem.expected };
}

function readEmail(value: unknown, path: string): Result<ExternalEmail, FieldProblem> {
  return readRecord(value, path).andThen((record) =>
    readString(record, path, 'address', true).andThen((address) =>
      readBoolean(record, path, 'verified').map((verified) => ({ address, verified })),
    ),
  );
}

function readTeam(value: unknown, path: string): Result<ExternalTeam, FieldProblem> {
  return readRecord(value, path).andThen((record) =>
    readString(record, path, 'org', false).andThen((org) =>
      readString(record, path, 'name', false).map((name) => ({ org, name })),
    ),
  );
}

function readGroup(value: unknown, path: string): Result<ExternalGroup, FieldProblem> {
  return readRecord(value, path).andThen((record) =>
    readString(record, path, 'fullPath', false).andThen((fullPath): Result<ExternalGroup, FieldProblem> => {
      const accessLevel = ownField(record, 'accessLevel');
      return typeof accessLevel === 'number' && Number.isFinite(accessLevel)
        ? ok({ fullPath, accessLevel })
        : err({ path: fieldPath(path, 'accessLevel'), expected: 'finite number' });
    }),
  );
}

function readOptional<T>(
  record: object,
  key: string,
  read: (value: unknown, path: string) => Result<T, FieldProblem>,
): Result<T | undefined, FieldProblem> {
  const value = ownField(record, key);
  return value === undefined ? ok(undefined) : read(value, key);
}

/**
 * Checks a value that should be an {@link ExternalIdentity} and returns a fresh copy of it. Every
 * gatehouse function that takes an identity runs this first, so an identity built by hand (or
 * decoded from JSON) is judged only when it has the documented shape: `accountId` and every email
 * address non-empty strings, `username` a string or `null`, access levels finite numbers. Fields
 * the type does not name are ignored; getters are never invoked.
 *
 * @param value - A candidate identity.
 * @returns `ok(identity)` or `err` naming the first bad field.
 * @example
 * ```ts
 * parseExternalIdentity({ accountId: '7', username: null, emails: [] });
 * // ok({ accountId: '7', username: null, emails: [] })
 * parseExternalIdentity({ accountId: '7', username: 'bob', emails: [{ address: 'bob@example.com' }] });
 * // err({ code: 'invalid_identity', path: 'emails[0].verified', expected: 'boolean' })
 * ```
 */
export function parseExternalIdentity(value: unknown): Result<ExternalIdentity, ExternalIdentityError> {
  // An identity this parser produced is frozen and already checked: taken as it is (parse once).
  if (isParsed(value, 'identity')) return ok(value as ExternalIdentity);
  if (!isObject(value) || Array.isArray(value)) return err({ code: 'invalid_identity', path: '', expected: 'object' });
  const record = value;
  return safeTry(function* () {
    const accountId = yield* readString(record, '', 'accountId', true);
    const username = ownField(record, 'username');
    if (username !== null && typeof username !== 'string') {
      return err({ path: 'username', expected: 'string or null' });
    }
    const emails = yield* readArray(ownField(record, 'emails'), 'emails', readEmail);
    const orgs = yield* readOptional(record, 'orgs', readStringArray);
    const teams = yield* readOptional(record, 'teams', (v, p) => readArray(v, p, readTeam));
    const groups = yield* readOptional(record, 'groups', (v, p) => readArray(v, p, readGroup));
    const membershipComplete = yield* readOptional(record, 'membershipComplete', (v, p): Result<boolean, FieldProblem> =>
      typeof v === 'boolean' ? ok(v) : err({ path: p, expected: 'boolean' }),
    );
    const identity: ExternalIdentity = {
      accountId,
      username,
      emails,
      ...(orgs === undefined ? {} : { orgs }),
      ...(teams === undefined ? {} : { teams }),
      ...(groups === undefined ? {} : { groups }),
      ...(membershipComplete === undefined ? {} : { membershipComplete }),
    };
    return ok(markParsed('identity', identity));
  }).mapErr(toIdentityError);
}
