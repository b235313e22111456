/**
 * End-to-end SAML sign-in on loopback (spec §5.2): responses signed in the test by a test IdP key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../fakes/app.js';
import { createBrowser, type Browser } from '../fakes/http.js';
import { authnRequestId, b64, IDP_ENTRY_POINT, samlResponseXml, type ResponseOptions } from '../fakes/saml-idp.js';
import { IDP_CERT, IDP_KEY, OTHER_KEY } from '../fakes/saml-keys.js';
import { createSamlServiceProvider } from '../../../src/http/providers/saml.js';

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

describe('createProviderRoutes: SAML', () => {
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
      emails: [{ address: 'sam@example.com', verified: true }],
      externalAccounts: [{ providerType: 'saml', serviceId: IDP_ENTRY_POINT, accountId: 'saml-ok' }],
    });
  });

  it.each([
    { ref: 'issue 6 (unsigned)', overrides: { signWith: null } },
    { ref: 'issue 6 (signed by an untrusted key)', overrides: { signWith: OTHER_KEY } },
    { ref: 'issue 6 (re-targeted: audience)', overrides: { audience: 'https://other-sp.example/metadata' } },
    { ref: 'issue 6 (re-targeted: recipient)', overrides: { recipient: 'https://other-sp.example/acs' } },
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
  it('should keep at most maxPendingRequests pending requests, the oldest going first (resource bound)', async () => {
    const spAcs = 'https://sp.test.invalid/.auth/saml/acs';
    const spEntity = 'https://sp.test.invalid/.auth/saml/metadata';
    const sp = createSamlServiceProvider(
      { type: 'saml', entryPoint: IDP_ENTRY_POINT, idpCertificate: IDP_CERT, allowSignup: true },
      { acsURL: spAcs, entityID: spEntity, now: Date.now, maxPendingRequests: 2 },
    );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(authnRequestId(new URL((await sp.authorizationURL(`relay-${i}`)) ?? '')));
    const answer = (id: string, nameID: string): string =>
      b64(samlResponseXml({ inResponseTo: id, recipient: spAcs, audience: spEntity, nameID, email: 'sam@example.com', signWith: IDP_KEY }));
    // the first request was evicted by the third: its answer is refused; the newest is still pending
    expect(await sp.consume(answer(ids[0] ?? '', 'evicted'))).toBeNull();
    expect(await sp.consume(answer(ids[2] ?? '', 'kept'))).toStrictEqual({
      accountId: 'kept',
      username: null,
      emails: [{ address: 'sam@example.com', verified: true }],
    });
  });
});
