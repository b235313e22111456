/**
 * Who may use the OAuth app, audit log and configuration pages: site administrators only. A member gets 403 on
 * every page and form, a signed-out visitor is sent to sign in (pages) or gets 401 (forms), and nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { callRoute, visibleText } from '../helpers/page-kit.js';
import type { KitBrowser } from '../helpers/page-kit.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { siteAdminKit } from './site-admin-kit.js';

/** Every page and form of these pages, aimed at a real app. */
function requests(browser: KitBrowser, clientId: string): readonly (readonly [string, RouteRequest])[] {
  const id = encodeURIComponent(clientId);
  return [
    ['GET /site-admin/oauth-apps', browser.get('/site-admin/oauth-apps')],
    ['POST /site-admin/oauth-apps', browser.post('/site-admin/oauth-apps', { name: 'Evil', redirectUris: 'https://evil.example/cb' })],
    ['GET /site-admin/oauth-apps/app', browser.get(`/site-admin/oauth-apps/app?clientId=${id}`)],
    ['POST /site-admin/oauth-apps/rotate', browser.post('/site-admin/oauth-apps/rotate', { clientId })],
    ['GET /site-admin/oauth-apps/delete', browser.get(`/site-admin/oauth-apps/delete?clientId=${id}`)],
    ['POST /site-admin/oauth-apps/delete', browser.post('/site-admin/oauth-apps/delete', { clientId })],
    ['GET /site-admin/audit-log', browser.get('/site-admin/audit-log')],
    ['GET /site-admin/configuration', browser.get('/site-admin/configuration')],
  ];
}

async function withApp() {
  const s = await siteAdminKit();
  const app = (await s.idp.registerApp({ name: 'CI', redirectUris: ['https://ci.example.com/cb'], scopes: ['user:all'], ownerUserId: s.admin.id }))._unsafeUnwrap();
  await s.deps.audit({ entity: 'user', action: 'created', reason: null, actorUserId: s.admin.id, subjectUserId: null, details: {} }, s.kit.store);
  const state = async () => ({ apps: await s.kit.store.oauth.listApps(), audit: await s.kit.auditEntries() });
  return { ...s, clientId: app.clientId, state, before: await state() };
}

describe('site administration pages: OAuth apps, audit log, configuration', () => {
  it('should refuse a member with 403 on every page and form, and change nothing', async () => {
    const s = await withApp();
    const member = await s.kit.browser(s.member);
    for (const [name, request] of requests(member, s.clientId)) {
      const answer = await callRoute(s.routes, request);
      expect([name, answer.status]).toStrictEqual([name, 403]);
      expect(visibleText(answer)).toContain('Only site administrators may open this page.');
      expect(visibleText(answer)).not.toContain(s.clientId);
    }
    expect(await s.state()).toStrictEqual(s.before);
  });

  it('should send a signed-out visitor to sign in, refuse their posts with 401, and change nothing', async () => {
    const s = await withApp();
    const out = await s.kit.browser(null);
    for (const [name, request] of requests(out, s.clientId)) {
      const answer = await callRoute(s.routes, request);
      expect([name, answer.status]).toStrictEqual([name, request.method === 'GET' ? 303 : 401]);
    }
    expect(await s.state()).toStrictEqual(s.before);
  });

  it('should answer every page for a site administrator', async () => {
    const s = await withApp();
    const admin = await s.kit.browser(s.admin);
    for (const [name, request] of requests(admin, s.clientId).filter(([, r]) => r.method === 'GET')) {
      expect([name, (await callRoute(s.routes, request)).status]).toStrictEqual([name, 200]);
    }
  });
});
