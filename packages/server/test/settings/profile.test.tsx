/**
 * The profile page: the username form (§5.5 rule 7: a username chosen directly that breaks the rules is
 * rejected; usernames are unique) and the email addresses with their verified state.
 */
import { describe, expect, it } from 'vitest';
import { usernameKey } from '../../../../src/core/store-keys.js';
import { settingsRoutes } from '../../src/settings/routes.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

/** The kit's configuration with auth.enableUsernameChanges on (off by default). */
const RENAMES = JSON.stringify({ 'auth.providers': [{ type: 'builtin', allowSignup: true }], 'auth.enableUsernameChanges': true });

async function setup() {
  const kit = await pageKit({ configuration: RENAMES });
  const alice = await kit.createUser('alice', { email: 'alice@example.com' });
  const routes = settingsRoutes(kit.deps);
  const browser = await kit.browser(alice);
  return { kit, alice, routes, browser };
}

describe('the profile page', () => {
  it('shows the username in its form and each email with its verified state', async () => {
    const { kit, routes, browser } = await setup();
    await kit.store.accounts.create({
      usernames: ['bob'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, passwordHash: null, createdAt: kit.clock.now(),
      emails: [{ email: 'bob@example.com', verified: true }, { email: 'bob@old.example', verified: false }],
    });
    const page = await callRoute(routes, browser.get('/settings'));
    expect(page.status).toBe(200);
    expect(textOf(page)).toMatch(/<input id="username" name="username" type="text"[^>]* value="alice"\/>/);
    expect(visibleText(page)).toContain('alice@example.com Unverified');
    const bob = await kit.store.accounts.findByUsernameKey('bob');
    const bobPage = await callRoute(routes, (await kit.browser(bob)).get('/settings'));
    expect(visibleText(bobPage)).toContain('bob@example.com Verified');
    expect(visibleText(bobPage)).toContain('bob@old.example Unverified');
  });

  it('says "No email address" when the account has none', async () => {
    const kit = await pageKit();
    const carol = await kit.createUser('carol');
    const page = await callRoute(settingsRoutes(kit.deps), (await kit.browser(carol)).get('/settings'));
    expect(visibleText(page)).toContain('No email address');
  });

  it('changes the username, audits it, and says so after the redirect', async () => {
    const { kit, alice, routes, browser } = await setup();
    const done = await callRoute(routes, browser.post('/settings', { username: 'alice.smith' }));
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/settings?done=username');
    expect((await kit.store.accounts.get(alice.id))?.username).toBe('alice.smith');
    expect((await kit.store.accounts.findByUsernameKey(usernameKey('alice.smith')))?.id).toBe(alice.id);
    const entries = await kit.auditEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity: 'user', action: 'username_changed', actorUserId: alice.id, subjectUserId: alice.id, details: { from: 'alice', to: 'alice.smith' } });
    const page = await callRoute(routes, browser.get('/settings?done=username'));
    expect(visibleText(page)).toContain('Your username was changed.');
    expect(visibleText(page)).toContain('Signed in as alice.smith');
  });

  it('changes only the letter case of a username (the same key stays with the account)', async () => {
    const { kit, alice, routes, browser } = await setup();
    expect((await callRoute(routes, browser.post('/settings', { username: 'Alice' }))).status).toBe(303);
    expect((await kit.store.accounts.get(alice.id))?.username).toBe('Alice');
  });

  it('changes nothing and audits nothing when the name is the same', async () => {
    const { kit, routes, browser } = await setup();
    const done = await callRoute(routes, browser.post('/settings', { username: 'alice' }));
    expect(done.headers['location']).toBe('/settings?done=unchanged');
    expect(await kit.auditEntries()).toEqual([]);
  });

  // A few of the core's rule 7 cases (test/core/username.test.ts), each with the message a person reads.
  it.each([
    ['', 'Enter a username.'],
    ['alice@example.com', 'cannot contain "@"'],
    ['a b', 'only letters'],
    ['josé', 'only letters'],
    ['.a', 'cannot start with'],
    ['-a', 'cannot start with'],
    ['a..b', 'twice in a row'],
    ['a-.b', 'twice in a row'],
    ['a.', 'cannot end with "."'],
    ['a'.repeat(256), 'at most 255 characters'],
    ['<script>x</script>', 'only letters'],
  ])('refuses the username %j (§5.5 rule 7), shows why and what was typed, and changes nothing', async (name, message) => {
    const { kit, alice, routes, browser } = await setup();
    const answer = await callRoute(routes, browser.post('/settings', { username: name }));
    expect(answer.status).toBe(400);
    expect(visibleText(answer)).toContain(message);
    expect(textOf(answer)).toContain('role="alert"');
    expect(textOf(answer)).not.toContain('<script>x');
    if (name !== '') expect(textOf(answer)).toContain(`value="${name.replaceAll('<', '&lt;').replaceAll('>', '&gt;')}"`);
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('refuses a username another account holds (by its key), and changes nothing', async () => {
    const { kit, alice, routes, browser } = await setup();
    await kit.createUser('Bob');
    const answer = await callRoute(routes, browser.post('/settings', { username: 'bob' }));
    expect(answer.status).toBe(409);
    expect(visibleText(answer)).toContain('That username is taken.');
    expect(textOf(answer)).toContain('value="bob"');
    expect(await kit.store.accounts.get(alice.id)).toEqual(alice);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('never lets an account a site administrator created rename itself (§5.3 hosta rule 2, §5.4 rule 5: a provider username finds it)', async () => {
    const kit = await pageKit({ configuration: RENAMES });
    const created = await kit.store.accounts.create({ usernames: ['mallory'], origin: 'admin_created', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 });
    const mallory = created._unsafeUnwrap();
    const routes = settingsRoutes(kit.deps);
    const browser = await kit.browser(mallory);
    const page = await callRoute(routes, browser.get('/settings'));
    expect(textOf(page)).not.toContain('Change username');
    expect(visibleText(page)).toContain('A site administrator created this account');
    const answer = await callRoute(routes, browser.post('/settings', { username: 'bob' }));
    expect(answer.status).toBe(403);
    expect(visibleText(answer)).toContain('cannot be changed here');
    expect(await kit.store.accounts.get(mallory.id)).toEqual(mallory);
    expect(await kit.store.accounts.findByUsernameKey('bob')).toBeNull();
    expect(await kit.auditEntries()).toEqual([]);
  });

  describe('auth.enableUsernameChanges (default false; §5.3 http-header rule 3: mutable usernames let a user elevate privileges)', () => {
    it('refuses a member\'s rename by default: no form, a 403 that says why, nothing changed or audited', async () => {
      const kit = await pageKit();
      const bob = await kit.createUser('bob');
      const routes = settingsRoutes(kit.deps);
      const browser = await kit.browser(bob);
      const page = await callRoute(routes, browser.get('/settings'));
      expect(textOf(page)).not.toContain('Change username');
      expect(visibleText(page)).toContain('auth.enableUsernameChanges is off');
      const answer = await callRoute(routes, browser.post('/settings', { username: 'robert' }));
      expect(answer.status).toBe(403);
      expect(visibleText(answer)).toContain('Usernames cannot be changed on this site');
      expect(await kit.store.accounts.get(bob.id)).toEqual(bob);
      expect(await kit.auditEntries()).toEqual([]);
    });

    it('lets a site administrator rename themselves with the option off', async () => {
      const kit = await pageKit();
      const admin = await kit.createUser('root', { siteAdmin: true });
      const answer = await callRoute(settingsRoutes(kit.deps), (await kit.browser(admin)).post('/settings', { username: 'rooted' }));
      expect(answer.status).toBe(303);
      expect((await kit.store.accounts.get(admin.id))?.username).toBe('rooted');
    });
  });
});
