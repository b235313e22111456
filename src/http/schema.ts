/**
 * The GraphQL schema of the debug API (spec §2.2): `currentUser`, `search`, access tokens, and the site
 * administrator's operations. Resolvers translate arguments into core inputs and store calls; the
 * decisions come from the core (`authorizeAccessTokenCreation`, `validateUsername`).
 *
 * @module
 */
import { createHash } from 'node:crypto';
// graphql is imported by its CommonJS entry, the one graphql-http itself loads under Node, so that the schema,
// the errors and graphql-http's `instanceof GraphQLError` checks share one graphql instance even where a bundler
// or test runner would pick the package's ESM entry for a bare 'graphql' import (the dual-package hazard).
import {
  GraphQLBoolean,
  GraphQLError,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldConfigMap } from 'graphql';
import type { Result } from 'neverthrow';
import { match } from 'ts-pattern';
import {
  authorizeAccessTokenCreation,
  generateAccessToken,
  hashAccessToken,
  ACCESS_TOKEN_RANDOM_BYTES,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from '../core/access-token.js';
import type { AccessTokenCreationError, AccessTokenScope, RequestCredential } from '../core/access-token.js';
import { longerThan } from '../core/internal/text-length.js';
import { authorizeSearch } from '../core/search-access.js';
import { validateUsername } from '../core/username.js';
import { countResolvedFields } from './field-budget.js';
import { pageSize, pageSizeArgument } from './list-fields.js';
import { attributeAuditEntry } from './audit-attribution.js';
import type { SearchFunction } from './search.js';
import type { AccessTokenRecord, AuditEntry, AuditEvent, AuditQuery, ExternalAccountRecord, Store, StoreError, UserRecord } from './store.js';

/** What a `search` field resolves to: its query, and the search run shared by every `results` selection. */
interface SearchSource {
  readonly query: string;
  readonly run: () => ReturnType<SearchFunction>;
}

/**
 * Who a request acts as. `actor` is who authenticated (the token's owner under `token-sudo`), `user` the
 * effective account.
 *
 * @example
 * ```ts
 * const anonymous: Viewer = { kind: 'anonymous' };
 * ```
 */
export type Viewer =
  /** No credentials, or credentials that were ignored (an unsupported scheme). */
  | { readonly kind: 'anonymous' }
  /** An authenticated request. */
  | {
      readonly kind: 'user';
      /** The effective account (the sudo target under `token-sudo`). */
      readonly user: UserRecord;
      /** The account whose credentials were presented. */
      readonly actor: UserRecord;
      /** How the request authenticated. */
      readonly via: 'token' | 'token-sudo' | 'bearer' | 'session';
    };

/**
 * The GraphQL context of one request.
 *
 * @example
 * ```ts
 * const context: GatehouseContext = { viewer: { kind: 'anonymous' } };
 * ```
 */
export type GatehouseContext = {
  /** Who the request acts as. */
  readonly viewer: Viewer;
};

/**
 * The result of registering an OAuth app (the OAuth authorization server's `registerApp`).
 *
 * @example
 * ```ts
 * const registered: RegisteredOAuthApp = { clientId: 'c', clientSecret: 's' };
 * ```
 */
export interface RegisteredOAuthApp {
  /** The app's client id. */
  readonly clientId: string;
  /** The app's client secret, shown once. */
  readonly clientSecret: string;
}

/**
 * What the resolvers need from the server.
 *
 * @example
 * ```ts
 * const schema = createGatehouseSchema({ store, now: Date.now, randomBytes, search, audit, registerOAuthApp });
 * ```
 */
export interface SchemaServices {
  /** The store. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** The host's search. */
  readonly search: SearchFunction;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** Registers an OAuth app with the OAuth authorization server. */
  readonly registerOAuthApp: (input: {
    readonly name: string;
    readonly redirectUris: readonly string[];
    readonly scopes: readonly string[];
    readonly ownerUserId: string;
  }) => Promise<Result<RegisteredOAuthApp, { readonly code: string; readonly message: string }>>;
  /** The site configuration's `auth.public`: anonymous requests may use `search`. Default `false`. */
  readonly authPublic?: boolean;
}

type Context = GatehouseContext;
type Args = Readonly<Record<string, unknown>>;

/** A GraphQL error with a machine-readable `extensions.code` (and further facts). */
function fail(message: string, code: string, facts: Readonly<Record<string, string | number>> = {}): GraphQLError {
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

function requireViewer(context: Context): Extract<Viewer, { readonly kind: 'user' }> {
  const viewer = context.viewer;
  if (viewer.kind !== 'user') throw fail('Sign in or send an access token to do this.', 'UNAUTHENTICATED');
  return viewer;
}

function requireUser(context: Context): UserRecord {
  return requireViewer(context).user;
}

function requireSiteAdmin(context: Context): UserRecord {
  const user = requireUser(context);
  if (!user.siteAdmin) throw fail('Only site administrators may do this.', 'FORBIDDEN');
  return user;
}

function str(args: Args, name: string): string {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : '';
}

function optStr(args: Args, name: string): string | null {
  const value = args[name];
  return typeof value === 'string' ? checkedLength(name, value) : null;
}

function strList(args: Args, name: string): readonly string[] {
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
 */
function auditQuery(args: Args): AuditQuery {
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

function storeFailure(error: StoreError): GraphQLError {
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

function tokenCreationFailure(error: AccessTokenCreationError): GraphQLError {
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

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Creates an access token for `subjectId` on behalf of `actor`, after the core's `authorizeAccessTokenCreation`:
 * the secret is returned once and only its SHA-256 digest is stored.
 *
 * @param services - Store, clock, random source and audit.
 * @param actor - Who asks.
 * @param subjectId - Whose token it will be.
 * @param scopes - The requested scopes.
 * @param note - What the token is for.
 * @param expiresAt - Expiry in milliseconds since the epoch, or `null`.
 * @param credential - How the asking request authenticated ({@link viewerCredential}); the core refuses `oauth`
 *   (spec §2.4, §5.1 rule 3). Omit it only for the server's own calls (the start-up administrator token).
 * @returns The stored record and the secret, or a GraphQL error to report.
 *
 * @example
 * ```ts
 * const created = await issueAccessToken(services, admin, admin.id, ['user:all', 'site-admin:sudo'], 'cli', null);
 * if (!(created instanceof GraphQLError)) console.log(created.secret);
 * ```
 */
export async function issueAccessToken(
  services: Pick<SchemaServices, 'store' | 'now' | 'randomBytes' | 'audit'>,
  actor: UserRecord,
  subjectId: string,
  scopes: readonly string[],
  note: string,
  expiresAt: number | null,
  credential?: RequestCredential,
): Promise<{ readonly record: AccessTokenRecord; readonly secret: string } | GraphQLError> {
  const subject = await services.store.getUser(subjectId);
  if (subject === null) return fail('No such user.', 'NOT_FOUND');
  // The count and the insert are two store calls: concurrent creations can pass the quota by the few in flight.
  const existing = await services.store.listAccessTokens(subject.id);
  const decision = authorizeAccessTokenCreation({
    actor: { id: actor.id, siteAdmin: actor.siteAdmin },
    subject: { id: subject.id },
    scopes,
    note,
    existingTokenCount: existing.length,
    ...(credential === undefined ? {} : { credential }),
  });
  if (decision.isErr()) return tokenCreationFailure(decision.error);
  const allowed = decision.value;
  if (allowed.kind === 'deny') {
    return match(allowed.reason)
      .returnType<GraphQLError>()
      .with('not_token_owner', () => fail('Only site administrators may create tokens for other accounts.', 'FORBIDDEN'))
      .with('sudo_requires_site_admin', () => fail('Only site administrators may create tokens with "site-admin:sudo".', 'FORBIDDEN'))
      .with('short_lived_credential', () =>
        fail(
          'An OAuth access token cannot create access tokens: OAuth access tokens are short-lived. Use a personal access token or sign in.',
          'FORBIDDEN',
        ),
      )
      .with('quota_exceeded', () =>
        fail(
          `This account already holds ${MAX_ACCESS_TOKENS_PER_ACCOUNT} access tokens, the most one account may hold; delete one first.`,
          'QUOTA_EXCEEDED',
          { reason: 'quota_exceeded', limit: MAX_ACCESS_TOKENS_PER_ACCOUNT },
        ),
      )
      .exhaustive();
  }
  const secret = generateAccessToken(services.randomBytes(ACCESS_TOKEN_RANDOM_BYTES));
  if (secret.isErr()) return fail('Could not generate a token.', 'INTERNAL');
  const digest = hashAccessToken(secret.value, sha256);
  if (digest.isErr()) return fail('Could not hash the token.', 'INTERNAL');
  const stored = await services.store.createAccessToken({
    userId: subject.id,
    digest: digest.value,
    scopes: allowed.scopes,
    note,
    createdAt: services.now(),
    expiresAt,
  });
  if (stored.isErr()) return storeFailure(stored.error);
  await services.audit({
    entity: 'auth.accessToken',
    action: 'created',
    reason: null,
    actorUserId: actor.id,
    subjectUserId: subject.id,
    details: { tokenId: stored.value.id, scopes: allowed.scopes.join(' ') },
  });
  return { record: stored.value, secret: secret.value };
}

/**
 * The core's name for how a viewer authenticated: `token` and `token-sudo` present a personal access token,
 * `bearer` an OAuth access token, `session` the browser's session cookie.
 *
 * @param via - How the request authenticated ({@link Viewer}).
 * @returns The credential kind the core's `authorizeAccessTokenCreation` takes.
 *
 * @example
 * ```ts
 * viewerCredential('bearer'); // 'oauth'
 * ```
 */
export function viewerCredential(via: 'token' | 'token-sudo' | 'bearer' | 'session'): RequestCredential {
  return match(via)
    .returnType<RequestCredential>()
    .with('token', 'token-sudo', () => 'access_token')
    .with('bearer', () => 'oauth')
    .with('session', () => 'session')
    .exhaustive();
}

/**
 * SHA-256 of bytes, the digest function the core's `hashAccessToken` takes.
 *
 * @param bytes - Input bytes.
 * @returns The 32-byte digest.
 *
 * @example
 * ```ts
 * sha256(new Uint8Array()).length; // 32
 * ```
 */
export function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}

/**
 * Builds the schema. Resolvers read the viewer from the context and call the store and the core.
 *
 * @param services - What the resolvers need.
 * @returns The schema.
 *
 * @example
 * ```ts
 * const schema = createGatehouseSchema(services);
 * await graphql({ schema, source: '{ currentUser { username } }', contextValue: { viewer } });
 * ```
 */
export function createGatehouseSchema(services: SchemaServices): GraphQLSchema {
  const { store, now, search } = services;
  const authPublic = services.authPublic ?? false;
  // Every entry a resolver writes goes through the request's viewer: under token-sudo it names the token's owner
  // as the actor and the account acted as (spec §5.1 rule 2).
  const auditFor =
    (context: Context): SchemaServices['audit'] =>
    (entry) =>
      services.audit(attributeAuditEntry(context.viewer, entry));

  const UserEmail = new GraphQLObjectType<{ readonly email: string; readonly verified: boolean }, Context>({
    name: 'UserEmail',
    description: 'An email address of a user.',
    fields: {
      email: { type: new GraphQLNonNull(GraphQLString), description: 'The address.' },
      verified: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether it is verified.' },
    },
  });

  const AccessToken = new GraphQLObjectType<AccessTokenRecord, Context>({
    name: 'AccessToken',
    description: 'An access token (its secret is never shown again after creation).',
    fields: {
      id: { type: new GraphQLNonNull(GraphQLID), description: 'The token id.' },
      scopes: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
        description: 'The scopes.',
        args: { first: pageSizeArgument('scopes') },
        resolve: (t, args: Args) => t.scopes.slice(0, pageSize(args)),
      },
      note: { type: new GraphQLNonNull(GraphQLString), description: 'What the token is for.' },
      createdAt: { type: new GraphQLNonNull(GraphQLString), description: 'Creation time (ISO 8601).', resolve: (t) => iso(t.createdAt) },
      expiresAt: {
        type: GraphQLString,
        description: 'Expiry time (ISO 8601), or null.',
        resolve: (t) => (t.expiresAt === null ? null : iso(t.expiresAt)),
      },
    },
  });

  const ExternalAccount = new GraphQLObjectType<ExternalAccountRecord, Context>({
    name: 'ExternalAccount',
    description: 'An identity at an authentication provider linked to a user (spec §5.4 rule 4).',
    fields: {
      serviceType: { type: new GraphQLNonNull(GraphQLString), description: 'The provider type, such as hosta or openidconnect.' },
      serviceId: { type: new GraphQLNonNull(GraphQLString), description: 'Which provider of that type (its URL or issuer).' },
      accountId: { type: new GraphQLNonNull(GraphQLString), description: "The identity's id at the provider." },
      createdAt: { type: new GraphQLNonNull(GraphQLString), description: 'Link time (ISO 8601).', resolve: (e) => iso(e.createdAt) },
    },
  });

  const User: GraphQLObjectType<UserRecord, Context> = new GraphQLObjectType<UserRecord, Context>({
    name: 'User',
    description: 'A user account (service accounts included).',
    fields: () => ({
      id: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' },
      username: { type: new GraphQLNonNull(GraphQLString), description: "The user's username." },
      siteAdmin: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether the user is a site administrator.' },
      serviceAccount: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether this is a service account.' },
      emails: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(UserEmail))),
        description: "The user's email addresses, primary first.",
        args: { first: pageSizeArgument('addresses') },
        resolve: (u, args: Args) => u.emails.slice(0, pageSize(args)),
      },
      createdAt: { type: new GraphQLNonNull(GraphQLString), description: 'Creation time (ISO 8601).', resolve: (u) => iso(u.createdAt) },
      accessTokens: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AccessToken))),
        description: "The user's access tokens (visible to the user and to site administrators).",
        args: { first: pageSizeArgument('tokens') },
        resolve: async (u, args: Args, context) => {
          const viewer = requireUser(context);
          if (viewer.id !== u.id && !viewer.siteAdmin) throw fail('Only the owner or a site administrator may list tokens.', 'FORBIDDEN');
          return (await store.listAccessTokens(u.id)).slice(0, pageSize(args));
        },
      },
      externalAccounts: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ExternalAccount))),
        description:
          'The identities linked to the user (visible to the user and to site administrators); unlink them on the Account security page.',
        args: { first: pageSizeArgument('identities') },
        resolve: async (u, args: Args, context) => {
          const viewer = requireUser(context);
          if (viewer.id !== u.id && !viewer.siteAdmin) throw fail('Only the owner or a site administrator may list linked identities.', 'FORBIDDEN');
          return (await store.listExternalAccounts(u.id)).slice(0, pageSize(args));
        },
      },
    }),
  });

  const SearchResults = new GraphQLObjectType<{ readonly matchCount: number }, Context>({
    name: 'SearchResults',
    description: 'The results of a search.',
    fields: { matchCount: { type: new GraphQLNonNull(GraphQLInt), description: 'The number of matches.' } },
  });

  const Search = new GraphQLObjectType<SearchSource, Context>({
    name: 'Search',
    description: 'A search query.',
    fields: {
      results: {
        type: new GraphQLNonNull(SearchResults),
        description: 'Runs the search (once per `search` field, however often `results` is selected).',
        resolve: async (s) => {
          const r = await s.run();
          return { matchCount: Math.min(Math.max(0, Math.floor(r.matchCount)), 2_147_483_647) };
        },
      },
    },
  });

  const CreatedAccessToken = new GraphQLObjectType<{ readonly record: AccessTokenRecord; readonly secret: string }, Context>({
    name: 'CreatedAccessToken',
    description: 'A newly created access token, with its secret (shown this once only).',
    fields: {
      id: { type: new GraphQLNonNull(GraphQLID), description: 'The token id.', resolve: (t) => t.record.id },
      token: { type: new GraphQLNonNull(GraphQLString), description: 'The secret. Store it now: it is never shown again.', resolve: (t) => t.secret },
      scopes: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))),
        description: 'The scopes.',
        args: { first: pageSizeArgument('scopes') },
        resolve: (t, args: Args) => t.record.scopes.slice(0, pageSize(args)),
      },
      note: { type: new GraphQLNonNull(GraphQLString), description: 'The note.', resolve: (t) => t.record.note },
    },
  });

  const OAuthApp = new GraphQLObjectType<RegisteredOAuthApp, Context>({
    name: 'RegisteredOAuthApp',
    description: 'A newly registered OAuth app, with its client secret (shown this once only).',
    fields: {
      clientID: { type: new GraphQLNonNull(GraphQLString), description: 'The client id.', resolve: (a) => a.clientId },
      clientSecret: { type: new GraphQLNonNull(GraphQLString), description: 'The client secret.', resolve: (a) => a.clientSecret },
    },
  });

  const AuditLogEntry = new GraphQLObjectType<AuditEntry, Context>({
    name: 'AuditLogEntry',
    description: 'An audit log entry.',
    fields: {
      id: { type: new GraphQLNonNull(GraphQLID), description: 'The entry id.' },
      timestamp: { type: new GraphQLNonNull(GraphQLString), description: 'When (ISO 8601).', resolve: (e) => iso(e.timestamp) },
      entity: { type: new GraphQLNonNull(GraphQLString), description: 'What it is about, such as auth.accessToken.' },
      action: { type: new GraphQLNonNull(GraphQLString), description: 'What happened, such as failed.' },
      reason: { type: GraphQLString, description: 'Why.' },
      actor: { type: User, description: 'Who acted.', resolve: (e) => (e.actorUserId === null ? null : store.getUser(e.actorUserId)) },
      subject: { type: User, description: 'Who was acted upon.', resolve: (e) => (e.subjectUserId === null ? null : store.getUser(e.subjectUserId)) },
      impersonated: {
        type: User,
        description: 'The account the actor acted as through token-sudo (the actor is then the token owner), or null.',
        resolve: (e) => (e.impersonatedUserId === undefined ? null : store.getUser(e.impersonatedUserId)),
      },
      details: {
        type: new GraphQLNonNull(GraphQLString),
        description: 'Further facts, as a JSON object.',
        resolve: (e) => JSON.stringify(e.details),
      },
      count: {
        type: new GraphQLNonNull(GraphQLInt),
        description: 'How many occurrences the entry stands for (more than 1 for coalesced unsupported-scheme failures).',
        // GraphQL Int is 32-bit: a larger count is shown as the largest Int
        resolve: (e) => Math.min(e.count, 2_147_483_647),
      },
      firstAt: { type: new GraphQLNonNull(GraphQLString), description: 'When the first occurrence happened (ISO 8601).', resolve: (e) => iso(e.firstAt) },
      lastAt: { type: new GraphQLNonNull(GraphQLString), description: 'When the last occurrence happened (ISO 8601).', resolve: (e) => iso(e.lastAt) },
    },
  });

  const query: GraphQLFieldConfigMap<unknown, Context> = {
    currentUser: {
      type: User,
      description: 'The authenticated user, or null.',
      resolve: (_root, _args, context) => (context.viewer.kind === 'user' ? context.viewer.user : null),
    },
    search: {
      type: Search,
      description: 'Searches code (signed-in viewers only, unless the site configuration sets "auth.public": true).',
      args: { query: { type: new GraphQLNonNull(GraphQLString), description: 'The search query (at most 1000 characters).' } },
      resolve: (_root, args: Args, context) => {
        const decision = authorizeSearch({ viewer: context.viewer.kind, authPublic });
        if (decision.isErr() || decision.value.kind === 'deny') throw fail('Sign in or send an access token to search.', 'UNAUTHENTICATED');
        const query = str(args, 'query');
        // One run per `search` field: aliased `results` selections share it, so the bound on `search` fields per
        // operation bounds the searches an operation runs.
        let running: ReturnType<SearchFunction> | null = null;
        const source: SearchSource = { query, run: () => (running ??= search(query)) };
        return source;
      },
    },
    auditLog: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AuditLogEntry))),
      description:
        'Audit log entries, newest first (site administrators only). Page with `before`: the id of the last entry of a page fetches the next one.',
      args: {
        first: pageSizeArgument('entries'),
        before: { type: GraphQLID, description: 'Only entries older than this entry id (ids are sequential).' },
        entity: { type: GraphQLString, description: 'Only entries about this entity, such as auth.accessToken (exact match).' },
        action: { type: GraphQLString, description: 'Only entries with this action, such as created (exact match).' },
        actorUserId: { type: GraphQLID, description: 'Only entries whose actor is this user id (exact match).' },
      },
      resolve: async (_root, args: Args, context) => {
        requireSiteAdmin(context);
        return store.listAudit(pageSize(args), auditQuery(args));
      },
    },
  };

  const createAccessToken: GraphQLFieldConfig<unknown, Context> = {
    type: new GraphQLNonNull(CreatedAccessToken),
    description: 'Creates an access token; the secret is in the answer and never shown again.',
    args: {
      scopes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Scopes; "user:all" is required.' },
      note: { type: new GraphQLNonNull(GraphQLString), description: 'What the token is for.' },
      user: { type: GraphQLID, description: 'Whose token (site administrators only; default: yourself).' },
      expiresInSeconds: { type: GraphQLInt, description: 'Lifetime in seconds (default: no expiry).' },
    },
    resolve: async (_root, args: Args, context) => {
      const viewer = requireViewer(context);
      const actor = viewer.user;
      const credential = viewerCredential(viewer.via);
      const lifetime = args['expiresInSeconds'];
      if (typeof lifetime === 'number' && lifetime <= 0) throw fail('expiresInSeconds must be positive.', 'BAD_USER_INPUT');
      const expiresAt = typeof lifetime === 'number' ? now() + lifetime * 1000 : null;
      const created = await issueAccessToken(
        { ...services, audit: auditFor(context) },
        actor,
        optStr(args, 'user') ?? actor.id,
        strList(args, 'scopes'),
        str(args, 'note'),
        expiresAt,
        credential,
      );
      if (created instanceof GraphQLError) throw created;
      return created;
    },
  };

  const mutation: GraphQLFieldConfigMap<unknown, Context> = {
    createAccessToken,
    deleteAccessToken: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: "Deletes an access token (the owner's or, for site administrators, anyone's).",
      args: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The token id.' } },
      resolve: async (_root, args: Args, context) => {
        const actor = requireUser(context);
        const token = await store.getAccessToken(str(args, 'id'));
        if (token === null || (token.userId !== actor.id && !actor.siteAdmin)) throw fail('No such access token.', 'NOT_FOUND');
        const deleted = await store.deleteAccessToken(token.id);
        if (deleted.isErr()) throw storeFailure(deleted.error);
        await auditFor(context)({
          entity: 'auth.accessToken',
          action: 'deleted',
          reason: null,
          actorUserId: actor.id,
          subjectUserId: token.userId,
          details: { tokenId: token.id },
        });
        return true;
      },
    },
    createUser: {
      type: new GraphQLNonNull(User),
      description: 'Creates an account ahead of its first sign-in (site administrators only; spec §5.3 hosta rule 2).',
      args: {
        username: { type: new GraphQLNonNull(GraphQLString), description: 'The username.' },
        email: { type: GraphQLString, description: 'An email address.' },
        verifiedEmail: { type: GraphQLBoolean, defaultValue: true, description: 'Whether to mark the email verified (default true).' },
      },
      resolve: async (_root, args: Args, context) => {
        const admin = requireSiteAdmin(context);
        const username = validateUsername(str(args, 'username'));
        if (username.isErr()) throw fail('That username is not allowed.', 'INVALID_USERNAME');
        const email = optStr(args, 'email');
        const created = await store.createUser({
          username: username.value,
          origin: 'admin_created',
          siteAdmin: false,
          serviceAccount: false,
          emails: email === null || email === '' ? [] : [{ email, verified: args['verifiedEmail'] !== false }],
          passwordHash: null,
          createdAt: now(),
        });
        if (created.isErr()) throw storeFailure(created.error);
        await auditFor(context)({ entity: 'user', action: 'created', reason: 'created by a site administrator', actorUserId: admin.id, subjectUserId: created.value.id, details: {} });
        return created.value;
      },
    },
    createServiceAccount: {
      type: new GraphQLNonNull(User),
      description: 'Creates a service account, which authenticates with access tokens only (site administrators only).',
      args: { username: { type: new GraphQLNonNull(GraphQLString), description: 'The username.' } },
      resolve: async (_root, args: Args, context) => {
        const admin = requireSiteAdmin(context);
        const username = validateUsername(str(args, 'username'));
        if (username.isErr()) throw fail('That username is not allowed.', 'INVALID_USERNAME');
        const created = await store.createUser({
          username: username.value,
          origin: 'service_account',
          siteAdmin: false,
          serviceAccount: true,
          emails: [],
          passwordHash: null,
          createdAt: now(),
        });
        if (created.isErr()) throw storeFailure(created.error);
        await auditFor(context)({ entity: 'user', action: 'created', reason: 'service account', actorUserId: admin.id, subjectUserId: created.value.id, details: {} });
        return created.value;
      },
    },
    setUserIsSiteAdmin: {
      type: new GraphQLNonNull(User),
      description: 'Grants or revokes site administration (site administrators only).',
      args: {
        userID: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' },
        siteAdmin: { type: new GraphQLNonNull(GraphQLBoolean), description: 'The new value.' },
      },
      resolve: async (_root, args: Args, context) => {
        const admin = requireSiteAdmin(context);
        const siteAdmin = args['siteAdmin'] === true;
        const updated = await store.setSiteAdmin(str(args, 'userID'), siteAdmin);
        if (updated.isErr()) throw storeFailure(updated.error);
        await auditFor(context)({
          entity: 'user',
          action: siteAdmin ? 'site_admin_granted' : 'site_admin_revoked',
          reason: null,
          actorUserId: admin.id,
          subjectUserId: updated.value.id,
          details: {},
        });
        return updated.value;
      },
    },
    registerOAuthApp: {
      type: new GraphQLNonNull(OAuthApp),
      description: 'Registers an OAuth app (site administrators only); the client secret is shown once.',
      args: {
        name: { type: new GraphQLNonNull(GraphQLString), description: 'The app name.' },
        redirectURIs: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Allowed redirect URIs.' },
        scopes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Scopes, "user:all" among them.' },
      },
      resolve: async (_root, args: Args, context) => {
        const admin = requireSiteAdmin(context);
        const registered = await services.registerOAuthApp({
          name: str(args, 'name'),
          redirectUris: strList(args, 'redirectURIs'),
          scopes: strList(args, 'scopes'),
          ownerUserId: admin.id,
        });
        if (registered.isErr()) throw fail(registered.error.message, registered.error.code.toUpperCase());
        await auditFor(context)({
          entity: 'oauth.app',
          action: 'registered',
          reason: null,
          actorUserId: admin.id,
          subjectUserId: null,
          details: { clientId: registered.value.clientId, name: str(args, 'name') },
        });
        return registered.value;
      },
    },
  };

  // Every field resolved counts against the request's field budget (spec §8 graphQLMaxFieldCount).
  return countResolvedFields(
    new GraphQLSchema({
      query: new GraphQLObjectType<unknown, Context>({ name: 'Query', fields: query }),
      mutation: new GraphQLObjectType<unknown, Context>({ name: 'Mutation', fields: mutation }),
    }),
  );
}

/**
 * The scopes a token must hold to act on the API, re-exported for the adapter's `Bearer` check.
 *
 * @example
 * ```ts
 * API_SCOPE; // 'user:all'
 * ```
 */
export const API_SCOPE: AccessTokenScope = 'user:all';
