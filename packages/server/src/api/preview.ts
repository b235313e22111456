/**
 * `previewSiteConfiguration(configuration: String!)`: what a candidate site configuration would change, for site
 * administrators. The candidate's problems with their paths, or who would lose or gain sign-in, which providers
 * open or close sign-up, and which query cost limits change (spec §8). Nothing is applied.
 *
 * @module
 */
// graphql is imported by its CommonJS entry, as schema.ts explains (the dual-package hazard).
import { GraphQLBoolean, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig, GraphQLOutputType } from 'graphql';
import type { ConfigurationPreview } from '../operations/configuration-preview.js';
import { answer, requireSiteAdmin, str } from './fields.js';
import { pageSize, pageSizeArgument } from './list-fields.js';
import type { Args, Context } from './fields.js';

const nonNull = <T extends GraphQLOutputType>(type: T): GraphQLNonNull<T> => new GraphQLNonNull(type);
const list = <T extends GraphQLOutputType>(type: T): GraphQLNonNull<GraphQLList<GraphQLNonNull<T>>> => nonNull(new GraphQLList(nonNull(type)));
const field = (type: GraphQLOutputType, description: string): { type: GraphQLOutputType; description: string } => ({ type, description });

/** A list field of the answer, bounded like every list of the schema: its first `first` items (§8). */
const listOf = (type: GraphQLOutputType, description: string, what: string): GraphQLFieldConfig<Readonly<Record<string, unknown>>, Context, Args> => ({
  type: list(type),
  description,
  args: { first: pageSizeArgument(what) },
  resolve: (source, args, _context, info) => {
    const items: unknown = source[info.fieldName];
    return Array.isArray(items) ? items.slice(0, pageSize(args)) : [];
  },
});

const Problem = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewProblem',
  description: 'One problem of the candidate configuration.',
  fields: {
    path: field(nonNull(GraphQLString), 'The JSON path, such as auth.providers[0].clientID (empty for the whole document).'),
    message: field(nonNull(GraphQLString), 'A sentence saying what to change.'),
  },
});

const WayChange = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewWay',
  description: 'One way into an account (the password, or a linked identity) whose sign-in changes.',
  fields: {
    userId: field(nonNull(GraphQLString), 'The account id.'),
    username: field(nonNull(GraphQLString), 'The account username.'),
    siteAdmin: field(nonNull(GraphQLBoolean), 'Whether the account is a site administrator.'),
    serviceType: field(nonNull(GraphQLString), 'The provider type (builtin for the password).'),
    serviceId: field(nonNull(GraphQLString), 'Which provider of that type (its URL or issuer; empty when none).'),
    accountId: field(nonNull(GraphQLString), "The identity's id at the provider (empty for the password)."),
    providerUsername: field(GraphQLString, 'The username the provider gave at the last sign-in, when known.'),
    reason: field(GraphQLString, 'Why it is refused after the change (a loss) or was refused before (a gain).'),
    accountStillSignsIn: field(nonNull(GraphQLBoolean), 'Whether the account keeps another way in after the change.'),
  },
});

const WayChanges = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewWays',
  description: 'Ways in that change: the first ones and how many in all.',
  fields: {
    count: field(nonNull(GraphQLInt), 'How many in all.'),
    first: listOf(WayChange, 'The first ones, oldest account first (the server keeps 200).', 'ways in'),
  },
});

const LockedOut = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewAccount',
  description: 'An account that would have no way in left.',
  fields: {
    userId: field(nonNull(GraphQLString), 'The account id.'),
    username: field(nonNull(GraphQLString), 'The account username.'),
    siteAdmin: field(nonNull(GraphQLBoolean), 'Whether it is a site administrator.'),
  },
});

const LockedOutList = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewAccounts',
  description: 'Accounts that would have no way in left: the first ones and how many in all.',
  fields: {
    count: field(nonNull(GraphQLInt), 'How many in all.'),
    first: listOf(LockedOut, 'The first ones, oldest first (the server keeps 200).', 'accounts'),
  },
});

const ProviderChange = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewProvider',
  description: 'A provider added, removed, or opening or closing sign-up (allowSignup).',
  fields: {
    kind: field(nonNull(GraphQLString), 'added, removed or signup.'),
    type: field(nonNull(GraphQLString), 'The provider type.'),
    serviceId: field(nonNull(GraphQLString), 'Which provider of that type (empty when none).'),
    signupBefore: field(GraphQLBoolean, 'Whether it allows sign-up now (null when added).'),
    signupAfter: field(GraphQLBoolean, 'Whether it would allow sign-up (null when removed).'),
  },
});

const LimitChange = new GraphQLObjectType({
  name: 'SiteConfigurationPreviewLimit',
  description: 'A query cost limit of rateLimits that changes.',
  fields: {
    setting: field(nonNull(GraphQLString), 'The rateLimits setting.'),
    before: field(nonNull(GraphQLInt), 'The limit now.'),
    after: field(nonNull(GraphQLInt), 'The limit after the change.'),
  },
});

const Preview = new GraphQLObjectType({
  name: 'SiteConfigurationPreview',
  description: 'What a candidate site configuration would change. Nothing is applied.',
  fields: {
    valid: field(nonNull(GraphQLBoolean), 'Whether the candidate parses; when false, problems says why and nothing else is computed.'),
    problems: listOf(Problem, 'The problems of the candidate, each with its JSON path.', 'problems'),
    warnings: listOf(GraphQLString, "The candidate's warnings.", 'warnings'),
    accounts: field(nonNull(GraphQLInt), 'Accounts examined (service accounts excluded).'),
    identities: field(nonNull(GraphQLInt), 'Linked identities examined.'),
    identitiesWithoutFacts: field(nonNull(GraphQLInt), 'Identities that have not signed in since gatehouse kept sign-in facts.'),
    losing: field(nonNull(WayChanges), 'Ways in that sign in now and would be refused.'),
    gaining: field(nonNull(WayChanges), 'Ways in that are refused now and would sign in.'),
    unknown: field(nonNull(WayChanges), 'Ways in whose answer depends on facts not stored (no sign-in since facts were kept).'),
    accountsLockedOut: field(nonNull(LockedOutList), 'Accounts that would have no way in left.'),
    providerChanges: listOf(ProviderChange, 'Providers added, removed, or opening or closing sign-up.', 'providers'),
    limitChanges: listOf(LimitChange, 'Query cost limits that change.', 'limits'),
    siteAdmins: field(nonNull(GraphQLInt), 'Site administrators.'),
    siteAdminsSigningInNow: field(nonNull(GraphQLInt), 'Site administrators who sign in now (or may: unknown).'),
    siteAdminsSigningInAfter: field(nonNull(GraphQLInt), 'Site administrators who would sign in (or may) after the change.'),
    locksOutSiteAdmins: field(nonNull(GraphQLBoolean), 'Whether it would lock out every site administrator (a reload of such a file is refused).'),
  },
});

const EMPTY = { count: 0, first: [] };

/** The field's answer object: the preview flattened into the fields of `SiteConfigurationPreview`. */
function previewObject(preview: ConfigurationPreview): Readonly<Record<string, unknown>> {
  if (preview.kind === 'invalid') {
    return {
      valid: false, problems: preview.problems, warnings: [], accounts: 0, identities: 0, identitiesWithoutFacts: 0,
      losing: EMPTY, gaining: EMPTY, unknown: EMPTY, accountsLockedOut: EMPTY, providerChanges: [], limitChanges: [],
      siteAdmins: 0, siteAdminsSigningInNow: 0, siteAdminsSigningInAfter: 0, locksOutSiteAdmins: false,
    };
  }
  const { tally } = preview;
  return {
    valid: true,
    problems: [],
    warnings: preview.warnings,
    accounts: tally.accounts,
    identities: tally.identities,
    identitiesWithoutFacts: tally.identitiesWithoutFacts,
    losing: tally.losing,
    gaining: tally.gaining,
    unknown: tally.unknown,
    accountsLockedOut: tally.accountsLockedOut,
    providerChanges: preview.changes.providers,
    limitChanges: preview.changes.limits,
    siteAdmins: tally.siteAdmins,
    siteAdminsSigningInNow: tally.siteAdminsSigningInNow,
    siteAdminsSigningInAfter: tally.siteAdminsSigningInAfter,
    locksOutSiteAdmins: preview.locksOutSiteAdmins,
  };
}

/**
 * The `previewSiteConfiguration` query field.
 *
 * @param preview - Previews a candidate against the running configuration and every stored account.
 * @returns The field's configuration.
 * @example
 * ```ts
 * const query = { previewSiteConfiguration: previewSiteConfigurationField((text) => previewConfiguration(store, configuration, text)) };
 * ```
 */
export function previewSiteConfigurationField(
  preview: (text: string) => Promise<ConfigurationPreview>,
): GraphQLFieldConfig<unknown, Context, Args> {
  return {
    type: nonNull(Preview),
    description:
      'What a candidate site configuration (JSONC) would change, over every stored account: its problems, or who would lose or gain sign-in, sign-up and query cost limit changes (site administrators only). Nothing is applied.',
    args: { configuration: { type: nonNull(GraphQLString), description: 'The candidate, as the site configuration file would hold it.' } },
    resolve: (_root, args, context) =>
      answer(
        requireSiteAdmin(context)
          .andThen(() => str(args, 'configuration'))
          .asyncMap(async (text) => previewObject(await preview(text))),
      ),
  };
}
