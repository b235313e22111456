/**
 * The built-in password routes (spec §5.3 "Built-in") and the console page, tested as functions: a request value
 * in, a response value out, no socket.
 */
import { describe, expect, it } from 'vitest';
import { mayUsePassword } from '../../src/core/browser-sign-in.js';
import { consoleHandlers } from '../../src/http/console.js';
import { passwordHandlers } from '../../src/http/password-routes.js';
import type { RouteRequest } from '../../src/http/route.js';
import { createSessions, hashPassword, withProxy } from '../../src/http/sessions.js';
import { createMemoryStore } from '../../src/http/store/memory.js';
import { flatStoreOf } from '../helpers/flat-store.js';

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

  it('should keep returnTo on this site: another origin becomes the console', async () => {
    const { handlers } = setup();
    const page = await handlers.signInPage(request('GET', '/.auth/sign-in?returnTo=//evil.example/'));
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('value="/debug/console"');
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
