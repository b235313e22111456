/**
 * Parses the administrator's site configuration (JSONC): `externalURL`, `auth.providers`, `rateLimits` and `auth.public` (spec §2.5, §8).
 *
 * @module
 */
import { createScanner, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { err, ok, Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { PROVIDER_TYPES, type AuthProvider, type ProviderType } from './auth-providers.js';
import { ownField } from './internal/own-field.js';
import { isProviderType } from './internal/provider-facts.js';
import { comparableUrl, parseHttpUrl } from './internal/site-configuration-url.js';
import { DEFAULT_QUERY_LIMITS, queryLimitsFromRateLimits, type QueryLimits, type RateLimitsProblem } from './query-limits.js';

/**
 * One step of a JSON path: an object key or an array index.
 *
 * @example
 * ```ts
 * const segments: readonly JsonPathSegment[] = ['auth.providers', 2, 'clientKey'];
 * ```
 */
export type JsonPathSegment = string | number;

/**
 * Where a problem or warning is, and what a person should do about it.
 *
 * @example
 * ```ts
 * const where: SiteConfigurationLocation = {
 *   path: 'auth.providers[0].clientID',
 *   segments: ['auth.providers', 0, 'clientID'],
 *   message: 'auth.providers[0] (hosta) is missing the required field "clientID".',
 * };
 * ```
 */
export interface SiteConfigurationLocation {
  /** The JSON path, such as `auth.providers[2].clientKey`; the empty string for the whole document. */
  readonly path: string;
  /** The same path as a list of keys and indices (top-level keys such as `auth.providers` are one segment). */
  readonly segments: readonly JsonPathSegment[];
  /** A sentence a person can act on. Not a contract: match on `code`. */
  readonly message: string;
}

/**
 * The JSON type of a value, as reported by `wrong_type`.
 *
 * @example
 * ```ts
 * const t: JsonTypeName = 'array';
 * ```
 */
export type JsonTypeName = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/**
 * Why a URL field was rejected: not `scheme://host…` (`not_absolute`), not http/https, no host, a malformed host or
 * port, a user name or password in it, a space, control, backslash or non-ASCII character, or (for `externalURL` and
 * `issuer`, which must have neither) a query or fragment.
 *
 * @example
 * ```ts
 * const reason: InvalidUrlReason = 'unsupported_scheme';
 * ```
 */
export type InvalidUrlReason =
  | 'not_absolute'
  | 'unsupported_scheme'
  | 'missing_host'
  | 'invalid_host'
  | 'invalid_port'
  | 'has_credentials'
  | 'invalid_character'
  | 'has_query_or_fragment';

/**
 * One thing wrong with the site configuration. Every member carries a {@link SiteConfigurationLocation}.
 *
 * @example
 * ```ts
 * const problem: SiteConfigurationProblem = {
 *   code: 'unknown_field', field: 'allowSingup', suggestion: 'allowSignup',
 *   path: 'auth.providers[0].allowSingup', segments: ['auth.providers', 0, 'allowSingup'],
 *   message: 'auth.providers[0] (hosta) has unknown field "allowSingup"; did you mean "allowSignup"?',
 * };
 * ```
 */
export type SiteConfigurationProblem = SiteConfigurationLocation &
  (
    /** The text is not JSONC; `line` and `column` are 1-based (columns count UTF-16 code units); `error` is jsonc-parser's name. */
    | { readonly code: 'syntax_error'; readonly error: string; readonly line: number; readonly column: number }
    /** Arrays and objects are nested deeper than {@link MAX_SITE_CONFIGURATION_DEPTH}. */
    | { readonly code: 'too_deeply_nested'; readonly line: number; readonly column: number; readonly maxDepth: number }
    /** A key appears twice in one object that gatehouse reads (JSON parsers disagree on which one wins). */
    | { readonly code: 'duplicate_key'; readonly key: string }
    /** A provider's `type` is not one of {@link PROVIDER_TYPES}; `suggestion` is the nearest type, if any is close. */
    | { readonly code: 'unknown_provider_type'; readonly type: string; readonly suggestion: string | null }
    /** A provider entry has a key that its type does not define; `suggestion` is the intended field, if guessable. */
    | { readonly code: 'unknown_field'; readonly field: string; readonly suggestion: string | null }
    /** A required field is absent; when `fields` has several names, at least one of them is required. */
    | { readonly code: 'missing_field'; readonly fields: readonly string[] }
    /** A value has the wrong JSON type. */
    | { readonly code: 'wrong_type'; readonly expected: JsonTypeName; readonly actual: JsonTypeName }
    /** A string that must say something is empty (a client ID, an org name, a display name …). */
    | { readonly code: 'empty_value' }
    /** A URL field is not an absolute `http`/`https` URL with a host (or has a query where none is allowed). */
    | { readonly code: 'invalid_url'; readonly value: string; readonly reason: InvalidUrlReason }
    /** `requiredSsoOrgs` is neither all numeric strings nor exactly `["all"]` (spec §2.5, §5.3 hosta rule 7). */
    | { readonly code: 'invalid_required_sso_orgs'; readonly value: readonly string[] }
    /** An `allowGroups` entry is not a full group path such as `group/subgroup` (spec §2.5, §5.3 hostb rule 4). */
    | { readonly code: 'invalid_group_path'; readonly value: string }
    /** `ssoURL` has no non-empty `token` query parameter (spec §2.5, §5.3 hostb rule 6). */
    | { readonly code: 'sso_url_missing_token'; readonly value: string }
    /** `requireEmailDomain` is not a bare domain such as `example.com` (spec §5.3 openidconnect rule 5). */
    | { readonly code: 'invalid_email_domain'; readonly value: string }
    /** `usernameHeader` or `emailHeader` is not a valid HTTP header name (RFC 9110 token). */
    | { readonly code: 'invalid_header_name'; readonly value: string }
    /** `apiScope` is not a single OAuth scope token (RFC 6749 §3.3). */
    | { readonly code: 'invalid_api_scope'; readonly value: string }
    /** `allowSignup: true` on a `reviewhost` provider, which only adds credentials to existing accounts. */
    | { readonly code: 'signup_not_supported'; readonly type: 'reviewhost' }
    /** A provider has the same type, URL and client as an earlier one (index `duplicateOf`). */
    | { readonly code: 'duplicate_provider'; readonly duplicateOf: number }
    /** A provider has the same `configID` as an earlier one (index `duplicateOf`). */
    | { readonly code: 'duplicate_config_id'; readonly configID: string; readonly duplicateOf: number }
    /** An `openidconnect` or `saml` provider while `externalURL` is unset: its callback address cannot be derived. */
    | { readonly code: 'external_url_required'; readonly type: 'openidconnect' | 'saml' }
    /** A problem inside `rateLimits` (spec §8), as reported by `queryLimitsFromRateLimits`. */
    | { readonly code: 'invalid_rate_limit'; readonly reason: RateLimitsProblem['code'] }
  );

/**
 * Why the site configuration was rejected: every problem found, grouped in this order: syntax (alone, when the
 * text is not JSONC), duplicate keys, `externalURL`, `auth.providers` (entry by entry), `rateLimits`.
 *
 * @example
 * ```ts
 * const e: SiteConfigurationError = { code: 'invalid_site_configuration', problems: [] };
 * ```
 */
export interface SiteConfigurationError {
  /** Always `invalid_site_configuration`. */
  readonly code: 'invalid_site_configuration';
  /** Every problem found; never empty when returned by {@link parseSiteConfiguration}. */
  readonly problems: readonly SiteConfigurationProblem[];
}

/**
 * Something allowed but discouraged.
 *
 * @example
 * ```ts
 * const w: SiteConfigurationWarning = {
 *   code: 'username_only_matching', path: 'auth.providers[1]', segments: ['auth.providers', 1],
 *   message: 'auth.providers[1] (http-header) has no "emailHeader", so people are matched by username only …',
 * };
 * ```
 */
export type SiteConfigurationWarning = SiteConfigurationLocation &
  /** An `http-header` provider without `emailHeader`: accounts are matched by (mutable) username only (§5.3 http-header rule 3). */
  { readonly code: 'username_only_matching' };

/**
 * The parsed site configuration, every default applied.
 *
 * @example
 * ```ts
 * const config: SiteConfiguration = {
 *   externalURL: 'https://search.example.com',
 *   authProviders: [{ type: 'builtin', allowSignup: false }],
 *   queryLimits: DEFAULT_QUERY_LIMITS,
 *   authPublic: false,
 *   warnings: [],
 * };
 * ```
 */
export interface SiteConfiguration {
  /** The public address of the instance, exactly as written; absent when unset. */
  readonly externalURL?: string;
  /** The entries of `auth.providers` in order, defaults applied; `[]` when `auth.providers` is absent. */
  readonly authProviders: readonly AuthProvider[];
  /** The limits read from `rateLimits` (spec §8); the defaults when `rateLimits` is absent. */
  readonly queryLimits: QueryLimits;
  /**
   * `auth.public`: whether anonymous requests may use `search`. Default `false`: `search` needs a signed-in viewer
   * (an access token, an OAuth token or a session).
   */
  readonly authPublic: boolean;
  /** Discouraged but allowed settings. */
  readonly warnings: readonly SiteConfigurationWarning[];
}

/**
 * The deepest nesting of arrays and objects accepted in the site configuration text. Real configurations nest a
 * few levels; the limit keeps parsing total (no stack overflow) on hostile input.
 *
 * @example
 * ```ts
 * MAX_SITE_CONFIGURATION_DEPTH; // 256
 * ```
 */
export const MAX_SITE_CONFIGURATION_DEPTH = 256;

/**
 * The value of `allowSignup` for each provider type when the entry leaves it unset (spec §5.3).
 *
 * @example
 * ```ts
 * DEFAULT_ALLOW_SIGNUP.hosta; // false
 * DEFAULT_ALLOW_SIGNUP.hostb; // true
 * ```
 */
export const DEFAULT_ALLOW_SIGNUP: Readonly<Record<ProviderType, boolean>> = Object.freeze({
  builtin: false,
  hosta: false,
  hostb: true,
  hostccloud: true,
  hostcserver: false,
  reviewhost: false,
  openidconnect: true,
  'http-header': true,
  saml: true,
});

/**
 * The value of `apiScope` for a `hostb` provider that leaves it unset (spec §5.3 hostb rule 2).
 *
 * @example
 * ```ts
 * DEFAULT_HOSTB_API_SCOPE; // 'api'
 * ```
 */
export const DEFAULT_HOSTB_API_SCOPE = 'api';

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
export const PROVIDER_FIELDS: Readonly<Record<ProviderType, readonly string[]>> = Object.freeze({
  builtin: [],
  hosta: ['url', 'clientID', 'clientSecret', 'allowOrgs', 'allowOrgsMap', 'requiredSsoOrgs'],
  hostb: ['url', 'clientID', 'clientSecret', 'apiScope', 'allowGroups', 'ssoURL', 'syncInternalRepoPermissions'],
  hostccloud: ['url', 'clientKey', 'clientSecret'],
  hostcserver: ['url', 'clientID', 'clientSecret'],
  reviewhost: ['url'],
  openidconnect: ['issuer', 'clientID', 'clientSecret', 'configID', 'requireEmailDomain'],
  'http-header': ['usernameHeader', 'emailHeader', 'stripUsernameHeaderPrefix'],
  saml: ['configID', 'entryPoint', 'idpCertificate', 'serviceProviderIssuer'],
});

type Segments = readonly JsonPathSegment[];
type JsonObject = Readonly<Record<string, unknown>>;
type ProblemBody = SiteConfigurationProblem extends infer T
  ? T extends SiteConfigurationProblem
    ? Omit<T, keyof SiteConfigurationLocation>
    : never
  : never;

interface Context {
  readonly problems: SiteConfigurationProblem[];
  readonly warnings: SiteConfigurationWarning[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const TOP_LEVEL_KEY = /^[A-Za-z_$][\w$.]*$/;

function formatPath(segments: Segments): string {
  let out = '';
  segments.forEach((segment, index) => {
    if (typeof segment === 'number') out += `[${String(segment)}]`;
    else if (index === 0 && TOP_LEVEL_KEY.test(segment)) out += segment;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  });
  return out;
}

function report(ctx: Context, segments: Segments, body: ProblemBody, message: string): void {
  ctx.problems.push({ ...body, path: formatPath(segments), segments, message });
}

function jsonType(value: unknown): JsonTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return match(typeof value)
    .returnType<JsonTypeName>()
    .with('string', () => 'string')
    .with('number', 'bigint', () => 'number')
    .with('boolean', () => 'boolean')
    .with('object', 'function', 'symbol', 'undefined', () => 'object')
    .exhaustive();
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function article(type: JsonTypeName): string {
  return match(type)
    .returnType<string>()
    .with('array', 'object', () => `an ${type}`)
    .with('null', () => 'null')
    .with('string', 'number', 'boolean', () => `a ${type}`)
    .exhaustive();
}

// ---------------------------------------------------------------------------------------------------------------
// Did-you-mean

function editDistance(a: string, b: string): number {
  // Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions cost 1.
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row: number[] = [];
    for (let j = 0; j <= b.length; j += 1) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const previous = rows[i - 1] ?? [];
      let best = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

function nearest(word: string, candidates: readonly string[]): string | null {
  if (word.length > 32) return null;
  const lower = word.toLowerCase();
  const threshold = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------------------
// JSONC text to plain values

interface DuplicateKey {
  readonly segments: Segments;
  readonly key: string;
}

type LineIndex = readonly number[];

function lineIndex(text: string): LineIndex {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) starts.push(i + 1);
  }
  return starts;
}

function lineAndColumn(lines: LineIndex, offset: number): { readonly line: number; readonly column: number } {
  // Binary search for the last line start at or before the offset. Lines and columns are 1-based.
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((lines[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (lines[low] ?? 0) + 1 };
}

function nestingProblem(text: string): SiteConfigurationProblem | null {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (;;) {
    const token: number = scanner.scan();
    if (token === 17) return null; // EOF
    if (token === 1 || token === 3) {
      depth += 1;
      if (depth > MAX_SITE_CONFIGURATION_DEPTH) {
        const where = lineAndColumn(lineIndex(text), scanner.getTokenOffset());
        return {
          code: 'too_deeply_nested',
          ...where,
          maxDepth: MAX_SITE_CONFIGURATION_DEPTH,
          path: '',
          segments: [],
          message: `The site configuration nests arrays and objects more than ${String(MAX_SITE_CONFIGURATION_DEPTH)} levels deep at line ${String(where.line)}, column ${String(where.column)}; flatten it.`,
        };
      }
    } else if (token === 2 || token === 4) {
      depth = Math.max(0, depth - 1);
    }
  }
}

const SYNTAX_HINTS: Readonly<Record<string, string>> = {
  InvalidSymbol: 'an unexpected character',
  InvalidNumberFormat: 'a malformed number',
  PropertyNameExpected: 'a missing property name (keys must be double-quoted strings)',
  ValueExpected: 'a missing value',
  ColonExpected: 'a missing colon after a property name',
  CommaExpected: 'a missing comma between two entries',
  CloseBraceExpected: 'a missing closing brace "}"',
  CloseBracketExpected: 'a missing closing bracket "]"',
  EndOfFileExpected: 'text after the end of the configuration object',
  InvalidCommentToken: 'a malformed comment',
  UnexpectedEndOfComment: 'a comment that is never closed',
  UnexpectedEndOfString: 'a string that is never closed',
  UnexpectedEndOfNumber: 'a number that ends too early',
  InvalidUnicode: 'a malformed \\u escape',
  InvalidEscapeCharacter: 'an invalid escape sequence in a string',
  InvalidCharacter: 'a control character inside a string',
};

function syntaxProblem(lines: LineIndex, error: ParseError): SiteConfigurationProblem {
  const name = printParseErrorCode(error.error);
  const where = lineAndColumn(lines, error.offset);
  const hint = SYNTAX_HINTS[name] ?? 'a syntax error';
  return {
    code: 'syntax_error',
    error: name,
    ...where,
    path: '',
    segments: [],
    message: `The site configuration is not valid JSONC: ${hint} at line ${String(where.line)}, column ${String(where.column)}.`,
  };
}

function toValue(node: JsonNode, segments: Segments, duplicates: DuplicateKey[]): unknown {
  return match(node.type)
    .returnType<unknown>()
    .with('object', () => {
      const entries: [string, unknown][] = [];
      const seen = new Set<string>();
      for (const property of node.children ?? []) {
        const keyNode = property.children?.[0];
        const valueNode = property.children?.[1];
        const key: unknown = keyNode?.value;
        if (typeof key !== 'string' || valueNode === undefined) continue;
        if (seen.has(key)) duplicates.push({ segments: [...segments, key], key });
        seen.add(key);
        entries.push([key, toValue(valueNode, [...segments, key], duplicates)]);
      }
      // Object.fromEntries defines own data properties, so a "__proto__" key stays an ordinary key.
      return Object.fromEntries(entries);
    })
    .with('array', () => (node.children ?? []).map((child, index) => toValue(child, [...segments, index], duplicates)))
    .with('string', 'number', 'boolean', () => {
      const value: unknown = node.value;
      return value;
    })
    .with('null', 'property', () => null)
    .exhaustive();
}

type Document = { readonly root: unknown; readonly duplicates: readonly DuplicateKey[] };

function readDocument(text: string): Result<Document, readonly SiteConfigurationProblem[]> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const tooDeep = nestingProblem(source);
  if (tooDeep !== null) return err([tooDeep]);
  const errors: ParseError[] = [];
  const tree = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  if (errors.length > 0 || tree === undefined) {
    const lines = lineIndex(source);
    const problems = errors.map((error) => syntaxProblem(lines, error));
    return err(problems.length > 0 ? problems : [syntaxProblem(lines, { error: 4, offset: 0, length: 0 })]);
  }
  const duplicates: DuplicateKey[] = [];
  return ok({ root: toValue(tree, [], duplicates), duplicates });
}

// ---------------------------------------------------------------------------------------------------------------
// Field readers

interface EntryScope {
  readonly ctx: Context;
  readonly entry: JsonObject;
  readonly segments: Segments;
  /** How the entry is named in messages, e.g. `auth.providers[0] (hosta)`. */
  readonly label: string;
}

function at(scope: EntryScope, key: JsonPathSegment): Segments {
  return [...scope.segments, key];
}

function wrongType(ctx: Context, segments: Segments, expected: JsonTypeName, value: unknown, what: string): void {
  const actual = jsonType(value);
  report(ctx, segments, { code: 'wrong_type', expected, actual }, `${what} must be ${article(expected)}, but it is ${article(actual)}.`);
}

function missing(scope: EntryScope, field: string, hint: string): void {
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

function readString(scope: EntryScope, key: string, rule: StringRule): string | undefined {
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

function readBoolean(scope: EntryScope, key: string): boolean | undefined {
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

function readList(scope: EntryScope, key: string): readonly string[] | undefined {
  const value = ownField(scope.entry, key);
  return value === undefined ? undefined : readStringList(scope.ctx, value, at(scope, key));
}

function readListMap(scope: EntryScope, key: string): Readonly<Record<string, readonly string[]>> | undefined {
  const value = ownField(scope.entry, key);
  if (value === undefined) return undefined;
  const segments = at(scope, key);
  if (!isObject(value)) {
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

function checkUrl(ctx: Context, segments: Segments, value: string, allowQuery: boolean): boolean {
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

function readUrl(scope: EntryScope, key: string, rule: UrlRule): string | undefined {
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
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function validRequiredSsoOrgs(orgs: readonly string[]): boolean {
  if (orgs.length === 1 && orgs[0] === 'all') return true;
  return orgs.every((org) => NUMERIC_ID.test(org));
}

function validGroupPath(path: string): boolean {
  const parts = path.split('/');
  return parts.every((part) => GROUP_SEGMENT.test(part));
}

function validEmailDomain(domain: string): boolean {
  return domain.length <= 253 && domain.split('.').every((label) => DOMAIN_LABEL.test(label));
}

function hasToken(url: string): boolean {
  return parseHttpUrl(url).match(
    (parsed) =>
      (parsed.query ?? '')
        .split('&')
        .some((pair) => pair.startsWith('token=') && pair.length > 'token='.length),
    () => false,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Providers

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
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
  if (!isObject(value)) {
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

function readProviders(ctx: Context, value: unknown, externalURL: unknown): readonly AuthProvider[] {
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
  return parsed.map(([, provider]) => provider);
}

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

const READ_TOP_LEVEL_KEYS: readonly string[] = ['externalURL', 'auth.providers', 'rateLimits', 'auth.public'];

function readConfiguration(text: string): Result<SiteConfiguration, SiteConfigurationError> {
  const document = readDocument(text);
  if (document.isErr()) return err({ code: 'invalid_site_configuration', problems: document.error });
  const { root, duplicates } = document.value;
  const ctx: Context = { problems: [], warnings: [] };
  if (!isObject(root)) {
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
  if (ctx.problems.length > 0) return err({ code: 'invalid_site_configuration', problems: ctx.problems });
  return ok({ ...optional('externalURL', externalURL), authProviders, queryLimits, authPublic, warnings: ctx.warnings });
}

const safeReadConfiguration = Result.fromThrowable(
  readConfiguration,
  (): SiteConfigurationError => ({
    code: 'invalid_site_configuration',
    problems: [
      {
        code: 'syntax_error',
        error: 'Unreadable',
        line: 1,
        column: 1,
        path: '',
        segments: [],
        message: 'The site configuration could not be read; check that it is a JSONC object.',
      },
    ],
  }),
);

/**
 * Parses the site configuration text (JSONC: comments and trailing commas allowed) into `externalURL`, the typed
 * `auth.providers` with every default applied, the query limits of `rateLimits`, `auth.public` (default `false`),
 * and warnings.
 *
 * Defaults: `allowSignup` is always a boolean afterwards ({@link DEFAULT_ALLOW_SIGNUP}: false for `builtin`, `hosta`,
 * `hostcserver`, `reviewhost`; true for the others); `apiScope` is `api` for `hostb`; a `hosta` without `url` gets
 * `''` (the public hosted edition). Lists such as `allowOrgs` are kept as written (absent stays absent, `[]` stays
 * `[]`). An absent `auth.providers` gives `[]`; an absent `rateLimits` gives the defaults of spec §8. Top-level keys
 * other than `externalURL`, `auth.providers`, `rateLimits` and `auth.public` are ignored (the site configuration holds many other
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
 * //      queryLimits: DEFAULT_QUERY_LIMITS, authPublic: false, warnings: [] })
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
