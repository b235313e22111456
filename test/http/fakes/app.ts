/**
 * A minimal host application for the provider tests: the provider routes, an in-memory account store, a
 * test session cookie (`test_session=<userId>`), and `complete` applying `resolveSignIn` through
 * `signInWithIdentity`. Proxy identities (`http-header`) are signed in on every request to `/whoami`.
 */
import { createHash } from 'node:crypto';
import type { Account } from '../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../src/core/auth-providers.js';
import { parseCookies } from '../../../src/http/http-io.js';
import {
  createMemoryStateStore,
  createProviderRoutes,
  proxyIdentityFromRequest,
  sendMessagePage,
  type ProviderRoutes,
  type StateStore,
} from '../../../src/http/providers/index.js';
import { createMemorySignInStore, sendListingOutcome as sendSignInOutcome, signInWithIdentity } from '../sign-in-oracle.js';
import { json, listen, type Listening } from './http.js';

/** Deterministic "random" bytes: SHA-256 of a counter, so every value differs and runs repeat. */
export function seededRandomBytes(seed: string): (n: number) => Uint8Array {
  let n = 0;
  return (size) => {
    const out = new Uint8Array(size);
    for (let filled = 0; filled < size; ) {
      const block = createHash('sha256').update(`${seed}:${n++}`).digest();
      out.set(block.subarray(0, Math.min(block.length, size - filled)), filled);
      filled += block.length;
    }
    return out;
  };
}

export interface TestApp extends Listening {
  readonly store: ReturnType<typeof createMemorySignInStore>;
  readonly routes: ProviderRoutes;
  readonly states: StateStore;
}

export async function startTestApp(options: {
  readonly providers: (appURL: string) => readonly AuthProvider[];
  readonly accounts?: readonly Account[];
  readonly wrapStates?: (states: StateStore) => StateStore;
  readonly publicURLs?: { readonly hosta?: string; readonly hostccloud?: string };
  readonly now?: () => number;
  readonly upstreamTimeoutMs?: number;
}): Promise<TestApp> {
  const store = createMemorySignInStore(options.accounts ?? []);
  const now = options.now ?? ((): number => Date.now());
  const states = (options.wrapStates ?? ((s: StateStore) => s))(createMemoryStateStore(now));
  const randomBytes = seededRandomBytes('app');
  let routes: ProviderRoutes | null = null;
  let providers: readonly AuthProvider[] = [];
  const listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://app.invalid');
    if (routes !== null && (await routes.handle(req, res, url))) return;
    if (url.pathname === '/whoami') {
      const proxy = proxyIdentityFromRequest(providers, req.headers);
      switch (proxy.kind) {
        case 'not_configured':
        case 'anonymous': {
          const session = parseCookies(req.headers.cookie).get('test_session') ?? null;
          return json(res, 200, { userId: session });
        }
        case 'invalid':
          return sendMessagePage(res, 400, 'Bad proxy headers', proxy.error.code);
        case 'identity': {
          const outcome = await signInWithIdentity({
            provider: proxy.provider,
            identity: proxy.identity,
            signedInUserId: null,
            store,
            randomBytes,
          });
          if (outcome.isOk() && outcome.value.kind === 'signed_in') {
            const account = store.accounts().find((a) => a.id === (outcome.value.kind === 'signed_in' ? outcome.value.userId : ''));
            return json(res, 200, { userId: outcome.value.userId, username: account?.username ?? null });
          }
          return sendSignInOutcome(res, outcome, '/');
        }
      }
    }
    return json(res, 404, { message: 'not found' });
  });
  providers = options.providers(listening.url);
  routes = createProviderRoutes({
    providers,
    externalURL: listening.url,
    now,
    randomBytes,
    stateStore: states,
    ...(options.publicURLs === undefined ? {} : { publicURLs: options.publicURLs }),
    ...(options.upstreamTimeoutMs === undefined ? {} : { upstreamTimeoutMs: options.upstreamTimeoutMs }),
    complete: async ({ provider, identity, req, res, returnTo }) => {
      const signedInUserId = parseCookies(req.headers.cookie).get('test_session') ?? null;
      const outcome = await signInWithIdentity({ provider, identity, signedInUserId, store, randomBytes });
      const headers =
        outcome.isOk() && outcome.value.kind === 'signed_in'
          ? { 'set-cookie': `test_session=${outcome.value.userId}; Path=/; HttpOnly; SameSite=Lax` }
          : {};
      sendSignInOutcome(res, outcome, returnTo, headers);
    },
  });
  return { ...listening, store, routes, states };
}
