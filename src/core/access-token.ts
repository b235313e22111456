/**
 * Personal access tokens: who may create which scopes, the secret's format and checksum, and the digest that is stored (spec §2.3, §5.1 rule 2).
 *
 * A secret looks like `gat_` + 32 lowercase base32 characters (160 random bits) + 7 base32
 * characters of CRC-32 over those random bytes, 43 characters in all. The checksum lets a server
 * (or a secret scanner) reject a mistyped or truncated token without a database lookup. Only the
 * SHA-256 digest of the secret is ever stored; the digest function is a parameter so the core stays
 * free of any runtime's crypto, and digests are compared in constant time.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { constantTimeEqual } from './internal/constant-time.js';
import { crc32 } from './internal/crc32.js';
import {
  BASE32_ALPHABET,
  base32DecodeGroups,
  base32DigitValue,
  base32Encode,
  bytesToHex,
  utf8Encode,
} from './internal/encoding.js';
import { isObject, ownField } from './internal/guard.js';
import { longerThan } from './internal/text-length.js';

/**
 * Every access-token scope, in canonical order (spec §2.3, §5.1): `user:all` (act as the token's
 * owner; every token carries it) and `site-admin:sudo` (act for any other user with `token-sudo`).
 *
 * @example
 * ```ts
 * ACCESS_TOKEN_SCOPES.includes('site-admin:sudo'); // true
 * ```
 */
export const ACCESS_TOKEN_SCOPES = ['user:all', 'site-admin:sudo'] as const;

/** One access-token scope. */
export type AccessTokenScope = (typeof ACCESS_TOKEN_SCOPES)[number];

/** The account asking to create a token, as it is when it asks. */
export interface AccessTokenActor {
  /** The account's stable identifier (non-empty). */
  readonly id: string;
  /** Whether the account is a site administrator now. */
  readonly siteAdmin: boolean;
}

/** The account the token will belong to (and authenticate as). */
export interface AccessTokenSubject {
  /** The account's stable identifier (non-empty). */
  readonly id: string;
}

/**
 * Every kind of credential a request can authenticate with, as {@link authorizeAccessTokenCreation}
 * tells them apart: `access_token` (a personal access token, under `token` or `token-sudo`), `oauth`
 * (an OAuth access token under `Bearer`, always short-lived: spec §2.4, §5.1 rule 3) and `session`
 * (a browser session).
 *
 * @example
 * ```ts
 * REQUEST_CREDENTIALS.includes('oauth'); // true
 * ```
 */
export const REQUEST_CREDENTIALS = ['access_token', 'oauth', 'session'] as const;

/** How the request that asks for a token authenticated. */
export type RequestCredential = (typeof REQUEST_CREDENTIALS)[number];

/** Input of {@link authorizeAccessTokenCreation}. */
export interface AccessTokenCreationInput {
  /** Who asks. */
  readonly actor: AccessTokenActor;
  /** Whose token it will be. */
  readonly subject: AccessTokenSubject;
  /** The requested scopes, as received (unknown names are reported, not dropped). */
  readonly scopes: readonly string[];
  /**
   * How the asking request authenticated. `oauth` is always refused (a short-lived OAuth access token
   * may not mint a token that outlives it); absent means not stated, decided as `access_token` and `session` are.
   */
  readonly credential?: RequestCredential;
  /**
   * How many access tokens the subject holds now. At {@link MAX_ACCESS_TOKENS_PER_ACCOUNT} or more the request is
   * refused with `quota_exceeded`; absent means not counted (the quota is not checked).
   */
  readonly existingTokenCount?: number;
  /** The token's note; at most {@link MAX_ACCESS_TOKEN_NOTE_LENGTH} characters. Absent means not checked. */
  readonly note?: string;
}

/**
 * The most access tokens one account may hold; creating one more is refused with `quota_exceeded`, so that
 * what one account makes the server store (and answer in `accessTokens`) stays bounded.
 *
 * @example
 * ```ts
 * MAX_ACCESS_TOKENS_PER_ACCOUNT; // 100
 * ```
 */
export const MAX_ACCESS_TOKENS_PER_ACCOUNT = 100;

/**
 * The longest note an access token may carry, in characters (Unicode code points).
 *
 * @example
 * ```ts
 * MAX_ACCESS_TOKEN_NOTE_LENGTH; // 256
 * ```
 */
export const MAX_ACCESS_TOKEN_NOTE_LENGTH = 256;

/** Why a well-formed token creation request is refused. */
export type AccessTokenCreationDenialReason =
  /** A user who is not a site admin asked for a token of another account. */
  | 'not_token_owner'
  /** A user who is not a site admin asked for `site-admin:sudo` (spec §2.3, §5.1 rule 2). */
  | 'sudo_requires_site_admin'
  /**
   * The request authenticated with an OAuth access token, which is always short-lived (spec §2.4,
   * §5.1 rule 3): it may not create a personal access token, which would outlive it.
   */
  | 'short_lived_credential'
  /** The subject already holds {@link MAX_ACCESS_TOKENS_PER_ACCOUNT} access tokens (checked after the others). */
  | 'quota_exceeded';

/** The policy outcome of {@link authorizeAccessTokenCreation}. */
export type AccessTokenCreationDecision =
  /** Create the token with these scopes (canonical order, each once). */
  | { readonly kind: 'allow'; readonly scopes: readonly AccessTokenScope[] }
  /** Do not create it. */
  | { readonly kind: 'deny'; readonly reason: AccessTokenCreationDenialReason };

/** Why {@link authorizeAccessTokenCreation} could not decide (the request itself is malformed). */
export type AccessTokenCreationError =
  /**
   * A field is missing or of the wrong type at run time (ids must be non-empty strings; `credential`, when
   * present, one of {@link REQUEST_CREDENTIALS}).
   */
  | {
      readonly code: 'invalid_input';
      readonly field:
        | 'input'
        | 'actor'
        | 'actor.id'
        | 'actor.siteAdmin'
        | 'subject'
        | 'subject.id'
        | 'scopes'
        | 'credential'
        | 'existingTokenCount'
        | 'note';
    }
  /** The note is longer than {@link MAX_ACCESS_TOKEN_NOTE_LENGTH} characters. */
  | { readonly code: 'note_too_long'; readonly maxLength: number }
  /** A requested scope is not one of {@link ACCESS_TOKEN_SCOPES} (the first such, in request order). */
  | { readonly code: 'unknown_scope'; readonly scope: string }
  /** A scope is requested twice (the first repeated one). */
  | { readonly code: 'duplicate_scope'; readonly scope: AccessTokenScope }
  /** The request lacks `user:all`, which every token carries. */
  | { readonly code: 'missing_user_all_scope' };

/** The credentials that may create tokens: every one but `oauth`, and an unstated one. */
const LONG_LIVED = P.union('access_token', 'session', 'unstated');

/**
 * Decides whether `actor` may create an access token for `subject` with `scopes` (spec §2.3,
 * §5.1 rule 2), given how the asking request authenticated (spec §2.4, §5.1 rule 3).
 *
 * Malformed requests are `err`, checked in this order: the shape of the input (`actor`, `subject`,
 * `scopes` being an array, then `credential`, `existingTokenCount`, `note`, then `note_too_long`); then each
 * scope in request order (`unknown_scope`, then `duplicate_scope`); then `missing_user_all_scope`. A well-formed request gets a policy
 * outcome in `ok`: a request authenticated with an OAuth access token (`credential: 'oauth'`) is
 * refused with `short_lived_credential` whoever asks, since OAuth access tokens are always
 * short-lived and a personal access token would outlive it; otherwise a user creates tokens for
 * themselves; a site admin may also create them for any other account (service accounts); only a
 * site admin may request `site-admin:sudo`. When a non-admin both targets another account and asks
 * for sudo, the reason is `not_token_owner`. An absent `credential` is decided like `access_token`
 * and `session`. A request that would otherwise be allowed is refused with `quota_exceeded` when the subject
 * already holds {@link MAX_ACCESS_TOKENS_PER_ACCOUNT} tokens (`existingTokenCount`, supplied by the host that
 * counts them). Whether the *subject* is a site admin is not checked here: a sudo token only works
 * while its owner is a site admin, which `authorizeSudo` checks at each use.
 *
 * @param input - The actor, the subject, the requested scopes and, optionally, the asking request's credential.
 * @returns `ok({ kind: 'allow', scopes })` with the scopes in canonical order, `ok({ kind: 'deny', reason })`, or `err` for a malformed request.
 * @example Allowed
 * ```ts
 * authorizeAccessTokenCreation({
 *   actor: { id: 'admin', siteAdmin: true }, subject: { id: 'svc' }, scopes: ['site-admin:sudo', 'user:all'],
 * });
 * // ok({ kind: 'allow', scopes: ['user:all', 'site-admin:sudo'] })
 * ```
 * @example Refused and malformed
 * ```ts
 * authorizeAccessTokenCreation({ actor: { id: 'u', siteAdmin: false }, subject: { id: 'u' }, scopes: ['user:all', 'site-admin:sudo'] });
 * // ok({ kind: 'deny', reason: 'sudo_requires_site_admin' })
 * authorizeAccessTokenCreation({ actor: { id: 'u', siteAdmin: false }, subject: { id: 'u' }, scopes: ['site-admin:sudo'] });
 * // err({ code: 'missing_user_all_scope' })
 * ```
 * @example Asked with an OAuth access token
 * ```ts
 * authorizeAccessTokenCreation({
 *   actor: { id: 'admin', siteAdmin: true }, subject: { id: 'admin' }, scopes: ['user:all'], credential: 'oauth',
 * });
 * // ok({ kind: 'deny', reason: 'short_lived_credential' })
 * ```
 * @example At the quota
 * ```ts
 * authorizeAccessTokenCreation({ actor: { id: 'u', siteAdmin: false }, subject: { id: 'u' }, scopes: ['user:all'], existingTokenCount: 100 });
 * // ok({ kind: 'deny', reason: 'quota_exceeded' })
 * ```
 */
export function authorizeAccessTokenCreation(
  input: AccessTokenCreationInput,
): Result<AccessTokenCreationDecision, AccessTokenCreationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const actor = ownField(raw, 'actor');
  if (!isObject(actor)) return err({ code: 'invalid_input', field: 'actor' });
  const actorId = ownField(actor, 'id');
  if (typeof actorId !== 'string' || actorId === '') return err({ code: 'invalid_input', field: 'actor.id' });
  const siteAdmin = ownField(actor, 'siteAdmin');
  if (typeof siteAdmin !== 'boolean') return err({ code: 'invalid_input', field: 'actor.siteAdmin' });
  const subject = ownField(raw, 'subject');
  if (!isObject(subject)) return err({ code: 'invalid_input', field: 'subject' });
  const subjectId = ownField(subject, 'id');
  if (typeof subjectId !== 'string' || subjectId === '') return err({ code: 'invalid_input', field: 'subject.id' });
  const scopes = ownField(raw, 'scopes');
  if (!Array.isArray(scopes)) return err({ code: 'invalid_input', field: 'scopes' });
  const rawCredential = ownField(raw, 'credential');
  const credential: RequestCredential | 'unstated' | undefined =
    rawCredential === undefined ? 'unstated' : REQUEST_CREDENTIALS.find((c) => c === rawCredential);
  if (credential === undefined) return err({ code: 'invalid_input', field: 'credential' });
  const count = ownField(raw, 'existingTokenCount');
  if (count !== undefined && (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)) {
    return err({ code: 'invalid_input', field: 'existingTokenCount' });
  }
  const note = ownField(raw, 'note');
  if (note !== undefined && typeof note !== 'string') return err({ code: 'invalid_input', field: 'note' });
  if (note !== undefined && longerThan(note, MAX_ACCESS_TOKEN_NOTE_LENGTH)) {
    return err({ code: 'note_too_long', maxLength: MAX_ACCESS_TOKEN_NOTE_LENGTH });
  }

  const requested = new Set<AccessTokenScope>();
  for (let i = 0; i < scopes.length; i++) {
    const scope: unknown = scopes[i];
    if (typeof scope !== 'string') return err({ code: 'invalid_input', field: 'scopes' });
    const known = ACCESS_TOKEN_SCOPES.find((s) => s === scope);
    if (known === undefined) return err({ code: 'unknown_scope', scope });
    if (requested.has(known)) return err({ code: 'duplicate_scope', scope: known });
    requested.add(known);
  }
  if (!requested.has('user:all')) return err({ code: 'missing_user_all_scope' });

  const forSelf = actorId === subjectId;
  const wantsSudo = requested.has('site-admin:sudo');
  const full = typeof count === 'number' && count >= MAX_ACCESS_TOKENS_PER_ACCOUNT;
  return ok(
    match([credential, forSelf, siteAdmin, wantsSudo, full] as const)
      .returnType<AccessTokenCreationDecision>()
      .with(['oauth', P._, P._, P._, P._], () => ({ kind: 'deny', reason: 'short_lived_credential' }))
      .with([LONG_LIVED, false, false, P._, P._], () => ({ kind: 'deny', reason: 'not_token_owner' }))
      .with([LONG_LIVED, true, false, true, P._], () => ({ kind: 'deny', reason: 'sudo_requires_site_admin' }))
      .with([LONG_LIVED, true, false, false, true], [LONG_LIVED, P._, true, P._, true], () => ({ kind: 'deny', reason: 'quota_exceeded' }))
      .with([LONG_LIVED, true, false, false, false], [LONG_LIVED, P._, true, P._, false], () => ({
        kind: 'allow',
        scopes: ACCESS_TOKEN_SCOPES.filter((s) => requested.has(s)),
      }))
      .exhaustive(),
  );
}

/**
 * The prefix of every access-token secret; it makes a leaked token recognisable (secret scanners).
 *
 * @example
 * ```ts
 * secret.startsWith(ACCESS_TOKEN_PREFIX);
 * ```
 */
export const ACCESS_TOKEN_PREFIX = 'gat_';

/**
 * How many random bytes a token consumes: 20 bytes, 160 bits.
 *
 * @example
 * ```ts
 * generateAccessToken(crypto.getRandomValues(new Uint8Array(ACCESS_TOKEN_RANDOM_BYTES)));
 * ```
 */
export const ACCESS_TOKEN_RANDOM_BYTES = 20;

const PAYLOAD_CHARS = 32; // 160 bits / 5 bits per base32 character
const CHECKSUM_CHARS = 7; // 32 bits of CRC-32 in 35 bits, the top three always zero

/**
 * The length of every access-token secret: prefix, 32 payload characters, 7 checksum characters (43).
 *
 * @example
 * ```ts
 * secret.length === ACCESS_TOKEN_LENGTH;
 * ```
 */
export const ACCESS_TOKEN_LENGTH: number = ACCESS_TOKEN_PREFIX.length + PAYLOAD_CHARS + CHECKSUM_CHARS;

/** Why {@link generateAccessToken} produced no token. */
export type AccessTokenGenerationError =
  /** `randomBytes` is not a `Uint8Array` at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'randomBytes' }
  /** Fewer than {@link ACCESS_TOKEN_RANDOM_BYTES} bytes were given. */
  | { readonly code: 'insufficient_entropy'; readonly required: number; readonly received: number };

function encodeChecksum(value: number): string {
  let out = '';
  for (let shift = 30; shift >= 0; shift -= 5) out += BASE32_ALPHABET.charAt((value >>> shift) & 31);
  return out;
}

/**
 * Builds a new access-token secret from random bytes the caller draws from a CSPRNG (spec §2.3).
 * The first {@link ACCESS_TOKEN_RANDOM_BYTES} bytes are used (any further bytes are ignored); the
 * result is `gat_`, their lowercase base32, then the CRC-32 of those bytes in 7 base32 characters.
 * Distinct 20-byte inputs give distinct secrets. Store only {@link hashAccessToken}'s digest and
 * show the secret to its owner once.
 *
 * @param randomBytes - At least 20 bytes from a cryptographically secure generator.
 * @returns `ok(secret)`, or `err` when fewer than 20 bytes (or no `Uint8Array`) are given.
 * @example
 * ```ts
 * generateAccessToken(new Uint8Array(20)); // ok('gat_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaah5lg4n')
 * generateAccessToken(new Uint8Array(16)); // err({ code: 'insufficient_entropy', required: 20, received: 16 })
 * ```
 */
export function generateAccessToken(randomBytes: Uint8Array): Result<string, AccessTokenGenerationError> {
  const raw: unknown = randomBytes;
  if (!(raw instanceof Uint8Array)) return err({ code: 'invalid_input', field: 'randomBytes' });
  if (raw.length < ACCESS_TOKEN_RANDOM_BYTES) {
    return err({ code: 'insufficient_entropy', required: ACCESS_TOKEN_RANDOM_BYTES, received: raw.length });
  }
  const payload = raw.slice(0, ACCESS_TOKEN_RANDOM_BYTES);
  return ok(ACCESS_TOKEN_PREFIX + base32Encode(payload) + encodeChecksum(crc32(payload)));
}

/** Why a presented string is not a well-formed access-token secret. */
export type AccessTokenFormatError =
  /** The value is not a string at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'secret' }
  /** It does not start with {@link ACCESS_TOKEN_PREFIX}. */
  | { readonly code: 'bad_prefix' }
  /** It is not {@link ACCESS_TOKEN_LENGTH} characters long. */
  | { readonly code: 'bad_length'; readonly expected: number; readonly received: number }
  /** A character after the prefix is not lowercase base32 (`a-z`, `2-7`); `index` is the first one. */
  | { readonly code: 'bad_characters'; readonly index: number }
  /** The checksum does not match the payload: a typo, not a token gatehouse issued. */
  | { readonly code: 'bad_checksum' };

/**
 * Checks the shape and checksum of a presented access-token secret, without any lookup, so a
 * mistyped or truncated token is rejected before its digest is computed or a database is touched.
 * Checks run in this order: prefix, length, characters, checksum. Every single-character
 * substitution and every swap of two adjacent different characters of a valid secret is rejected:
 * inside the payload such a change is a burst of at most 10 bits, which CRC-32 always detects;
 * inside the checksum it changes the checksum's value; across the payload/checksum border the
 * payload's last byte changes by `d` in 1..3 and the CRC by `TABLE[d]`, which never equals the
 * at-most-2-bit change of the checksum's first digit.
 *
 * @param secret - The token as presented (for example from `Authorization: token …`).
 * @returns `ok(secret)` unchanged when well formed, else `err` with the first problem.
 * @example
 * ```ts
 * parseAccessToken(generateAccessToken(bytes)._unsafeUnwrap()); // ok('gat_…')
 * parseAccessToken('ghp_0123');                                   // err({ code: 'bad_prefix' })
 * ```
 */
export function parseAccessToken(secret: string): Result<string, AccessTokenFormatError> {
  const raw: unknown = secret;
  if (typeof raw !== 'string') return err({ code: 'invalid_input', field: 'secret' });
  if (!raw.startsWith(ACCESS_TOKEN_PREFIX)) return err({ code: 'bad_prefix' });
  if (raw.length !== ACCESS_TOKEN_LENGTH) {
    return err({ code: 'bad_length', expected: ACCESS_TOKEN_LENGTH, received: raw.length });
  }
  let checksum = 0;
  for (let i = ACCESS_TOKEN_PREFIX.length; i < raw.length; i++) {
    const digit = base32DigitValue(raw.charCodeAt(i));
    if (digit < 0) return err({ code: 'bad_characters', index: i });
    if (i >= ACCESS_TOKEN_PREFIX.length + PAYLOAD_CHARS) checksum = checksum * 32 + digit;
  }
  const payload = base32DecodeGroups(raw.slice(ACCESS_TOKEN_PREFIX.length, ACCESS_TOKEN_PREFIX.length + PAYLOAD_CHARS));
  if (payload === null || crc32(payload) !== checksum) return err({ code: 'bad_checksum' });
  return ok(raw);
}

/** Why {@link hashAccessToken} produced no digest. */
export type AccessTokenHashError =
  /** `secret` is not a string or `sha256` is not a function at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'secret' | 'sha256' }
  /** The digest function threw or did not return 32 bytes in a `Uint8Array`. */
  | { readonly code: 'digest_failed' };

/**
 * The value stored for an access token: the lowercase hex SHA-256 digest of the secret's UTF-8
 * bytes (spec §2.3; the secret itself is never stored). The digest function is passed in, e.g.
 * `(b) => createHash('sha256').update(b).digest()` on Node. It does not check the secret's format:
 * call {@link parseAccessToken} first on presented tokens.
 *
 * @param secret - The token secret.
 * @param sha256 - A SHA-256 implementation over bytes.
 * @returns `ok` with 64 lowercase hex characters, or `err` when the digest function fails.
 * @example
 * ```ts
 * hashAccessToken('gat_…', (b) => new Uint8Array(createHash('sha256').update(b).digest()));
 * // ok('5e8…') (64 hex characters)
 * ```
 */
export function hashAccessToken(
  secret: string,
  sha256: (bytes: Uint8Array) => Uint8Array,
): Result<string, AccessTokenHashError> {
  const rawSecret: unknown = secret;
  const rawDigest: unknown = sha256;
  if (typeof rawSecret !== 'string') return err({ code: 'invalid_input', field: 'secret' });
  if (typeof rawDigest !== 'function') return err({ code: 'invalid_input', field: 'sha256' });
  const safeDigest = Result.fromThrowable(
    (bytes: Uint8Array): unknown => sha256(bytes),
    (): AccessTokenHashError => ({ code: 'digest_failed' }),
  );
  return safeDigest(utf8Encode(rawSecret)).andThen(
    (digest): Result<string, AccessTokenHashError> =>
      digest instanceof Uint8Array && digest.length === 32 ? ok(bytesToHex(digest)) : err({ code: 'digest_failed' }),
  );
}

/**
 * Compares two stored digests (or any two secrets) in constant time: the time depends only on the
 * longer length, never on where they differ. Equal exactly when `a === b`; anything that is not a
 * string at run time is unequal to everything.
 *
 * @param a - A digest, e.g. from {@link hashAccessToken}.
 * @param b - Another digest.
 * @returns Whether they are the same string.
 * @example
 * ```ts
 * accessTokenDigestsEqual(stored, hashAccessToken(presented, sha256)._unsafeUnwrap()); // true or false
 * ```
 */
export function accessTokenDigestsEqual(a: string, b: string): boolean {
  return constantTimeEqual(a, b);
}
