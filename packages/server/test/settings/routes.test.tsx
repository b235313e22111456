/**
 * The settings area as a whole: every page renders for a signed-in account with the settings sidebar, sends a
 * signed-out visitor to sign in, and refuses a signed-out or cross-site form post.
 */
import { describe, expect, it } from 'vitest';
import { settingsRoutes } from '../../src/settings/routes.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

const PAGES = ['/settings', '/settings/password', '/settings/tokens', '/settings/sessions'] as const;
const FORMS = ['/settings', '/settings/password', '/settings/tokens', '/settings/tokens/delete', '/settings/sessions/revoke', '/settings/sessions/revoke-others'] as const;

describe('the settings routes', () => {
  it.each(PAGES)('renders %s for a signed-in account, with its sidebar entry current', async (path) => {
    const kit = await pageKit();
    const alice = await kit.createUser('alice', { password: 'correct horse' });
    const page = await callRoute(settingsRoutes(kit.deps), (await kit.browser(alice)).get(path));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(textOf(page)).toContain(`<a href="${path}" aria-current="page">`);
    expect(textOf(page)).toContain('<a href="/debug/console">Debug console</a>');
    expect(visibleText(page)).toContain('Signed in as alice');
  });

  it.each(PAGES)('sends a signed-out visitor of %s to sign in', async (path) => {
    const kit = await pageKit();
    const page = await callRoute(settingsRoutes(kit.deps), (await kit.browser(null)).get(path));
    expect(page.status).toBe(303);
    expect(page.headers['location']).toBe(`/.auth/sign-in?returnTo=${encodeURIComponent(path)}`);
  });

  it.each(FORMS)('refuses a signed-out post (401) and a cross-site post (403) to %s', async (path) => {
    const kit = await pageKit();
    const alice = await kit.createUser('alice', { password: 'correct horse' });
    const routes = settingsRoutes(kit.deps);
    expect((await callRoute(routes, (await kit.browser(null)).post(path, {}))).status).toBe(401);
    const cross = await callRoute(routes, (await kit.browser(alice)).post(path, { username: 'mallory' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }));
    expect(cross.status).toBe(403);
    expect((await kit.store.accounts.get(alice.id))?.username).toBe('alice');
    expect(await kit.auditEntries()).toEqual([]);
  });
});
