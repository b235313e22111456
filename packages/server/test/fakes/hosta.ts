/**
 * A fake `hosta` (REST shapes of the first code host): OAuth at /login/oauth/*, the API under /api with
 * user, emails (verified flags), orgs and teams (display name, slug, organization.login), two items per
 * page and `Link: <…>; rel="next"` pagination. A user's `failPages` makes those pages answer 500.
 */
import type { ServerResponse } from 'node:http';
import { fakeOAuth, type FakeOAuth, json, listen, pageOf, type Listening } from './http.js';

export interface FakeHostaUser {
  readonly id: number;
  readonly login: string;
  readonly emails: readonly { readonly email: string; readonly verified: boolean; readonly primary: boolean }[];
  readonly orgs?: readonly string[];
  /** Teams the user belongs to directly. */
  readonly teams?: readonly { readonly org: string; readonly name: string; readonly slug: string }[];
  /** `path:page` entries that answer 500, for example `/api/user/teams:2`. */
  readonly failPages?: readonly string[];
}

export interface FakeHosta extends Listening {
  readonly oauth: FakeOAuth;
  readonly apiCalls: string[];
}

export const HOSTA_CLIENT = { clientId: 'hosta-client', clientSecret: 'hosta-secret' };
const PER_PAGE = 2;

export async function startFakeHosta(users: readonly FakeHostaUser[]): Promise<FakeHosta> {
  const byLogin = new Map(users.map((u) => [u.login, u]));
  const oauth = fakeOAuth(HOSTA_CLIENT);
  const apiCalls: string[] = [];
  let base = '';
  const paged = (res: ServerResponse, url: URL, user: FakeHostaUser, items: readonly unknown[]): void => {
    const page = Number(url.searchParams.get('page') ?? '1');
    if (user.failPages?.includes(`${url.pathname}:${page}`)) {
      json(res, 500, { message: 'Server Error' });
      return;
    }
    const { items: slice, last } = pageOf(items, page, PER_PAGE);
    const headers: Record<string, string> = {};
    if (page < last) {
      const next = new URL(url.pathname, base);
      next.searchParams.set('page', String(page + 1));
      headers['link'] = `<${next.href}>; rel="next", <${base}${url.pathname}?page=${last}>; rel="last"`;
    }
    json(res, 200, slice, headers);
  };
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/login/oauth/authorize') return oauth.authorize(url, res, (login) => byLogin.has(login));
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const result = await oauth.token(req);
      // Like the host it stands for: errors come back with status 200 and an `error` field.
      return json(res, 200, 'error' in result ? { error: result.error } : { access_token: result.token, token_type: 'bearer', scope: 'user:email,read:org' });
    }
    if (!url.pathname.startsWith('/api/')) return json(res, 404, { message: 'Not Found' });
    apiCalls.push(`${url.pathname}${url.search}`);
    const login = oauth.userOf(req);
    const user = login === null ? undefined : byLogin.get(login);
    if (user === undefined) return json(res, 401, { message: 'Bad credentials' });
    switch (url.pathname) {
      case '/api/user':
        return json(res, 200, { id: user.id, login: user.login, name: null });
      case '/api/user/emails':
        return paged(res, url, user, user.emails);
      case '/api/user/orgs':
        return paged(res, url, user, (user.orgs ?? []).map((login) => ({ login, id: login.length })));
      case '/api/user/teams':
        return paged(
          res,
          url,
          user,
          (user.teams ?? []).map((t) => ({ name: t.name, slug: t.slug, organization: { login: t.org } })),
        );
      default:
        return json(res, 404, { message: 'Not Found' });
    }
  });
  base = listening.url;
  return { ...listening, oauth, apiCalls };
}
