/**
 * The `auth.providers` entries: fields per provider type, defaults, validation and duplicates (spec §2.5, §5.3).
 *
 * @module
 */
import { match } from 'ts-pattern';
import { type AuthProvider, PROVIDER_TYPES, type ProviderType } from '../auth-providers.js';
import { isRecord, markParsed, ownField } from '../internal/guard.js';
import { isProviderType } from '../internal/provider-facts.js';
import { HOSTB_DEFAULT_API_SCOPE } from '../providers/hostb.js';
import { PROVIDER_SPECS } from '../providers/index.js';
import {
  at,
  type EntryScope,
  hasToken,
  HEADER_TOKEN,
  readBoolean,
  readList,
  readListMap,
  readString,
  readUrl,
  SCOPE_TOKEN,
  validEmailDomain,
  validGroupPath,
  validRequiredSsoOrgs,
  wrongType,
} from './fields.js';
import { type Context, formatPath, type JsonObject, nearest, report, type Segments } from './problems.js';
import { comparableUrl, parseHttpUrl } from './url.js';

/**
 * The value of `allowSignup` for each provider type when the entry leaves it unset (spec §5.3).
 *
 * @example
 * ```ts
 * DEFAULT_ALLOW_SIGNUP.hosta; // false
 * DEFAULT_ALLOW_SIGNUP.hostb; // true
 * ```
 */
export const DEFAULT_ALLOW_SIGNUP: Readonly<Record<ProviderType, boolean>> = Object.freeze(
  Object.fromEntries(PROVIDER_TYPES.map((type) => [type, PROVIDER_SPECS[type].defaultAllowSignup])) as Record<ProviderType, boolean>,
);

/**
 * The value of `apiScope` for a `hostb` provider that leaves it unset (spec §5.3 hostb rule 2).
 *
 * @example
 * ```ts
 * DEFAULT_HOSTB_API_SCOPE; // 'api'
 * ```
 */
export const DEFAULT_HOSTB_API_SCOPE: 'api' = HOSTB_DEFAULT_API_SCOPE;

const COMMON_FIELDS = ['type', 'displayName', 'allowSignup'] as const;

/**
 * The fields each provider type accepts besides `type`, `displayName` and `allowSignup` (spec §2.5; `saml`: the
 * fields of `SamlProvider`).
 *
 * @example
 * ```ts
 * PROVIDER_FIELDS.hostccloud; // ['url', 'clientKey', 'clientSecret']
 * ```
 */
export const PROVIDER_FIELDS: Readonly<Record<ProviderType, readonly string[]>> = Object.freeze(
  Object.fromEntries(PROVIDER_TYPES.map((type) => [type, PROVIDER_SPECS[type].fields])) as Record<ProviderType, readonly string[]>,
);

// ---------------------------------------------------------------------------------------------------------------
// Providers

/** `{ [key]: value }`, or `{}` when `value` is `undefined` (exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  if (value === undefined) return {};
  const single: { [P in K]?: V } = {};
  single[key] = value;
  return single;
}

function otherTypesWithField(type: ProviderType, field: string): readonly ProviderType[] {
  return PROVIDER_TYPES.filter((other) => other !== type && PROVIDER_FIELDS[other].includes(field));
}

function checkUnknownFields(scope: EntryScope, type: ProviderType): void {
  const allowed: readonly string[] = [...COMMON_FIELDS, ...PROVIDER_FIELDS[type]];
  for (const key of Object.keys(scope.entry)) {
    if (allowed.includes(key)) continue;
    let suggestion: string | null;
    let advice: string;
    if (type === 'hostccloud' && key === 'clientID') {
      suggestion = 'clientKey';
      advice = '; hostccloud providers take "clientKey" in place of "clientID"';
    } else if (key === 'clientKey' && PROVIDER_FIELDS[type].includes('clientID')) {
      suggestion = 'clientID';
      advice = `; ${type} providers take "clientID" ("clientKey" is for hostccloud only)`;
    } else {
      suggestion = nearest(key, allowed);
      const others = otherTypesWithField(type, key);
      advice =
        suggestion !== null
          ? `; did you mean "${suggestion}"?`
          : others.length > 0
            ? `; "${key}" is a field of ${others.join(', ')} providers only`
            : `; ${type} providers accept ${allowed.map((f) => `"${f}"`).join(', ')}`;
    }
    report(
      scope.ctx,
      at(scope, key),
      { code: 'unknown_field', field: key, suggestion },
      `${scope.label} has unknown field ${JSON.stringify(key)}${advice}${advice.endsWith('?') ? '' : '.'}`,
    );
  }
}

const CLIENT_HINT = ' (the OAuth client identifier)';
const SECRET_HINT = ' (the OAuth client secret)';

/** The fields every provider type has, read before the type's own fields so that their problems are always reported. */
interface CommonFields {
  readonly displayName?: string;
  readonly allowSignup: boolean;
}

function readCommonFields(scope: EntryScope, type: ProviderType): CommonFields {
  return {
    ...optional('displayName', readString(scope, 'displayName', { required: false, allowEmpty: false })),
    allowSignup: readBoolean(scope, 'allowSignup') ?? DEFAULT_ALLOW_SIGNUP[type],
  };
}

function readConfigId(scope: EntryScope): { readonly configID?: string } {
  return optional('configID', readString(scope, 'configID', { required: false, allowEmpty: false }));
}

function readSecretPair(scope: EntryScope, idField: 'clientID' | 'clientKey'): { id: string; secret: string } | null {
  const id = readString(scope, idField, {
    required: true,
    allowEmpty: false,
    hint: idField === 'clientKey' ? ' (the OAuth consumer key)' : CLIENT_HINT,
  });
  const secret = readString(scope, 'clientSecret', { required: true, allowEmpty: false, hint: SECRET_HINT });
  return id === undefined || secret === undefined ? null : { id, secret };
}

function readHostaProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: false, allowEmpty: true, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const allowOrgs = readList(scope, 'allowOrgs');
  const allowOrgsMap = readListMap(scope, 'allowOrgsMap');
  const requiredSsoOrgs = readList(scope, 'requiredSsoOrgs');
  if (requiredSsoOrgs !== undefined && !validRequiredSsoOrgs(requiredSsoOrgs)) {
    report(
      scope.ctx,
      at(scope, 'requiredSsoOrgs'),
      { code: 'invalid_required_sso_orgs', value: requiredSsoOrgs },
      `${formatPath(at(scope, 'requiredSsoOrgs'))} must list numeric organisation IDs as strings (such as ["1234"]) or be exactly ["all"].`,
    );
  }
  if (pair === null) return null;
  return {
    type: 'hosta',
    ...common,
    url: url ?? '',
    clientID: pair.id,
    clientSecret: pair.secret,
    ...optional('allowOrgs', allowOrgs),
    ...optional('allowOrgsMap', allowOrgsMap),
    ...optional('requiredSsoOrgs', requiredSsoOrgs),
  };
}

function readHostbProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const apiScope = readString(scope, 'apiScope', { required: false, allowEmpty: false });
  if (apiScope !== undefined && !SCOPE_TOKEN.test(apiScope)) {
    report(
      scope.ctx,
      at(scope, 'apiScope'),
      { code: 'invalid_api_scope', value: apiScope },
      `${formatPath(at(scope, 'apiScope'))} must be a single OAuth scope such as "api" or "read_api", without spaces or quotes.`,
    );
  }
  const allowGroups = readList(scope, 'allowGroups');
  (allowGroups ?? []).forEach((group, index) => {
    if (validGroupPath(group)) return;
    const segments = [...at(scope, 'allowGroups'), index];
    report(
      scope.ctx,
      segments,
      { code: 'invalid_group_path', value: group },
      `${formatPath(segments)} (${JSON.stringify(group)}) is not a full group path: write it as in the group's URL, such as "group/subgroup", with no leading, trailing or doubled "/".`,
    );
  });
  const ssoURL = readUrl(scope, 'ssoURL', { required: false, allowEmpty: false, allowQuery: true });
  if (ssoURL !== undefined && !hasToken(ssoURL)) {
    report(
      scope.ctx,
      at(scope, 'ssoURL'),
      { code: 'sso_url_missing_token', value: ssoURL },
      `${formatPath(at(scope, 'ssoURL'))} must contain the group's SSO token as a query parameter, such as https://hostb.example.com/groups/acme/-/saml/sso?token=…`,
    );
  }
  const sync = readBoolean(scope, 'syncInternalRepoPermissions');
  if (url === undefined || pair === null) return null;
  return {
    type: 'hostb',
    ...common,
    url,
    clientID: pair.id,
    clientSecret: pair.secret,
    apiScope: apiScope ?? DEFAULT_HOSTB_API_SCOPE,
    ...optional('allowGroups', allowGroups),
    ...optional('ssoURL', ssoURL),
    ...optional('syncInternalRepoPermissions', sync),
  };
}

function readHostccloudProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: false, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientKey');
  if (pair === null) return null;
  return {
    type: 'hostccloud',
    ...common,
    ...optional('url', url),
    clientKey: pair.id,
    clientSecret: pair.secret,
  };
}

function readHostcserverProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  if (url === undefined || pair === null) return null;
  return {
    type: 'hostcserver',
    ...common,
    url,
    clientID: pair.id,
    clientSecret: pair.secret,
  };
}

function readReviewhostProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const url = readUrl(scope, 'url', { required: true, allowEmpty: false, allowQuery: false });
  if (common.allowSignup) {
    report(
      scope.ctx,
      at(scope, 'allowSignup'),
      { code: 'signup_not_supported', type: 'reviewhost' },
      `${formatPath(at(scope, 'allowSignup'))} must be false or absent: a reviewhost provider only adds credentials to existing accounts.`,
    );
  }
  if (url === undefined) return null;
  return { type: 'reviewhost', ...common, url };
}

function readOpenIdConnectProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const issuer = readUrl(scope, 'issuer', { required: true, allowEmpty: false, allowQuery: false });
  const pair = readSecretPair(scope, 'clientID');
  const configID = readConfigId(scope);
  const domain = readString(scope, 'requireEmailDomain', { required: false, allowEmpty: false });
  if (domain !== undefined && !validEmailDomain(domain)) {
    report(
      scope.ctx,
      at(scope, 'requireEmailDomain'),
      { code: 'invalid_email_domain', value: domain },
      `${formatPath(at(scope, 'requireEmailDomain'))} must be a bare domain such as "example.com" (no "@", scheme, path or port), but it is ${JSON.stringify(domain)}.`,
    );
  }
  if (issuer === undefined || pair === null) return null;
  return {
    type: 'openidconnect',
    ...common,
    issuer,
    clientID: pair.id,
    clientSecret: pair.secret,
    ...configID,
    ...optional('requireEmailDomain', domain),
  };
}

function readHeaderName(scope: EntryScope, key: 'usernameHeader' | 'emailHeader'): string | undefined {
  const value = readString(scope, key, { required: false, allowEmpty: false });
  if (value === undefined || HEADER_TOKEN.test(value)) return value;
  report(
    scope.ctx,
    at(scope, key),
    { code: 'invalid_header_name', value },
    `${formatPath(at(scope, key))} must be an HTTP header name such as "X-Forwarded-User", but it is ${JSON.stringify(value)}.`,
  );
  return undefined;
}

function readHttpHeaderProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const before = scope.ctx.problems.length;
  const usernameHeader = readHeaderName(scope, 'usernameHeader');
  const emailHeader = readHeaderName(scope, 'emailHeader');
  const prefix = readString(scope, 'stripUsernameHeaderPrefix', { required: false, allowEmpty: true });
  if (ownField(scope.entry, 'usernameHeader') === undefined && ownField(scope.entry, 'emailHeader') === undefined) {
    report(
      scope.ctx,
      scope.segments,
      { code: 'missing_field', fields: ['usernameHeader', 'emailHeader'] },
      `${scope.label} needs "emailHeader", "usernameHeader" or both: the names of the headers in which the proxy passes the signed-in person.`,
    );
  }
  if (scope.ctx.problems.length !== before) return null;
  if (emailHeader === undefined) {
    scope.ctx.warnings.push({
      code: 'username_only_matching',
      path: formatPath(scope.segments),
      segments: scope.segments,
      message: `${scope.label} has no "emailHeader", so people are matched by username only; usernames are mutable and a renamed user could take over another account, so have the proxy pass the email too.`,
    });
  }
  return {
    type: 'http-header',
    ...common,
    ...optional('usernameHeader', usernameHeader),
    ...optional('emailHeader', emailHeader),
    ...optional('stripUsernameHeaderPrefix', prefix),
  };
}

function readSamlProvider(scope: EntryScope, common: CommonFields): AuthProvider | null {
  const configID = readConfigId(scope);
  const entryPoint = readUrl(scope, 'entryPoint', { required: true, allowEmpty: false, allowQuery: true });
  const idpCertificate = readString(scope, 'idpCertificate', {
    required: true,
    allowEmpty: false,
    hint: " (the identity provider's signing certificate)",
  });
  const issuer = readString(scope, 'serviceProviderIssuer', { required: false, allowEmpty: false });
  if (entryPoint === undefined || idpCertificate === undefined) return null;
  return {
    type: 'saml',
    ...common,
    ...configID,
    entryPoint,
    idpCertificate,
    ...optional('serviceProviderIssuer', issuer),
  };
}

function readType(ctx: Context, entry: JsonObject, segments: Segments): ProviderType | null {
  const value = ownField(entry, 'type');
  const path = formatPath(segments);
  if (value === undefined) {
    report(
      ctx,
      [...segments, 'type'],
      { code: 'missing_field', fields: ['type'] },
      `${path} has no "type"; use one of ${PROVIDER_TYPES.join(', ')}.`,
    );
    return null;
  }
  if (typeof value !== 'string') {
    wrongType(ctx, [...segments, 'type'], 'string', value, `${path}.type`);
    return null;
  }
  if (isProviderType(value)) return value;
  const suggestion = nearest(value, PROVIDER_TYPES);
  report(
    ctx,
    [...segments, 'type'],
    { code: 'unknown_provider_type', type: value, suggestion },
    suggestion === null
      ? `${path}.type ${JSON.stringify(value)} is not a provider type; use one of ${PROVIDER_TYPES.join(', ')}.`
      : `${path}.type ${JSON.stringify(value)} is not a provider type; did you mean "${suggestion}"?`,
  );
  return null;
}

function readProvider(ctx: Context, value: unknown, segments: Segments, externalURL: unknown): AuthProvider | null {
  const path = formatPath(segments);
  if (!isRecord(value)) {
    wrongType(ctx, segments, 'object', value, `${path} (a provider entry)`);
    return null;
  }
  const type = readType(ctx, value, segments);
  if (type === null) return null;
  const before = ctx.problems.length;
  const scope: EntryScope = { ctx, entry: value, segments, label: `${path} (${type})` };
  checkUnknownFields(scope, type);
  const common = readCommonFields(scope, type);
  const provider = match(type)
    .returnType<AuthProvider | null>()
    .with('builtin', () => ({ type: 'builtin', ...common }))
    .with('hosta', () => readHostaProvider(scope, common))
    .with('hostb', () => readHostbProvider(scope, common))
    .with('hostccloud', () => readHostccloudProvider(scope, common))
    .with('hostcserver', () => readHostcserverProvider(scope, common))
    .with('reviewhost', () => readReviewhostProvider(scope, common))
    .with('openidconnect', () => readOpenIdConnectProvider(scope, common))
    .with('http-header', () => readHttpHeaderProvider(scope, common))
    .with('saml', () => readSamlProvider(scope, common))
    .exhaustive();
  if ((type === 'openidconnect' || type === 'saml') && externalURL === undefined) {
    report(
      ctx,
      segments,
      { code: 'external_url_required', type },
      `${scope.label} needs the top-level "externalURL" (the public address of this instance) to derive its callback address; set it, such as "externalURL": "https://search.example.com".`,
    );
  }
  return ctx.problems.length === before ? provider : null;
}

function comparableOrRaw(url: string): string {
  return parseHttpUrl(url).match(comparableUrl, () => url);
}

/** The identity of a provider for duplicate detection: type, URL and client (spec: "same type, URL and client"). */
function providerIdentity(provider: AuthProvider): string {
  const parts = match(provider)
    .returnType<readonly string[]>()
    .with({ type: 'builtin' }, () => [])
    .with({ type: 'hosta' }, (p) => [comparableOrRaw(p.url), p.clientID])
    .with({ type: 'hostb' }, (p) => [comparableOrRaw(p.url), p.clientID])
    .with({ type: 'hostccloud' }, (p) => [comparableOrRaw(p.url ?? ''), p.clientKey])
    .with({ type: 'hostcserver' }, (p) => [comparableOrRaw(p.url), p.clientID])
    .with({ type: 'reviewhost' }, (p) => [comparableOrRaw(p.url)])
    .with({ type: 'openidconnect' }, (p) => [comparableOrRaw(p.issuer), p.clientID])
    .with({ type: 'http-header' }, () => [])
    .with({ type: 'saml' }, (p) => [comparableOrRaw(p.entryPoint), p.serviceProviderIssuer ?? ''])
    .exhaustive();
  return JSON.stringify([provider.type, ...parts]);
}

function checkDuplicates(ctx: Context, providers: readonly (readonly [number, AuthProvider])[]): void {
  const identities = new Map<string, number>();
  const configIds = new Map<string, number>();
  for (const [index, provider] of providers) {
    const segments: Segments = ['auth.providers', index];
    const path = formatPath(segments);
    const identity = providerIdentity(provider);
    const first = identities.get(identity);
    if (first === undefined) identities.set(identity, index);
    else {
      report(
        ctx,
        segments,
        { code: 'duplicate_provider', duplicateOf: first },
        `${path} (${provider.type}) has the same type, URL and client as auth.providers[${String(first)}]; remove one of them.`,
      );
    }
    const configID = provider.type === 'openidconnect' || provider.type === 'saml' ? provider.configID : undefined;
    if (configID === undefined) continue;
    const firstConfig = configIds.get(configID);
    if (firstConfig === undefined) configIds.set(configID, index);
    else {
      report(
        ctx,
        [...segments, 'configID'],
        { code: 'duplicate_config_id', configID, duplicateOf: firstConfig },
        `${path}.configID ${JSON.stringify(configID)} is already used by auth.providers[${String(firstConfig)}]; give each provider its own configID.`,
      );
    }
  }
}

/** Reads `auth.providers`: each entry by its type, then duplicates across entries. */
export function readProviders(ctx: Context, value: unknown, externalURL: unknown): readonly AuthProvider[] {
  if (value === undefined) return [];
  const segments: Segments = ['auth.providers'];
  if (!Array.isArray(value)) {
    wrongType(ctx, segments, 'array', value, 'auth.providers (a list of provider entries)');
    return [];
  }
  const entries: unknown[] = value;
  const parsed: (readonly [number, AuthProvider])[] = [];
  entries.forEach((entry, index) => {
    const provider = readProvider(ctx, entry, [...segments, index], externalURL);
    if (provider !== null) parsed.push([index, provider]);
  });
  checkDuplicates(ctx, parsed);
  // Each entry is frozen and marked, so the decisions recognise it and read it once (parse once).
  return parsed.map(([, provider]) => markParsed('provider', provider));
}
