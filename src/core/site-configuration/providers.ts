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
  type CommonFields,
  type EntryScope,
  optional,
  readBoolean,
  readString,
  wrongType,
} from './fields.js';
import { type Context, formatPath, type JsonObject, nearest, report, type Segments } from './problems.js';
import { comparableUrl, parseHttpUrl } from './url.js';
import { readSignInFields, SIGN_IN_FIELDS } from './provider-sign-in.js';

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

const COMMON_FIELDS = ['type', 'displayName', 'allowSignup', ...SIGN_IN_FIELDS] as const;

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

function readCommonFields(scope: EntryScope, type: ProviderType): CommonFields {
  return {
    ...optional('displayName', readString(scope, 'displayName', { required: false, allowEmpty: false })),
    allowSignup: readBoolean(scope, 'allowSignup') ?? DEFAULT_ALLOW_SIGNUP[type],
    ...readSignInFields(scope),
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
  const provider = PROVIDER_SPECS[type].readEntry(scope, common);
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
