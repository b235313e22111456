/**
 * The HTTP authentication proxy end to end (spec §5.3 `http-header`, §5.1 rule 5): identities from the
 * configured headers, only when that provider is configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpHeaderProvider } from '../../../../src/core/auth-providers.js';
import { proxyIdentityFromRequest } from '../../src/sign-in/proxy.js';
import { startTestApp, type TestApp } from '../fakes/app.js';

const PROXY: HttpHeaderProvider = {
  type: 'http-header',
  usernameHeader: 'X-Forwarded-User',
  emailHeader: 'X-Forwarded-Email',
  stripUsernameHeaderPrefix: 'idp:',
  allowSignup: true,
};

let app: TestApp;
let plain: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    providers: () => [PROXY],
    accounts: [{ id: 'legacy', username: 'legacy', origin: 'admin_created', emails: [], externalAccounts: [] }],
  });
  plain = await startTestApp({ providers: () => [] });
});

afterAll(async () => {
  await Promise.all([app?.close(), plain?.close()]);
});

async function whoami(target: TestApp, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const res = await fetch(`${target.url}/whoami`, { headers });
  return { status: res.status, body: await res.text() };
}

describe('proxyIdentityFromRequest', () => {
  it.each([
    { ref: '§5.3 http-header', providers: [], headers: { 'x-forwarded-user': 'a' }, expected: { kind: 'not_configured' } },
    { ref: '§5.3 http-header rule 1', providers: [PROXY], headers: {}, expected: { kind: 'anonymous', provider: PROXY } },
    {
      ref: '§5.3 http-header rule 2',
      providers: [PROXY],
      headers: { 'x-forwarded-user': 'idp:alice' },
      expected: { kind: 'identity', provider: PROXY, identity: { accountId: 'idp:alice', username: 'alice', emails: [] } },
    },
    {
      ref: 'email header',
      providers: [PROXY],
      headers: { 'x-forwarded-email': 'a@example.com, b@example.com' },
      expected: { kind: 'invalid', provider: PROXY, error: { code: 'malformed_email_header', header: 'x-forwarded-email' } },
    },
  ])('should read the proxy headers ($ref)', ({ providers, headers, expected }) => {
    const result = proxyIdentityFromRequest(providers, headers);
    if (result.kind === 'identity') {
      expect({ ...result, identity: { ...result.identity, emails: [...result.identity.emails] } }).toMatchObject(expected);
    } else {
      expect(result).toStrictEqual(expected);
    }
  });
});

describe('http-header provider end to end', () => {
  it('should create, then find, the account of the person the proxy names (§5.3 http-header rules 1–2)', async () => {
    const headers = { 'x-forwarded-user': 'idp:alice', 'x-forwarded-email': 'alice@example.com' };
    const first = await whoami(app, headers);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({ username: 'alice' });
    const again = await whoami(app, headers);
    expect(JSON.parse(again.body)).toStrictEqual(JSON.parse(first.body));
    expect(app.store.accounts().filter((a) => a.username === 'alice')).toHaveLength(1);
  });

  it('should still serve a request whose proxy also set an Authorization header (§5.1 rule 5)', async () => {
    const res = await whoami(app, {
      'x-forwarded-user': 'idp:alice',
      'x-forwarded-email': 'alice@example.com',
      authorization: 'Basic YWxpY2U6c2VjcmV0',
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ username: 'alice' });
  });

  it('should match by username when the proxy sends no email (§5.3 http-header rule 3)', async () => {
    const res = await whoami(app, { 'x-forwarded-user': 'idp:legacy' });
    expect(JSON.parse(res.body)).toStrictEqual({ userId: 'legacy', username: 'legacy' });
  });

  it('should answer 400 for unusable proxy headers and write nothing', async () => {
    const before = app.store.accounts();
    const res = await whoami(app, { 'x-forwarded-email': 'a@example.com, b@example.com' });
    expect(res.status).toBe(400);
    expect(app.store.accounts()).toStrictEqual(before);
  });

  it('should ignore the headers when no http-header provider is configured', async () => {
    const res = await whoami(plain, { 'x-forwarded-user': 'idp:alice', 'x-forwarded-email': 'alice@example.com' });
    expect(JSON.parse(res.body)).toStrictEqual({ userId: null });
    expect(plain.store.accounts()).toStrictEqual([]);
  });
});
