/**
 * The provider routes as functions: handlers take a request value and return a response value, with no socket.
 */
import { fc, test } from '@fast-check/vitest';
import { ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../../src/core/external-identity.js';
import type { ProviderSignInInput, SignInRouteDeps } from '../../src/sign-in/flow-context.js';
import { pendingKey } from '../../src/sign-in/pending.js';
import { signInRoutePaths } from '../../src/sign-in/paths.js';
import { signInRoutes } from '../../src/sign-in/routes.js';
import type { Route, RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { AuditEvent, Store } from '../../src/store/types.js';
import { seededRandomBytes, testUser } from '../fakes/app.js';

const SITE = 'https://search.example.com';

const hostb: AuthProvider = { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 'secret', apiScope: 'api', allowSignup: true };
const hosta: AuthProvider = { type: 'hosta', url: 'https://hosta.example.com', clientID: 'id', clientSecret: 'secret', allowSignup: true };
const saml: AuthProvider = { type: 'saml', entryPoint: 'https://idp.example.com/sso', idpCertificate: 'MIIC', allowSignup: true };
const oidc: AuthProvider = { type: 'openidconnect', issuer: 'https://op.example.com', clientID: 'id', clientSecret: 'secret', allowSignup: true };
const builtin: AuthProvider = { type: 'builtin', allowSignup: true };

function request(path: string, init: { method?: string; cookies?: Record<string, string>; body?: string; clientAddress?: string; headers?: Record<string, string> } = {}): RouteRequest {
  const headers = init.headers ?? {};
  return {
    method: init.method ?? 'GET',
    url: new URL(path, SITE),
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    cookies: new Map(Object.entries(init.cookies ?? {})),
    clientAddress: init.clientAddress ?? '203.0.113.7',
    requestId: 'request-1',
    body: init.body ?? null,
  };
}

interface Harness {
  readonly store: Store;
  readonly routes: readonly Route[];
  readonly signIns: ProviderSignInInput[];
  readonly audits: AuditEvent[];
  readonly answer: (path: string, init?: Parameters<typeof request>[1]) => Promise<RouteResponse>;
}

function harness(providers: readonly AuthProvider[], overrides: Partial<SignInRouteDeps> = {}): Harness {
  const store = createMemoryStore();
  const signIns: ProviderSignInInput[] = [];
  const audits: AuditEvent[] = [];
  const routes = signInRoutes({
    providers,
    externalURL: SITE,
    store,
    now: () => 1_000,
    randomBytes: seededRandomBytes('routes'),
    fetch: () => Promise.reject(new Error('offline')),
    upstreamTimeoutMs: 1_000,
    publicURLs: {},
    pendingSignIns: {},
    currentUserId: async () => null,
    signIn: async (input) => {
      signIns.push(input);
      return ok({ kind: 'signed_in', userId: 'u1', user: testUser('u1'), created: true, linked: true });
    },
    startSession: async (_request, userId) => ({ name: 'session', value: userId, path: '/', sameSite: 'Lax', secure: true, httpOnly: true }),
    audit: async (event) => {
      audits.push(event);
    },
    ...overrides,
  });
  const answer = async (path: string, init: Parameters<typeof request>[1] = {}): Promise<RouteResponse> => {
    const target = routes.find((r) => r.path === new URL(path, SITE).pathname);
    if (target === undefined) throw new Error(`no route for ${path}`);
    return target.handler(request(path, init));
  };
  return { store, routes, signIns, audits, answer };
}

describe('signInRoutePaths', () => {
  it.each([
    { ref: 'no provider with a login route', providers: [builtin], expected: [] },
    { ref: '§5.3 hostb', providers: [hostb], expected: ['/.auth/hostb/login', '/.auth/hostb/callback'] },
    { ref: '§5.3 openidconnect rule 2', providers: [oidc], expected: ['/.auth/openidconnect/login', '/.auth/callback'] },
    { ref: '§5.2 SAML', providers: [saml], expected: ['/.auth/saml/login', '/.auth/saml/acs'] },
    { ref: 'two entries of one type share their routes', providers: [hostb, hostb], expected: ['/.auth/hostb/login', '/.auth/hostb/callback'] },
  ])('should list the paths of $ref', ({ providers, expected }) => {
    expect(signInRoutePaths(providers)).toStrictEqual(expected);
  });

  test.prop([fc.subarray([hosta, hostb, saml, oidc, builtin])])('should equal the paths of the routes signInRoutes builds', (providers) => {
    expect(signInRoutes({ ...harnessDeps(), providers }).map((r) => r.path)).toStrictEqual(signInRoutePaths(providers));
  });
});

function harnessDeps(): SignInRouteDeps {
  const store = createMemoryStore();
  return {
    providers: [],
    externalURL: SITE,
    store,
    now: () => 0,
    randomBytes: seededRandomBytes('deps'),
    fetch,
    upstreamTimeoutMs: 1_000,
    publicURLs: {},
    pendingSignIns: {},
    currentUserId: async () => null,
    signIn: async () => ok({ kind: 'signed_in', userId: 'u', user: testUser('u'), created: false, linked: false }),
    startSession: async () => null,
    audit: async () => undefined,
  };
}

describe('signInRoutes: code host login and callback as functions', () => {
  it('should redirect to the authorization endpoint with state and PKCE, bind the state to the browser, and keep only its digest (§5.3 hostb rule 1)', async () => {
    const h = harness([hostb]);
    const response = await h.answer('/.auth/hostb/login?returnTo=/search');
    expect(response.status).toBe(303);
    const location = new URL(response.headers['location'] ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('https://hostb.example.com/oauth/authorize');
    const state = location.searchParams.get('state') ?? '';
    expect(location.searchParams.get('redirect_uri')).toBe(`${SITE}/.auth/hostb/callback`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(response.cookies).toStrictEqual([
      { name: 'gatehouse_auth_state', value: state, path: '/', maxAgeSeconds: 600, sameSite: 'Lax', secure: true, httpOnly: true },
    ]);
    expect(await h.store.ephemeral.get('flow_state', state, 1_000)).toBeNull();
    const stored = await h.store.ephemeral.get('flow_state', pendingKey(state), 1_000);
    expect(stored?.group).toBe('203.0.113.7');
    expect(stored?.expiresAt).toBe(601_000);
    expect(JSON.parse(stored?.value ?? '{}')).toMatchObject({ providerIndex: 0, returnTo: '/search' });
  });

  it.each([
    { ref: 'no state', path: '/.auth/hostb/callback?code=c', cookies: {}, status: 400, message: 'has no state' },
    { ref: 'login CSRF: no state cookie', path: '/.auth/hostb/callback?code=c&state=s', cookies: {}, status: 400, message: 'not started in this browser' },
    { ref: 'login CSRF: another state cookie', path: '/.auth/hostb/callback?code=c&state=s', cookies: { gatehouse_auth_state: 't' }, status: 400, message: 'not started in this browser' },
    { ref: 'unknown state', path: '/.auth/hostb/callback?code=c&state=s', cookies: { gatehouse_auth_state: 's' }, status: 400, message: 'expired or was already used' },
  ])('should refuse a callback with $ref', async ({ path, cookies, status, message }) => {
    const h = harness([hostb]);
    const response = await h.answer(path, { cookies });
    expect(response.status).toBe(status);
    expect(String(response.body)).toContain(message);
    expect(h.signIns).toStrictEqual([]);
  });

  it('should refuse a POST to a login route with 400', async () => {
    expect((await harness([hostb]).answer('/.auth/hostb/login', { method: 'POST' })).status).toBe(400);
  });

  it('should take a state once: the second callback with it is refused', async () => {
    const h = harness([hostb]);
    const login = await h.answer('/.auth/hostb/login');
    const state = new URL(login.headers['location'] ?? '').searchParams.get('state') ?? '';
    const first = await h.answer(`/.auth/hostb/callback?state=${state}&code=c`, { cookies: { gatehouse_auth_state: state } });
    // the state was good: the flow went on to the (offline) code exchange
    expect(first.status).toBe(502);
    const second = await h.answer(`/.auth/hostb/callback?state=${state}&code=c`, { cookies: { gatehouse_auth_state: state } });
    expect(second.status).toBe(400);
    expect(String(second.body)).toContain('expired or was already used');
  });

  it('should answer 503 with Retry-After when the pending bound refuses a new state', async () => {
    const h = harness([hostb], { pendingSignIns: { maxPerClient: 1, maxTotal: 1 } });
    expect((await h.answer('/.auth/hostb/login', { clientAddress: '198.51.100.1' })).status).toBe(303);
    const refused = await h.answer('/.auth/hostb/login', { clientAddress: '198.51.100.2' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.cookies).toBeUndefined();
  });

  it('should sign in through the flow function, start a session, clear the state cookie and audit it', async () => {
    const identity: ExternalIdentity = { accountId: '7', username: 'lou', emails: [{ address: 'lou@example.com', verified: true }] };
    const fetchFn: typeof fetch = async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith('/oauth/token')) return Response.json({ access_token: 'token' });
      if (url.endsWith('/api/v4/user')) return Response.json({ id: 7, username: 'lou', email: 'lou@example.com' });
      return new Response('not found', { status: 404 });
    };
    const h = harness([hostb], { fetch: fetchFn, currentUserId: async () => 'signed-in-user' });
    const login = await h.answer('/.auth/hostb/login?returnTo=/after');
    const state = new URL(login.headers['location'] ?? '').searchParams.get('state') ?? '';
    const done = await h.answer(`/.auth/hostb/callback?state=${state}&code=c`, { cookies: { gatehouse_auth_state: state } });
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/after');
    expect(done.cookies?.map((c) => [c.name, c.value, c.maxAgeSeconds])).toStrictEqual([
      ['session', 'u1', undefined],
      ['gatehouse_auth_state', '', 0],
    ]);
    expect(h.signIns).toStrictEqual([{ provider: hostb, identity, signedInUserId: 'signed-in-user' }]);
    expect(h.audits.map((a) => [a.entity, a.action, a.reason])).toStrictEqual([['auth.session', 'signed_in', 'hostb']]);
  });

  it('should answer a denial with 403, audit it, and start no session', async () => {
    const fetchFn: typeof fetch = async (input) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith('/oauth/token')) return Response.json({ access_token: 'token' });
      return Response.json({ id: 8, username: 'mo', email: 'mo@example.com' });
    };
    const h = harness([hostb], {
      fetch: fetchFn,
      signIn: async () => ok({ kind: 'denied', reason: 'signup_not_allowed', message: 'No sign-up here.' }),
      startSession: async () => {
        throw new Error('no session may start on a denial');
      },
    });
    const login = await h.answer('/.auth/hostb/login');
    const state = new URL(login.headers['location'] ?? '').searchParams.get('state') ?? '';
    const denied = await h.answer(`/.auth/hostb/callback?state=${state}&code=c`, { cookies: { gatehouse_auth_state: state } });
    expect(denied.status).toBe(403);
    expect(String(denied.body)).toContain('No sign-up here.');
    expect(h.audits.map((a) => [a.action, a.reason])).toStrictEqual([['failed', 'signup_not_allowed']]);
  });
});

describe('signInRoutes: SAML as functions', () => {
  it('should refuse a GET to the ACS and an ACS post with no RelayState', async () => {
    const h = harness([saml]);
    expect((await h.answer('/.auth/saml/acs')).status).toBe(400);
    const missing = await h.answer('/.auth/saml/acs', { method: 'POST', body: 'SAMLResponse=x' });
    expect(missing.status).toBe(400);
    expect(String(missing.body)).toContain('has no state');
  });

  it('should declare the ACS body limit and media type for the router, a form never decompressed', () => {
    const acs = harness([saml]).routes.find((r) => r.path === '/.auth/saml/acs');
    expect(acs?.body).toStrictEqual({ limit: 512 * 1024, contentTypes: ['application/x-www-form-urlencoded'], decompress: false });
  });
});

describe('signInRoutes: OpenID Connect as functions', () => {
  it('should answer 502 when discovery fails and keep no pending state for the failed login', async () => {
    const h = harness([oidc]);
    const response = await h.answer('/.auth/openidconnect/login');
    expect(response.status).toBe(502);
    expect(response.cookies).toBeUndefined();
    expect(await h.store.ephemeral.count('flow_state', 1_000)).toBe(0);
  });

  it('should refuse a callback whose state was issued for another provider type (§5.3 openidconnect rule 2)', async () => {
    const h = harness([hostb, oidc]);
    const login = await h.answer('/.auth/hostb/login');
    const state = new URL(login.headers['location'] ?? '').searchParams.get('state') ?? '';
    const response = await h.answer(`/.auth/callback?state=${state}&code=c`, { cookies: { gatehouse_auth_state: state } });
    expect(response.status).toBe(400);
    expect(String(response.body)).toContain('expired or was already used');
  });
});
