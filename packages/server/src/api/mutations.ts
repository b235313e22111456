/**
 * The mutations of the debug API (spec §2.2, §2.3, §2.4): access tokens, accounts, site administration and OAuth
 * apps. Each asks the core, then the store, then records an audit entry as the request's viewer.
 *
 * @module
 */
import { GraphQLBoolean, GraphQLError, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldConfigMap } from 'graphql';
import { err, ok, safeTry } from 'neverthrow';
import { match } from 'ts-pattern';
import { decideReauthentication } from 'gatehouse-auth';
import { createAccount, setSiteAdmin } from '../operations/accounts.js';
import type { AdminOperationDeps, AdminOperationError } from '../operations/accounts.js';
import { issueAccessToken, issueAccessTokenFailure, viewerCredential } from '../operations/access-tokens.js';
import { answer, fail, graphQLFailure, optStr, requireSiteAdmin, requireUser, requireViewer, storeFailure, str, strList } from './fields.js';
import type { Args, Context } from './fields.js';
import type { SchemaTypes } from './object-types.js';
import { auditedTransaction } from '../store/audited.js';
import type { SchemaServices } from './schema.js';

/**
 * What the mutations use: the server's services, and the audit sink of a request's viewer.
 *
 * @example
 * ```ts
 * const deps: MutationDeps = { services, auditFor: (context) => services.audit };
 * ```
 */
export interface MutationDeps {
  /** The server's services. */
  readonly services: SchemaServices;
  /** The audit sink of a request (entries attributed to its viewer, §5.1 rule 2). */
  readonly auditFor: (context: Context) => SchemaServices['audit'];
}

/**
 * The access token mutations: `createAccessToken`, `deleteAccessToken`.
 *
 * @param deps - Services and audit.
 * @param types - The object types.
 * @returns The fields.
 *
 * @example
 * ```ts
 * const fields = { ...tokenMutations(deps, types), ...adminMutations(deps, types) };
 * ```
 */
export function tokenMutations(deps: MutationDeps, types: SchemaTypes): GraphQLFieldConfigMap<unknown, Context> {
  const { services, auditFor } = deps;
  const { store, now } = services;
  const { CreatedAccessToken } = types;
  const createAccessToken: GraphQLFieldConfig<unknown, Context> = {
    type: new GraphQLNonNull(CreatedAccessToken),
    description: 'Creates an access token; the secret is in the answer and never shown again.',
    args: {
      scopes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Scopes; "user:all" is required.' },
      note: { type: new GraphQLNonNull(GraphQLString), description: 'What the token is for.' },
      user: { type: GraphQLID, description: 'Whose token (site administrators only; default: yourself).' },
      expiresInSeconds: { type: GraphQLInt, description: 'Lifetime in seconds (default: no expiry).' },
    },
    resolve: (_root, args: Args, context) =>
      answer(
        safeTry(async function* () {
          const viewer = yield* requireViewer(context);
          const actor = viewer.user;
          const credential = viewerCredential(viewer.via);
          const lifetime = args['expiresInSeconds'];
          if (typeof lifetime === 'number' && lifetime <= 0) return err(fail('expiresInSeconds must be positive.', 'BAD_USER_INPUT'));
          const expiresAt = typeof lifetime === 'number' ? now() + lifetime * 1000 : null;
          const subjectId = (yield* optStr(args, 'user')) ?? actor.id;
          const scopes = yield* strList(args, 'scopes');
          const note = yield* str(args, 'note');
          // a sudo token asked for through a browser session needs a recent sign-in (a stolen cookie alone cannot mint one)
          if (scopes.includes('site-admin:sudo') && viewer.via === 'session' && actor.siteAdmin) {
            const reauth = decideReauthentication({ now: now(), signedInAt: (await viewer.signedInAt?.()) ?? null, hasPassword: false, password: 'absent' });
            if (reauth.isErr() || reauth.value.kind === 'refuse') {
              return err(
                fail(
                  'Creating a token with "site-admin:sudo" needs a recent sign-in: sign in again (or create it on the Access tokens page with your current password), then retry within 10 minutes.',
                  'FORBIDDEN',
                  { reason: 'reauthentication_required' },
                ),
              );
            }
          }
          const created = await issueAccessToken({ ...services, audit: auditFor(context) }, actor, subjectId, scopes, note, expiresAt, credential);
          return created.mapErr((e) => graphQLFailure(issueAccessTokenFailure(e)));
        }),
      ),
  };

  return {
    createAccessToken,
    deleteAccessToken: {
      type: new GraphQLNonNull(GraphQLBoolean),
      description: "Deletes an access token (the owner's or, for site administrators, anyone's).",
      args: { id: { type: new GraphQLNonNull(GraphQLID), description: 'The token id.' } },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const actor = yield* requireUser(context);
            const token = await store.accessTokens.get(yield* str(args, 'id'));
            if (token === null || (token.userId !== actor.id && !actor.siteAdmin)) return err(fail('No such access token.', 'NOT_FOUND'));
            const audit = auditFor(context);
            // the deletion is kept only with its audit entry
            const deleted = await auditedTransaction(store, async (tx) => {
              const gone = await tx.accessTokens.delete(token.id);
              if (gone.isOk()) {
                await audit(
                  { entity: 'auth.accessToken', action: 'deleted', reason: null, actorUserId: actor.id, subjectUserId: token.userId, details: { tokenId: token.id } },
                  tx,
                );
              }
              return gone;
            });
            yield* deleted.mapErr(storeFailure);
            return ok(true);
          }),
        ),
    },
  };
}

/**
 * The site administrator's mutations: `createUser`, `createServiceAccount`, `setUserIsSiteAdmin`,
 * `registerOAuthApp`.
 *
 * @param deps - Services and audit.
 * @param types - The object types.
 * @returns The fields.
 *
 * @example
 * ```ts
 * const fields = adminMutations(deps, types);
 * ```
 */
export function adminMutations(deps: MutationDeps, types: SchemaTypes): GraphQLFieldConfigMap<unknown, Context> {
  const { services, auditFor } = deps;
  const { User, OAuthApp } = types;
  const operationDeps = (context: Context): AdminOperationDeps => ({ store: services.store, now: services.now, audit: auditFor(context) });
  return {
    createUser: {
      type: new GraphQLNonNull(User),
      description: 'Creates an account ahead of its first sign-in (site administrators only; spec §5.3 hosta rule 2).',
      args: {
        username: { type: new GraphQLNonNull(GraphQLString), description: 'The username.' },
        email: { type: GraphQLString, description: 'An email address.' },
        verifiedEmail: { type: GraphQLBoolean, defaultValue: true, description: 'Whether to mark the email verified (default true).' },
      },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const username = yield* str(args, 'username');
            const email = yield* optStr(args, 'email');
            const created = await createAccount(operationDeps(context), admin, { kind: 'user', username, email, verified: args['verifiedEmail'] !== false });
            return created.mapErr(adminFailure);
          }),
        ),
    },
    createServiceAccount: {
      type: new GraphQLNonNull(User),
      description: 'Creates a service account, which authenticates with access tokens only (site administrators only).',
      args: { username: { type: new GraphQLNonNull(GraphQLString), description: 'The username.' } },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const username = yield* str(args, 'username');
            const created = await createAccount(operationDeps(context), admin, { kind: 'service_account', username });
            return created.mapErr(adminFailure);
          }),
        ),
    },
    setUserIsSiteAdmin: {
      type: new GraphQLNonNull(User),
      description: 'Grants or revokes site administration (site administrators only); the last site administrator is never revoked.',
      args: {
        userID: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' },
        siteAdmin: { type: new GraphQLNonNull(GraphQLBoolean), description: 'The new value.' },
      },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const userId = yield* str(args, 'userID');
            const updated = await setSiteAdmin(operationDeps(context), admin, userId, args['siteAdmin'] === true);
            return updated.mapErr(adminFailure);
          }),
        ),
    },
    registerOAuthApp: {
      type: new GraphQLNonNull(OAuthApp),
      description: 'Registers an OAuth app (site administrators only); the client secret is shown once.',
      args: {
        name: { type: new GraphQLNonNull(GraphQLString), description: 'The app name.' },
        redirectURIs: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Allowed redirect URIs.' },
        scopes: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Scopes, "user:all" among them.' },
      },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const name = yield* str(args, 'name');
            const redirectUris = yield* strList(args, 'redirectURIs');
            const scopes = yield* strList(args, 'scopes');
            const audit = auditFor(context);
            // the app is kept only with its audit entry: never an app whose secret nobody was shown
            const registered = await auditedTransaction(services.store, async (tx) => {
              const app = await services.registerOAuthApp({ name, redirectUris, scopes, ownerUserId: admin.id }, tx);
              if (app.isOk()) {
                await audit(
                  { entity: 'oauth.app', action: 'registered', reason: null, actorUserId: admin.id, subjectUserId: null, details: { clientId: app.value.clientId, name } },
                  tx,
                );
              }
              return app;
            });
            return registered.mapErr((e) => fail(e.message, e.code.toUpperCase()));
          }),
        ),
    },
  };
}

/** The GraphQL error of a refused account operation (`admin-operations.ts`). */
function adminFailure(error: AdminOperationError): GraphQLError {
  return match(error)
    .returnType<GraphQLError>()
    .with({ code: 'invalid_username' }, () => fail('That username is not allowed.', 'INVALID_USERNAME'))
    .with({ code: 'invalid_email' }, () => fail('That email address is not valid.', 'BAD_USER_INPUT', { argument: 'email' }))
    .with({ code: 'last_site_admin' }, () =>
      fail('This is the only site administrator: make another account a site administrator first.', 'LAST_SITE_ADMIN'),
    )
    .with({ code: 'undecided' }, () => fail('Could not decide; try again.', 'INTERNAL'))
    .with({ code: 'store_refused' }, (e) => storeFailure(e.cause))
    .exhaustive();
}
