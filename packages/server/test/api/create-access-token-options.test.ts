/**
 * `createAccessToken` over HTTP follows `auth.accessTokens` (who may create, the lifetime, the per-account limit),
 * each refusal a clear error whose `extensions.reason` is the core's snake_case reason; and a `site-admin:sudo`
 * token asked for through a browser session needs a sign-in within the last 10 minutes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { gql, startServer, type TestServer } from '../helpers/server.js';

const MIN = 60_000;
const CREATE = 'mutation($scopes: [String!]!, $ttl: Int) { createAccessToken(note: "n", scopes: $scopes, expiresInSeconds: $ttl) { token } }';

describe('createAccessToken and auth.accessTokens', () => {
  let s: TestServer | null = null;
  afterEach(async () => {
    await s?.close();
    s = null;
  });

  const start = async (accessTokens: object): Promise<TestServer> =>
    (s = await startServer({ siteConfiguration: JSON.stringify({ 'auth.providers': [{ type: 'builtin' }], 'auth.accessTokens': accessTokens }) }));

  it.each<[string, object, boolean, number | null, string | null]>([
    ['defaults: a member, no expiry', {}, false, null, null],
    ['defaults: a member, 90 days', {}, false, 90 * 86_400, null],
    ['defaults: 91 days is too long', {}, false, 91 * 86_400, 'expiration_too_long'],
    ['allow none: a site administrator is refused', { allow: 'none' }, true, 3600, 'access_tokens_disabled'],
    ['site-admin-create: a member is refused', { allow: 'site-admin-create' }, false, 3600, 'site_admin_only'],
    ['site-admin-create: a site administrator creates', { allow: 'site-admin-create' }, true, 3600, null],
    ['allowNoExpiration false: no expiry is refused', { allowNoExpiration: false }, false, null, 'expiration_required'],
  ])('%s', async (_name, accessTokens, siteAdmin, ttl, reason) => {
    const server = await start(accessTokens);
    const who = await server.user('someone', siteAdmin);
    // the test's own token is made by the server (no site option applies to its own creations)
    const { token } = await server.token(who);
    const answer = await gql(server.url, CREATE, { headers: { authorization: `token ${token}` }, variables: { scopes: ['user:all'], ttl } });
    if (reason === null) expect(answer.body).toMatchObject({ data: { createAccessToken: { token: expect.stringMatching(/^gat_/) } } });
    else {
      expect(answer.body).toMatchObject({ data: null, errors: [{ extensions: { reason } }] });
      expect((await server.gatehouse.store.accessTokens.list(who.id)).length).toBe(1);
    }
  });

  it('maxTokensPerUser: refused past the limit with QUOTA_EXCEEDED and the limit', async () => {
    const server = await start({ maxTokensPerUser: 2 });
    const who = await server.user('someone');
    const { token } = await server.token(who);
    expect((await gql(server.url, CREATE, { headers: { authorization: `token ${token}` }, variables: { scopes: ['user:all'] } })).body).toMatchObject({ data: { createAccessToken: {} } });
    expect((await gql(server.url, CREATE, { headers: { authorization: `token ${token}` }, variables: { scopes: ['user:all'] } })).body).toMatchObject({
      errors: [{ extensions: { code: 'QUOTA_EXCEEDED', reason: 'token_limit_reached', limit: 2 } }],
    });
  });

  it('a sudo token through a session needs a recent sign-in', async () => {
    const server = await start({});
    const root = await server.user('root', true);
    const cookie = ((await server.gatehouse.sessions.start({ headers: {} }, root.id)) ?? '').split(';')[0] ?? '';
    const ask = () => gql(server.url, CREATE, { headers: { cookie, 'x-requested-with': 'test' }, variables: { scopes: ['user:all', 'site-admin:sudo'], ttl: 3600 } });
    server.clock.now += 9 * MIN;
    expect((await ask()).body).toMatchObject({ data: { createAccessToken: {} } });
    server.clock.now += 2 * MIN;
    expect((await ask()).body).toMatchObject({ data: null, errors: [{ extensions: { code: 'FORBIDDEN', reason: 'reauthentication_required' } }] });
    // a plain token through the same session needs none
    expect((await gql(server.url, CREATE, { headers: { cookie, 'x-requested-with': 'test' }, variables: { scopes: ['user:all'], ttl: 3600 } })).body).toMatchObject({ data: { createAccessToken: {} } });
  });
});
