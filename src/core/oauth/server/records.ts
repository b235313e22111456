/**
 * The records and constants of the OAuth 2.0 authorization server: scopes, lifetimes, and the stored clients, codes and tokens the adapter passes in (spec §2.4).
 *
 * Total functions, no I/O: the adapter looks records up and applies the decisions (see `oauth-authorization.ts`).
 *
 * @module
 */
import { isObject, isStringArray, ownField } from '../../internal/guard.js';

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

/** A scope an OAuth app may hold. */
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

/** One of {@link OAUTH_SECRET_KINDS}. */
export type OAuthSecretKind = (typeof OAUTH_SECRET_KINDS)[number];

// ---------------------------------------------------------------------------------------------
// Records the adapter passes in

/**
 * A registered OAuth app as the store holds it (only the fields the decisions read). The client
 * secret is stored only as its digest (`hashAccessToken` of the secret).
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

/** An authorization code as the store holds it. */
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


/** An OAuth access token as the store reports it, joined with the state of its family. */
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

/** A refresh token as the store reports it, joined with the state of its family (its scopes: those first granted). */
export interface RefreshTokenRecord extends OAuthAccessTokenRecord {
  /** Whether it was already exchanged for a successor. */
  readonly used: boolean;
}

/** Request parameters in order, duplicates kept, as `[...new URLSearchParams(text)]` gives them. */
export type OAuthParameters = readonly (readonly [string, string])[];

/** A SHA-256 implementation over bytes, e.g. `(b) => new Uint8Array(createHash('sha256').update(b).digest())`. */
export type Sha256 = (bytes: Uint8Array) => Uint8Array;

/**
 * Reads a stored client passed in by the adapter: `null` stays `null` (no such app), a malformed value gives `undefined`.
 *
 * @internal
 */
export function readClient(value: unknown): OAuthClient | null | undefined {
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
 * Reads the injected clock: a finite number of milliseconds, else `null`.
 *
 * @internal
 */
export function readNow(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
