/**
 * Parses the administrator's site configuration (JSONC): `externalURL`, `auth.providers`, `rateLimits`, `auth.public` (spec §2.5, §8)
 * and `trustedProxies`.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { isRecord, ownField } from '../internal/guard.js';
import { DEFAULT_QUERY_LIMITS, type QueryLimits, queryLimitsFromRateLimits } from '../query-cost/limits.js';
import { checkUrl, optional, wrongType } from './fields.js';
import { readAccountLifecycle } from './account-lifecycle.js';
import { readEmail } from './email.js';
import { readDocument } from './jsonc.js';
import { type Context, formatPath, jsonType, report, type Segments } from './problems.js';
import { readProviders } from './providers.js';
import { checkProxyProvidersGuarded, readTrustedProxies } from './trusted-proxies.js';
import type { SiteConfiguration, SiteConfigurationError } from './types.js';

function readExternalUrl(ctx: Context, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    wrongType(ctx, ['externalURL'], 'string', value, 'externalURL');
    return undefined;
  }
  return checkUrl(ctx, ['externalURL'], value, false) ? value : undefined;
}

function readQueryLimits(ctx: Context, value: unknown): QueryLimits {
  return queryLimitsFromRateLimits(value).match(
    (limits) => limits,
    (error) => {
      for (const problem of error.problems) {
        const segments: Segments = problem.key === null ? ['rateLimits'] : ['rateLimits', problem.key];
        report(ctx, segments, { code: 'invalid_rate_limit', reason: problem.code }, problem.message);
      }
      return DEFAULT_QUERY_LIMITS;
    },
  );
}

function readAuthPublic(ctx: Context, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    wrongType(ctx, ['auth.public'], 'boolean', value, 'auth.public');
    return false;
  }
  return value;
}

const READ_TOP_LEVEL_KEYS: readonly string[] = [
  'externalURL', 'auth.providers', 'rateLimits', 'auth.public', 'trustedProxies', 'email.smtp', 'email.address', 'email.senderName',
  'auth.lockout', 'auth.passwordResetLinkExpiry', 'auth.unlockAccountLinkExpiry',
];

function readConfiguration(text: string): Result<SiteConfiguration, SiteConfigurationError> {
  const document = readDocument(text);
  if (document.isErr()) return err({ code: 'invalid_site_configuration', problems: document.error });
  const { root, duplicates } = document.value;
  const ctx: Context = { problems: [], warnings: [] };
  if (!isRecord(root)) {
    wrongType(ctx, [], 'object', root, 'The site configuration');
    return err({ code: 'invalid_site_configuration', problems: ctx.problems });
  }
  for (const duplicate of duplicates) {
    const top = duplicate.segments[0];
    if (typeof top !== 'string' || !READ_TOP_LEVEL_KEYS.includes(top)) continue;
    const parent = formatPath(duplicate.segments.slice(0, -1));
    report(
      ctx,
      duplicate.segments,
      { code: 'duplicate_key', key: duplicate.key },
      `${parent === '' ? 'The site configuration' : parent} has the key ${JSON.stringify(duplicate.key)} more than once; keep one.`,
    );
  }
  const rawExternalUrl = ownField(root, 'externalURL');
  const externalURL = readExternalUrl(ctx, rawExternalUrl);
  const authProviders = readProviders(ctx, ownField(root, 'auth.providers'), rawExternalUrl);
  const queryLimits = readQueryLimits(ctx, ownField(root, 'rateLimits'));
  const authPublic = readAuthPublic(ctx, ownField(root, 'auth.public'));
  const trustedProxies = readTrustedProxies(ctx, ownField(root, 'trustedProxies'));
  checkProxyProvidersGuarded(ctx, ownField(root, 'auth.providers'), ownField(root, 'trustedProxies'));
  const email = readEmail(ctx, root);
  const accountLifecycle = readAccountLifecycle(ctx, root);
  if (ctx.problems.length > 0) return err({ code: 'invalid_site_configuration', problems: ctx.problems });
  return ok({ ...optional('externalURL', externalURL), authProviders, queryLimits, authPublic, trustedProxies, email, ...accountLifecycle, warnings: ctx.warnings });
}

/**
 * A catch-all over gatehouse's own reading code: a throw there is a defect in gatehouse, so it is reported as
 * `internal_error` (never as the administrator's syntax error); jsonc-parser's own failures are mapped to syntax
 * problems where it is called (`jsonc.ts`).
 */
const safeReadConfiguration = Result.fromThrowable(
  readConfiguration,
  (): SiteConfigurationError => ({
    code: 'internal_error',
    problems: [
      {
        code: 'internal_error',
        path: '',
        segments: [],
        message: 'gatehouse failed while reading the site configuration; this is a defect in gatehouse, not in the configuration.',
      },
    ],
  }),
);

/**
 * Parses the site configuration text (JSONC: comments and trailing commas allowed) into `externalURL`, the typed
 * `auth.providers` with every default applied, the query limits of `rateLimits`, `auth.public` (default `false`),
 * `trustedProxies` (IP addresses and CIDR ranges, default `[]`; an `http-header` provider needs at least one), and
 * warnings.
 *
 * Defaults: `allowSignup` is always a boolean afterwards ({@link DEFAULT_ALLOW_SIGNUP}: false for `builtin`, `hosta`,
 * `hostcserver`, `reviewhost`; true for the others); `apiScope` is `api` for `hostb`; a `hosta` without `url` gets
 * `''` (the public hosted edition). Lists such as `allowOrgs` are kept as written (absent stays absent, `[]` stays
 * `[]`). An absent `auth.providers` gives `[]`; an absent `rateLimits` gives the defaults of spec §8. `auth.lockout`,
 * `auth.passwordResetLinkExpiry` and `auth.unlockAccountLinkExpiry` take the spec's service's defaults (5 failures,
 * 1800 s, 3600 s; 14400 s; 300 s). Top-level keys other than these, `externalURL`, `auth.providers`, `rateLimits`,
 * `auth.public` and `trustedProxies` are ignored (the site configuration holds many other
 * settings), but unknown keys inside provider entries and inside `rateLimits` are problems.
 *
 * On failure every problem is listed with its JSON path, a `code` and a sentence. Never throws.
 *
 * @param text - The site configuration as JSONC text.
 * @returns `ok` with the configuration, or `err` with `code: 'invalid_site_configuration'` and every problem.
 * @see {@link https://datatracker.ietf.org/doc/html/rfc8259 | RFC 8259} for JSON.
 *
 * @example A configuration with comments and a trailing comma
 * ```ts
 * parseSiteConfiguration(`{
 *   // the public address
 *   "externalURL": "https://search.example.com",
 *   "auth.providers": [{ "type": "hostb", "url": "https://hostb.example.com", "clientID": "id", "clientSecret": "s" },],
 * }`);
 * // ok({ externalURL: 'https://search.example.com',
 * //      authProviders: [{ type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 's',
 * //                        allowSignup: true, apiScope: 'api' }],
 * //      queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, trustedProxies: [], warnings: [] })
 * ```
 *
 * @example A typo is reported with a suggestion
 * ```ts
 * parseSiteConfiguration('{"auth.providers": [{"type": "builtin", "allowSingup": true}]}');
 * // err({ code: 'invalid_site_configuration', problems: [{
 * //   code: 'unknown_field', field: 'allowSingup', suggestion: 'allowSignup',
 * //   path: 'auth.providers[0].allowSingup', segments: ['auth.providers', 0, 'allowSingup'],
 * //   message: 'auth.providers[0] (builtin) has unknown field "allowSingup"; did you mean "allowSignup"?' }] })
 * ```
 */
export function parseSiteConfiguration(text: string): Result<SiteConfiguration, SiteConfigurationError> {
  if (typeof text !== 'string') {
    return err({
      code: 'invalid_site_configuration',
      problems: [
        {
          code: 'wrong_type',
          expected: 'string',
          actual: jsonType(text),
          path: '',
          segments: [],
          message: 'The site configuration must be given as JSONC text.',
        },
      ],
    });
  }
  return safeReadConfiguration(text).andThen((result) => result);
}
