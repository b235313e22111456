/**
 * Deadlines of outbound calls to providers: a host that never answers fails the call in time, for every kind of
 * call (code exchange, code host API pages, OpenID Connect discovery, review host check), end to end too.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostaProvider, HostbProvider } from '../../../../src/core/auth-providers.js';
import { codeHostEndpoints, exchangeCode, fetchCodeHostIdentity } from '../../src/providers/code-hosts.js';
import { checkReviewhostCredentials } from '../../src/providers/reviewhost.js';
import { createOpenIdRelyingParty } from '../../src/providers/openid-connect.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, upstreamTimeoutMs, withDeadline } from '../../src/providers/upstream.js';
import { createGatehouseServer } from '../../src/index.js';
import { startTestApp, type TestApp } from '../fakes/app.js';
import { createBrowser, json, listen, type Listening } from '../fakes/http.js';
import { flatStoreOf } from '../helpers/flat-store.js';

const SHORT = 150;
/** Well under the test timeout (5 s) and the default deadline (10 s): the short deadline did the work. */
const PROMPTLY = 2_000;

/** Pages that never answer, pages that send headers and then stall, and pages that answer. */
let host: Listening;
const stalled: ServerResponse[] = [];
const hang = (res: ServerResponse): void => {
  stalled.push(res);
};
const stallBody = (res: ServerResponse): void => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  stalled.push(res);
};

beforeAll(async () => {
  host = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://h').pathname;
    if (path === '/hung/login/oauth/access_token' || path === '/hung/.well-known/openid-configuration' || path === '/hung/a/accounts/self') return hang(res);
    if (path === '/slow-body/login/oauth/access_token') return stallBody(res);
    if (path.endsWith('/login/oauth/access_token')) return json(res, 200, { access_token: 'at', token_type: 'bearer' });
    if (path === '/hung/api/user' || path === '/org-hung/api/user/orgs' || path === '/team-stall/api/user/teams') {
      return path.endsWith('teams') ? stallBody(res) : hang(res);
    }
    if (path.endsWith('/api/user')) return json(res, 200, { id: 7, login: 'alice' });
    if (path.endsWith('/api/user/emails')) return json(res, 200, [{ email: 'alice@example.com', verified: true, primary: true }]);
    if (path.endsWith('/api/user/orgs')) return json(res, 200, [{ login: 'acme' }]);
    if (path.endsWith('/api/user/teams')) return json(res, 200, [{ name: 'Core', organization: { login: 'acme' } }]);
    if (path.endsWith('/api/v4/user')) return json(res, 200, { id: 9, username: 'bo', email: 'bo@example.com' });
    if (path === '/groups-hung/api/v4/groups') return hang(res);
    return json(res, 404, {});
  });
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await host?.close();
});

const hosta = (base: string, extra: Partial<HostaProvider> = {}): HostaProvider => ({
  type: 'hosta',
  url: base,
  clientID: 'id',
  clientSecret: 'secret',
  allowSignup: true,
  ...extra,
});

async function timed<T>(work: Promise<T>): Promise<{ readonly value: T; readonly ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

/** A `fetch` that ignores its signal and never settles (an injected fetch may behave so). */
const deafFetch: typeof fetch = () => new Promise<Response>(() => {});

describe('withDeadline', () => {
  it('should resolve with the work when it finishes in time', async () => {
    expect(await withDeadline(SHORT, async () => 42)).toBe(42);
  });

  it('should reject with upstream_timeout when the work ignores the signal and never settles', async () => {
    const { value, ms } = await timed(withDeadline(SHORT, () => new Promise<never>(() => {})).catch((e: unknown) => e));
    expect(value).toStrictEqual({ code: 'upstream_timeout', timeoutMs: SHORT });
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it('should abort the signal it hands to the work', async () => {
    let seen: AbortSignal | null = null;
    await withDeadline(SHORT, (signal) => {
      seen = signal;
      return new Promise<never>(() => {});
    }).catch(() => null);
    expect((seen as AbortSignal | null)?.aborted).toBe(true);
  });

  it('should take a deadline that is not a positive number as the default, without throwing', async () => {
    expect(await withDeadline(-1, async () => 'ran')).toBe('ran');
    expect(await withDeadline(Number.NaN, async () => 'ran')).toBe('ran');
  });

  it('should pass on the work’s own failure', async () => {
    await expect(withDeadline(SHORT, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(withDeadline(SHORT, () => { throw new Error('sync'); })).rejects.toThrow('sync');
  });

  it.each([
    { input: undefined, expected: DEFAULT_UPSTREAM_TIMEOUT_MS },
    { input: 250, expected: 250 },
    { input: 0, expected: DEFAULT_UPSTREAM_TIMEOUT_MS },
    { input: -1, expected: DEFAULT_UPSTREAM_TIMEOUT_MS },
    { input: Number.NaN, expected: DEFAULT_UPSTREAM_TIMEOUT_MS },
    { input: Number.POSITIVE_INFINITY, expected: DEFAULT_UPSTREAM_TIMEOUT_MS },
  ])('should take $input ms as $expected ms (10 s by default)', ({ input, expected }) => {
    expect(upstreamTimeoutMs(input)).toBe(expected);
  });
});

describe('exchangeCode with a host that does not answer', () => {
  it.each([
    { ref: 'no answer at all', base: 'hung', fetchFn: fetch },
    { ref: 'headers, then a stalled body', base: 'slow-body', fetchFn: fetch },
    { ref: 'a fetch that ignores its signal', base: 'ok', fetchFn: deafFetch },
  ])('should fail the exchange in time ($ref)', async ({ base, fetchFn }) => {
    const endpoints = codeHostEndpoints(hosta(`${host.url}/${base}`), `${host.url}/${base}`);
    const { value, ms } = await timed(exchangeCode(endpoints, 'code', 'https://app.example/cb', null, fetchFn, SHORT));
    expect(value).toStrictEqual({ kind: 'failed' });
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it('should still exchange with a host that answers', async () => {
    const endpoints = codeHostEndpoints(hosta(`${host.url}/ok`), `${host.url}/ok`);
    expect(await exchangeCode(endpoints, 'code', 'https://app.example/cb', null, fetch, SHORT)).toStrictEqual({ kind: 'token', accessToken: 'at' });
  });
});

describe('fetchCodeHostIdentity with pages that do not answer', () => {
  it('should fail the sign-in when the user page hangs', async () => {
    const { value, ms } = await timed(fetchCodeHostIdentity(hosta(`${host.url}/hung`), `${host.url}/hung`, 'at', fetch, SHORT));
    expect(value).toStrictEqual({ ok: false, error: { code: 'upstream_failed', what: 'user' } });
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it.each([
    { ref: '§5.3 hosta rule 4 (orgs page never answers)', base: 'org-hung' },
    { ref: '§5.3 hosta rule 5 (teams page stalls after its headers)', base: 'team-stall' },
  ])('should mark membership incomplete when a membership page times out ($ref)', async ({ base }) => {
    const provider = hosta(`${host.url}/${base}`, { allowOrgs: ['acme'], allowOrgsMap: { acme: ['Core'] } });
    const { value, ms } = await timed(fetchCodeHostIdentity(provider, `${host.url}/${base}`, 'at', fetch, SHORT));
    expect(value.ok).toBe(true);
    expect(value.ok ? value.identity.membershipComplete : null).toBe(false);
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it('should mark hostb group membership incomplete when the groups page hangs (§5.3 hostb rule 4)', async () => {
    const provider: HostbProvider = {
      type: 'hostb',
      url: `${host.url}/groups-hung`,
      clientID: 'id',
      clientSecret: 's',
      allowSignup: true,
      apiScope: 'api',
      allowGroups: ['acme'],
    };
    const { value, ms } = await timed(fetchCodeHostIdentity(provider, `${host.url}/groups-hung`, 'at', fetch, SHORT));
    expect(value).toStrictEqual({
      ok: true,
      identity: { accountId: '9', username: 'bo', emails: [{ address: 'bo@example.com', verified: true }], groups: [], membershipComplete: false },
    });
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it('should read complete membership from a host that answers', async () => {
    const provider = hosta(`${host.url}/ok`, { allowOrgs: ['acme'] });
    const value = await fetchCodeHostIdentity(provider, `${host.url}/ok`, 'at', fetch, SHORT);
    expect(value.ok ? value.identity.membershipComplete : null).toBe(true);
  });
});

describe('OpenID Connect and review host calls with a host that does not answer', () => {
  it('should give up discovery in time (§5.3 openidconnect rule 3)', async () => {
    const rp = createOpenIdRelyingParty(
      { type: 'openidconnect', issuer: `${host.url}/hung`, clientID: 'id', clientSecret: 's', allowSignup: true },
      'https://app.example/.auth/callback',
      fetch,
      SHORT,
    );
    const { value, ms } = await timed(rp.authorizationURL({ state: 's', nonce: 'n', codeChallenge: 'c' }));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it('should give up discovery in time even with a fetch that ignores its signal', async () => {
    const rp = createOpenIdRelyingParty(
      { type: 'openidconnect', issuer: `${host.url}/hung`, clientID: 'id', clientSecret: 's', allowSignup: true },
      'https://app.example/.auth/callback',
      deafFetch,
      SHORT,
    );
    const { value, ms } = await timed(rp.callback(new URL('https://app.example/.auth/callback?code=c&state=s'), { state: 's', nonce: 'n', codeVerifier: 'v' }));
    expect(value).toStrictEqual({ kind: 'failed' });
    expect(ms).toBeLessThan(PROMPTLY);
  });

  it.each([
    { ref: 'no answer', fetchFn: fetch },
    { ref: 'a fetch that ignores its signal', fetchFn: deafFetch },
  ])('should report a review host that does not answer as unreachable ($ref)', async ({ fetchFn }) => {
    const { value, ms } = await timed(checkReviewhostCredentials(`${host.url}/hung`, 'alice', 'pw', fetchFn, SHORT));
    expect(value).toStrictEqual({ kind: 'unreachable' });
    expect(ms).toBeLessThan(PROMPTLY);
  });
});

describe('a sign-in callback whose code host does not answer, end to end', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ providers: () => [hosta(`${host.url}/hung`)], upstreamTimeoutMs: SHORT });
  });
  afterAll(() => app?.close());

  it('should answer the callback with the sign-in failure page in time, writing nothing', async () => {
    const browser = createBrowser();
    const login = await browser.get(`${app.url}/.auth/hosta/login`);
    const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const { value: callback, ms } = await timed(browser.get(`${app.url}/.auth/hosta/callback?code=c&state=${encodeURIComponent(state)}`));
    expect(callback.status).toBe(502);
    expect(await callback.text()).toContain('The provider could not be reached. Try again later.');
    expect(ms).toBeLessThan(PROMPTLY);
    expect(app.store.accounts()).toStrictEqual([]);
  });
});

describe('createGatehouseServer: timeouts.upstreamMs', () => {
  it('should bound a sign-in callback whose code host does not answer (a 502 failure page, no account)', async () => {
    const server = createGatehouseServer({
      siteConfiguration: JSON.stringify({
        'auth.providers': [{ type: 'hosta', url: `${host.url}/hung`, clientID: 'id', clientSecret: 's', allowSignup: true }],
      }),
      timeouts: { upstreamMs: SHORT },
      log: () => {},
    });
    const { url } = await server.listen(0);
    try {
      const browser = createBrowser();
      const login = await browser.get(`${url}/.auth/hosta/login`);
      expect(login.status).toBe(303);
      const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
      const { value: callback, ms } = await timed(browser.get(`${url}/.auth/hosta/callback?code=c&state=${encodeURIComponent(state)}`));
      expect(callback.status).toBe(502);
      expect(await callback.text()).toContain('The provider could not be reached. Try again later.');
      expect(ms).toBeLessThan(PROMPTLY);
      expect(await flatStoreOf(server.store).listUsers()).toStrictEqual([]);
    } finally {
      await server.close();
    }
  });
});
