/**
 * The object types of the debug API's schema (spec §2.2): users, their emails, tokens and linked identities,
 * search results, and the audit log.
 *
 * @module
 */
// graphql is imported by its CommonJS entry, the one graphql-http itself loads under Node, so that the schema,
// the errors and graphql-http's `instanceof GraphQLError` checks share one graphql instance (the dual-package hazard).
import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { GraphQLError } from 'graphql';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { pageSize, pageSizeArgument } from './list-fields.js';
import { answer, fail, iso, requireUser } from './fields.js';
import type { Args, Context, SearchSource } from './fields.js';
import type { RegisteredOAuthApp } from './schema.js';
import type { AccessTokenRecord, AuditEntry, ExternalAccountRecord, Store, UserRecord } from '../store/types.js';

/** What the object types read: accounts (with their links) and access tokens. */
type TypeStore = Pick<Store, 'accounts' | 'accessTokens' | 'lockouts'>;

/**
 * The object types the query and mutation fields return.
 *
 * @example
 * ```ts
 * const types: SchemaTypes = schemaTypes(store);
 * ```
 */
export interface SchemaTypes {
  /** A user account. */
  readonly User: GraphQLObjectType<UserRecord, Context>;
  /** A search query. */
  readonly Search: GraphQLObjectType<SearchSource, Context>;
  /** A new access token with its secret. */
  readonly CreatedAccessToken: GraphQLObjectType<{ readonly record: AccessTokenRecord; readonly secret: string }, Context>;
  /** A new OAuth app with its client secret. */
  readonly OAuthApp: GraphQLObjectType<RegisteredOAuthApp, Context>;
  /** An audit log entry. */
  readonly AuditLogEntry: GraphQLObjectType<AuditEntry, Context>;
}

/**
 * Builds the object types.
 *
 * @param store - The store the fields read.
 * @returns The types.
 *
 * @example
 * ```ts
 * const { User } = schemaTypes(store);
 * ```
 */
export function schemaTypes(store: TypeStore, now: () => number = Date.now): SchemaTypes {
  const User = userType(store, now);
  return { User, ...resultTypes(store, User) };
}

/** The `User` type with its emails, access tokens and linked identities. */
function userType(store: TypeStore, now: () => number): GraphQLObjectType<UserRecord, Context> {
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
      suspended: {
        type: new GraphQLNonNull(GraphQLBoolean),
        description: 'Whether a site administrator suspended the account: it has no way in until reinstated (suspendUser, reinstateUser).',
        resolve: (u) => u.suspendedAt !== undefined,
      },
      suspendedAt: { type: GraphQLString, description: 'When the account was suspended (ISO 8601), or null.', resolve: (u) => (u.suspendedAt === undefined ? null : iso(u.suspendedAt)) },
      locked: {
        type: GraphQLBoolean,
        description:
          'Whether password sign-in is locked after too many failures (auth.lockout) until lockedUntil; a site administrator unlocks it with unlockUser (visible to the user and to site administrators).',
        resolve: (u, _args: Args, context) =>
          answer(ownerOrSiteAdmin(context, u, 'Only the owner or a site administrator may see whether an account is locked.').asyncMap(async (owner) => (await store.lockouts.lockedUntil([owner.id], now())).has(owner.id))),
      },
      lockedUntil: {
        type: GraphQLString,
        description: 'When the lock ends (ISO 8601), or null when the account is not locked (visible to the user and to site administrators).',
        resolve: (u, _args: Args, context) =>
          answer(
            ownerOrSiteAdmin(context, u, 'Only the owner or a site administrator may see whether an account is locked.').asyncMap(async (owner) => {
              const until = (await store.lockouts.lockedUntil([owner.id], now())).get(owner.id);
              return until === undefined ? null : iso(until);
            }),
          ),
      },
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
        resolve: (u, args: Args, context) =>
          answer(
            ownerOrSiteAdmin(context, u, 'Only the owner or a site administrator may list tokens.').asyncMap(async (owner) =>
              (await store.accessTokens.list(owner.id)).slice(0, pageSize(args)),
            ),
          ),
      },
      externalAccounts: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(ExternalAccount))),
        description:
          'The identities linked to the user (visible to the user and to site administrators); unlink them on the Account security page.',
        args: { first: pageSizeArgument('identities') },
        resolve: (u, args: Args, context) =>
          answer(
            ownerOrSiteAdmin(context, u, 'Only the owner or a site administrator may list linked identities.').asyncMap(async (owner) =>
              (await store.accounts.links(owner.id)).slice(0, pageSize(args)),
            ),
          ),
      },
    }),
  });

  return User;
}

/** `owner` when the request acts as it or as a site administrator; else `UNAUTHENTICATED` or `FORBIDDEN` (`refusal`). */
function ownerOrSiteAdmin(context: Context, owner: UserRecord, refusal: string): Result<UserRecord, GraphQLError> {
  return requireUser(context).andThen((viewer) => (viewer.id === owner.id || viewer.siteAdmin ? ok(owner) : err(fail(refusal, 'FORBIDDEN'))));
}

/** The types of search results, created tokens and apps, and audit entries. */
function resultTypes(store: TypeStore, User: GraphQLObjectType<UserRecord, Context>): Omit<SchemaTypes, 'User'> {
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
      actor: { type: User, description: 'Who acted.', resolve: (e) => (e.actorUserId === null ? null : store.accounts.get(e.actorUserId)) },
      subject: { type: User, description: 'Who was acted upon.', resolve: (e) => (e.subjectUserId === null ? null : store.accounts.get(e.subjectUserId)) },
      impersonated: {
        type: User,
        description: 'The account the actor acted as through token-sudo (the actor is then the token owner), or null.',
        resolve: (e) => (e.impersonatedUserId === undefined ? null : store.accounts.get(e.impersonatedUserId)),
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
  return { Search, CreatedAccessToken, OAuthApp, AuditLogEntry };
}
