/**
 * The "Preview a change" page and its form as functions: site administrators only, a form post from this site
 * only, the problems of an invalid candidate with their paths, who would lose sign-in for a valid one, and nothing
 * applied.
 */
import { describe, expect, it } from 'vitest';
import { previewConfiguration } from '../../src/operations/configuration-preview.js';
import { configurationPreviewRoutes, CONFIGURATION_PREVIEW_PATH } from '../../src/site-admin/configuration-preview.js';
import { callRoute, visibleText } from '../helpers/page-kit.js';
import { siteAdminKit } from './site-admin-kit.js';

const config = (orgs: readonly string[]): string =>
  JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }, { type: 'hosta', clientID: 'id', clientSecret: 's', allowOrgs: orgs }] });

async function setUp() {
  const s = await siteAdminKit({ configuration: config(['acme', 'globex']) });
  const store = s.kit.store;
  const bob = (
    await store.accounts.create({
      usernames: ['bob'], origin: 'provider_signup', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1,
      externalAccount: { serviceType: 'hosta', serviceId: '', accountId: '7', createdAt: 1 },
    })
  )._unsafeUnwrap();
  (await store.accounts.recordIdentityFacts({ serviceType: 'hosta', serviceId: '', accountId: '7' }, { username: 'bob-gh', emails: [], orgs: ['globex'] }, 2))._unsafeUnwrap();
  const routes = configurationPreviewRoutes({ ...s.deps, previewConfiguration: (text) => previewConfiguration(store, s.deps.configuration, text) });
  return { s, routes, bob };
}

describe('Site admin → Site configuration → Preview a change', () => {
  it('should be for site administrators only', async () => {
    const { s, routes } = await setUp();
    const member = await s.kit.browser(s.member);
    expect((await callRoute(routes, member.get(CONFIGURATION_PREVIEW_PATH))).status).toBe(403);
    expect((await callRoute(routes, member.post(CONFIGURATION_PREVIEW_PATH, { configuration: config(['acme']) }))).status).toBe(403);
  });

  it('should show the form, then who would lose sign-in, and apply nothing', async () => {
    const { s, routes } = await setUp();
    const admin = await s.kit.browser(s.admin);
    expect(visibleText(await callRoute(routes, admin.get(CONFIGURATION_PREVIEW_PATH)))).toContain('Site configuration (JSONC)');
    const answer = await callRoute(routes, admin.post(CONFIGURATION_PREVIEW_PATH, { configuration: config(['acme']) }));
    expect(answer.status).toBe(200);
    const text = visibleText(answer);
    expect(text).toContain('Who would lose sign-in (1)');
    expect(text).toContain('bob-gh');
    expect(text).toContain('not_in_allowed_orgs_or_teams');
    expect(text).toContain('Preview only: nothing was applied.');
    expect(s.deps.configuration.authProviders[1]).toMatchObject({ allowOrgs: ['acme', 'globex'] });
    expect(await s.kit.auditEntries()).toStrictEqual([]);
  });

  it('should list the problems of an invalid candidate with their paths', async () => {
    const { s, routes } = await setUp();
    const admin = await s.kit.browser(s.admin);
    const text = visibleText(await callRoute(routes, admin.post(CONFIGURATION_PREVIEW_PATH, { configuration: '{ "auth.providers": [{ "type": "hostz" }] }' })));
    expect(text).toContain('Problems (1)');
    expect(text).toContain('auth.providers[0].type');
  });

  it('should refuse a post that did not come from this site', async () => {
    const { s, routes } = await setUp();
    const admin = await s.kit.browser(s.admin);
    const forged = admin.post(CONFIGURATION_PREVIEW_PATH, { configuration: config(['acme']), _csrf: 'forged' });
    expect((await callRoute(routes, forged)).status).toBe(403);
  });
});
