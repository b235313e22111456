/**
 * The account lifecycle mutations of the debug API for site administrators: `unlockUser` (the site option
 * `auth.lockout`) and `createPasswordResetLink`. Each is the operation the Users page runs, audited as the
 * request's viewer.
 *
 * @module
 */
import { GraphQLBoolean, GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { err, safeTry } from 'neverthrow';
import { unlockAccount } from '../operations/lockout.js';
import { answer, fail, graphQLFailure, requireSiteAdmin, str } from './fields.js';
import type { Args, Context } from './fields.js';
import type { MutationDeps } from './mutations.js';
import type { SchemaTypes } from './object-types.js';

/** A password reset link made by a site administrator. */
const PasswordResetLink = new GraphQLObjectType({
  name: 'PasswordResetLink',
  description: 'A single-use link that sets a new password; show it to the account\'s owner only.',
  fields: {
    url: { type: new GraphQLNonNull(GraphQLString), description: 'The link.' },
    emailSent: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether the link was also queued to the account\'s primary email.' },
  },
});

/**
 * The fields `unlockUser(user: ID!): User!` and `createPasswordResetLink(user: ID!): PasswordResetLink!` (site
 * administrators only).
 *
 * @param deps - Services and audit.
 * @param types - The object types.
 * @returns The fields.
 *
 * @example
 * ```ts
 * const fields = { ...adminMutations(deps, types), ...accountLifecycleMutations(deps, types) };
 * ```
 */
export function accountLifecycleMutations(deps: MutationDeps, types: SchemaTypes): GraphQLFieldConfigMap<unknown, Context> {
  const { services, auditFor } = deps;
  return {
    unlockUser: {
      type: new GraphQLNonNull(types.User),
      description: 'Unlocks an account locked after failed password sign-ins (auth.lockout), forgetting its counted failures (site administrators only).',
      args: { user: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' } },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const userId = yield* str(args, 'user');
            const unlocked = await unlockAccount({ store: services.store, now: services.now, audit: auditFor(context) }, { kind: 'site_admin', admin }, userId);
            return unlocked.map((u) => u.user).mapErr(graphQLFailure);
          }),
        ),
    },
    createPasswordResetLink: {
      type: new GraphQLNonNull(PasswordResetLink),
      description: 'Makes a single-use password reset link for an account, mailed to it when mail is on (site administrators only; never for a service account).',
      args: { user: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' } },
      resolve: (_root, args: Args, context) =>
        answer(
          safeTry(async function* () {
            const admin = yield* requireSiteAdmin(context);
            const userId = yield* str(args, 'user');
            const make = services.passwordResetLink;
            if (make === undefined) return err(fail('Password reset links are not available on this server.', 'NOT_AVAILABLE'));
            const made = await make(admin, userId, auditFor(context));
            return made.mapErr(graphQLFailure);
          }),
        ),
    },
  };
}
