/**
 * OAuth access tokens: the configured lifetime and the decision to accept one presented token (spec §5.1 rules 1 and 3).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { booleanTable } from '../../internal/decision-table.js';
import { isObject, isStringArray, ownField } from '../../internal/guard.js';
import {
  DEFAULT_ACCESS_TOKEN_TTL_SECONDS,
  MAX_ACCESS_TOKEN_TTL_SECONDS,
  type OAuthAccessTokenRecord,
  readNow,
} from './records.js';

// ---------------------------------------------------------------------------------------------
// Access token lifetime

/** Why a configured access-token lifetime is refused. */
export type AccessTokenTtlError =
  /** Not an integer in `[1, MAX_ACCESS_TOKEN_TTL_SECONDS]`. */
  { readonly code: 'invalid_access_token_ttl'; readonly max: number };

/**
 * The access-token lifetime to use: the default when unset, else a whole number of seconds from 1
 * to {@link MAX_ACCESS_TOKEN_TTL_SECONDS} (OAuth access tokens are always short-lived, spec §5.1
 * rule 3).
 *
 * @param seconds - The configured lifetime, or `undefined`.
 * @returns `ok(seconds)` or `err` for a lifetime that is not short or not a positive integer.
 * @example
 * ```ts
 * resolveAccessTokenTtl(undefined); // ok(3600)
 * resolveAccessTokenTtl(600);       // ok(600)
 * resolveAccessTokenTtl(0);         // err({ code: 'invalid_access_token_ttl', max: 86400 })
 * ```
 */
export function resolveAccessTokenTtl(seconds: number | undefined): Result<number, AccessTokenTtlError> {
  const raw: unknown = seconds;
  if (raw === undefined) return ok(DEFAULT_ACCESS_TOKEN_TTL_SECONDS);
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= MAX_ACCESS_TOKEN_TTL_SECONDS) return ok(raw);
  return err({ code: 'invalid_access_token_ttl', max: MAX_ACCESS_TOKEN_TTL_SECONDS });
}

// ---------------------------------------------------------------------------------------------
// Access token use

/** Whether a presented OAuth access token is good now. */
export type OAuthAccessTokenDecision =
  /** It acts for `userId` with `scopes`. */
  | { readonly kind: 'allow'; readonly userId: string; readonly clientId: string; readonly scopes: readonly string[] }
  /** It does not work. */
  | { readonly kind: 'deny'; readonly reason: 'unknown_token' | 'expired' | 'family_revoked' };

/** Why {@link decideOAuthAccessTokenUse} could not decide. */
export type OAuthAccessTokenUseError =
  /** The input has the wrong shape at run time. */
  { readonly code: 'invalid_input'; readonly field: 'input' | 'now' | 'record' };

/** Input of {@link decideOAuthAccessTokenUse}. */
export interface OAuthAccessTokenUseInput {
  /** The current time (ms since the epoch). */
  readonly now: number;
  /** The token's record, looked up by digest, or `null`. */
  readonly record: OAuthAccessTokenRecord | null;
}

/**
 * Decides whether an OAuth access token (`Authorization: Bearer …`, spec §5.1) works now: it
 * exists, its family was not revoked, and `now < expiresAt`.
 *
 * @param input - Time and the token's record.
 * @returns `ok(allow | deny)` (a `deny` is a frozen object shared by every call, an `allow` a new one), or `err` for a
 *   malformed input.
 * @example
 * ```ts
 * decideOAuthAccessTokenUse({ now: 0, record: { tokenHash: 'h', familyId: 'f', clientId: 'c', userId: 'u', scopes: ['user:all'], expiresAt: 1000, familyRevoked: false } });
 * // ok({ kind: 'allow', userId: 'u', clientId: 'c', scopes: ['user:all'] })
 * decideOAuthAccessTokenUse({ now: 1000, record: { tokenHash: 'h', familyId: 'f', clientId: 'c', userId: 'u', scopes: ['user:all'], expiresAt: 1000, familyRevoked: false } });
 * // ok({ kind: 'deny', reason: 'expired' })
 * ```
 */
export function decideOAuthAccessTokenUse(
  input: OAuthAccessTokenUseInput,
): Result<OAuthAccessTokenDecision, OAuthAccessTokenUseError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const now = readNow(ownField(raw, 'now'));
  if (now === null) return err({ code: 'invalid_input', field: 'now' });
  const value = ownField(raw, 'record');
  if (value === null) return ok({ kind: 'deny', reason: 'unknown_token' });
  const userId = ownField(value, 'userId');
  const clientId = ownField(value, 'clientId');
  const scopes = ownField(value, 'scopes');
  const expiresAt = ownField(value, 'expiresAt');
  const familyRevoked = ownField(value, 'familyRevoked');
  if (
    typeof userId !== 'string' ||
    typeof clientId !== 'string' ||
    !isStringArray(scopes) ||
    typeof expiresAt !== 'number' ||
    Number.isNaN(expiresAt) ||
    typeof familyRevoked !== 'boolean'
  ) {
    return err({ code: 'invalid_input', field: 'record' });
  }
  const refused = accessTokenRefusal(familyRevoked, now >= expiresAt);
  return ok(refused ?? { kind: 'allow', userId, clientId, scopes: [...scopes] });
}

/**
 * Why a token of a revoked or live family, expired or not, is refused, or `null` when it is good. Every `Bearer`
 * request asks, so the match's four answers are read from a table it filled once.
 */
const accessTokenRefusal = booleanTable((familyRevoked, expired): (OAuthAccessTokenDecision & { readonly kind: 'deny' }) | null =>
  match([familyRevoked, expired] as const)
    .returnType<(OAuthAccessTokenDecision & { readonly kind: 'deny' }) | null>()
    .with([true, P._], () => ({ kind: 'deny', reason: 'family_revoked' }))
    .with([false, true], () => ({ kind: 'deny', reason: 'expired' }))
    .with([false, false], () => null)
    .exhaustive(),
);
