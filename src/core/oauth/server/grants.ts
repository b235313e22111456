/**
 * The grant decisions: authorization code exchange and refresh-token rotation with family revocation (RFC 6749 §4.1.3, §6; RFC 9700 §4.14.2).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { isObject, isStringArray, ownField } from '../../internal/guard.js';
import { isCodeVerifier, pkceMatches, scopeProblem } from './parameters.js';
import { type AuthorizationCodeRecord, readNow, type RefreshTokenRecord, type Sha256 } from './records.js';
import type { AuthorizationCodeGrant, RefreshTokenGrant } from './token-request.js';

// ---------------------------------------------------------------------------------------------
// Grant decisions

/** The part every grant decision reads first: the input object, the clock and the authenticated client. */
function readGrantInput(
  input: unknown,
): Result<
  { readonly raw: object; readonly now: number; readonly clientId: string },
  { readonly code: 'invalid_input'; readonly field: 'input' | 'now' | 'clientId' }
> {
  if (!isObject(input)) return err({ code: 'invalid_input', field: 'input' });
  const now = readNow(ownField(input, 'now'));
  if (now === null) return err({ code: 'invalid_input', field: 'now' });
  const clientId = ownField(input, 'clientId');
  if (typeof clientId !== 'string') return err({ code: 'invalid_input', field: 'clientId' });
  return ok({ raw: input, now, clientId });
}

/** What to do with a redeemed authorization code. */
export type AuthorizationCodeGrantDecision =
  /** Mark the code used (atomically, only if still unused) and issue an access and a refresh token in `familyId`. */
  | {
      readonly kind: 'issue';
      readonly familyId: string;
      readonly clientId: string;
      readonly userId: string;
      readonly scopes: readonly string[];
    }
  /** The code was redeemed before: refuse (`invalid_grant`) and revoke every token of its family (RFC 6749 §4.1.2). */
  | { readonly kind: 'revoke_family'; readonly familyId: string; readonly reason: 'authorization_code_reused' };

/** Why an authorization code grant is refused (all `invalid_grant`, RFC 6749 §5.2). */
export type AuthorizationCodeGrantError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'now' | 'clientId' | 'grant' | 'record' | 'sha256' }
  /** No such code. */
  | { readonly code: 'unknown_code' }
  /** The code was issued to another client. */
  | { readonly code: 'code_client_mismatch' }
  /** The code is past its {@link AUTHORIZATION_CODE_TTL_SECONDS}. */
  | { readonly code: 'code_expired' }
  /** `redirect_uri` differs from the authorize request's (RFC 6749 §4.1.3). */
  | { readonly code: 'redirect_uri_mismatch' }
  /** The PKCE verifier does not hash to the challenge (RFC 7636 §4.6). */
  | { readonly code: 'code_verifier_mismatch' }
  /** The digest function failed. */
  | { readonly code: 'digest_failed' };

/** Input of {@link decideAuthorizationCodeGrant}. */
export interface AuthorizationCodeGrantInput {
  /** The current time (ms since the epoch). */
  readonly now: number;
  /** The authenticated client's id. */
  readonly clientId: string;
  /** The grant from {@link readTokenRequest}. */
  readonly grant: AuthorizationCodeGrant;
  /** The code's record, looked up by the digest of `grant.code`, or `null`. */
  readonly record: AuthorizationCodeRecord | null;
  /** SHA-256 over bytes (for PKCE). */
  readonly sha256: Sha256;
}

/** The fields an authorization code record and a refresh token record share (one token family's grant). */
type GrantFields = Pick<RefreshTokenRecord, 'familyId' | 'clientId' | 'userId' | 'scopes' | 'expiresAt' | 'used'>;

/** Reads the shared grant fields of a stored record, or `undefined` when one is missing or malformed. */
function readGrantFields(value: unknown): GrantFields | undefined {
  const f = (k: string): unknown => ownField(value, k);
  const [familyId, clientId, userId] = [f('familyId'), f('clientId'), f('userId')];
  const [scopes, expiresAt, used] = [f('scopes'), f('expiresAt'), f('used')];
  if (
    typeof familyId !== 'string' ||
    typeof clientId !== 'string' ||
    typeof userId !== 'string' ||
    !isStringArray(scopes) ||
    typeof expiresAt !== 'number' ||
    Number.isNaN(expiresAt) ||
    typeof used !== 'boolean'
  ) {
    return undefined;
  }
  return { familyId, clientId, userId, scopes, expiresAt, used };
}

function readCodeRecord(value: unknown): AuthorizationCodeRecord | null | undefined {
  if (value === null) return null;
  const grant = readGrantFields(value);
  const f = (k: string): unknown => ownField(value, k);
  const [codeHash, codeChallenge] = [f('codeHash'), f('codeChallenge')];
  const [redirectUri, redirectUriGiven] = [f('redirectUri'), f('redirectUriGiven')];
  if (
    grant === undefined ||
    typeof codeHash !== 'string' ||
    typeof redirectUri !== 'string' ||
    typeof redirectUriGiven !== 'boolean' ||
    typeof codeChallenge !== 'string'
  ) {
    return undefined;
  }
  return { ...grant, codeHash, redirectUri, redirectUriGiven, codeChallenge };
}

/**
 * Decides an authorization code grant after client authentication (RFC 6749 §4.1.3, RFC 7636
 * §4.6). Checks, in order: the code exists; it was issued to this client; it was not redeemed
 * before (else `revoke_family`: a replayed code revokes what it produced); it has not expired;
 * `redirect_uri` matches (required and identical when the authorize request named one; when it
 * did not, absent or equal to the URI used); the PKCE verifier hashes to the challenge.
 *
 * @param input - Time, client, grant, the code's record and SHA-256.
 * @returns `ok(issue | revoke_family)` or `err` (all `invalid_grant`).
 * @example
 * ```ts
 * decideAuthorizationCodeGrant({ now, clientId: 'gai_c', grant, record: { ...record, used: true }, sha256 });
 * // ok({ kind: 'revoke_family', familyId: record.familyId, reason: 'authorization_code_reused' })
 * decideAuthorizationCodeGrant({ now, clientId: 'gai_c', grant, record: null, sha256 });
 * // err({ code: 'unknown_code' })
 * ```
 */
export function decideAuthorizationCodeGrant(
  input: AuthorizationCodeGrantInput,
): Result<AuthorizationCodeGrantDecision, AuthorizationCodeGrantError> {
  const head = readGrantInput(input);
  if (head.isErr()) return err(head.error);
  const { raw, now, clientId } = head.value;
  const grant = ownField(raw, 'grant');
  const verifier = ownField(grant, 'codeVerifier');
  const grantRedirect = ownField(grant, 'redirectUri');
  if (typeof verifier !== 'string' || !(grantRedirect === null || typeof grantRedirect === 'string')) {
    return err({ code: 'invalid_input', field: 'grant' });
  }
  const record = readCodeRecord(ownField(raw, 'record'));
  if (record === undefined) return err({ code: 'invalid_input', field: 'record' });
  const sha256 = ownField(raw, 'sha256');
  if (typeof sha256 !== 'function') return err({ code: 'invalid_input', field: 'sha256' });

  if (record === null) return err({ code: 'unknown_code' });
  const redirectOk = record.redirectUriGiven
    ? grantRedirect === record.redirectUri
    : grantRedirect === null || grantRedirect === record.redirectUri;
  const pkce = isCodeVerifier(verifier)
    ? pkceMatches(verifier, record.codeChallenge, (bytes) => {
        const out: unknown = Reflect.apply(sha256, undefined, [bytes]);
        return out instanceof Uint8Array ? out : new Uint8Array(0);
      })
    : false;
  if (pkce === null) return err({ code: 'digest_failed' });

  return match([record.clientId === clientId, record.used, now >= record.expiresAt, redirectOk, pkce] as const)
    .returnType<Result<AuthorizationCodeGrantDecision, AuthorizationCodeGrantError>>()
    .with([false, P._, P._, P._, P._], () => err({ code: 'code_client_mismatch' }))
    .with([true, true, P._, P._, P._], () =>
      ok({ kind: 'revoke_family', familyId: record.familyId, reason: 'authorization_code_reused' }),
    )
    .with([true, false, true, P._, P._], () => err({ code: 'code_expired' }))
    .with([true, false, false, false, P._], () => err({ code: 'redirect_uri_mismatch' }))
    .with([true, false, false, true, false], () => err({ code: 'code_verifier_mismatch' }))
    .with([true, false, false, true, true], () =>
      ok({ kind: 'issue', familyId: record.familyId, clientId, userId: record.userId, scopes: record.scopes }),
    )
    .exhaustive();
}

/** What to do with a presented refresh token. */
export type RefreshTokenGrantDecision =
  /**
   * Mark the presented token used (atomically, only if still unused and its family not revoked;
   * if that fails, read it again and decide again) and issue a new access token and a new refresh
   * token in the same family.
   */
  | {
      readonly kind: 'rotate';
      readonly familyId: string;
      readonly clientId: string;
      readonly userId: string;
      readonly usedTokenHash: string;
      readonly accessTokenScopes: readonly string[];
      readonly refreshTokenScopes: readonly string[];
    }
  /** The token was used before: refuse (`invalid_grant`) and revoke its whole family (RFC 9700 §4.14.2). */
  | { readonly kind: 'revoke_family'; readonly familyId: string; readonly reason: 'refresh_token_reused' };

/** Why a refresh token grant is refused (`invalid_grant`, or `invalid_scope` for the scope codes). */
export type RefreshTokenGrantError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'now' | 'clientId' | 'grant' | 'record' }
  /** No such refresh token. */
  | { readonly code: 'unknown_refresh_token' }
  /** It was issued to another client (RFC 6749 §6). */
  | { readonly code: 'refresh_token_client_mismatch' }
  /** Its family was revoked (after a replay). */
  | { readonly code: 'family_revoked' }
  /** It is past its {@link REFRESH_TOKEN_TTL_SECONDS}. */
  | { readonly code: 'refresh_token_expired' }
  /** `scope` names a scope not originally granted (RFC 6749 §6). */
  | { readonly code: 'scope_not_granted' }
  /** `scope` lacks `user:all`. */
  | { readonly code: 'missing_user_all_scope' };

/** Input of {@link decideRefreshTokenGrant}. */
export interface RefreshTokenGrantInput {
  /** The current time (ms since the epoch). */
  readonly now: number;
  /** The authenticated client's id. */
  readonly clientId: string;
  /** The grant from {@link readTokenRequest}. */
  readonly grant: RefreshTokenGrant;
  /** The token's record, looked up by the digest of `grant.refreshToken`, or `null`. */
  readonly record: RefreshTokenRecord | null;
}

function readRefreshRecord(value: unknown): RefreshTokenRecord | null | undefined {
  if (value === null) return null;
  const grant = readGrantFields(value);
  const tokenHash = ownField(value, 'tokenHash');
  const familyRevoked = ownField(value, 'familyRevoked');
  if (grant === undefined || typeof tokenHash !== 'string' || typeof familyRevoked !== 'boolean') return undefined;
  return { ...grant, tokenHash, familyRevoked };
}

/**
 * Decides a refresh token grant after client authentication (RFC 6749 §6, RFC 9700 §4.14.2).
 * Checks, in order: the token exists; it was issued to this client; its family is not revoked; it
 * was not used before (else `revoke_family`: whoever presents an old token, the legitimate client
 * or an attacker, the family dies and the user re-authorizes); it has not expired; a requested
 * `scope` is a subset of the original grant and includes `user:all`. Then `rotate`: the new
 * refresh token keeps the original scopes, the access token gets the requested ones.
 *
 * @param input - Time, client, grant and the token's record.
 * @returns `ok(rotate | revoke_family)` or `err`.
 * @example
 * ```ts
 * decideRefreshTokenGrant({ now, clientId: 'gai_c', grant, record: { ...record, used: true } });
 * // ok({ kind: 'revoke_family', familyId: record.familyId, reason: 'refresh_token_reused' })
 * decideRefreshTokenGrant({ now, clientId: 'gai_c', grant, record: { ...record, familyRevoked: true } });
 * // err({ code: 'family_revoked' })
 * ```
 */
export function decideRefreshTokenGrant(
  input: RefreshTokenGrantInput,
): Result<RefreshTokenGrantDecision, RefreshTokenGrantError> {
  const head = readGrantInput(input);
  if (head.isErr()) return err(head.error);
  const { raw, now, clientId } = head.value;
  const requested = ownField(ownField(raw, 'grant'), 'scopes');
  if (!(requested === null || isStringArray(requested))) return err({ code: 'invalid_input', field: 'grant' });
  const record = readRefreshRecord(ownField(raw, 'record'));
  if (record === undefined) return err({ code: 'invalid_input', field: 'record' });
  if (record === null) return err({ code: 'unknown_refresh_token' });

  const scopes = requested ?? record.scopes;
  const scope = scopeProblem(scopes, record.scopes);
  return match([record.clientId === clientId, record.familyRevoked, record.used, now >= record.expiresAt, scope] as const)
    .returnType<Result<RefreshTokenGrantDecision, RefreshTokenGrantError>>()
    .with([false, P._, P._, P._, P._], () => err({ code: 'refresh_token_client_mismatch' }))
    .with([true, true, P._, P._, P._], () => err({ code: 'family_revoked' }))
    .with([true, false, true, P._, P._], () =>
      ok({ kind: 'revoke_family', familyId: record.familyId, reason: 'refresh_token_reused' }),
    )
    .with([true, false, false, true, P._], () => err({ code: 'refresh_token_expired' }))
    .with([true, false, false, false, 'not_allowed'], () => err({ code: 'scope_not_granted' }))
    .with([true, false, false, false, 'missing_user_all'], () => err({ code: 'missing_user_all_scope' }))
    .with([true, false, false, false, null], () =>
      ok({
        kind: 'rotate',
        familyId: record.familyId,
        clientId,
        userId: record.userId,
        usedTokenHash: record.tokenHash,
        accessTokenScopes: [...scopes],
        refreshTokenScopes: [...record.scopes],
      }),
    )
    .exhaustive();
}
