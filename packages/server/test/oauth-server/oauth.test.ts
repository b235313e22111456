import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { fc } from '@fast-check/vitest';
import * as oauth from 'oauth4webapi';
import { err } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAuthorizationHeader, parseAuthorizationHeader } from '../../../../src/core/authorization-header.js';
import { computeRefreshAt, decideTokenRefresh, mergeRefreshedToken, parseTokenResponse } from '../../../../src/core/oauth/client/token.js';
import type { OAuthToken } from '../../../../src/core/oauth/client/token.js';
import { createOAuthIdp, OAUTH_FORM_BODY, OAUTH_PATHS } from '../../src/oauth-server/server.js';
import { PAGE_FORM_BODY } from '../../src/pages/page-routes.js';
import { route } from '../../src/kernel/router.js';
import type { RouteTableEntry } from '../../src/kernel/router.js';
import type { OAuthAuditEntry, OAuthBrowserUser, OAuthConsentAuditEntry, OAuthIdp, OAuthStore } from '../../src/oauth-server/server.js';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { Store } from '../../src/store/types.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { cookieFrom, gql, startServer } from '../helpers/server.js';
import { answerConsent, authorizeApproving } from '../helpers/oauth-consent-client.js';
import type { TestServer } from '../helpers/server.js';

/** The authorization server's store as the server gives it: the OAuth part of a memory store. */
function memoryOAuthStore(): OAuthStore {
  return createMemoryStore().oauth;
}

// A deterministic "random" source (seeded by a counter) and an injected clock.
function seededRandom(seed: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 32) {
      counter++;
      out.set(createHash('sha256').update(`${seed}:${counter}`).digest().subarray(0, Math.min(32, n - i)), i);
    }
    return out;
  };
}

interface Harness {
  readonly server: Server;
  readonly base: string;
  readonly idp: OAuthIdp;
  readonly store: OAuthStore;
  /** The whole store `store` is part of. */
  readonly full: Store;
  readonly clock: { now: number };
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly audited: (OAuthAuditEntry | OAuthConsentAuditEntry)[];
  /** The account ids of the harness's browser users, by username (`x-test-user` names one). */
  readonly users: Readonly<Record<string, string>>;
}

const T0 = Date.UTC(2025, 0, 1);

/** The authorization server's routes, as the server's route table lists them. */
function idpTable(idp: OAuthIdp): readonly RouteTableEntry[] {
  return [
    { methods: ['GET'], path: OAUTH_PATHS.authorize, handler: idp.handlers.authorize },
    { methods: ['POST'], path: OAUTH_PATHS.authorize, body: PAGE_FORM_BODY, handler: idp.handlers.consent },
    { methods: ['POST'], path: OAUTH_PATHS.token, body: OAUTH_FORM_BODY, handler: idp.handlers.token },
    { methods: ['POST'], path: OAUTH_PATHS.revoke, body: OAUTH_FORM_BODY, handler: idp.handlers.revoke },
    { methods: ['GET'], path: OAUTH_PATHS.metadata, handler: idp.handlers.metadata },
  ];
}

/** Serves the authorization server's paths through the router; `false` for any other path. */
async function serveIdp(idp: OAuthIdp, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  if (!(Object.values(OAUTH_PATHS) as string[]).includes(url.pathname)) return false;
  await route(idpTable(idp), req, res, url, 'test-request', { base: 'http://127.0.0.1', log: () => undefined });
  return true;
}
const REDIRECT = 'http://127.0.0.1:9/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Accounts named `usernames` in `store` (consents are kept for accounts only); their ids by username. */
async function createAccounts(store: Store, usernames: readonly string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const username of usernames) {
    const created = await store.accounts.create({
      usernames: [username],
      origin: 'admin_created',
      siteAdmin: false,
      serviceAccount: false,
      emails: [],
      passwordHash: null,
      createdAt: T0,
    });
    ids[username] = created._unsafeUnwrap().id;
  }
  return ids;
}

/** The test's stand-in for a session cookie: the `x-test-user` header names the signed-in browser user. */
function headerUser(users: Readonly<Record<string, string>>): (req: { readonly headers: Readonly<Record<string, string>> }) => Promise<OAuthBrowserUser | null> {
  return async (req) => {
    const username = req.headers['x-test-user'];
    const userId = username === undefined || !Object.hasOwn(users, username) ? undefined : users[username];
    return username === undefined || userId === undefined ? null : { userId, username, siteAdmin: false };
  };
}

async function startHarness(accessTokenTtlSeconds?: number): Promise<Harness> {
  const clock = { now: T0 };
  const full = createMemoryStore();
  const store = full.oauth;
  const users = await createAccounts(full, ['alice']);
  const audited: (OAuthAuditEntry | OAuthConsentAuditEntry)[] = [];
  const idp = createOAuthIdp({
    store,
    now: () => clock.now,
    randomBytes: seededRandom(`oauth-${accessTokenTtlSeconds ?? 'default'}`),
    ...(accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds }),
    authenticateBrowser: headerUser(users),
    signInPath: '/.auth/sign-in',
    audit: async (entry) => {
      audited.push(entry);
    },
  });
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (await serveIdp(idp, req, res, url)) return;
      if (url.pathname === '/api/whoami') {
        const credentials = parseAuthorizationHeader(req.headersDistinct['authorization']);
        if (credentials.isOk() && credentials.value !== null && credentials.value.scheme === 'bearer') {
          const who = await idp.verifyAccessToken(credentials.value.token);
          if (who !== null && who.scopes.includes('user:all')) {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(who));
            return;
          }
        }
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return;
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = await idp.registerApp({ name: 'Test app', redirectUris: [REDIRECT], scopes: ['user:all'], ownerUserId: 'admin' });
  const { clientId, clientSecret } = app._unsafeUnwrap();
  return {
    server,
    base,
    idp,
    store,
    full,
    clock,
    as: {
      issuer: base,
      authorization_endpoint: `${base}/.auth/idp/oauth/authorize`,
      token_endpoint: `${base}/.auth/idp/oauth/token`,
      code_challenge_methods_supported: ['S256'],
    },
    client: { client_id: clientId },
    clientSecret,
    redirectUri: REDIRECT,
    audited,
    users,
  };
}

const stop = (h: Harness): Promise<void> => new Promise((resolve) => h.server.close(() => resolve()));

function verifierFor(label: string): string {
  return createHash('sha256').update(label).digest('base64url'); // 43 unreserved characters
}

/**
 * Runs the front-channel step as a signed-in browser, approving on the consent page when it is shown (the first
 * authorization of the app); returns the redirect's status and Location (or null).
 */
async function authorize(h: Harness, params: Record<string, string>, user: string | null = 'alice'): Promise<{ status: number; location: string | null }> {
  const url = new URL(h.as.authorization_endpoint ?? '');
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const headers: Record<string, string> = user === null ? {} : { 'x-test-user': user };
  let res = await fetch(url, { redirect: 'manual', headers });
  if (res.status === 200 && user !== null) {
    res = await consentAs(h, res, user);
  }
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

/** Approves the consent page `page` as `user` (the harness names the browser user by a header, not a cookie). */
function consentAs(h: Harness, page: Response, user: string): Promise<Response> {
  return answerConsent(h.base, page, '', 'approve', { 'x-test-user': user });
}

async function authorizeParams(h: Harness, verifier: string, state: string): Promise<Record<string, string>> {
  return {
    client_id: h.client.client_id,
    redirect_uri: h.redirectUri,
    response_type: 'code',
    scope: 'user:all',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  };
}

/** The whole authorization code flow with oauth4webapi; returns the parsed token (Core I) and the raw callback parameters. */
async function obtainToken(h: Harness, label: string, auth: oauth.ClientAuth = oauth.ClientSecretBasic(h.clientSecret)) {
  const verifier = verifierFor(label);
  const state = `state-${label}`;
  const { location } = await authorize(h, await authorizeParams(h, verifier, state));
  const callback = oauth.validateAuthResponse(h.as, h.client, new URL(location ?? ''), state);
  const startedAt = h.clock.now;
  const response = await oauth.authorizationCodeGrantRequest(h.as, h.client, auth, callback, h.redirectUri, verifier, insecure);
  const result = await oauth.processAuthorizationCodeResponse(h.as, h.client, response);
  return { token: parseTokenResponse(result, startedAt)._unsafeUnwrap(), callback, verifier };
}

async function refresh(h: Harness, refreshToken: string): Promise<OAuthToken> {
  const startedAt = h.clock.now;
  const response = await oauth.refreshTokenGrantRequest(h.as, h.client, oauth.ClientSecretBasic(h.clientSecret), refreshToken, insecure);
  const result = await oauth.processRefreshTokenResponse(h.as, h.client, response);
  return parseTokenResponse(result, startedAt)._unsafeUnwrap();
}

async function whoami(h: Harness, accessToken: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${h.base}/api/whoami`, { headers: { authorization: formatAuthorizationHeader({ scheme: 'bearer', token: accessToken }) } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** The OAuth error a rejected oauth4webapi call carries (RFC 6749 §5.2 `error`). */
async function oauthError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError || e instanceof oauth.AuthorizationResponseError) return e.error;
    if (e instanceof oauth.WWWAuthenticateChallengeError) return `www-authenticate:${e.status}`;
    throw e;
  }
  return 'no error';
}

async function tokenRequest(h: Harness, body: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(h.as.token_endpoint ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
}

// -----------------------------------------------------------------------------------------------

describe('createOAuthIdp end to end with oauth4webapi', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => stop(h));

  it('should issue a Bearer token, refresh it before expiry, and kill the family on a replayed refresh token (§2.4, §5.1 rule 3, RFC 9700 §4.14.2)', async () => {
    // Arrange & act: authorization code flow with PKCE.
    const { token } = await obtainToken(h, 'main');
    expect(token.expiresAt - token.issuedAt).toBe(3_600_000);
    expect(token.scope).toStrictEqual(['user:all']);
    expect(await whoami(h, token.accessToken)).toStrictEqual({ status: 200, body: { userId: h.users['alice'], scopes: ['user:all'] } });

    // The client decides with Core I when to refresh: not yet …
    expect(decideTokenRefresh({ now: h.clock.now, token })._unsafeUnwrap()).toStrictEqual({ kind: 'use' });
    const refreshAt = computeRefreshAt(token)._unsafeUnwrap();
    h.clock.now = refreshAt - 1;
    expect(decideTokenRefresh({ now: h.clock.now, token })._unsafeUnwrap()).toStrictEqual({ kind: 'use' });
    // … then, before expiry, refresh.
    h.clock.now = refreshAt;
    expect(h.clock.now).toBeLessThan(token.expiresAt);
    const decision = decideTokenRefresh({ now: h.clock.now, token })._unsafeUnwrap();
    expect(decision).toStrictEqual({ kind: 'refresh', refreshToken: token.refreshToken });
    const second = mergeRefreshedToken(token, await refresh(h, token.refreshToken ?? ''))._unsafeUnwrap();
    expect(second.refreshToken).not.toBe(token.refreshToken); // rotated
    expect(second.accessToken).not.toBe(token.accessToken);
    expect(second.expiresAt).toBe(refreshAt + 3_600_000);
    expect((await whoami(h, second.accessToken)).status).toBe(200);

    // Refresh again (every use rotates), then let the first access token expire.
    h.clock.now = computeRefreshAt(second)._unsafeUnwrap();
    const third = mergeRefreshedToken(second, await refresh(h, second.refreshToken ?? ''))._unsafeUnwrap();
    h.clock.now = token.expiresAt;
    expect((await whoami(h, token.accessToken)).status).toBe(401); // short-lived
    expect((await whoami(h, third.accessToken)).status).toBe(200);

    // Replay: the first (already used) refresh token is refused …
    expect(await oauthError(refresh(h, token.refreshToken ?? ''))).toBe('invalid_grant');
    // … and its successors die with it: the newest access and refresh tokens stop working.
    expect((await whoami(h, third.accessToken)).status).toBe(401);
    expect(await oauthError(refresh(h, third.refreshToken ?? ''))).toBe('invalid_grant');
    // Other grants (another family) are untouched.
    const other = await obtainToken(h, 'other-family');
    expect((await whoami(h, other.token.accessToken)).status).toBe(200);
  });

  it('should answer the token response exactly, with Cache-Control: no-store', async () => {
    const verifier = verifierFor('raw');
    const { location } = await authorize(h, await authorizeParams(h, verifier, 's'));
    const code = new URL(location ?? '').searchParams.get('code') ?? '';
    const res = await tokenRequest(h, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: h.redirectUri,
      code_verifier: verifier,
      client_id: h.client.client_id,
      client_secret: h.clientSecret,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body ?? {}).sort()).toStrictEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'user:all' });
    expect(String(res.body?.['access_token'])).toMatch(/^gao_[a-z2-7]{39}$/);
    expect(String(res.body?.['refresh_token'])).toMatch(/^gar_[a-z2-7]{39}$/);
  });

  it('should authenticate clients with client_secret_post too', async () => {
    const { token } = await obtainToken(h, 'post', oauth.ClientSecretPost(h.clientSecret));
    expect((await whoami(h, token.accessToken)).status).toBe(200);
  });

  it('should stop an access token at expiry when nobody refreshes it (§5.1 rule 3)', async () => {
    const { token } = await obtainToken(h, 'expiry');
    h.clock.now = token.expiresAt - 1;
    expect((await whoami(h, token.accessToken)).status).toBe(200);
    h.clock.now = token.expiresAt;
    expect((await whoami(h, token.accessToken)).status).toBe(401);
  });

  it('should refuse a wrong code_verifier (RFC 7636 §4.6) and still accept the right one', async () => {
    const verifier = verifierFor('wrong-verifier');
    const state = 'st';
    const { location } = await authorize(h, await authorizeParams(h, verifier, state));
    const callback = oauth.validateAuthResponse(h.as, h.client, new URL(location ?? ''), state);
    const auth = oauth.ClientSecretBasic(h.clientSecret);
    const bad = oauth.authorizationCodeGrantRequest(h.as, h.client, auth, callback, h.redirectUri, verifierFor('someone else'), insecure);
    expect(await oauthError(bad.then((r) => oauth.processAuthorizationCodeResponse(h.as, h.client, r)))).toBe('invalid_grant');
    const good = await oauth.authorizationCodeGrantRequest(h.as, h.client, auth, callback, h.redirectUri, verifier, insecure);
    expect((await oauth.processAuthorizationCodeResponse(h.as, h.client, good)).access_token).toMatch(/^gao_/);
  });

  it('should refuse a reused code and revoke what the first redemption issued (RFC 6749 §4.1.2)', async () => {
    const { token, callback, verifier } = await obtainToken(h, 'reuse');
    expect((await whoami(h, token.accessToken)).status).toBe(200);
    const again = oauth.authorizationCodeGrantRequest(h.as, h.client, oauth.ClientSecretBasic(h.clientSecret), callback, h.redirectUri, verifier, insecure);
    expect(await oauthError(again.then((r) => oauth.processAuthorizationCodeResponse(h.as, h.client, r)))).toBe('invalid_grant');
    expect((await whoami(h, token.accessToken)).status).toBe(401);
    expect(await oauthError(refresh(h, token.refreshToken ?? ''))).toBe('invalid_grant');
  });

  it('should refuse an expired code (RFC 6749 §4.1.2)', async () => {
    const verifier = verifierFor('late');
    const { location } = await authorize(h, await authorizeParams(h, verifier, 's'));
    const callback = oauth.validateAuthResponse(h.as, h.client, new URL(location ?? ''), 's');
    h.clock.now += 60_000;
    const late = oauth.authorizationCodeGrantRequest(h.as, h.client, oauth.ClientSecretBasic(h.clientSecret), callback, h.redirectUri, verifier, insecure);
    expect(await oauthError(late.then((r) => oauth.processAuthorizationCodeResponse(h.as, h.client, r)))).toBe('invalid_grant');
  });

  it('should refuse the plain PKCE method and a missing method by redirecting with invalid_request (S256 only)', async () => {
    const verifier = verifierFor('plain');
    for (const method of ['plain', null]) {
      const params: Record<string, string> = { ...(await authorizeParams(h, verifier, 'p')), code_challenge: verifier };
      if (method === null) delete params['code_challenge_method'];
      else params['code_challenge_method'] = method;
      const { status, location } = await authorize(h, params);
      expect(status).toBe(302);
      expect(location?.startsWith(`${REDIRECT}?`)).toBe(true);
      expect(await oauthError(Promise.resolve().then(() => oauth.validateAuthResponse(h.as, h.client, new URL(location ?? ''), 'p')))).toBe('invalid_request');
    }
  });

  it('should never redirect to an unregistered redirect_uri or for an unknown client (RFC 6749 §4.1.2.1)', async () => {
    const params = await authorizeParams(h, verifierFor('mismatch'), 's');
    for (const bad of [{ redirect_uri: `${REDIRECT}/evil` }, { redirect_uri: 'https://evil.example/cb' }, { client_id: 'gai_unknown' }]) {
      const { status, location } = await authorize(h, { ...params, ...bad });
      expect({ status, location }).toStrictEqual({ status: 400, location: null });
    }
  });

  it('should refuse a redirect_uri at the token endpoint that differs from the authorize request (RFC 6749 §4.1.3)', async () => {
    const verifier = verifierFor('redirect-mismatch');
    const { location } = await authorize(h, await authorizeParams(h, verifier, 's'));
    const callback = oauth.validateAuthResponse(h.as, h.client, new URL(location ?? ''), 's');
    const res = oauth.authorizationCodeGrantRequest(h.as, h.client, oauth.ClientSecretBasic(h.clientSecret), callback, `${REDIRECT}/other`, verifier, insecure);
    expect(await oauthError(res.then((r) => oauth.processAuthorizationCodeResponse(h.as, h.client, r)))).toBe('invalid_grant');
  });

  it('should send a browser without a session to the sign-in page and come back', async () => {
    const params = await authorizeParams(h, verifierFor('signin'), 's');
    const { status, location } = await authorize(h, params, null);
    expect(status).toBe(302);
    const target = new URL(location ?? '', h.base);
    expect(target.pathname).toBe('/.auth/sign-in');
    const back = new URL(target.searchParams.get('returnTo') ?? '', h.base);
    expect(back.pathname).toBe('/.auth/idp/oauth/authorize');
    expect(Object.fromEntries(back.searchParams)).toStrictEqual(params);
  });

  it('should refuse a scope the app does not hold', async () => {
    const params = { ...(await authorizeParams(h, verifierFor('scope'), 's')), scope: 'user:all site-admin:sudo' };
    const { location } = await authorize(h, params);
    expect(new URL(location ?? '').searchParams.get('error')).toBe('invalid_scope');
    expect(new URL(location ?? '').searchParams.get('state')).toBe('s');
  });

  it('should answer invalid_client with 401 and a Basic challenge for a wrong secret (RFC 6749 §5.2)', async () => {
    const basic = `Basic ${Buffer.from(`${h.client.client_id}:gas_wrong`).toString('base64')}`;
    const res = await tokenRequest(h, { grant_type: 'refresh_token', refresh_token: 'gar_x' }, { authorization: basic });
    expect(res.status).toBe(401);
    expect(res.body?.['error']).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await oauthError(oauth.refreshTokenGrantRequest(h.as, h.client, oauth.ClientSecretPost('gas_wrong'), 'gar_x', insecure).then((r) => oauth.processRefreshTokenResponse(h.as, h.client, r)))).toBe('www-authenticate:401');
  });

  it.each([
    { ref: 'RFC 6749 §3.2 (POST only)', method: 'GET', contentType: null, body: '', status: 405, error: 'invalid_request' },
    { ref: 'RFC 6749 §3.2 (form body)', method: 'POST', contentType: 'application/json', body: '{}', status: 400, error: 'invalid_request' },
    { ref: 'RFC 6749 §5.2 (unsupported_grant_type)', method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'grant_type=password', status: 400, error: 'unsupported_grant_type' },
    { ref: 'RFC 6749 §3.2 (no repeated parameters)', method: 'POST', contentType: 'application/x-www-form-urlencoded', body: 'grant_type=a&grant_type=b', status: 400, error: 'invalid_request' },
    { ref: 'body limit', method: 'POST', contentType: 'application/x-www-form-urlencoded', body: `x=${'a'.repeat(20_000)}`, status: 413, error: 'invalid_request' },
  ])('should answer $ref with a JSON error', async ({ method, contentType, body, status, error }) => {
    const creds = `client_id=${h.client.client_id}&client_secret=${h.clientSecret}`;
    const res = await fetch(h.as.token_endpoint ?? '', {
      method,
      headers: contentType === null ? {} : { 'content-type': contentType },
      ...(method === 'GET' ? {} : { body: body === '' || body.startsWith('{') || body.startsWith('x=') ? body : `${body}&${creds}` }),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(((await res.json()) as { error: string }).error).toBe(error);
  });

  it('should let exactly one of two concurrent uses of a refresh token win, then revoke the family (atomic store)', async () => {
    const { token } = await obtainToken(h, 'race');
    const rt = token.refreshToken ?? '';
    const outcomes = await Promise.all([refresh(h, rt).then(() => 'ok', () => 'refused'), refresh(h, rt).then(() => 'ok', () => 'refused')]);
    expect(outcomes.sort()).toStrictEqual(['ok', 'refused']);
    expect((await whoami(h, token.accessToken)).status).toBe(401);
  });

  it('should audit a new grant and a family revoked by a replay, with account ids and no secret', async () => {
    const before = h.audited.length;
    const { token } = await obtainToken(h, 'audited');
    const next = await refresh(h, token.refreshToken ?? '');
    expect(await oauthError(refresh(h, token.refreshToken ?? ''))).toBe('invalid_grant');
    const alice = h.users['alice'];
    // (the app was approved by an earlier flow: no consent entry here)
    expect(h.audited.slice(before)).toStrictEqual([
      { entity: 'oauth.token', action: 'issued', reason: 'authorization code grant', actorUserId: alice, subjectUserId: alice },
      { entity: 'oauth.token', action: 'revoked', reason: 'refresh token reused', actorUserId: null, subjectUserId: alice },
    ]);
    const text = JSON.stringify(h.audited);
    for (const secret of [token.accessToken, token.refreshToken ?? '', next.accessToken, next.refreshToken ?? '', h.clientSecret]) {
      expect(text.includes(secret)).toBe(false);
    }
  });

  it('should answer server_error and issue nothing when the audit entry cannot be written (§6: no change without its entry)', async () => {
    const failing = { ...h.full, audit: { ...h.full.audit, append: () => Promise.reject(new Error('audit store down')) } };
    const idp = createOAuthIdp({
      store: h.store,
      transactionStore: { ...h.full, transaction: (work) => h.full.transaction((tx) => work({ ...tx, audit: failing.audit })) },
      now: () => h.clock.now,
      randomBytes: seededRandom('failing-audit'),
      authenticateBrowser: headerUser(h.users),
      signInPath: '/s',
      audit: async (entry, into) => void (await (into ?? failing).audit.append({ ...entry, details: {}, timestamp: h.clock.now })),
    });
    const server = createServer((req, res) => {
      void serveIdp(idp, req, res, new URL(req.url ?? '/', 'http://127.0.0.1'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const other: Harness = { ...h, as: { ...h.as, authorization_endpoint: `${base}/.auth/idp/oauth/authorize`, token_endpoint: `${base}/.auth/idp/oauth/token` } };
      const verifier = verifierFor('failing-audit');
      const { location } = await authorize(h, await authorizeParams(h, verifier, 'state-failing-audit'));
      const callback = oauth.validateAuthResponse(other.as, other.client, new URL(location ?? ''), 'state-failing-audit');
      const grant = () => oauth.authorizationCodeGrantRequest(other.as, other.client, oauth.ClientSecretBasic(h.clientSecret), callback, h.redirectUri, verifier, insecure);
      const refused = await grant();
      expect({ status: refused.status, body: await refused.json() }).toMatchObject({ status: 500, body: { error: 'server_error' } });
      // the code was not spent: the same code is redeemed by the working server, with its entry
      const before = h.audited.length;
      const second = await oauth.authorizationCodeGrantRequest(h.as, h.client, oauth.ClientSecretBasic(h.clientSecret), callback, h.redirectUri, verifier, insecure);
      const token = parseTokenResponse(await oauth.processAuthorizationCodeResponse(h.as, h.client, second), h.clock.now)._unsafeUnwrap();
      expect(token.accessToken).toMatch(/^gao_/);
      expect(h.audited.slice(before).map((e) => e.action)).toStrictEqual(['issued']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('should leave other paths alone', async () => {
    const res = await fetch(`${h.base}/.auth/idp/other`);
    expect(res.status).toBe(404);
  });
});

describe('createOAuthIdp options and registration', () => {
  it('should use a configured access token lifetime', async () => {
    const h = await startHarness(600);
    try {
      const { token } = await obtainToken(h, 'ttl');
      expect(token.expiresAt - token.issuedAt).toBe(600_000);
    } finally {
      await stop(h);
    }
  });

  it('should refuse a lifetime that is not short at construction (§5.1 rule 3)', () => {
    const make = (ttl: number) => () =>
      createOAuthIdp({ store: memoryOAuthStore(), now: () => 0, randomBytes: seededRandom('x'), accessTokenTtlSeconds: ttl, authenticateBrowser: async () => null, signInPath: '/s' });
    expect(make(86_401)).toThrow(RangeError);
    expect(make(0)).toThrow(RangeError);
    expect(make(86_400)).not.toThrow();
  });

  it.each([
    { ref: '§2.4 (user:all required)', input: { scopes: [] }, code: 'missing_user_all_scope' },
    { ref: '§5.1 rule 2 (no sudo over OAuth)', input: { scopes: ['user:all', 'site-admin:sudo'] }, code: 'unknown_scope' },
    { ref: 'RFC 9700 §4.1.3 (https or loopback)', input: { redirectUris: ['http://app.example/cb'] }, code: 'invalid_redirect_uri' },
    { ref: 'owner required', input: { ownerUserId: '' }, code: 'invalid_owner' },
  ])('should refuse a registration: $ref', async ({ input, code }) => {
    const idp = createOAuthIdp({ store: memoryOAuthStore(), now: () => 0, randomBytes: seededRandom('r'), authenticateBrowser: async () => null, signInPath: '/s' });
    const result = await idp.registerApp({ name: 'x', redirectUris: ['https://a.example/cb'], scopes: ['user:all'], ownerUserId: 'admin', ...input });
    expect(result._unsafeUnwrapErr().code).toBe(code);
    expect(result._unsafeUnwrapErr().message).not.toBe('');
  });

  it('should store only digests of the client secret', async () => {
    const store = memoryOAuthStore();
    const idp = createOAuthIdp({ store, now: () => 0, randomBytes: seededRandom('d'), authenticateBrowser: async () => null, signInPath: '/s' });
    const { clientId, clientSecret } = (await idp.registerApp({ name: 'x', redirectUris: ['https://a.example/cb'], scopes: ['user:all'], ownerUserId: 'admin' }))._unsafeUnwrap();
    const app = await store.findApp(clientId);
    expect(JSON.stringify(app)).not.toContain(clientSecret);
    expect(app?.clientSecretHash).toBe(createHash('sha256').update(clientSecret).digest('hex'));
  });

  it('should verify only its own, live access tokens', async () => {
    const idp = createOAuthIdp({ store: memoryOAuthStore(), now: () => 0, randomBytes: seededRandom('v'), authenticateBrowser: async () => null, signInPath: '/s' });
    for (const token of ['', 'gao_', 'gat_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'x'.repeat(10_000)]) {
      expect(await idp.verifyAccessToken(token)).toBeNull();
    }
  });

  it('should answer server_error at the redirect URI when the store already holds the code digest (RFC 6749 §4.1.2.1)', async () => {
    const inner = memoryOAuthStore();
    // the random source repeats itself: the code's digest is taken; the account approved the app before
    const store: OAuthStore = {
      ...inner,
      insertAuthorizationCode: async () => err({ code: 'duplicate_digest' }),
      findConsent: async (userId, clientId) => ({ userId, clientId, scopes: ['user:all'], grantedAt: 0 }),
    };
    const alice = { userId: 'alice', username: 'alice', siteAdmin: false };
    const idp = createOAuthIdp({ store, now: () => 0, randomBytes: seededRandom('dup'), authenticateBrowser: async () => alice, signInPath: '/s' });
    const { clientId } = (await idp.registerApp({ name: 'x', redirectUris: [REDIRECT], scopes: ['user:all'], ownerUserId: 'admin' }))._unsafeUnwrap();
    const url = new URL(OAUTH_PATHS.authorize, 'http://127.0.0.1');
    const params = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, scope: 'user:all', state: 's1', code_challenge: verifierFor('dup'), code_challenge_method: 'S256' };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const answer = await idp.handlers.authorize({ method: 'GET', url, headers: {}, headersDistinct: {}, cookies: new Map(), clientAddress: '127.0.0.1', requestId: 'r', body: null });
    expect(answer.status).toBe(302);
    expect(answer.headers['location']).toBe(`${REDIRECT}?error=server_error&state=s1`);
  });
});

// -----------------------------------------------------------------------------------------------
// Model-based test of refresh-token families against the running server (HTTP, oauth4webapi).

describe('refresh-token families over HTTP (model-based)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => stop(h));

  interface Model {
    families: { refresh: string[]; access: string[]; dead: boolean }[];
  }
  type Cmd = fc.AsyncCommand<Model, Harness>;
  const start = (label: string): Cmd => ({
    check: () => true,
    run: async (m, r) => {
      const { token } = await obtainToken(r, `model-${label}-${m.families.length}-${Math.floor(r.clock.now)}`);
      m.families.push({ refresh: [token.refreshToken ?? ''], access: [token.accessToken], dead: false });
    },
    toString: () => 'Start',
  });
  const present = (family: number, index: number): Cmd => ({
    check: (m) => m.families.length > 0,
    run: async (m, r) => {
      const f = m.families[family % m.families.length];
      if (f === undefined) return;
      const i = index < 0 ? f.refresh.length - 1 : index % f.refresh.length;
      const newest = i === f.refresh.length - 1;
      const outcome = await refresh(r, f.refresh[i] ?? '').then(
        (t) => t,
        () => null,
      );
      if (!f.dead && newest) {
        expect(outcome).not.toBeNull();
        f.refresh.push(outcome?.refreshToken ?? '');
        f.access.push(outcome?.accessToken ?? '');
      } else {
        expect(outcome).toBeNull();
        f.dead = true;
      }
    },
    toString: () => `Present(${family}, ${index})`,
  });
  const use = (family: number, index: number): Cmd => ({
    check: (m) => m.families.length > 0,
    run: async (m, r) => {
      const f = m.families[family % m.families.length];
      if (f === undefined) return;
      expect((await whoami(r, f.access[index % f.access.length] ?? '')).status).toBe(f.dead ? 401 : 200);
    },
    toString: () => `Use(${family}, ${index})`,
  });

  it('should rotate on every use and revoke a whole family on any replay', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.commands(
          [
            fc.constant(null).map(() => start('s')),
            fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 3 })).map(([f, i]) => present(f, i)),
            fc.nat({ max: 3 }).map((f) => present(f, -1)), // the newest token
            fc.nat({ max: 3 }).map((f) => present(f, -1)),
            fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 3 })).map(([f, i]) => use(f, i)),
          ],
          { maxCommands: 20, size: '+1' },
        ),
        async (cmds) => {
          run++;
          h.clock.now = T0 + run * 10_000_000; // fresh time per run, so every access token is live
          await fc.asyncModelRun(() => ({ model: { families: [] }, real: h }), cmds);
        },
      ),
      { numRuns: 30, seed: 5 },
    );
  });
});

// -----------------------------------------------------------------------------------------------
// The same flow against the whole gatehouse server: an administrator registers the app over GraphQL,
// a browser user signs in through the sign-in page, oauth4webapi obtains and refreshes the tokens, and
// the access token is used as `Authorization: Bearer` on `/.api/graphql`.

const BUILTIN_SIGNUP = '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }';

describe('OAuth apps end to end on the gatehouse server with oauth4webapi (§2.4, §5.1 rules 1 and 3)', () => {
  const CALLBACK = 'http://127.0.0.1:9/gatehouse-callback';
  const PASSWORD = 'olga correct horse';
  let s: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientSecret = '';
  let adminToken = '';
  const secrets: string[] = [];

  beforeAll(async () => {
    s = await startServer({ siteConfiguration: BUILTIN_SIGNUP });
    const admin = await s.user('admin', true);
    adminToken = (await s.token(admin)).token;
    secrets.push(adminToken);
    const registered = await gql(
      s.url,
      'mutation($uris: [String!]!) { registerOAuthApp(name: "e2e tool", redirectURIs: $uris, scopes: ["user:all"]) { clientID clientSecret } }',
      { headers: { authorization: `token ${adminToken}` }, variables: { uris: [CALLBACK] } },
    );
    const app = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
    clientSecret = app.clientSecret;
    secrets.push(clientSecret);
    client = { client_id: app.clientID };
    as = {
      issuer: s.url,
      authorization_endpoint: `${s.url}/.auth/idp/oauth/authorize`,
      token_endpoint: `${s.url}/.auth/idp/oauth/token`,
      code_challenge_methods_supported: ['S256'],
    };
    const signedUp = await fetch(`${s.url}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'olga', email: 'olga@example.com', password: PASSWORD }),
    });
    expect(signedUp.status).toBeLessThan(300);
    secrets.push(PASSWORD);
  });
  afterAll(() => s.close());

  /** Whether olga approved the app already (on the consent page of the first flow). */
  let approved = false;

  /**
   * The browser part: authorize → sign-in page → sign in → back to authorize → the consent page the first time
   * (approve) → redirect with the code.
   */
  async function browserAuthorize(verifier: string, state: string): Promise<URL> {
    const url = new URL(as.authorization_endpoint ?? '');
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      scope: 'user:all',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })) url.searchParams.set(k, v);
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const signInPage = new URL(first.headers.get('location') ?? '', s.url);
    expect(signInPage.pathname).toBe('/.auth/sign-in');
    const returnTo = signInPage.searchParams.get('returnTo') ?? '';
    const signedIn = await fetch(`${s.url}/.auth/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'olga', password: PASSWORD, returnTo }).toString(),
    });
    expect(signedIn.status).toBe(303); // See Other after a POST
    const cookie = cookieFrom(signedIn.headers, SESSION_COOKIE) ?? '';
    expect(cookie).not.toBe('');
    const back = new URL(signedIn.headers.get('location') ?? '', s.url);
    expect(back.href).toBe(url.href);
    const { response: second, consentShown } = await authorizeApproving(back, cookie);
    // the first authorization asks; the approval is remembered, so later ones redirect at once
    expect(consentShown).toBe(!approved);
    approved = true;
    expect(second.status).toBe(consentShown ? 303 : 302);
    return new URL(second.headers.get('location') ?? '');
  }

  async function obtain(label: string): Promise<OAuthToken> {
    const verifier = verifierFor(`gatehouse-${label}`);
    const state = `state-${label}`;
    const callbackUrl = await browserAuthorize(verifier, state);
    secrets.push(verifier, callbackUrl.searchParams.get('code') ?? '');
    const callback = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const startedAt = s.clock.now;
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret), callback, CALLBACK, verifier, insecure);
    const token = parseTokenResponse(await oauth.processAuthorizationCodeResponse(as, client, response), startedAt)._unsafeUnwrap();
    secrets.push(token.accessToken, token.refreshToken ?? '');
    return token;
  }

  async function refreshOn(refreshToken: string): Promise<OAuthToken> {
    const startedAt = s.clock.now;
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret), refreshToken, insecure);
    const token = parseTokenResponse(await oauth.processRefreshTokenResponse(as, client, response), startedAt)._unsafeUnwrap();
    secrets.push(token.accessToken, token.refreshToken ?? '');
    return token;
  }

  /** `{ currentUser { username } }` on `/.api/graphql` with `Authorization: Bearer`, sent by oauth4webapi. */
  async function currentUser(accessToken: string): Promise<{ status: number; body: unknown; challenges?: string[] }> {
    try {
      const response = await oauth.protectedResourceRequest(
        accessToken,
        'POST',
        new URL(`${s.url}/.api/graphql`),
        new Headers({ 'content-type': 'application/json' }),
        JSON.stringify({ query: '{ currentUser { username } }' }),
        insecure,
      );
      return { status: response.status, body: await response.json() };
    } catch (e) {
      // oauth4webapi rejects a 401 that carries a WWW-Authenticate challenge (RFC 6750 §3)
      if (!(e instanceof oauth.WWWAuthenticateChallengeError)) throw e;
      return { status: e.status, body: await e.response.json(), challenges: e.cause.map((c) => c.scheme) };
    }
  }

  const OLGA = { status: 200, body: { data: { currentUser: { username: 'olga' } } } };
  const INVALID = {
    status: 401,
    body: { errors: [{ message: 'Invalid access token.', extensions: { code: 'INVALID_ACCESS_TOKEN' } }] },
    challenges: ['token', 'bearer'],
  };

  it('should obtain a token, call the API with Bearer, refresh before expiry, and kill the family on a replayed refresh token', async () => {
    // Obtain: the token response (default lifetime 3600 s, scope user:all).
    const first = await obtain('main');
    expect(first.expiresAt - first.issuedAt).toBe(3_600_000);
    expect(first.scope).toStrictEqual(['user:all']);
    expect(await currentUser(first.accessToken)).toStrictEqual(OLGA);

    // The client asks Core I when to refresh; it refreshes exactly when told to, before expiry.
    const refreshAt = computeRefreshAt(first)._unsafeUnwrap();
    s.clock.now = refreshAt - 1;
    expect(decideTokenRefresh({ now: s.clock.now, token: first })._unsafeUnwrap()).toStrictEqual({ kind: 'use' });
    s.clock.now = refreshAt;
    expect(s.clock.now).toBeLessThan(first.expiresAt);
    expect(decideTokenRefresh({ now: s.clock.now, token: first })._unsafeUnwrap()).toStrictEqual({ kind: 'refresh', refreshToken: first.refreshToken });
    const second = mergeRefreshedToken(first, await refreshOn(first.refreshToken ?? ''))._unsafeUnwrap();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await currentUser(second.accessToken)).toStrictEqual(OLGA);

    // Every refresh rotates; the first access token dies at its expiry (short-lived).
    s.clock.now = computeRefreshAt(second)._unsafeUnwrap();
    expect(decideTokenRefresh({ now: s.clock.now, token: second })._unsafeUnwrap().kind).toBe('refresh');
    const third = mergeRefreshedToken(second, await refreshOn(second.refreshToken ?? ''))._unsafeUnwrap();
    s.clock.now = first.expiresAt;
    expect(await currentUser(first.accessToken)).toStrictEqual(INVALID);
    expect(await currentUser(third.accessToken)).toStrictEqual(OLGA);

    // Replay of the used second refresh token: refused, and its successors (third) die with it.
    expect(await oauthError(refreshOn(second.refreshToken ?? ''))).toBe('invalid_grant');
    expect(await currentUser(third.accessToken)).toStrictEqual(INVALID);
    expect(await currentUser(second.accessToken)).toStrictEqual(INVALID);
    expect(await oauthError(refreshOn(third.refreshToken ?? ''))).toBe('invalid_grant');
    const revoked = (await flatStoreOf(s.gatehouse.store).listAudit(1000)).filter((e) => e.entity === 'oauth.token' && e.action === 'revoked');
    expect(revoked.map((e) => e.reason)).toContain('refresh token reused');

    // A new grant (another family) still works.
    const fresh = await obtain('after-replay');
    expect(await currentUser(fresh.accessToken)).toStrictEqual(OLGA);
  });

  it('should honour a configured access token lifetime', async () => {
    const other = await startServer({ siteConfiguration: BUILTIN_SIGNUP, oauthAccessTokenTtlSeconds: 300 });
    try {
      const admin = await other.user('admin', true);
      const token = (await other.token(admin)).token;
      const registered = await gql(
        other.url,
        'mutation { registerOAuthApp(name: "ttl", redirectURIs: ["http://127.0.0.1:9/cb"], scopes: ["user:all"]) { clientID clientSecret } }',
        { headers: { authorization: `token ${token}` } },
      );
      const app = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
      const signedUp = await fetch(`${other.url}/.auth/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'pat', email: 'pat@example.com', password: 'pat password 1' }),
      });
      const cookie = cookieFrom(signedUp.headers, SESSION_COOKIE) ?? '';
      const verifier = verifierFor('ttl-300');
      const url = new URL(`${other.url}/.auth/idp/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: app.clientID,
        redirect_uri: 'http://127.0.0.1:9/cb',
        scope: 'user:all',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      })) url.searchParams.set(k, v);
      const { response: redirected } = await authorizeApproving(url, cookie);
      const code = new URL(redirected.headers.get('location') ?? 'http://x/').searchParams.get('code') ?? '';
      const res = await fetch(`${other.url}/.auth/idp/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:9/cb', code_verifier: verifier, client_id: app.clientID, client_secret: app.clientSecret }).toString(),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { expires_in: number }).expires_in).toBe(300);
    } finally {
      await other.close();
    }
  });

  it('should answer a user:all Bearer token for a non-admin registration attempt with FORBIDDEN (site administrators only)', async () => {
    const token = await obtain('not-admin');
    const answer = await gql(
      s.url,
      'mutation { registerOAuthApp(name: "x", redirectURIs: ["https://x.example/cb"], scopes: ["user:all"]) { clientID } }',
      { headers: { authorization: `Bearer ${token.accessToken}` } },
    );
    expect((answer.body as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('FORBIDDEN');
  });

  type Errors = { errors?: { message: string; extensions: { code: string } }[]; data?: unknown };
  const CREATE_TOKEN = 'mutation($scopes: [String!]!, $user: ID, $ttl: Int) { createAccessToken(scopes: $scopes, note: "n", user: $user, expiresInSeconds: $ttl) { token } }';
  const SHORT_LIVED = 'An OAuth access token cannot create access tokens: OAuth access tokens are short-lived. Use a personal access token or sign in.';

  it('should refuse to mint a personal access token with a Bearer token, whatever its lifetime (§2.4, §5.1 rule 3)', async () => {
    const olga = (await flatStoreOf(s.gatehouse.store).findUserByUsername('olga'))?.id ?? '';
    const token = await obtain('mint');
    const tokensBefore = await flatStoreOf(s.gatehouse.store).listAccessTokens(olga);
    for (const variables of [{ scopes: ['user:all'] }, { scopes: ['user:all'], ttl: 60 }, { scopes: ['user:all'], ttl: 86_400 * 365 }]) {
      const answer = await gql(s.url, CREATE_TOKEN, { headers: { authorization: `Bearer ${token.accessToken}` }, variables });
      expect(answer.status).toBe(200);
      expect((answer.body as Errors).errors?.map((e) => [e.extensions.code, e.message])).toStrictEqual([['FORBIDDEN', SHORT_LIVED]]);
      expect((answer.body as Errors).data).toBeNull();
    }
    expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(olga)).toStrictEqual(tokensBefore);
    const audit = await flatStoreOf(s.gatehouse.store).listAudit(1000);
    expect(audit.some((e) => e.entity === 'auth.accessToken' && e.action === 'created' && e.subjectUserId === olga)).toBe(false);
    // The Bearer token itself still works: only minting is refused.
    expect(await currentUser(token.accessToken)).toStrictEqual(OLGA);
  });

  it('should let the same person create a token from her browser session (the refusal is about the credential)', async () => {
    const signedIn = await fetch(`${s.url}/.auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'olga', password: PASSWORD }),
    });
    const cookie = cookieFrom(signedIn.headers, SESSION_COOKIE) ?? '';
    const answer = await gql(s.url, CREATE_TOKEN, { headers: { cookie, 'x-requested-with': 'test' }, variables: { scopes: ['user:all'], ttl: 60 } });
    const created = (answer.body as { data: { createAccessToken: { token: string } } }).data.createAccessToken.token;
    secrets.push(created);
    expect(created.startsWith('gat_')).toBe(true);
  });

  it("should keep a site administrator's Bearer token short-lived too: no token for herself or a service account, apps may be registered", async () => {
    const olga = (await flatStoreOf(s.gatehouse.store).findUserByUsername('olga'))?.id ?? '';
    (await flatStoreOf(s.gatehouse.store).setSiteAdmin(olga, true))._unsafeUnwrap();
    try {
      const token = await obtain('admin-bearer');
      const bearer = { authorization: `Bearer ${token.accessToken}` };
      const sudo = await gql(s.url, CREATE_TOKEN, { headers: bearer, variables: { scopes: ['user:all', 'site-admin:sudo'] } });
      expect((sudo.body as Errors).errors?.map((e) => [e.extensions.code, e.message])).toStrictEqual([['FORBIDDEN', SHORT_LIVED]]);
      // An administrator may create a service account with a Bearer token, but not a token for it.
      const svc = await gql(s.url, 'mutation { createServiceAccount(username: "bearer-bot") { id } }', { headers: bearer });
      const svcId = (svc.body as { data: { createServiceAccount: { id: string } } }).data.createServiceAccount.id;
      const forSvc = await gql(s.url, CREATE_TOKEN, { headers: bearer, variables: { scopes: ['user:all'], user: svcId } });
      expect((forSvc.body as Errors).errors?.map((e) => [e.extensions.code, e.message])).toStrictEqual([['FORBIDDEN', SHORT_LIVED]]);
      expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(svcId)).toStrictEqual([]);
      // Registering an app is fine: its tokens are as short-lived as every OAuth access token.
      const registered = await gql(
        s.url,
        'mutation { registerOAuthApp(name: "by bearer", redirectURIs: ["https://x.example/cb"], scopes: ["user:all"]) { clientID clientSecret } }',
        { headers: bearer },
      );
      const app = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
      secrets.push(app.clientSecret);
      expect(app.clientID).not.toBe('');
    } finally {
      (await flatStoreOf(s.gatehouse.store).setSiteAdmin(olga, false))._unsafeUnwrap();
    }
  });

  /** The metadata, found by oauth4webapi's discovery (RFC 8414 §3). */
  async function discover(): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(s.url);
    const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
    return oauth.processDiscoveryResponse(issuer, response);
  }

  /** Revokes a token with oauth4webapi (RFC 7009), resolving to `ok` or the OAuth error. */
  async function revoke(discovered: oauth.AuthorizationServer, token: string, auth = oauth.ClientSecretBasic(clientSecret), who = client): Promise<string> {
    const response = await oauth.revocationRequest(discovered, who, auth, token, insecure);
    const outcome = await oauthError(oauth.processRevocationResponse(response));
    return outcome === 'no error' ? 'ok' : outcome;
  }

  it('should publish RFC 8414 metadata that oauth4webapi discovers, naming every endpoint and what it supports', async () => {
    const discovered = await discover();
    expect(discovered).toStrictEqual({
      issuer: s.url,
      authorization_endpoint: `${s.url}/.auth/idp/oauth/authorize`,
      token_endpoint: `${s.url}/.auth/idp/oauth/token`,
      revocation_endpoint: `${s.url}/.auth/idp/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['user:all'],
    });
    // the discovered endpoints are the ones the flow uses
    expect({ a: discovered.authorization_endpoint, t: discovered.token_endpoint }).toStrictEqual({ a: as.authorization_endpoint, t: as.token_endpoint });
    const post = await fetch(`${s.url}/.well-known/oauth-authorization-server`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('should name externalURL as the issuer when one is configured (RFC 8414 §2)', async () => {
    const other = await startServer({ siteConfiguration: '{ "externalURL": "https://gatehouse.example/", "auth.providers": [] }' });
    try {
      const metadata = (await (await fetch(`${other.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata['issuer']).toBe('https://gatehouse.example');
      expect(metadata['revocation_endpoint']).toBe('https://gatehouse.example/.auth/idp/oauth/revoke');
      const discovered = await oauth.processDiscoveryResponse(
        new URL('https://gatehouse.example'),
        await fetch(`${other.url}/.well-known/oauth-authorization-server`),
      );
      expect(discovered.issuer).toBe('https://gatehouse.example');
    } finally {
      await other.close();
    }
  });

  it('should revoke a refresh token and its whole family through the discovered revocation endpoint (RFC 7009 §2.1)', async () => {
    const discovered = await discover();
    const token = await obtain('revoke-refresh');
    expect(await currentUser(token.accessToken)).toStrictEqual(OLGA);
    expect(await revoke(discovered, token.refreshToken ?? '')).toBe('ok');
    // the access token of the same grant is refused by the API, and the refresh token by the token endpoint
    expect(await currentUser(token.accessToken)).toStrictEqual(INVALID);
    expect(await oauthError(refreshOn(token.refreshToken ?? ''))).toBe('invalid_grant');
    // revoking again is fine (RFC 7009 §2.2)
    expect(await revoke(discovered, token.refreshToken ?? '')).toBe('ok');
    const audit = await flatStoreOf(s.gatehouse.store).listAudit(100_000);
    expect(audit.some((e) => e.entity === 'oauth.token' && e.action === 'revoked' && e.reason === 'refresh token revoked by client')).toBe(true);
  });

  it('should revoke an access token alone (client_secret_post), leaving the refresh token working', async () => {
    const discovered = await discover();
    const token = await obtain('revoke-access');
    expect(await revoke(discovered, token.accessToken, oauth.ClientSecretPost(clientSecret))).toBe('ok');
    expect(await currentUser(token.accessToken)).toStrictEqual(INVALID);
    const refreshed = await refreshOn(token.refreshToken ?? '');
    expect(await currentUser(refreshed.accessToken)).toStrictEqual(OLGA);
  });

  it('should answer 200 for unknown and malformed tokens, refuse bad client authentication, and refuse another client\'s token', async () => {
    const discovered = await discover();
    expect(await revoke(discovered, 'gar_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe('ok');
    expect(await revoke(discovered, 'not a token at all')).toBe('ok');
    expect(await revoke(discovered, 'gar_x', oauth.ClientSecretBasic('gas_wrong'))).toBe('www-authenticate:401');
    const registered = await gql(
      s.url,
      'mutation($uris: [String!]!) { registerOAuthApp(name: "other tool", redirectURIs: $uris, scopes: ["user:all"]) { clientID clientSecret } }',
      { headers: { authorization: `token ${adminToken}` }, variables: { uris: [CALLBACK] } },
    );
    const otherApp = (registered.body as { data: { registerOAuthApp: { clientID: string; clientSecret: string } } }).data.registerOAuthApp;
    secrets.push(otherApp.clientSecret);
    const token = await obtain('revoke-other-client');
    expect(await revoke(discovered, token.refreshToken ?? '', oauth.ClientSecretBasic(otherApp.clientSecret), { client_id: otherApp.clientID })).toBe(
      'unauthorized_client',
    );
    expect(await currentUser(token.accessToken)).toStrictEqual(OLGA);
    // a GET, and a JSON body, are refused
    expect((await fetch(`${s.url}/.auth/idp/oauth/revoke`)).status).toBe(405);
    const json = await fetch(`${s.url}/.auth/idp/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(400);
  });

  it('should keep every OAuth secret (client secret, code, PKCE verifier, tokens, password) out of the log and the audit log', async () => {
    const logs = JSON.stringify(s.logs);
    const audit = JSON.stringify(await flatStoreOf(s.gatehouse.store).listAudit(100_000));
    expect(s.logs.length).toBeGreaterThan(10);
    expect(logs).toContain('/.auth/idp/oauth/token'); // the capture works
    const needles = secrets.filter((x) => x !== '');
    expect(needles.length).toBeGreaterThanOrEqual(15);
    for (const needle of needles) {
      expect(logs.includes(needle), needle.slice(0, 6)).toBe(false);
      expect(audit.includes(needle), needle.slice(0, 6)).toBe(false);
    }
    // Stored only as digests: no secret appears in the OAuth store's records either.
    const app = await s.gatehouse.store.oauth.findApp(client.client_id);
    expect(JSON.stringify(app)).not.toContain(clientSecret);
    expect(app?.clientSecretHash).toBe(createHash('sha256').update(clientSecret).digest('hex'));
  });
});
