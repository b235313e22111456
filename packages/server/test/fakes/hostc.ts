/**
 * Fakes of the third code host. Cloud edition (`hostccloud`): OAuth at /site/oauth2/* with HTTP Basic client
 * authentication and no PKCE, /api/2.0/user and /api/2.0/user/emails (`values`, `next` in the body).
 * Self-hosted edition (`hostcserver`): OAuth at /rest/oauth2/latest/*, /plugins/servlet/applinks/whoami
 * and /rest/api/latest/users/:name.
 */
import { fakeOAuth, type FakeOAuth, json, listen, pageOf, type Listening } from './http.js';

export interface FakeHostcUser {
  readonly id: number;
  readonly username: string;
  readonly emails: readonly { readonly email: string; readonly confirmed: boolean; readonly primary: boolean }[];
}

export interface FakeHostc extends Listening {
  readonly oauth: FakeOAuth;
}

export const HOSTC_CLIENT = { clientId: 'hostc-client', clientSecret: 'hostc-secret' };

export async function startFakeHostccloud(users: readonly FakeHostcUser[]): Promise<FakeHostc> {
  const byName = new Map(users.map((u) => [u.username, u]));
  const oauth = fakeOAuth({ ...HOSTC_CLIENT, basicAuth: true });
  let base = '';
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/site/oauth2/authorize') return oauth.authorize(url, res, (name) => byName.has(name));
    if (url.pathname === '/site/oauth2/access_token' && req.method === 'POST') {
      const result = await oauth.token(req);
      return 'error' in result
        ? json(res, 400, { error: result.error })
        : json(res, 200, { access_token: result.token, token_type: 'bearer', scopes: 'account repository' });
    }
    const name = oauth.userOf(req);
    const user = name === null ? undefined : byName.get(name);
    if (user === undefined) return json(res, 401, { type: 'error' });
    if (url.pathname === '/api/2.0/user') {
      return json(res, 200, { uuid: `{${user.id}-uuid}`, username: user.username, display_name: user.username });
    }
    if (url.pathname === '/api/2.0/user/emails') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const { items, last } = pageOf(user.emails, page, 1);
      const next = page < last ? `${base}/api/2.0/user/emails?page=${page + 1}` : undefined;
      return json(res, 200, {
        values: items.map((e) => ({ email: e.email, is_confirmed: e.confirmed, is_primary: e.primary, type: 'email' })),
        page,
        ...(next === undefined ? {} : { next }),
      });
    }
    return json(res, 404, { type: 'error' });
  });
  base = listening.url;
  return { ...listening, oauth };
}

export async function startFakeHostcserver(users: readonly FakeHostcUser[]): Promise<FakeHostc> {
  const byName = new Map(users.map((u) => [u.username, u]));
  const oauth = fakeOAuth(HOSTC_CLIENT);
  let base = '';
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/rest/oauth2/latest/authorize') return oauth.authorize(url, res, (name) => byName.has(name));
    if (url.pathname === '/rest/oauth2/latest/token' && req.method === 'POST') {
      const result = await oauth.token(req);
      return 'error' in result
        ? json(res, 400, { error: result.error })
        : json(res, 200, { access_token: result.token, token_type: 'bearer' });
    }
    const name = oauth.userOf(req);
    const user = name === null ? undefined : byName.get(name);
    if (user === undefined) return json(res, 401, { errors: [] });
    if (url.pathname === '/plugins/servlet/applinks/whoami') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(user.username);
      return;
    }
    if (url.pathname === `/rest/api/latest/users/${encodeURIComponent(user.username)}`) {
      const primary = user.emails.find((e) => e.primary);
      return json(res, 200, {
        id: user.id,
        name: user.username,
        slug: user.username.toLowerCase(),
        displayName: user.username,
        ...(primary === undefined ? {} : { emailAddress: primary.email }),
      });
    }
    return json(res, 404, { errors: [] });
  });
  base = listening.url;
  return { ...listening, oauth };
}
