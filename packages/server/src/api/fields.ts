/**
 * The argument readers and checks the schema's resolvers share: bounded string arguments, the viewer checks, and
 * the mapping of store and core refusals to GraphQL errors.
 *
 * @module
 */
import { GraphQLError } from 'graphql';
import { err, Err, ok, Ok, Result, safeTry } from 'neverthrow';
import { longerThan } from 'gatehouse-auth';
import type { GatehouseContext, Viewer } from './schema.js';
import type { SearchFunction } from './search.js';
import { storeFailure as storeFailureOf, type OperationFailure } from '../operations/failure.js';
import type { AuditQuery, StoreError, UserRecord } from '../store/types.js';

/** What a `search` field resolves to: its query, and the search run shared by every `results` selection. */
export interface SearchSource {
  readonly query: string;
  readonly run: () => ReturnType<SearchFunction>;
}

/** The GraphQL context of a request. */
export type Context = GatehouseContext;
/** A field's arguments. */
export type Args = Readonly<Record<string, unknown>>;

/**
 * What a resolver returns: its value, or the GraphQL error of the field (graphql-js reports a returned `Error` as it
 * reports a thrown one: a located field error with the same message, path and extensions).
 *
 * @example
 * ```ts
 * const answer: Answer<boolean> = fail('No such access token.', 'NOT_FOUND');
 * ```
 */
export type Answer<T> = T | GraphQLError;

/**
 * The value a resolver returns for a result: the value, or the error.
 *
 * @param result - The resolver's result, or a promise of it (a `safeTry` body's, a `ResultAsync`).
 * @returns The value or the error, for graphql-js to complete or report.
 *
 * @example
 * ```ts
 * resolve: (_root, args, context) => answer(requireUser(context).map((user) => user.username)),
 * ```
 */
export function answer<T>(result: Result<T, GraphQLError>): Answer<T>;
export function answer<T>(result: PromiseLike<Result<T, GraphQLError>>): Promise<Answer<T>>;
export function answer<T>(result: Result<T, GraphQLError> | PromiseLike<Result<T, GraphQLError>>): Answer<T> | Promise<Answer<T>> {
  const settle = (r: Result<T, GraphQLError>): Answer<T> => r.match<Answer<T>>((value) => value, (error) => error);
  return isResult(result) ? settle(result) : Promise.resolve(result).then(settle);
}

function isResult<T>(value: Result<T, GraphQLError> | PromiseLike<Result<T, GraphQLError>>): value is Result<T, GraphQLError> {
  return value instanceof Ok || value instanceof Err;
}

/**
 * A GraphQL error with a machine-readable `extensions.code` (and further facts).
 *
 * @example
 * ```ts
 * fail('No such access token.', 'NOT_FOUND');
 * ```
 */
export function fail(message: string, code: string, facts: Readonly<Record<string, string | number>> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...facts } });
}

/**
 * The longest string each argument takes, in characters; every other string argument takes
 * {@link DEFAULT_MAX_ARGUMENT_LENGTH}. Bounded inputs keep bounded what one request makes the server store and
 * work on. (`note` is checked by the core's `authorizeAccessTokenCreation`; usernames by `validateUsername`.)
 */
const MAX_ARGUMENT_LENGTH: Readonly<Record<string, number>> = {
  query: 1000,
  email: 254,
  name: 256,
  id: 256,
  user: 256,
  userID: 256,
  before: 16,
  actorUserId: 256,
  scopes: 64,
  redirectURIs: 2000,
  configuration: 256 * 1024,
};
const DEFAULT_MAX_ARGUMENT_LENGTH = 1000;
/** The most items a list argument (`scopes`, `redirectURIs`) takes. */
const MAX_ARGUMENT_ITEMS = 20;

function checkedLength(name: string, value: string): Result<string, GraphQLError> {
  const max = MAX_ARGUMENT_LENGTH[name] ?? DEFAULT_MAX_ARGUMENT_LENGTH;
  if (longerThan(value, max)) {
    return err(fail(`The argument "${name}" must be at most ${max} characters long.`, 'BAD_USER_INPUT', { argument: name, maxLength: max }));
  }
  return ok(value);
}

/**
 * The signed-in viewer of a request, or an `UNAUTHENTICATED` error.
 *
 * @example
 * ```ts
 * const viewer = requireViewer(context); // ok({ kind: 'user', user, actor, via }) or err(UNAUTHENTICATED)
 * ```
 */
export function requireViewer(context: Context): Result<Extract<Viewer, { readonly kind: 'user' }>, GraphQLError> {
  const viewer = context.viewer;
  if (viewer.kind !== 'user') return err(fail('Sign in or send an access token to do this.', 'UNAUTHENTICATED'));
  return ok(viewer);
}

/**
 * The account a request acts as, or an `UNAUTHENTICATED` error.
 *
 * @example
 * ```ts
 * const user = requireUser(context); // ok(viewer.user) or err(UNAUTHENTICATED)
 * ```
 */
export function requireUser(context: Context): Result<UserRecord, GraphQLError> {
  return requireViewer(context).map((viewer) => viewer.user);
}

/**
 * The account a request acts as when it is a site administrator, or a `FORBIDDEN` error.
 *
 * @example
 * ```ts
 * const admin = requireSiteAdmin(context); // ok(viewer.user), err(UNAUTHENTICATED) or err(FORBIDDEN)
 * ```
 */
export function requireSiteAdmin(context: Context): Result<UserRecord, GraphQLError> {
  return requireUser(context).andThen((user) => (user.siteAdmin ? ok(user) : err(fail('Only site administrators may do this.', 'FORBIDDEN'))));
}

/**
 * A string argument within its length bound (`''` when absent).
 *
 * @example
 * ```ts
 * str({ note: 'ci' }, 'note'); // ok('ci')
 * ```
 */
export function str(args: Args, name: string): Result<string, GraphQLError> {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : ok('');
}

/**
 * An optional string argument within its length bound (`null` when absent).
 *
 * @example
 * ```ts
 * optStr({}, 'email'); // ok(null)
 * ```
 */
export function optStr(args: Args, name: string): Result<string | null, GraphQLError> {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : ok(null);
}

/**
 * A list-of-strings argument, within its item and length bounds.
 *
 * @example
 * ```ts
 * strList({ scopes: ['user:all'] }, 'scopes'); // ok(['user:all'])
 * ```
 */
export function strList(args: Args, name: string): Result<readonly string[], GraphQLError> {
  const value = args[name];
  if (!Array.isArray(value)) return ok([]);
  if (value.length > MAX_ARGUMENT_ITEMS) {
    return err(fail(`The argument "${name}" takes at most ${MAX_ARGUMENT_ITEMS} items.`, 'BAD_USER_INPUT', { argument: name, maxItems: MAX_ARGUMENT_ITEMS }));
  }
  // the first item past its length bound is the one reported
  return Result.combine(value.filter((v): v is string => typeof v === 'string').map((v) => checkedLength(name, v)));
}

/**
 * The store query of `auditLog`'s arguments. `before` must be an entry id (a decimal integer from 1); anything else
 * is refused rather than read as "no cursor", so a mistyped cursor never restarts the listing from the newest.
 *
 * @example
 * ```ts
 * auditQuery({ before: '10', entity: 'user' }); // ok({ before: '10', entity: 'user' })
 * ```
 */
export function auditQuery(args: Args): Result<AuditQuery, GraphQLError> {
  return safeTry(function* () {
    const before = yield* optStr(args, 'before');
    if (before !== null && !/^[1-9][0-9]{0,15}$/u.test(before)) {
      return err(fail('The argument "before" must be an audit entry id.', 'BAD_USER_INPUT', { argument: 'before' }));
    }
    const entity = yield* optStr(args, 'entity');
    const action = yield* optStr(args, 'action');
    const actorUserId = yield* optStr(args, 'actorUserId');
    return ok({
      ...(before === null ? {} : { before }),
      ...(entity === null ? {} : { entity }),
      ...(action === null ? {} : { action }),
      ...(actorUserId === null ? {} : { actorUserId }),
    });
  });
}

/**
 * The GraphQL error of an operation's failure: its sentence, with `extensions.code` and its facts.
 *
 * @param failure - The failure.
 * @returns The error to answer.
 * @example
 * ```ts
 * graphQLFailure({ message: 'No such user.', code: 'NOT_FOUND' }).extensions['code']; // 'NOT_FOUND'
 * ```
 */
export function graphQLFailure(failure: OperationFailure): GraphQLError {
  return fail(failure.message, failure.code, failure.facts);
}

/**
 * The GraphQL error of a store refusal.
 *
 * @param error - The store's refusal.
 * @returns The error to answer.
 * @example
 * ```ts
 * storeFailure({ code: 'username_taken', username: 'alice' }).extensions['code']; // 'USERNAME_TAKEN'
 * ```
 */
export function storeFailure(error: StoreError): GraphQLError {
  return graphQLFailure(storeFailureOf(error));
}

/**
 * A time as ISO 8601.
 *
 * @param ms - Milliseconds since the epoch.
 * @returns The ISO 8601 text.
 *
 * @example
 * ```ts
 * iso(0); // '1970-01-01T00:00:00.000Z'
 * ```
 */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
