/**
 * The OAuth app pages (spec §2.4) as functions: registration with the secret shown once, rotation, deletion, and
 * `rotateSecret` of the OAuth server.
 */
import { describe, expect, it } from 'vitest';
import { digestOf } from '../../src/oauth-server/handlers.js';
import { CSRF_FIELD } from '../../src/pages/csrf.js';
import { callRoute, textOf, visibleText } from '../helpers/page-kit.js';
import type { RouteResponse } from '../../src/kernel/route.js';
import { revocationRequest, siteAdminKit } from './site-admin-kit.js';

const REDIRECT = 'https://ci.example.com/callback';

/** The client secret a page shows once, or `null`. */
function shownSecret(page: RouteResponse): string | null {
  return /id="client-secret"[^>]*>([^<]+)</.exec(textOf(page))?.[1] ?? null;
}

async function registered(name = 'CI bot', redirectUris = `${REDIRECT}\nhttp://127.0.0.1:8765/cb`) {
  const s = await siteAdminKit();
  const browser = await s.kit.browser(s.admin);
  const page = await callRoute(s.routes, browser.post('/site-admin/oauth-apps', { name, redirectUris }));
  const [app] = await s.kit.store.oauth.listApps();
  if (app === undefined) throw new Error('no app registered');
  return { ...s, browser, page, app, secret: shownSecret(page) };
}

describe('GET /site-admin/oauth-apps', () => {
  it('should show the registration form with labelled controls and say that no app is registered', async () => {
    const s = await siteAdminKit();
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).get('/site-admin/oauth-apps'));
    const html = textOf(page);
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('No OAuth apps are registered.');
    expect(html).toContain('<label for="app-name">App name</label>');
    expect(html).toContain('<label for="app-redirect-uris">Redirect URIs</label>');
    expect(html).toMatch(/<textarea[^>]*id="app-redirect-uris"[^>]*name="redirectUris"/);
    expect(html).toContain('>Register app</button>');
    expect(html).toContain('aria-current="page"');
  });

  it('should list each app with its client ID, redirect URIs, scope, time and owner username', async () => {
    const { routes, browser, app } = await registered();
    const text = visibleText(await callRoute(routes, browser.get('/site-admin/oauth-apps')));
    for (const expected of ['CI bot', app.clientId, REDIRECT, 'http://127.0.0.1:8765/cb', 'user:all', '2023-11-14 22:13 UTC', 'root']) {
      expect(text).toContain(expected);
    }
  });
});

describe('POST /site-admin/oauth-apps', () => {
  it('should register the app and answer 201 with its client ID and the client secret shown once (§2.4)', async () => {
    const { kit, page, app, secret, admin } = await registered();
    expect(page.status).toBe(201);
    expect(app).toMatchObject({ name: 'CI bot', redirectUris: [REDIRECT, 'http://127.0.0.1:8765/cb'], scopes: ['user:all'], ownerUserId: admin.id });
    expect(secret).not.toBeNull();
    expect(visibleText(page)).toContain(app.clientId);
    expect(visibleText(page)).toContain('Copy its client secret now: it is not shown again.');
    expect(textOf(page)).toContain('class="notice info"');
    // only the digest is stored, and it is the secret's
    expect(app.clientSecretHash).toBe(digestOf(secret ?? ''));
    expect(JSON.stringify(await kit.store.oauth.listApps())).not.toContain(secret);
    const audits = await kit.auditEntries();
    expect(audits.map((e) => [e.entity, e.action, e.actorUserId, e.details])).toStrictEqual([
      ['oauth.app', 'registered', admin.id, { clientId: app.clientId, name: 'CI bot' }],
    ]);
    expect(JSON.stringify(audits)).not.toContain(secret);
  });

  it('should give a secret that authenticates the app at the OAuth server', async () => {
    const { idp, app, secret } = await registered();
    expect((await idp.handlers.revoke(revocationRequest(app.clientId, secret ?? ''))).status).toBe(200);
    expect((await idp.handlers.revoke(revocationRequest(app.clientId, `${secret ?? ''}x`))).status).toBe(401);
  });

  it('should not show the secret again on the app page', async () => {
    const { routes, browser, app, secret } = await registered();
    const page = await callRoute(routes, browser.get(`/site-admin/oauth-apps/app?clientId=${encodeURIComponent(app.clientId)}`));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain(app.clientId);
    expect(textOf(page)).not.toContain(secret);
    expect(shownSecret(page)).toBeNull();
  });

  it.each([
    ['an http redirect URI to another host', 'CI', 'http://ci.example.com/cb', 'Redirect URI 1 is not usable'],
    ['a relative redirect URI', 'CI', '/callback', 'Redirect URI 1 is not usable'],
    ['no redirect URI', 'CI', '  \n ', 'At least one redirect URI is required.'],
    ['a redirect URI listed twice', 'CI', `${REDIRECT}\n${REDIRECT}`, 'Redirect URI 2 is listed twice.'],
    ['an empty name', '   ', REDIRECT, 'The name must be 1 to 100 printable characters.'],
    ['a name of 101 characters', 'n'.repeat(101), REDIRECT, 'The name must be 1 to 100 printable characters.'],
  ])('should refuse %s with 400, store nothing and show the form again as typed', async (_case, name, redirectUris, message) => {
    const s = await siteAdminKit();
    const page = await callRoute(s.routes, (await s.kit.browser(s.admin)).post('/site-admin/oauth-apps', { name, redirectUris }));
    expect(page.status).toBe(400);
    expect(visibleText(page)).toContain(message);
    expect(textOf(page)).toContain('role="alert"');
    expect(await s.kit.store.oauth.listApps()).toStrictEqual([]);
    expect(await s.kit.auditEntries()).toStrictEqual([]);
    const html = textOf(page);
    expect(html).toContain(`value="${name.replaceAll('"', '&quot;')}"`);
    expect(html).toMatch(/<textarea[^>]*>[\s\S]*<\/textarea>/);
  });

  it('should render a hostile app name as text', async () => {
    const { routes, browser, page } = await registered('<script>alert("x")</script> & \u00e9\u{1F600}');
    const list = await callRoute(routes, browser.get('/site-admin/oauth-apps'));
    for (const answer of [page, list]) {
      expect(textOf(answer)).not.toContain('<script>alert');
      expect(visibleText(answer)).toContain('<script>alert("x")</script> & \u00e9\u{1F600}');
    }
  });

  it('should refuse a cross-site registration and store nothing', async () => {
    const s = await siteAdminKit();
    const browser = await s.kit.browser(s.admin);
    const answer = await callRoute(s.routes, browser.post('/site-admin/oauth-apps', { name: 'CI', redirectUris: REDIRECT, [CSRF_FIELD]: 'x' }));
    expect(answer.status).toBe(403);
    expect(await s.kit.store.oauth.listApps()).toStrictEqual([]);
  });
});

describe('POST /site-admin/oauth-apps/rotate', () => {
  it('should show a new secret once; the old one stops working at once and the new one works', async () => {
    const { kit, idp, routes, browser, app, secret, admin } = await registered();
    const page = await callRoute(routes, browser.post('/site-admin/oauth-apps/rotate', { clientId: app.clientId }));
    const rotated = shownSecret(page);
    expect(page.status).toBe(200);
    expect(rotated).not.toBeNull();
    expect(rotated).not.toBe(secret);
    expect(visibleText(page)).toContain('the old one no longer works');
    const stored = await kit.store.oauth.findApp(app.clientId);
    expect(stored?.clientSecretHash).toBe(digestOf(rotated ?? ''));
    expect(stored?.clientSecretHash).not.toBe(digestOf(secret ?? ''));
    expect((await idp.handlers.revoke(revocationRequest(app.clientId, secret ?? ''))).status).toBe(401);
    expect((await idp.handlers.revoke(revocationRequest(app.clientId, rotated ?? ''))).status).toBe(200);
    const last = (await kit.auditEntries()).at(-1);
    expect([last?.entity, last?.action, last?.actorUserId, last?.details]).toStrictEqual([
      'oauth.app',
      'secret_rotated',
      admin.id,
      { clientId: app.clientId, name: 'CI bot' },
    ]);
  });

  it('should answer 404 for an unknown client ID and change nothing', async () => {
    const { kit, routes, browser, app } = await registered();
    const before = await kit.auditEntries();
    const page = await callRoute(routes, browser.post('/site-admin/oauth-apps/rotate', { clientId: 'gai_unknown' }));
    expect(page.status).toBe(404);
    expect(visibleText(page)).toContain('No OAuth app has this client ID.');
    expect(await kit.store.oauth.findApp(app.clientId)).toStrictEqual(app);
    expect(await kit.auditEntries()).toStrictEqual(before);
  });

  it('should have a Rotate secret button posting the hidden client ID on the app page', async () => {
    const { routes, browser, app } = await registered();
    const html = textOf(await callRoute(routes, browser.get(`/site-admin/oauth-apps/app?clientId=${encodeURIComponent(app.clientId)}`)));
    expect(html).toMatch(/<form method="post" action="\/site-admin\/oauth-apps\/rotate"[^>]*>[\s\S]*?name="clientId" value="[^"]+"[\s\S]*?>Rotate secret<\/button>/);
  });
});

describe('/site-admin/oauth-apps/delete', () => {
  it('should ask for confirmation without changing anything', async () => {
    const { kit, routes, browser, app } = await registered();
    const page = await callRoute(routes, browser.get(`/site-admin/oauth-apps/delete?clientId=${encodeURIComponent(app.clientId)}`));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('Delete CI bot? Its tokens stop working at once.');
    expect(textOf(page)).toMatch(/<form method="post" action="\/site-admin\/oauth-apps\/delete"/);
    expect(await kit.store.oauth.findApp(app.clientId)).not.toBeNull();
  });

  it('should delete the app on the confirmed post, audit it, and come back to the list with a notice', async () => {
    const { kit, idp, routes, browser, app, secret, admin } = await registered();
    const answer = await callRoute(routes, browser.post('/site-admin/oauth-apps/delete', { clientId: app.clientId }));
    expect(answer.status).toBe(303);
    expect(answer.headers['location']).toBe('/site-admin/oauth-apps?done=deleted');
    expect(await kit.store.oauth.findApp(app.clientId)).toBeNull();
    expect((await idp.handlers.revoke(revocationRequest(app.clientId, secret ?? ''))).status).toBe(401);
    const last = (await kit.auditEntries()).at(-1);
    expect([last?.entity, last?.action, last?.actorUserId, last?.details]).toStrictEqual(['oauth.app', 'deleted', admin.id, { clientId: app.clientId, name: 'CI bot' }]);
    const list = await callRoute(routes, browser.get('/site-admin/oauth-apps?done=deleted'));
    expect(visibleText(list)).toContain('The app was deleted; its tokens no longer work.');
    expect(visibleText(list)).toContain('No OAuth apps are registered.');
  });

  it('should answer 404 for an unknown app on both the page and the post', async () => {
    const { kit, routes, browser, app } = await registered();
    expect((await callRoute(routes, browser.get('/site-admin/oauth-apps/delete?clientId=nope'))).status).toBe(404);
    expect((await callRoute(routes, browser.get('/site-admin/oauth-apps/app'))).status).toBe(404);
    expect((await callRoute(routes, browser.post('/site-admin/oauth-apps/delete', { clientId: 'nope' }))).status).toBe(404);
    expect(await kit.store.oauth.findApp(app.clientId)).toStrictEqual(app);
  });
});

describe('OAuthIdp.rotateSecret', () => {
  it('should refuse an unknown client ID', async () => {
    const { idp } = await siteAdminKit();
    const rotated = await idp.rotateSecret('gai_unknown');
    expect(rotated.isErr() && rotated.error.code).toBe('unknown_oauth_app');
  });

  it('should store the digest of the secret it returns', async () => {
    const { idp, kit, app } = await registered();
    const rotated = (await idp.rotateSecret(app.clientId))._unsafeUnwrap();
    expect((await kit.store.oauth.findApp(app.clientId))?.clientSecretHash).toBe(digestOf(rotated.clientSecret));
  });
});
