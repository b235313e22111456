/**
 * End-to-end sign-in through the code hosts on loopback: the app's provider routes against fake hosts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../../../src/core/account-directory.js';
import { SIGN_IN_DENIAL_MESSAGES } from '../../../../src/core/sign-in/resolve.js';
import { startTestApp, type TestApp } from '../fakes/app.js';
import { createBrowser, type Browser } from '../fakes/http.js';
import { HOSTA_CLIENT, startFakeHosta, type FakeHosta } from '../fakes/hosta.js';
import { HOSTB_CLIENT, HOSTB_SSO_TOKEN, startFakeHostb, type FakeHostb } from '../fakes/hostb.js';
import { HOSTC_CLIENT, startFakeHostccloud, startFakeHostcserver, type FakeHostc } from '../fakes/hostc.js';

const v = (email: string, primary = true) => ({ email, verified: true, primary });

let hosta: FakeHosta;
let hostb: FakeHostb;
let hostccloud: FakeHostc;
let hostcserver: FakeHostc;
let app: TestApp;
let ssoApp: TestApp;

const existing: readonly Account[] = [
  { id: 'octavia', username: 'octavia', origin: 'admin_created', emails: [{ address: 'octo@example.com', verified: true }], externalAccounts: [] },
  { id: 'mona', username: 'mona', origin: 'admin_created', emails: [{ address: 'mona@elsewhere.example', verified: true }], externalAccounts: [] },
];

beforeAll(async () => {
  hosta = await startFakeHosta([
    // A member of an allowed org (found on the second page of orgs).
    { id: 1, login: 'alice', emails: [v('alice@example.com')], orgs: ['foo', 'bar', 'ACME'] },
    // A member of only a child team of the listed team.
    { id: 2, login: 'bob', emails: [v('bob@example.com')], teams: [{ org: 'globex', name: 'Core Team Infra', slug: 'core-team-infra' }] },
    // A direct member of the listed team, on the second page of teams.
    {
      id: 3,
      login: 'carol',
      emails: [v('carol@example.com')],
      teams: [
        { org: 'initech', name: 'A', slug: 'a' },
        { org: 'initech', name: 'B', slug: 'b' },
        { org: 'Globex', name: 'Core Team', slug: 'core-team' },
      ],
    },
    // The listed team's name with another case.
    { id: 4, login: 'dave', emails: [v('dave@example.com')], teams: [{ org: 'globex', name: 'core team', slug: 'core-team' }] },
    // No verified email, though an allowed org member.
    { id: 5, login: 'erin', emails: [{ email: 'erin@example.com', verified: false, primary: true }], orgs: ['acme'] },
    // Teams' second page fails; not in any listed org.
    {
      id: 6,
      login: 'frank',
      emails: [v('frank@example.com')],
      teams: [
        { org: 'x', name: 'X', slug: 'x' },
        { org: 'y', name: 'Y', slug: 'y' },
        { org: 'globex', name: 'Core Team', slug: 'core-team' },
      ],
      failPages: ['/api/user/teams:2'],
    },
    // Emails' second page fails.
    {
      id: 7,
      login: 'gina',
      emails: [v('gina@a.example'), v('gina@b.example', false), v('gina@c.example', false)],
      orgs: ['acme'],
      failPages: ['/api/user/emails:2'],
    },
    // Two external accounts that normalise to the username `john-doe`.
    { id: 8, login: 'john+doe', emails: [v('jd1@example.com')], orgs: ['acme'] },
    { id: 9, login: 'John--Doe', emails: [v('jd2@example.com')], orgs: ['acme'] },
    // A verified email equal to an existing account's verified email, not primary.
    { id: 10, login: 'octo', emails: [v('octo-other@example.com'), v('octo@example.com', false)], orgs: ['acme'] },
  ]);
  hostb = await startFakeHostb([
    {
      id: 21,
      username: 'hank',
      email: 'hank@example.com',
      groups: [
        { id: 101, fullPath: 'other', accessLevel: 50 },
        { id: 102, fullPath: 'acme/platform/child', accessLevel: 30 },
        { id: 103, fullPath: 'acme/platform', accessLevel: 10 },
      ],
    },
    { id: 22, username: 'ivy', email: 'ivy@example.com', groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 5 }] },
    {
      id: 23,
      username: 'jack',
      email: 'jack@example.com',
      groups: [
        { id: 101, fullPath: 'other', accessLevel: 50 },
        { id: 104, fullPath: 'x', accessLevel: 30 },
        { id: 103, fullPath: 'acme/platform', accessLevel: 30 },
      ],
      failPages: ['/api/v4/groups:2'],
    },
    { id: 24, username: 'kim', email: null, groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 40 }] },
    { id: 25, username: 'lou', email: 'lou@example.com', groups: [{ id: 105, fullPath: 'acme', accessLevel: 50 }] },
    { id: 26, username: 'max', email: 'max@example.com', groups: [{ id: 103, fullPath: 'acme/platform', accessLevel: 20 }], failPages: ['members:103'] },
  ]);
  hostccloud = await startFakeHostccloud([
    {
      id: 31,
      username: 'lee',
      emails: [
        { email: 'lee-unconfirmed@example.com', confirmed: false, primary: false },
        { email: 'lee@example.com', confirmed: true, primary: true },
      ],
    },
  ]);
  hostcserver = await startFakeHostcserver([
    { id: 41, username: 'mona', emails: [{ email: 'mona@corp.example', confirmed: true, primary: true }] },
    { id: 42, username: 'ned', emails: [{ email: 'ned@corp.example', confirmed: true, primary: true }] },
  ]);
  app = await startTestApp({
    accounts: existing,
    publicURLs: { hostccloud: hostccloud.url },
    providers: () => [
      {
        type: 'hosta',
        url: hosta.url,
        ...{ clientID: HOSTA_CLIENT.clientId, clientSecret: HOSTA_CLIENT.clientSecret },
        allowSignup: true,
        allowOrgs: ['acme'],
        allowOrgsMap: { globex: ['Core Team'] },
      },
      {
        type: 'hostb',
        url: hostb.url,
        clientID: HOSTB_CLIENT.clientId,
        clientSecret: HOSTB_CLIENT.clientSecret,
        allowSignup: true,
        apiScope: 'api',
        allowGroups: ['acme/platform'],
      },
      // The public cloud edition: no `url`, the app knows the public URL.
      { type: 'hostccloud', clientKey: HOSTC_CLIENT.clientId, clientSecret: HOSTC_CLIENT.clientSecret, allowSignup: true },
      {
        type: 'hostcserver',
        url: `${hostcserver.url}/`,
        clientID: HOSTC_CLIENT.clientId,
        clientSecret: HOSTC_CLIENT.clientSecret,
        allowSignup: false,
      },
    ],
  });
  ssoApp = await startTestApp({
    providers: () => [
      {
        type: 'hostb',
        url: hostb.url,
        clientID: HOSTB_CLIENT.clientId,
        clientSecret: HOSTB_CLIENT.clientSecret,
        allowSignup: true,
        apiScope: 'read_api',
        ssoURL: `${hostb.url}/groups/acme/-/saml/sso?token=${HOSTB_SSO_TOKEN}`,
      },
    ],
  });
});

afterAll(async () => {
  await Promise.all([app, ssoApp, hosta, hostb, hostccloud, hostcserver].map((s) => s?.close()));
});

/** Starts at the app's login route, signs in at the host as `as`, and returns the app's callback answer. */
async function signIn(
  browser: Browser,
  type: string,
  as: string,
  target: TestApp = app,
): Promise<{ readonly response: Response; readonly callbackURL: string; readonly authorizeURL: URL }> {
  const login = await browser.get(`${target.url}/.auth/${type}/login?returnTo=/after`);
  expect(login.status).toBe(303);
  const authorizeURL = new URL(login.headers.get('location') ?? '');
  authorizeURL.searchParams.set('as', as);
  // Through the host (and its SSO page) until it sends the browser back to the app's callback.
  const { url: callbackURL } = await browser.follow(authorizeURL.href, (u) => u.origin === target.url);
  const response = await browser.get(callbackURL);
  return { response, callbackURL, authorizeURL };
}

function accountWithLink(target: TestApp, providerType: string, accountId: string): Account | undefined {
  return target.store
    .accounts()
    .find((a) => a.externalAccounts.some((e) => e.providerType === providerType && e.accountId === accountId));
}

describe('signInRoutes: code host login', () => {
  it.each([
    { ref: '§5.3 hosta rule 1,', type: 'hosta', path: '/login/oauth/authorize', scope: 'user:email read:org', pkce: true },
    { ref: '§5.3 hostb rules 1–2', type: 'hostb', path: '/oauth/authorize', scope: 'read_user api', pkce: true },
    { ref: '§5.3 hostccloud', type: 'hostccloud', path: '/site/oauth2/authorize', scope: null, pkce: false },
    { ref: '§5.3 hostcserver', type: 'hostcserver', path: '/rest/oauth2/latest/authorize', scope: null, pkce: true },
  ])('should redirect to the host with state, scopes and PKCE ($ref)', async ({ type, path, scope, pkce }) => {
    const browser = createBrowser();
    const res = await browser.get(`${app.url}/.auth/${type}/login`);
    const location = new URL(res.headers.get('location') ?? '');
    expect(res.status).toBe(303);
    expect(location.pathname).toBe(path);
    expect(location.searchParams.get('redirect_uri')).toBe(`${app.url}/.auth/${type}/callback`);
    expect(location.searchParams.get('scope')).toBe(scope);
    expect(location.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('code_challenge_method')).toBe(pkce ? 'S256' : null);
    expect(res.headers.get('set-cookie')).toMatch(/^gatehouse_auth_state=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });

  it('should go through the SSO URL first when hostb has ssoURL (§5.3 hostb rule 6)', async () => {
    const browser = createBrowser();
    const login = await browser.get(`${ssoApp.url}/.auth/hostb/login`);
    const location = new URL(login.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${hostb.url}/groups/acme/-/saml/sso`);
    expect(location.searchParams.get('token')).toBe(HOSTB_SSO_TOKEN);
    const redirect = new URL(location.searchParams.get('redirect') ?? '', hostb.url);
    expect(redirect.pathname).toBe('/oauth/authorize');
    expect(redirect.searchParams.get('scope')).toBe('read_user read_api');

    location.searchParams.set('redirect', `${redirect.pathname}${redirect.search}&as=lou`);
    const { url: callbackURL } = await browser.follow(location.href, (u) => u.origin === ssoApp.url);
    const done = await browser.get(callbackURL);
    expect(hostb.ssoVisits).toHaveLength(1);
    expect(done.status).toBe(303);
    expect(ssoApp.store.accounts().map((a) => a.username)).toStrictEqual(['lou']);
  });

  it('should answer 404 (not handled) for a provider type that is not configured', async () => {
    expect((await fetch(`${ssoApp.url}/.auth/hosta/login`, { redirect: 'manual' })).status).toBe(404);
    expect(ssoApp.routes.map((route) => route.path)).toStrictEqual(['/.auth/hostb/login', '/.auth/hostb/callback']);
  });
});

describe('signInRoutes: code host callbacks and gating', () => {
  it.each([
    { ref: '§5.3 hosta rule 4 (org on page 2)', type: 'hosta', as: 'alice', status: 303, username: 'alice' },
    { ref: '§5.3 hosta rule 5 (child team does not inherit)', type: 'hosta', as: 'bob', status: 403, reason: 'not_in_allowed_orgs_or_teams' },
    { ref: '§5.3 hosta rules 5–6 (team on page 2)', type: 'hosta', as: 'carol', status: 303, username: 'carol' },
    { ref: '§5.3 hosta rule 5 (display name case)', type: 'hosta', as: 'dave', status: 403, reason: 'not_in_allowed_orgs_or_teams' },
    { ref: '§5.4 rule 3', type: 'hosta', as: 'erin', status: 403, reason: 'verified_email_missing' },
    { ref: 'failed page → membership_unknown', type: 'hosta', as: 'frank', status: 403, reason: 'membership_unknown' },
    { ref: '§5.3 hostb rules 4–5 (Guest, page 2)', type: 'hostb', as: 'hank', status: 303, username: 'hank' },
    { ref: '§5.3 hostb rule 5 (Minimal Access)', type: 'hostb', as: 'ivy', status: 403, reason: 'minimal_access' },
    { ref: 'hostb failed page', type: 'hostb', as: 'jack', status: 403, reason: 'membership_unknown' },
    { ref: 'hostb failed access level', type: 'hostb', as: 'max', status: 403, reason: 'membership_unknown' },
    { ref: '§5.3 hostb rule 4 (parent group not listed)', type: 'hostb', as: 'lou', status: 403, reason: 'not_in_allowed_groups' },
    { ref: '§5.4 rule 3 (hostb, no email)', type: 'hostb', as: 'kim', status: 403, reason: 'verified_email_missing' },
    { ref: '§5.3 hostcserver allowSignup false', type: 'hostcserver', as: 'ned', status: 403, reason: 'signup_not_allowed' },
  ] as const)('should sign in or deny as the core decides ($ref)', async (row) => {
    const before = app.store.accounts();
    const { response } = await signIn(createBrowser(), row.type, row.as);
    const body = await response.text();
    expect(response.status).toBe(row.status);
    if ('reason' in row) {
      expect(body).toContain(SIGN_IN_DENIAL_MESSAGES[row.reason].replace(/'/g, '&#39;'));
      expect(app.store.accounts()).toStrictEqual(before);
    } else {
      expect(response.headers.get('location')).toBe('/after');
      expect(response.headers.get('set-cookie')).toMatch(/^test_session=u\d+;/);
      expect(app.store.accounts().find((a) => a.username === row.username)?.externalAccounts).toHaveLength(1);
    }
  });

  it('should show the "verified email is missing" message (§5.4 rule 3, §7 rule 2)', async () => {
    const { response } = await signIn(createBrowser(), 'hosta', 'erin');
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('A verified email is missing');
  });

  it('should answer 502 and write nothing when a page of emails fails', async () => {
    const before = app.store.accounts();
    const { response } = await signIn(createBrowser(), 'hosta', 'gina');
    expect(response.status).toBe(502);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should give the second account that normalises to a taken name a random suffix (§5.5 rule 8)', async () => {
    const first = await signIn(createBrowser(), 'hosta', 'john+doe');
    const second = await signIn(createBrowser(), 'hosta', 'John--Doe');
    expect([first.response.status, second.response.status]).toStrictEqual([303, 303]);
    expect(accountWithLink(app, 'hosta', '8')?.username).toBe('john-doe');
    expect(accountWithLink(app, 'hosta', '9')?.username).toMatch(/^John-Doe-[a-z0-9]{5}$/i);
  });

  it('should link by a verified email on both sides, then sign in by the link (§5.4 rules 1–2)', async () => {
    const first = await signIn(createBrowser(), 'hosta', 'octo');
    expect(first.response.status).toBe(303);
    expect(first.response.headers.get('set-cookie')).toMatch(/^test_session=octavia;/);
    expect(app.store.accounts().find((a) => a.id === 'octavia')?.externalAccounts).toStrictEqual([
      { providerType: 'hosta', serviceId: hosta.url, accountId: '10' },
    ]);
    const again = await signIn(createBrowser(), 'hosta', 'octo');
    expect(again.response.headers.get('set-cookie')).toMatch(/^test_session=octavia;/);
    expect(app.store.accounts().filter((a) => a.externalAccounts.some((e) => e.accountId === '10'))).toHaveLength(1);
    expect(app.store.accounts().some((a) => a.username === 'octo')).toBe(false);
  });

  it('should match hostcserver accounts by username (§5.4 rule 5)', async () => {
    const { response } = await signIn(createBrowser(), 'hostcserver', 'mona');
    expect(response.status).toBe(303);
    expect(response.headers.get('set-cookie')).toMatch(/^test_session=mona;/);
    expect(accountWithLink(app, 'hostcserver', '41')?.id).toBe('mona');
  });

  it('should create a hostccloud account with the confirmed emails marked verified, every page read', async () => {
    const { response } = await signIn(createBrowser(), 'hostccloud', 'lee');
    expect(response.status).toBe(303);
    expect(accountWithLink(app, 'hostccloud', '{31-uuid}')?.emails).toStrictEqual([
      { address: 'lee@example.com', verified: true },
      { address: 'lee-unconfirmed@example.com', verified: false },
    ]);
  });

  it('should link identities of several providers to one account when signed in (§5.4 rule 4)', async () => {
    const browser = createBrowser();
    const first = await signIn(browser, 'hostb', 'hank');
    expect(first.response.status).toBe(303);
    const userId = /^test_session=([^;]+)/.exec(first.response.headers.get('set-cookie') ?? '')?.[1];
    // The browser now carries the session: `ned` (no account, sign-up off) is added to it.
    const second = await signIn(browser, 'hostcserver', 'ned');
    expect(second.response.status).toBe(303);
    expect(app.store.accounts().find((a) => a.id === userId)?.externalAccounts.map((e) => e.providerType)).toStrictEqual([
      'hostb',
      'hostcserver',
    ]);
    // An identity linked to someone else is refused while signed in, and nothing changes.
    const before = app.store.accounts();
    const third = await signIn(browser, 'hosta', 'carol');
    expect(third.response.status).toBe(403);
    expect(await third.response.text()).toContain('already linked to a different user');
    expect(app.store.accounts()).toStrictEqual(before);
  });
});

describe('signInRoutes: state', () => {
  it('should refuse a callback without state', async () => {
    const before = app.store.accounts();
    const res = await createBrowser().get(`${app.url}/.auth/hosta/callback?code=code-1`);
    expect(res.status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should refuse a reused state', async () => {
    const browser = createBrowser();
    const { response, callbackURL } = await signIn(browser, 'hosta', 'alice');
    expect(response.status).toBe(303);
    const replay = await browser.get(callbackURL);
    expect(replay.status).toBe(400);
  });

  it('should refuse a state issued to another browser (login CSRF)', async () => {
    const victim = createBrowser();
    const attacker = createBrowser();
    const login = await attacker.get(`${app.url}/.auth/hosta/login`);
    const authorize = new URL(login.headers.get('location') ?? '');
    authorize.searchParams.set('as', 'alice');
    const { url: callbackURL } = await attacker.follow(authorize.href, (u) => u.origin === app.url);
    expect((await victim.get(callbackURL)).status).toBe(400);
    // The state was not spent: its own browser still completes.
    expect((await attacker.get(callbackURL)).status).toBe(303);
  });

  it('should refuse a callback whose code the host does not know', async () => {
    const browser = createBrowser();
    const login = await browser.get(`${app.url}/.auth/hostb/login`);
    const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const res = await browser.get(`${app.url}/.auth/hostb/callback?code=forged&state=${state}`);
    expect(res.status).toBe(400);
  });

  it('should refuse a state issued for another provider type', async () => {
    const browser = createBrowser();
    const login = await browser.get(`${app.url}/.auth/hostb/login`);
    const authorize = new URL(login.headers.get('location') ?? '');
    const state = authorize.searchParams.get('state') ?? '';
    const res = await browser.get(`${app.url}/.auth/hosta/callback?code=x&state=${state}`);
    expect(res.status).toBe(400);
  });

  it('should refuse when the person cancelled at the host', async () => {
    const browser = createBrowser();
    const login = await browser.get(`${app.url}/.auth/hosta/login`);
    const authorize = new URL(login.headers.get('location') ?? '');
    authorize.searchParams.set('as', 'alice');
    authorize.searchParams.set('deny', '1');
    const { url } = await browser.follow(authorize.href, (u) => u.origin === app.url);
    expect(new URL(url).searchParams.get('error')).toBe('access_denied');
    expect((await browser.get(url)).status).toBe(400);
  });

  it('should keep returnTo on this site', async () => {
    for (const [returnTo, expected] of [
      ['/search?q=1', '/search?q=1'],
      ['https://evil.example/', '/'],
      ['//evil.example/', '/'],
      ['/\\evil.example', '/'],
      // Node refuses a character outside Latin-1 in Location: the sign-in would end in a 500
      ['/\u20ac', '/'],
    ] as const) {
      const browser = createBrowser();
      const login = await browser.get(`${app.url}/.auth/hosta/login?returnTo=${encodeURIComponent(returnTo)}`);
      const authorize = new URL(login.headers.get('location') ?? '');
      authorize.searchParams.set('as', 'alice');
      const { url } = await browser.follow(authorize.href, (u) => u.origin === app.url);
      const res = await browser.get(url);
      expect(res.headers.get('location')).toBe(expected);
    }
  });

  it('should refuse a POST to a login route', async () => {
    const res = await fetch(`${app.url}/.auth/hosta/login`, { method: 'POST' });
    expect(res.status).toBe(400);
  });
});
