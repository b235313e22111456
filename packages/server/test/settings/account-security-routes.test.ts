/**
 * The "Account security" page as functions (spec §5.3 reviewhost, §5.4 rule 4, §2.4 approvals): rendered in the
 * settings shell with the pages' CSP, hostile values shown as text, unlink in a store transaction, review host
 * credentials, authorized applications and their revocation, and every form refused when it does not come from
 * this site's page.
 */
import { describe, expect, it } from 'vitest';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import { checkReviewhostCredentials } from '../../src/providers/reviewhost.js';
import { accountSecurityRoutes, ACCOUNT_SECURITY_PATHS, type AccountSecurityDeps } from '../../src/settings/account-security.js';
import { CSRF_FIELD } from '../../src/pages/csrf.js';
import { pagesCsp } from '../../src/pages/page-routes.js';
import type { Route } from '../../src/kernel/route.js';
import type { UserRecord } from '../../src/store/types.js';
import { callRoute, pageKit, textOf, visibleText, type PageKit } from '../helpers/page-kit.js';

const hosta: AuthProvider = { type: 'hosta', url: 'https://hosta.example.com', clientID: 'id', clientSecret: 'secret', allowSignup: true };
const hostb: AuthProvider = { type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 'secret', apiScope: 'api', allowSignup: true };
const review: AuthProvider = { type: 'reviewhost', displayName: 'Review <i>host</i>', url: 'https://review.example.com/', allowSignup: false };

/** An id, a name and a username no page may render as markup. */
const HOSTILE = '<img src=x onerror=alert(1)>"\'&';
const HOSTILE_USER = '<b onmouseover="alert(1)">bob</b>';

/** A fake review host: accepts `HOSTILE_USER` with the password `right password`. */
const reviewFetch: typeof fetch = async (_url, init) => {
  const header = new Headers(init?.headers).get('authorization') ?? '';
  const expected = `Basic ${Buffer.from(`${HOSTILE_USER}:right password`).toString('base64')}`;
  return header === expected ? new Response(`)]}'\n${JSON.stringify({ username: HOSTILE_USER })}`, { status: 200 }) : new Response('', { status: 401 });
};

interface Setup {
  readonly kit: PageKit;
  readonly routes: readonly Route[];
  readonly bea: UserRecord;
}

async function setUp(): Promise<Setup> {
  const kit = await pageKit();
  const created = await kit.store.accounts.create({
    usernames: ['bea'],
    origin: 'provider_signup',
    siteAdmin: false,
    serviceAccount: false,
    emails: [],
    passwordHash: null,
    createdAt: 0,
    externalAccount: { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '1', createdAt: 0 },
  });
  const bea = created._unsafeUnwrap();
  await kit.store.accounts.link({ userId: bea.id, serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: HOSTILE, createdAt: 1 });
  const deps: AccountSecurityDeps = {
    ...kit.deps,
    providers: [hosta, hostb, review],
    credentialsKey: new Uint8Array(32).fill(9),
    codeHostConnectionUrls: ['https://review.example.com'],
    checkReviewhostCredentials: (url, username, password) => checkReviewhostCredentials(url, username, password, reviewFetch, 1_000),
  };
  return { kit, routes: accountSecurityRoutes(deps), bea };
}

/** Registers an app and records bea's approval of it. */
async function approve(kit: PageKit, user: UserRecord, clientId: string, name: string, scopes: readonly string[]): Promise<void> {
  (await kit.store.oauth.insertApp({ clientId, clientSecretHash: 'h', redirectUris: ['https://app.example/cb'], scopes, name, ownerUserId: user.id, createdAt: 0 }))._unsafeUnwrap();
  (await kit.store.oauth.grantConsent({ userId: user.id, clientId, scopes, grantedAt: kit.clock.now() }))._unsafeUnwrap();
}

/** Everything the page's forms can change, to compare before and after a refused post. */
async function stateOf(kit: PageKit, user: UserRecord): Promise<unknown> {
  return {
    links: await kit.store.accounts.links(user.id),
    credentials: await kit.store.accounts.credentials(user.id),
    consents: await kit.store.oauth.listConsents(user.id),
    audit: (await kit.auditEntries()).length,
  };
}

describe('Account security page', () => {
  it('renders in the settings shell with the pages CSP, no inline script, and hostile values as text', async () => {
    const { kit, routes, bea } = await setUp();
    await approve(kit, bea, 'client-1', HOSTILE, ['user:all']);
    const page = await callRoute(routes, (await kit.browser(bea)).get('/settings/security'));
    const html = textOf(page);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(pagesCsp());
    expect(page.headers['cache-control']).toBe('no-store');
    expect([...html.matchAll(/<script\b[^>]*>/g)].every((m) => / src="\/\.assets\//.test(m[0]))).toBe(true);
    expect(html).not.toMatch(/<script\b[^>]*>[^<]/);
    expect(html).toContain('<a href="/settings/security" aria-current="page">Account security</a>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<i>host');
    const text = visibleText(page);
    expect(text).toContain('Linked identities');
    expect(text).toContain(HOSTILE);
    expect(text).toContain('Review <i>host</i>');
    expect(text).toContain('Authorized applications');
    expect(text).toContain('user:all');
    expect(text).toContain('2023-11-14 22:13 UTC');
    expect(html).toContain(`aria-label="Revoke ${HOSTILE.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#x27;')}"`);
  });

  it('sends a signed-out visitor to sign in and refuses a signed-out post with 401', async () => {
    const { kit, routes, bea } = await setUp();
    const out = await kit.browser(null);
    const page = await callRoute(routes, out.get('/settings/security'));
    expect([page.status, page.headers['location']]).toStrictEqual([303, '/.auth/sign-in?returnTo=%2Fsettings%2Fsecurity']);
    const before = await stateOf(kit, bea);
    expect((await callRoute(routes, out.post(ACCOUNT_SECURITY_PATHS.unlink, { serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: HOSTILE }))).status).toBe(401);
    expect(await stateOf(kit, bea)).toStrictEqual(before);
  });
});

describe('unlink (§5.4 rule 4)', () => {
  const second = { serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: HOSTILE };
  const first = { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '1' };

  it('asks first on a page of its own, whose form posts the link back', async () => {
    const { kit, routes, bea } = await setUp();
    const browser = await kit.browser(bea);
    const confirm = await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.unlink}?${new URLSearchParams(second).toString()}`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toContain(`Unlink the hostb account ${HOSTILE}`);
    expect(textOf(confirm)).toContain('<form method="post" action="/settings/security/unlink" aria-label="Unlink identity">');
    expect(textOf(confirm)).toContain(`name="${CSRF_FIELD}" value="${browser.csrf}"`);
    expect((await kit.store.accounts.links(bea.id)).length).toBe(2);
    const unknown = await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.unlink}?serviceType=hostb&serviceId=x&accountId=y`));
    expect(unknown.status).toBe(404);
  });

  it('unlinks one of two ways (303, audited), refuses the last with 409, and answers 404 for a link it does not have', async () => {
    const { kit, routes, bea } = await setUp();
    const browser = await kit.browser(bea);
    const done = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, second));
    expect([done.status, done.headers['location']]).toStrictEqual([303, '/settings/security?done=unlinked']);
    expect(visibleText(await callRoute(routes, browser.get('/settings/security?done=unlinked')))).toContain('The identity was unlinked.');
    const last = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, first));
    expect(last.status).toBe(409);
    expect(visibleText(last)).toContain('This is the last way to sign in to your account, so it cannot be unlinked.');
    expect((await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, second))).status).toBe(404);
    expect((await kit.store.accounts.links(bea.id)).map((l) => l.accountId)).toStrictEqual(['1']);
    const audit = (await kit.auditEntries()).map((e) => [e.entity, e.action, e.details]);
    expect(audit).toStrictEqual([['user.externalAccount', 'unlinked', { serviceType: 'hostb', serviceId: 'https://hostb.example.com' }]]);
  });

  it('lets only one of two concurrent unlinks of the last two ways win', async () => {
    const { kit, routes, bea } = await setUp();
    const browser = await kit.browser(bea);
    const statuses = (await Promise.all([callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, first)), callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, second))]))
      .map((r) => r.status)
      .sort();
    expect(statuses).toStrictEqual([303, 409]);
    expect(await kit.store.accounts.links(bea.id)).toHaveLength(1);
  });
});

describe('review host credentials (§5.3 reviewhost)', () => {
  it('checks them at the host, shows the hostile account name as text, asks before removing, and audits both', async () => {
    const { kit, routes, bea } = await setUp();
    const browser = await kit.browser(bea);
    const wrong = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.addCredentials, { provider: '2', username: HOSTILE_USER, password: 'wrong' }));
    expect(wrong.status).toBe(400);
    expect(visibleText(wrong)).toContain('The review host refused these credentials.');
    // what the person typed is shown again, the password never
    expect(textOf(wrong)).toContain('value="&lt;b onmouseover=&quot;alert(1)&quot;&gt;bob&lt;/b&gt;"');
    expect(textOf(wrong)).not.toContain('value="wrong"');
    expect(await kit.store.accounts.credentials(bea.id)).toStrictEqual([]);

    const added = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.addCredentials, { provider: '2', username: HOSTILE_USER, password: 'right password' }));
    expect([added.status, added.headers['location']]).toStrictEqual([303, '/settings/security?done=credentials_added']);
    const page = await callRoute(routes, browser.get('/settings/security?done=credentials_added'));
    expect(textOf(page)).not.toContain('<b onmouseover');
    expect(textOf(page)).not.toContain('right password');
    expect(visibleText(page)).toContain(`Credentials stored for ${HOSTILE_USER} .`);
    expect(visibleText(page)).toContain('Replace credentials');

    const confirm = await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.removeCredentials}?provider=2`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toContain(`Remove the credentials of ${HOSTILE_USER} for Review <i>host</i> ?`);
    const removed = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.removeCredentials, { provider: '2' }));
    expect([removed.status, removed.headers['location']]).toStrictEqual([303, '/settings/security?done=credentials_removed']);
    expect(await kit.store.accounts.credentials(bea.id)).toStrictEqual([]);
    expect((await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.removeCredentials, { provider: '2' }))).status).toBe(404);
    expect((await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.removeCredentials}?provider=2`))).status).toBe(404);
    const audit = (await kit.auditEntries()).map((e) => [e.entity, e.action]);
    expect(audit).toStrictEqual([
      ['user.credentials', 'failed'],
      ['user.credentials', 'added'],
      ['user.credentials', 'removed'],
    ]);
    expect(JSON.stringify(await kit.auditEntries())).not.toContain('right password');
  });
});

describe('authorized applications (§2.4)', () => {
  it('lists the approvals, asks before revoking, revokes one (audited) and leaves the other', async () => {
    const { kit, routes, bea } = await setUp();
    await approve(kit, bea, 'client-1', 'Search <Helper>', ['user:all']);
    kit.clock.advance(60_000);
    await approve(kit, bea, 'client-2', 'Other app', ['user:all']);
    const browser = await kit.browser(bea);
    const page = visibleText(await callRoute(routes, browser.get('/settings/security')));
    expect(page).toContain('Search <Helper> client-1 user:all 2023-11-14 22:13 UTC Revoke');
    expect(page).toContain('Other app client-2 user:all 2023-11-14 22:14 UTC Revoke');

    const confirm = await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.revokeConsent}?clientId=client-1`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toContain('Revoke your approval of Search <Helper> ?');
    expect(textOf(confirm)).toContain('<input type="hidden" name="clientId" value="client-1"/>');

    const revoked = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.revokeConsent, { clientId: 'client-1' }));
    expect([revoked.status, revoked.headers['location']]).toStrictEqual([303, '/settings/security?done=consent_revoked']);
    expect((await kit.store.oauth.listConsents(bea.id)).map((c) => c.clientId)).toStrictEqual(['client-2']);
    const audit = (await kit.auditEntries()).map((e) => [e.entity, e.action, e.actorUserId, e.subjectUserId, e.details]);
    expect(audit).toStrictEqual([['oauth.consent', 'revoked', bea.id, bea.id, { clientId: 'client-1' }]]);
    const after = visibleText(await callRoute(routes, browser.get('/settings/security?done=consent_revoked')));
    expect(after).toContain('The approval was revoked and the tokens the application held stopped working.');
    expect(after).not.toContain('Search <Helper>');
  });

  it('refuses an unknown client id with 404 and leaves everything as it was', async () => {
    const { kit, routes, bea } = await setUp();
    await approve(kit, bea, 'client-1', 'Search', ['user:all']);
    const before = await stateOf(kit, bea);
    const browser = await kit.browser(bea);
    const refused = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.revokeConsent, { clientId: 'client-9' }));
    expect(refused.status).toBe(404);
    expect(visibleText(refused)).toContain('No such authorized application.');
    expect((await callRoute(routes, browser.get(`${ACCOUNT_SECURITY_PATHS.revokeConsent}?clientId=client-9`))).status).toBe(404);
    expect(await stateOf(kit, bea)).toStrictEqual(before);
  });

  it('says so when nothing was approved', async () => {
    const { kit, routes, bea } = await setUp();
    expect(visibleText(await callRoute(routes, (await kit.browser(bea)).get('/settings/security')))).toContain('You have not approved any application.');
  });
});

describe('cross-site posts', () => {
  const forms: readonly (readonly [string, Readonly<Record<string, string>>])[] = [
    [ACCOUNT_SECURITY_PATHS.unlink, { serviceType: 'hostb', serviceId: 'https://hostb.example.com', accountId: HOSTILE }],
    [ACCOUNT_SECURITY_PATHS.addCredentials, { provider: '2', username: HOSTILE_USER, password: 'right password' }],
    [ACCOUNT_SECURITY_PATHS.removeCredentials, { provider: '2' }],
    [ACCOUNT_SECURITY_PATHS.revokeConsent, { clientId: 'client-1' }],
  ];
  const attacks: readonly (readonly [string, Readonly<Record<string, string>>, Readonly<Record<string, string>>])[] = [
    ['another origin', {}, { origin: 'https://evil.example' }],
    ['a cross-site fetch', {}, { 'sec-fetch-site': 'cross-site' }],
    ['no form token', { [CSRF_FIELD]: '' }, {}],
  ];

  it.each(forms.flatMap(([path, fields]) => attacks.map(([name, extra, headers]) => ({ path, fields, name, extra, headers }))))(
    'refuses $path from $name with 403 and changes nothing',
    async ({ path, fields, extra, headers }) => {
      const { kit, routes, bea } = await setUp();
      await approve(kit, bea, 'client-1', 'Search', ['user:all']);
      const browser = await kit.browser(bea);
      // stored credentials, so that a removal would have something to remove
      (await kit.store.accounts.putCredential({ userId: bea.id, serviceType: 'reviewhost', serviceId: 'https://review.example.com', accountId: 'x', sealed: 's', createdAt: 0 }))._unsafeUnwrap();
      const before = await stateOf(kit, bea);
      const answer = await callRoute(routes, browser.post(path, { ...fields, ...extra }, headers));
      expect(answer.status).toBe(403);
      expect(await stateOf(kit, bea)).toStrictEqual(before);
    },
  );
});

describe('a noSignIn provider (auth.providers[].noSignIn)', () => {
  it('is offered to connect, but its identity is no way in: the last provider that signs in cannot be unlinked', async () => {
    const { kit, bea } = await setUp();
    const routes = accountSecurityRoutes({
      ...kit.deps,
      providers: [hosta, { ...hostb, noSignIn: true }, review],
      credentialsKey: new Uint8Array(32).fill(9),
      codeHostConnectionUrls: ['https://review.example.com'],
      checkReviewhostCredentials: async () => ({ kind: 'rejected' }) as never,
    });
    const browser = await kit.browser(bea);
    const page = await callRoute(routes, browser.get('/settings/security'));
    expect(textOf(page)).toContain('/.auth/hostb/login?provider=1&amp;returnTo=%2Fsettings%2Fsecurity');
    const hostaLink = { serviceType: 'hosta', serviceId: 'https://hosta.example.com', accountId: '1' };
    const refused = await callRoute(routes, browser.post(ACCOUNT_SECURITY_PATHS.unlink, hostaLink));
    expect(refused.status).toBe(409);
    expect((await kit.store.accounts.links(bea.id)).length).toBe(2);
  });
});
