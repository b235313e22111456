/**
 * The page route builders (`pages/page-routes.ts`) and the cross-site checks (`pages/csrf.ts`), as functions.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { checkFormPost, CSRF_COOKIE, CSRF_FIELD, formToken } from '../../src/pages/csrf.js';
import { doneNotice, formRoute, pageResponse, pageRoute, pagesCsp } from '../../src/pages/page-routes.js';
import { redirectResponse } from '../../src/kernel/respond.js';
import type { Route } from '../../src/kernel/route.js';
import { callRoute, pageKit, textOf, visibleText } from '../helpers/page-kit.js';

async function setup() {
  const kit = await pageKit();
  let posted = 0;
  const routes: readonly Route[] = [
    pageRoute(kit.deps, '/p', 'signed_in', async (ctx) => pageResponse(ctx, 200, { title: 'Mine', nav: null, children: <p>{`hello ${ctx.viewer.username}`}</p> })),
    pageRoute(kit.deps, '/admin', 'site_admin', async (ctx) => pageResponse(ctx, 200, { title: 'Admin', nav: null, children: null })),
    formRoute(kit.deps, '/p/do', 'signed_in', async () => {
      posted += 1;
      return redirectResponse('/p?done=saved');
    }),
  ];
  const alice = await kit.createUser('alice');
  const root = await kit.createUser('root', { siteAdmin: true });
  return { kit, routes, alice, root, posted: () => posted };
}

describe('page routes', () => {
  test('a signed-out visitor is sent to sign in and comes back to the page; a signed-out post is 401', async () => {
    const { kit, routes, posted } = await setup();
    const out = await kit.browser(null);
    const page = await callRoute(routes, out.get('/p?x=1'));
    expect(page.status).toBe(303);
    expect(page.headers['location']).toBe('/.auth/sign-in?returnTo=%2Fp%3Fx%3D1');
    expect((await callRoute(routes, out.post('/p/do', {}))).status).toBe(401);
    expect(posted()).toBe(0);
  });

  test('a member gets the page with the pages CSP and no-store; the site admin page is 403 for them', async () => {
    const { kit, routes, alice, root } = await setup();
    const page = await callRoute(routes, (await kit.browser(alice)).get('/p'));
    expect(page.status).toBe(200);
    expect(visibleText(page)).toContain('hello alice');
    expect(page.headers['content-security-policy']).toBe(pagesCsp());
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['cache-control']).toBe('no-store');
    expect((await callRoute(routes, (await kit.browser(alice)).get('/admin'))).status).toBe(403);
    expect((await callRoute(routes, (await kit.browser(root)).get('/admin'))).status).toBe(200);
  });

  test('a page sets the CSRF cookie when the browser has none, and its forms carry the matching token', async () => {
    const { kit, routes, alice, posted } = await setup();
    const browser = await kit.browser(alice);
    browser.cookies.delete(CSRF_COOKIE);
    const page = await callRoute(routes, browser.get('/p'));
    const cookie = page.cookies?.find((c) => c.name === CSRF_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const token = /name="_csrf" value="([^"]+)"/.exec(textOf(page))?.[1];
    expect(token).toBeDefined();
    browser.cookies.set(CSRF_COOKIE, cookie?.value ?? '');
    const done = await callRoute(routes, browser.post('/p/do', { [CSRF_FIELD]: token ?? '' }));
    expect(done.status).toBe(303);
    expect(posted()).toBe(1);
  });

  // Every way a post can fail to come from this site's page: refused with 403, the handler never runs.
  test.each([
    ['no token', { [CSRF_FIELD]: '' }, {}],
    ['a wrong token', { [CSRF_FIELD]: 'A'.repeat(43) }, {}],
    ['another origin', {}, { origin: 'https://evil.example' }],
    ['a cross-site fetch', {}, { 'sec-fetch-site': 'cross-site' }],
    ['a same-site (sibling subdomain) fetch', {}, { 'sec-fetch-site': 'same-site' }],
  ])('refuses a post with %s', async (_name, fields, headers) => {
    const { kit, routes, alice, posted } = await setup();
    const browser = await kit.browser(alice);
    const answer = await callRoute(routes, browser.post('/p/do', fields, headers));
    expect(answer.status).toBe(403);
    expect(visibleText(answer)).toContain('This form did not come from this site');
    expect(posted()).toBe(0);
  });

  test('a token stops working when the session changes (it is bound to the session cookie)', async () => {
    const { kit, routes, alice, posted } = await setup();
    const first = await kit.browser(alice);
    const second = await kit.browser(alice);
    second.cookies.set(CSRF_COOKIE, first.cookies.get(CSRF_COOKIE) ?? '');
    expect((await callRoute(routes, second.post('/p/do', { [CSRF_FIELD]: first.csrf }))).status).toBe(403);
    expect(posted()).toBe(0);
  });

  test('doneNotice shows only the codes a page knows', async () => {
    const { kit, alice } = await setup();
    const browser = await kit.browser(alice);
    expect(doneNotice(browser.get('/p?done=saved'), { saved: 'Saved.' })).toEqual({ kind: 'ok', text: 'Saved.' });
    expect(doneNotice(browser.get('/p?done=<b>hi</b>'), { saved: 'Saved.' })).toBeNull();
    expect(doneNotice(browser.get('/p?done=toString'), { saved: 'Saved.' })).toBeNull();
    expect(doneNotice(browser.get('/p'), { saved: 'Saved.' })).toBeNull();
  });
});

describe('pagesCsp', () => {
  test('adds exact redirect URIs to form-action and drops anything that could end a directive', () => {
    expect(pagesCsp(['https://app.example/cb'])).toContain("form-action 'self' https://app.example/cb;");
    expect(pagesCsp(["https://a.example/; script-src 'unsafe-inline'", 'https://b.example/x y'])).toContain("form-action 'self';");
  });
});

describe('form tokens', () => {
  test.prop([fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ maxLength: 60 })])(
    'a token checks against the cookie it came from, and no other value does',
    (bytes, other) => {
      const issued = formToken({ cookies: new Map() }, () => bytes, false);
      const cookie = issued.cookie?.value ?? '';
      const request = {
        method: 'POST', url: new URL('http://h/x'), headers: { host: 'h' }, headersDistinct: {}, cookies: new Map([[CSRF_COOKIE, cookie]]),
        clientAddress: '127.0.0.1', requestId: 'r', body: null,
      };
      expect(checkFormPost(request, issued.token, null).isOk()).toBe(true);
      if (other !== issued.token) expect(checkFormPost(request, other, null)._unsafeUnwrapErr()).toEqual({ code: 'csrf_token_mismatch' });
      expect(formToken(request, () => new Uint8Array(32), false)).toEqual({ token: issued.token, cookie: null });
    },
  );
});
