/**
 * The GraphQL schema of the debug API (spec §2.2): `currentUser`, `search`, access tokens, and the site
 * administrator's operations. Resolvers translate arguments into core inputs and store calls; the
 * decisions come from the core (`authorizeAccessTokenCreation`, `validateUsername`).
 *
 * @module
 */
// graphql is imported by its CommonJS entry, the one graphql-http itself loads under Node, so that the schema,
// the errors and graphql-http's `instanceof GraphQLError` checks share one graphql instance even where a bundler
// or test runner would pick the package's ESM entry for a bare 'graphql' import (the dual-package hazard).
import { GraphQLID, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import type { Result } from 'neverthrow';
import type { AccessTokenScope, AuthProvider, SiteConfiguration } from 'gatehouse-auth';
import { authorizeSearch } from 'gatehouse-auth';
import { attributeAuditEntry } from './audit-attribution.js';
import { countResolvedFields } from './field-budget.js';
import { pageSize, pageSizeArgument } from './list-fields.js';
import { answer, auditQuery, fail, requireSiteAdmin, str } from './fields.js';
import type { Args, Context, SearchSource } from './fields.js';
import { adminMutations, tokenMutations } from './mutations.js';
import { accountLifecycleMutations } from './account-lifecycle.js';
import { accountControlMutations } from './account-control-mutations.js';
import { previewSiteConfigurationField } from './preview.js';
import { effectiveSiteConfigurationField } from './effective-configuration.js';
import type { ConfigurationPreview } from '../operations/configuration-preview.js';
import { schemaTypes } from './object-types.js';
import type { SearchFunction } from './search.js';
import { signInCheckQuery } from './sign-in-check.js';
import type { Store, UserRecord } from '../store/types.js';
import type { AuditSink } from '../store/audited.js';
import type { PasswordResetLinkMaker } from '../operations/password-reset.js';
import type { AccessTokenOptions } from 'gatehouse-auth';


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
      /** For a session: when it signed in (read on demand, for re-authentication before sensitive changes). */
      readonly signedInAt?: () => Promise<number | null>;
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
  /** The store: multi-step writes with a rule (the access token quota) run in its `transaction`. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** The host's search. */
  readonly search: SearchFunction;
  /** Records an audit entry, in the change's transaction. */
  readonly audit: AuditSink;
  /** Registers an OAuth app with the OAuth authorization server. */
  readonly registerOAuthApp: (
    input: {
      readonly name: string;
      readonly redirectUris: readonly string[];
      readonly scopes: readonly string[];
      readonly ownerUserId: string;
    },
    into?: Store,
  ) => Promise<Result<RegisteredOAuthApp, { readonly code: string; readonly message: string }>>;
  /** The site configuration's `auth.public`: anonymous requests may use `search`. Default `false`. */
  readonly authPublic?: boolean;
  /** The configured `auth.providers`, for the `explainSignIn` check. Default: none. */
  readonly authProviders?: readonly AuthProvider[];
  /** Makes a password reset link for an account as a site administrator (`createPasswordResetLink`); absent: refused. */
  readonly passwordResetLink?: PasswordResetLinkMaker;
  /** Previews a candidate site configuration (`previewSiteConfiguration`); the field is absent without it. */
  readonly previewConfiguration?: (text: string) => Promise<ConfigurationPreview>;
  /** The site configuration in effect (`effectiveSiteConfiguration`, secrets masked); the field is absent without it. */
  readonly siteConfiguration?: SiteConfiguration;
  /** The site option `auth.accessTokens`, which `createAccessToken` follows. Default: none applied. */
  readonly accessTokenOptions?: AccessTokenOptions;
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
  const { store, search } = services;
  const authPublic = services.authPublic ?? false;
  // Every entry a resolver writes goes through the request's viewer: under token-sudo it names the token's owner
  // as the actor and the account acted as (spec §5.1 rule 2).
  const auditFor =
    (context: Context): SchemaServices['audit'] =>
    (entry, into) =>
      services.audit(attributeAuditEntry(context.viewer, entry), into);
  const types = schemaTypes(store, services.now);
  const { User, Search, AuditLogEntry } = types;

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
        if (decision.isErr() || decision.value.kind === 'deny') return fail('Sign in or send an access token to search.', 'UNAUTHENTICATED');
        return answer(
          str(args, 'query').map((query): SearchSource => {
            // One run per `search` field: aliased `results` selections share it, so the bound on `search` fields per
            // operation bounds the searches an operation runs.
            let running: ReturnType<SearchFunction> | null = null;
            return { query, run: () => (running ??= search(query)) };
          }),
        );
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
      resolve: (_root, args: Args, context) =>
        answer(
          requireSiteAdmin(context)
            .andThen(() => auditQuery(args))
            .asyncMap((query) => store.audit.list(pageSize(args), query)),
        ),
    },
    ...signInCheckQuery({ store, providers: () => services.authProviders ?? [], randomBytes: services.randomBytes }),
  };

  if (services.previewConfiguration !== undefined) query['previewSiteConfiguration'] = previewSiteConfigurationField(services.previewConfiguration);
  const siteConfiguration = services.siteConfiguration;
  if (siteConfiguration !== undefined) query['effectiveSiteConfiguration'] = effectiveSiteConfigurationField(() => siteConfiguration);

  const mutation: GraphQLFieldConfigMap<unknown, Context> = {
    ...tokenMutations({ services, auditFor }, types),
    ...adminMutations({ services, auditFor }, types),
    ...accountLifecycleMutations({ services, auditFor }, types),
    ...accountControlMutations({ services, auditFor }, types),
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
