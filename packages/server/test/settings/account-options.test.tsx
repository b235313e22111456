/**
 * The account site options on the settings pages, handlers called as functions: the token form follows
 * `auth.accessTokens` (the expiries offered, who may create, the per-account limit), a `site-admin:sudo` token and a
 * first password need a recent sign-in or the current password (re-authentication), and the Password page
 * applies `auth.minPasswordLength` and `auth.passwordPolicy`.
 */
import { describe, expect, it } from 'vitest';
import { settingsRoutes } from '../../src/settings/routes.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const BUILTIN = [{ type: 'builtin', allowSignup: true }];
const config = (extra: object): string => JSON.stringify({ 'auth.providers': BUILTIN, ...extra });

async function setup(extra: object = {}) {
  const kit = await pageKit({ configuration: config(extra) });
  const alice = await kit.createUser('alice', { password: 'alice password 1' });
  const root = await kit.createUser('root', { siteAdmin: true, password: 'root password 1' });
  const routes = settingsRoutes(kit.deps);
  return { kit, alice, root, routes };
}

const tokenCount = async (kit: Awaited<ReturnType<typeof pageKit>>, userId: string): Promise<number> => (await kit.store.accessTokens.list(userId)).length;

describe('the token form follows auth.accessTokens', () => {
  it('offers exactly expirationOptionDays, "Never" only with allowNoExpiration, defaultExpirationDays selected', async () => {
    const { routes, kit, alice } = await setup({ 'auth.accessTokens': { expirationOptionDays: [1, 45], defaultExpirationDays: 1, allowNoExpiration: false } });
    const html = textOf(await callRoute(routes, (await kit.browser(alice)).get('/settings/tokens')));
    const options = [...html.matchAll(/<option value="([^"]+)"( selected="")?>/g)].map((m) => `${m[1] ?? ''}${m[2] === undefined ? '' : '*'}`);
    expect(options).toStrictEqual(['1*', '45']);
  });

  it('refuses an expiry the options do not offer (a hand-made post), and "never" when allowNoExpiration is false', async () => {
    const { routes, kit, alice } = await setup({ 'auth.accessTokens': { expirationOptionDays: [1, 45], defaultExpirationDays: 1, allowNoExpiration: false } });
    const browser = await kit.browser(alice);
    for (const expires of ['90', 'never']) {
      const answer = await callRoute(routes, browser.post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires }));
      expect(answer.status).toBe(400);
      expect(visibleText(answer)).toContain('Choose when the token expires.');
    }
    const made = await callRoute(routes, browser.post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires: '45' }));
    expect(made.status).toBe(201);
    const [token] = await kit.store.accessTokens.list(alice.id);
    expect(token?.expiresAt).toBe(kit.clock.now() + 45 * DAY);
  });

  it('allow "none": no form, and a post is refused with the reason, nothing created', async () => {
    const { routes, kit, root } = await setup({ 'auth.accessTokens': { allow: 'none' } });
    const browser = await kit.browser(root);
    const page = await callRoute(routes, browser.get('/settings/tokens'));
    expect(textOf(page)).not.toContain('Create token');
    expect(visibleText(page)).toContain('Access tokens are turned off on this site.');
    const answer = await callRoute(routes, browser.post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires: '7' }));
    expect(answer.status).toBe(403);
    expect(visibleText(answer)).toContain('auth.accessTokens.allow is "none"');
    expect(await tokenCount(kit, root.id)).toBe(0);
  });

  it('allow "site-admin-create": a member gets no form and is refused; a site administrator creates', async () => {
    const { routes, kit, alice, root } = await setup({ 'auth.accessTokens': { allow: 'site-admin-create' } });
    const member = await kit.browser(alice);
    expect(visibleText(await callRoute(routes, member.get('/settings/tokens')))).toContain('Only site administrators may create access tokens on this site.');
    const refused = await callRoute(routes, member.post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires: '7' }));
    expect(refused.status).toBe(403);
    expect(await tokenCount(kit, alice.id)).toBe(0);
    const made = await callRoute(routes, (await kit.browser(root)).post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires: '7' }));
    expect(made.status).toBe(201);
  });

  it('maxTokensPerUser: the third token of two allowed is refused (409) with the limit', async () => {
    const { routes, kit, alice } = await setup({ 'auth.accessTokens': { maxTokensPerUser: 2 } });
    const browser = await kit.browser(alice);
    for (const note of ['one', 'two']) expect((await callRoute(routes, browser.post('/settings/tokens', { note, scopes: 'user:all', expires: '7' }))).status).toBe(201);
    const third = await callRoute(routes, browser.post('/settings/tokens', { note: 'three', scopes: 'user:all', expires: '7' }));
    expect(third.status).toBe(409);
    expect(visibleText(third)).toContain('already holds 2 access tokens');
    expect(await tokenCount(kit, alice.id)).toBe(2);
  });
});

describe('re-authentication for a site-admin:sudo token', () => {
  const sudo = (extra: Record<string, string> = {}) => ({ note: 'sudo', scopes: ['user:all', 'site-admin:sudo'], expires: '7', ...extra });

  it('a recent sign-in creates it without a password, and the form asks for none', async () => {
    const { routes, kit, root } = await setup();
    const browser = await kit.browser(root);
    expect(textOf(await callRoute(routes, browser.get('/settings/tokens')))).not.toContain('token-current-password');
    kit.clock.advance(9 * MIN);
    expect((await callRoute(routes, browser.post('/settings/tokens', sudo()))).status).toBe(201);
  });

  it('after 10 minutes: the form asks for the password; none or a wrong one is refused and audited; the right one creates it', async () => {
    const { routes, kit, root } = await setup();
    const browser = await kit.browser(root);
    kit.clock.advance(10 * MIN);
    const page = await callRoute(routes, browser.get('/settings/tokens'));
    expect(textOf(page)).toContain('id="token-current-password"');
    const none = await callRoute(routes, browser.post('/settings/tokens', sudo()));
    expect(none.status).toBe(403);
    expect(visibleText(none)).toContain('enter your current password');
    const wrong = await callRoute(routes, browser.post('/settings/tokens', sudo({ current: 'not it at all' })));
    expect(wrong.status).toBe(403);
    expect(visibleText(wrong)).toContain('Your current password is not correct.');
    expect(await tokenCount(kit, root.id)).toBe(0);
    const failures = (await kit.auditEntries()).filter((e) => e.entity === 'user.reauthentication');
    expect(failures.map((e) => [e.action, e.reason, e.details['change']])).toStrictEqual([
      ['failed', 'password_required', 'sudo_token'],
      ['failed', 'wrong_password', 'sudo_token'],
    ]);
    const right = await callRoute(routes, browser.post('/settings/tokens', sudo({ current: 'root password 1' })));
    expect(right.status).toBe(201);
    expect((await kit.store.accessTokens.list(root.id))[0]?.scopes).toStrictEqual(['user:all', 'site-admin:sudo']);
  });

  it('a token without site-admin:sudo needs no re-authentication', async () => {
    const { routes, kit, root } = await setup();
    const browser = await kit.browser(root);
    kit.clock.advance(60 * MIN);
    expect((await callRoute(routes, browser.post('/settings/tokens', { note: 'plain', scopes: 'user:all', expires: '7' }))).status).toBe(201);
  });
});

describe('the Password page', () => {
  it('applies auth.minPasswordLength and auth.passwordPolicy, and says the rule under the field', async () => {
    const { routes, kit, alice } = await setup({ 'auth.minPasswordLength': 14, 'auth.passwordPolicy': { enabled: true } });
    const browser = await kit.browser(alice);
    const page = await callRoute(routes, browser.get('/settings/password'));
    expect(visibleText(page)).toContain('At least 14 characters, with 2 special characters (such as ! or #), a number, and upper and lower case letters.');
    const change = (password: string) => browser.post('/settings/password', { current: 'alice password 1', password, confirm: password });
    const short = await callRoute(routes, change('Ab1!#short'));
    expect([short.status, visibleText(short).includes('at least 14 characters')]).toStrictEqual([400, true]);
    const plain = await callRoute(routes, change('abcdefghijklmnop'));
    expect([plain.status, visibleText(plain).includes('at least 2 special characters')]).toStrictEqual([400, true]);
    const before = (await kit.store.accounts.get(alice.id))?.passwordHash;
    expect(before).not.toBeNull();
    const good = await callRoute(routes, change('Longer Pass 1!#'));
    expect(good.status).toBe(303);
    expect((await kit.store.accounts.get(alice.id))?.passwordHash).not.toBe(before);
  });

  it('a first password needs a recent sign-in: refused after 10 minutes (nothing set), set within them', async () => {
    const kit = await pageKit({ configuration: config({}) });
    const nopass = await kit.createUser('nopass');
    const routes = settingsRoutes(kit.deps);
    const browser = await kit.browser(nopass);
    const set = () => browser.post('/settings/password', { password: 'first password 1', confirm: 'first password 1' });
    expect(textOf(await callRoute(routes, browser.get('/settings/password')))).not.toContain('password-reauthenticate');
    kit.clock.advance(11 * MIN);
    expect(visibleText(await callRoute(routes, browser.get('/settings/password')))).toContain('a first password needs a recent sign-in');
    const refused = await callRoute(routes, set());
    expect(refused.status).toBe(403);
    expect(visibleText(refused)).toContain('sign out and sign in again');
    expect((await kit.store.accounts.get(nopass.id))?.passwordHash).toBeNull();
    const fresh = await kit.browser(nopass);
    const done = await callRoute(routes, fresh.post('/settings/password', { password: 'first password 1', confirm: 'first password 1' }));
    expect(done.status).toBe(303);
    expect((await kit.store.accounts.get(nopass.id))?.passwordHash).not.toBeNull();
  });
});
