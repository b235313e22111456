/**
 * The account site options, with the names and defaults of the service the spec describes: `auth.accessTokens`,
 * `auth.sessionExpiry`, `auth.minPasswordLength`, `auth.passwordPolicy`, `auth.enableUsernameChanges`; and
 * gatehouse's own `auth.sessionIdleTimeout`.
 *
 * @module
 */
import {
  ACCESS_TOKEN_ALLOW_VALUES,
  type AccessTokenAllow,
  type AccessTokenOptions,
  DEFAULT_ACCESS_TOKEN_OPTIONS,
  MAX_EXPIRATION_OPTION_DAYS,
} from '../access-token-options.js';
import { MAX_ACCESS_TOKENS_PER_ACCOUNT } from '../access-token.js';
import { formatDuration, parseDuration } from '../duration.js';
import { isRecord, ownField } from '../internal/guard.js';
import { DEFAULT_PASSWORD_POLICY, DEFAULT_PASSWORD_RULE, LOWEST_MIN_PASSWORD_LENGTH, MAX_PASSWORD_BYTES, type PasswordPolicy, type PasswordRule } from '../password-policy.js';
import {
  DEFAULT_SESSION_LIFETIME_OPTIONS,
  MIN_SESSION_EXPIRY_MS,
  MIN_SESSION_IDLE_TIMEOUT_MS,
  type SessionLifetimeOptions,
} from '../session-lifetime.js';
import { DEFAULT_ENABLE_USERNAME_CHANGES } from '../username-change-option.js';
import { wrongType } from './fields.js';
import { type Context, formatPath, type JsonObject, nearest, report, type Segments } from './problems.js';

/**
 * The parsed account options, every default applied.
 *
 * @example
 * ```ts
 * const options: AccountOptions = { ...DEFAULT_ACCOUNT_OPTIONS, enableUsernameChanges: true };
 * ```
 */
export interface AccountOptions {
  /** `auth.accessTokens`. */
  readonly accessTokens: AccessTokenOptions;
  /** `auth.sessionExpiry` and `auth.sessionIdleTimeout`. */
  readonly sessionLifetime: SessionLifetimeOptions;
  /** `auth.minPasswordLength` and `auth.passwordPolicy`. */
  readonly passwordRule: PasswordRule;
  /** `auth.enableUsernameChanges`. */
  readonly enableUsernameChanges: boolean;
}

/**
 * The account options of a configuration that sets none of them.
 *
 * @example
 * ```ts
 * DEFAULT_ACCOUNT_OPTIONS.accessTokens.allow; // 'all-users-create'
 * ```
 */
export const DEFAULT_ACCOUNT_OPTIONS: AccountOptions = Object.freeze({
  accessTokens: DEFAULT_ACCESS_TOKEN_OPTIONS,
  sessionLifetime: DEFAULT_SESSION_LIFETIME_OPTIONS,
  passwordRule: DEFAULT_PASSWORD_RULE,
  enableUsernameChanges: DEFAULT_ENABLE_USERNAME_CHANGES,
});

/**
 * The top-level keys read here.
 *
 * @example
 * ```ts
 * ACCOUNT_OPTION_KEYS.includes('auth.sessionExpiry'); // true
 * ```
 */
export const ACCOUNT_OPTION_KEYS = [
  'auth.accessTokens',
  'auth.sessionExpiry',
  'auth.sessionIdleTimeout',
  'auth.minPasswordLength',
  'auth.passwordPolicy',
  'auth.enableUsernameChanges',
] as const;

/**
 * A problem in an account option.
 *
 * @example
 * ```ts
 * const p: AccountOptionProblem = { code: 'out_of_range', min: 8, max: 1024 };
 * ```
 */
export type AccountOptionProblem =
  /** A duration is not Go's notation (`"2160h"`, `"30m"`, `"1h30m"`). */
  | { readonly code: 'invalid_duration'; readonly value: string }
  /** A number or duration is not a whole number (numbers) from `min` to `max` (milliseconds for durations). */
  | { readonly code: 'out_of_range'; readonly min: number; readonly max: number }
  /** A value is not one of `allowed`. */
  | { readonly code: 'invalid_option_value'; readonly value: string; readonly allowed: readonly string[] }
  /** `defaultExpirationDays` is not one of `expirationOptionDays`. */
  | { readonly code: 'default_not_offered'; readonly value: number; readonly offered: readonly number[] };

const ACCESS_TOKEN_FIELDS = ['allow', 'allowNoExpiration', 'expirationOptionDays', 'defaultExpirationDays', 'maxTokensPerUser'] as const;
const POLICY_FIELDS = ['enabled', 'numberOfSpecialCharacters', 'requireAtLeastOneNumber', 'requireUpperandLowerCase'] as const;
/** The most special characters `numberOfSpecialCharacters` may ask for. */
const MAX_SPECIAL_CHARACTERS = 64;

/** Reports every key of `object` that `fields` does not name, with a did-you-mean. */
function checkFields(ctx: Context, object: JsonObject, segments: Segments, fields: readonly string[]): void {
  for (const key of Object.keys(object)) {
    if (fields.includes(key)) continue;
    const suggestion = nearest(key, fields);
    report(
      ctx,
      [...segments, key],
      { code: 'unknown_field', field: key, suggestion },
      `${formatPath(segments)} has unknown field ${JSON.stringify(key)}${suggestion === null ? `; it accepts ${fields.map((f) => `"${f}"`).join(', ')}.` : `; did you mean "${suggestion}"?`}`,
    );
  }
}

function readBool(ctx: Context, segments: Segments, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    wrongType(ctx, segments, 'boolean', value, formatPath(segments));
    return fallback;
  }
  return value;
}

function readInteger(ctx: Context, segments: Segments, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') {
    wrongType(ctx, segments, 'number', value, formatPath(segments));
    return fallback;
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    report(ctx, segments, { code: 'out_of_range', min, max }, `${formatPath(segments)} is ${String(value)}; it must be a whole number from ${min} to ${max}.`);
    return fallback;
  }
  return value;
}

function readDuration(ctx: Context, key: string, value: unknown, fallback: number, min: number, allowZero: boolean): number | null {
  const segments = [key];
  if (value === undefined) return fallback;
  if (typeof value !== 'string') {
    wrongType(ctx, segments, 'string', value, `${key} (a duration such as "2160h")`);
    return fallback;
  }
  const parsed = parseDuration(value);
  if (parsed.isErr()) {
    report(
      ctx,
      segments,
      { code: 'invalid_duration', value: parsed.error.value },
      `${key} is ${JSON.stringify(value.slice(0, 64))}, which is not a duration; write one such as "2160h", "30m" or "1h30m" (units h, m, s, ms).`,
    );
    return fallback;
  }
  if (allowZero && parsed.value === 0) return null;
  if (parsed.value < min) {
    report(
      ctx,
      segments,
      { code: 'out_of_range', min, max: Number.MAX_SAFE_INTEGER },
      `${key} is ${JSON.stringify(value)}; it must be at least ${formatDuration(min)}${allowZero ? ' (or "0" for no limit)' : ''}.`,
    );
    return fallback;
  }
  return parsed.value;
}

function readAllow(ctx: Context, segments: Segments, value: unknown): AccessTokenAllow {
  if (value === undefined) return DEFAULT_ACCESS_TOKEN_OPTIONS.allow;
  const allowed: readonly string[] = ACCESS_TOKEN_ALLOW_VALUES;
  if (typeof value !== 'string') {
    wrongType(ctx, segments, 'string', value, formatPath(segments));
    return DEFAULT_ACCESS_TOKEN_OPTIONS.allow;
  }
  const known = ACCESS_TOKEN_ALLOW_VALUES.find((v) => v === value);
  if (known !== undefined) return known;
  const suggestion = nearest(value, allowed);
  report(
    ctx,
    segments,
    { code: 'invalid_option_value', value, allowed },
    `${formatPath(segments)} is ${JSON.stringify(value)}; use one of ${allowed.map((v) => `"${v}"`).join(', ')}${suggestion === null ? '' : ` (did you mean "${suggestion}"?)`}.`,
  );
  return DEFAULT_ACCESS_TOKEN_OPTIONS.allow;
}

function readOptionDays(ctx: Context, segments: Segments, value: unknown): readonly number[] {
  const fallback = DEFAULT_ACCESS_TOKEN_OPTIONS.expirationOptionDays;
  if (value === undefined) return fallback;
  if (!Array.isArray(value)) {
    wrongType(ctx, segments, 'array', value, `${formatPath(segments)} (a list of days)`);
    return fallback;
  }
  const items: unknown[] = value;
  if (items.length === 0) {
    report(ctx, segments, { code: 'empty_value' }, `${formatPath(segments)} must offer at least one lifetime, such as [30, 90].`);
    return fallback;
  }
  const before = ctx.problems.length;
  const days = items.map((item, index) => readInteger(ctx, [...segments, index], item, 1, 1, MAX_EXPIRATION_OPTION_DAYS));
  if (ctx.problems.length !== before) return fallback;
  return Object.freeze([...new Set(days)].sort((a, b) => a - b));
}

function readAccessTokens(ctx: Context, value: unknown): AccessTokenOptions {
  const key = 'auth.accessTokens';
  if (value === undefined) return DEFAULT_ACCESS_TOKEN_OPTIONS;
  if (!isRecord(value)) {
    wrongType(ctx, [key], 'object', value, key);
    return DEFAULT_ACCESS_TOKEN_OPTIONS;
  }
  checkFields(ctx, value, [key], ACCESS_TOKEN_FIELDS);
  const days = readOptionDays(ctx, [key, 'expirationOptionDays'], ownField(value, 'expirationOptionDays'));
  const rawDefault = ownField(value, 'defaultExpirationDays');
  // Unset, the default is 90 when offered and else the longest lifetime offered.
  const implicitDefault = days.includes(DEFAULT_ACCESS_TOKEN_OPTIONS.defaultExpirationDays)
    ? DEFAULT_ACCESS_TOKEN_OPTIONS.defaultExpirationDays
    : (days[days.length - 1] ?? DEFAULT_ACCESS_TOKEN_OPTIONS.defaultExpirationDays);
  let defaultDays = readInteger(ctx, [key, 'defaultExpirationDays'], rawDefault, implicitDefault, 1, MAX_EXPIRATION_OPTION_DAYS);
  if (rawDefault !== undefined && defaultDays === rawDefault && !days.includes(defaultDays)) {
    const segments = [key, 'defaultExpirationDays'];
    report(
      ctx,
      segments,
      { code: 'default_not_offered', value: defaultDays, offered: days },
      `${formatPath(segments)} is ${defaultDays}, which is not one of expirationOptionDays (${days.join(', ')}); add it there or choose one of them.`,
    );
    defaultDays = implicitDefault;
  }
  return Object.freeze({
    allow: readAllow(ctx, [key, 'allow'], ownField(value, 'allow')),
    allowNoExpiration: readBool(ctx, [key, 'allowNoExpiration'], ownField(value, 'allowNoExpiration'), DEFAULT_ACCESS_TOKEN_OPTIONS.allowNoExpiration),
    expirationOptionDays: days,
    defaultExpirationDays: defaultDays,
    maxTokensPerUser: readInteger(ctx, [key, 'maxTokensPerUser'], ownField(value, 'maxTokensPerUser'), DEFAULT_ACCESS_TOKEN_OPTIONS.maxTokensPerUser, 1, MAX_ACCESS_TOKENS_PER_ACCOUNT),
  });
}

function readPolicy(ctx: Context, value: unknown): PasswordPolicy {
  const key = 'auth.passwordPolicy';
  if (value === undefined) return DEFAULT_PASSWORD_POLICY;
  if (!isRecord(value)) {
    wrongType(ctx, [key], 'object', value, key);
    return DEFAULT_PASSWORD_POLICY;
  }
  checkFields(ctx, value, [key], POLICY_FIELDS);
  const d = DEFAULT_PASSWORD_POLICY;
  return Object.freeze({
    enabled: readBool(ctx, [key, 'enabled'], ownField(value, 'enabled'), d.enabled),
    numberOfSpecialCharacters: readInteger(ctx, [key, 'numberOfSpecialCharacters'], ownField(value, 'numberOfSpecialCharacters'), d.numberOfSpecialCharacters, 0, MAX_SPECIAL_CHARACTERS),
    requireAtLeastOneNumber: readBool(ctx, [key, 'requireAtLeastOneNumber'], ownField(value, 'requireAtLeastOneNumber'), d.requireAtLeastOneNumber),
    requireUpperandLowerCase: readBool(ctx, [key, 'requireUpperandLowerCase'], ownField(value, 'requireUpperandLowerCase'), d.requireUpperandLowerCase),
  });
}

/**
 * Reads the account options from the configuration's root object; each problem is reported at its JSON path and
 * the option's default stands in for it (the configuration is refused anyway while any problem remains).
 *
 * @param ctx - Where problems go.
 * @param root - The configuration's root object.
 * @returns The options, defaults applied.
 */
export function readAccountOptions(ctx: Context, root: JsonObject): AccountOptions {
  const minLength = readInteger(ctx, ['auth.minPasswordLength'], ownField(root, 'auth.minPasswordLength'), DEFAULT_PASSWORD_RULE.minLength, LOWEST_MIN_PASSWORD_LENGTH, MAX_PASSWORD_BYTES);
  const expiryMs = readDuration(ctx, 'auth.sessionExpiry', ownField(root, 'auth.sessionExpiry'), DEFAULT_SESSION_LIFETIME_OPTIONS.expiryMs, MIN_SESSION_EXPIRY_MS, false);
  const idleTimeoutMs = readDuration(
    ctx,
    'auth.sessionIdleTimeout',
    ownField(root, 'auth.sessionIdleTimeout'),
    DEFAULT_SESSION_LIFETIME_OPTIONS.idleTimeoutMs ?? 0,
    MIN_SESSION_IDLE_TIMEOUT_MS,
    true,
  );
  return Object.freeze({
    accessTokens: readAccessTokens(ctx, ownField(root, 'auth.accessTokens')),
    sessionLifetime: Object.freeze({ expiryMs: expiryMs ?? DEFAULT_SESSION_LIFETIME_OPTIONS.expiryMs, idleTimeoutMs }),
    passwordRule: Object.freeze({ minLength, policy: readPolicy(ctx, ownField(root, 'auth.passwordPolicy')) }),
    enableUsernameChanges: readBool(ctx, ['auth.enableUsernameChanges'], ownField(root, 'auth.enableUsernameChanges'), DEFAULT_ENABLE_USERNAME_CHANGES),
  });
}
