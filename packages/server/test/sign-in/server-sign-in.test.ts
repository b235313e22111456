/**
 * end to end through `createGatehouseServer` on loopback: the provider flows mounted from the site
 * configuration text (no extra routes), sessions, the sign-in page, several providers on one account, the
 * proxy, denials with their messages, and a store left untouched by every failed flow.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { freePort } from '../helpers/free-port.js';
import type Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_IN_DENIAL_MESSAGES } from '../../../../src/core/sign-in/resolve.js';
import { escapeHtml } from '../../src/kernel/http-io.js';
import { createGatehouseServer, type GatehouseServer, type Store } from '../../src/index.js';
import { hashPassword } from '../../src/session/sessions.js';
import { seededRandomBytes } from '../fakes/app.js';
import { HOSTA_CLIENT, startFakeHosta, type FakeHosta } from '../fakes/hosta.js';
import { HOSTB_CLIENT, startFakeHostb, type FakeHostb } from '../fakes/hostb.js';
import { HOSTC_CLIENT, startFakeHostcserver, type FakeHostc } from '../fakes/hostc.js';
import { createBrowser, listen, type Browser, type Listening } from '../fakes/http.js';
import { createOpenIdProvider } from '../fakes/openid-provider.js';
import { authnRequestId, b64, IDP_ENTRY_POINT, samlResponseXml } from '../fakes/saml-idp.js';
import { IDP_CERT, IDP_KEY } from '../fakes/saml-keys.js';
import { fc, test as propertyTest } from '@fast-check/vitest';
import type { AccountOrigin } from '../../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../../src/core/external-identity.js';
import { withRandomSuffix } from '../../../../src/core/username.js';
import type { Account, ExternalAccountRef } from '../../../../src/core/account-directory.js';
import { PROVIDER_TYPES } from '../../../../src/core/auth-providers.js';
import { runSignIn, type SignInFlowError, type SignInOutcome } from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { UserRecord } from '../../src/store/types.js';
import type { Result } from 'neverthrow';
import { signInWithIdentity, type SignInStore as ListingStore, type SignInStoreConflict } from './sign-in-oracle.js';
import { flatStoreOf } from '../helpers/flat-store.js';
import { authorizeApproving } from '../helpers/oauth-consent-client.js';

const v = (email: string, primary = true) => ({ email, verified: true, primary });

let hosta: FakeHosta;
let hostb: FakeHostb;
let hostcserver: FakeHostc;
let op: Listening;
let gatehouse: GatehouseServer;
let url: string;
let opHandler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
const started: { close(): Promise<void> }[] = [];


const OIDC_PEOPLE: Record<string, { email: string; email_verified: boolean }> = {
  olga: { email: 'olga@example.com', email_verified: true },
  outsider: { email: 'bob@sub.example.com', email_verified: true },
  unverified: { email: 'eve@example.com', email_verified: false },
  // the same verified email as the hosta user alice: links to her account (§5.4 rules 2 and 4)
  alice: { email: 'alice@example.com', email_verified: true },
};

function startOpenIdProvider(redirectURI: string): Provider {
  return createOpenIdProvider(op.url, redirectURI, OIDC_PEOPLE);
}

beforeAll(async () => {
  hosta = await startFakeHosta([
    { id: 1, login: 'alice', emails: [v('alice@example.com')], orgs: ['acme'] },
    { id: 2, login: 'bob', emails: [v('bob@example.com')], teams: [{ org: 'globex', name: 'Core Team Infra', slug: 'core-team-infra' }] },
    { id: 5, login: 'erin', emails: [{ email: 'erin@example.com', verified: false, primary: true }], orgs: ['acme'] },
    { id: 7, login: 'gina', emails: [v('gina@a.example'), v('gina@b.example', false), v('gina@c.example', false)], orgs: ['acme'], failPages: ['/api/user/emails:2'] },
    { id: 11, login: 'pat', emails: [v('pat@example.com')], orgs: ['acme'] },
  ]);
  hostb = await startFakeHostb([
    { id: 21, username: 'hank', email: 'hank@example.com', groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 10 }] },
    { id: 22, username: 'ivy', email: 'ivy@example.com', groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 5 }] },
    { id: 24, username: 'kim', email: null, groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 40 }] },
  ]);
  hostcserver = await startFakeHostcserver([{ id: 42, username: 'ned', emails: [{ email: 'ned@corp.example', confirmed: true, primary: true }] }]);
  op = await listen((req, res) => opHandler(req, res));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  opHandler = startOpenIdProvider(`${url}/.auth/callback`).callback();
  // The configuration an administrator writes (README): JSONC text, nothing else wired by hand.
  const siteConfiguration = `{
    "externalURL": "${url}",
    "auth.providers": [
      { "type": "builtin", "allowSignup": true },
      { "type": "hosta", "displayName": "Host A", "url": "${hosta.url}", "clientID": "${HOSTA_CLIENT.clientId}",
        "clientSecret": "${HOSTA_CLIENT.clientSecret}", "allowSignup": true, "allowOrgs": ["acme"],
        "allowOrgsMap": { "globex": ["Core Team"] } },
      { "type": "hostb", "url": "${hostb.url}", "clientID": "${HOSTB_CLIENT.clientId}",
        "clientSecret": "${HOSTB_CLIENT.clientSecret}", "allowGroups": ["acme/platform"] },
      { "type": "hostcserver", "url": "${hostcserver.url}", "clientID": "${HOSTC_CLIENT.clientId}",
        "clientSecret": "${HOSTC_CLIENT.clientSecret}" },
      { "type": "openidconnect", "displayName": "Company SSO", "issuer": "${op.url}", "clientID": "gatehouse",
        "clientSecret": "gatehouse-secret-that-is-long-enough", "requireEmailDomain": "example.com" },
      { "type": "saml", "entryPoint": "${IDP_ENTRY_POINT}", "idpCertificate": ${JSON.stringify(IDP_CERT)} },
    ],
  }`;
  gatehouse = createGatehouseServer({ siteConfiguration, log: () => {}, randomBytes: seededRandomBytes('site-sign-in') });
  await gatehouse.listen(port);
  started.push(hosta, hostb, hostcserver, op, gatehouse);
});

afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

/** Everything a sign-in may write: accounts with their emails and linked identities. */
async function snapshot(grouped: Store = gatehouse.store): Promise<unknown> {
  const store = flatStoreOf(grouped);
  const users = await store.listUsers();
  return Promise.all(users.map(async (u) => ({ user: u, links: await store.listExternalAccounts(u.id), credentials: await store.listProviderCredentials(u.id) })));
}

async function currentUser(browser: Browser, base = url): Promise<unknown> {
  const res = await fetch(`${base}/.api/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-requested-with': 'test',
      cookie: [...(browser.jar.get(new URL(base).host) ?? new Map<string, string>())].map(([k, val]) => `${k}=${val}`).join('; '),
    },
    body: JSON.stringify({ query: '{ currentUser { username externalAccounts { serviceType accountId } } }' }),
  });
  const body = (await res.json()) as { data?: { currentUser: unknown } };
  return body.data?.currentUser ?? null;
}

/** Login route → host (as `as`) → back at the callback; returns the callback's answer. */
async function codeHostSignIn(browser: Browser, type: string, as: string, base = url): Promise<{ response: Response; callbackURL: string }> {
  const login = await browser.get(`${base}/.auth/${type}/login?returnTo=/after`);
  expect(login.status).toBe(303);
  const authorizeURL = new URL(login.headers.get('location') ?? '');
  authorizeURL.searchParams.set('as', as);
  const { url: callbackURL } = await browser.follow(authorizeURL.href, (u) => u.origin === new URL(base).origin);
  return { response: await browser.get(callbackURL), callbackURL };
}

async function oidcSignIn(browser: Browser, login: string): Promise<{ response: Response; callbackURL: string }> {
  const start = await browser.get(`${url}/.auth/openidconnect/login?returnTo=/after`);
  expect(start.status).toBe(303);
  const form = await browser.follow(start.headers.get('location') ?? '', (u) => u.origin === url);
  await form.response.text();
  const submitted = await browser.postForm(form.url, { prompt: 'login', login, password: 'any' });
  const { url: callbackURL } = await browser.follow(new URL(submitted.headers.get('location') ?? '', op.url).href, (u) => u.origin === url);
  return { response: await browser.get(callbackURL), callbackURL };
}

async function samlStart(browser: Browser): Promise<{ relayState: string; requestId: string }> {
  const res = await browser.get(`${url}/.auth/saml/login?returnTo=/after`);
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location') ?? '');
  return { relayState: location.searchParams.get('RelayState') ?? '', requestId: authnRequestId(location) };
}

function samlResponse(requestId: string, nameID: string, signed = true): string {
  return b64(
    samlResponseXml({
      inResponseTo: requestId,
      recipient: `${url}/.auth/saml/acs`,
      audience: `${url}/.auth/saml/metadata`,
      nameID,
      email: `${nameID}@example.com`,
      signWith: signed ? IDP_KEY : null,
    }),
  );
}

function sessionCookieLine(res: Response): string | null {
  return res.headers.getSetCookie().find((l) => l.startsWith('gatehouse_session=') && !/max-age=0/i.test(l)) ?? null;
}

describe('createGatehouseServer: provider routes from auth.providers', () => {
  it('should list every configured sign-in provider on the sign-in page', async () => {
    const res = await fetch(`${url}/.auth/sign-in?returnTo=/x`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const hrefs = [...html.matchAll(/class="provider" href="([^"]+)"/g)].map((m) => m[1]);
    expect(hrefs).toStrictEqual([
      '/.auth/hosta/login?provider=1&amp;returnTo=%2Fx',
      '/.auth/hostb/login?provider=2&amp;returnTo=%2Fx',
      '/.auth/hostcserver/login?provider=3&amp;returnTo=%2Fx',
      '/.auth/openidconnect/login?provider=4&amp;returnTo=%2Fx',
      '/.auth/saml/login?provider=5&amp;returnTo=%2Fx',
    ]);
    expect(html).toContain('Sign in with Host A');
    expect(html).toContain('Sign in with Company SSO');
    expect(html).toContain('name="password"');
  });

  it.each([
    { ref: '§4 hosta callback', type: 'hosta', authorize: '/login/oauth/authorize' },
    { ref: '§4 hostb callback', type: 'hostb', authorize: '/oauth/authorize' },
    { ref: '§4 hostcserver callback', type: 'hostcserver', authorize: '/rest/oauth2/latest/authorize' },
  ])('should mount the login route with redirect_uri {base}/.auth/<type>/callback ($ref)', async ({ type, authorize }) => {
    const res = await fetch(`${url}/.auth/${type}/login`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.pathname).toBe(authorize);
    expect(location.searchParams.get('redirect_uri')).toBe(`${url}/.auth/${type}/callback`);
    expect(location.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stateCookie = res.headers.getSetCookie().find((l) => l.startsWith('gatehouse_auth_state=')) ?? '';
    expect(stateCookie).toContain('HttpOnly');
    expect(stateCookie).toContain('SameSite=Lax');
    expect(stateCookie).not.toContain('Secure');
  });

  it('should sign a code host user in with a fresh HttpOnly SameSite=Lax session (session security)', async () => {
    const browser = createBrowser();
    const { response } = await codeHostSignIn(browser, 'hosta', 'alice');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/after');
    const line = sessionCookieLine(response) ?? '';
    expect(line).toMatch(/^gatehouse_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    // the flow's state cookie is cleared in the same answer
    expect(response.headers.getSetCookie().some((l) => l.startsWith('gatehouse_auth_state=;') && l.includes('Max-Age=0'))).toBe(true);
    expect(await currentUser(browser)).toStrictEqual({ username: 'alice', externalAccounts: [{ serviceType: 'hosta', accountId: '1' }] });
    const audit = await flatStoreOf(gatehouse.store).listAudit(5);
    expect(audit.some((e) => e.entity === 'auth.session' && e.action === 'signed_in' && e.reason === 'hosta')).toBe(true);
  });

  it('should rotate the session id at sign-in and link several providers to one account (§5.4 rule 4)', async () => {
    const browser = createBrowser();
    const first = await codeHostSignIn(browser, 'hosta', 'pat');
    const firstCookie = browser.jar.get(new URL(url).host)?.get('gatehouse_session');
    expect(first.response.status).toBe(303);
    // signed in as pat, sign in with hostb as hank: the identity is added to pat's account
    const second = await codeHostSignIn(browser, 'hostb', 'hank');
    expect(second.response.status).toBe(303);
    const secondCookie = browser.jar.get(new URL(url).host)?.get('gatehouse_session');
    expect(secondCookie).toBeDefined();
    expect(secondCookie).not.toBe(firstCookie);
    // the old session id no longer authenticates
    const stale = createBrowser();
    stale.jar.set(new URL(url).host, new Map([['gatehouse_session', firstCookie ?? '']]));
    expect(await currentUser(stale)).toBeNull();
    expect(await currentUser(browser)).toStrictEqual({
      username: 'pat',
      externalAccounts: [
        { serviceType: 'hosta', accountId: '11' },
        { serviceType: 'hostb', accountId: '21' },
      ],
    });
    // and hank's hostb identity now signs in to pat's account from any browser
    const elsewhere = createBrowser();
    expect((await codeHostSignIn(elsewhere, 'hostb', 'hank')).response.status).toBe(303);
    expect(await currentUser(elsewhere)).toMatchObject({ username: 'pat' });
  });

  it('should link an OpenID Connect identity by a verified email on both sides (§5.4 rules 2 and 4)', async () => {
    const browser = createBrowser();
    const { response } = await oidcSignIn(browser, 'alice');
    expect(response.status).toBe(303);
    expect(await currentUser(browser)).toStrictEqual({
      username: 'alice',
      externalAccounts: [
        { serviceType: 'hosta', accountId: '1' },
        { serviceType: 'openidconnect', accountId: 'alice' },
      ],
    });
  });

  it('should create accounts through OpenID Connect and SAML', async () => {
    const oidc = createBrowser();
    expect((await oidcSignIn(oidc, 'olga')).response.status).toBe(303);
    expect(await currentUser(oidc)).toStrictEqual({ username: 'olga', externalAccounts: [{ serviceType: 'openidconnect', accountId: 'olga' }] });
    const saml = createBrowser();
    const { relayState, requestId } = await samlStart(saml);
    const res = await saml.postForm(`${url}/.auth/saml/acs`, { SAMLResponse: samlResponse(requestId, 'sami'), RelayState: relayState });
    expect(res.status).toBe(303);
    expect(await currentUser(saml)).toStrictEqual({ username: 'sami', externalAccounts: [{ serviceType: 'saml', accountId: 'sami' }] });
  });

  it.each([
    { ref: '§5.4 rule 3, §7 rule 2', type: 'hosta', as: 'erin', reason: 'verified_email_missing' },
    { ref: '§5.4 rule 3 (hostb)', type: 'hostb', as: 'kim', reason: 'verified_email_missing' },
    { ref: '§5.3 hosta rule 5, §7 rule 3', type: 'hosta', as: 'bob', reason: 'not_in_allowed_orgs_or_teams' },
    { ref: '§5.3 hostb rule 5, §7 rule 4', type: 'hostb', as: 'ivy', reason: 'minimal_access' },
    { ref: '§5.3 hostcserver, §7 rule 3', type: 'hostcserver', as: 'ned', reason: 'signup_not_allowed' },
  ] as const)('should show the denial message, start no session and write nothing ($ref)', async ({ type, as, reason }) => {
    const before = await snapshot();
    const browser = createBrowser();
    const { response } = await codeHostSignIn(browser, type, as);
    expect(response.status).toBe(403);
    const page = await response.text();
    expect(page).toContain(escapeHtml(SIGN_IN_DENIAL_MESSAGES[reason]));
    expect(sessionCookieLine(response)).toBeNull();
    expect(await snapshot()).toStrictEqual(before);
    const audit = await flatStoreOf(gatehouse.store).listAudit(1);
    expect(audit[0]).toMatchObject({ entity: 'auth.session', action: 'failed', reason });
    // the person is shown a reason and a reference code; the entry holds the code and the trace ending in the refusal
    const reference = audit[0]?.details['reference'] ?? '';
    expect(reference).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/u);
    expect(page).toContain(`<code class="reference-code">${reference}</code>`);
    expect(page).toContain('class="refusal-reason"');
    const trace = JSON.parse(audit[0]?.details['trace'] ?? '[]') as { facts: { reason?: string }; outcome: string }[];
    expect(trace.at(-1)).toMatchObject({ outcome: 'deny', facts: { reason } });
  });

  it('should say that a verified email is missing (§5.4 rule 3)', async () => {
    const { response } = await codeHostSignIn(createBrowser(), 'hosta', 'erin');
    expect(await response.text()).toContain('A verified email is missing');
  });

  it.each([
    { ref: 'requireEmailDomain', login: 'outsider', reason: 'email_domain_not_allowed' },
    { ref: 'email_verified', login: 'unverified', reason: 'unverified_email' },
  ] as const)('should deny an OpenID Connect person and write nothing ($ref)', async ({ login, reason }) => {
    const before = await snapshot();
    const { response } = await oidcSignIn(createBrowser(), login);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain(escapeHtml(SIGN_IN_DENIAL_MESSAGES[reason]));
    expect(await snapshot()).toStrictEqual(before);
  });

  it('should write nothing when a page of a code host fails (502)', async () => {
    const before = await snapshot();
    const { response } = await codeHostSignIn(createBrowser(), 'hosta', 'gina');
    expect(response.status).toBe(502);
    expect(await snapshot()).toStrictEqual(before);
  });

  it('should refuse an unsigned SAML response and write nothing', async () => {
    const before = await snapshot();
    const browser = createBrowser();
    const { relayState, requestId } = await samlStart(browser);
    const res = await browser.postForm(`${url}/.auth/saml/acs`, { SAMLResponse: samlResponse(requestId, 'mallory', false), RelayState: relayState });
    expect(res.status).toBe(400);
    expect(await snapshot()).toStrictEqual(before);
  });
});

describe('createGatehouseServer: every callback refuses a missing or reused state', () => {
  it.each(['hosta', 'hostb', 'hostcserver'])('should refuse %s callbacks without state or with a spent one', async (type) => {
    const browser = createBrowser();
    const as = { hosta: 'alice', hostb: 'hank', hostcserver: 'ned' }[type] ?? '';
    const login = await browser.get(`${url}/.auth/${type}/login`);
    const authorizeURL = new URL(login.headers.get('location') ?? '');
    authorizeURL.searchParams.set('as', as);
    const { url: callbackURL } = await browser.follow(authorizeURL.href, (u) => u.origin === url);
    const missing = new URL(callbackURL);
    missing.searchParams.delete('state');
    const before = await snapshot();
    expect((await browser.get(missing.href)).status).toBe(400);
    const state = new URL(callbackURL).searchParams.get('state') ?? '';
    const first = await browser.get(callbackURL);
    expect([303, 403]).toContain(first.status);
    const after = await snapshot();
    // the same callback again, even with the state cookie put back: the state was spent
    const replay = createBrowser();
    replay.jar.set(new URL(url).host, new Map([['gatehouse_auth_state', state]]));
    const reused = await replay.get(callbackURL);
    expect(reused.status).toBe(400);
    expect(sessionCookieLine(reused)).toBeNull();
    expect(await snapshot()).toStrictEqual(after);
    expect(before).toBeDefined();
  });

  it('should refuse OpenID Connect and SAML callbacks without state or with a spent one', async () => {
    const browser = createBrowser();
    const { callbackURL } = await oidcSignIn(browser, 'olga');
    const missing = new URL(callbackURL);
    missing.searchParams.delete('state');
    expect((await browser.get(missing.href)).status).toBe(400);
    const replay = createBrowser();
    replay.jar.set(new URL(url).host, new Map([['gatehouse_auth_state', new URL(callbackURL).searchParams.get('state') ?? '']]));
    expect((await replay.get(callbackURL)).status).toBe(400);

    const saml = createBrowser();
    const { relayState, requestId } = await samlStart(saml);
    const response = samlResponse(requestId, 'sami');
    expect((await saml.postForm(`${url}/.auth/saml/acs`, { SAMLResponse: response })).status).toBe(400);
    expect((await saml.postForm(`${url}/.auth/saml/acs`, { SAMLResponse: response, RelayState: relayState })).status).toBe(303);
    expect((await saml.postForm(`${url}/.auth/saml/acs`, { SAMLResponse: response, RelayState: relayState })).status).toBe(400);
  });
});

describe('createGatehouseServer: sign-in page behaviour and Secure cookies (§5.3 "Built-in")', () => {
  it('should redirect the sign-in page straight to the only OAuth provider, so sign-out leads to a new sign-in', async () => {
    const only = createGatehouseServer({
      siteConfiguration: `{ "externalURL": "https://gatehouse.example", "auth.providers": [
        { "type": "hostb", "url": "${hostb.url}", "clientID": "${HOSTB_CLIENT.clientId}", "clientSecret": "${HOSTB_CLIENT.clientSecret}" } ] }`,
      log: () => {},
    });
    const { url: onlyURL } = await only.listen(0);
    try {
      const page = await fetch(`${onlyURL}/.auth/sign-in?returnTo=/search`, { redirect: 'manual' });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/.auth/hostb/login?provider=0&returnTo=%2Fsearch');
      const out = await fetch(`${onlyURL}/.auth/sign-out`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(out.headers.get('location')).toBe('/.auth/sign-in');
      // https externalURL: the flow's cookie is Secure, and so is the session cookie it ends with
      const browser = createBrowser();
      const login = await browser.get(`${onlyURL}/.auth/hostb/login`);
      expect(login.headers.getSetCookie().find((l) => l.startsWith('gatehouse_auth_state='))).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      const authorizeURL = new URL(login.headers.get('location') ?? '');
      expect(authorizeURL.searchParams.get('redirect_uri')).toBe('https://gatehouse.example/.auth/hostb/callback');
      authorizeURL.searchParams.set('as', 'hank');
      const { url: external } = await browser.follow(authorizeURL.href, (u) => u.origin === 'https://gatehouse.example');
      const local = new URL(external);
      const callback = await browser.get(`${onlyURL}${local.pathname}${local.search}`);
      expect(callback.status).toBe(303);
      expect(sessionCookieLine(callback)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await only.close();
    }
  });

  it('should mark the flow cookie Secure when externalURL spells its scheme in upper case, as the session cookie is', async () => {
    const upper = createGatehouseServer({
      siteConfiguration: `{ "externalURL": "HTTPS://gatehouse.example", "auth.providers": [
        { "type": "hostb", "url": "${hostb.url}", "clientID": "${HOSTB_CLIENT.clientId}", "clientSecret": "${HOSTB_CLIENT.clientSecret}" } ] }`,
      log: () => {},
    });
    const { url: upperURL } = await upper.listen(0);
    try {
      const login = await createBrowser().get(`${upperURL}/.auth/hostb/login`);
      expect(login.headers.getSetCookie().find((l) => l.startsWith('gatehouse_auth_state='))).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await upper.close();
    }
  });

  it('should keep the sign-in page when built-in sign-in is configured too', async () => {
    const res = await fetch(`${url}/.auth/sign-in`, { redirect: 'manual' });
    expect(res.status).toBe(200);
  });

  it('should serve no provider route that is not configured', async () => {
    const bare = createGatehouseServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }', log: () => {} });
    const { url: bareURL } = await bare.listen(0);
    try {
      for (const path of ['/.auth/hosta/login', '/.auth/hosta/callback', '/.auth/callback', '/.auth/saml/acs', '/.auth/openidconnect/login']) {
        expect((await fetch(`${bareURL}${path}`, { redirect: 'manual' })).status).toBe(404);
      }
    } finally {
      await bare.close();
    }
  });
});

describe('createGatehouseServer: http-header proxy (§5.3 http-header, §5.1 rule 5)', () => {
  const proxyConfig = (allowSignup: boolean): string => `{ "auth.providers": [
    { "type": "http-header", "usernameHeader": "X-Forwarded-User", "emailHeader": "X-Forwarded-Email",
      "stripUsernameHeaderPrefix": "accounts.example.com:", "allowSignup": ${String(allowSignup)} } ],
    "trustedProxies": ["127.0.0.1"] }`;

  it('should take the identity from the proxy headers and still serve a request whose proxy set Authorization', async () => {
    const proxied = createGatehouseServer({ siteConfiguration: proxyConfig(true), log: () => {} });
    const { url: proxiedURL } = await proxied.listen(0);
    try {
      const ask = (headers: Record<string, string>): Promise<unknown> =>
        fetch(`${proxiedURL}/.api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-requested-with': 'test', ...headers },
          body: JSON.stringify({ query: '{ currentUser { username emails { email verified } } }' }),
        }).then((r) => r.json());
      const headers = { 'x-forwarded-user': 'accounts.example.com:quinn', 'x-forwarded-email': 'quinn@example.com' };
      expect(await ask(headers)).toStrictEqual({
        data: { currentUser: { username: 'quinn', emails: [{ email: 'quinn@example.com', verified: true }] } },
      });
      // the proxy also passed the browser's basic credentials: the header is ignored and audited, the request served
      expect(await ask({ ...headers, authorization: 'Basic cXVpbm46c2VjcmV0' })).toMatchObject({ data: { currentUser: { username: 'quinn' } } });
      const audit = await flatStoreOf(proxied.store).listAudit(3);
      expect(audit.some((e) => e.entity === 'auth.accessToken' && e.action === 'failed' && e.reason === 'invalid Authorization header')).toBe(true);
      expect(JSON.stringify(audit)).not.toContain('cXVpbm46c2VjcmV0');
      // one account, found again by its link
      expect((await flatStoreOf(proxied.store).listUsers()).map((u) => u.username)).toStrictEqual(['quinn']);
    } finally {
      await proxied.close();
    }
  });

  it('should ignore the proxy headers when no http-header provider is configured', async () => {
    const res = await fetch(`${url}/.api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'test', 'x-forwarded-user': 'alice', 'x-forwarded-email': 'alice@example.com' },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    });
    expect(await res.json()).toStrictEqual({ data: { currentUser: null } });
  });

  it('should show a proxied person the denial message when sign-up is not allowed, writing nothing', async () => {
    const closed = createGatehouseServer({ siteConfiguration: proxyConfig(false), log: () => {} });
    const { url: closedURL } = await closed.listen(0);
    try {
      const res = await fetch(`${closedURL}/.auth/sign-in`, { headers: { 'x-forwarded-user': 'rita', 'x-forwarded-email': 'rita@example.com' } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(escapeHtml(SIGN_IN_DENIAL_MESSAGES.signup_not_allowed));
      expect(await flatStoreOf(closed.store).listUsers()).toStrictEqual([]);
    } finally {
      await closed.close();
    }
  });

  it('should never sign a proxied person in to a service account (a namesake gets a new account, §5.5 rule 8)', async () => {
    const proxied = createGatehouseServer({
      siteConfiguration: `{ "auth.providers": [{ "type": "http-header", "usernameHeader": "X-Forwarded-User" }], "trustedProxies": ["127.0.0.1"] }`,
      log: () => {},
    });
    const { url: proxiedURL } = await proxied.listen(0);
    try {
      const robot = (
        await flatStoreOf(proxied.store).createUser({ username: 'robot', origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: await hashPassword('x'.repeat(12), seededRandomBytes('p')), createdAt: 0 })
      )._unsafeUnwrap();
      const res = await fetch(`${proxiedURL}/.api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'test', 'x-forwarded-user': 'robot' },
        body: JSON.stringify({ query: '{ currentUser { id username } }' }),
      });
      const body = (await res.json()) as { data: { currentUser: { id: string; username: string } } };
      expect(body.data.currentUser.id).not.toBe(robot.id);
      expect(body.data.currentUser.username).toMatch(/^robot-[a-z]{5}$/);
      expect(await flatStoreOf(proxied.store).listExternalAccounts(robot.id)).toStrictEqual([]);
    } finally {
      await proxied.close();
    }
  });
});

describe('createGatehouseServer: the proxy is authoritative when it names someone (§5.3 http-header rule 1)', () => {
  const config = `{ "auth.providers": [
    { "type": "builtin", "allowSignup": true },
    { "type": "http-header", "usernameHeader": "X-Forwarded-User", "emailHeader": "X-Forwarded-Email", "allowSignup": false } ],
    "trustedProxies": ["127.0.0.1"] }`;
  const REFUSED = { 'x-forwarded-user': 'rita', 'x-forwarded-email': 'rita@example.com' }; // no account, sign-up closed
  const UNUSABLE = { 'x-forwarded-user': 'rita', 'x-forwarded-email': 'a@example.com, b@example.com' };
  const UNUSABLE_MESSAGE = 'The authentication proxy sent identity headers that cannot be used. Ask your administrator to check the proxy.';
  let server: GatehouseServer;
  let base = '';
  let cookie = '';

  beforeAll(async () => {
    server = createGatehouseServer({ siteConfiguration: config, log: () => {} });
    base = (await server.listen(0)).url;
    // Someone signed in with a password in this browser: the cookie that must not be used for another person.
    const signedUp = await fetch(`${base}/.auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', email: 'carol@example.com', password: 'carol password 1' }),
    });
    cookie = (signedUp.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^gatehouse_session=/);
  });
  afterAll(() => server.close());

  const currentUser = async (headers: Record<string, string>): Promise<unknown> =>
    fetch(`${base}/.api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'test', cookie, ...headers },
      body: JSON.stringify({ query: '{ currentUser { username } }' }),
    }).then((r) => r.json());

  it.each([
    { ref: '§5.3 http-header rule 1 (no identity headers: the session cookie)', headers: {}, expected: { data: { currentUser: { username: 'carol' } } } },
    { ref: '§5.3 http-header rule 1 (a refused identity: anonymous, not the cookie)', headers: REFUSED, expected: { data: { currentUser: null } } },
    { ref: 'unusable identity headers: anonymous, not the cookie', headers: UNUSABLE, expected: { data: { currentUser: null } } },
  ])('should answer the API as the proxy says ($ref)', async ({ headers, expected }) => {
    expect(await currentUser(headers)).toStrictEqual(expected);
    expect((await flatStoreOf(server.store).listUsers()).map((u) => u.username)).toStrictEqual(['carol']);
  });

  it.each([
    { ref: 'refused identity', headers: REFUSED, message: SIGN_IN_DENIAL_MESSAGES.signup_not_allowed },
    { ref: 'unusable headers', headers: UNUSABLE, message: UNUSABLE_MESSAGE },
  ])('should show the denial on browser pages, never the cookie holder ($ref)', async ({ headers, message }) => {
    const consolePage = await fetch(`${base}/debug/console`, { headers: { cookie, ...headers } });
    expect(consolePage.status).toBe(403);
    const consoleText = await consolePage.text();
    expect(consoleText).toContain(escapeHtml(message));
    expect(consoleText).not.toContain('carol');
    const signInPage = await fetch(`${base}/.auth/sign-in`, { headers: { cookie, ...headers } });
    expect(signInPage.status).toBe(403);
    expect(await signInPage.text()).toContain(escapeHtml(message));
  });

  it('should not let the OAuth authorization endpoint issue a code for the cookie holder when the proxy names someone refused', async () => {
    const admin = (
      await flatStoreOf(server.store).createUser({ username: 'admin', origin: 'admin_created', siteAdmin: true, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 })
    )._unsafeUnwrap();
    const created = await server.createAccessToken(admin, admin.id, ['user:all'], 'test');
    const token = 'token' in created ? created.token : '';
    const registered = await fetch(`${base}/.api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `token ${token}` },
      body: JSON.stringify({
        query: 'mutation { registerOAuthApp(name: "t", redirectURIs: ["http://127.0.0.1:9/cb"], scopes: ["user:all"]) { clientID } }',
      }),
    }).then((r) => r.json() as Promise<{ data: { registerOAuthApp: { clientID: string } } }>);
    const authorize = new URL(`${base}/.auth/idp/oauth/authorize`);
    for (const [k, value] of Object.entries({
      response_type: 'code',
      client_id: registered.data.registerOAuthApp.clientID,
      redirect_uri: 'http://127.0.0.1:9/cb',
      scope: 'user:all',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    })) authorize.searchParams.set(k, value);
    // the cookie holder approves the app on the consent page and gets a code
    const { response: asCookieHolder } = await authorizeApproving(authorize, cookie);
    expect(new URL(asCookieHolder.headers.get('location') ?? '').searchParams.has('code')).toBe(true);
    const refused = await fetch(authorize, { redirect: 'manual', headers: { cookie, ...REFUSED } });
    const location = new URL(refused.headers.get('location') ?? '', base);
    expect(location.pathname).toBe('/.auth/sign-in');
    expect(location.searchParams.has('code')).toBe(false);
  });
});

describe('runSignIn over the server store: sign-in reads indexes, never a listing of accounts (performance)', () => {
  /** Decides, before each store call (`accounts.create`, `sessions.findByDigest`, …), whether it fails instead. */
  type Intercept = (call: string) => Promise<never> | null;

  /** One part of the store with each method called through `intercept` first. */
  function interceptGroup<T extends object>(group: T, name: string, intercept: Intercept): T {
    const wrapped = Object.fromEntries(
      Object.entries(group).map(([method, value]: [string, unknown]) => [
        method,
        typeof value === 'function' ? (...args: unknown[]): unknown => intercept(`${name}.${method}`) ?? Reflect.apply(value, group, args) : value,
      ]),
    );
    // a narrowing the test controls: every member of `group` is copied, methods wrapped with the same signature
    return wrapped as T;
  }

  /** `inner` with every call of every part going through `intercept`, inside transactions too. */
  function intercepted(inner: Store, intercept: Intercept): Store {
    return {
      accounts: interceptGroup(inner.accounts, 'accounts', intercept),
      accessTokens: interceptGroup(inner.accessTokens, 'accessTokens', intercept),
      sessions: interceptGroup(inner.sessions, 'sessions', intercept),
      oauth: interceptGroup(inner.oauth, 'oauth', intercept),
      audit: interceptGroup(inner.audit, 'audit', intercept),
      ephemeral: interceptGroup(inner.ephemeral, 'ephemeral', intercept),
      lockouts: interceptGroup(inner.lockouts, 'lockouts', intercept),
      links: interceptGroup(inner.links, 'links', intercept),
      outbox: interceptGroup(inner.outbox, 'outbox', intercept),
      transaction: (work) => intercept('transaction') ?? inner.transaction((tx) => work(intercepted(tx, intercept))),
      close: () => inner.close(),
    };
  }

  /** A store that counts every call of each method of each part (`accounts.findByUsernameKey`, …). */
  function countingStore(inner: Store = createMemoryStore()): { store: Store; calls: Map<string, number> } {
    const calls = new Map<string, number>();
    const store = intercepted(inner, (call) => {
      calls.set(call, (calls.get(call) ?? 0) + 1);
      return null;
    });
    return { store, calls };
  }

  const seedAccounts = async (store: Store, n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const email = { email: `seed${i}@example.com`, verified: true };
      const externalAccount = { serviceType: 'http-header', serviceId: '', accountId: `seed${i}`, createdAt: 0 };
      const created = await store.accounts.create({ usernames: [`seed${i}`], origin: 'provider_signup', siteAdmin: false, serviceAccount: false, emails: [email], passwordHash: null, createdAt: 0, externalAccount });
      created._unsafeUnwrap();
    }
  };

  it('should sign people in through a code host and a proxy without listing accounts, with as many store calls for 5 accounts as for 300', async () => {
    const perSize: Record<string, number>[] = [];
    for (const size of [5, 300]) {
      const { store, calls } = countingStore();
      await seedAccounts(store, size);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const server = createGatehouseServer({
        store,
        log: () => {},
        randomBytes: seededRandomBytes(`indexes-${size}`),
        siteConfiguration: `{ "externalURL": "${base}", "auth.providers": [
          { "type": "hosta", "url": "${hosta.url}", "clientID": "${HOSTA_CLIENT.clientId}", "clientSecret": "${HOSTA_CLIENT.clientSecret}",
            "allowSignup": true, "allowOrgs": ["acme"] },
          { "type": "http-header", "usernameHeader": "X-Forwarded-User", "emailHeader": "X-Forwarded-Email", "allowSignup": true } ],
        "trustedProxies": ["127.0.0.1"] }`,
      });
      await server.listen(port);
      try {
        calls.clear();
        const browser = createBrowser();
        // created, then found again by its link
        expect((await codeHostSignIn(browser, 'hosta', 'alice', base)).response.status).toBe(303);
        expect((await codeHostSignIn(browser, 'hosta', 'alice', base)).response.status).toBe(303);
        const proxied = async (user: string, email: string): Promise<unknown> =>
          fetch(`${base}/.api/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-requested-with': 'test', 'x-forwarded-user': user, 'x-forwarded-email': email },
            body: JSON.stringify({ query: '{ currentUser { username } }' }),
          }).then((r) => r.json());
        // new; again (by link); linked by a verified email of a seeded account; a taken username (suffixed)
        expect(await proxied('quinn', 'quinn@example.com')).toStrictEqual({ data: { currentUser: { username: 'quinn' } } });
        expect(await proxied('quinn', 'quinn@example.com')).toStrictEqual({ data: { currentUser: { username: 'quinn' } } });
        expect(await proxied('someone', 'SEED1@example.com')).toStrictEqual({ data: { currentUser: { username: 'seed1' } } });
        expect(await proxied('seed2', 'other@example.com')).toMatchObject({ data: { currentUser: { username: expect.stringMatching(/^seed2-[a-z]{5}$/) } } });
        expect(calls.get('accounts.list') ?? 0).toBe(0);
        expect(calls.get('accounts.findByExternalAccountKey') ?? 0).toBeGreaterThan(0);
        perSize.push(Object.fromEntries(calls));
      } finally {
        await server.close();
      }
    }
    // the same lookups whatever the number of accounts (O(1) in the accounts, not O(users × identities))
    expect(perSize[0]).toStrictEqual(perSize[1]);
  });

  const HOSTA_SIGNUP: AuthProvider = { type: 'hosta', url: 'https://hosta.example', clientID: 'c', clientSecret: 's', allowSignup: true };
  const PROVIDERS: readonly AuthProvider[] = [
    HOSTA_SIGNUP,
    { ...HOSTA_SIGNUP, allowSignup: false },
    { type: 'hostcserver', url: 'https://hostc.example', clientID: 'c', clientSecret: 's', allowSignup: true },
    { type: 'hostcserver', url: 'https://hostc.example', clientID: 'c', clientSecret: 's', allowSignup: false },
    { type: 'http-header', usernameHeader: 'X-User', emailHeader: 'X-Email', allowSignup: true },
    { type: 'openidconnect', issuer: 'https://op.example', clientID: 'c', clientSecret: 's', allowSignup: true },
  ];
  const SEEDS = ['r1', 'r2'] as const;
  // The names the core would try after `ann` with each seeded source, so that stored accounts can hold them.
  const suffixed = (seed: string): string[] => {
    const draw = seededRandomBytes(seed);
    return Array.from({ length: 5 }, () => withRandomSuffix('ann', draw(16)).unwrapOr('ann'));
  };
  const SUFFIXED_NAMES = SEEDS.flatMap(suffixed);
  const EMAILS = ['ann@example.com', 'ANN@EXAMPLE.COM', 'bob@example.com', 'Éve@example.com', 'éve@example.com'];
  const LINKS = [
    ['hosta', 'https://hosta.example', '1'],
    ['hosta', 'https://hosta.example', '2'],
    ['hostcserver', 'https://hostc.example', '1'],
    ['http-header', '', 'ann'],
    ['openidconnect', 'https://op.example', '1'],
    ['unknown-type', '', '1'],
  ] as const;

  interface SeedAccount {
    readonly username: string;
    readonly origin: Exclude<AccountOrigin, 'service_account'>;
    readonly emails: readonly { readonly email: string; readonly verified: boolean }[];
    readonly serviceAccount: boolean;
    readonly links: readonly (readonly [string, string, string])[];
  }
  const account: fc.Arbitrary<SeedAccount> = fc.record(
    {
      username: fc.oneof(fc.constantFrom('ann', 'ANN', 'bob', 'ned'), fc.constantFrom(...SUFFIXED_NAMES)),
      origin: fc.constantFrom('admin_created', 'password_signup', 'provider_signup'),
      emails: fc.array(fc.record({ email: fc.constantFrom(...EMAILS), verified: fc.boolean() }, { noNullPrototype: true }), { maxLength: 2 }),
      serviceAccount: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, fc.constant(true)),
      links: fc.subarray([...LINKS], { maxLength: 2 }),
    },
    { noNullPrototype: true },
  );
  const identity: fc.Arbitrary<ExternalIdentity> = fc.record(
    {
      accountId: fc.constantFrom('1', '2', '3', 'ann'),
      username: fc.oneof({ arbitrary: fc.constant('ann'), weight: 4 }, fc.constantFrom('Ann', 'bob', 'ned', 'new.person', null)),
      emails: fc.array(fc.record({ address: fc.constantFrom(...EMAILS, 'new@example.com'), verified: fc.boolean() }, { noNullPrototype: true }), {
        maxLength: 3,
      }),
      orgs: fc.constant([]),
    },
    { noNullPrototype: true },
  );

  async function storeWith(accounts: readonly SeedAccount[]): Promise<Store> {
    const store = createMemoryStore();
    for (const a of accounts) {
      const [first, ...rest] = a.links;
      const created = await store.accounts.create({
        usernames: [a.username],
        origin: a.serviceAccount ? 'service_account' : a.origin,
        siteAdmin: false,
        serviceAccount: a.serviceAccount,
        emails: a.emails,
        passwordHash: null,
        createdAt: 0,
        ...(first === undefined ? {} : { externalAccount: { serviceType: first[0], serviceId: first[1], accountId: first[2], createdAt: 0 } }),
      });
      if (created.isErr()) continue;
      for (const [serviceType, serviceId, accountId] of rest) {
        await store.accounts.link({ userId: created.value.id, serviceType, serviceId, accountId, createdAt: 0 });
      }
    }
    return store;
  }

  /** Every account, oldest first (the stores here hold a few dozen at most). */
  const everyAccount = (store: Store): Promise<readonly UserRecord[]> => store.accounts.list({ first: 1000 });

  async function contents(store: Store): Promise<unknown> {
    const users = await everyAccount(store);
    return Promise.all(users.map(async (u) => ({ user: u, links: await store.accounts.links(u.id) })));
  }

  /** The listing oracle's account store over the server store: every account with its links, and its writes. */
  function listingStoreOf(store: Store): ListingStore {
    const accountOf = async (user: UserRecord): Promise<Account> => ({
      id: user.id,
      username: user.username,
      origin: user.origin,
      emails: user.serviceAccount ? [] : user.emails.map((e) => ({ address: e.email, verified: e.verified })),
      externalAccounts: (await store.accounts.links(user.id)).flatMap((link): ExternalAccountRef[] => {
        const providerType = PROVIDER_TYPES.find((type) => type === link.serviceType);
        return providerType === undefined ? [] : [{ providerType, serviceId: link.serviceId, accountId: link.accountId }];
      }),
    });
    const conflict = (code: string): SignInStoreConflict =>
      code === 'username_taken' || code === 'email_taken' || code === 'external_account_taken' ? { code } : { code: 'unknown_user' };
    return {
      loadAccounts: async () => Promise.all((await everyAccount(store)).map(accountOf)),
      createAccount: async (input) => {
        const link = { serviceType: input.externalAccount.providerType, serviceId: input.externalAccount.serviceId, accountId: input.externalAccount.accountId, createdAt: 5 };
        const created = await store.accounts.create({
          usernames: [input.username], origin: 'provider_signup', siteAdmin: false, serviceAccount: false,
          emails: input.emails.map((e) => ({ email: e.address, verified: e.verified })), passwordHash: null, createdAt: 5, externalAccount: link,
        });
        return created.map((user) => user.id).mapErr((e) => conflict(e.code));
      },
      linkExternalAccount: async (userId, ref) =>
        (await store.accounts.link({ userId, serviceType: ref.providerType, serviceId: ref.serviceId, accountId: ref.accountId, createdAt: 5 }))
          .map(() => undefined)
          .mapErr((e) => conflict(e.code)),
    };
  }

  /** An outcome of `runSignIn` in the oracle's terms: no user record, conflicts by code. */
  const inListingTerms = (outcome: Result<SignInOutcome, SignInFlowError>): unknown =>
    outcome
      .map((o) => (o.kind === 'signed_in' ? { kind: o.kind, userId: o.userId, created: o.created, linked: o.linked } : o))
      .mapErr((e) => (e.code === 'store_conflict' ? { code: e.code, conflict: { code: e.conflict.code } } : e));

  /** The same sign-in through the full listing (`signInWithIdentity` over `loadAccounts`) and through `runSignIn`. */
  async function bothWays(
    accounts: readonly SeedAccount[],
    provider: AuthProvider,
    person: ExternalIdentity,
    signedInUserId: string | null,
    seed: string,
  ): Promise<{ listing: unknown; indexed: unknown }> {
    const run = async (indexed: boolean): Promise<unknown> => {
      const store = await storeWith(accounts);
      const randomBytes = seededRandomBytes(seed);
      // a missing account is no service account: linking to it conflicts, as in `runSignIn`
      const mayUse = async (id: string): Promise<boolean> => (await store.accounts.get(id))?.serviceAccount !== true;
      const outcome = indexed
        ? inListingTerms(await runSignIn({ store, now: () => 5, randomBytes }, { provider, identity: person, signedInUserId }))
        : await signInWithIdentity({ provider, identity: person, signedInUserId, store: listingStoreOf(store), randomBytes, mayUse });
      return { outcome, after: await contents(store) };
    };
    return { listing: await run(false), indexed: await run(true) };
  }

  it.each([
    { ref: '§5.5 rule 8 (base taken, first suffixes taken)', taken: ['ann', ...suffixed('r1').slice(0, 3)] },
    { ref: '§5.5 rule 8 (every candidate taken: username_unavailable)', taken: ['ann', ...suffixed('r1')] },
    { ref: '§5.4 rule 2 (a verified email links, ASCII case ignored)', taken: ['bob'] },
  ])('should decide and write exactly as the full listing does, suffix by suffix ($ref)', async ({ taken }) => {
    const accounts = taken.map((username): SeedAccount => ({
      username,
      origin: 'admin_created',
      emails: [{ email: username === 'bob' ? 'ANN@example.com' : `${username}@other.example`, verified: true }],
      serviceAccount: false,
      links: [],
    }));
    const person: ExternalIdentity = { accountId: '9', username: 'ann', emails: [{ address: 'ann@example.com', verified: true }], orgs: [] };
    const { listing, indexed } = await bothWays(accounts, HOSTA_SIGNUP, person, null, 'r1');
    expect(indexed).toStrictEqual(listing);
  });

  propertyTest.prop(
    [
      fc.array(account, { maxLength: 12 }),
      fc.constantFrom(...PROVIDERS),
      identity,
      fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, fc.constantFrom('1', '2', '99')),
      fc.constantFrom(...SEEDS),
    ],
    { numRuns: 300, seed: 66 },
  )('should give every sign-in the outcome and writes of the full listing', async (accounts, provider, person, signedInUserId, seed) => {
    const { listing, indexed } = await bothWays(accounts, provider, person, signedInUserId, seed);
    expect(indexed).toStrictEqual(listing);
  });

  it('should reject, writing nothing, when an indexed lookup fails', async () => {
    const inner = createMemoryStore();
    await seedAccounts(inner, 2);
    const broken = intercepted(inner, (call) => (call === 'accounts.findByVerifiedEmailKey' ? Promise.reject(new Error('down')) : null));
    const before = await contents(inner);
    const outcome = runSignIn(
      { store: broken, now: () => 0, randomBytes: seededRandomBytes('f') },
      { provider: HOSTA_SIGNUP, identity: { accountId: '1', username: 'x', emails: [{ address: 'x@example.com', verified: true }], orgs: [] }, signedInUserId: null },
    );
    await expect(outcome).rejects.toThrow('down');
    expect(await contents(inner)).toStrictEqual(before);
  });
});
