/**
 * End-to-end SAML sign-in on loopback (spec §5.2): responses signed in the test by a test IdP key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { seededRandomBytes, serveTable, startTestApp, testSignInDeps, type TestApp } from '../fakes/app.js';
import { createBrowser, listen, type Browser } from '../fakes/http.js';
import { authnRequestId, b64, IDP_ENTRY_POINT, samlResponseXml, type ResponseOptions } from '../fakes/saml-idp.js';
import { IDP_CERT, IDP_KEY, OTHER_KEY } from '../fakes/saml-keys.js';
import { signInRoutes } from '../../src/sign-in/routes.js';
import { createMemorySignInStore } from './sign-in-oracle.js';
import { createSamlServiceProvider, samlBindingDigest, type SamlAuthorization, type SamlConsumeResult } from '../../src/sign-in/saml-service-provider.js';
import { startServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

let app: TestApp;
let acs: string;
let entityID: string;

beforeAll(async () => {
  app = await startTestApp({
    providers: () => [{ type: 'saml', entryPoint: IDP_ENTRY_POINT, idpCertificate: IDP_CERT, allowSignup: true }],
  });
  acs = `${app.url}/.auth/saml/acs`;
  entityID = `${app.url}/.auth/saml/metadata`;
});

afterAll(async () => {
  await app?.close();
});

/** Starts a login and returns the RelayState and the AuthnRequest ID the identity provider would answer. */
async function start(browser: Browser): Promise<{ readonly relayState: string; readonly requestId: string; readonly url: URL }> {
  const res = await browser.get(`${app.url}/.auth/saml/login?returnTo=/after`);
  expect(res.status).toBe(303);
  const url = new URL(res.headers.get('location') ?? '');
  return { relayState: url.searchParams.get('RelayState') ?? '', requestId: authnRequestId(url), url };
}

function respond(requestId: string, overrides: Partial<ResponseOptions> = {}): string {
  return b64(
    samlResponseXml({
      inResponseTo: requestId,
      recipient: acs,
      audience: entityID,
      nameID: 'saml-user-1',
      email: 'sam@example.com',
      signWith: IDP_KEY,
      ...overrides,
    }),
  );
}

describe('signInRoutes: SAML', () => {
  it('should redirect to the entry point with an AuthnRequest and RelayState', async () => {
    const { url, relayState } = await start(createBrowser());
    expect(`${url.origin}${url.pathname}`).toBe(IDP_ENTRY_POINT);
    expect(relayState).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('should sign in with a signed response for this service provider (§5.2)', async () => {
    const browser = createBrowser();
    const { relayState, requestId } = await start(browser);
    const res = await browser.postForm(acs, { SAMLResponse: respond(requestId, { nameID: 'saml-ok' }), RelayState: relayState });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/after');
    const account = app.store.accounts().find((a) => a.externalAccounts.some((e) => e.accountId === 'saml-ok'));
    expect(account).toStrictEqual({
      id: account?.id,
      username: 'sam',
      origin: 'provider_signup',
      emails: [{ address: 'sam@example.com', verified: true }],
      externalAccounts: [{ providerType: 'saml', serviceId: IDP_ENTRY_POINT, accountId: 'saml-ok' }],
    });
  });

  it.each([
    { ref: 'unsigned', overrides: { signWith: null } },
    { ref: 'signed by an untrusted key', overrides: { signWith: OTHER_KEY } },
    { ref: 're-targeted: audience', overrides: { audience: 'https://other-sp.example/metadata' } },
    { ref: 're-targeted: recipient', overrides: { recipient: 'https://other-sp.example/acs' } },
    { ref: 'SAML InResponseTo (another request)', overrides: { inResponseTo: '_not-a-request-of-ours' } },
  ] as const)('should refuse the response and write nothing ($ref)', async ({ overrides }) => {
    const before = app.store.accounts();
    const browser = createBrowser();
    const { relayState, requestId } = await start(browser);
    const res = await browser.postForm(acs, { SAMLResponse: respond(requestId, { nameID: 'saml-bad', ...overrides }), RelayState: relayState });
    expect(res.status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should refuse a response altered after signing', async () => {
    const browser = createBrowser();
    const { relayState, requestId } = await start(browser);
    const xml = Buffer.from(respond(requestId, { nameID: 'saml-tampered' }), 'base64').toString('utf8');
    const altered = b64(xml.replace('sam@example.com', 'admin@example.com'));
    const res = await browser.postForm(acs, { SAMLResponse: altered, RelayState: relayState });
    expect(res.status).toBe(400);
  });

  it('should refuse a replayed response and a missing RelayState', async () => {
    const browser = createBrowser();
    const { relayState, requestId } = await start(browser);
    const response = respond(requestId, { nameID: 'saml-replay' });
    expect((await browser.postForm(acs, { SAMLResponse: response, RelayState: relayState })).status).toBe(303);
    const accounts = app.store.accounts();
    expect((await browser.postForm(acs, { SAMLResponse: response, RelayState: relayState })).status).toBe(400);
    expect((await browser.postForm(acs, { SAMLResponse: response })).status).toBe(400);
    // A new flow's RelayState does not revive the spent request ID.
    const fresh = await start(browser);
    expect((await browser.postForm(acs, { SAMLResponse: response, RelayState: fresh.relayState })).status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(accounts);
  });

  it('should refuse a GET to the ACS', async () => {
    expect((await createBrowser().get(acs)).status).toBe(400);
  });
});

describe('createSamlServiceProvider: pending AuthnRequest IDs', () => {
  const spAcs = 'https://sp.test.invalid/.auth/saml/acs';
  const spEntity = 'https://sp.test.invalid/.auth/saml/metadata';
  const answer = (id: string, nameID: string): string =>
    b64(samlResponseXml({ inResponseTo: id, recipient: spAcs, audience: spEntity, nameID, email: 'sam@example.com', signWith: IDP_KEY }));
  const newSp = (limits: { maxPendingRequestsPerClient?: number; maxPendingRequests?: number } = {}): ReturnType<typeof createSamlServiceProvider> =>
    createSamlServiceProvider(
      { type: 'saml', entryPoint: IDP_ENTRY_POINT, idpCertificate: IDP_CERT, allowSignup: true },
      { acsURL: spAcs, entityID: spEntity, store: createMemoryStore(), now: Date.now, ...limits },
    );
  const unbound = (relayState: string): { relayState: string; browserDigest: null } => ({ relayState, browserDigest: null });
  const urlOf = (a: SamlAuthorization): URL => new URL(a.kind === 'redirect' ? a.url : 'about:blank');
  const start = async (sp: ReturnType<typeof newSp>, relayState: string, client = '203.0.113.1'): Promise<string> =>
    authnRequestId(urlOf(await sp.authorizationURL(unbound(relayState), client)));
  const identity = (accountId: string): SamlConsumeResult => ({
    kind: 'identity',
    identity: { accountId, username: null, emails: [{ address: 'sam@example.com', verified: true }] },
  });

  it("should keep at most maxPendingRequestsPerClient pending requests per client, dropping that client's oldest (resource bound)", async () => {
    const sp = newSp({ maxPendingRequestsPerClient: 2 });
    const other = await start(sp, 'relay-other', '198.51.100.9');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await start(sp, `relay-${i}`));
    // the client's first request was dropped by its third: its answer is refused; its newest is still pending
    expect(await sp.consume(answer(ids[0] ?? '', 'dropped'), unbound('relay-0'))).toStrictEqual({ kind: 'rejected' });
    expect(await sp.consume(answer(ids[2] ?? '', 'kept'), unbound('relay-2'))).toStrictEqual(identity('kept'));
    // another client's request is untouched by this client's flood
    expect(await sp.consume(answer(other, 'other'), unbound('relay-other'))).toStrictEqual(identity('other'));
  });

  it('should refuse a new request when maxPendingRequests are pending and no client holds more than the newcomer would (resource bound)', async () => {
    const sp = newSp({ maxPendingRequests: 2 });
    const a = await start(sp, 'relay-a', '198.51.100.1');
    const b = await start(sp, 'relay-b', '198.51.100.2');
    expect(await sp.authorizationURL(unbound('relay-c'), '198.51.100.3')).toStrictEqual({ kind: 'busy' });
    expect(await sp.consume(answer(a, 'a'), unbound('relay-a'))).toStrictEqual(identity('a'));
    expect(await sp.consume(answer(b, 'b'), unbound('relay-b'))).toStrictEqual(identity('b'));
  });

  it("should take the place of the heaviest client's oldest request for a newcomer when maxPendingRequests are pending (resource bound)", async () => {
    const sp = newSp({ maxPendingRequests: 3 });
    const flood = [await start(sp, 'relay-f0', '198.51.100.1'), await start(sp, 'relay-f1', '198.51.100.1')];
    const b = await start(sp, 'relay-b', '198.51.100.2');
    // full (3): the flooder holds 2, more than the newcomer will (1), so its oldest request makes room
    const c = await start(sp, 'relay-c', '198.51.100.3');
    expect(await sp.consume(answer(flood[0] ?? '', 'dropped'), unbound('relay-f0'))).toStrictEqual({ kind: 'rejected' });
    expect(await sp.consume(answer(c, 'c'), unbound('relay-c'))).toStrictEqual(identity('c'));
    expect(await sp.consume(answer(b, 'b'), unbound('relay-b'))).toStrictEqual(identity('b'));
    expect(await sp.consume(answer(flood[1] ?? '', 'kept'), unbound('relay-f1'))).toStrictEqual(identity('kept'));
  });

  it('should accept only the response to the request its RelayState started (InResponseTo, SAML)', async () => {
    const sp = newSp();
    const a = await start(sp, 'relay-a');
    const b = await start(sp, 'relay-b');
    // a signed answer to request A, posted with B's RelayState: refused, and B is spent
    expect(await sp.consume(answer(a, 'crossed'), unbound('relay-b'))).toStrictEqual({ kind: 'rejected' });
    expect(await sp.consume(answer(b, 'late'), unbound('relay-b'))).toStrictEqual({ kind: 'rejected' });
    expect((await sp.consume(answer(a, 'own'), unbound('relay-a'))).kind).toBe('identity');
  });

  it('should finish a browser-bound flow only with the same browser digest', async () => {
    const sp = newSp();
    const bound = { relayState: 'relay-bound', browserDigest: samlBindingDigest('cookie-value') };
    const ids: string[] = [];
    for (const relayState of ['relay-bound', 'relay-bound-2', 'relay-bound-3']) {
      ids.push(authnRequestId(urlOf(await sp.authorizationURL({ ...bound, relayState }, '203.0.113.1'))));
    }
    expect(await sp.consume(answer(ids[0] ?? '', 'x'), { relayState: 'relay-bound', browserDigest: null })).toStrictEqual({ kind: 'not_this_browser' });
    expect(await sp.consume(answer(ids[1] ?? '', 'x'), { relayState: 'relay-bound-2', browserDigest: samlBindingDigest('other') })).toStrictEqual({
      kind: 'not_this_browser',
    });
    expect((await sp.consume(answer(ids[2] ?? '', 'x'), { relayState: 'relay-bound-3', browserDigest: samlBindingDigest('cookie-value') })).kind).toBe(
      'identity',
    );
  });
});

describe('signInRoutes: SAML request matching (SAML, login CSRF)', () => {
  it('should refuse a response to another pending request of the same browser, posted with this RelayState', async () => {
    const browser = createBrowser();
    const first = await start(browser);
    const second = await start(browser);
    const before = app.store.accounts();
    // the response answers the first request but comes back with the second flow's RelayState
    const crossed = await browser.postForm(acs, { SAMLResponse: respond(first.requestId, { nameID: 'saml-crossed' }), RelayState: second.relayState });
    expect(crossed.status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should set no binding cookie over http, where browsers cannot send one with the cross-site POST (development)', async () => {
    const res = await createBrowser().get(`${app.url}/.auth/saml/login`);
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie()).toStrictEqual([]);
  });
});

describe('signInRoutes: SAML browser binding over https (SAML, login CSRF)', () => {
  const EXTERNAL = 'https://sp.test.invalid';
  const httpsAcs = `${EXTERNAL}/.auth/saml/acs`;
  const httpsEntity = `${EXTERNAL}/.auth/saml/metadata`;
  let site: TestApp;
  let loopback: string;

  beforeAll(async () => {
    // the routes believe they are served at an https externalURL; the test talks to them over loopback
    site = await startHttpsApp(EXTERNAL);
    loopback = site.url;
  });

  afterAll(async () => {
    await site?.close();
  });

  const answer = (requestId: string, nameID: string): string =>
    b64(samlResponseXml({ inResponseTo: requestId, recipient: httpsAcs, audience: httpsEntity, nameID, email: `${nameID}@example.com`, signWith: IDP_KEY }));

  async function login(browser: Browser): Promise<{ relayState: string; requestId: string; setCookie: string[] }> {
    const res = await browser.get(`${loopback}/.auth/saml/login?returnTo=/after`);
    expect(res.status).toBe(303);
    const url = new URL(res.headers.get('location') ?? '');
    return { relayState: url.searchParams.get('RelayState') ?? '', requestId: authnRequestId(url), setCookie: res.headers.getSetCookie() };
  }

  it('should set a short-lived SameSite=None; Secure; HttpOnly binding cookie scoped to /.auth/saml', async () => {
    const { setCookie } = await login(createBrowser());
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/^gatehouse_saml_binding=[A-Za-z0-9_-]{43}; Path=\/\.auth\/saml; Max-Age=600; HttpOnly; SameSite=None; Secure$/);
  });

  it('should sign in when the browser that started the flow posts the response', async () => {
    const browser = createBrowser();
    const { relayState, requestId } = await login(browser);
    const res = await browser.postForm(`${loopback}/.auth/saml/acs`, { SAMLResponse: answer(requestId, 'bound-ok'), RelayState: relayState });
    expect([res.status, res.headers.get('location')]).toStrictEqual([303, '/after']);
    expect(site.store.accounts().some((a) => a.externalAccounts.some((e) => e.accountId === 'bound-ok'))).toBe(true);
  });

  it.each([
    { ref: 'SAML login CSRF (no binding cookie)', cookie: null },
    { ref: 'SAML login CSRF (the victim\'s own, other binding cookie)', cookie: 'victim' },
    { ref: 'SAML login CSRF (a forged binding cookie)', cookie: 'forged' },
  ] as const)('should refuse an attacker\'s signed response posted from another browser ($ref)', async ({ cookie }) => {
    // the attacker starts a flow in their own browser and gets a response signed for their own account
    const attacker = createBrowser();
    const { relayState, requestId } = await login(attacker);
    const response = answer(requestId, `attacker-${cookie ?? 'none'}`);
    // … then makes the victim's browser post it (an auto-submitting cross-site form)
    const victim = createBrowser();
    if (cookie === 'victim') await login(victim);
    if (cookie === 'forged') victim.jar.set(new URL(loopback).host, new Map([['gatehouse_saml_binding', 'A'.repeat(43)]]));
    const before = site.store.accounts();
    const res = await victim.postForm(`${loopback}/.auth/saml/acs`, { SAMLResponse: response, RelayState: relayState });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('This sign-in was not started in this browser. Start signing in again.');
    expect(res.headers.getSetCookie()).toStrictEqual([]);
    expect(site.store.accounts()).toStrictEqual(before);
    // the refused flow is spent: the attacker cannot finish it either
    expect((await attacker.postForm(`${loopback}/.auth/saml/acs`, { SAMLResponse: response, RelayState: relayState })).status).toBe(400);
    expect(site.store.accounts()).toStrictEqual(before);
  });

  it('should keep working with two flows of one browser only for the latest (one binding cookie per browser)', async () => {
    const browser = createBrowser();
    const older = await login(browser);
    const newer = await login(browser);
    const res = await browser.postForm(`${loopback}/.auth/saml/acs`, { SAMLResponse: answer(newer.requestId, 'bound-newer'), RelayState: newer.relayState });
    expect(res.status).toBe(303);
    const stale = await browser.postForm(`${loopback}/.auth/saml/acs`, { SAMLResponse: answer(older.requestId, 'bound-older'), RelayState: older.relayState });
    expect(stale.status).toBe(400);
  });
});

describe('createGatehouseServer: SAML browser binding over https (SAML, login CSRF)', () => {
  it('should bind the flow when externalURL is https, through the server\'s own wiring', async () => {
    const external = 'https://search.example.com';
    const server = await startServer({
      siteConfiguration: JSON.stringify({
        externalURL: external,
        'auth.providers': [{ type: 'saml', entryPoint: IDP_ENTRY_POINT, idpCertificate: IDP_CERT, allowSignup: true }],
      }),
    });
    try {
      const respondTo = (requestId: string, nameID: string): string =>
        b64(
          samlResponseXml({
            inResponseTo: requestId,
            recipient: `${external}/.auth/saml/acs`,
            audience: `${external}/.auth/saml/metadata`,
            nameID,
            email: `${nameID}@example.com`,
            signWith: IDP_KEY,
          }),
        );
      const attacker = createBrowser();
      const started = await attacker.get(`${server.url}/.auth/saml/login`);
      const location = new URL(started.headers.get('location') ?? '');
      expect(started.headers.getSetCookie().join('\n')).toMatch(/gatehouse_saml_binding=.*SameSite=None/);
      const form = { SAMLResponse: respondTo(authnRequestId(location), 'mallory'), RelayState: location.searchParams.get('RelayState') ?? '' };
      const forged = await createBrowser().postForm(`${server.url}/.auth/saml/acs`, form);
      expect(forged.status).toBe(400);
      expect(await flatStoreOf(server.gatehouse.store).findUserByUsername('mallory')).toBeNull();

      const own = createBrowser();
      const ownStart = new URL((await own.get(`${server.url}/.auth/saml/login`)).headers.get('location') ?? '');
      const signedIn = await own.postForm(`${server.url}/.auth/saml/acs`, {
        SAMLResponse: respondTo(authnRequestId(ownStart), 'sally'),
        RelayState: ownStart.searchParams.get('RelayState') ?? '',
      });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.getSetCookie().join('\n')).toMatch(/gatehouse_session=/);
      expect((await flatStoreOf(server.gatehouse.store).findUserByUsername('sally'))?.username).toBe('sally');
    } finally {
      await server.close();
    }
  });
});

/** Like `startTestApp`, but the provider routes are told that the site is served at `externalURL` (https). */
async function startHttpsApp(externalURL: string): Promise<TestApp> {
  const store = createMemorySignInStore([]);
  const flowStore = createMemoryStore();
  const states = flowStore.ephemeral;
  const randomBytes = seededRandomBytes('https-app');
  const providers = [{ type: 'saml', entryPoint: IDP_ENTRY_POINT, idpCertificate: IDP_CERT, allowSignup: true }] as const;
  const routes = signInRoutes(testSignInDeps({ providers, externalURL, store, flowStore, randomBytes }));
  const listening = await listen(serveTable(() => routes));
  return { ...listening, store, routes, states };
}
