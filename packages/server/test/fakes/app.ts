/**
 * A minimal host application for the provider tests: the sign-in routes served by the server's router and writer, an in-memory
 * account store, a test session cookie (`test_session=<userId>`), and a sign-in flow applying `resolveSignIn`
 * through `signInWithIdentity`; flow state in a memory store. Proxy identities (`http-header`) are signed in on every request to `/whoami`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account } from '../../../../src/core/account-directory.js';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import { parseCookies } from '../../src/kernel/http-io.js';
import { writeResponse } from '../../src/kernel/respond.js';
import type { Route } from '../../src/kernel/route.js';
import { route } from '../../src/kernel/router.js';
import type { RouteTableEntry } from '../../src/kernel/router.js';
import type { SignInFlowError, SignInOutcome } from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import type { EphemeralStore, Store, UserRecord } from '../../src/store/types.js';
import { messagePage } from '../../src/sign-in/responses.js';
import { proxyIdentityFromRequest } from '../../src/sign-in/proxy.js';
import { signInRoutes } from '../../src/sign-in/routes.js';
import { type SignInRouteDeps } from '../../src/sign-in/flow-context.js';
import { createMemorySignInStore, sendListingOutcome as sendSignInOutcome, signInWithIdentity } from '../sign-in/sign-in-oracle.js';
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

/**
 * A `node:http` listener serving a route table as the server does: the router selects (404, 405), reads a
 * declared body and the one writer writes the handler's value.
 */
export function serveTable(table: () => readonly RouteTableEntry[]): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  let requests = 0;
  return (req, res) =>
    route(table(), req, res, new URL(req.url ?? '/', 'http://app.invalid'), `test-${++requests}`, { base: 'http://app.invalid', log: () => undefined });
}

export interface TestApp extends Listening {
  readonly store: ReturnType<typeof createMemorySignInStore>;
  readonly routes: readonly Route[];
  readonly states: EphemeralStore;
}

/** The sign-in deps of a test app: a `test_session=<userId>` cookie, `signInWithIdentity` over a memory store. */
export function testSignInDeps(input: {
  readonly providers: readonly AuthProvider[];
  readonly externalURL: string;
  readonly store: ReturnType<typeof createMemorySignInStore>;
  /** Where flow state is kept (a memory store by default). */
  readonly flowStore?: Store;
  readonly randomBytes: (n: number) => Uint8Array;
  readonly now?: () => number;
  readonly publicURLs?: { readonly hosta?: string; readonly hostccloud?: string };
  readonly upstreamTimeoutMs?: number;
}): SignInRouteDeps {
  const { store, randomBytes } = input;
  return {
    providers: input.providers,
    externalURL: input.externalURL,
    store: input.flowStore ?? createMemoryStore(),
    now: input.now ?? ((): number => Date.now()),
    randomBytes,
    fetch,
    upstreamTimeoutMs: input.upstreamTimeoutMs ?? 10_000,
    publicURLs: input.publicURLs ?? {},
    pendingSignIns: {},
    currentUserId: async (request) => request.cookies.get('test_session') ?? null,
    signIn: async ({ provider, identity, signedInUserId }) =>
      (await signInWithIdentity({ provider, identity, signedInUserId, store, randomBytes }))
        .map((outcome): SignInOutcome => (outcome.kind === 'signed_in' ? { ...outcome, user: testUser(outcome.userId) } : outcome))
        .mapErr(
          (error): SignInFlowError =>
            error.code === 'sign_in_error'
              ? error
              : error.code === 'store_conflict'
                ? { code: 'store_conflict', conflict: { code: 'username_taken', username: '' } }
                : { code: 'sign_in_error', error: { code: 'invalid_sign_in_input', path: 'directory' } },
        ),
    startSession: async (_request, userId) => ({ name: 'test_session', value: userId, path: '/', sameSite: 'Lax', secure: false, httpOnly: true }),
    audit: async () => undefined,
  };
}

/** The account record a route sees for a signed-in person of the oracle's store. */
export function testUser(id: string): UserRecord {
  return { id, username: `user-${id}`, origin: 'provider_signup', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 0 };
}

export async function startTestApp(options: {
  readonly providers: (appURL: string) => readonly AuthProvider[];
  readonly accounts?: readonly Account[];
  readonly wrapStates?: (states: EphemeralStore) => EphemeralStore;
  readonly publicURLs?: { readonly hosta?: string; readonly hostccloud?: string };
  readonly now?: () => number;
  readonly upstreamTimeoutMs?: number;
}): Promise<TestApp> {
  const store = createMemorySignInStore(options.accounts ?? []);
  const now = options.now ?? ((): number => Date.now());
  const flowStore = createMemoryStore();
  const states = (options.wrapStates ?? ((s: EphemeralStore) => s))(flowStore.ephemeral);
  const randomBytes = seededRandomBytes('app');
  let table: readonly RouteTableEntry[] = [];
  let providers: readonly AuthProvider[] = [];
  const whoami = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const proxy = proxyIdentityFromRequest(providers, req.headers);
    switch (proxy.kind) {
      case 'not_configured':
      case 'anonymous': {
        const session = parseCookies(req.headers.cookie).get('test_session') ?? null;
        json(res, 200, { userId: session });
        return true;
      }
      case 'invalid':
        writeResponse(res, messagePage(400, 'Bad proxy headers', proxy.error.code), { requestId: 'whoami', head: req.method === 'HEAD' });
        return true;
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
          json(res, 200, { userId: outcome.value.userId, username: account?.username ?? null });
          return true;
        }
        sendSignInOutcome(res, outcome, '/');
        return true;
      }
    }
  };
  const listening = await listen(serveTable(() => table));
  providers = options.providers(listening.url);
  const routes = signInRoutes(
    testSignInDeps({
      providers,
      externalURL: listening.url,
      store,
      flowStore: { ...flowStore, ephemeral: states },
      randomBytes,
      now,
      ...(options.publicURLs === undefined ? {} : { publicURLs: options.publicURLs }),
      ...(options.upstreamTimeoutMs === undefined ? {} : { upstreamTimeoutMs: options.upstreamTimeoutMs }),
    }),
  );
  table = [...routes, { methods: ['GET'], path: '/whoami', stream: whoami }];
  return { ...listening, store, routes, states };
}
