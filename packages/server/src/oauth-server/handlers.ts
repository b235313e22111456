/**
 * The handlers of the OAuth authorization server (spec §2.4): authorize, token, revoke and metadata, each a
 * function of one context built once by `createOAuthIdp`; every decision is the core's.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { hashAccessToken, AUTHORIZATION_CODE_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS, authenticateOAuthClient, decideAuthorizationCodeGrant, decideRefreshTokenGrant, decideTokenRevocation, generateOAuthSecret, OAUTH_SCOPES, parseOAuthSecret, readRevocationRequest, readTokenRequest, validateAuthorizeRequest } from 'gatehouse-auth';
import type { AuthorizationCodeGrant, OAuthSecretKind, RefreshTokenGrant, TokenRevocationDecision, AuthorizeRequest, AuthorizeRequestError } from 'gatehouse-auth';
import { sha256 } from '../kernel/digest.js';
import { mediaType } from '../kernel/http-io.js';
import { authorizeRefusal, consentResponse, displayOrigin } from './consent.js';
import type { ConsentPageOptions } from './consent.js';
import { authorizeError, tokenEndpointError } from './errors.js';
import type { TokenEndpointFailure } from './errors.js';
import { CSRF_FIELD, checkFormPost } from '../pages/csrf.js';
import { jsonResponse } from '../kernel/respond.js';
import type { RouteBody, RouteRequest, RouteResponse } from '../kernel/route.js';

import { AUTHORIZE_PATH, REVOCATION_PATH, TOKEN_PATH } from './contract.js';
import type { OAuthAuditEntry, OAuthBrowserUser, OAuthConsentAuditEntry } from './server.js';
import type { IssuedOAuthTokens, OAuthAppRecord, OAuthStore } from '../store/types.js';

/** Largest token request body accepted. */
const TOKEN_BODY_LIMIT = 16 * 1024;

/**
 * The SHA-256 lookup digest of a secret (only digests are stored), or `null` when it cannot be computed.
 *
 * @example
 * ```ts
 * digestOf(clientSecret); // 'a1b2…'
 * ```
 */
export function digestOf(secret: string): string | null {
  return hashAccessToken(secret, sha256).unwrapOr(null);
}

/**
 * The digest to look a presented value up by, or `null` when it cannot be one of ours.
 *
 * @example
 * ```ts
 * lookupDigest('access_token', presented);
 * ```
 */
export function lookupDigest(kind: OAuthSecretKind, presented: string): string | null {
  return parseOAuthSecret(kind, presented).isOk() ? digestOf(presented) : null;
}

function appendQuery(uri: string, params: URLSearchParams): string {
  return uri + (uri.includes('?') ? '&' : '?') + params.toString();
}

/**
 * A redirect of the browser: `302` from the authorization request, `303` after the consent form's `POST` so the
 * browser follows with a `GET` (RFC 9700 §4.11: never `307`, which would repost the form to the app).
 */
function redirectTo(location: string, status: 302 | 303 = 302): RouteResponse {
  return { status, headers: { location, 'referrer-policy': 'no-referrer' }, body: null };
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
  /** `GET /.auth/idp/oauth/authorize` (RFC 6749 §4.1.1): a code at once, or the consent page. */
  readonly authorize: (request: RouteRequest) => Promise<RouteResponse>;
  /** `POST /.auth/idp/oauth/authorize`: the consent page's form, approve or deny. */
  readonly consent: (request: RouteRequest) => Promise<RouteResponse>;
  /** `POST /.auth/idp/oauth/token` (RFC 6749 §3.2). */
  readonly token: (request: RouteRequest) => Promise<RouteResponse>;
  /** `POST /.auth/idp/oauth/revoke` (RFC 7009). */
  readonly revoke: (request: RouteRequest) => Promise<RouteResponse>;
  /** `GET /.well-known/oauth-authorization-server` (RFC 8414). */
  readonly metadata: (request: RouteRequest) => Promise<RouteResponse>;
}


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

/** What the authorization server's handlers share, built once by `createOAuthIdp`. */
export interface IdpContext {
  readonly store: OAuthStore;
  readonly now: () => number;
  readonly randomBytes: (n: number) => Uint8Array;
  /**
   * Runs an audited change: `work` writes to the OAuth store it is given and records the change's entry with
   * `audit`, both in one store transaction when the server has one (nothing is kept when the entry cannot be written).
   */
  readonly audited: <T, E>(
    work: (store: OAuthStore, audit: (entry: OAuthAuditEntry | OAuthConsentAuditEntry) => Promise<void>) => Promise<Result<T, E>>,
  ) => Promise<Result<T, E>>;
  readonly accessTokenTtlSeconds: number;
  readonly authenticateBrowser: (req: RouteRequest) => Promise<OAuthBrowserUser | null>;
  readonly signInPath: string;
  /** Whether the account may be given tokens now (a suspended one may not). */
  readonly accountUsable: (userId: string) => Promise<boolean>;
  readonly issuer: () => string | null;
  /** What the consent page needs of the pages (form tokens, cookies, the site's origin). */
  readonly pages: ConsentPageOptions;
}

/**
 * A new OAuth secret of a kind, or `null` when the random source failed.
 *
 * @example
 * ```ts
 * secret(ctx, 'client_id'); // 'gai_…'
 * ```
 */
export function secret(ctx: IdpContext, kind: OAuthSecretKind): string | null {
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

/** Revokes a token family with its audit entry (`null`: nothing to say, the family was unknown) in one transaction. */
async function revokeAudited(ctx: IdpContext, familyId: string, entry: OAuthAuditEntry | null): Promise<void> {
  await ctx.audited(async (store, audit) => {
    await store.revokeFamily(familyId);
    if (entry !== null) await audit(entry);
    return ok(undefined);
  });
}

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
      await revokeAudited(ctx, d.familyId, record === null ? null : { entity: 'oauth.token', action: 'revoked', reason: 'authorization code reused', actorUserId: null, subjectUserId: record.userId });
      return err({ code: 'authorization_code_reused' });
    }
    // a suspended account's code is kept (it expires soon) but gives nothing
    if (!(await ctx.accountUsable(d.userId))) return err({ code: 'unknown_code' });
    const minted = mint(ctx, { ...d, accessTokenScopes: d.scopes, refreshTokenScopes: d.scopes }, at);
    if (minted === null || codeHash === null) return err({ code: 'internal_error' });
    // the tokens are kept only with their `issued` entry
    const redeemed = await ctx.audited(async (store, audit) => {
      if (!(await store.redeemAuthorizationCode(codeHash, minted.records))) return err('lost' as const);
      await audit({ entity: 'oauth.token', action: 'issued', reason: 'authorization code grant', actorUserId: d.userId, subjectUserId: d.userId });
      return ok(undefined);
    });
    if (redeemed.isOk()) return ok({ ...minted.secrets, scopes: d.scopes });
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
      await revokeAudited(ctx, d.familyId, record === null ? null : { entity: 'oauth.token', action: 'revoked', reason: 'refresh token reused', actorUserId: null, subjectUserId: record.userId });
      return err({ code: 'refresh_token_reused' });
    }
    // a suspended account's refresh token is kept (reinstating restores it) but gives nothing meanwhile
    if (!(await ctx.accountUsable(d.userId))) return err({ code: 'unknown_refresh_token' });
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

/**
 * `POST /.auth/idp/oauth/token` (RFC 6749 §3.2): redeems a code or rotates a refresh token; never cached.
 *
 * @example
 * ```ts
 * await handleToken(ctx, request); // 200 with access_token and refresh_token
 * ```
 */
export async function handleToken(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  // a failure of the store or of gatehouse's own code rejects: the router logs it and answers server_error
  const result = await tokenEndpoint(ctx, req);
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
    await revokeAudited(ctx, d.familyId, { entity: 'oauth.token', action: 'revoked', reason: 'refresh token revoked by client', actorUserId: null, subjectUserId: d.userId });
  } else if (d.kind === 'revoke_access_token') {
    const tokenHash = d.tokenHash;
    await ctx.audited(async (store, audit) => {
      await store.revokeAccessToken(tokenHash);
      await audit({ entity: 'oauth.token', action: 'revoked', reason: 'access token revoked by client', actorUserId: null, subjectUserId: d.userId });
      return ok(undefined);
    });
  }
  return ok(d);
}

/**
 * `POST /.auth/idp/oauth/revoke` (RFC 7009): revokes a refresh token's family or one access token.
 *
 * @example
 * ```ts
 * await handleRevocation(ctx, request); // 200 whether or not the token was known
 * ```
 */
export async function handleRevocation(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };
  const result = await revocationEndpoint(ctx, req);
  if (result.isOk()) {
    // RFC 7009 §2.2: 200 whether or not the token was known; the body is ignored by clients.
    return jsonResponse(200, {}, noStore);
  }
  return tokenEndpointError(result.error);
}

/**
 * RFC 8414 §2 metadata: what a client needs to find every endpoint and what each supports.
 *
 * @example
 * ```ts
 * await handleMetadata(ctx, request); // 200 { issuer, token_endpoint, … }
 * ```
 */
export async function handleMetadata(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
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

/** The consent form's own fields: everything else it posts is the authorization request. */
const CONSENT_FORM_FIELDS: ReadonlySet<string> = new Set([CSRF_FIELD, 'decision']);

/** A valid authorization request and the name of its app. */
interface ValidAuthorization {
  readonly request: AuthorizeRequest;
  readonly appName: string;
}

/**
 * The answer to an invalid authorization request: the error at the redirect URI when the core found one it can
 * trust, else a page (RFC 6749 §4.1.2.1: without a trustworthy redirect URI, tell the user and never redirect).
 */
function invalidAuthorization(
  ctx: IdpContext,
  req: RouteRequest,
  e: AuthorizeRequestError,
  viewer: OAuthBrowserUser | null,
  redirectStatus: 302 | 303,
): RouteResponse {
  const { error, description } = authorizeError(e);
  if ('redirect' in e) {
    const params = new URLSearchParams({ error, error_description: description });
    if (e.redirect.state !== null) params.set('state', e.redirect.state);
    return redirectTo(appendQuery(e.redirect.redirectUri, params), redirectStatus);
  }
  return authorizeRefusal(ctx.pages, req, viewer, e.code === 'invalid_input' ? 500 : 400, 'Authorization failed', `${error}: ${description}`);
}

/**
 * Validates authorization request parameters with the core against the app their `client_id` names: the query of
 * the `GET` and the hidden fields of the consent form alike, so the form is trusted no more than the query.
 */
async function validateAuthorization(
  ctx: IdpContext,
  req: RouteRequest,
  params: readonly [string, string][],
  viewer: OAuthBrowserUser | null,
  redirectStatus: 302 | 303,
): Promise<ValidAuthorization | RouteResponse> {
  const clientIds = params.filter(([name]) => name === 'client_id');
  const clientId = clientIds.length === 1 ? clientIds[0]?.[1] : undefined;
  const app: OAuthAppRecord | null = clientId === undefined || clientId === '' ? null : await ctx.store.findApp(clientId);
  const request = validateAuthorizeRequest({ params: [...params], client: app });
  if (request.isErr()) return invalidAuthorization(ctx, req, request.error, viewer, redirectStatus);
  // the core refuses a request whose client it was not given, so `app` is the request's app here
  return { request: request.value, appName: app?.name ?? request.value.clientId };
}

const isResponse = (value: ValidAuthorization | RouteResponse): value is RouteResponse => 'status' in value;

/** Issues an authorization code for the account and redirects to the app with it (RFC 6749 §4.1.2). */
async function issueCode(ctx: IdpContext, userId: string, r: AuthorizeRequest, redirectStatus: 302 | 303): Promise<RouteResponse> {
  const code = secret(ctx, 'authorization_code');
  const codeHash = code === null ? null : digestOf(code);
  if (code === null || codeHash === null) return serverErrorRedirect(r.redirectUri, r.state, redirectStatus);
  const stored = await ctx.store.insertAuthorizationCode({
    codeHash,
    familyId: familyIdOf(ctx),
    clientId: r.clientId,
    userId,
    redirectUri: r.redirectUri,
    redirectUriGiven: r.redirectUriGiven,
    scopes: r.scopes,
    codeChallenge: r.codeChallenge,
    expiresAt: ctx.now() + AUTHORIZATION_CODE_TTL_SECONDS * 1000,
    used: false,
  });
  // a duplicate digest means the random source repeated itself: answered as a failure of the random source
  if (stored.isErr()) return serverErrorRedirect(r.redirectUri, r.state, redirectStatus);
  const params = new URLSearchParams({ code });
  if (r.state !== null) params.set('state', r.state);
  return redirectTo(appendQuery(r.redirectUri, params), redirectStatus);
}

/**
 * `GET /.auth/idp/oauth/authorize` (RFC 6749 §4.1.1): validates the request and sends a signed-out browser to sign
 * in; when the account already approved this app for every requested scope, redirects back with a code at once,
 * else shows the consent page (whose form posts to {@link handleConsent}).
 *
 * @example
 * ```ts
 * await handleAuthorize(ctx, request); // 302 to the redirect URI with code and state, or 200 with the consent page
 * ```
 */
export async function handleAuthorize(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const url = req.url;
  const params = [...url.searchParams];
  const valid = await validateAuthorization(ctx, req, params, null, 302);
  if (isResponse(valid)) return valid;
  const user = await ctx.authenticateBrowser(req);
  if (user === null) return redirectTo(`${ctx.signInPath}?${new URLSearchParams({ returnTo: url.pathname + url.search }).toString()}`);
  const r = valid.request;
  const consent = await ctx.store.findConsent(user.userId, r.clientId);
  if (consent !== null && r.scopes.every((scope) => consent.scopes.includes(scope))) return issueCode(ctx, user.userId, r, 302);
  return consentResponse(
    ctx.pages,
    req,
    user,
    {
      action: AUTHORIZE_PATH,
      appName: valid.appName,
      username: user.username,
      scopes: r.scopes,
      redirectOrigin: displayOrigin(r.redirectUri),
      fields: params.filter(([name]) => !CONSENT_FORM_FIELDS.has(name)),
    },
    r.redirectUri,
  );
}

/**
 * `POST /.auth/idp/oauth/authorize`: the consent page's form. Refused unless a signed-in browser posts it from
 * this site; the authorization request it carries is validated again as at the `GET`. `deny` sends the browser
 * back with `access_denied` (RFC 6749 §4.1.2.1); `approve` remembers the approval for the account, app and scopes
 * and sends it back with a code. Both are audited (`oauth.consent`).
 *
 * @example
 * ```ts
 * await handleConsent(ctx, request); // 303 to the redirect URI with code and state
 * ```
 */
export async function handleConsent(ctx: IdpContext, req: RouteRequest): Promise<RouteResponse> {
  const user = await ctx.authenticateBrowser(req);
  if (user === null) return authorizeRefusal(ctx.pages, req, null, 401, 'Sign in first', 'Your session ended. Sign in and try again.');
  const form =
    req.body !== null && mediaType(req.headers['content-type']) === 'application/x-www-form-urlencoded' ? new URLSearchParams(req.body) : new URLSearchParams();
  if (checkFormPost(req, form.get(CSRF_FIELD), ctx.pages.origin).isErr()) {
    return authorizeRefusal(
      ctx.pages,
      req,
      user,
      403,
      'Form refused',
      'This form did not come from this site, or the page was too old. Go back, reload the page and try again.',
    );
  }
  const valid = await validateAuthorization(ctx, req, [...form].filter(([name]) => !CONSENT_FORM_FIELDS.has(name)), user, 303);
  if (isResponse(valid)) return valid;
  const decisions = form.getAll('decision');
  const decision = decisions.length === 1 ? decisions[0] : undefined;
  if (decision !== 'approve' && decision !== 'deny') {
    return authorizeRefusal(ctx.pages, req, user, 400, 'Choose Approve or Deny', 'The form did not say whether you approve. Go back and choose Approve or Deny.');
  }
  const r = valid.request;
  const audited = { entity: 'oauth.consent', reason: null, actorUserId: user.userId, subjectUserId: user.userId, details: { clientId: r.clientId, scopes: r.scopes.join(' ') } } as const;
  if (decision === 'deny') {
    // a refusal changes nothing: it is recorded as an event
    await ctx.audited(async (_store, audit) => ok(await audit({ ...audited, action: 'denied' })));
    const params = new URLSearchParams({ error: 'access_denied' });
    if (r.state !== null) params.set('state', r.state);
    return redirectTo(appendQuery(r.redirectUri, params), 303);
  }
  // the approval is remembered only with its audit entry
  const granted = await ctx.audited(async (store, audit) => {
    const kept = await store.grantConsent({ userId: user.userId, clientId: r.clientId, scopes: r.scopes, grantedAt: ctx.now() });
    if (kept.isOk()) await audit({ ...audited, action: 'granted' });
    return kept;
  });
  if (granted.isErr()) return serverErrorRedirect(r.redirectUri, r.state, 303);
  return issueCode(ctx, user.userId, r, 303);
}

/** The `server_error` redirect of RFC 6749 §4.1.2.1: the authorization server could not issue a code. */
function serverErrorRedirect(redirectUri: string, state: string | null, redirectStatus: 302 | 303): RouteResponse {
  const params = new URLSearchParams({ error: 'server_error' });
  if (state !== null) params.set('state', state);
  return redirectTo(appendQuery(redirectUri, params), redirectStatus);
}
