/**
 * End-to-end OpenID Connect sign-in on loopback against a real OpenID provider (`oidc-provider`) running in
 * the test: discovery, state, nonce, PKCE, `requireEmailDomain` and `email_verified`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_DENIAL_MESSAGES } from '../../../../src/core/sign-in/resolve.js';
import type { StatePayload } from '../../src/sign-in/state.js';
import type { EphemeralStore } from '../../src/store/types.js';
import { startTestApp, type TestApp } from '../fakes/app.js';
import { createBrowser, listen, type Browser, type Listening } from '../fakes/http.js';
import { createOpenIdProvider } from '../fakes/openid-provider.js';

const PEOPLE: Record<string, { email: string; email_verified: boolean }> = {
  alice: { email: 'alice@example.com', email_verified: true },
  outsider: { email: 'bob@sub.example.com', email_verified: true },
  unverified: { email: 'eve@example.com', email_verified: false },
  carol: { email: 'Carol@EXAMPLE.com', email_verified: true },
};

let op: Listening;
let app: TestApp;
let opHandler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
/** When set, the nonce of the next taken state is replaced (a response minted for another request). */
let swapNonce = false;

beforeAll(async () => {
  op = await listen((req, res) => opHandler(req, res));
  app = await startTestApp({
    providers: () => [
      {
        type: 'openidconnect',
        issuer: op.url,
        clientID: 'gatehouse',
        clientSecret: 'gatehouse-secret-that-is-long-enough',
        allowSignup: true,
        requireEmailDomain: 'example.com',
      },
    ],
    wrapStates: (states: EphemeralStore): EphemeralStore => ({
      ...states,
      take: async (kind, key, now) => {
        const entry = await states.take(kind, key, now);
        if (entry === null || !swapNonce) return entry;
        swapNonce = false;
        const value: StatePayload = JSON.parse(entry.value);
        const swapped: StatePayload = { ...value, nonce: 'a-nonce-from-another-request' };
        return { ...entry, value: JSON.stringify(swapped) };
      },
    }),
  });
  const provider = createOpenIdProvider(op.url, `${app.url}/.auth/callback`, PEOPLE);
  opHandler = provider.callback();
});

afterAll(async () => {
  await Promise.all([app?.close(), op?.close()]);
});

/** Login at the app, sign in at the OpenID provider's login form as `login`, return the callback URL. */
async function authorize(browser: Browser, login: string): Promise<{ readonly callbackURL: string; readonly authorizeURL: URL }> {
  const start = await browser.get(`${app.url}/.auth/openidconnect/login?returnTo=/after`);
  expect(start.status).toBe(303);
  const authorizeURL = new URL(start.headers.get('location') ?? '');
  const form = await browser.follow(authorizeURL.href, (u) => u.origin === app.url);
  expect(form.response.status).toBe(200);
  await form.response.text();
  const submitted = await browser.postForm(form.url, { prompt: 'login', login, password: 'any' });
  const { url } = await browser.follow(new URL(submitted.headers.get('location') ?? '', op.url).href, (u) => u.origin === app.url);
  return { callbackURL: url, authorizeURL };
}

describe('signInRoutes: OpenID Connect', () => {
  it('should send the authorization request of §5.3 openidconnect rules 1–3', async () => {
    const browser = createBrowser();
    const start = await browser.get(`${app.url}/.auth/openidconnect/login`);
    const url = new URL(start.headers.get('location') ?? '');
    expect(`${url.origin}${url.pathname}`).toBe(`${op.url}/auth`);
    expect(Object.fromEntries([...url.searchParams].filter(([k]) => !['state', 'nonce', 'code_challenge'].includes(k)))).toStrictEqual({
      client_id: 'gatehouse',
      redirect_uri: `${app.url}/.auth/callback`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      response_type: 'code',
    });
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).not.toBe(url.searchParams.get('nonce'));
  });

  it('should create the account of a verified person in the domain (§5.3 openidconnect rules 4–5)', async () => {
    const browser = createBrowser();
    const { callbackURL } = await authorize(browser, 'alice');
    expect(new URL(callbackURL).searchParams.get('iss')).toBe(op.url);
    const res = await browser.get(callbackURL);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/after');
    const account = app.store.accounts().find((a) => a.username === 'alice');
    expect(account?.emails).toStrictEqual([{ address: 'alice@example.com', verified: true }]);
    expect(account?.externalAccounts).toStrictEqual([{ providerType: 'openidconnect', serviceId: op.url, accountId: 'alice' }]);
  });

  it.each([
    { ref: '§5.3 openidconnect rule 5 (subdomain)', login: 'outsider', reason: 'email_domain_not_allowed' },
    { ref: 'email_verified false', login: 'unverified', reason: 'unverified_email' },
  ] as const)('should deny and write nothing ($ref)', async ({ login, reason }) => {
    const before = app.store.accounts();
    const browser = createBrowser();
    const { callbackURL } = await authorize(browser, login);
    const res = await browser.get(callbackURL);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain(SIGN_IN_DENIAL_MESSAGES[reason]);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should refuse an ID token whose nonce is not the one sent', async () => {
    const before = app.store.accounts();
    const browser = createBrowser();
    const { callbackURL } = await authorize(browser, 'carol');
    swapNonce = true;
    const res = await browser.get(callbackURL);
    expect(swapNonce).toBe(false);
    expect(res.status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should refuse a replayed code, with its state or with a fresh one', async () => {
    const browser = createBrowser();
    const { callbackURL } = await authorize(browser, 'carol');
    const first = await browser.get(callbackURL);
    expect(first.status).toBe(303);
    const accounts = app.store.accounts();
    // The same response again: the state was spent.
    expect((await browser.get(callbackURL)).status).toBe(400);
    // The code under a fresh state (and its PKCE verifier): the provider refuses the code.
    const again = await browser.get(`${app.url}/.auth/openidconnect/login`);
    const state = new URL(again.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const replay = new URL(callbackURL);
    replay.searchParams.set('state', state);
    expect((await browser.get(replay.href)).status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(accounts);
  });

  it('should refuse a callback without state, or with a state this browser did not start', async () => {
    const browser = createBrowser();
    const { callbackURL } = await authorize(browser, 'alice');
    const withoutState = new URL(callbackURL);
    withoutState.searchParams.delete('state');
    expect((await browser.get(withoutState.href)).status).toBe(400);
    expect((await createBrowser().get(callbackURL)).status).toBe(400);
    // Its own browser can still finish (the state is spent only by a matching browser).
    expect((await browser.get(callbackURL)).status).toBe(303);
  });
});
