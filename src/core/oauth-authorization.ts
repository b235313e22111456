/**
 * Pure decisions of gatehouse's OAuth 2.0 authorization server: app registration, authorize and token requests, refresh-token rotation and family revocation (spec §2.4, §5.1 rules 1 and 3).
 *
 * gatehouse is the authorization server for OAuth apps that a site administrator registers. The
 * flow is the authorization code grant with PKCE (S256 only, RFC 7636; required, as RFC 9700 §2.1.1
 * recommends) and confidential clients (`client_secret_basic` or `client_secret_post`, RFC 6749
 * §2.3.1). Access tokens are short-lived; refresh tokens rotate on every use and belong to a
 * *family* (every token descending from one authorization code): presenting a refresh token that
 * was already used, or an authorization code a second time, revokes the whole family, access tokens
 * included (RFC 9700 §4.14.2, RFC 6749 §4.1.2).
 *
 * Every function here is total and does no I/O: the adapter looks records up, passes them in, and
 * applies the returned decision to its store with an atomic compare-and-set (so two concurrent uses
 * of one refresh token cannot both rotate: the loser re-reads the record, sees it used, and gets
 * `revoke_family`). Time, random bytes and SHA-256 are parameters. Times are milliseconds since the
 * epoch (like `Date.now()`); a record is expired when `now >= expiresAt`.
 *
 * @module
 */
import { err, ok, Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { ACCESS_TOKEN_PREFIX, generateAccessToken, hashAccessToken, parseAccessToken } from './access-token.js';
import { constantTimeEqual } from './internal/constant-time.js';
import { isObject, ownField } from './internal/own-field.js';

// ---------------------------------------------------------------------------------------------
// Constants

/**
 * The scopes an OAuth app may be registered with and tokens may be granted: only `user:all`
 * (spec §2.4: an OAuth app is registered with the scope `user:all`). `site-admin:sudo` is a power of
 * personal access tokens used with `token-sudo` (spec §5.1 rule 2) and is never granted over OAuth.
 *
 * @example
 * ```ts
 * OAUTH_SCOPES.includes('user:all'); // true
 * ```
 */
export const OAUTH_SCOPES = ['user:all'] as const;

/**
 * A scope an OAuth app may hold.
 *
 * @example
 * ```ts
 * const scope: OAuthScope = 'user:all';
 * ```
 */
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/**
 * The scope every OAuth app, authorization and token carries (spec §2.4, §5.1: `Bearer` tokens come
 * from apps with the scope `user:all`).
 *
 * @example
 * ```ts
 * const params: OAuthParameters = [['scope', REQUIRED_OAUTH_SCOPE]]; // plus client_id, response_type, PKCE
 * ```
 */
export const REQUIRED_OAUTH_SCOPE = 'user:all';

/**
 * The default lifetime of an OAuth access token, in seconds (the `expires_in` of the token
 * response).
 *
 * @example
 * ```ts
 * resolveAccessTokenTtl(undefined); // ok(DEFAULT_ACCESS_TOKEN_TTL_SECONDS), i.e. ok(3600)
 * ```
 */
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;

/**
 * The longest configurable access-token lifetime, in seconds (one day): OAuth access tokens are
 * always short-lived (spec §2.4, §5.1 rule 3).
 *
 * @example
 * ```ts
 * resolveAccessTokenTtl(MAX_ACCESS_TOKEN_TTL_SECONDS + 1).isErr(); // true
 * ```
 */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;

/**
 * How long an authorization code may be redeemed, in seconds (RFC 6749 §4.1.2 recommends at most
 * ten minutes; one is plenty for a redirect and a back-channel request).
 *
 * @example
 * ```ts
 * const expiresAt = now + AUTHORIZATION_CODE_TTL_SECONDS * 1000;
 * ```
 */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/**
 * The lifetime of each refresh token, in seconds (30 days, counted from its issue; every rotation
 * issues a new one). An app unused for longer must send its user through authorization again.
 *
 * @example
 * ```ts
 * const expiresAt = now + REFRESH_TOKEN_TTL_SECONDS * 1000;
 * ```
 */
export const REFRESH_TOKEN_TTL_SECONDS = 2_592_000;

/**
 * How many redirect URIs one app may register.
 *
 * @example
 * ```ts
 * validateOAuthAppRegistration({ name: 'x', redirectUris: tooMany, scopes: ['user:all'] });
 * // err({ code: 'too_many_redirect_uris', max: MAX_REDIRECT_URIS })
 * ```
 */
export const MAX_REDIRECT_URIS = 10;

/**
 * The kinds of secret (and identifier) the authorization server issues, each with its own prefix so
 * that a leaked value says what it is: client id `gai_`, client secret `gas_`, authorization code
 * `gac_`, access token `gao_`, refresh token `gar_`.
 *
 * @example
 * ```ts
 * OAUTH_SECRET_KINDS.includes('refresh_token'); // true
 * ```
 */
export const OAUTH_SECRET_KINDS = [
  'client_id',
  'client_secret',
  'authorization_code',
  'access_token',
  'refresh_token',
] as const;

/**
 * One of {@link OAUTH_SECRET_KINDS}.
 *
 * @example
 * ```ts
 * const kind: OAuthSecretKind = 'access_token';
 * ```
 */
export type OAuthSecretKind = (typeof OAUTH_SECRET_KINDS)[number];

// ---------------------------------------------------------------------------------------------
// Records the adapter passes in

/**
 * A registered OAuth app as the store holds it (only the fields the decisions read). The client
 * secret is stored only as its digest (`hashAccessToken` of the secret).
 *
 * @example
 * ```ts
 * const client: OAuthClient = {
 *   clientId: 'gai_…', clientSecretHash: '5e88…', redirectUris: ['https://app.example/cb'], scopes: ['user:all'],
 * };
 * ```
 */
export interface OAuthClient {
  /** The public client identifier. */
  readonly clientId: string;
  /** Lowercase hex SHA-256 of the client secret. */
  readonly clientSecretHash: string;
  /** The registered redirect URIs, compared with the request by exact string equality. */
  readonly redirectUris: readonly string[];
  /** The scopes the app was registered with. */
  readonly scopes: readonly string[];
}

/**
 * An authorization code as the store holds it.
 *
 * @example
 * ```ts
 * const code: AuthorizationCodeRecord = {
 *   codeHash: '…', familyId: 'f1', clientId: 'gai_…', userId: 'u1', redirectUri: 'https://app.example/cb',
 *   redirectUriGiven: true, scopes: ['user:all'], codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
 *   expiresAt: 1_700_000_060_000, used: false,
 * };
 * ```
 */
export interface AuthorizationCodeRecord {
  /** Digest of the code. */
  readonly codeHash: string;
  /** The token family that redeeming this code starts; revoked if the code is presented again. */
  readonly familyId: string;
  /** The client the code was issued to. */
  readonly clientId: string;
  /** The user who authorized. */
  readonly userId: string;
  /** The redirect URI the code was delivered to. */
  readonly redirectUri: string;
  /** Whether the authorize request named `redirect_uri` (then the token request must repeat it). */
  readonly redirectUriGiven: boolean;
  /** The granted scopes. */
  readonly scopes: readonly string[];
  /** The PKCE S256 challenge. */
  readonly codeChallenge: string;
  /** When the code stops being redeemable (ms since the epoch). */
  readonly expiresAt: number;
  /** Whether the code was already redeemed. */
  readonly used: boolean;
}

/**
 * A refresh token as the store reports it, joined with the state of its family.
 *
 * @example
 * ```ts
 * const token: RefreshTokenRecord = {
 *   tokenHash: '…', familyId: 'f1', clientId: 'gai_…', userId: 'u1', scopes: ['user:all'],
 *   expiresAt: 1_702_592_000_000, used: false, familyRevoked: false,
 * };
 * ```
 */
export interface RefreshTokenRecord {
  /** Digest of the refresh token. */
  readonly tokenHash: string;
  /** The family it belongs to. */
  readonly familyId: string;
  /** The client it was issued to. */
  readonly clientId: string;
  /** The user it acts for. */
  readonly userId: string;
  /** The scopes originally granted. */
  readonly scopes: readonly string[];
  /** When it stops working (ms since the epoch). */
  readonly expiresAt: number;
  /** Whether it was already exchanged for a successor. */
  readonly used: boolean;
  /** Whether its family was revoked. */
  readonly familyRevoked: boolean;
}

/**
 * An OAuth access token as the store reports it, joined with the state of its family.
 *
 * @example
 * ```ts
 * const token: OAuthAccessTokenRecord = {
 *   tokenHash: '…', familyId: 'f1', clientId: 'gai_…', userId: 'u1', scopes: ['user:all'],
 *   expiresAt: 1_700_003_600_000, familyRevoked: false,
 * };
 * ```
 */
export interface OAuthAccessTokenRecord {
  /** Digest of the access token. */
  readonly tokenHash: string;
  /** The family it belongs to. */
  readonly familyId: string;
  /** The client it was issued to. */
  readonly clientId: string;
  /** The user it acts for. */
  readonly userId: string;
  /** The granted scopes. */
  readonly scopes: readonly string[];
  /** When it stops working (ms since the epoch). */
  readonly expiresAt: number;
  /** Whether its family was revoked. */
  readonly familyRevoked: boolean;
}

/**
 * Request parameters in order, duplicates kept, as `[...new URLSearchParams(text)]` gives them.
 *
 * @example
 * ```ts
 * const params: OAuthParameters = [['response_type', 'code'], ['client_id', 'gai_…']];
 * ```
 */
export type OAuthParameters = readonly (readonly [string, string])[];

/**
 * A SHA-256 implementation over bytes, e.g. `(b) => new Uint8Array(createHash('sha256').update(b).digest())`.
 *
 * @example
 * ```ts
 * const sha256: Sha256 = (bytes) => new Uint8Array(createHash('sha256').update(bytes).digest());
 * ```
 */
export type Sha256 = (bytes: Uint8Array) => Uint8Array;

// ---------------------------------------------------------------------------------------------
// Small pure helpers

/** Whether every character of `text` is in `%x20-7E` (VSCHAR, RFC 6749 Appendix A). */
function isVisibleAscii(text: string, allowSpace: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7e || c < 0x20 || (c === 0x20 && !allowSpace)) return false;
  }
  return true;
}

function isStringArray(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v: unknown) => typeof v === 'string');
}

/** Parses request parameters into name → values, or `null` when they are not a list of string pairs. */
function collectParameters(value: unknown): Map<string, string[]> | null {
  if (!Array.isArray(value)) return null;
  const out = new Map<string, string[]>();
  for (const entry of value) {
    if (!Array.isArray(entry) || entry.length !== 2) return null;
    const name: unknown = entry[0];
    const v: unknown = entry[1];
    if (typeof name !== 'string' || typeof v !== 'string') return null;
    const list = out.get(name);
    if (list === undefined) out.set(name, [v]);
    else list.push(v);
  }
  return out;
}

/**
 * A parameter's value: `undefined` when absent, `null` when repeated (RFC 6749 §3.1, §3.2: a
 * parameter MUST NOT be included more than once). An empty value counts as absent (RFC 6749 §3.1:
 * parameters sent without a value MUST be treated as if omitted).
 */
function single(params: Map<string, string[]>, name: string): string | null | undefined {
  const values = params.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) return null;
  const value = values[0];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Parses an RFC 6749 §3.3 `scope`: scope-tokens of `%x21 / %x23-5B / %x5D-7E` separated by single
 * spaces. Returns the distinct tokens in order, or `null` when malformed.
 */
function parseScope(text: string): string[] | null {
  const out: string[] = [];
  for (const token of text.split(' ')) {
    if (token === '') return null;
    for (let i = 0; i < token.length; i++) {
      const c = token.charCodeAt(i);
      if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) return null;
    }
    if (!out.includes(token)) out.push(token);
  }
  return out;
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** RFC 4648 §5 base64url without padding. */
function base64UrlEncode(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out +=
      BASE64URL_ALPHABET.charAt(n >> 18) +
      BASE64URL_ALPHABET.charAt((n >> 12) & 63) +
      BASE64URL_ALPHABET.charAt((n >> 6) & 63) +
      BASE64URL_ALPHABET.charAt(n & 63);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] ?? 0) << 16;
    out += BASE64URL_ALPHABET.charAt(n >> 18) + BASE64URL_ALPHABET.charAt((n >> 12) & 63);
  } else if (rest === 2) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8);
    out +=
      BASE64URL_ALPHABET.charAt(n >> 18) + BASE64URL_ALPHABET.charAt((n >> 12) & 63) + BASE64URL_ALPHABET.charAt((n >> 6) & 63);
  }
  return out;
}

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Strict RFC 4648 §4 base64 (padding required, canonical trailing bits), or `null`. */
function base64Decode(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const chunk = text.slice(i, i + 4);
    const pad = last ? (chunk.endsWith('==') ? 2 : chunk.endsWith('=') ? 1 : 0) : 0;
    let n = 0;
    for (let j = 0; j < 4; j++) {
      const ch = chunk.charAt(j);
      if (j >= 4 - pad) {
        n <<= 6;
        continue;
      }
      const v = BASE64_ALPHABET.indexOf(ch);
      if (v < 0 || ch === '') return null;
      n = (n << 6) | v;
    }
    out.push((n >> 16) & 0xff);
    if (pad < 2) out.push((n >> 8) & 0xff);
    if (pad < 1) out.push(n & 0xff);
    // Non-canonical encodings (stray bits under the padding) are refused.
    if ((pad === 1 && (n & 0xff) !== 0) || (pad === 2 && (n & 0xffff) !== 0)) return null;
  }
  return Uint8Array.from(out);
}

/** `application/x-www-form-urlencoded` decoding of one value (RFC 6749 Appendix B), or `null`. */
const formDecode = Result.fromThrowable(
  (text: string): string => decodeURIComponent(text.replace(/\+/g, ' ')),
  (): null => null,
);

/** The unreserved characters of RFC 7636 §4.1 (`ALPHA / DIGIT / "-" / "." / "_" / "~"`). */
function isUnreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e
  );
}

/** RFC 7636 §4.1: `code_verifier = 43*128unreserved`. */
function isCodeVerifier(text: string): boolean {
  if (text.length < 43 || text.length > 128) return false;
  for (let i = 0; i < text.length; i++) if (!isUnreserved(text.charCodeAt(i))) return false;
  return true;
}

/** RFC 7636 §4.2 with S256: BASE64URL of a 32-byte digest, exactly 43 characters. */
function isS256Challenge(text: string): boolean {
  if (text.length !== 43) return false;
  for (let i = 0; i < text.length; i++) if (BASE64URL_ALPHABET.indexOf(text.charAt(i)) < 0) return false;
  return true;
}

/** Whether `scopes` (already distinct) holds `user:all` and only scopes `allowed` holds. */
function scopeProblem(scopes: readonly string[], allowed: readonly string[]): 'not_allowed' | 'missing_user_all' | null {
  if (!scopes.every((s) => allowed.includes(s))) return 'not_allowed';
  if (!scopes.includes(REQUIRED_OAUTH_SCOPE)) return 'missing_user_all';
  return null;
}

const safeCall = Result.fromThrowable(
  (sha256: Sha256, bytes: Uint8Array): unknown => sha256(bytes),
  (): null => null,
);

/** RFC 7636 §4.6: whether BASE64URL(SHA256(ASCII(verifier))) equals the challenge (constant time). */
function pkceMatches(verifier: string, challenge: string, sha256: Sha256): boolean | null {
  const bytes = new Uint8Array(verifier.length);
  for (let i = 0; i < verifier.length; i++) bytes[i] = verifier.charCodeAt(i) & 0x7f;
  const digest = safeCall(sha256, bytes);
  if (digest.isErr() || !(digest.value instanceof Uint8Array) || digest.value.length !== 32) return null;
  return constantTimeEqual(base64UrlEncode(digest.value), challenge);
}

// ---------------------------------------------------------------------------------------------
// Secrets

/**
 * Why {@link generateOAuthSecret} or {@link parseOAuthSecret} gave no value.
 *
 * @example
 * ```ts
 * const e: OAuthSecretError = { code: 'bad_prefix', expected: 'gar_' };
 * ```
 */
export type OAuthSecretError =
  /** An argument has the wrong type at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'kind' | 'randomBytes' | 'secret' }
  /** Fewer than 20 random bytes were given. */
  | { readonly code: 'insufficient_entropy'; readonly required: number; readonly received: number }
  /** The presented value does not start with the prefix of its kind. */
  | { readonly code: 'bad_prefix'; readonly expected: string }
  /** The presented value is not well formed (length, characters or checksum). */
  | { readonly code: 'malformed' };

function prefixOf(kind: OAuthSecretKind): string {
  return match(kind)
    .returnType<string>()
    .with('client_id', () => 'gai_')
    .with('client_secret', () => 'gas_')
    .with('authorization_code', () => 'gac_')
    .with('access_token', () => 'gao_')
    .with('refresh_token', () => 'gar_')
    .exhaustive();
}

function readKind(value: unknown): OAuthSecretKind | null {
  return OAUTH_SECRET_KINDS.find((k) => k === value) ?? null;
}

/**
 * Builds a new client id, client secret, authorization code or token from 20 random bytes (160
 * bits): the kind's prefix, 32 lowercase base32 characters and a 7-character CRC-32 checksum (the
 * format of personal access tokens, spec §2.3, with another prefix). Store only its digest
 * (`hashAccessToken`), except for the client id, which is public.
 *
 * @param kind - What the value is for.
 * @param randomBytes - At least 20 bytes from a CSPRNG.
 * @returns `ok(value)` (43 characters), or `err` for missing entropy.
 * @example
 * ```ts
 * generateOAuthSecret('refresh_token', new Uint8Array(20)); // ok('gar_aaaa…')
 * generateOAuthSecret('refresh_token', new Uint8Array(4));  // err({ code: 'insufficient_entropy', required: 20, received: 4 })
 * ```
 */
export function generateOAuthSecret(kind: OAuthSecretKind, randomBytes: Uint8Array): Result<string, OAuthSecretError> {
  const known = readKind(kind);
  if (known === null) return err({ code: 'invalid_input', field: 'kind' });
  return generateAccessToken(randomBytes)
    .map((token) => prefixOf(known) + token.slice(ACCESS_TOKEN_PREFIX.length))
    .mapErr(
      (e): OAuthSecretError =>
        match(e)
          .returnType<OAuthSecretError>()
          .with({ code: 'invalid_input' }, () => ({ code: 'invalid_input', field: 'randomBytes' }))
          .with({ code: 'insufficient_entropy' }, (x) => ({
            code: 'insufficient_entropy',
            required: x.required,
            received: x.received,
          }))
          .exhaustive(),
    );
}

/**
 * Checks the shape and checksum of a presented value of the given kind, so a mistyped, truncated
 * or foreign value is rejected before any digest or lookup.
 *
 * @param kind - What the value should be.
 * @param secret - The value as presented.
 * @returns `ok(secret)` unchanged when well formed, else `err`.
 * @example
 * ```ts
 * parseOAuthSecret('refresh_token', generateOAuthSecret('refresh_token', bytes)._unsafeUnwrap()); // ok('gar_…')
 * parseOAuthSecret('refresh_token', 'gao_…'); // err({ code: 'bad_prefix', expected: 'gar_' })
 * ```
 */
export function parseOAuthSecret(kind: OAuthSecretKind, secret: string): Result<string, OAuthSecretError> {
  const known = readKind(kind);
  if (known === null) return err({ code: 'invalid_input', field: 'kind' });
  const raw: unknown = secret;
  if (typeof raw !== 'string') return err({ code: 'invalid_input', field: 'secret' });
  const prefix = prefixOf(known);
  if (!raw.startsWith(prefix)) return err({ code: 'bad_prefix', expected: prefix });
  return parseAccessToken(ACCESS_TOKEN_PREFIX + raw.slice(prefix.length))
    .map(() => raw)
    .mapErr((): OAuthSecretError => ({ code: 'malformed' }));
}

// ---------------------------------------------------------------------------------------------
// Access token lifetime

/**
 * Why a configured access-token lifetime is refused.
 *
 * @example
 * ```ts
 * const e: AccessTokenTtlError = { code: 'invalid_access_token_ttl', max: 86400 };
 * ```
 */
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
// App registration

/**
 * Why a redirect URI cannot be registered.
 *
 * @example
 * ```ts
 * const reason: RedirectUriProblem = 'insecure_http';
 * ```
 */
export type RedirectUriProblem =
  /** Longer than 2000 characters. */
  | 'too_long'
  /** Holds a space, a control character or a non-ASCII character (write them percent-encoded). */
  | 'invalid_characters'
  /** Holds a fragment (`#`), which RFC 6749 §3.1.2 forbids. */
  | 'fragment'
  /** Neither `https:` nor `http:` (lowercase). */
  | 'unsupported_scheme'
  /** `http:` to a host other than a loopback address (RFC 9700 §4.1.3, RFC 8252 §7.3). */
  | 'insecure_http'
  /** No host after `//`. */
  | 'missing_host'
  /** Holds user information (`user@host`). */
  | 'userinfo'
  /** A port that is not 1 to 5 digits. */
  | 'invalid_port';

function redirectUriProblem(uri: string): RedirectUriProblem | null {
  if (uri.length > 2000) return 'too_long';
  if (!isVisibleAscii(uri, false)) return 'invalid_characters';
  if (uri.includes('#')) return 'fragment';
  const https = uri.startsWith('https://');
  if (!https && !uri.startsWith('http://')) return 'unsupported_scheme';
  const rest = uri.slice(https ? 8 : 7);
  let end = rest.length;
  for (const sep of ['/', '?']) {
    const at = rest.indexOf(sep);
    if (at >= 0 && at < end) end = at;
  }
  const authority = rest.slice(0, end);
  if (authority.includes('@')) return 'userinfo';
  let host: string;
  let port: string | null;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return 'missing_host';
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return 'invalid_port';
    port = after === '' ? null : after.slice(1);
  } else {
    const colon = authority.indexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    port = colon < 0 ? null : authority.slice(colon + 1);
  }
  if (host === '' || host === '[]') return 'missing_host';
  if (port !== null && !/^[0-9]{1,5}$/.test(port)) return 'invalid_port';
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(host);
  if (!https && !loopback) return 'insecure_http';
  return null;
}

/**
 * What an administrator asks to register.
 *
 * @example
 * ```ts
 * const input: OAuthAppRegistrationInput = { name: 'CI bot', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] };
 * ```
 */
export interface OAuthAppRegistrationInput {
  /** A display name. */
  readonly name: string;
  /** The exact redirect URIs the app will use. */
  readonly redirectUris: readonly string[];
  /** The scopes the app may ask for; must include `user:all`. */
  readonly scopes: readonly string[];
}

/**
 * A validated registration: the name trimmed, URIs and scopes as given.
 *
 * @example
 * ```ts
 * const app: OAuthAppRegistration = { name: 'CI bot', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] };
 * ```
 */
export interface OAuthAppRegistration {
  /** The trimmed display name. */
  readonly name: string;
  /** The redirect URIs, each valid and distinct. */
  readonly redirectUris: readonly string[];
  /** The scopes, each known and distinct, `user:all` among them. */
  readonly scopes: readonly OAuthScope[];
}

/**
 * Why a registration is refused.
 *
 * @example
 * ```ts
 * const e: OAuthAppRegistrationError = { code: 'invalid_redirect_uri', index: 0, reason: 'fragment' };
 * ```
 */
export type OAuthAppRegistrationError =
  /** A field has the wrong type at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'name' | 'redirectUris' | 'scopes' }
  /** The name is empty after trimming, longer than 100 characters, or holds a control character. */
  | { readonly code: 'invalid_name' }
  /** No redirect URI is given. */
  | { readonly code: 'missing_redirect_uris' }
  /** More than {@link MAX_REDIRECT_URIS} redirect URIs. */
  | { readonly code: 'too_many_redirect_uris'; readonly max: number }
  /** The redirect URI at `index` is unusable. */
  | { readonly code: 'invalid_redirect_uri'; readonly index: number; readonly reason: RedirectUriProblem }
  /** The redirect URI at `index` repeats an earlier one. */
  | { readonly code: 'duplicate_redirect_uri'; readonly index: number }
  /** A scope is not one of {@link OAUTH_SCOPES}. */
  | { readonly code: 'unknown_scope'; readonly scope: string }
  /** A scope is listed twice. */
  | { readonly code: 'duplicate_scope'; readonly scope: string }
  /** `user:all` is missing (spec §2.4). */
  | { readonly code: 'missing_user_all_scope' };

/**
 * Validates an OAuth app registration (spec §2.4: the app is registered with the scope `user:all`).
 * Redirect URIs must be absolute `https:` URIs without fragment or user information, or `http:` to a
 * loopback host (`localhost`, `127.x.x.x`, `[::1]`) for development and native apps (RFC 9700
 * §4.1.3, RFC 8252 §7.3). Checks run in field order and the first problem is returned.
 *
 * @param input - Name, redirect URIs and scopes.
 * @returns `ok(registration)` or `err` naming the first problem.
 * @example
 * ```ts
 * validateOAuthAppRegistration({ name: ' CI ', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] });
 * // ok({ name: 'CI', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'] })
 * validateOAuthAppRegistration({ name: 'CI', redirectUris: ['http://ci.example/cb'], scopes: ['user:all'] });
 * // err({ code: 'invalid_redirect_uri', index: 0, reason: 'insecure_http' })
 * ```
 */
export function validateOAuthAppRegistration(
  input: OAuthAppRegistrationInput,
): Result<OAuthAppRegistration, OAuthAppRegistrationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const name = ownField(raw, 'name');
  if (typeof name !== 'string') return err({ code: 'invalid_input', field: 'name' });
  const redirectUris = ownField(raw, 'redirectUris');
  if (!isStringArray(redirectUris)) return err({ code: 'invalid_input', field: 'redirectUris' });
  const scopes = ownField(raw, 'scopes');
  if (!isStringArray(scopes)) return err({ code: 'invalid_input', field: 'scopes' });

  const trimmed = name.trim();
  let nameOk = trimmed !== '' && trimmed.length <= 100;
  for (let i = 0; i < trimmed.length && nameOk; i++) {
    const c = trimmed.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) nameOk = false;
  }
  if (!nameOk) return err({ code: 'invalid_name' });

  if (redirectUris.length === 0) return err({ code: 'missing_redirect_uris' });
  if (redirectUris.length > MAX_REDIRECT_URIS) return err({ code: 'too_many_redirect_uris', max: MAX_REDIRECT_URIS });
  for (let index = 0; index < redirectUris.length; index++) {
    const uri = redirectUris[index] ?? '';
    const reason = redirectUriProblem(uri);
    if (reason !== null) return err({ code: 'invalid_redirect_uri', index, reason });
    if (redirectUris.indexOf(uri) !== index) return err({ code: 'duplicate_redirect_uri', index });
  }

  const known: OAuthScope[] = [];
  for (const scope of scopes) {
    const k = OAUTH_SCOPES.find((s) => s === scope);
    if (k === undefined) return err({ code: 'unknown_scope', scope });
    if (known.includes(k)) return err({ code: 'duplicate_scope', scope });
    known.push(k);
  }
  if (!known.includes(REQUIRED_OAUTH_SCOPE)) return err({ code: 'missing_user_all_scope' });
  return ok({ name: trimmed, redirectUris: [...redirectUris], scopes: known });
}

// ---------------------------------------------------------------------------------------------
// Authorize request

/**
 * Where an authorize error may be reported: the client's verified redirect URI, with `state`
 * echoed (RFC 6749 §4.1.2.1). `state` is `null` when the request had none (or repeated it).
 *
 * @example
 * ```ts
 * const r: AuthorizeErrorRedirect = { redirectUri: 'https://app.example/cb', state: 'xyz' };
 * ```
 */
export interface AuthorizeErrorRedirect {
  /** The registered redirect URI the request named. */
  readonly redirectUri: string;
  /** The request's `state`, to echo. */
  readonly state: string | null;
}

/**
 * Input of {@link validateAuthorizeRequest}.
 *
 * @example
 * ```ts
 * const input: AuthorizeRequestInput = { params: [...url.searchParams], client: await store.findApp(clientId) };
 * ```
 */
export interface AuthorizeRequestInput {
  /** The query parameters of `GET /.auth/idp/oauth/authorize`. */
  readonly params: OAuthParameters;
  /** The app whose id the request's `client_id` names, or `null` when there is none. */
  readonly client: OAuthClient | null;
}

/**
 * A valid authorization request.
 *
 * @example
 * ```ts
 * const r: AuthorizeRequest = {
 *   clientId: 'gai_…', redirectUri: 'https://app.example/cb', redirectUriGiven: true, scopes: ['user:all'],
 *   state: 'xyz', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
 * };
 * ```
 */
export interface AuthorizeRequest {
  /** The client. */
  readonly clientId: string;
  /** Where to send the code: the URI named, or the app's only registered URI. */
  readonly redirectUri: string;
  /** Whether the request named `redirect_uri` (RFC 6749 §4.1.3: then the token request must repeat it). */
  readonly redirectUriGiven: boolean;
  /** The granted scopes (distinct, in request order; `['user:all']` when the request named none). */
  readonly scopes: readonly string[];
  /** The `state` to echo, or `null`. */
  readonly state: string | null;
  /** The PKCE S256 challenge. */
  readonly codeChallenge: string;
}

/**
 * Why an authorization request is refused. Members with `redirect` may be reported to the client
 * by redirecting there (RFC 6749 §4.1.2.1); the others (no trustworthy redirect URI) must be shown
 * to the user and never redirected.
 *
 * @example
 * ```ts
 * const e: AuthorizeRequestError = { code: 'unsupported_code_challenge_method', method: 'plain', redirect: { redirectUri: 'https://app.example/cb', state: null } };
 * ```
 */
export type AuthorizeRequestError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'params' | 'client' }
  /** `client_id` is absent (or repeated). */
  | { readonly code: 'missing_client_id' }
  /** No registered app has this `client_id`. */
  | { readonly code: 'unknown_client' }
  /** `redirect_uri` is absent while the app registered several, or repeated. */
  | { readonly code: 'missing_redirect_uri' }
  /** `redirect_uri` is not exactly one of the app's registered URIs (RFC 9700 §4.1.3). */
  | { readonly code: 'redirect_uri_not_registered' }
  /** Another parameter is repeated (RFC 6749 §3.1). */
  | { readonly code: 'duplicate_parameter'; readonly parameter: string; readonly redirect: AuthorizeErrorRedirect }
  /** `response_type` is absent. */
  | { readonly code: 'missing_response_type'; readonly redirect: AuthorizeErrorRedirect }
  /** `response_type` is not `code`. */
  | { readonly code: 'unsupported_response_type'; readonly redirect: AuthorizeErrorRedirect }
  /** `code_challenge` is absent: PKCE is required. */
  | { readonly code: 'missing_code_challenge'; readonly redirect: AuthorizeErrorRedirect }
  /** `code_challenge_method` is absent (meaning `plain`), `plain`, or unknown: only `S256` is accepted. */
  | {
      readonly code: 'unsupported_code_challenge_method';
      readonly method: string | null;
      readonly redirect: AuthorizeErrorRedirect;
    }
  /** `code_challenge` is not 43 base64url characters. */
  | { readonly code: 'invalid_code_challenge'; readonly redirect: AuthorizeErrorRedirect }
  /** `scope` is malformed, names a scope the app does not hold, or lacks `user:all`. */
  | {
      readonly code: 'invalid_scope';
      readonly reason: 'malformed' | 'not_allowed' | 'missing_user_all';
      readonly redirect: AuthorizeErrorRedirect;
    }
  /** `state` holds characters outside `%x20-7E`. */
  | { readonly code: 'invalid_state'; readonly redirect: AuthorizeErrorRedirect };

function readClient(value: unknown): OAuthClient | null | undefined {
  if (value === null) return null;
  if (!isObject(value)) return undefined;
  const clientId = ownField(value, 'clientId');
  const clientSecretHash = ownField(value, 'clientSecretHash');
  const redirectUris = ownField(value, 'redirectUris');
  const scopes = ownField(value, 'scopes');
  if (typeof clientId !== 'string' || typeof clientSecretHash !== 'string') return undefined;
  if (!isStringArray(redirectUris) || !isStringArray(scopes)) return undefined;
  return { clientId, clientSecretHash, redirectUris, scopes };
}

/**
 * Validates `GET /.auth/idp/oauth/authorize` (RFC 6749 §4.1.1 with RFC 7636 PKCE). In order:
 * `client_id` present and registered; `redirect_uri` exactly one of the app's registered URIs
 * (optional only when the app registered exactly one; RFC 6749 §3.1.2.3) — failures up to here are
 * never redirected; then, reported by redirect: repeated parameters, `response_type=code`,
 * `code_challenge` present with `code_challenge_method=S256` (absent means `plain`, which is
 * refused), `scope` a subset of the app's scopes that includes `user:all` (absent means
 * `user:all`), `state` visible ASCII. Unknown parameters are ignored (RFC 6749 §3.1); an empty value
 * counts as absent.
 *
 * @param input - The query parameters and the app the `client_id` names.
 * @returns `ok(request)` to go on with (sign-in, consent, code), or `err` saying how to refuse.
 * @example
 * ```ts
 * validateAuthorizeRequest({ params: [['client_id', 'gai_x'], ['response_type', 'code'], ['code_challenge', c], ['code_challenge_method', 'S256']], client });
 * // ok({ clientId: 'gai_x', redirectUri: 'https://app.example/cb', redirectUriGiven: false, scopes: ['user:all'], state: null, codeChallenge: c })
 * validateAuthorizeRequest({ params: [['client_id', 'gai_x'], ['response_type', 'code'], ['code_challenge', c]], client });
 * // err({ code: 'unsupported_code_challenge_method', method: null, redirect: { redirectUri: 'https://app.example/cb', state: null } })
 * ```
 */
export function validateAuthorizeRequest(input: AuthorizeRequestInput): Result<AuthorizeRequest, AuthorizeRequestError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const params = collectParameters(ownField(raw, 'params'));
  if (params === null) return err({ code: 'invalid_input', field: 'params' });
  const client = readClient(ownField(raw, 'client'));
  if (client === undefined) return err({ code: 'invalid_input', field: 'client' });

  const clientId = single(params, 'client_id');
  if (clientId === undefined || clientId === null) return err({ code: 'missing_client_id' });
  if (client === null || client.clientId !== clientId) return err({ code: 'unknown_client' });

  const redirectParam = single(params, 'redirect_uri');
  if (redirectParam === null) return err({ code: 'missing_redirect_uri' });
  const only = client.redirectUris.length === 1 ? client.redirectUris[0] : undefined;
  const redirectUri = redirectParam ?? only;
  if (redirectUri === undefined) return err({ code: 'missing_redirect_uri' });
  if (!client.redirectUris.includes(redirectUri)) return err({ code: 'redirect_uri_not_registered' });

  const stateValue = single(params, 'state');
  const redirect: AuthorizeErrorRedirect = {
    redirectUri,
    state: typeof stateValue === 'string' && isVisibleAscii(stateValue, true) ? stateValue : null,
  };
  for (const [name, values] of params) {
    if (values.length > 1) return err({ code: 'duplicate_parameter', parameter: name, redirect });
  }

  const responseType = single(params, 'response_type');
  if (responseType === undefined) return err({ code: 'missing_response_type', redirect });
  if (responseType !== 'code') return err({ code: 'unsupported_response_type', redirect });

  const challenge = single(params, 'code_challenge');
  if (typeof challenge !== 'string') return err({ code: 'missing_code_challenge', redirect });
  const method = single(params, 'code_challenge_method');
  if (method !== 'S256') {
    return err({ code: 'unsupported_code_challenge_method', method: typeof method === 'string' ? method : null, redirect });
  }
  if (!isS256Challenge(challenge)) return err({ code: 'invalid_code_challenge', redirect });

  const scopeParam = single(params, 'scope');
  const scopes = typeof scopeParam === 'string' ? parseScope(scopeParam) : [REQUIRED_OAUTH_SCOPE];
  if (scopes === null) return err({ code: 'invalid_scope', reason: 'malformed', redirect });
  const problem = scopeProblem(scopes, client.scopes);
  if (problem !== null) return err({ code: 'invalid_scope', reason: problem, redirect });

  if (typeof stateValue === 'string' && redirect.state === null) return err({ code: 'invalid_state', redirect });

  return ok({
    clientId,
    redirectUri,
    redirectUriGiven: redirectParam !== undefined,
    scopes,
    state: redirect.state,
    codeChallenge: challenge,
  });
}

// ---------------------------------------------------------------------------------------------
// Token request

/**
 * How the client authenticated at the token endpoint (RFC 6749 §2.3.1).
 *
 * @example
 * ```ts
 * const m: ClientAuthenticationMethod = 'client_secret_basic';
 * ```
 */
export type ClientAuthenticationMethod = 'client_secret_basic' | 'client_secret_post';

/**
 * The client credentials a token request carries.
 *
 * @example
 * ```ts
 * const c: ClientCredentials = { clientId: 'gai_…', clientSecret: 'gas_…', method: 'client_secret_post' };
 * ```
 */
export interface ClientCredentials {
  /** The presented client id. */
  readonly clientId: string;
  /** The presented client secret. */
  readonly clientSecret: string;
  /** How they were presented. */
  readonly method: ClientAuthenticationMethod;
}

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5).
 *
 * @example
 * ```ts
 * const g: AuthorizationCodeGrant = { kind: 'authorization_code', code: 'gac_…', redirectUri: 'https://app.example/cb', codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' };
 * ```
 */
export interface AuthorizationCodeGrant {
  /** Which grant. */
  readonly kind: 'authorization_code';
  /** The presented code. */
  readonly code: string;
  /** The presented `redirect_uri`, or `null` when absent. */
  readonly redirectUri: string | null;
  /** The PKCE verifier (syntax already checked). */
  readonly codeVerifier: string;
}

/**
 * `grant_type=refresh_token` (RFC 6749 §6).
 *
 * @example
 * ```ts
 * const g: RefreshTokenGrant = { kind: 'refresh_token', refreshToken: 'gar_…', scopes: null };
 * ```
 */
export interface RefreshTokenGrant {
  /** Which grant. */
  readonly kind: 'refresh_token';
  /** The presented refresh token. */
  readonly refreshToken: string;
  /** The narrower scopes asked for, or `null` for the original grant. */
  readonly scopes: readonly string[] | null;
}

/**
 * A well-formed token request.
 *
 * @example
 * ```ts
 * const r: TokenRequest = { client: { clientId: 'gai_…', clientSecret: 'gas_…', method: 'client_secret_basic' }, grant: { kind: 'refresh_token', refreshToken: 'gar_…', scopes: null } };
 * ```
 */
export interface TokenRequest {
  /** The client's credentials (not yet checked). */
  readonly client: ClientCredentials;
  /** The grant. */
  readonly grant: AuthorizationCodeGrant | RefreshTokenGrant;
}

/**
 * Input of {@link readTokenRequest}.
 *
 * @example
 * ```ts
 * const input: TokenRequestInput = { params: [...new URLSearchParams(body)], authorization: req.headers.authorization };
 * ```
 */
export interface TokenRequestInput {
  /** The form parameters of the `POST` body. */
  readonly params: OAuthParameters;
  /** The `Authorization` header: absent, one value, or several. */
  readonly authorization: string | readonly string[] | undefined;
}

/**
 * Why the client-authentication part of a token or revocation request is malformed (RFC 6749 §2.3.1, §3.2;
 * RFC 7009 §2.1).
 *
 * @example
 * ```ts
 * const e: ClientPartError = { code: 'client_id_mismatch' };
 * ```
 */
export type ClientPartError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'params' | 'authorization' }
  /** A parameter is repeated (RFC 6749 §3.2). */
  | { readonly code: 'duplicate_parameter'; readonly parameter: string }
  /** Several `Authorization` header values. */
  | { readonly code: 'duplicate_authorization_header' }
  /** Credentials both in the header and in the body (RFC 6749 §2.3: only one method per request). */
  | { readonly code: 'multiple_client_authentication' }
  /** No client credentials at all. */
  | { readonly code: 'missing_client_authentication' }
  /** `client_id` in the body without `client_secret` (public clients are not supported). */
  | { readonly code: 'missing_client_secret' }
  /** An `Authorization` scheme other than `Basic`. */
  | { readonly code: 'unsupported_client_authentication' }
  /** A `Basic` header that is not base64 of `id:secret` form-encoded. */
  | { readonly code: 'malformed_client_authentication' }
  /** A body `client_id` that differs from the `Basic` one. */
  | { readonly code: 'client_id_mismatch' };

/**
 * Why a token request is malformed. The adapter maps each to an RFC 6749 §5.2 error.
 *
 * @example
 * ```ts
 * const e: TokenRequestError = { code: 'unsupported_grant_type' };
 * ```
 */
export type TokenRequestError =
  | ClientPartError
  /** No `grant_type`. */
  | { readonly code: 'missing_grant_type' }
  /** A `grant_type` other than `authorization_code` and `refresh_token`. */
  | { readonly code: 'unsupported_grant_type' }
  /** A parameter the grant requires is absent. */
  | { readonly code: 'missing_parameter'; readonly parameter: 'code' | 'code_verifier' | 'refresh_token' }
  /** `code_verifier` is not 43 to 128 unreserved characters (RFC 7636 §4.1). */
  | { readonly code: 'invalid_code_verifier' }
  /** `scope` is malformed (RFC 6749 §3.3). */
  | { readonly code: 'invalid_scope_syntax' };

function readBasic(header: string): Result<{ clientId: string; clientSecret: string }, ClientPartError> {
  const trimmed = header.trim();
  const space = trimmed.indexOf(' ');
  const scheme = space < 0 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== 'basic') return err({ code: 'unsupported_client_authentication' });
  const decoded = base64Decode(trimmed.slice(space + 1).trim());
  if (space < 0 || decoded === null) return err({ code: 'malformed_client_authentication' });
  let text = '';
  for (const byte of decoded) {
    if (byte < 0x20 || byte > 0x7e) return err({ code: 'malformed_client_authentication' });
    text += String.fromCharCode(byte);
  }
  const colon = text.indexOf(':');
  if (colon < 0) return err({ code: 'malformed_client_authentication' });
  const id = formDecode(text.slice(0, colon));
  const secret = formDecode(text.slice(colon + 1));
  if (id.isErr() || secret.isErr() || id.value === '' || secret.value === '') {
    return err({ code: 'malformed_client_authentication' });
  }
  return ok({ clientId: id.value, clientSecret: secret.value });
}


/** The client-authentication part shared by the token and the revocation endpoints (RFC 6749 §2.3.1, RFC 7009 §2.1). */
function readClientPart(
  input: TokenRequestInput,
): Result<{ readonly client: ClientCredentials; readonly get: (name: string) => string | undefined }, ClientPartError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const params = collectParameters(ownField(raw, 'params'));
  if (params === null) return err({ code: 'invalid_input', field: 'params' });
  const authorizationRaw = ownField(raw, 'authorization');
  let authorization: string | undefined;
  if (authorizationRaw === undefined || typeof authorizationRaw === 'string') authorization = authorizationRaw;
  else if (isStringArray(authorizationRaw)) {
    if (authorizationRaw.length > 1) return err({ code: 'duplicate_authorization_header' });
    authorization = authorizationRaw[0];
  } else return err({ code: 'invalid_input', field: 'authorization' });
  if (authorization !== undefined && authorization.trim() === '') authorization = undefined;

  for (const [name, values] of params) {
    if (values.length > 1) return err({ code: 'duplicate_parameter', parameter: name });
  }
  const get = (name: string): string | undefined => single(params, name) ?? undefined;

  const bodyId = get('client_id');
  const bodySecret = get('client_secret');
  if (authorization !== undefined) {
    if (bodySecret !== undefined) return err({ code: 'multiple_client_authentication' });
    const basic = readBasic(authorization);
    if (basic.isErr()) return err(basic.error);
    if (bodyId !== undefined && bodyId !== basic.value.clientId) return err({ code: 'client_id_mismatch' });
    return ok({ client: { ...basic.value, method: 'client_secret_basic' }, get });
  }
  if (bodyId !== undefined) {
    if (bodySecret === undefined) return err({ code: 'missing_client_secret' });
    return ok({ client: { clientId: bodyId, clientSecret: bodySecret, method: 'client_secret_post' }, get });
  }
  return err({ code: 'missing_client_authentication' });
}

/**
 * Reads `POST /.auth/idp/oauth/token` (RFC 6749 §3.2, §4.1.3, §6) into a typed request, checking
 * syntax only (no lookup). Order: repeated parameters; client authentication (`Basic` header or
 * `client_id` + `client_secret` in the body, never both); `grant_type`; the grant's parameters.
 *
 * @param input - The form parameters and the `Authorization` header.
 * @returns `ok(request)` or `err` with the first problem.
 * @example
 * ```ts
 * readTokenRequest({ params: [['grant_type', 'refresh_token'], ['refresh_token', 'gar_x'], ['client_id', 'gai_c'], ['client_secret', 'gas_s']], authorization: undefined });
 * // ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_post' }, grant: { kind: 'refresh_token', refreshToken: 'gar_x', scopes: null } })
 * readTokenRequest({ params: [['grant_type', 'password']], authorization: 'Basic Yzpz' });
 * // err({ code: 'unsupported_grant_type' })
 * ```
 */
export function readTokenRequest(input: TokenRequestInput): Result<TokenRequest, TokenRequestError> {
  const read = readClientPart(input);
  if (read.isErr()) return err(read.error);
  const { client, get } = read.value;

  const grantType = get('grant_type');
  if (grantType === undefined) return err({ code: 'missing_grant_type' });
  if (grantType === 'authorization_code') {
    const code = get('code');
    if (code === undefined) return err({ code: 'missing_parameter', parameter: 'code' });
    const codeVerifier = get('code_verifier');
    if (codeVerifier === undefined) return err({ code: 'missing_parameter', parameter: 'code_verifier' });
    if (!isCodeVerifier(codeVerifier)) return err({ code: 'invalid_code_verifier' });
    return ok({ client, grant: { kind: 'authorization_code', code, redirectUri: get('redirect_uri') ?? null, codeVerifier } });
  }
  if (grantType === 'refresh_token') {
    const refreshToken = get('refresh_token');
    if (refreshToken === undefined) return err({ code: 'missing_parameter', parameter: 'refresh_token' });
    const scope = get('scope');
    const scopes = scope === undefined ? null : parseScope(scope);
    if (scope !== undefined && scopes === null) return err({ code: 'invalid_scope_syntax' });
    return ok({ client, grant: { kind: 'refresh_token', refreshToken, scopes } });
  }
  return err({ code: 'unsupported_grant_type' });
}

// ---------------------------------------------------------------------------------------------
// Client authentication

/**
 * Why client authentication failed. Unknown client and wrong secret share one code so the response
 * does not reveal which client ids exist.
 *
 * @example
 * ```ts
 * const e: ClientAuthenticationError = { code: 'invalid_client' };
 * ```
 */
export type ClientAuthenticationError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'credentials' | 'client' | 'sha256' }
  /** No such client, or the secret does not match. */
  | { readonly code: 'invalid_client' }
  /** The digest function failed. */
  | { readonly code: 'digest_failed' };

/**
 * Input of {@link authenticateOAuthClient}.
 *
 * @example
 * ```ts
 * const input: ClientAuthenticationInput = { credentials, client: await store.findApp(credentials.clientId), sha256 };
 * ```
 */
export interface ClientAuthenticationInput {
  /** The credentials from {@link readTokenRequest}. */
  readonly credentials: ClientCredentials;
  /** The app with that client id, or `null`. */
  readonly client: OAuthClient | null;
  /** SHA-256 over bytes. */
  readonly sha256: Sha256;
}

/**
 * Authenticates a confidential client: the app exists and the digest of the presented secret equals
 * the stored one (compared in constant time; the digest is computed even for an unknown client).
 *
 * @param input - Credentials, the looked-up app and SHA-256.
 * @returns `ok(client)` or `err({ code: 'invalid_client' })`.
 * @example
 * ```ts
 * authenticateOAuthClient({ credentials: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_basic' }, client, sha256 });
 * // ok(client) when hashAccessToken('gas_s', sha256) equals client.clientSecretHash, else err({ code: 'invalid_client' })
 * ```
 */
export function authenticateOAuthClient(input: ClientAuthenticationInput): Result<OAuthClient, ClientAuthenticationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const credentials = ownField(raw, 'credentials');
  const clientId = ownField(credentials, 'clientId');
  const clientSecret = ownField(credentials, 'clientSecret');
  if (typeof clientId !== 'string' || typeof clientSecret !== 'string') {
    return err({ code: 'invalid_input', field: 'credentials' });
  }
  const client = readClient(ownField(raw, 'client'));
  if (client === undefined) return err({ code: 'invalid_input', field: 'client' });
  const sha256 = ownField(raw, 'sha256');
  if (typeof sha256 !== 'function') return err({ code: 'invalid_input', field: 'sha256' });
  const digest = hashAccessToken(clientSecret, (bytes) => {
    const out: unknown = Reflect.apply(sha256, undefined, [bytes]);
    return out instanceof Uint8Array ? out : new Uint8Array(0);
  });
  if (digest.isErr()) return err({ code: 'digest_failed' });
  const stored = client?.clientSecretHash ?? '';
  const secretMatches = constantTimeEqual(digest.value, stored);
  return client !== null && client.clientId === clientId && secretMatches && stored !== ''
    ? ok(client)
    : err({ code: 'invalid_client' });
}

// ---------------------------------------------------------------------------------------------
// Grant decisions

/**
 * What to do with a redeemed authorization code.
 *
 * @example
 * ```ts
 * const d: AuthorizationCodeGrantDecision = { kind: 'issue', familyId: 'f1', clientId: 'gai_c', userId: 'u1', scopes: ['user:all'] };
 * ```
 */
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

/**
 * Why an authorization code grant is refused (all `invalid_grant`, RFC 6749 §5.2).
 *
 * @example
 * ```ts
 * const e: AuthorizationCodeGrantError = { code: 'code_verifier_mismatch' };
 * ```
 */
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

/**
 * Input of {@link decideAuthorizationCodeGrant}.
 *
 * @example
 * ```ts
 * const input: AuthorizationCodeGrantInput = { now: Date.now(), clientId: client.clientId, grant, record, sha256 };
 * ```
 */
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

function readNow(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
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
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const now = readNow(ownField(raw, 'now'));
  if (now === null) return err({ code: 'invalid_input', field: 'now' });
  const clientId = ownField(raw, 'clientId');
  if (typeof clientId !== 'string') return err({ code: 'invalid_input', field: 'clientId' });
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

/**
 * What to do with a presented refresh token.
 *
 * @example
 * ```ts
 * const d: RefreshTokenGrantDecision = {
 *   kind: 'rotate', familyId: 'f1', clientId: 'gai_c', userId: 'u1', usedTokenHash: '…',
 *   accessTokenScopes: ['user:all'], refreshTokenScopes: ['user:all'],
 * };
 * ```
 */
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

/**
 * Why a refresh token grant is refused (`invalid_grant`, or `invalid_scope` for the scope codes).
 *
 * @example
 * ```ts
 * const e: RefreshTokenGrantError = { code: 'family_revoked' };
 * ```
 */
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

/**
 * Input of {@link decideRefreshTokenGrant}.
 *
 * @example
 * ```ts
 * const input: RefreshTokenGrantInput = { now: Date.now(), clientId: client.clientId, grant, record };
 * ```
 */
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
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const now = readNow(ownField(raw, 'now'));
  if (now === null) return err({ code: 'invalid_input', field: 'now' });
  const clientId = ownField(raw, 'clientId');
  if (typeof clientId !== 'string') return err({ code: 'invalid_input', field: 'clientId' });
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

// ---------------------------------------------------------------------------------------------
// Access token use

/**
 * Whether a presented OAuth access token is good now.
 *
 * @example
 * ```ts
 * const d: OAuthAccessTokenDecision = { kind: 'allow', userId: 'u1', clientId: 'gai_c', scopes: ['user:all'] };
 * ```
 */
export type OAuthAccessTokenDecision =
  /** It acts for `userId` with `scopes`. */
  | { readonly kind: 'allow'; readonly userId: string; readonly clientId: string; readonly scopes: readonly string[] }
  /** It does not work. */
  | { readonly kind: 'deny'; readonly reason: 'unknown_token' | 'expired' | 'family_revoked' };

/**
 * Why {@link decideOAuthAccessTokenUse} could not decide.
 *
 * @example
 * ```ts
 * const e: OAuthAccessTokenUseError = { code: 'invalid_input', field: 'now' };
 * ```
 */
export type OAuthAccessTokenUseError =
  /** The input has the wrong shape at run time. */
  { readonly code: 'invalid_input'; readonly field: 'input' | 'now' | 'record' };

/**
 * Input of {@link decideOAuthAccessTokenUse}.
 *
 * @example
 * ```ts
 * const input: OAuthAccessTokenUseInput = { now: Date.now(), record: await store.findAccessToken(digest) };
 * ```
 */
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
 * @returns `ok(allow | deny)`, or `err` for a malformed input.
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
  return ok(
    match([familyRevoked, now >= expiresAt] as const)
      .returnType<OAuthAccessTokenDecision>()
      .with([true, P._], () => ({ kind: 'deny', reason: 'family_revoked' }))
      .with([false, true], () => ({ kind: 'deny', reason: 'expired' }))
      .with([false, false], () => ({ kind: 'allow', userId, clientId, scopes: [...scopes] }))
      .exhaustive(),
  );
}

// ---------------------------------------------------------------------------------------------
// Token revocation (RFC 7009)

/**
 * A well-formed revocation request (RFC 7009 §2.1).
 *
 * @example
 * ```ts
 * const r: RevocationRequest = { client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_basic' }, token: 'gar_…' };
 * ```
 */
export interface RevocationRequest {
  /** The client's credentials (not yet checked). */
  readonly client: ClientCredentials;
  /** The token to revoke, an access or a refresh token (its prefix says which; `token_type_hint` is not needed). */
  readonly token: string;
}

/**
 * Why a revocation request is malformed: the client-authentication problems of {@link TokenRequestError}, or
 * no `token`.
 *
 * @example
 * ```ts
 * const e: RevocationRequestError = { code: 'missing_parameter', parameter: 'token' };
 * ```
 */
export type RevocationRequestError =
  | ClientPartError
  /** No `token` parameter. */
  | { readonly code: 'missing_parameter'; readonly parameter: 'token' };

/**
 * Reads `POST /.auth/idp/oauth/revoke` (RFC 7009 §2.1) into a typed request, checking syntax only: client
 * authentication exactly as at the token endpoint, then `token`. `token_type_hint` is read by nobody: the
 * token's own prefix says what it is, and RFC 7009 §2.1 lets the server ignore the hint.
 *
 * @param input - The form parameters and the `Authorization` header.
 * @returns `ok(request)` or `err` with the first problem.
 * @example
 * ```ts
 * readRevocationRequest({ params: [['token', 'gar_x'], ['client_id', 'gai_c'], ['client_secret', 'gas_s']], authorization: undefined });
 * // ok({ client: { clientId: 'gai_c', clientSecret: 'gas_s', method: 'client_secret_post' }, token: 'gar_x' })
 * readRevocationRequest({ params: [], authorization: 'Basic Yzpz' });
 * // err({ code: 'missing_parameter', parameter: 'token' })
 * ```
 */
export function readRevocationRequest(input: TokenRequestInput): Result<RevocationRequest, RevocationRequestError> {
  const read = readClientPart(input);
  if (read.isErr()) return err(read.error);
  const token = read.value.get('token');
  if (token === undefined) return err({ code: 'missing_parameter', parameter: 'token' });
  return ok({ client: read.value.client, token });
}

/**
 * What a revocation does (RFC 7009 §2.1, §2.2).
 *
 * @example
 * ```ts
 * const d: TokenRevocationDecision = { kind: 'revoke_family', familyId: 'f1', userId: 'u1' };
 * ```
 */
export type TokenRevocationDecision =
  /** A refresh token: revoke its family, so every access and refresh token of the grant stops working. */
  | { readonly kind: 'revoke_family'; readonly familyId: string; readonly userId: string }
  /** An access token: revoke that token only; the client's refresh token keeps working. */
  | { readonly kind: 'revoke_access_token'; readonly tokenHash: string; readonly userId: string }
  /** An unknown, malformed or already dead token: nothing to do, and the answer is still 200 (RFC 7009 §2.2). */
  | { readonly kind: 'nothing' };

/**
 * Why {@link decideTokenRevocation} refuses or cannot decide.
 *
 * @example
 * ```ts
 * const e: TokenRevocationError = { code: 'token_of_another_client' };
 * ```
 */
export type TokenRevocationError =
  /** The input has the wrong shape at run time. */
  | { readonly code: 'invalid_input'; readonly field: 'input' | 'clientId' | 'token' }
  /** The token was issued to another client: RFC 7009 §2.1 has the request refused. */
  | { readonly code: 'token_of_another_client' };

/**
 * Input of {@link decideTokenRevocation}: the authenticated client and the presented token's record, looked up
 * by the digest of the token as the kind its prefix names.
 *
 * @example
 * ```ts
 * const input: TokenRevocationInput = { clientId: 'gai_c', token: { kind: 'refresh_token', record: await store.findRefreshToken(digest) } };
 * ```
 */
export interface TokenRevocationInput {
  /** The authenticated client's id. */
  readonly clientId: string;
  /** The presented token: its kind and record (`null`: not found), or `null` when it is neither kind. */
  readonly token:
    | { readonly kind: 'access_token'; readonly record: OAuthAccessTokenRecord | null }
    | { readonly kind: 'refresh_token'; readonly record: RefreshTokenRecord | null }
    | null;
}

/**
 * Decides a revocation request after client authentication (RFC 7009 §2.1): a token the server does not
 * know (or one already revoked) needs nothing; a token of another client is refused; a refresh token revokes
 * its whole family (RFC 7009 §2.1: the access tokens of the same grant SHOULD go too); an access token revokes
 * itself only.
 *
 * @param input - The authenticated client and the presented token's record.
 * @returns `ok(decision)`, or `err` for another client's token or a malformed input.
 * @example
 * ```ts
 * decideTokenRevocation({ clientId: 'gai_c', token: { kind: 'refresh_token', record } });
 * // ok({ kind: 'revoke_family', familyId: record.familyId, userId: record.userId }) when record.clientId is 'gai_c'
 * decideTokenRevocation({ clientId: 'gai_c', token: null }); // ok({ kind: 'nothing' })
 * ```
 */
export function decideTokenRevocation(input: TokenRevocationInput): Result<TokenRevocationDecision, TokenRevocationError> {
  const raw: unknown = input;
  if (!isObject(raw)) return err({ code: 'invalid_input', field: 'input' });
  const clientId = ownField(raw, 'clientId');
  if (typeof clientId !== 'string' || clientId === '') return err({ code: 'invalid_input', field: 'clientId' });
  const token = ownField(raw, 'token');
  if (token === null) return ok({ kind: 'nothing' });
  const kind = ownField(token, 'kind');
  const record = ownField(token, 'record');
  if ((kind !== 'access_token' && kind !== 'refresh_token') || record === undefined) return err({ code: 'invalid_input', field: 'token' });
  if (record === null) return ok({ kind: 'nothing' });
  const owner = ownField(record, 'clientId');
  const familyId = ownField(record, 'familyId');
  const userId = ownField(record, 'userId');
  const tokenHash = ownField(record, 'tokenHash');
  const familyRevoked = ownField(record, 'familyRevoked');
  if (
    typeof owner !== 'string' ||
    typeof familyId !== 'string' ||
    typeof userId !== 'string' ||
    typeof tokenHash !== 'string' ||
    typeof familyRevoked !== 'boolean'
  ) {
    return err({ code: 'invalid_input', field: 'token' });
  }
  if (owner !== clientId) return err({ code: 'token_of_another_client' });
  if (familyRevoked) return ok({ kind: 'nothing' });
  return ok(
    kind === 'refresh_token' ? { kind: 'revoke_family', familyId, userId } : { kind: 'revoke_access_token', tokenHash, userId },
  );
}
