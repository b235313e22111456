/**
 * What the rest of the server sees of the OAuth authorization server (spec §2.4): the paths of its routes and the
 * shapes of registering an app. It imports nothing, so the route table and the site administration pages read it
 * without loading the server.
 *
 * @module
 */

/** Path of the authorization endpoint. */
export const AUTHORIZE_PATH = '/.auth/idp/oauth/authorize';
/** Path of the token endpoint. */
export const TOKEN_PATH = '/.auth/idp/oauth/token';
/** Path of the revocation endpoint (RFC 7009). */
export const REVOCATION_PATH = '/.auth/idp/oauth/revoke';
/**
 * Path of the authorization server metadata (RFC 8414 §3): the well-known URI of an issuer without a path.
 *
 * @example
 * ```ts
 * const metadata = await fetch(`${base}${OAUTH_METADATA_PATH}`).then((r) => r.json());
 * ```
 */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * The paths of the authorization server's routes.
 *
 * @example
 * ```ts
 * OAUTH_PATHS.token; // '/.auth/idp/oauth/token'
 * ```
 */
export const OAUTH_PATHS: { readonly authorize: string; readonly token: string; readonly revoke: string; readonly metadata: string } = Object.freeze({
  authorize: AUTHORIZE_PATH,
  token: TOKEN_PATH,
  revoke: REVOCATION_PATH,
  metadata: OAUTH_METADATA_PATH,
});

/**
 * The input of registering an OAuth app.
 *
 * @example
 * ```ts
 * const input: OAuthAppInput = { name: 'CI bot', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'], ownerUserId: 'admin' };
 * ```
 */
export interface OAuthAppInput {
  /** Display name. */
  readonly name: string;
  /** Exact redirect URIs. */
  readonly redirectUris: readonly string[];
  /** Scopes, `user:all` among them. */
  readonly scopes: readonly string[];
  /** The administrator registering it (the caller checks that they are one). */
  readonly ownerUserId: string;
}

/**
 * Why an app was not registered or its secret not rotated: a code and a sentence.
 *
 * @example
 * ```ts
 * const refusal: OAuthAppRefusal = { code: 'unknown_oauth_app', message: 'No such OAuth app.' };
 * ```
 */
export interface OAuthAppRefusal {
  /** What went wrong. */
  readonly code: string;
  /** One sentence for the administrator. */
  readonly message: string;
}
