/**
 * The `auth.providers` entries' `order`, `hidden` and `noSignIn` (as the service the spec describes): the
 * sign-in page's links follow `order` and leave out `hidden` and `noSignIn` entries; a `noSignIn` provider refuses
 * sign-in (nothing is created, the refusal is audited) but still links to an account already signed in; a
 * `hidden` one still signs in by its address.
 */
import type { AuthProvider, ExternalIdentity } from 'gatehouse-auth';
import { ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { linkProviderLinks, signInLinks, signInRedirect } from '../../src/pages/sign-in-links.js';
import { createFlowContext, type SignInRouteDeps } from '../../src/sign-in/flow-context.js';
import type { RouteRequest } from '../../src/kernel/route.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { AuditEvent } from '../../src/store/types.js';

const hostb = (extra: object): AuthProvider => ({ type: 'hostb', url: 'https://hostb.example.com', clientID: 'id', clientSecret: 's', allowSignup: true, apiScope: 'api', ...extra });
const oidc = (extra: object): AuthProvider => ({ type: 'openidconnect', issuer: 'https://id.example.com', clientID: 'c', clientSecret: 's', allowSignup: true, ...extra });

describe('the sign-in page links', () => {
  it.each<[string, readonly AuthProvider[], readonly string[]]>([
    ['configuration order without order fields', [hostb({ displayName: 'B' }), oidc({ displayName: 'O' })], ['B', 'O']],
    ['sorted by order', [hostb({ displayName: 'B', order: 2 }), oidc({ displayName: 'O', order: 1 })], ['O', 'B']],
    ['a hidden provider is left off', [hostb({ displayName: 'B', hidden: true }), oidc({ displayName: 'O' })], ['O']],
    ['a noSignIn provider is left off', [hostb({ displayName: 'B' }), oidc({ displayName: 'O', noSignIn: true })], ['B']],
  ])('%s', (_name, providers, labels) => {
    expect(signInLinks(providers).map((l) => l.label)).toStrictEqual(labels);
  });

  it('keeps each link\'s index in auth.providers, whatever the order', () => {
    expect(signInLinks([hostb({ order: 9 }), oidc({ order: 1 })]).map((l) => l.loginPath)).toStrictEqual([
      '/.auth/openidconnect/login?provider=1',
      '/.auth/hostb/login?provider=0',
    ]);
  });

  it('Account security offers every provider to connect, hidden and noSignIn ones too, sorted by order', () => {
    const providers = [hostb({ displayName: 'B', noSignIn: true, order: 2 }), oidc({ displayName: 'O', hidden: true, order: 1 }), { type: 'builtin', allowSignup: false } as const];
    expect(linkProviderLinks(providers).map((l) => [l.label, l.loginPath])).toStrictEqual([
      ['O', '/.auth/openidconnect/login?provider=1'],
      ['B', '/.auth/hostb/login?provider=0'],
    ]);
    expect(signInLinks(providers)).toStrictEqual([]);
  });

  it('never redirects at once to a hidden or noSignIn provider', () => {
    expect(signInRedirect([hostb({})])?.loginPath).toBe('/.auth/hostb/login?provider=0');
    expect(signInRedirect([hostb({ hidden: true })])).toBeNull();
    expect(signInRedirect([hostb({ noSignIn: true }), oidc({})])?.loginPath).toBe('/.auth/openidconnect/login?provider=1');
  });
});

describe('completing a provider sign-in', () => {
  const identity: ExternalIdentity = { accountId: '77', username: 'octo', emails: [{ address: 'octo@example.com', verified: true }] };
  const request: RouteRequest = {
    method: 'GET',
    url: new URL('http://gatehouse.test/.auth/hostb/callback'),
    headers: {},
    headersDistinct: {},
    cookies: new Map(),
    clientAddress: '127.0.0.1',
    requestId: 'r1',
    body: null,
  };

  function setup(signedInUserId: string | null) {
    const store = createMemoryStore();
    const audits: AuditEvent[] = [];
    const signIns: unknown[] = [];
    const deps = {
      store,
      now: () => 1,
      randomBytes: (n: number) => new Uint8Array(n),
      audit: async (entry: AuditEvent) => void audits.push(entry),
      currentUserId: async () => signedInUserId,
      signIn: async (input: unknown) => {
        signIns.push(input);
        // the stub refuses, so that the test sees only whether the sign-in decision was asked
        return ok({ kind: 'denied', reason: 'stub', message: 'stub refusal' }) as never;
      },
      startSession: async () => null,
      externalURL: 'http://gatehouse.test',
    } as unknown as SignInRouteDeps;
    return { ctx: createFlowContext(deps), store, audits, signIns };
  }

  it('refuses a noSignIn provider to a signed-out browser: 403, no account, the refusal audited', async () => {
    const { ctx, store, audits, signIns } = setup(null);
    const answer = await ctx.complete(request, hostb({ noSignIn: true }), identity, '/settings', true);
    expect(answer.status).toBe(403);
    expect(String(answer.body)).toContain('connect it from Account security');
    expect(signIns).toStrictEqual([]);
    expect((await store.accounts.list({ first: 10 })).length).toBe(0);
    expect(audits.map((a) => [a.entity, a.action, a.reason])).toStrictEqual([['auth.session', 'failed', 'provider_no_sign_in']]);
  });

  it('lets a noSignIn provider link to the account already signed in (Account security)', async () => {
    const { ctx, signIns } = setup('user-1');
    await ctx.complete(request, hostb({ noSignIn: true }), identity, '/settings/security', true);
    expect(signIns).toHaveLength(1);
    expect(signIns[0]).toMatchObject({ signedInUserId: 'user-1' });
  });

  it('lets a hidden provider sign in (it is only left off the page)', async () => {
    const { ctx, signIns } = setup(null);
    await ctx.complete(request, hostb({ hidden: true }), identity, '/settings', true);
    expect(signIns).toHaveLength(1);
  });
});
