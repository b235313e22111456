/**
 * The OAuth 2.0 authorization server of gatehouse (`/.auth/idp/oauth/authorize` and `/.auth/idp/oauth/token`) on `node:http`, with its store; every decision is made by `core/oauth-authorization`.
 *
 * Flow: the authorization code grant with PKCE (S256 only) for confidential clients that a site
 * administrator registered (`client_secret_basic` or `client_secret_post`). The authorize step
 * **approves automatically** once the browser user is signed in: apps are registered by a site
 * administrator, so the administrator's registration stands for consent (like a first-party app);
 * a user who is not signed in is sent to the sign-in page and comes back. Access tokens are
 * short-lived (default 3600 s); refresh tokens rotate on every use; a replayed refresh token or
 * authorization code revokes its whole family, access tokens included (RFC 9700 §4.14.2).
 *
 * The adapter only translates: request → plain input, lookups in the store, core decision →
 * store write (an atomic compare-and-set) and HTTP response.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { hashAccessToken } from '../core/access-token.js';
import {
  AUTHORIZATION_CODE_TTL_SECONDS,
  REFRESH_TOKEN_TTL_SECONDS,
  authenticateOAuthClient,
  decideAuthorizationCodeGrant,
  decideOAuthAccessTokenUse,
  decideRefreshTokenGrant,
  decideTokenRevocation,
  generateOAuthSecret,
  OAUTH_SCOPES,
  parseOAuthSecret,
  readRevocationRequest,
  readTokenRequest,
  resolveAccessTokenTtl,
  validateAuthorizeRequest,
  validateOAuthAppRegistration,
} from '../core/oauth-authorization.js';
import type {
  AuthorizationCodeGrant,
  AuthorizationCodeRecord,
  OAuthAccessTokenRecord,
  OAuthAppRegistrationError,
  OAuthClient,
  OAuthSecretKind,
  RefreshTokenGrant,
  RefreshTokenRecord,
  TokenRevocationDecision,
} from '../core/oauth-authorization.js';
import { sha256 } from './digest.js';
import { authorizeError, registrationMessage, tokenEndpointError } from './oauth-errors.js';
import type { TokenEndpointFailure } from './oauth-errors.js';
import { escapeHtml } from './http-io.js';
import { htmlResponse, jsonResponse, pageShell } from './respond.js';
import type { RouteBody, RouteRequest, RouteResponse } from './route.js';

/** Path of the authorization endpoint. */
const AUTHORIZE_PATH = '/.auth/idp/oauth/authorize';
/** Path of the token endpoint. */
const TOKEN_PATH = '/.auth/idp/oauth/token';
/** Path of the revocation endpoint (RFC 7009). */
const REVOCATION_PATH = '/.auth/idp/oauth/revoke';
/**
 * Path of the authorization server metadata (RFC 8414 §3): the well-known URI of an issuer without a path.
 *
 * @example
 * ```ts
 * const metadata = await fetch(`${base}${OAUTH_METADATA_PATH}`).then((r) => r.json());
 * ```
 */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-authorization-server';
/** Largest token request body accepted. */
const TOKEN_BODY_LIMIT = 16 * 1024;

// ---------------------------------------------------------------------------------------------
// Store

/**
 * A registered OAuth app as stored (the client secret only as its SHA-256 digest).
 *
 * @example
 * ```ts
 * const app: OAuthAppRecord = {
 *   clientId: 'gai_…', clientSecretHash: '5e88…', redirectUris: ['https://app.example/cb'], scopes: ['user:all'],
 *   name: 'CI bot', ownerUserId: 'u1', createdAt: 1_700_000_000_000,
 * };
 * ```
 */
export interface OAuthAppRecord extends OAuthClient {
  /** Display name. */
  readonly name: string;
  /** The site administrator who registered it. */
  readonly ownerUserId: string;
  /** When it was registered (ms since the epoch). */
  readonly createdAt: number;
}

/**
 * An access token as stored (its family's state is joined in on read).
 *
 * @example
 * ```ts
 * const row: StoredOAuthAccessToken = { tokenHash: '…', familyId: 'f', clientId: 'gai_…', userId: 'u1', scopes: ['user:all'], expiresAt: 1 };
 * ```
 */
export type StoredOAuthAccessToken = Omit<OAuthAccessTokenRecord, 'familyRevoked'>;

/**
 * A refresh token as stored (its family's state is joined in on read).
 *
 * @example
 * ```ts
 * const row: StoredRefreshToken = { tokenHash: '…', familyId: 'f', clientId: 'gai_…', userId: 'u1', scopes: ['user:all'], expiresAt: 1, used: false };
 * ```
 */
export type StoredRefreshToken = Omit<RefreshTokenRecord, 'familyRevoked'>;

/**
 * The pair of tokens one grant issues.
 *
 * @example
 * ```ts
 * const issued: IssuedOAuthTokens = { accessToken, refreshToken };
 * ```
 */
export interface IssuedOAuthTokens {
  /** The new access token. */
  readonly accessToken: StoredOAuthAccessToken;
  /** The new refresh token. */
  readonly refreshToken: StoredRefreshToken;
}

/**
 * Persistence of the authorization server. Every method is atomic: it either does all it says or
 * nothing, and the compare-and-set methods (`redeemAuthorizationCode`, `rotateRefreshToken`) check
 * and write in one step, so two concurrent uses of one code or refresh token cannot both succeed.
 *
 * @example
 * ```ts
 * const store: OAuthStore = createMemoryOAuthStore();
 * ```
 */
export interface OAuthStore {
  /** Adds an app; resolves `false` (and changes nothing) when its client id exists. */
  insertApp(app: OAuthAppRecord): Promise<boolean>;
  /** The app with this client id, or `null`. */
  findApp(clientId: string): Promise<OAuthAppRecord | null>;
  /** Adds an authorization code. */
  insertAuthorizationCode(record: AuthorizationCodeRecord): Promise<void>;
  /** The code with this digest, or `null`. */
  findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | null>;
  /**
   * If the code exists and is unused: marks it used and stores the tokens, resolving `true`.
   * Otherwise changes nothing and resolves `false`.
   */
  redeemAuthorizationCode(codeHash: string, tokens: IssuedOAuthTokens): Promise<boolean>;
  /** The refresh token with this digest, joined with its family's state, or `null`. */
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /**
   * If the refresh token exists, is unused and its family is not revoked: marks it used and stores
   * its successors, resolving `true`. Otherwise changes nothing and resolves `false`.
   */
  rotateRefreshToken(usedTokenHash: string, tokens: IssuedOAuthTokens): Promise<boolean>;
  /** The access token with this digest, joined with its family's state, or `null`. */
  findAccessToken(tokenHash: string): Promise<OAuthAccessTokenRecord | null>;
  /** Revokes a family: every access and refresh token in it stops working, now and later. */
  revokeFamily(familyId: string): Promise<void>;
  /**
   * Deletes at most `limit` authorization codes, used or not, whose `expiresAt` is at or before `expiredBy` (the
   * core's `purgeCutoffs`, which keeps codes for a replay grace after expiry); returns how many it deleted. It
   * returns fewer than `limit` only when no such code remains.
   */
  purgeAuthorizationCodes(expiredBy: number, limit: number): Promise<number>;
  /** Revokes one access token (RFC 7009): it stops working; its family and refresh token are untouched. */
  revokeAccessToken(tokenHash: string): Promise<void>;
}

/**
 * An in-memory {@link OAuthStore}. Each method runs synchronously to completion before it resolves,
 * so each is atomic in a single Node process. Records are copied in and out (callers cannot mutate
 * stored state).
 *
 * @returns A new, empty store.
 * @example
 * ```ts
 * const idp = createOAuthIdp({ store: createMemoryOAuthStore(), now: Date.now, randomBytes, authenticateBrowser, signInPath: '/.auth/sign-in' });
 * ```
 */
export function createMemoryOAuthStore(): OAuthStore {
  const apps = new Map<string, OAuthAppRecord>();
  const codes = new Map<string, AuthorizationCodeRecord>();
  const refreshTokens = new Map<string, StoredRefreshToken>();
  const accessTokens = new Map<string, StoredOAuthAccessToken>();
  const revokedFamilies = new Set<string>();
  const copy = <T extends object>(value: T): T => structuredClone(value);
  const put = (tokens: IssuedOAuthTokens): void => {
    accessTokens.set(tokens.accessToken.tokenHash, copy(tokens.accessToken));
    refreshTokens.set(tokens.refreshToken.tokenHash, copy(tokens.refreshToken));
  };
  return {
    insertApp: async (app) => {
      if (apps.has(app.clientId)) return false;
      apps.set(app.clientId, copy(app));
      return true;
    },
    findApp: async (clientId) => {
      const app = apps.get(clientId);
      return app === undefined ? null : copy(app);
    },
    insertAuthorizationCode: async (record) => {
      codes.set(record.codeHash, copy(record));
    },
    findAuthorizationCode: async (codeHash) => {
      const record = codes.get(codeHash);
      return record === undefined ? null : copy(record);
    },
    redeemAuthorizationCode: async (codeHash, tokens) => {
      const record = codes.get(codeHash);
      if (record === undefined || record.used) return false;
      codes.set(codeHash, { ...record, used: true });
      put(tokens);
      return true;
    },
    findRefreshToken: async (tokenHash) => {
      const row = refreshTokens.get(tokenHash);
      return row === undefined ? null : { ...copy(row), familyRevoked: revokedFamilies.has(row.familyId) };
    },
    rotateRefreshToken: async (usedTokenHash, tokens) => {
      const row = refreshTokens.get(usedTokenHash);
      if (row === undefined || row.used || revokedFamilies.has(row.familyId)) return false;
      refreshTokens.set(usedTokenHash, { ...row, used: true });
      put(tokens);
      return true;
    },
    findAccessToken: async (tokenHash) => {
      const row = accessTokens.get(tokenHash);
      return row === undefined ? null : { ...copy(row), familyRevoked: revokedFamilies.has(row.familyId) };
    },
    revokeFamily: async (familyId) => {
      revokedFamilies.add(familyId);
    },
    purgeAuthorizationCodes: async (expiredBy, limit) => {
      const max = Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
      let removed = 0;
      for (const [codeHash, record] of codes) {
        if (removed >= max) break;
        if (record.expiresAt <= expiredBy) {
          codes.delete(codeHash);
          removed++;
        }
      }
      return removed;
    },
    revokeAccessToken: async (tokenHash) => {
      accessTokens.delete(tokenHash);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Options and result

/**
 * What {@link createOAuthIdp} needs.
 *
 * @example
 * ```ts
 * const options: OAuthIdpOptions = {
 *   store: createMemoryOAuthStore(), now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)),
 *   authenticateBrowser: async (req) => sessions.userOf(req), signInPath: '/.auth/sign-in',
 * };
 * ```
 */
export interface OAuthIdpOptions {
  /** Where apps, codes and tokens live. */
  readonly store: OAuthStore;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** A CSPRNG: `n` random bytes. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Lifetime of access tokens in seconds (1 to 86400). Default 3600. */
  readonly accessTokenTtlSeconds?: number;
  /** The signed-in browser user of a request (session cookie), or `null`. */
  readonly authenticateBrowser: (req: RouteRequest) => Promise<{ userId: string } | null>;
  /** The sign-in page; it receives `?returnTo=<path and query>` and sends the user back there. */
  readonly signInPath: string;
  /** Where security events go (the server's audit log); none are recorded without it. */
  readonly audit?: (entry: OAuthAuditEntry) => Promise<void>;
  /**
   * The issuer identifier published in the metadata (RFC 8414 §2): the site's `externalURL`, or the address the
   * server listens on; `null` when neither is known yet (the metadata then names the request's `Host`).
   */
  readonly issuer?: () => string | null;
}

/**
 * A security event of the authorization server, in the shape of the server's audit log entries. It never
 * holds a secret: no token, code, verifier or client secret, only account ids and a fixed reason.
 *
 * @example
 * ```ts
 * const entry: OAuthAuditEntry = {
 *   entity: 'oauth.token', action: 'revoked', reason: 'refresh token reused', actorUserId: null, subjectUserId: 'u1',
 * };
 * ```
 */
export interface OAuthAuditEntry {
  /** Always `oauth.token`. */
  readonly entity: 'oauth.token';
  /** `issued`: an authorization code was redeemed (a new token family); `revoked`: a family or an access token was revoked. */
  readonly action: 'issued' | 'revoked';
  /**
   * Why: `authorization code grant`, which replay revoked the family (RFC 9700 §4.14.2), or the app asked at the
   * revocation endpoint (RFC 7009) for its refresh token's family or one access token.
   */
  readonly reason:
    | 'authorization code grant'
    | 'refresh token reused'
    | 'authorization code reused'
    | 'refresh token revoked by client'
    | 'access token revoked by client';
  /** Who acted: the user for `issued`; `null` for `revoked` (a replayer is unknown; an app is not an account). */
  readonly actorUserId: string | null;
  /** The user whose tokens these are. */
  readonly subjectUserId: string;
}

/**
 * The input of {@link OAuthIdp.registerApp}.
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
 * The authorization server.
 *
 * @example
 * ```ts
 * const idp: OAuthIdp = createOAuthIdp(options);
 * http.createServer(async (req, res) => {
 *   const url = new URL(req.url ?? '/', 'http://localhost');
 *   if (await idp.handle(req, res, url)) return;
 *   // … other routes
 * });
 * ```
 */
export interface OAuthIdp {
  /** The handlers of the authorization server's routes; the route table names their paths ({@link OAUTH_PATHS}). */
  readonly handlers: OAuthIdpHandlers;
  /** The user and scopes of a valid, unexpired, unrevoked OAuth access token, or `null`. */
  verifyAccessToken(token: string): Promise<{ userId: string; scopes: readonly string[] } | null>;
  /** Registers an app and returns its client id and (only this once) its client secret. */
  registerApp(input: OAuthAppInput): Promise<Result<{ clientId: string; clientSecret: string }, { code: string; message: string }>>;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function digestOf(secret: string): string | null {
  return hashAccessToken(secret, sha256).unwrapOr(null);
}

/** The digest to look a presented value up by, or `null` when it cannot be one of ours. */
function lookupDigest(kind: OAuthSecretKind, presented: string): string | null {
  return parseOAuthSecret(kind, presented).isOk() ? digestOf(presented) : null;
}

function appendQuery(uri: string, params: URLSearchParams): string {
  return uri + (uri.includes('?') ? '&' : '?') + params.toString();
}

function redirectTo(location: string): RouteResponse {
  return { status: 302, headers: { location, 'referrer-policy': 'no-referrer' }, body: null };
}

/**
 * The handlers of the authorization server (spec §2.4).
 *
 * @example
 * ```ts
 * const response = await idp.handlers.metadata(request);
 * ```
 */
export interface OAuthIdpHandlers {
  /** `GET /.auth/idp/oauth/authorize` (RFC 6749 §4.1.1). */
  readonly authorize: (request: RouteRequest) => Promise<RouteResponse>;
  /** `POST /.auth/idp/oauth/token` (RFC 6749 §3.2). */
  readonly token: (request: RouteRequest) => Promise<RouteResponse>;
  /** `POST /.auth/idp/oauth/revoke` (RFC 7009). */
  readonly revoke: (request: RouteRequest) => Promise<RouteResponse>;
  /** `GET /.well-known/oauth-authorization-server` (RFC 8414). */
  readonly metadata: (request: RouteRequest) => Promise<RouteResponse>;
}

/**
 * The paths of the authorization server's routes.
 *
 * @example
 * ```ts
 * OAUTH_PATHS.token; // '/.auth/idp/oauth/token'
 * ```
 */
export const OAUTH_PATHS: { readonly authorize: string; readonly token: string; readonly revoke: string; readonly metadata: string } = Object.freeze({ authorize: AUTHORIZE_PATH, token: TOKEN_PATH, revoke: REVOCATION_PATH, metadata: OAUTH_METADATA_PATH });

/**
 * The body the token and revocation endpoints read: a form within the limit, never compressed. Its media type is
 * checked by the endpoint, which answers RFC 6749 §5.2's `invalid_request` for another one.
 */
export const OAUTH_FORM_BODY: RouteBody = Object.freeze({ limit: TOKEN_BODY_LIMIT, contentTypes: 'any', decompress: false });

/** The form parameters of a token or revocation request (RFC 6749 §3.2: `application/x-www-form-urlencoded`). */
function readForm(req: RouteRequest): Result<[string, string][], TokenEndpointFailure> {
  if (!isFormContentType(req.headers['content-type'])) return err({ code: 'unsupported_content_type' });
  return ok([...new URLSearchParams(req.body ?? '')]);
}

/** Every `Authorization` header value, as sent (a repeated one is refused by the core). */
function authorizationOf(req: RouteRequest): readonly string[] | undefined {
  return req.headersDistinct['authorization'];
}

function isFormContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';')[0]?.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded';
}

function errorPage(title: string, message: string): string {
  return pageShell({ title, body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` });
}

// ---------------------------------------------------------------------------------------------
// The server

/**
 * Creates the OAuth authorization server (spec §2.4, §5.1 rules 1 and 3).
 * Throws a `RangeError` at construction when `accessTokenTtlSeconds` is not 1 to 86400 (a
 * configuration error, reported before the server serves anything).
 *
 * @param options - Store, clock, random source, token lifetime, browser authentication and sign-in path.
 * @returns The request handler, the `Bearer` token verifier and app registration.
 * @example
 * ```ts
 * const idp = createOAuthIdp({
 *   store: createMemoryOAuthStore(), now: Date.now, randomBytes: (n) => new Uint8Array(crypto.randomBytes(n)),
 *   authenticateBrowser: async () => null, signInPath: '/.auth/sign-in',
 * });
 * const app = await idp.registerApp({ name: 'CI', redirectUris: ['https://ci.example/cb'], scopes: ['user:all'], ownerUserId: 'admin' });
 * // ok({ clientId: 'gai_…', clientSecret: 'gas_…' })
 * ```
 */
export function createOAuthIdp(options: OAuthIdpOptions): OAuthIdp {
  // Best effort: the grant has been decided and stored by the time it is audited, so a failing audit
  // sink must not turn it into an error the client would retry.
  const audit = (entry: OAuthAuditEntry): Promise<void> =>
    options.audit === undefined ? Promise.resolve() : options.audit(entry).catch(() => undefined);
  const ttl = resolveAccessTokenTtl(options.accessTokenTtlSeconds);
  if (ttl.isErr()) throw new RangeError(`accessTokenTtlSeconds must be an integer from 1 to ${ttl.error.max}.`);
  const ctx: IdpContext = {
    store: options.store,
    now: options.now,
    randomBytes: options.randomBytes,
    audit,
    accessTokenTtlSeconds: ttl.value,
    authenticateBrowser: options.authenticateBrowser,
    signInPath: options.signInPath,
    issuer: options.issuer ?? (() => null),
  };
  const { store, now } = ctx;

  return {
    handlers: {
      authorize: (request) => handleAuthorize(ctx, request),
      token: (request) => handleToken(ctx, request),
      revoke: (request) => handleRevocation(ctx, request),
      metadata: (request) => handleMetadata(ctx, request),
    },

    async verifyAccessToken(token) {
      const tokenHash = lookupDigest('access_token', token);
      const record = tokenHash === null ? null : await store.findAccessToken(tokenHash);
      const decision = decideOAuthAccessTokenUse({ now: now(), record });
      if (decision.isErr() || decision.value.kind === 'deny') return null;
      return { userId: decision.value.userId, scopes: decision.value.scopes };
    },

    async registerApp(input) {
      const fail = (e: OAuthAppRegistrationError | { readonly code: 'invalid_owner' | 'internal_error' }) =>
        err({ code: e.code, message: registrationMessage(e) });
      const registration = validateOAuthAppRegistration(input);
      if (registration.isErr()) return fail(registration.error);
      const owner: unknown = input.ownerUserId;
      if (typeof owner !== 'string' || owner === '') return fail({ code: 'invalid_owner' });
      const clientId = secret(ctx, 'client_id');
      const clientSecret = secret(ctx, 'client_secret');
      const clientSecretHash = clientSecret === null ? null : digestOf(clientSecret);
      if (clientId === null || clientSecret === null || clientSecretHash === null) return fail({ code: 'internal_error' });
      const inserted = await store.insertApp({
        clientId,
        clientSecretHash,
        redirectUris: registration.value.redirectUris,
        scopes: registration.value.scopes,
        name: registration.value.name,
        ownerUserId: owner,
        createdAt: now(),
      });
      return inserted ? ok({ clientId, clientSecret }) : fail({ code: 'internal_error' });
    },
  };
}

/** What the authorization server's handlers share, built once by {@link createOAuthIdp}. */
interface IdpContext {
  readonly store: OAuthStore;
  readonly now: () => number;
  readonly randomBytes: (n: number) => Uint8Array;
  /** Best effort: never rejects. */
  readonly audit: (entry: OAuthAuditEntry) => Promise<void>;
  readonly accessTokenTtlSeconds: number;
  readonly authenticateBrowser: (req: RouteRequest) => Promise<{ userId: string } | null>;
  readonly signInPath: string;
  readonly issuer: () => string | null;
}

/** A new OAuth secret of a kind, or `null` when the random source failed. */
function secret(ctx: IdpContext, kind: OAuthSecretKind): string | null {
  return generateOAuthSecret(kind, ctx.randomBytes(20)).unwrapOr(null);
}

/** A new token family id. */
function familyIdOf(ctx: IdpContext): string {
  return Buffer.from(ctx.randomBytes(16)).toString('base64url');
}

/** Mints an access and a refresh token; `null` if the random source or digest failed. */
function mint(
  ctx: IdpContext,
  grant: { familyId: string; clientId: string; userId: string; accessTokenScopes: readonly string[]; refreshTokenScopes: readonly string[] },
  at: number,
): { secrets: { accessToken: string; refreshToken: string }; records: IssuedOAuthTokens } | null {
  const accessToken = secret(ctx, 'access_token');
  const refreshToken = secret(ctx, 'refresh_token');
  const accessHash = accessToken === null ? null : digestOf(accessToken);
  const refreshHash = refreshToken === null ? null : digestOf(refreshToken);
  if (accessToken === null || refreshToken === null || accessHash === null || refreshHash === null) return null;
  const common = { familyId: grant.familyId, clientId: grant.clientId, userId: grant.userId };
  return {
    secrets: { accessToken, refreshToken },
    records: {
      accessToken: { ...common, tokenHash: accessHash, scopes: [...grant.accessTokenScopes], expiresAt: at + ctx.accessTokenTtlSeconds * 1000 },
      refreshToken: {
        ...common,
        tokenHash: refreshHash,
        scopes: [...grant.refreshTokenScopes],
        expiresAt: at + REFRESH_TOKEN_TTL_SECONDS * 1000,
        used: false,
      },
    },
  };
}

/** The secrets a grant issues. */
type Issued = { accessToken: string; refreshToken: string; scopes: readonly string[] };

async function redeemCode(ctx: IdpContext, clientId: string, grant: AuthorizationCodeGrant): Promise<Result<Issued, TokenEndpointFailure>> {
  const codeHash = lookupDigest('authorization_code', grant.code);
  // Two rounds at most: a lost compare-and-set means someone redeemed the code meanwhile, and the
  // second reading sees it used.
  for (let round = 0; round < 2; round++) {
    const at = ctx.now();
    const record = codeHash === null ? null : await ctx.store.findAuthorizationCode(codeHash);
    const decision = decideAuthorizationCodeGrant({ now: at, clientId, grant, record, sha256 });
    if (decision.isErr()) return err(decision.error);
    const d = decision.value;
    if (d.kind === 'revoke_family') {
      await ctx.store.revokeFamily(d.familyId);
      if (record !== null) {
        await ctx.audit({ entity: 'oauth.token', action: 'revoked', reason: 'authorization code reused', actorUserId: null, subjectUserId: record.userId });
      }
      return err({ code: 'authorization_code_reused' });
    }
    const minted = mint(ctx, { ...d, accessTokenScopes: d.scopes, refreshTokenScopes: d.scopes }, at);
    if (minted === null || codeHash === null) return err({ code: 'internal_error' });
    if (await ctx.store.redeemAuthorizationCode(codeHash, minted.records)) {
      await ctx.audit({ entity: 'oauth.token', action: 'issued', reason: 'authorization code grant', actorUserId: d.userId, subjectUserId: d.userId });
      return ok({ ...minted.secrets, scopes: d.scopes });
    }
  }
  return err({ code: 'internal_error' });
}

async function rotate(ctx: IdpContext, clientId: string, grant: RefreshTokenGrant): Promise<Result<Issued, TokenEndpointFailure>> {
  const tokenHash = lookupDigest('refresh_token', grant.refreshToken);
  for (let round = 0; round < 2; round++) {
    const at = ctx.now();
    const record = tokenHash === null ? null : await ctx.store.findRefreshToken(tokenHash);
    const decision = decideRefreshTokenGrant({ now: at, clientId, grant, record });
    if (decision.isErr()) return err(decision.error);
    const d = decision.value;
    if (d.kind === 'revoke_family') {
      await ctx.store.revokeFamily(d.familyId);
      if (record !== null) {
        await ctx.audit({ entity: 'oauth.token', action: 'revoked', reason: 'refresh token reused', actorUserId: null, subjectUserId: record.userId });
      }
      return err({ code: 'refresh_token_reused' });
    }
    const minted = mint(ctx, d, at);
    if (minted === null) return err({ code: 'internal_error' });
    if (await ctx.store.rotateRefreshToken(d.usedTokenHash, minted.records)) {
      return ok({ ...minted.secrets, scopes: d.accessTokenScopes });
    }
  }
  return err({ code: 'internal_error' });
}

async function tokenEndpoint(ctx: IdpContext, req: RouteRequest): Promise<Result<Issued, TokenEndpointFailure>> {
  const params = readForm(req);
  if (params.isErr()) return err(params.error);
  const request = readTokenRequest({ params: params.value, authorization: authorizationOf(req) });
  if (request.isErr()) return err(request.error);
  const { client: credentials, grant } = request.value;
  const app = await ctx.store.findApp(credentials.clientId);
  const client = authenticateOAuthClient({ credentials, client: app, sha256 });
  if (client.isErr()) return err(client.error);
  return grant.kind === 'authorization_code' ? redeemCode(ctx, client.value.clientId, grant) : rotate(ctx, client.value.clientId, grant);
}

async function handleToken(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const result = await tokenEndpoint(ctx, req).catch((): Result<Issued, TokenEndpointFailure> => err({ code: 'internal_error' }));
  if (result.isOk()) {
    return jsonResponse(
      200,
      {
        access_token: result.value.accessToken,
        token_type: 'Bearer',
        expires_in: ctx.accessTokenTtlSeconds,
        refresh_token: result.value.refreshToken,
        scope: result.value.scopes.join(' '),
      },
      noStore,
    );
  }
  return tokenEndpointError(result.error);
}

/** The record of a presented token, looked up as the kind its prefix names (RFC 7009 §2.1). */
async function presentedToken(ctx: IdpContext, token: string): Promise<Parameters<typeof decideTokenRevocation>[0]['token']> {
  const access = lookupDigest('access_token', token);
  if (access !== null) return { kind: 'access_token', record: await ctx.store.findAccessToken(access) };
  const refresh = lookupDigest('refresh_token', token);
  if (refresh !== null) return { kind: 'refresh_token', record: await ctx.store.findRefreshToken(refresh) };
  return null;
}

async function revocationEndpoint(ctx: IdpContext, req: RouteRequest): Promise<Result<TokenRevocationDecision, TokenEndpointFailure>> {
  const params = readForm(req);
  if (params.isErr()) return err(params.error);
  const request = readRevocationRequest({ params: params.value, authorization: authorizationOf(req) });
  if (request.isErr()) return err(request.error);
  // Client authentication as at the token endpoint (RFC 7009 §2.1).
  const app = await ctx.store.findApp(request.value.client.clientId);
  const client = authenticateOAuthClient({ credentials: request.value.client, client: app, sha256 });
  if (client.isErr()) return err(client.error);
  const decision = decideTokenRevocation({ clientId: client.value.clientId, token: await presentedToken(ctx, request.value.token) });
  if (decision.isErr()) return err(decision.error);
  const d = decision.value;
  if (d.kind === 'revoke_family') {
    await ctx.store.revokeFamily(d.familyId);
    await ctx.audit({ entity: 'oauth.token', action: 'revoked', reason: 'refresh token revoked by client', actorUserId: null, subjectUserId: d.userId });
  } else if (d.kind === 'revoke_access_token') {
    await ctx.store.revokeAccessToken(d.tokenHash);
    await ctx.audit({ entity: 'oauth.token', action: 'revoked', reason: 'access token revoked by client', actorUserId: null, subjectUserId: d.userId });
  }
  return ok(d);
}

async function handleRevocation(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const result = await revocationEndpoint(ctx, req).catch((): Result<TokenRevocationDecision, TokenEndpointFailure> => err({ code: 'internal_error' }));
  if (result.isOk()) {
    // RFC 7009 §2.2: 200 whether or not the token was known; the body is ignored by clients.
    return jsonResponse(200, {}, noStore);
  }
  return tokenEndpointError(result.error);
}

/** RFC 8414 §2 metadata: what a client needs to find every endpoint and what each supports. */
async function handleMetadata(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const issuer = (ctx.issuer?.() ?? `http://${req.headers['host'] ?? 'localhost'}`).replace(/\/+$/, '');
  const clientAuthentication = ['client_secret_basic', 'client_secret_post'];
  return jsonResponse(
    200,
    {
      issuer,
      authorization_endpoint: `${issuer}${AUTHORIZE_PATH}`,
      token_endpoint: `${issuer}${TOKEN_PATH}`,
      revocation_endpoint: `${issuer}${REVOCATION_PATH}`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: clientAuthentication,
      revocation_endpoint_auth_methods_supported: clientAuthentication,
      scopes_supported: [...OAUTH_SCOPES],
    },
  );
}

async function handleAuthorize(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const url = req.url;
  const clientIds = url.searchParams.getAll('client_id');
  const clientId = clientIds.length === 1 ? clientIds[0] : undefined;
  const app = clientId === undefined || clientId === '' ? null : await ctx.store.findApp(clientId);
  const request = validateAuthorizeRequest({ params: [...url.searchParams], client: app });
  if (request.isErr()) {
    const e = request.error;
    const { error, description } = authorizeError(e);
    if ('redirect' in e) {
      const params = new URLSearchParams({ error, error_description: description });
      if (e.redirect.state !== null) params.set('state', e.redirect.state);
      return redirectTo(appendQuery(e.redirect.redirectUri, params));
    }
    // RFC 6749 §4.1.2.1: without a trustworthy redirect URI, tell the user and never redirect.
    return htmlResponse(e.code === 'invalid_input' ? 500 : 400, errorPage('Authorization failed', `${error}: ${description}`));
  }
  const user = await ctx.authenticateBrowser(req);
  if (user === null) return redirectTo(`${ctx.signInPath}?${new URLSearchParams({ returnTo: url.pathname + url.search }).toString()}`);
  const r = request.value;
  const code = secret(ctx, 'authorization_code');
  const codeHash = code === null ? null : digestOf(code);
  if (code === null || codeHash === null) {
    const params = new URLSearchParams({ error: 'server_error' });
    if (r.state !== null) params.set('state', r.state);
    return redirectTo(appendQuery(r.redirectUri, params));
  }
  await ctx.store.insertAuthorizationCode({
    codeHash,
    familyId: familyIdOf(ctx),
    clientId: r.clientId,
    userId: user.userId,
    redirectUri: r.redirectUri,
    redirectUriGiven: r.redirectUriGiven,
    scopes: r.scopes,
    codeChallenge: r.codeChallenge,
    expiresAt: ctx.now() + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
    used: false,
  });
  const params = new URLSearchParams({ code });
  if (r.state !== null) params.set('state', r.state);
  return redirectTo(appendQuery(r.redirectUri, params));
}

