/**
 * The GraphQL query `explainSignIn(provider: String!, identity: SignInIdentityInput!)`, for site administrators:
 * the Sign-in check of Site admin as an API (`checkSignIn`). It reads the store and writes nothing.
 *
 * @module
 */
// graphql is imported by its CommonJS entry (see schema.ts).
import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { GraphQLFieldConfigMap, GraphQLNullableType } from 'graphql';
import { isSignInRuleId, SIGN_IN_RULES, type AuthProvider, type SignInTraceStep } from 'gatehouse-auth';
import { checkSignIn, type SignInCheckRequest, type SignInCheckResult } from '../operations/sign-in-check.js';
import type { Store } from '../store/types.js';
import { fail, requireSiteAdmin, type Context } from './fields.js';
import { pageSize, pageSizeArgument } from './list-fields.js';

const nonNull = <T extends GraphQLNullableType>(type: T): GraphQLNonNull<T> => new GraphQLNonNull(type);
const listOf = <T extends GraphQLNullableType>(type: T): GraphQLList<GraphQLNonNull<T>> => new GraphQLList(new GraphQLNonNull(type));

const EmailInput = new GraphQLInputObjectType({
  name: 'SignInEmailInput',
  description: 'An email as the provider reports it.',
  fields: { address: { type: nonNull(GraphQLString) }, verified: { type: nonNull(GraphQLBoolean), description: 'Whether the provider verified it.' } },
});
const TeamInput = new GraphQLInputObjectType({
  name: 'SignInTeamInput',
  description: 'A hosta team: its organisation and display name.',
  fields: { org: { type: nonNull(GraphQLString) }, name: { type: nonNull(GraphQLString) } },
});
const GroupInput = new GraphQLInputObjectType({
  name: 'SignInGroupInput',
  description: 'A hostb group membership: the full path and the access level (5 Minimal Access, 10 Guest … 50 Owner).',
  fields: { fullPath: { type: nonNull(GraphQLString) }, accessLevel: { type: nonNull(GraphQLInt) } },
});
const HeaderInput = new GraphQLInputObjectType({
  name: 'SignInHeaderInput',
  description: 'A header the authentication proxy sends (http-header providers).',
  fields: { name: { type: nonNull(GraphQLString) }, value: { type: nonNull(GraphQLString) } },
});

/** The input type of `explainSignIn`'s `identity`. */
const IdentityInput = new GraphQLInputObjectType({
  name: 'SignInIdentityInput',
  description: 'An identity as a provider would describe it. For an http-header provider only `headers` is read.',
  fields: {
    accountId: { type: GraphQLString, description: "The provider's id of the account (default: the username, else the first email)." },
    username: { type: GraphQLString },
    emails: { type: listOf(EmailInput), description: 'Primary first.' },
    orgs: { type: listOf(GraphQLString) },
    teams: { type: listOf(TeamInput) },
    groups: { type: listOf(GroupInput) },
    membershipComplete: { type: GraphQLBoolean, description: 'false when the membership lists were cut short (default true).' },
    headers: { type: listOf(HeaderInput) },
    signedInUsername: { type: GraphQLString, description: 'The account signed in when the identity arrives: the identity is added to it.' },
  },
});

const TraceStep = new GraphQLObjectType<SignInTraceStep>({
  name: 'SignInTraceStep',
  description: 'One rule a sign-in decision applied.',
  fields: {
    rule: { type: nonNull(GraphQLString), description: 'The spec rule, such as "§5.3 hosta rule 6".' },
    ruleText: { type: GraphQLString, description: "The spec's text of the rule (shortened).", resolve: (s) => (isSignInRuleId(s.rule) ? SIGN_IN_RULES[s.rule] : null) },
    outcome: { type: nonNull(GraphQLString), description: 'What the rule found, a snake_case code.' },
    note: { type: nonNull(GraphQLString), description: 'The outcome as a sentence.' },
    facts: { type: nonNull(GraphQLString), description: 'The plain facts the rule read, as JSON.', resolve: (s) => JSON.stringify(s.facts) },
  },
});

const CheckAccount = new GraphQLObjectType<NonNullable<SignInCheckResult['account']>>({
  name: 'SignInCheckAccount',
  description: 'The existing account a sign-in lands in.',
  fields: { id: { type: nonNull(GraphQLID) }, username: { type: nonNull(GraphQLString) }, serviceAccount: { type: nonNull(GraphQLBoolean) } },
});

const Explanation = new GraphQLObjectType<SignInCheckResult>({
  name: 'SignInExplanation',
  description: 'How a sign-in would go now, and by which rules.',
  fields: {
    decision: { type: nonNull(GraphQLString), description: 'sign_in, create or deny.', resolve: (r) => r.explanation.decision.kind },
    reason: { type: GraphQLString, description: 'Why a deny refuses (a SignInDenialReason).', resolve: (r) => (r.explanation.decision.kind === 'deny' ? r.explanation.decision.reason : null) },
    message: { type: GraphQLString, description: 'What a refused person reads.', resolve: (r) => (r.explanation.decision.kind === 'deny' ? r.explanation.decision.message : null) },
    refusalReason: { type: GraphQLString, description: 'The reason a refused person is shown with it.' },
    via: { type: GraphQLString, description: 'How a sign_in found the account.', resolve: (r) => (r.explanation.decision.kind === 'sign_in' ? r.explanation.decision.via : null) },
    account: { type: CheckAccount, description: 'The existing account a sign_in lands in.' },
    username: { type: GraphQLString, description: 'The username a create would give the new account (§5.5).', resolve: (r) => (r.explanation.decision.kind === 'create' ? r.explanation.decision.username : null) },
    trace: {
      type: nonNull(listOf(TraceStep)),
      description: 'The rules applied, in order (the first `first` of them).',
      args: { first: pageSizeArgument('steps') },
      resolve: (r, args: Readonly<Record<string, unknown>>) => r.explanation.trace.slice(0, pageSize(args)),
    },
  },
});

/**
 * The `explainSignIn` query field.
 *
 * @param services - The store, the configured providers and the random source.
 * @returns The field, to spread into the `Query` type's fields.
 * @example
 * ```ts
 * const query = { ...signInCheckQuery({ store, providers: () => configuration.authProviders, randomBytes }) };
 * ```
 */
export function signInCheckQuery(services: {
  readonly store: Store;
  readonly providers: () => readonly AuthProvider[];
  readonly randomBytes: (n: number) => Uint8Array;
}): GraphQLFieldConfigMap<unknown, Context> {
  return {
    explainSignIn: {
      type: Explanation,
      description:
        'How a sign-in of this identity through this configured provider would go now, with the spec rules that decide it (site administrators only). Reads only.',
      args: {
        provider: { type: nonNull(GraphQLString), description: "The provider's displayName, else its type when one provider has it, else its position in auth.providers (from 0)." },
        identity: { type: nonNull(IdentityInput) },
      },
      resolve: async (_root, args: Record<string, unknown>, context) => {
        const admitted = requireSiteAdmin(context);
        if (admitted.isErr()) return admitted.error;
        const provider = args['provider'];
        const identity = args['identity'];
        if (typeof provider !== 'string' || typeof identity !== 'object' || identity === null) return fail('provider and identity are required.', 'BAD_USER_INPUT');
        const request: SignInCheckRequest = { ...(identity as Omit<SignInCheckRequest, 'provider'>), provider };
        const checked = await checkSignIn(services.store, services.providers(), request, services.randomBytes);
        return checked.isOk() ? checked.value : fail(checked.error.message, 'BAD_USER_INPUT', { reason: checked.error.code });
      },
    },
  };
}
