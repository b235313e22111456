/**
 * The argument readers and checks the schema's resolvers share: bounded string arguments, the viewer checks, and
 * the mapping of store and core refusals to GraphQL errors.
 *
 * @module
 */
import { GraphQLError } from 'graphql';
import { match } from 'ts-pattern';
import type { AccessTokenCreationError } from '../core/access-token.js';
import { longerThan } from '../core/internal/text-length.js';
import type { GatehouseContext, Viewer } from './schema.js';
import type { SearchFunction } from './search.js';
import type { AuditQuery, StoreError, UserRecord } from './store.js';

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
};
const DEFAULT_MAX_ARGUMENT_LENGTH = 1000;
/** The most items a list argument (`scopes`, `redirectURIs`) takes. */
const MAX_ARGUMENT_ITEMS = 20;

function checkedLength(name: string, value: string): string {
  const max = MAX_ARGUMENT_LENGTH[name] ?? DEFAULT_MAX_ARGUMENT_LENGTH;
  if (longerThan(value, max)) {
    throw fail(`The argument "${name}" must be at most ${max} characters long.`, 'BAD_USER_INPUT', { argument: name, maxLength: max });
  }
  return value;
}

/**
 * The signed-in viewer of a request, or an `UNAUTHENTICATED` error.
 *
 * @example
 * ```ts
 * const { user, via } = requireViewer(context);
 * ```
 */
export function requireViewer(context: Context): Extract<Viewer, { readonly kind: 'user' }> {
  const viewer = context.viewer;
  if (viewer.kind !== 'user') throw fail('Sign in or send an access token to do this.', 'UNAUTHENTICATED');
  return viewer;
}

/**
 * The account a request acts as, or an `UNAUTHENTICATED` error.
 *
 * @example
 * ```ts
 * const user = requireUser(context);
 * ```
 */
export function requireUser(context: Context): UserRecord {
  return requireViewer(context).user;
}

/**
 * The account a request acts as when it is a site administrator, or a `FORBIDDEN` error.
 *
 * @example
 * ```ts
 * const admin = requireSiteAdmin(context);
 * ```
 */
export function requireSiteAdmin(context: Context): UserRecord {
  const user = requireUser(context);
  if (!user.siteAdmin) throw fail('Only site administrators may do this.', 'FORBIDDEN');
  return user;
}

/**
 * A string argument within its length bound (`''` when absent).
 *
 * @example
 * ```ts
 * str(args, 'note');
 * ```
 */
export function str(args: Args, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : '';
}

/**
 * An optional string argument within its length bound (`null` when absent).
 *
 * @example
 * ```ts
 * optStr(args, 'email');
 * ```
 */
export function optStr(args: Args, name: string): string | null {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : null;
}

/**
 * A list-of-strings argument, within its item and length bounds.
 *
 * @example
 * ```ts
 * strList(args, 'scopes');
 * ```
 */
export function strList(args: Args, name: string): readonly string[] {
  const value = args[name];
  if (!Array.isArray(value)) return [];
  if (value.length > MAX_ARGUMENT_ITEMS) {
    throw fail(`The argument "${name}" takes at most ${MAX_ARGUMENT_ITEMS} items.`, 'BAD_USER_INPUT', { argument: name, maxItems: MAX_ARGUMENT_ITEMS });
  }
  return value.filter((v): v is string => typeof v === 'string').map((v) => checkedLength(name, v));
}

/**
 * The store query of `auditLog`'s arguments. `before` must be an entry id (a decimal integer from 1); anything else
 * is refused rather than read as "no cursor", so a mistyped cursor never restarts the listing from the newest.
 *
 * @example
 * ```ts
 * auditQuery({ before: '10', entity: 'user' }); // { before: '10', entity: 'user' }
 * ```
 */
export function auditQuery(args: Args): AuditQuery {
  const before = optStr(args, 'before');
  if (before !== null && !/^[1-9][0-9]{0,15}$/u.test(before)) {
    throw fail('The argument "before" must be an audit entry id.', 'BAD_USER_INPUT', { argument: 'before' });
  }
  const entity = optStr(args, 'entity');
  const action = optStr(args, 'action');
  const actorUserId = optStr(args, 'actorUserId');
  return {
    ...(before === null ? {} : { before }),
    ...(entity === null ? {} : { entity }),
    ...(action === null ? {} : { action }),
    ...(actorUserId === null ? {} : { actorUserId }),
  };
}

/**
 * The GraphQL error of a store refusal.
 *
 * @example
 * ```ts
 * storeFailure({ code: 'username_taken', username: 'alice' });
 * ```
 */
export function storeFailure(error: StoreError): GraphQLError {
  return match(error)
    .returnType<GraphQLError>()
    .with({ code: 'username_taken' }, (e) => fail(`The username "${e.username}" is taken.`, 'USERNAME_TAKEN'))
    .with({ code: 'email_taken' }, () => fail('That email is verified on another account.', 'EMAIL_TAKEN'))
    .with({ code: 'unknown_user' }, () => fail('No such user.', 'NOT_FOUND'))
    .with({ code: 'unknown_access_token' }, () => fail('No such access token.', 'NOT_FOUND'))
    .with({ code: 'external_account_taken' }, () => fail('That identity is linked to another account.', 'EXTERNAL_ACCOUNT_TAKEN'))
    .with({ code: 'duplicate_digest' }, () => fail('Could not store the secret; try again.', 'INTERNAL'))
    .with({ code: 'unknown_external_account' }, () => fail('No such linked identity.', 'NOT_FOUND'))
    .with({ code: 'guard_refused' }, () => fail('That change is not allowed.', 'FORBIDDEN'))
    .exhaustive();
}

/**
 * The GraphQL error of the core's refusal to create an access token.
 *
 * @example
 * ```ts
 * tokenCreationFailure(decision.error);
 * ```
 */
export function tokenCreationFailure(error: AccessTokenCreationError): GraphQLError {
  return match(error)
    .returnType<GraphQLError>()
    .with({ code: 'invalid_input' }, () => fail('The request is invalid.', 'BAD_USER_INPUT'))
    .with({ code: 'unknown_scope' }, (e) => fail(`Unknown scope "${e.scope}".`, 'UNKNOWN_SCOPE'))
    .with({ code: 'duplicate_scope' }, (e) => fail(`Scope "${e.scope}" is given twice.`, 'DUPLICATE_SCOPE'))
    .with({ code: 'missing_user_all_scope' }, () => fail('Every access token carries the scope "user:all".', 'MISSING_USER_ALL_SCOPE'))
    .with({ code: 'note_too_long' }, (e) =>
      fail(`The note must be at most ${e.maxLength} characters long.`, 'BAD_USER_INPUT', { argument: 'note', maxLength: e.maxLength }),
    )
    .exhaustive();
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
