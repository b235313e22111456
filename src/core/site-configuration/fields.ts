/**
 * Field readers of the site configuration: strings, booleans, lists, URLs and the value rules of spec §2.5.
 *
 * @internal
 *
 * @module
 */
import { isRecord, ownField } from '../internal/guard.js';
import type { ProviderSignInFields } from '../sign-in-offer.js';
import { article, type Context, formatPath, type JsonObject, jsonType, report, type Segments } from './problems.js';
import type { InvalidUrlReason, JsonPathSegment, JsonTypeName } from './types.js';
import { parseHttpUrl } from './url.js';

// ---------------------------------------------------------------------------------------------------------------
// Field readers

/** One provider entry being read: where it is, its type and the problems collected so far. */
export interface EntryScope {
  readonly ctx: Context;
  readonly entry: JsonObject;
  readonly segments: Segments;
  /** How the entry is named in messages, e.g. `auth.providers[0] (hosta)`. */
  readonly label: string;
}

/** The path of a field of the entry in `scope`. */
export function at(scope: EntryScope, key: JsonPathSegment): Segments {
  return [...scope.segments, key];
}

/** Reports a value of the wrong JSON type. */
export function wrongType(ctx: Context, segments: Segments, expected: JsonTypeName, value: unknown, what: string): void {
  const actual = jsonType(value);
  report(ctx, segments, { code: 'wrong_type', expected, actual }, `${what} must be ${article(expected)}, but it is ${article(actual)}.`);
}

/** Reports a required field the entry leaves out. */
export function missing(scope: EntryScope, field: string, hint: string): void {
  report(
    scope.ctx,
    at(scope, field),
    { code: 'missing_field', fields: [field] },
    `${scope.label} is missing the required field "${field}"${hint}.`,
  );
}

interface StringRule {
  readonly required: boolean;
  readonly allowEmpty: boolean;
  readonly hint?: string;
}

/** Reads a string field of an entry by its rule (required, non-empty, pattern); reports and gives `undefined` when it is bad. */
export function readString(scope: EntryScope, key: string, rule: StringRule): string | undefined {
  const value = ownField(scope.entry, key);
  const path = formatPath(at(scope, key));
  if (value === undefined) {
    if (rule.required) missing(scope, key, rule.hint ?? '');
    return undefined;
  }
  if (typeof value !== 'string') {
    wrongType(scope.ctx, at(scope, key), 'string', value, path);
    return undefined;
  }
  if (value === '' && !rule.allowEmpty) {
    report(scope.ctx, at(scope, key), { code: 'empty_value' }, `${path} must not be empty${rule.hint ?? ''}.`);
    return undefined;
  }
  return value;
}

/** Reads an optional boolean field of an entry; reports and gives `undefined` when it is bad. */
export function readBoolean(scope: EntryScope, key: string): boolean | undefined {
  const value = ownField(scope.entry, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    wrongType(scope.ctx, at(scope, key), 'boolean', value, formatPath(at(scope, key)));
    return undefined;
  }
  return value;
}

function readStringList(ctx: Context, value: unknown, segments: Segments): readonly string[] | undefined {
  const path = formatPath(segments);
  if (!Array.isArray(value)) {
    wrongType(ctx, segments, 'array', value, `${path} (a list of strings)`);
    return undefined;
  }
  const items: unknown[] = value;
  const before = ctx.problems.length;
  const out: string[] = [];
  items.forEach((item, index) => {
    const itemSegments = [...segments, index];
    if (typeof item !== 'string') wrongType(ctx, itemSegments, 'string', item, formatPath(itemSegments));
    else if (item === '') report(ctx, itemSegments, { code: 'empty_value' }, `${formatPath(itemSegments)} must not be empty.`);
    else out.push(item);
  });
  return ctx.problems.length === before ? out : undefined;
}

/** Reads an optional list of non-empty strings of an entry. */
export function readList(scope: EntryScope, key: string): readonly string[] | undefined {
  const value = ownField(scope.entry, key);
  return value === undefined ? undefined : readStringList(scope.ctx, value, at(scope, key));
}

/** Reads an optional object whose values are lists of non-empty strings (`allowOrgsMap`). */
export function readListMap(scope: EntryScope, key: string): Readonly<Record<string, readonly string[]>> | undefined {
  const value = ownField(scope.entry, key);
  if (value === undefined) return undefined;
  const segments = at(scope, key);
  if (!isRecord(value)) {
    wrongType(scope.ctx, segments, 'object', value, `${formatPath(segments)} (org name → list of team names)`);
    return undefined;
  }
  const before = scope.ctx.problems.length;
  const entries: [string, readonly string[]][] = [];
  for (const name of Object.keys(value)) {
    const nameSegments = [...segments, name];
    if (name === '') {
      report(scope.ctx, nameSegments, { code: 'empty_value' }, `${formatPath(segments)} has an empty org name as a key.`);
      continue;
    }
    const teams = readStringList(scope.ctx, ownField(value, name), nameSegments);
    if (teams !== undefined) entries.push([name, teams]);
  }
  return scope.ctx.problems.length === before ? Object.fromEntries(entries) : undefined;
}

const URL_REASONS: Readonly<Record<InvalidUrlReason, string>> = {
  not_absolute: 'it must be an absolute URL such as https://host.example.com',
  unsupported_scheme: 'only http:// and https:// URLs are allowed',
  missing_host: 'it has no host name',
  invalid_host: 'its host name is not valid',
  invalid_port: 'its port is not a number from 1 to 65535',
  has_credentials: 'it must not contain a user name or password',
  invalid_character: 'it contains spaces, control characters, backslashes or non-ASCII characters',
  has_query_or_fragment: 'it must not have a query (?…) or fragment (#…)',
};

interface UrlRule {
  readonly required: boolean;
  /** Whether the empty string is accepted (hosta: the public hosted edition). */
  readonly allowEmpty: boolean;
  readonly allowQuery: boolean;
}

function invalidUrl(ctx: Context, segments: Segments, value: string, reason: InvalidUrlReason): void {
  report(
    ctx,
    segments,
    { code: 'invalid_url', value, reason },
    `${formatPath(segments)} is not a valid URL (${JSON.stringify(value)}): ${URL_REASONS[reason]}.`,
  );
}

/** Whether `value` is an absolute `http`/`https` URL with a host (and no query unless allowed); reports otherwise. */
export function checkUrl(ctx: Context, segments: Segments, value: string, allowQuery: boolean): boolean {
  return parseHttpUrl(value).match(
    (url) => {
      if (!allowQuery && (url.query !== null || url.fragment !== null)) {
        invalidUrl(ctx, segments, value, 'has_query_or_fragment');
        return false;
      }
      return true;
    },
    (reason) => {
      invalidUrl(ctx, segments, value, reason);
      return false;
    },
  );
}

/** Reads a URL field of an entry by its rule. */
export function readUrl(scope: EntryScope, key: string, rule: UrlRule): string | undefined {
  const value = readString(scope, key, { required: rule.required, allowEmpty: true });
  if (value === undefined) return undefined;
  if (value === '' && rule.allowEmpty) return value;
  return checkUrl(scope.ctx, at(scope, key), value, rule.allowQuery) ? value : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Value rules of §2.5

const NUMERIC_ID = /^[0-9]+$/;
const GROUP_SEGMENT = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** An HTTP header name (RFC 9110 §5.1 token). */
export const HEADER_TOKEN: RegExp = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** One OAuth scope token (RFC 6749 §3.3). */
export const SCOPE_TOKEN: RegExp = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** `requiredSsoOrgs` is all numeric ids or exactly `["all"]` (spec §5.3 hosta rule 7). */
export function validRequiredSsoOrgs(orgs: readonly string[]): boolean {
  if (orgs.length === 1 && orgs[0] === 'all') return true;
  return orgs.every((org) => NUMERIC_ID.test(org));
}

/** A full group path such as `group/subgroup` (spec §5.3 hostb rule 4). */
export function validGroupPath(path: string): boolean {
  const parts = path.split('/');
  return parts.every((part) => GROUP_SEGMENT.test(part));
}

/** A bare domain such as `example.com` (spec §5.3 openidconnect rule 5). */
export function validEmailDomain(domain: string): boolean {
  return domain.length <= 253 && domain.split('.').every((label) => DOMAIN_LABEL.test(label));
}

/** Whether a URL has a non-empty `token` query parameter (spec §5.3 hostb rule 6). */
export function hasToken(url: string): boolean {
  return parseHttpUrl(url).match(
    (parsed) =>
      (parsed.query ?? '')
        .split('&')
        .some((pair) => pair.startsWith('token=') && pair.length > 'token='.length),
    () => false,
  );
}

/** `{ [key]: value }`, or `{}` when `value` is `undefined` (exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  if (value === undefined) return {};
  const single: { [P in K]?: V } = {};
  single[key] = value;
  return single;
}

/** The hint for a missing OAuth client identifier. */
export const CLIENT_HINT = ' (the OAuth client identifier)';

/** The hint for a missing OAuth client secret. */
export const SECRET_HINT = ' (the OAuth client secret)';

/** The fields every provider type has, read before the type's own fields so that their problems are always reported. */
export interface CommonFields extends ProviderSignInFields {
  readonly displayName?: string;
  readonly allowSignup: boolean;
}

/** Reads the optional `configID` of an entry. */
export function readConfigId(scope: EntryScope): { readonly configID?: string } {
  return optional('configID', readString(scope, 'configID', { required: false, allowEmpty: false }));
}

/** Reads the OAuth client identifier (`clientID` or `clientKey`) and `clientSecret` of an entry; `null` when either is bad. */
export function readSecretPair(scope: EntryScope, idField: 'clientID' | 'clientKey'): { id: string; secret: string } | null {
  const id = readString(scope, idField, {
    required: true,
    allowEmpty: false,
    hint: idField === 'clientKey' ? ' (the OAuth consumer key)' : CLIENT_HINT,
  });
  const secret = readString(scope, 'clientSecret', { required: true, allowEmpty: false, hint: SECRET_HINT });
  return id === undefined || secret === undefined ? null : { id, secret };
}
