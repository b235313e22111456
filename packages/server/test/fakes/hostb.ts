/**
 * A fake `hostb` (REST shapes of the second code host): OAuth at /oauth/*, /api/v4/user, /api/v4/groups with
 * `full_path` filtered by `min_access_level` (two per page, `x-next-page` pagination), the access level at
 * /api/v4/groups/:id/members/all/:user_id, and a group SAML SSO page that continues to its `redirect`.
 */
import { fakeOAuth, type FakeOAuth, json, listen, pageOf, type Listening } from './http.js';

export interface FakeHostbUser {
  readonly id: number;
  readonly username: string;
  /** The primary email (always confirmed at this host). */
  readonly email: string | null;
  readonly groups?: readonly { readonly id: number; readonly fullPath: string; readonly accessLevel: number }[];
  /** `path:page` entries that answer 500 (for example `/api/v4/groups:2`), or `members:<groupId>`. */
  readonly failPages?: readonly string[];
}

export interface FakeHostb extends Listening {
  readonly oauth: FakeOAuth;
  readonly ssoVisits: URL[];
}

export const HOSTB_CLIENT = { clientId: 'hostb-client', clientSecret: 'hostb-secret' };
export const HOSTB_SSO_TOKEN = 'sso-token-1';
const PER_PAGE = 2;

export async function startFakeHostb(users: readonly FakeHostbUser[]): Promise<FakeHostb> {
  const byUsername = new Map(users.map((u) => [u.username, u]));
  const oauth = fakeOAuth(HOSTB_CLIENT);
  const ssoVisits: URL[] = [];
  let base = '';
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/oauth/authorize') return oauth.authorize(url, res, (name) => byUsername.has(name));
    if (url.pathname === '/oauth/token' && req.method === 'POST') {
      const result = await oauth.token(req);
      return 'error' in result
        ? json(res, 400, { error: result.error, error_description: 'The provided authorization grant is invalid.' })
        : json(res, 200, { access_token: result.token, token_type: 'Bearer', expires_in: 7200, scope: 'read_user api' });
    }
    const sso = /^\/groups\/([^/]+)\/-\/saml\/sso$/.exec(url.pathname);
    if (sso !== null) {
      ssoVisits.push(url);
      const redirect = url.searchParams.get('redirect') ?? '';
      if (url.searchParams.get('token') !== HOSTB_SSO_TOKEN || !redirect.startsWith('/')) return json(res, 403, {});
      // Signed in through the group's identity provider; continue on this host.
      res.writeHead(302, { location: new URL(redirect, base).href });
      res.end();
      return;
    }
    const name = oauth.userOf(req);
    const user = name === null ? undefined : byUsername.get(name);
    if (user === undefined) return json(res, 401, { message: '401 Unauthorized' });
    if (url.pathname === '/api/v4/user') {
      return json(res, 200, { id: user.id, username: user.username, email: user.email, state: 'active' });
    }
    if (url.pathname === '/api/v4/groups') {
      const page = Number(url.searchParams.get('page') ?? '1');
      if (user.failPages?.includes(`/api/v4/groups:${page}`)) return json(res, 500, { message: '500 Internal Server Error' });
      const min = Number(url.searchParams.get('min_access_level') ?? '10');
      const visible = (user.groups ?? []).filter((g) => g.accessLevel >= min);
      const { items, last } = pageOf(visible, page, PER_PAGE);
      return json(
        res,
        200,
        items.map((g) => ({ id: g.id, full_path: g.fullPath, name: g.fullPath.split('/').pop() })),
        { 'x-next-page': page < last ? String(page + 1) : '', 'x-page': String(page), 'x-total-pages': String(last) },
      );
    }
    const member = /^\/api\/v4\/groups\/(\d+)\/members\/all\/(\d+)$/.exec(url.pathname);
    if (member !== null) {
      if (user.failPages?.includes(`members:${member[1]}`)) return json(res, 500, {});
      const group = (user.groups ?? []).find((g) => String(g.id) === member[1]);
      if (group === undefined || member[2] !== String(user.id)) return json(res, 404, { message: '404 Not found' });
      return json(res, 200, { id: user.id, username: user.username, access_level: group.accessLevel });
    }
    return json(res, 404, { message: '404 Not Found' });
  });
  base = listening.url;
  return { ...listening, oauth, ssoVisits };
}
