/**
 * The provider sign-in flows mounted in the gatehouse server from the site configuration's `auth.providers`:
 * the login and callback routes, the account store behind `resolveSignIn`, the session they start, the proxy
 * identity of each request, and the links of the sign-in page.
 *
 * A sign-in never lists the accounts: `resolveSignIn` reads a directory answered from the store's indexes
 * (by linked identity, by verified email, by username), so its cost does not grow with the number of accounts.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ok, err, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import type { Account, AccountDirectory, ExternalAccountRef } from '../../core/account-directory.js';
import { PROVIDER_TYPES, type AuthProvider, type ProviderType } from '../../core/auth-providers.js';
import type { ExternalIdentity } from '../../core/external-identity.js';
import { asciiLowercase, emailMatchKey } from '../../core/internal/email-address.js';
import { readProviderForAccess } from '../../core/provider-access.js';
import { resolveSignIn, type SignInDecision, type SignInError } from '../../core/sign-in.js';
import { normalizeUsername } from '../../core/username.js';
import type { RouteRequest } from '../route.js';
import type { ProxyVerdict, Sessions, SignInPageLink } from '../sessions.js';
import type { Store as NewStore } from '../store/types.js';
import type { AuditEvent, Store, StoreError, UserRecord } from '../store.js';
import {
  decideAndApply,
  sendMessagePage,
  type SignInFlowError,
  type SignInOutcome,
  type SignInStore,
  type SignInStoreConflict,
} from './apply.js';
import type { PublicCodeHostURLs } from './code-hosts.js';
import { incomingMessageOf, parseSetCookie, serveRoutes } from './node-adapter.js';
import type { PendingSignInLimits } from './pending.js';
import { proxyIdentityFromRequest } from './proxy.js';
import { signInRoutePaths, signInRoutes } from './routes.js';
import { signInLinks, signInRedirect } from './sign-in-links.js';
import { providerStoreFromFlat } from './store-bridge.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './upstream.js';

/**
 * Options of {@link createSiteSignIn}.
 *
 * @example
 * ```ts
 * const options: SiteSignInOptions = { store, providers, now, randomBytes, audit, externalURL: () => url, sessions: () => sessions };
 * ```
 */
export interface SiteSignInOptions {
  /** The store. */
  readonly store: Store;
  /** The configured providers (`auth.providers`, defaults applied). */
  readonly providers: readonly AuthProvider[];
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source. */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: (entry: AuditEvent) => Promise<void>;
  /** The site's public URL (`externalURL`, else the URL the server listens on), or `null` when unknown yet. */
  readonly externalURL: () => string | null;
  /** The session layer (late-bound: it reads the proxy identity from here). */
  readonly sessions: () => Sessions;
  /** `fetch` for every request to a provider. */
  readonly fetch?: typeof fetch;
  /** How long one call to a provider may take, in milliseconds (default 10 s). */
  readonly upstreamTimeoutMs?: number;
  /** Base URLs of public code host editions (`hosta`/`hostccloud` with an empty `url`). */
  readonly publicURLs?: PublicCodeHostURLs;
  /** Where pending flows are kept (default: a memory store of this process). */
  readonly flowStore?: NewStore;
  /** Bounds on pending sign-ins per client network and in all (default 100 and 100,000). */
  readonly pendingSignIns?: PendingSignInLimits;
}

/**
 * The mounted sign-in flows.
 *
 * @example
 * ```ts
 * if (await signIn.handle(req, res, url)) return;
 * ```
 */
export interface SiteSignIn {
  /** Serves the login and callback routes of the configured providers; `false` for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
  /** The person the proxy headers name, signed in through `resolveSignIn` (`http-header` only). */
  proxy(req: IncomingMessage): Promise<ProxyVerdict>;
  /** The account store the sign-in decisions are written to (its `loadAccounts` is never called by a sign-in). */
  readonly signInStore: SignInStore;
  /** The sign-in page's provider links, in configuration order (`builtin`, `http-header` and `reviewhost` excluded). */
  readonly links: readonly SignInPageLink[];
  /** The login route the sign-in page redirects to at once (`signInPageBehavior` says `redirect`), or `null`. */
  readonly redirectTo: SignInPageLink | null;
}

/** Shown when the proxy's identity headers are present but unusable (repeated with different values, a malformed email). */
const PROXY_HEADERS_UNUSABLE = 'The authentication proxy sent identity headers that cannot be used. Ask your administrator to check the proxy.';
/** Shown when the person the proxy names could not be signed in for another reason (a store failure). */
const PROXY_SIGN_IN_FAILED = 'The person the authentication proxy names could not be signed in. Try again later.';

function isProviderType(value: string): value is ProviderType {
  return PROVIDER_TYPES.some((t) => t === value);
}

function conflictOf(error: StoreError): SignInStoreConflict {
  return match(error)
    .returnType<SignInStoreConflict>()
    .with({ code: 'username_taken' }, () => ({ code: 'username_taken' }))
    .with({ code: 'email_taken' }, () => ({ code: 'email_taken' }))
    .with({ code: 'external_account_taken' }, () => ({ code: 'external_account_taken' }))
    .with(
      { code: 'unknown_user' },
      { code: 'unknown_access_token' },
      { code: 'duplicate_digest' },
      { code: 'unknown_external_account' },
      { code: 'guard_refused' },
      () => ({ code: 'unknown_user' }),
    )
    .exhaustive();
}

// An account as the core's directory sees it: a service account never matches by email (it cannot sign in
// from a browser at all), and links of types the core does not know are left out.
async function accountOf(store: Store, user: UserRecord): Promise<Account> {
  const links = await store.listExternalAccounts(user.id);
  return {
    id: user.id,
    username: user.username,
    origin: user.origin,
    emails: user.serviceAccount ? [] : user.emails.map((e) => ({ address: e.email, verified: e.verified })),
    externalAccounts: links.flatMap((link): ExternalAccountRef[] =>
      isProviderType(link.serviceType)
        ? [{ providerType: link.serviceType, serviceId: link.serviceId, accountId: link.accountId }]
        : [],
    ),
  };
}

/** One lookup `resolveSignIn` may make; `username` answers both `findByUsername` and `isUsernameTaken`. */
type DirectoryLookup =
  | { readonly kind: 'external_account'; readonly ref: ExternalAccountRef }
  | { readonly kind: 'verified_email'; readonly address: string }
  | { readonly kind: 'username'; readonly username: string };

function lookupKey(lookup: DirectoryLookup): string {
  return match(lookup)
    .returnType<string>()
    .with({ kind: 'external_account' }, (l) => JSON.stringify([l.kind, l.ref.providerType, l.ref.serviceId, l.ref.accountId]))
    .with({ kind: 'verified_email' }, (l) => JSON.stringify([l.kind, l.address]))
    .with({ kind: 'username' }, (l) => JSON.stringify([l.kind, l.username]))
    .exhaustive();
}

// Answers one lookup from the store's indexes, with the matching rule of `accountDirectoryFromArray`
// (emails by `emailMatchKey`, verified only; usernames ASCII case-insensitively), whatever the store's own rule.
async function fetchLookup(store: Store, lookup: DirectoryLookup): Promise<Account | null> {
  return match(lookup)
    .returnType<Promise<Account | null>>()
    .with({ kind: 'external_account' }, async ({ ref }) => {
      const user = await store.findUserByExternalAccount(ref.providerType, ref.serviceId, ref.accountId);
      return user === null ? null : accountOf(store, user);
    })
    .with({ kind: 'verified_email' }, async ({ address }) => {
      const user = await store.findUserByVerifiedEmail(address);
      if (user === null) return null;
      const account = await accountOf(store, user);
      const key = emailMatchKey(address);
      return account.emails.some((e) => e.verified && emailMatchKey(e.address) === key) ? account : null;
    })
    .with({ kind: 'username' }, async ({ username }) => {
      const user = await store.findUserByUsername(username);
      return user === null || asciiLowercase(user.username) !== asciiLowercase(username) ? null : accountOf(store, user);
    })
    .exhaustive();
}

// What `resolveSignIn` will most likely ask about this identity, fetched in one round before it runs: the
// identity's link, its verified emails and the usernames derived from it. Only a guess: whatever the core asks
// beyond it (a username with a random suffix) is fetched when asked.
function likelyLookups(provider: AuthProvider, identity: ExternalIdentity): readonly DirectoryLookup[] {
  const lookups: DirectoryLookup[] = [];
  const facts = readProviderForAccess(provider);
  if (facts.isOk()) {
    lookups.push({
      kind: 'external_account',
      ref: { providerType: facts.value.type, serviceId: facts.value.serviceId, accountId: identity.accountId },
    });
  }
  for (const email of identity.emails) if (email.verified) lookups.push({ kind: 'verified_email', address: email.address });
  for (const source of [identity.username, identity.emails[0]?.address]) {
    if (typeof source !== 'string') continue;
    const username = normalizeUsername(source);
    if (username.isOk()) lookups.push({ kind: 'username', username: username.value });
  }
  return lookups;
}

/** Thrown by the directory for a lookup not fetched yet; `resolveSignIn` turns it into `directory_failed` and stops. */
const LOOKUP_PENDING: unique symbol = Symbol('lookup pending');

/**
 * Runs `resolveSignIn` over a directory answered from the store's indexed lookups, never a listing of accounts.
 *
 * The core's directory is synchronous and the store is not, so the decision is taken in rounds: the likely
 * lookups are fetched first; the directory answers from what was fetched, and a lookup not fetched yet stops
 * the core at once (it maps the throw to `directory_failed`). That lookup is then fetched and the core runs
 * again, replaying the random bytes it drew before, so it asks the same questions in the same order and gets
 * one answer further each round. So it ends after at most one round per lookup a decision makes (the link, the
 * verified emails, one username and up to six candidate names), with the decision a directory of every account
 * would give, drawing from `randomBytes` exactly the calls that decision draws.
 *
 * @param input - The store, provider, identity, session user and random source.
 * @returns The core's decision or error. Rejects when the store does.
 */
async function decideFromStoreIndexes(input: {
  readonly store: Store;
  readonly provider: AuthProvider;
  readonly identity: ExternalIdentity;
  readonly signedInUserId: string | null;
  readonly randomBytes: (n: number) => Uint8Array;
}): Promise<Result<SignInDecision, SignInError>> {
  const known = new Map<string, Account | null>();
  const fetchAll = async (lookups: readonly DirectoryLookup[]): Promise<void> => {
    const fresh = [...new Map(lookups.map((l) => [lookupKey(l), l])).entries()].filter(([key]) => !known.has(key));
    const answers = await Promise.all(fresh.map(([, lookup]) => fetchLookup(input.store, lookup)));
    fresh.forEach(([key], i) => known.set(key, answers[i] ?? null));
  };
  await fetchAll(likelyLookups(input.provider, input.identity));
  const drawn: Uint8Array[] = [];
  for (;;) {
    const missing: DirectoryLookup[] = [];
    const answer = (lookup: DirectoryLookup): Account | null => {
      const found = known.get(lookupKey(lookup));
      if (found !== undefined) return found;
      missing.push(lookup);
      throw LOOKUP_PENDING;
    };
    const directory: AccountDirectory = {
      findByExternalAccount: (ref) => answer({ kind: 'external_account', ref }),
      findByVerifiedEmail: (address) => answer({ kind: 'verified_email', address }),
      findByUsername: (username) => answer({ kind: 'username', username }),
      isUsernameTaken: (username) => answer({ kind: 'username', username }) !== null,
    };
    let call = 0;
    const replayingRandomBytes = (n: number): Uint8Array => {
      const replayed = drawn[call++];
      if (replayed !== undefined) return replayed;
      const bytes = input.randomBytes(n);
      drawn.push(bytes);
      return bytes;
    };
    const decision = resolveSignIn({
      provider: input.provider,
      identity: input.identity,
      signedInUserId: input.signedInUserId,
      directory,
      randomBytes: replayingRandomBytes,
    });
    if (missing.length === 0) return decision;
    await fetchAll(missing);
  }
}

/**
 * Input of {@link signInWithStoreIndexes}.
 *
 * @example
 * ```ts
 * const input: IndexedSignInInput = { provider, identity, signedInUserId: null, store, signInStore, randomBytes };
 * ```
 */
export interface IndexedSignInInput {
  /** The provider the person came through. */
  readonly provider: AuthProvider;
  /** What the provider reported. */
  readonly identity: ExternalIdentity;
  /** The account of the current session, or `null`. */
  readonly signedInUserId: string | null;
  /** The server's store, read through its indexed lookups only. */
  readonly store: Store;
  /** Where decisions are written (see {@link signInStoreFromStore}). */
  readonly signInStore: SignInStore;
  /** The random source (username suffixes). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** How often to decide again when the store changed underneath (default 3). */
  readonly attempts?: number;
  /** Whether an existing account may be signed in to from a browser (default: every account). */
  readonly mayUse?: (userId: string) => Promise<boolean>;
}

/**
 * Signs a person in as `signInWithIdentity` does (same decisions, same writes, same retries when the store
 * changed underneath), but reads only the accounts the decision is about, through the store's indexed
 * lookups: no listing of accounts, so a sign-in costs the same with ten accounts or a million.
 *
 * @param input - Provider, identity, session user, store, the sign-in store to write to, and random source.
 * @returns The outcome, or why nothing could be done (nothing written either way on `err`).
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const outcome = await signInWithStoreIndexes({
 *   provider, identity, signedInUserId: null, store, signInStore: signInStoreFromStore(store, Date.now), randomBytes,
 * });
 * // ok({ kind: 'signed_in', userId: '1', created: true, linked: true })
 * ```
 */
export async function signInWithStoreIndexes(input: IndexedSignInInput): Promise<Result<SignInOutcome, SignInFlowError>> {
  return decideAndApply({ ...input, store: input.signInStore }, async () =>
    (await decideFromStoreIndexes(input)).mapErr((error): SignInFlowError => ({ code: 'sign_in_error', error })),
  );
}

/**
 * The {@link SignInStore} over the server's {@link Store}: its writes as single atomic store operations (an
 * account is created together with its identity), and `loadAccounts`, a full listing kept for the interface
 * (the server's sign-ins go through {@link signInWithStoreIndexes} and never call it).
 *
 * @param store - The server's store.
 * @param now - The clock.
 * @returns The sign-in store.
 * @example
 * ```ts
 * const signInStore = signInStoreFromStore(createMemoryStore(), Date.now);
 * await signInStore.loadAccounts(); // []
 * ```
 */
export function signInStoreFromStore(store: Store, now: () => number): SignInStore {
  return {
    async loadAccounts() {
      const users = await store.listUsers();
      return Promise.all(users.map((user) => accountOf(store, user)));
    },
    async createAccount(input) {
      const created = await store.createUser({
        username: input.username,
        origin: 'provider_signup',
        siteAdmin: false,
        serviceAccount: false,
        emails: input.emails.map((e) => ({ email: e.address, verified: e.verified })),
        passwordHash: null,
        createdAt: now(),
        externalAccount: {
          serviceType: input.externalAccount.providerType,
          serviceId: input.externalAccount.serviceId,
          accountId: input.externalAccount.accountId,
          createdAt: now(),
        },
      });
      return created.isOk() ? ok(created.value.id) : err(conflictOf(created.error));
    },
    async linkExternalAccount(userId, ref): Promise<Result<void, SignInStoreConflict>> {
      const linked = await store.addExternalAccount({
        userId,
        serviceType: ref.providerType,
        serviceId: ref.serviceId,
        accountId: ref.accountId,
        createdAt: now(),
      });
      return linked.isOk() ? ok(undefined) : err(conflictOf(linked.error));
    },
  };
}

/**
 * Mounts the sign-in flows of the configured providers on a server that asks each part in turn: serves
 * {@link signInRoutes} over the flat store (flow state in `ephemeral`), with the session layer's user and cookie.
 *
 * @param options - Store, providers, clock, random source, audit, public URL and session layer.
 * @returns The mounted flows.
 * @example
 * ```ts
 * const signIn = createSiteSignIn({ store, providers: configuration.authProviders, now, randomBytes, audit,
 *   externalURL: () => 'https://search.example.com', sessions: () => sessions });
 * ```
 */
export function createSiteSignIn(options: SiteSignInOptions): SiteSignIn {
  const { store, providers, now, randomBytes, audit } = options;
  const signInStore = signInStoreFromStore(store, now);
  const providerStore = providerStoreFromFlat(store, options.flowStore);
  const mayUse = async (userId: string): Promise<boolean> => {
    const user = await store.getUser(userId);
    return user !== null && !user.serviceAccount;
  };
  const incoming = (request: RouteRequest): IncomingMessage | null => incomingMessageOf(request) ?? null;
  const handlerFor = (externalURL: string): ReturnType<typeof serveRoutes> =>
    serveRoutes(
      signInRoutes({
        providers,
        externalURL,
        store: providerStore,
        now,
        randomBytes,
        fetch: options.fetch ?? fetch,
        upstreamTimeoutMs: options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
        publicURLs: options.publicURLs ?? {},
        pendingSignIns: options.pendingSignIns ?? {},
        currentUserId: async (request) => {
          const req = incoming(request);
          return req === null ? null : ((await options.sessions().authenticate(req))?.id ?? null);
        },
        signIn: ({ provider, identity, signedInUserId }) =>
          signInWithStoreIndexes({ provider, identity, signedInUserId, store, signInStore, randomBytes, mayUse }),
        startSession: async (request, userId) => {
          const req = incoming(request);
          const cookie = req === null ? null : await options.sessions().start(req, userId);
          return cookie === null ? null : parseSetCookie(cookie);
        },
        audit,
      }),
    );
  const paths = new Set(signInRoutePaths(providers));
  let mounted: { readonly base: string; readonly handle: ReturnType<typeof serveRoutes> } | null = null;

  return {
    signInStore,
    links: signInLinks(providers),
    redirectTo: signInRedirect(providers),
    async handle(req, res, url) {
      if (!paths.has(url.pathname)) return false;
      const base = options.externalURL();
      if (base === null) {
        sendMessagePage(res, 503, 'Sign-in failed', 'Set externalURL in the site configuration to use this provider.');
        return true;
      }
      if (mounted === null || mounted.base !== base) mounted = { base, handle: handlerFor(base) };
      return mounted.handle(req, res, url);
    },
    async proxy(req) {
      const found = proxyIdentityFromRequest(providers, req.headers);
      // The proxy is authoritative once it sends identity headers: from here on, every failure to sign the
      // named person in is a denial, never a fall back to the browser's session cookie (which may be someone else's).
      if (found.kind === 'not_configured' || found.kind === 'anonymous') return { kind: 'none' };
      if (found.kind === 'invalid') return { kind: 'denied', message: PROXY_HEADERS_UNUSABLE };
      const outcome = await signInWithStoreIndexes({
        provider: found.provider,
        identity: found.identity,
        signedInUserId: null,
        store,
        signInStore,
        randomBytes,
        mayUse,
      });
      if (outcome.isErr()) return { kind: 'denied', message: PROXY_SIGN_IN_FAILED };
      if (outcome.value.kind === 'denied') return { kind: 'denied', message: outcome.value.message };
      const signedIn = outcome.value;
      const user = await store.getUser(signedIn.userId);
      if (user === null) return { kind: 'denied', message: PROXY_SIGN_IN_FAILED };
      if (signedIn.created || signedIn.linked) {
        await audit({
          entity: 'auth.session',
          action: 'signed_in',
          reason: 'http-header',
          actorUserId: user.id,
          subjectUserId: user.id,
          details: { provider: 'http-header', created: String(signedIn.created), linked: String(signedIn.linked) },
        });
      }
      return { kind: 'user', user };
    },
  };
}
