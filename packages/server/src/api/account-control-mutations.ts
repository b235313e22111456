/**
 * The site administrator's account controls in the debug API: `suspendUser`, `reinstateUser`,
 * `invalidateSessionsByID` and `revokeUserAccessTokens`. Each asks the core (through `controlAccount`, one store
 * transaction with its audit entry) and is refused against the last active site administrator (`LAST_SITE_ADMIN`).
 *
 * @module
 */
import { GraphQLID, GraphQLInt, GraphQLNonNull } from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldConfigMap, GraphQLOutputType } from 'graphql';
import { safeTry } from 'neverthrow';
import type { AccountControl } from 'gatehouse-auth';
import { accountControlFailure, controlAccount } from '../operations/account-controls.js';
import type { AccountControlOutcome } from '../operations/account-controls.js';
import { answer, graphQLFailure, requireSiteAdmin, str } from './fields.js';
import type { Args, Context } from './fields.js';
import type { MutationDeps } from './mutations.js';
import type { SchemaTypes } from './object-types.js';

/**
 * The account control mutations (site administrators only).
 *
 * @param deps - Services and audit.
 * @param types - The object types.
 * @returns The fields.
 *
 * @example
 * ```ts
 * const fields = { ...adminMutations(deps, types), ...accountControlMutations(deps, types) };
 * ```
 */
export function accountControlMutations(deps: MutationDeps, types: SchemaTypes): GraphQLFieldConfigMap<unknown, Context> {
  const { services, auditFor } = deps;
  const field = <T>(
    control: AccountControl,
    argument: 'user' | 'userID',
    type: GraphQLOutputType,
    description: string,
    result: (outcome: AccountControlOutcome) => T,
  ): GraphQLFieldConfig<unknown, Context> => ({
    type,
    description,
    args: { [argument]: { type: new GraphQLNonNull(GraphQLID), description: 'The user id.' } },
    resolve: (_root, args: Args, context) =>
      answer(
        safeTry(async function* () {
          const admin = yield* requireSiteAdmin(context);
          const userId = yield* str(args, argument);
          const done = await controlAccount({ store: services.store, now: services.now, audit: auditFor(context) }, admin, userId, control);
          return done.map(result).mapErr((e) => graphQLFailure(accountControlFailure(e)));
        }),
      ),
  });
  const user = new GraphQLNonNull(types.User);
  const count = new GraphQLNonNull(GraphQLInt);
  return {
    suspendUser: field(
      'suspend',
      'user',
      user,
      'Suspends an account (site administrators only): its sessions, access tokens and OAuth tokens are refused at once on every instance and it cannot sign in, until reinstated; nothing is deleted. Never the last active site administrator (LAST_SITE_ADMIN).',
      (o) => o.user,
    ),
    reinstateUser: field('reinstate', 'user', user, 'Reinstates a suspended account (site administrators only): everything it had works again.', (o) => o.user),
    invalidateSessionsByID: field(
      'end_sessions',
      'userID',
      count,
      'Ends every browser session of an account (site administrators only); answers how many. Never the last active site administrator (LAST_SITE_ADMIN).',
      (o) => o.removed,
    ),
    revokeUserAccessTokens: field(
      'revoke_tokens',
      'user',
      count,
      "Deletes every access token and OAuth token of an account (site administrators only); answers how many. Never the last active site administrator's (LAST_SITE_ADMIN).",
      (o) => o.removed,
    ),
  };
}
