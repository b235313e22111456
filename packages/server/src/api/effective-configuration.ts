/**
 * `effectiveSiteConfiguration: String!`: the site configuration the server runs, for site administrators, as the
 * JSON text of a site configuration file with every default spelled out and every secret replaced by `REDACTED`
 * (the core's `effectiveSiteConfigurationText`, which decides what is a secret by the parsed type). A read: nothing
 * is audited, as for `previewSiteConfiguration`.
 *
 * @module
 */
// graphql is imported by its CommonJS entry, as schema.ts explains (the dual-package hazard).
import { GraphQLNonNull, GraphQLString } from 'graphql';
import type { GraphQLFieldConfig } from 'graphql';
import { effectiveSiteConfigurationText } from 'gatehouse-auth';
import type { SiteConfiguration } from 'gatehouse-auth';
import { answer, requireSiteAdmin } from './fields.js';
import type { Args, Context } from './fields.js';

/**
 * The `effectiveSiteConfiguration` query field.
 *
 * @param configuration - The configuration in effect (read at each request, so a reload shows at once).
 * @returns The field's configuration.
 * @example
 * ```ts
 * const query = { effectiveSiteConfiguration: effectiveSiteConfigurationField(() => configuration) };
 * ```
 */
export function effectiveSiteConfigurationField(configuration: () => SiteConfiguration): GraphQLFieldConfig<unknown, Context, Args> {
  return {
    type: new GraphQLNonNull(GraphQLString),
    description:
      'The site configuration in effect, as the JSON text of a site configuration file with every default spelled out and every secret (OAuth client secrets, the hostb ssoURL token, the SMTP password) replaced by "REDACTED" (site administrators only).',
    resolve: (_root, _args, context) => answer(requireSiteAdmin(context).map(() => effectiveSiteConfigurationText(configuration()))),
  };
}
