/**
 * The OAuth consent page (spec §2.4; RFC 6749 §4.1.1): `GET /.auth/idp/oauth/authorize` shows it the first time an
 * account authorizes an app for a scope, and its form (`POST` to the same path) approves or denies. Tested as
 * functions through the page kit: the kit's store, sessions and form tokens, the authorization server built on them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ConsentPage, displayOrigin, formActionSource, scopeDescription } from '../../src/oauth-server/consent.js';
import { createOAuthIdp, OAUTH_FORM_BODY, OAUTH_PATHS } from '../../src/oauth-server/server.js';
import type { OAuthIdp } from '../../src/oauth-server/server.js';
import { CSRF_COOKIE, CSRF_FIELD } from '../../src/pages/csrf.js';
import { PAGE_FORM_BODY } from '../../src/pages/page-routes.js';
import type { Route, RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import type { UserRecord } from '../../src/store/types.js';
import { consentForm } from '../helpers/oauth-consent-client.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';
import type { KitBrowser, PageKit } from '../helpers/page-kit.js';

const REDIRECT = 'https://app.example/cb';
const VERIFIER = 'consent-verifier-'.padEnd(43, 'v');
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const AUTHORIZE = OAUTH_PATHS.authorize;

interface Setup {
  readonly kit: PageKit;
  readonly idp: OAuthIdp;
  readonly routes: readonly Route[];
  readonly alice: UserRecord;
  readonly browser: KitBrowser;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The authorization request's parameters. */
  readonly params: Readonly<Record<string, string>>;
}

/** The authorization server on the kit's store and sessions, an app, and alice signed in. */
async function setup(appName = 'Review bot'): Promise<Setup> {
  const kit = await pageKit();
  const idp = createOAuthIdp({
    store: kit.store.oauth,
    now: kit.clock.now,
    randomBytes: kit.deps.randomBytes,
    authenticateBrowser: async (request) => {
      const user = await kit.deps.currentUser(request);
      return user === null ? null : { userId: user.id, username: user.username, siteAdmin: user.siteAdmin };
    },
    signInPath: '/.auth/sign-in',
    transactionStore: kit.store,
    audit: (entry, into) => kit.deps.audit({ details: {}, ...entry }, into ?? kit.store),
    pages: { randomBytes: kit.deps.randomBytes, secureCookies: false, origin: kit.deps.origin },
  });
  const routes: readonly Route[] = [
    { methods: ['GET'], path: AUTHORIZE, handler: idp.handlers.authorize },
    { methods: ['POST'], path: AUTHORIZE, body: PAGE_FORM_BODY, handler: idp.handlers.consent },
    { methods: ['POST'], path: OAUTH_PATHS.token, body: OAUTH_FORM_BODY, handler: idp.handlers.token },
  ];
  const admin = await kit.createUser('root', { siteAdmin: true });
  const app = (await idp.registerApp({ name: appName, redirectUris: [REDIRECT, 'https://app.example/other'], scopes: ['user:all'], ownerUserId: admin.id }))._unsafeUnwrap();
  const alice = await kit.createUser('alice');
  const browser = await kit.browser(alice);
  const params = {
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: 'user:all',
    state: 'st-1',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  };
  return { kit, idp, routes, alice, browser, clientId: app.clientId, clientSecret: app.clientSecret, params };
}

function authorizeURL(params: Readonly<Record<string, string>>): string {
  return `${AUTHORIZE}?${new URLSearchParams(params).toString()}`;
}

/** The consent form's hidden fields (the authorization request and `_csrf`) of a page. */
function hiddenFields(page: RouteResponse): Record<string, string> {
  const form = consentForm(textOf(page));
  expect(form).not.toBeNull();
  return Object.fromEntries(form?.fields ?? []);
}

/** The form post of the page's hidden fields with `decision` (the kit adds the browser's `_csrf` unless given). */
function decide(s: Setup, page: RouteResponse, decision: string, override: Readonly<Record<string, string>> = {}, headers: Readonly<Record<string, string>> = {}): RouteRequest {
  return s.browser.post(AUTHORIZE, { ...hiddenFields(page), decision, ...override }, headers);
}

/** The query parameters of a redirect's Location. */
function locationParams(answer: RouteResponse): Record<string, string> {
  return Object.fromEntries(new URL(answer.headers['location'] ?? 'https://invalid/').searchParams);
}

/** How many authorization codes the store holds (purging with an infinite horizon counts them). */
async function codesStored(s: Setup): Promise<number> {
  return s.kit.store.oauth.purgeAuthorizationCodes(Number.POSITIVE_INFINITY, 1000);
}

/** Redeems a code at the token endpoint with PKCE and the client's secret (RFC 6749 §4.1.3). */
async function redeem(s: Setup, code: string): Promise<RouteResponse> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    client_id: s.clientId,
    client_secret: s.clientSecret,
  }).toString();
  const url = new URL(OAUTH_PATHS.token, 'http://gatehouse.test');
  const headers = { host: 'gatehouse.test', 'content-type': 'application/x-www-form-urlencoded' };
  return callRoute(s.routes, {
    method: 'POST',
    url,
    headers,
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'consent-test',
    body,
  });
}

describe('the consent page (GET /.auth/idp/oauth/authorize)', () => {
  it('names the app, the account, the scope in plain words and where the browser goes, with Approve and Deny', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    expect(page.status).toBe(200);
    const text = visibleText(page);
    expect(textOf(page)).toContain('<title>Authorize Review bot · gatehouse</title>');
    expect(text).toContain('Authorize Review bot');
    expect(text).toContain('Review bot wants to use your account');
    expect(text).toContain('You are signed in as alice');
    expect(text).toContain('user:all');
    expect(text).toContain('Full access to the API as you: read and change everything your account can');
    expect(text).toContain('You will be sent to https://app.example.');
    expect(text).toContain('Account security');
    const html = textOf(page);
    expect(html).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
    expect(html).toContain('<button type="submit" name="decision" value="deny" class="secondary">Deny</button>');
    expect(html).toMatch(/<form method="post" action="\/\.auth\/idp\/oauth\/authorize" aria-label="Authorize Review bot">/);
    // every parameter of the request travels back as a hidden field, with the form token
    expect(hiddenFields(page)).toStrictEqual({ [CSRF_FIELD]: s.browser.csrf, ...s.params });
    expect(page.headers['cache-control']).toBe('no-store');
    // the pages' policy, and the redirect that follows the form allowed (browsers apply form-action to it)
    const csp = page.headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp.split('; ').find((d) => d.startsWith('form-action'))).toBe(`form-action 'self' ${REDIRECT}`);
    expect(csp).not.toContain('https://app.example/other');
    // nothing issued, nothing remembered, nothing audited yet
    expect(await codesStored(s)).toBe(0);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
    expect((await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent')).toStrictEqual([]);
  });

  it('carries only what was sent: without redirect_uri and state the form has neither, and the single registered URI is allowed', async () => {
    const s = await setup();
    const { redirect_uri: _r, state: _s, ...rest } = s.params;
    // an app with one redirect URI may be asked without it (RFC 6749 §3.1.2.3)
    const single = (await s.idp.registerApp({ name: 'One', redirectUris: ['https://one.example/back?x=1'], scopes: ['user:all'], ownerUserId: s.alice.id }))._unsafeUnwrap();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL({ ...rest, client_id: single.clientId })));
    expect(page.status).toBe(200);
    expect(Object.keys(hiddenFields(page)).sort()).toStrictEqual([CSRF_FIELD, 'client_id', 'code_challenge', 'code_challenge_method', 'response_type', 'scope']);
    // a source expression has no query; the path allows the redirect whatever query follows
    expect(page.headers['content-security-policy']).toContain("form-action 'self' https://one.example/back;");
    expect(visibleText(page)).toContain('You will be sent to https://one.example.');
    const approved = await callRoute(s.routes, decide(s, page, 'approve'));
    expect(approved.status).toBe(303);
    expect(approved.headers['location']).toMatch(/^https:\/\/one\.example\/back\?x=1&code=gac_/);
    expect(locationParams(approved)['state']).toBeUndefined();
  });

  it('renders a hostile app name as text', async () => {
    const hostile = `<script>alert(1)</script>"'><img src=x onerror=alert(2)> & co`;
    const s = await setup(hostile);
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain(`${hostile} wants to use your account`);
    const html = textOf(page);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('sends a signed-out browser to sign in and back, showing nothing of the app', async () => {
    const s = await setup();
    const out = await s.kit.browser(null);
    const answer = await callRoute(s.routes, out.get(authorizeURL(s.params)));
    expect(answer.status).toBe(302);
    const target = new URL(answer.headers['location'] ?? '', 'http://gatehouse.test');
    expect(target.pathname).toBe('/.auth/sign-in');
    expect(target.searchParams.get('returnTo')).toBe(authorizeURL(s.params));
  });

  it('answers an invalid request as before the page: an unregistered redirect URI is an error page, never a redirect', async () => {
    const s = await setup();
    const answer = await callRoute(s.routes, s.browser.get(authorizeURL({ ...s.params, redirect_uri: 'https://evil.example/cb' })));
    expect(answer.status).toBe(400);
    expect(answer.headers['location']).toBeUndefined();
    expect(visibleText(answer)).toContain('Authorization failed');
  });

  it('renders the page component alone with every scope described', () => {
    const html = renderToStaticMarkup(
      <ConsentPage action={AUTHORIZE} csrf="tok" appName="A" username="u" scopes={['user:all', 'other']} redirectOrigin="https://x.example" fields={[['state', 'a"b']]} />,
    );
    expect(html).toContain(scopeDescription('user:all'));
    expect(html).toContain('Access this scope allows');
    expect(html).toContain('<input type="hidden" name="state" value="a&quot;b"/>');
    expect(displayOrigin('https://app.example:8443/cb?x=1')).toBe('https://app.example:8443');
    expect(displayOrigin('not a url')).toBe('not a url');
    expect(formActionSource('http://127.0.0.1:9/cb')).toBe('http://127.0.0.1:9/cb');
    expect(formActionSource('https://a.example/cb?x=1#f')).toBe('https://a.example/cb');
  });
});

describe('the consent form (POST /.auth/idp/oauth/authorize)', () => {
  it('approve: remembers the approval, audits it, and redirects with a code the token endpoint redeems (PKCE)', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const approved = await callRoute(s.routes, decide(s, page, 'approve'));
    expect(approved.status).toBe(303);
    expect(approved.headers['location']?.startsWith(`${REDIRECT}?code=gac_`)).toBe(true);
    expect(approved.headers['referrer-policy']).toBe('no-referrer');
    const back = locationParams(approved);
    expect(back['state']).toBe('st-1');
    const consent = await s.kit.store.oauth.findConsent(s.alice.id, s.clientId);
    expect(consent).toStrictEqual({ userId: s.alice.id, clientId: s.clientId, scopes: ['user:all'], grantedAt: s.kit.clock.now() });
    const audited = (await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent');
    expect(audited.map((e) => [e.action, e.actorUserId, e.subjectUserId, e.details])).toStrictEqual([
      ['granted', s.alice.id, s.alice.id, { clientId: s.clientId, scopes: 'user:all' }],
    ]);
    // the code works at the token endpoint, once
    const tokens = await redeem(s, back['code'] ?? '');
    expect(tokens.status).toBe(200);
    const body = JSON.parse(textOf(tokens)) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'user:all' });
    expect(await s.idp.verifyAccessToken(String(body['access_token']))).toStrictEqual({ userId: s.alice.id, scopes: ['user:all'] });
    expect((await redeem(s, back['code'] ?? '')).status).toBe(400);
  });

  it('a remembered approval skips the page: the next authorization redirects at once with a code', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    await callRoute(s.routes, decide(s, page, 'approve'));
    const again = await callRoute(s.routes, s.browser.get(authorizeURL({ ...s.params, state: 'st-2' })));
    expect(again.status).toBe(302);
    expect(locationParams(again)['state']).toBe('st-2');
    expect((await redeem(s, locationParams(again)['code'] ?? '')).status).toBe(200);
    // one approval, one audit entry
    expect((await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent')).toHaveLength(1);
    // another account has approved nothing
    const bob = await s.kit.createUser('bob');
    expect((await callRoute(s.routes, (await s.kit.browser(bob)).get(authorizeURL(s.params)))).status).toBe(200);
  });

  it('a scope beyond the approved ones shows the page again', async () => {
    const s = await setup();
    // an approval whose scopes lack the requested one (`user:all` is the only scope there is)
    (await s.kit.store.oauth.grantConsent({ userId: s.alice.id, clientId: s.clientId, scopes: [], grantedAt: 0 }))._unsafeUnwrap();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('Authorize Review bot');
    await callRoute(s.routes, decide(s, page, 'approve'));
    expect((await s.kit.store.oauth.findConsent(s.alice.id, s.clientId))?.scopes).toStrictEqual(['user:all']);
    expect((await callRoute(s.routes, s.browser.get(authorizeURL(s.params)))).status).toBe(302);
  });

  it('revoking the approval (Account security) makes the page appear again', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    await callRoute(s.routes, decide(s, page, 'approve'));
    (await s.kit.store.oauth.revokeConsent(s.alice.id, s.clientId))._unsafeUnwrap();
    expect((await callRoute(s.routes, s.browser.get(authorizeURL(s.params)))).status).toBe(200);
  });

  it('deny: redirects with access_denied and the state (RFC 6749 §4.1.2.1), issues nothing, remembers nothing, audits it', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const denied = await callRoute(s.routes, decide(s, page, 'deny'));
    expect(denied.status).toBe(303);
    expect(denied.headers['location']).toBe(`${REDIRECT}?error=access_denied&state=st-1`);
    expect(await codesStored(s)).toBe(0);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
    const audited = (await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent');
    expect(audited.map((e) => [e.action, e.actorUserId, e.details])).toStrictEqual([['denied', s.alice.id, { clientId: s.clientId, scopes: 'user:all' }]]);
    // and the next authorization asks again
    expect((await callRoute(s.routes, s.browser.get(authorizeURL(s.params)))).status).toBe(200);
  });

  // Every way a post can fail to come from this site's consent page: 403, nothing issued, nothing remembered.
  it.each([
    ['a wrong token', { [CSRF_FIELD]: 'A'.repeat(43) }, {}],
    ['no token', { [CSRF_FIELD]: '' }, {}],
    ['another origin', {}, { origin: 'https://app.example' }],
    ['a cross-site fetch', {}, { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a post with %s', async (_name, fields, headers) => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const answer = await callRoute(s.routes, decide(s, page, 'approve', fields, headers));
    expect(answer.status).toBe(403);
    expect(answer.headers['location']).toBeUndefined();
    expect(visibleText(answer)).toContain('This form did not come from this site');
    expect(await codesStored(s)).toBe(0);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
    expect((await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent')).toStrictEqual([]);
  });

  it('refuses a post without the CSRF cookie', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    s.browser.cookies.delete(CSRF_COOKIE);
    expect((await callRoute(s.routes, decide(s, page, 'approve'))).status).toBe(403);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
  });

  it('validates the hidden fields as the query: a tampered redirect_uri is the core error page, never a redirect there', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    for (const tampered of [{ redirect_uri: 'https://evil.example/cb' }, { client_id: 'gai_unknown' }]) {
      const answer = await callRoute(s.routes, decide(s, page, 'approve', tampered));
      expect(answer.status).toBe(400);
      expect(answer.headers['location']).toBeUndefined();
      expect(visibleText(answer)).toContain('Authorization failed');
    }
    // a scope the app does not hold: the core's invalid_scope at the registered URI, nothing approved
    const scoped = await callRoute(s.routes, decide(s, page, 'approve', { scope: 'user:all site-admin:sudo' }));
    expect(scoped.status).toBe(303);
    expect(locationParams(scoped)).toMatchObject({ error: 'invalid_scope', state: 'st-1' });
    expect(await codesStored(s)).toBe(0);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
    expect((await s.kit.auditEntries()).filter((e) => e.entity === 'oauth.consent')).toStrictEqual([]);
  });

  it('a repeated parameter in the form is refused as in the query', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const answer = await callRoute(s.routes, s.browser.post(AUTHORIZE, { ...hiddenFields(page), decision: 'approve', state: ['st-1', 'st-2'] }));
    expect(answer.status).toBe(303);
    expect(locationParams(answer)['error']).toBe('invalid_request');
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
  });

  it('a signed-out post is 401 and issues nothing', async () => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const out = await s.kit.browser(null);
    const answer = await callRoute(s.routes, out.post(AUTHORIZE, { ...hiddenFields(page), decision: 'approve' }));
    expect(answer.status).toBe(401);
    expect(answer.headers['location']).toBeUndefined();
    expect(await codesStored(s)).toBe(0);
  });

  it.each([['maybe'], [''], [null]])('answers 400 for a decision of %s, issuing nothing', async (decision) => {
    const s = await setup();
    const page = await callRoute(s.routes, s.browser.get(authorizeURL(s.params)));
    const fields = hiddenFields(page);
    const request = decision === null ? s.browser.post(AUTHORIZE, fields) : decide(s, page, decision);
    const answer = await callRoute(s.routes, request);
    expect(answer.status).toBe(400);
    expect(visibleText(answer)).toContain('Choose Approve or Deny');
    expect(await codesStored(s)).toBe(0);
    expect(await s.kit.store.oauth.findConsent(s.alice.id, s.clientId)).toBeNull();
    // both decisions at once are no decision either
    const both = await callRoute(s.routes, s.browser.post(AUTHORIZE, { ...fields, decision: ['approve', 'deny'] }));
    expect(both.status).toBe(400);
  });
});
