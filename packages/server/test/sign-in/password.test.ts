/**
 * The built-in password routes (spec §5.3 "Built-in"), their pages in the shell, `GET /`, and the console page,
 * tested as functions: a request value in, a response value out, no socket.
 */
import { describe, expect, it } from 'vitest';
import { mayUsePassword } from '../../../../src/core/browser-sign-in.js';
import { consoleHandlers } from '../../src/console/console.js';
import { CSRF_COOKIE, CSRF_FIELD, formToken } from '../../src/pages/csrf.js';
import { pageResponse, pageRoute, pagesCsp } from '../../src/pages/page-routes.js';
import { homeHandler, passwordHandlers, SIGN_IN_PATH, SIGN_OUT_PATH, SIGN_UP_PATH, type PasswordRoutesOptions } from '../../src/sign-in/password.js';
import type { Route, RouteRequest } from '../../src/kernel/route.js';
import { createSessions, hashPassword, withProxy } from '../../src/session/sessions.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

const NOW = 1_700_000_000_000;
const random = (n: number): Uint8Array => new Uint8Array(n).map((_, i) => (i * 37 + n) % 256);

function request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): RouteRequest {
  const headers = init.headers ?? {};
  return {
    method,
    url: new URL(path, 'http://gatehouse.test'),
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'r1',
    body: init.body ?? null,
  };
}

function setup(allowSignup = true) {
  const store = createMemoryStore();
  const sessions = createSessions({ store, now: () => NOW, randomBytes: random, secureCookies: false, sessionTtlSeconds: 3600 });
  const handlers = passwordHandlers({
    store,
    now: () => NOW,
    randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
    builtin: { type: 'builtin', allowSignup },
    audit: async () => undefined,
    origin: 'http://gatehouse.test',
    sessions,
    proxy: null,
  });
  return { store, sessions, handlers };
}

const json = { 'content-type': 'application/json' };

describe('password routes as functions', () => {
  it('should sign up with a JSON form, set the session cookie, and let that cookie authenticate', async () => {
    const { sessions, handlers } = setup();
    const answer = await handlers.signUp(request('POST', '/.auth/sign-up', {
      headers: json,
      body: JSON.stringify({ username: 'alice', email: 'alice@example.com', password: 'correct horse' }),
    }));
    expect(answer.status).toBe(201);
    expect(JSON.parse(String(answer.body))).toStrictEqual({ ok: true, username: 'alice' });
    const cookie = answer.cookies?.[0];
    expect(cookie?.name).toBe('gatehouse_session');
    const user = await sessions.authenticate({ headers: { cookie: `${cookie?.name}=${cookie?.value}` } });
    expect(user?.username).toBe('alice');
  });

  it('should refuse a cross-origin form post (403) and a body that is not JSON (400)', async () => {
    const { handlers } = setup();
    const cross = await handlers.signIn(request('POST', '/.auth/sign-in', { headers: { ...json, origin: 'https://evil.example' }, body: '{}' }));
    expect(cross.status).toBe(403);
    const bad = await handlers.signIn(request('POST', '/.auth/sign-in', { headers: json, body: '{' }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(String(bad.body))).toMatchObject({ error: { code: 'malformed_json' } });
  });

  it('should refuse sign-up when allowSignup is false (§5.3 "Built-in")', async () => {
    const { handlers } = setup(false);
    const answer = await handlers.signUp(request('POST', '/.auth/sign-up', { headers: json, body: JSON.stringify({ username: 'bob', email: 'b@example.com', password: 'long enough' }) }));
    expect(answer.status).toBe(403);
  });

  it('should never sign a service account in with a password (§1: service accounts use access tokens only)', async () => {
    const { store, handlers } = setup();
    const passwordHash = await hashPassword('service password', random);
    await flatStoreOf(store).createUser({ username: 'robot', origin: 'admin_created', siteAdmin: false, serviceAccount: true, emails: [], passwordHash, createdAt: NOW });
    const answer = await handlers.signIn(request('POST', '/.auth/sign-in', { headers: json, body: JSON.stringify({ username: 'robot', password: 'service password' }) }));
    expect(answer.status).toBe(401);
    expect(mayUsePassword({ serviceAccount: true, passwordHash })).toBe(false);
    expect(mayUsePassword({ serviceAccount: false, passwordHash })).toBe(true);
    expect(mayUsePassword({ serviceAccount: false, passwordHash: null })).toBe(false);
  });

  it('should keep returnTo on this site: another origin becomes the settings area', async () => {
    const { handlers } = setup();
    const page = await handlers.signInPage(request('GET', '/.auth/sign-in?returnTo=//evil.example/'));
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('name="returnTo" value="/settings"');
  });

  it('should sign out with a cookie that clears the session', async () => {
    const { handlers } = setup();
    const answer = await handlers.signOut(request('POST', '/.auth/sign-out', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }));
    expect(answer.status).toBe(303);
    expect(answer.cookies?.[0]).toMatchObject({ value: '', maxAgeSeconds: 0 });
  });
});

describe('the console page as a function', () => {
  it('should show the proxy\'s refusal instead of the console (§5.3 http-header)', async () => {
    const { sessions } = setup();
    const proxy = async () => ({ kind: 'denied', message: 'Not allowed <here>.' }) as const;
    const page = await consoleHandlers({ sessions: withProxy(sessions, proxy), proxy }).page(request('GET', '/debug/console'));
    expect(page.status).toBe(403);
    expect(String(page.body)).toContain('Not allowed &lt;here&gt;.');
  });
});

/** The password pages in the shell, with the page kit's browsers (cookies, `_csrf`). */
async function pagesSetup(extra: Partial<PasswordRoutesOptions> = {}) {
  const kit = await pageKit();
  const handlers = passwordHandlers({
    store: kit.store,
    now: kit.clock.now,
    randomBytes: kit.deps.randomBytes,
    builtin: { type: 'builtin', allowSignup: true },
    audit: kit.deps.audit,
    origin: kit.deps.origin,
    sessions: kit.deps.sessions,
    proxy: null,
    ...extra,
  });
  const routes: readonly Route[] = [
    { methods: ['GET'], path: SIGN_IN_PATH, handler: handlers.signInPage },
    { methods: ['POST'], path: SIGN_IN_PATH, handler: handlers.signIn },
    { methods: ['GET'], path: SIGN_UP_PATH, handler: handlers.signUpPage },
    { methods: ['POST'], path: SIGN_UP_PATH, handler: handlers.signUp },
    { methods: ['GET'], path: SIGN_OUT_PATH, handler: handlers.signOutPage },
    { methods: ['POST'], path: SIGN_OUT_PATH, handler: handlers.signOut },
    { methods: ['GET'], path: '/', handler: homeHandler(kit.deps.currentUser) },
    pageRoute(kit.deps, '/settings', 'signed_in', async (ctx) => pageResponse(ctx, 200, { title: 'Profile', nav: null, children: null })),
  ];
  return { kit, routes };
}

/** The `_csrf` value of the first form of a page (the header's sign-out form on a signed-in page). */
function firstToken(html: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
}

describe('the sign-in, sign-up and sign-out pages in the shell', () => {
  it('shows the sign-in page with the pages CSP, no inline script, a form token, labels and the provider links as text', async () => {
    const hostile = '<script>alert(1)</script>';
    const { kit, routes } = await pagesSetup({ signInLinks: [{ label: hostile, loginPath: '/.auth/hosta/login?provider=1' }] });
    const out = await kit.browser(null);
    out.cookies.delete(CSRF_COOKIE);
    const page = await callRoute(routes, out.get('/.auth/sign-in?returnTo=%2Fsettings%2Ftokens'));
    const html = textOf(page);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(pagesCsp());
    expect(html).not.toMatch(/<script\b[^>]*>[^<]/);
    expect(html).not.toContain(hostile);
    expect(visibleText(page)).toContain(`Sign in with ${hostile}`);
    expect(html).toContain('class="provider" href="/.auth/hosta/login?provider=1&amp;returnTo=%2Fsettings%2Ftokens"');
    expect(html).toContain('<label for="username">Username</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<button type="submit">Sign in</button>');
    expect(html).toContain('name="returnTo" value="/settings/tokens"');
    expect(html).not.toContain('Signed in as');
    // the browser had no form token cookie: the page sets it, and its field carries the matching token
    const cookie = page.cookies?.find((c) => c.name === CSRF_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(firstToken(html)).toBe(formToken({ cookies: new Map([[CSRF_COOKIE, cookie?.value ?? '']]) }, () => new Uint8Array(32), false).token);
  });

  it('shows the sign-up page with Username, Email and Password, or why sign-up is closed', async () => {
    const { kit, routes } = await pagesSetup();
    const page = textOf(await callRoute(routes, (await kit.browser(null)).get('/.auth/sign-up')));
    for (const label of ['Username', 'Email', 'Password']) expect(page).toContain(`>${label}</label>`);
    expect(page).toContain('<button type="submit">Sign up</button>');
    expect(page).toContain('name="_csrf"');
    const closed = await pagesSetup({ builtin: { type: 'builtin', allowSignup: false } });
    const refused = await callRoute(closed.routes, (await closed.kit.browser(null)).get('/.auth/sign-up'));
    expect(visibleText(refused)).toContain('Sign-up is not allowed on this site.');
    expect(textOf(refused)).not.toContain('<form method="post" action="/.auth/sign-up"');
  });

  it('signs in with the form to /settings by default (303 with the session), and re-shows the username, never the password, after a refusal', async () => {
    const { kit, routes } = await pagesSetup();
    await kit.createUser('alice', { password: 'correct horse' });
    const out = await kit.browser(null);
    const wrong = await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'alice', password: 'not the password' }));
    expect(wrong.status).toBe(401);
    expect(visibleText(wrong)).toContain('Invalid username or password.');
    expect(textOf(wrong)).toContain('name="username" type="text" required="" autoComplete="username" value="alice"');
    expect(textOf(wrong)).not.toContain('not the password');
    const signedIn = await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'alice', password: 'correct horse' }));
    expect([signedIn.status, signedIn.headers['location'], signedIn.cookies?.[0]?.name]).toStrictEqual([303, '/settings', 'gatehouse_session']);
    const back = await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'alice', password: 'correct horse', returnTo: '/settings/tokens?x=1' }));
    expect(back.headers['location']).toBe('/settings/tokens?x=1');
  });

  it('signs up with the form to /settings, and re-shows a hostile email as text after a refusal', async () => {
    const { kit, routes } = await pagesSetup();
    const out = await kit.browser(null);
    const email = `a"b'&c@example.com`;
    const short = await callRoute(routes, out.post(SIGN_UP_PATH, { username: 'bob', email, password: 'short' }));
    expect(short.status).toBe(400);
    expect(visibleText(short)).toContain('passwords have at least 12 characters.');
    expect(textOf(short)).toContain('value="a&quot;b&#x27;&amp;c@example.com"');
    expect(textOf(short)).toContain('value="bob"');
    expect(await kit.store.accounts.findByUsernameKey('bob')).toBeNull();
    const created = await callRoute(routes, out.post(SIGN_UP_PATH, { username: 'bob', email, password: 'long enough!' }));
    expect([created.status, created.headers['location']]).toStrictEqual([303, '/settings']);
  });

  it('answers a throttled form with 429, Retry-After and the page saying why', async () => {
    const policy = { freeFailures: 1, baseDelayMs: 5_000, maxDelayMs: 5_000, forgetAfterMs: 60_000 };
    const { kit, routes } = await pagesSetup({ signInThrottle: { policy, clientAddressPolicy: null } });
    const out = await kit.browser(null);
    expect((await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'mo', password: 'wrong one' }))).status).toBe(401);
    const throttled = await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'mo', password: 'wrong two' }));
    expect([throttled.status, throttled.headers['retry-after'], throttled.headers['content-security-policy']]).toStrictEqual([429, '5', pagesCsp()]);
    expect(visibleText(throttled)).toContain('Too many failed sign-in attempts. Try again in 5 seconds.');
  });

  it('refuses a cross-site form post with 403, setting no cookie', async () => {
    const { kit, routes } = await pagesSetup();
    await kit.createUser('alice', { password: 'correct horse' });
    const out = await kit.browser(null);
    out.cookies.delete(CSRF_COOKIE);
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }]) {
      const refused = await callRoute(routes, out.post(SIGN_IN_PATH, { username: 'alice', password: 'correct horse' }, headers));
      expect([refused.status, refused.cookies ?? []]).toStrictEqual([403, []]);
      expect(visibleText(refused)).toContain('Cross-origin form submissions are refused.');
    }
  });

  it('shows the proxy refusal on the sign-in page as text (§5.3 http-header)', async () => {
    const { kit, routes } = await pagesSetup({ proxy: async () => ({ kind: 'denied', message: 'Not allowed <here>.' }) });
    const page = await callRoute(routes, (await kit.browser(null)).get('/.auth/sign-in'));
    expect(page.status).toBe(403);
    expect(textOf(page)).toContain('<p class="notice error" role="alert">Not allowed &lt;here&gt;.</p>');
  });

  it('signs out with the header form of any page (its _csrf accepted), and refuses a cross-site sign-out', async () => {
    const { kit, routes } = await pagesSetup();
    const alice = await kit.createUser('alice');
    const browser = await kit.browser(alice);
    const settings = textOf(await callRoute(routes, browser.get('/settings')));
    expect(settings).toContain(`<form method="post" action="/.auth/sign-out"><input type="hidden" name="_csrf" value="${browser.csrf}"/>`);
    const crossSite = await callRoute(routes, browser.post(SIGN_OUT_PATH, {}, { 'sec-fetch-site': 'cross-site' }));
    expect(crossSite.status).toBe(403);
    expect(await kit.deps.currentUser(browser.get('/'))).not.toBeNull();
    const out = await callRoute(routes, browser.post(SIGN_OUT_PATH, { [CSRF_FIELD]: firstToken(settings) ?? '' }));
    expect([out.status, out.headers['location']]).toStrictEqual([303, SIGN_IN_PATH]);
    expect(out.cookies?.[0]).toMatchObject({ name: 'gatehouse_session', value: '', maxAgeSeconds: 0 });
    expect(await kit.deps.currentUser(browser.get('/'))).toBeNull();
  });

  it('shows the sign-out page with the account and its button, or a link to sign in', async () => {
    const { kit, routes } = await pagesSetup();
    const alice = await kit.createUser('alice');
    const page = await callRoute(routes, (await kit.browser(alice)).get(SIGN_OUT_PATH));
    expect(visibleText(page)).toContain('You are signed in as alice .');
    expect(textOf(page)).toContain('<button type="submit">Sign out</button>');
    expect(page.headers['content-security-policy']).toBe(pagesCsp());
    const nobody = await callRoute(routes, (await kit.browser(null)).get(SIGN_OUT_PATH));
    expect(visibleText(nobody)).toContain('You are not signed in.');
    expect(textOf(nobody)).not.toContain('<button');
  });
});

describe('GET /', () => {
  it('sends a signed-in visitor to /settings and anyone else to the sign-in page', async () => {
    const { kit, routes } = await pagesSetup();
    const alice = await kit.createUser('alice');
    const signedIn = await callRoute(routes, (await kit.browser(alice)).get('/'));
    expect([signedIn.status, signedIn.headers['location']]).toStrictEqual([303, '/settings']);
    const signedOut = await callRoute(routes, (await kit.browser(null)).get('/'));
    expect([signedOut.status, signedOut.headers['location']]).toStrictEqual([303, '/.auth/sign-in']);
  });
});
