/**
 * The access tokens page (§2.3): create a token (the core decides scopes and quota; `site-admin:sudo` for site
 * administrators only), see its secret once, list the account's tokens, delete one after a confirmation page.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { unquoteShellArgument } from '../../src/cli/curl.js';
import { hashAccessToken } from '../../../../src/core/access-token.js';
import { sha256 } from '../../src/kernel/digest.js';
import { settingsRoutes } from '../../src/settings/routes.js';
import { ASSET_PATHS } from '../../src/pages/assets.js';
import type { RouteResponse } from '../../src/kernel/route.js';
import { callRoute, KIT_START, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

const DAY = 24 * 60 * 60 * 1000;

async function setup() {
  const kit = await pageKit();
  const alice = await kit.createUser('alice');
  const root = await kit.createUser('root', { siteAdmin: true });
  const routes = settingsRoutes(kit.deps);
  const browser = await kit.browser(alice);
  return { kit, alice, root, routes, browser };
}

/** The secret shown in the answer (the `token-secret` element's text). */
function secretOf(answer: RouteResponse): string {
  return /<code id="token-secret"[^>]*>([^<]*)<\/code>/.exec(textOf(answer))?.[1] ?? '';
}

/** The `token-curl` element's text, entities decoded. */
function curlOf(answer: RouteResponse): string {
  const raw = /<pre id="token-curl"[^>]*>([^<]*)<\/pre>/.exec(textOf(answer))?.[1] ?? '';
  return raw.replaceAll('&#x27;', "'").replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

describe('the access tokens page', () => {
  it('offers the create form: note, user:all checked, no sudo for a member, the expiries of auth.accessTokens (90 days by default)', async () => {
    const { routes, browser } = await setup();
    const html = textOf(await callRoute(routes, browser.get('/settings/tokens')));
    expect(html).toContain('<label for="token-note">Note</label>');
    expect(html).toMatch(/<input id="scope-user-all" type="checkbox" name="scopes"[^>]* checked="" value="user:all"\/>/);
    expect(html).not.toContain('site-admin:sudo');
    expect(html).toContain('<label for="token-expires">Expires</label>');
    expect(html).toMatch(/<option value="90" selected="">/);
    for (const v of ['7', '14', '30', '60', 'never']) expect(html).toContain(`<option value="${v}">`);
    expect(html).not.toContain('<option value="365">');
    expect(html).toContain('You have no access tokens.');
  });

  it('offers site-admin:sudo to a site administrator, unchecked', async () => {
    const { kit, root, routes } = await setup();
    const html = textOf(await callRoute(routes, (await kit.browser(root)).get('/settings/tokens')));
    expect(html).toMatch(/<input id="scope-site-admin-sudo" type="checkbox" name="scopes" aria-describedby="scope-sudo-hint" value="site-admin:sudo"\/>/);
  });

  it('creates a token: 201, the secret once with a copy button, the curl line, the list, and an audit entry', async () => {
    const { kit, alice, routes, browser } = await setup();
    const answer = await callRoute(routes, browser.post('/settings/tokens', { note: 'laptop CLI', scopes: 'user:all', expires: '30' }));
    expect(answer.status).toBe(201);
    const secret = secretOf(answer);
    expect(secret).toMatch(/^gat_/);
    expect(visibleText(answer)).toContain('Copy the token now: it is not shown again.');
    expect(textOf(answer)).toContain('data-copy="token-secret"');
    expect(textOf(answer)).toContain('data-copy="token-curl"');
    const [token] = await kit.store.accessTokens.list(alice.id);
    expect(token).toMatchObject({ note: 'laptop CLI', scopes: ['user:all'], expiresAt: KIT_START + 30 * DAY, lastUsedAt: null });
    expect(token?.digest).toBe(hashAccessToken(secret, sha256)._unsafeUnwrap());
    // the curl line posts the currentUser query with the token, each word quoted for a POSIX shell
    const words = curlOf(answer).match(/'(?:[^']|'\\'')*'|\S+/g) ?? [];
    expect(words.slice(0, 3)).toEqual(['curl', '-s', '--globoff']);
    expect(words.map((w) => unquoteShellArgument(w) ?? w)).toEqual([
      'curl', '-s', '--globoff', '-H', `Authorization: token ${secret}`, '-H', 'Content-Type: application/json',
      '--data-raw', '{"query":"query { currentUser { username } }"}', '--url', 'http://gatehouse.test/.api/graphql',
    ]);
    const row = visibleText(answer);
    expect(row).toContain(`laptop CLI user:all ${'2023-11-14 22:13 UTC'} never 2023-12-14 22:13 UTC Delete`);
    const entries = await kit.auditEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entity: 'auth.accessToken', action: 'created', actorUserId: alice.id, details: { tokenId: token?.id } });
    expect(JSON.stringify(entries)).not.toContain(secret);
    // a later visit lists the token but never shows the secret again
    const later = await callRoute(routes, browser.get('/settings/tokens'));
    expect(textOf(later)).not.toContain(secret);
    expect(visibleText(later)).toContain('laptop CLI');
  });

  it('creates a token that does not expire, and shows a use once the store recorded one', async () => {
    const { kit, alice, routes, browser } = await setup();
    expect((await callRoute(routes, browser.post('/settings/tokens', { note: 'ci', scopes: 'user:all', expires: 'never' }))).status).toBe(201);
    const [token] = await kit.store.accessTokens.list(alice.id);
    expect(token?.expiresAt).toBeNull();
    await kit.store.accessTokens.touch(token?.id ?? '', KIT_START + DAY);
    expect(visibleText(await callRoute(routes, browser.get('/settings/tokens')))).toContain('ci user:all 2023-11-14 22:13 UTC 2023-11-15 22:13 UTC never Delete');
  });

  it('creates a sudo token for a site administrator', async () => {
    const { kit, root, routes } = await setup();
    const answer = await callRoute(routes, (await kit.browser(root)).post('/settings/tokens', { note: 'admin', scopes: ['user:all', 'site-admin:sudo'], expires: '7' }));
    expect(answer.status).toBe(201);
    expect((await kit.store.accessTokens.list(root.id))[0]?.scopes).toEqual(['user:all', 'site-admin:sudo']);
  });

  it.each([
    ['no note', { note: '', scopes: 'user:all', expires: '90' }, 400, 'Enter a note'],
    ['a blank note', { note: '   ', scopes: 'user:all', expires: '90' }, 400, 'Enter a note'],
    ['a note over 200 characters', { note: 'n'.repeat(201), scopes: 'user:all', expires: '90' }, 400, 'at most 200 characters'],
    ['a note with a line break', { note: 'a\nb', scopes: 'user:all', expires: '90' }, 400, 'control characters'],
    ['an unknown expiry', { note: 'x', scopes: 'user:all', expires: '1000' }, 400, 'Choose when the token expires.'],
    ['no user:all', { note: 'x', expires: '90' }, 400, 'Every access token carries the scope "user:all".'],
    ['an unknown scope', { note: 'x', scopes: ['user:all', 'repo'], expires: '90' }, 400, 'Unknown scope "repo".'],
    ['site-admin:sudo from a member (posted by hand)', { note: 'x', scopes: ['user:all', 'site-admin:sudo'], expires: '90' }, 403, 'Only site administrators may create tokens with "site-admin:sudo".'],
  ])('refuses %s, shows why with the form as typed, and creates nothing', async (_name, fields, status, message) => {
    const { kit, alice, routes, browser } = await setup();
    const answer = await callRoute(routes, browser.post('/settings/tokens', fields));
    expect(answer.status).toBe(status);
    expect(visibleText(answer)).toContain(message);
    expect(textOf(answer)).toContain('role="alert"');
    expect(textOf(answer)).not.toContain('id="token-secret"');
    if (fields.note.trim() !== '' && !fields.note.includes('\n')) expect(textOf(answer)).toContain(`value="${fields.note}"`);
    expect(await kit.store.accessTokens.list(alice.id)).toEqual([]);
    expect(await kit.auditEntries()).toEqual([]);
  });

  it('refuses a token past the quota with the core message', async () => {
    const { kit, alice, routes, browser } = await setup();
    for (let i = 0; i < 100; i += 1) {
      await kit.store.accessTokens.create({ userId: alice.id, digest: `d${i}`, scopes: ['user:all'], note: `t${i}`, createdAt: KIT_START, expiresAt: null });
    }
    const answer = await callRoute(routes, browser.post('/settings/tokens', { note: 'one more', scopes: 'user:all', expires: '90' }));
    expect(answer.status).toBe(409);
    expect(visibleText(answer)).toContain('already holds 100 access tokens');
    expect(await kit.store.accessTokens.count(alice.id)).toBe(100);
  });

  it('deletes a token after the confirmation page, audits it, and says so', async () => {
    const { kit, alice, routes, browser } = await setup();
    await callRoute(routes, browser.post('/settings/tokens', { note: 'old <laptop>', scopes: 'user:all', expires: '90' }));
    const [token] = await kit.store.accessTokens.list(alice.id);
    const id = token?.id ?? '';
    const list = textOf(await callRoute(routes, browser.get('/settings/tokens')));
    expect(list).toContain(`<a href="/settings/tokens/delete?id=${encodeURIComponent(id)}" aria-label="Delete token old &lt;laptop&gt;">Delete</a>`);
    const confirm = await callRoute(routes, browser.get(`/settings/tokens/delete?id=${encodeURIComponent(id)}`));
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm)).toMatch(/Delete the token old <laptop> ?\? Programs using it stop working at once\./);
    expect(textOf(confirm)).toContain('<form method="post" action="/settings/tokens/delete"');
    expect(textOf(confirm)).toContain(`<input type="hidden" name="id" value="${id}"/>`);
    expect(textOf(confirm)).toContain('<button type="submit" class="danger">Delete token</button>');
    expect(textOf(confirm)).toContain('<a class="button secondary" href="/settings/tokens">Cancel</a>');
    expect(await kit.store.accessTokens.get(id)).not.toBeNull();
    const done = await callRoute(routes, browser.post('/settings/tokens/delete', { id }));
    expect(done.status).toBe(303);
    expect(done.headers['location']).toBe('/settings/tokens?done=deleted');
    expect(await kit.store.accessTokens.get(id)).toBeNull();
    expect((await kit.auditEntries()).at(-1)).toMatchObject({ entity: 'auth.accessToken', action: 'deleted', actorUserId: alice.id, details: { tokenId: id } });
    expect(visibleText(await callRoute(routes, browser.get('/settings/tokens?done=deleted')))).toContain('The token was deleted.');
  });

  it("answers 404 for another account's token, on the confirmation page and the post, and deletes nothing", async () => {
    const { kit, root, routes, browser } = await setup();
    await callRoute(routes, (await kit.browser(root)).post('/settings/tokens', { note: 'root token', scopes: 'user:all', expires: '90' }));
    const [token] = await kit.store.accessTokens.list(root.id);
    const id = token?.id ?? '';
    const before = await kit.auditEntries();
    const confirm = await callRoute(routes, browser.get(`/settings/tokens/delete?id=${encodeURIComponent(id)}`));
    expect(confirm.status).toBe(404);
    expect(visibleText(confirm)).not.toContain('root token');
    for (const fields of [{ id }, { id: 'no-such-id' }, {}]) {
      const answer = await callRoute(routes, browser.post('/settings/tokens/delete', fields));
      expect(answer.status).toBe(404);
      expect(visibleText(answer)).toContain('There is no such token among yours.');
    }
    expect(await kit.store.accessTokens.get(id)).toEqual(token);
    expect(await kit.auditEntries()).toEqual(before);
  });
});

// Notes a person could type: markup, quotes, ampersands, long non-Latin text (no control characters, which the
// page refuses). Whatever they hold, they come back as the text typed and never as markup.
const noteArbitrary = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
    fc.constantFrom('<script>alert(1)</script>', '"><script src=//evil.example/x.js></script>', "it's & <b>bold</b>", '{{7*7}} ${x}'),
    fc.string({ unit: fc.constantFrom('日', '本', 'é', '🚀', 'ß', '<', '>', '"', "'", '&', ' '), minLength: 150, maxLength: 200 }),
  )
  .map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/gu, 'x'))
  .filter((s) => s.trim() !== '' && [...s.trim()].length <= 200);

describe('notes on the tokens page', () => {
  test.prop([noteArbitrary], { numRuns: 40 })('round-trip to the list as visible text, with no script but the shell asset', async (note) => {
    const { kit, alice, routes, browser } = await setup();
    const created = await callRoute(routes, browser.post('/settings/tokens', { note, scopes: 'user:all', expires: '90' }));
    expect(created.status).toBe(201);
    expect((await kit.store.accessTokens.list(alice.id))[0]?.note).toBe(note.trim());
    const page = await callRoute(routes, browser.get('/settings/tokens'));
    const html = textOf(page);
    expect(visibleText(page)).toContain(note.trim().replace(/\s+/g, ' '));
    expect(html.match(/<script\b/gi)).toHaveLength(1);
    expect(html).toContain(`<script src="${ASSET_PATHS.script}" defer=""></script>`);
  });
});
