/**
 * The "Account security" page end to end: linked identities a person can unlink (never the last way
 * to sign in, §5.4 rule 4) and review host credentials (§5.3 reviewhost) checked against a fake review host,
 * sealed at rest and never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import { credentialContext, signInMethodCount } from '../../src/settings/account-security.js';
import { openSecret } from '../../src/store/credentials.js';
import { createGatehouseServer, type ExternalAccountRecord, type GatehouseServer, type UserRecord } from '../../src/index.js';
import { seededRandomBytes } from '../fakes/app.js';
import { HOSTA_CLIENT, startFakeHosta, type FakeHosta } from '../fakes/hosta.js';
import { createBrowser, type Browser } from '../fakes/http.js';
import { startFakeReviewhost, type FakeReviewhost } from '../fakes/reviewhost.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const KEY = new Uint8Array(32).map((_, i) => i + 1);
let hosta: FakeHosta;
let review: FakeReviewhost;
let gatehouse: GatehouseServer;
let url: string;

beforeAll(async () => {
  hosta = await startFakeHosta([
    { id: 1, login: 'alice', emails: [{ email: 'alice@example.com', verified: true, primary: true }] },
    { id: 2, login: 'bea', emails: [{ email: 'bea@example.com', verified: true, primary: true }] },
  ]);
  review = await startFakeReviewhost({ alice: 'review-password-1' });
  gatehouse = createGatehouseServer({
    siteConfiguration: `{ "auth.providers": [
      { "type": "builtin", "allowSignup": true },
      { "type": "hosta", "url": "${hosta.url}", "clientID": "${HOSTA_CLIENT.clientId}", "clientSecret": "${HOSTA_CLIENT.clientSecret}", "allowSignup": true },
      { "type": "reviewhost", "displayName": "Review", "url": "${review.url.toUpperCase()}/" },
      { "type": "reviewhost", "displayName": "Unconnected", "url": "https://review.unconnected.example" } ] }`,
    codeHostConnectionUrls: [hosta.url, review.url],
    credentialsKey: KEY,
    randomBytes: seededRandomBytes('account-security'),
    log: () => {},
  });
  url = (await gatehouse.listen(0)).url;
});

afterAll(async () => {
  await Promise.all([gatehouse?.close(), hosta?.close(), review?.close()]);
});

async function hostaSignIn(browser: Browser, as: string): Promise<void> {
  const login = await browser.get(`${url}/.auth/hosta/login`);
  const authorizeURL = new URL(login.headers.get('location') ?? '');
  authorizeURL.searchParams.set('as', as);
  const { url: callbackURL } = await browser.follow(authorizeURL.href, (u) => u.origin === url);
  expect((await browser.get(callbackURL)).status).toBe(303);
}

async function userNamed(name: string): Promise<UserRecord> {
  const user = await flatStoreOf(gatehouse.store).findUserByUsername(name);
  if (user === null) throw new Error(`no ${name}`);
  return user;
}

/** The form token of the account security page this browser is given (its forms carry it). */
async function csrfOf(browser: Browser): Promise<string> {
  const html = await (await browser.get(`${url}/settings/security`)).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error('no form token on the page');
  return token;
}

const link = (serviceType: string): ExternalAccountRecord => ({ userId: '1', serviceType, serviceId: '', accountId: 'x', createdAt: 0 });
const user = (passwordHash: string | null): UserRecord => ({ id: '1', username: 'u', origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash, createdAt: 0 });
const HOSTA: AuthProvider = { type: 'hosta', url: '', clientID: 'i', clientSecret: 's', allowSignup: false };
const BUILTIN: AuthProvider = { type: 'builtin', allowSignup: false };
const REVIEW: AuthProvider = { type: 'reviewhost', url: 'https://r.example', allowSignup: false };

describe('signInMethodCount', () => {
  it.each([
    { ref: 'no way left', links: [], user: user(null), providers: [BUILTIN, HOSTA], expected: 0 },
    { ref: 'password, builtin configured', links: [], user: user('h'), providers: [BUILTIN], expected: 1 },
    { ref: 'password, builtin not configured', links: [], user: user('h'), providers: [HOSTA], expected: 0 },
    { ref: '§5.4 rule 4 (configured provider)', links: [link('hosta')], user: user(null), providers: [HOSTA], expected: 1 },
    { ref: 'provider no longer configured', links: [link('hostb')], user: user(null), providers: [HOSTA], expected: 0 },
    { ref: '§5.3 reviewhost (not a sign-in method)', links: [link('reviewhost')], user: user(null), providers: [REVIEW], expected: 0 },
    { ref: '§5.4 rule 4 (several)', links: [link('hosta'), link('hosta')], user: user('h'), providers: [BUILTIN, HOSTA], expected: 3 },
  ])('should count the ways to sign in ($ref)', ({ links, user: u, providers, expected }) => {
    expect(signInMethodCount(links, u, providers)).toBe(expected);
  });
});

describe('Account security page', () => {
  it('should send a person who is not signed in to the sign-in page', async () => {
    const res = await fetch(`${url}/settings/security`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/.auth/sign-in?returnTo=%2Fsettings%2Fsecurity');
    expect((await fetch(`${url}/settings/security/unlink`, { method: 'POST' })).status).toBe(401);
  });

  it('should refuse to unlink the last way to sign in, and unlink one that is not the last', async () => {
    const browser = createBrowser();
    await hostaSignIn(browser, 'bea');
    const bea = await userNamed('bea');
    const page = await browser.get(`${url}/settings/security`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('Account security');
    expect(html).toContain('last way to sign in');
    const form = { serviceType: 'hosta', serviceId: hosta.url, accountId: '2', _csrf: await csrfOf(browser) };
    const refused = await browser.postForm(`${url}/settings/security/unlink`, form);
    expect(refused.status).toBe(409);
    expect(await flatStoreOf(gatehouse.store).listExternalAccounts(bea.id)).toHaveLength(1);
    // with a password, the link is no longer the last way
    await flatStoreOf(gatehouse.store).setPasswordHash(bea.id, 'scrypt$1$1$1$a$b');
    const unlinked = await browser.postForm(`${url}/settings/security/unlink`, form);
    expect([unlinked.status, unlinked.headers.get('location')]).toStrictEqual([303, '/settings/security?done=unlinked']);
    expect(await flatStoreOf(gatehouse.store).listExternalAccounts(bea.id)).toStrictEqual([]);
    expect((await browser.postForm(`${url}/settings/security/unlink`, form)).status).toBe(404);
  });

  it('should refuse a cross-origin form and change nothing', async () => {
    const browser = createBrowser();
    await hostaSignIn(browser, 'alice');
    const alice = await userNamed('alice');
    const before = await flatStoreOf(gatehouse.store).listExternalAccounts(alice.id);
    const res = await browser.get(`${url}/settings/security`, {});
    expect(res.status).toBe(200);
    const cookie = [...(browser.jar.get(new URL(url).host) ?? new Map<string, string>())].map(([k, val]) => `${k}=${val}`).join('; ');
    const cross = await fetch(`${url}/settings/security/reviewhost`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: `provider=2&username=alice&password=review-password-1&_csrf=${await csrfOf(browser)}`,
    });
    expect(cross.status).toBe(403);
    expect(await flatStoreOf(gatehouse.store).listExternalAccounts(alice.id)).toStrictEqual(before);
    expect(await flatStoreOf(gatehouse.store).listProviderCredentials(alice.id)).toStrictEqual([]);
  });

  it('should check review host credentials at the host, keep them sealed, and never show them (§5.3 reviewhost)', async () => {
    const browser = createBrowser();
    await hostaSignIn(browser, 'alice');
    const alice = await userNamed('alice');
    const page = await (await browser.get(`${url}/settings/security`)).text();
    expect(page).toContain('Review host credentials');
    expect(page).toContain('Not offered: its URL matches no code host connection.');

    const _csrf = await csrfOf(browser);
    const wrong = await browser.postForm(`${url}/settings/security/reviewhost`, { provider: '2', username: 'alice', password: 'wrong', _csrf });
    expect(wrong.status).toBe(400);
    expect(await flatStoreOf(gatehouse.store).listProviderCredentials(alice.id)).toStrictEqual([]);

    const checksBefore = review.checks.length;
    const right = await browser.postForm(`${url}/settings/security/reviewhost`, { provider: '2', username: 'alice', password: 'review-password-1', _csrf });
    expect([right.status, right.headers.get('location')]).toStrictEqual([303, '/settings/security?done=credentials_added']);
    expect(review.checks.length).toBe(checksBefore + 1);
    const html = await (await browser.get(`${url}/settings/security?done=credentials_added`)).text();
    expect(html).toContain('Credentials stored for <strong>alice</strong>');
    expect(html).not.toContain('review-password-1');
    const [stored, ...more] = await flatStoreOf(gatehouse.store).listProviderCredentials(alice.id);
    expect(more).toStrictEqual([]);
    expect(stored?.accountId).toBe('alice');
    expect(stored?.sealed).not.toContain('review-password-1');
    expect(stored?.sealed).not.toContain(Buffer.from('review-password-1').toString('base64url'));
    // sealed with the server's key, bound to this account and this review host
    expect(openSecret(KEY, stored?.sealed ?? '', credentialContext(alice.id, stored?.serviceId ?? ''))).toBe('review-password-1');
    expect(openSecret(KEY, stored?.sealed ?? '', credentialContext('someone-else', stored?.serviceId ?? ''))).toBeNull();
    expect(openSecret(new Uint8Array(32), stored?.sealed ?? '', credentialContext(alice.id, stored?.serviceId ?? ''))).toBeNull();
    // nothing in the API or the audit log carries it
    const audit = JSON.stringify(await flatStoreOf(gatehouse.store).listAudit(50));
    expect(audit).not.toContain('review-password-1');

    const unconnected = await browser.postForm(`${url}/settings/security/reviewhost`, { provider: '3', username: 'alice', password: 'review-password-1', _csrf });
    expect(unconnected.status).toBe(404);

    const removed = await browser.postForm(`${url}/settings/security/reviewhost/remove`, { provider: '2', _csrf });
    expect(removed.status).toBe(303);
    expect(await flatStoreOf(gatehouse.store).listProviderCredentials(alice.id)).toStrictEqual([]);
  });
});
