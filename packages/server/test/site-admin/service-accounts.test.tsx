/**
 * Site administration, Service accounts (`site-admin/service-accounts.tsx`) as functions: creating service
 * accounts (spec §1), and creating and deleting their access tokens (§2.3).
 */
import { err } from 'neverthrow';
import { describe, expect, test } from 'vitest';
import { hashAccessToken } from '../../../../src/core/access-token.js';
import { sha256 } from '../../src/kernel/digest.js';
import { siteAdminRoutes } from '../../src/site-admin/routes.js';
import type { RouteRequest, RouteResponse } from '../../src/kernel/route.js';
import type { UserRecord } from '../../src/store/types.js';
import { callRoute, KIT_START, pageKit, textOf, visibleText } from '../helpers/page-kit.js';
import type { KitBrowser, PageKit } from '../helpers/page-kit.js';

const DAY = 24 * 60 * 60 * 1000;

async function setup() {
  const kit = await pageKit();
  const routes = siteAdminRoutes({ ...kit.deps, registerOAuthApp: async () => err({ code: 'unused', message: 'unused' }), rotateOAuthAppSecret: async () => err({ code: 'unused', message: 'unused' }) });
  const root = await kit.createUser('root', { siteAdmin: true });
  const alice = await kit.createUser('alice');
  const created = await kit.store.accounts.create({
    usernames: ['ci-bot'], origin: 'service_account', siteAdmin: false, serviceAccount: true, emails: [], passwordHash: null, createdAt: KIT_START,
  });
  const bot = created._unsafeUnwrap();
  const browsers = new Map<string, KitBrowser>();
  const browserOf = async (user: UserRecord): Promise<KitBrowser> => {
    const made = browsers.get(user.id) ?? (await kit.browser(user));
    browsers.set(user.id, made);
    return made;
  };
  const call = async (user: UserRecord, build: (b: KitBrowser) => RouteRequest): Promise<RouteResponse> => callRoute(routes, build(await browserOf(user)));
  await browserOf(root);
  await browserOf(alice);
  return { kit, root, alice, bot, call };
}

async function snapshot(kit: PageKit) {
  const accounts = await kit.store.accounts.list({ first: 1000 });
  const tokens = await Promise.all(accounts.map((a) => kit.store.accessTokens.list(a.id)));
  return { accounts, tokens, audit: (await kit.auditEntries()).length };
}

const tokenFields = (id: string, extra: Record<string, string | readonly string[]> = {}) => ({ id, note: 'deploy', scopes: ['user:all'], expires: 'never', ...extra });

describe('service accounts pages: who may use them', () => {
  test('a member gets 403 on every page and every form, and nothing changes', async () => {
    const { kit, alice, bot, call } = await setup();
    const token = (await kit.store.accessTokens.create({ userId: bot.id, digest: 'b'.repeat(64), scopes: ['user:all'], note: 'x', createdAt: KIT_START, expiresAt: null }))._unsafeUnwrap();
    const before = await snapshot(kit);
    const gets = ['/site-admin/service-accounts', `/site-admin/service-accounts/tokens?id=${bot.id}`, `/site-admin/service-accounts/tokens/delete?id=${bot.id}&token=${token.id}`];
    const posts: [string, Record<string, string | readonly string[]>][] = [
      ['/site-admin/service-accounts', { username: 'evil-bot' }],
      ['/site-admin/service-accounts/tokens', tokenFields(bot.id)],
      ['/site-admin/service-accounts/tokens/delete', { id: bot.id, token: token.id }],
    ];
    for (const path of gets) expect((await call(alice, (b) => b.get(path))).status, path).toBe(403);
    for (const [path, fields] of posts) expect((await call(alice, (b) => b.post(path, fields))).status, path).toBe(403);
    expect(await snapshot(kit)).toStrictEqual(before);
  });
});

describe('Service accounts page', () => {
  test('lists the service accounts only', async () => {
    const { root, call } = await setup();
    const page = await call(root, (b) => b.get('/site-admin/service-accounts'));
    expect(page.status).toBe(200);
    const text = visibleText(page);
    expect(text).toContain('ci-bot 2023-11-14 22:13 UTC Manage tokens');
    expect(text).not.toContain('alice');
  });

  test('creates a service account, audited like the GraphQL mutation, then shows its tokens page', async () => {
    const { kit, root, call } = await setup();
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts', { username: 'deploy-bot' }));
    const created = (await kit.store.accounts.list({ first: 10, query: 'deploy-bot' }))[0];
    expect(created).toMatchObject({ username: 'deploy-bot', origin: 'service_account', serviceAccount: true, siteAdmin: false, emails: [], passwordHash: null });
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({
      status: 303,
      location: `/site-admin/service-accounts/tokens?id=${created?.id}&done=created`,
    });
    expect(visibleText(await call(root, (b) => b.get(answer.headers['location'] ?? '')))).toContain('The service account deploy-bot was created.');
    expect((await kit.auditEntries()).at(-1)).toMatchObject({ entity: 'user', action: 'created', reason: 'service account', actorUserId: root.id, subjectUserId: created?.id });
    const users = visibleText(await call(root, (b) => b.get('/site-admin/users?q=deploy')));
    expect(users).toContain('deploy-bot none Service account');
  });

  test.each([
    { ref: '§5.5 rule 7', username: 'bad bot', status: 400, text: 'A username may contain only letters, digits' },
    { ref: 'taken', username: 'CI-BOT', status: 409, text: 'The username "CI-BOT" is taken.' },
  ])('refuses a bad username ($ref) and creates nothing', async ({ username, status, text }) => {
    const { kit, root, call } = await setup();
    const before = await snapshot(kit);
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts', { username }));
    expect(answer.status).toBe(status);
    expect(visibleText(answer)).toContain(text);
    expect(/<input id="service-account-username"[^>]*value="([^"]*)"/.exec(textOf(answer))?.[1]).toBe(username);
    expect(await snapshot(kit)).toStrictEqual(before);
  });

  test('says when it searched only the first 10,000 accounts', async () => {
    const { kit, root, call } = await setup();
    for (let i = 0; i < 10_000; i += 1) {
      await kit.store.accounts.create({ usernames: [`u${i}`], origin: 'seeded', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: KIT_START });
    }
    const text = visibleText(await call(root, (b) => b.get('/site-admin/service-accounts')));
    expect(text).toContain('Only the first 10000 accounts were searched for service accounts.');
    expect(text).toContain('ci-bot');
  });
});

describe('service account tokens', () => {
  test('creates a token, shows the secret once (201), stores only its digest, and audits it', async () => {
    const { kit, root, bot, call } = await setup();
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts/tokens', tokenFields(bot.id, { expires: '30' })));
    expect(answer.status).toBe(201);
    const secret = /<code id="token-secret"[^>]*>([^<]+)<\/code>/.exec(textOf(answer))?.[1] ?? '';
    expect(secret).not.toBe('');
    expect(visibleText(answer)).toContain('Copy the new token now: it is shown only this once.');
    const [stored] = await kit.store.accessTokens.list(bot.id);
    expect(stored).toMatchObject({ note: 'deploy', scopes: ['user:all'], expiresAt: KIT_START + 30 * DAY, lastUsedAt: null });
    expect(stored?.digest).toBe(hashAccessToken(secret, sha256)._unsafeUnwrap());
    expect((await kit.auditEntries()).at(-1)).toMatchObject({
      entity: 'auth.accessToken', action: 'created', actorUserId: root.id, subjectUserId: bot.id, details: { tokenId: stored?.id, scopes: 'user:all' },
    });
    const later = await call(root, (b) => b.get(`/site-admin/service-accounts/tokens?id=${bot.id}`));
    expect(textOf(later)).not.toContain(secret);
    expect(visibleText(later)).toContain('deploy user:all 2023-11-14 22:13 UTC never 2023-12-14 22:13 UTC');
  });

  test('shows when a token was last used', async () => {
    const { kit, root, bot, call } = await setup();
    const token = (await kit.store.accessTokens.create({ userId: bot.id, digest: 'c'.repeat(64), scopes: ['user:all'], note: 'ci', createdAt: KIT_START, expiresAt: null }))._unsafeUnwrap();
    await kit.store.accessTokens.touch(token.id, KIT_START + DAY);
    const text = visibleText(await call(root, (b) => b.get(`/site-admin/service-accounts/tokens?id=${bot.id}`)));
    expect(text).toContain('ci user:all 2023-11-14 22:13 UTC 2023-11-15 22:13 UTC never');
  });

  test('creates a site-admin:sudo token for a service account (a site administrator may)', async () => {
    const { kit, root, bot, call } = await setup();
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts/tokens', tokenFields(bot.id, { scopes: ['user:all', 'site-admin:sudo'] })));
    expect(answer.status).toBe(201);
    expect((await kit.store.accessTokens.list(bot.id))[0]?.scopes).toStrictEqual(['user:all', 'site-admin:sudo']);
  });

  test.each([
    { ref: 'every token carries user:all', fields: { scopes: ['site-admin:sudo'] }, status: 400, text: 'Every access token carries the scope "user:all".' },
    { ref: 'no scopes at all', fields: { scopes: [] }, status: 400, text: 'user:all' },
    { ref: 'an unknown scope', fields: { scopes: ['user:all', 'repo'] }, status: 400, text: 'Unknown scope "repo".' },
    { ref: 'an expiry the form does not offer', fields: { expires: '3' }, status: 400, text: 'Choose when the token expires.' },
    { ref: 'an empty note', fields: { note: '  ' }, status: 400, text: 'Enter a note' },
    { ref: 'a note over 200 characters (the pages\' bound)', fields: { note: 'n'.repeat(201) }, status: 400, text: 'The note is too long: at most 200 characters.' },
  ])('refuses $ref and creates nothing', async ({ fields, status, text }) => {
    const { kit, root, bot, call } = await setup();
    const before = await snapshot(kit);
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts/tokens', tokenFields(bot.id, fields)));
    expect(answer.status).toBe(status);
    expect(visibleText(answer)).toContain(text);
    expect(textOf(answer)).not.toContain('id="token-secret"');
    expect(await snapshot(kit)).toStrictEqual(before);
  });

  test('answers 404 for an account that is not a service account, and creates nothing', async () => {
    const { kit, root, alice, call } = await setup();
    const before = await snapshot(kit);
    expect((await call(root, (b) => b.get(`/site-admin/service-accounts/tokens?id=${alice.id}`))).status).toBe(404);
    expect((await call(root, (b) => b.post('/site-admin/service-accounts/tokens', tokenFields(alice.id)))).status).toBe(404);
    expect((await call(root, (b) => b.get('/site-admin/service-accounts/tokens?id=999'))).status).toBe(404);
    expect(await snapshot(kit)).toStrictEqual(before);
  });

  test('deletes a token after a confirmation, audited', async () => {
    const { kit, root, bot, call } = await setup();
    const token = (await kit.store.accessTokens.create({ userId: bot.id, digest: 'd'.repeat(64), scopes: ['user:all'], note: 'old job', createdAt: KIT_START, expiresAt: null }))._unsafeUnwrap();
    const list = await call(root, (b) => b.get(`/site-admin/service-accounts/tokens?id=${bot.id}`));
    expect(textOf(list)).toContain(`href="/site-admin/service-accounts/tokens/delete?id=${bot.id}&amp;token=${token.id}" aria-label="Delete token old job"`);
    const confirm = await call(root, (b) => b.get(`/site-admin/service-accounts/tokens/delete?id=${bot.id}&token=${token.id}`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toContain('Delete the token "old job" of ci-bot?');
    expect(await kit.store.accessTokens.get(token.id)).not.toBeNull();
    const answer = await call(root, (b) => b.post('/site-admin/service-accounts/tokens/delete', { id: bot.id, token: token.id }));
    expect({ status: answer.status, location: answer.headers['location'] }).toStrictEqual({
      status: 303,
      location: `/site-admin/service-accounts/tokens?id=${bot.id}&done=deleted`,
    });
    expect(await kit.store.accessTokens.get(token.id)).toBeNull();
    expect((await kit.auditEntries()).at(-1)).toMatchObject({
      entity: 'auth.accessToken', action: 'deleted', actorUserId: root.id, subjectUserId: bot.id, details: { tokenId: token.id },
    });
    expect(visibleText(await call(root, (b) => b.get(answer.headers['location'] ?? '')))).toContain('The access token was deleted.');
  });

  test("refuses to delete another account's token through a service account's page", async () => {
    const { kit, root, alice, bot, call } = await setup();
    const token = (await kit.store.accessTokens.create({ userId: alice.id, digest: 'e'.repeat(64), scopes: ['user:all'], note: 'mine', createdAt: KIT_START, expiresAt: null }))._unsafeUnwrap();
    const before = await snapshot(kit);
    expect((await call(root, (b) => b.get(`/site-admin/service-accounts/tokens/delete?id=${bot.id}&token=${token.id}`))).status).toBe(404);
    expect((await call(root, (b) => b.post('/site-admin/service-accounts/tokens/delete', { id: bot.id, token: token.id }))).status).toBe(404);
    expect(await snapshot(kit)).toStrictEqual(before);
  });
});
