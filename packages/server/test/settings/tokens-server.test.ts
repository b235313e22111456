/**
 * A token created on the access tokens page works at once over real HTTP (§2.3): sign up, open the page, post
 * the create form as a browser would, then call the GraphQL API with `Authorization: token <secret>`, and with `gatehouse api`.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { CSRF_COOKIE } from '../../src/pages/csrf.js';
import { SESSION_COOKIE } from '../../src/session/sessions.js';
import { cookieFrom, startServer } from '../helpers/server.js';

describe('a token created on the page', () => {
  it('answers currentUser over HTTP at once', async () => {
    const s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    try {
      const signUp = await fetch(`${s.url}/.auth/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'dana', email: 'dana@example.com', password: 'correct horse' }),
      });
      expect(signUp.status).toBe(201);
      const session = cookieFrom(signUp.headers, SESSION_COOKIE);
      expect(session).not.toBeNull();

      const page = await fetch(`${s.url}/settings/tokens`, { headers: { cookie: session ?? '' } });
      expect(page.status).toBe(200);
      const csrfCookie = cookieFrom(page.headers, CSRF_COOKIE);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
      expect(csrfCookie).not.toBeNull();
      expect(csrf).toBeDefined();

      const created = await fetch(`${s.url}/settings/tokens`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `${session ?? ''}; ${csrfCookie ?? ''}`,
          origin: s.url,
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams([['_csrf', csrf ?? ''], ['note', 'over HTTP'], ['scopes', 'user:all'], ['expires', '7']]).toString(),
      });
      expect(created.status).toBe(201);
      const html = await created.text();
      const secret = /<code id="token-secret"[^>]*>([^<]+)<\/code>/.exec(html)?.[1] ?? '';
      expect(secret).toMatch(/^gat_/);
      expect(html).toContain(`--url &#x27;${s.url}/.api/graphql&#x27;`);

      const answer = await fetch(`${s.url}/.api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `token ${secret}` },
        body: JSON.stringify({ query: 'query { currentUser { username } }' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ data: { currentUser: { username: 'dana' } } });

      // and `gatehouse api` with the environment the page's second block sets
      let stdout = '';
      const status = await runCli(['api', '-query', 'query { currentUser { username } }'], {
        env: { SRC_ENDPOINT: s.url, SRC_ACCESS_TOKEN: secret },
        stdin: Readable.from([]),
        stdout: { write: (chunk) => void (stdout += chunk) },
        stderr: { write: () => undefined },
        readFile: async () => Promise.reject(Object.assign(new Error('ENOENT'), { code: 'ENOENT' })),
        homedir: () => '/nonexistent',
      });
      expect(status).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ data: { currentUser: { username: 'dana' } } });
    } finally {
      await s.close();
    }
  });
});
