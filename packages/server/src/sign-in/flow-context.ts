/**
 * What every provider sign-in route shares: its dependencies ({@link SignInRouteDeps}), the flow's `state`
 * (started in the store's ephemeral part, bound to the browser by a cookie, taken once), and the completion of
 * a sign-in once a provider vouched for a person (the sign-in flow decides; a session starts; the audit log
 * records it).
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import type { AuthProvider, ExternalIdentity } from 'gatehouse-auth';
import { clientNetwork, providerSignsIn, safeReturnTo } from 'gatehouse-auth';
import type { ResponseCookie, RouteRequest, RouteResponse } from '../kernel/route.js';
import type { Store } from '../store/types.js';
import type { SignInFlowError, SignInOutcome } from './flow.js';
import type { PublicCodeHostURLs } from '../providers/code-hosts.js';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';
import type { LogEntry } from '../kernel/logging.js';
import type { PendingSignInLimits } from './pending.js';
import { messagePage, signInOutcomeResponse, type ProviderFlowError } from './responses.js';
import { explainRefusal, refusalPage } from './refusal.js';
import { base64url, startFlowState, takeFlowState, type StatePayload } from './state.js';

/**
 * The cookie that binds a pending OAuth or OpenID Connect flow to the browser that started it (against login
 * CSRF). SAML cannot use it: its response arrives as a cross-site POST, which `SameSite=Lax` withholds; it has
 * {@link SAML_BINDING_COOKIE} instead.
 *
 * @example
 * ```ts
 * request.cookies.get(STATE_COOKIE);
 * ```
 */
export const STATE_COOKIE = 'gatehouse_auth_state';

/**
 * The cookie that binds a pending SAML flow to the browser that started it (against login CSRF): a random
 * value, set by the login route, whose digest is remembered with the flow's `AuthnRequest` and `RelayState`;
 * the ACS refuses a response posted without it. Since the identity provider's POST is cross-site, the cookie
 * is `SameSite=None; Secure; HttpOnly; Path=/.auth/saml`, so it is only used when `externalURL` is https.
 * Over http (development) browsers refuse `SameSite=None` without `Secure`, and a `Lax` cookie would not be
 * sent with the POST: the binding is then not enforced (the response must still answer the `RelayState`'s own
 * `AuthnRequest`).
 *
 * @example
 * ```ts
 * request.cookies.get(SAML_BINDING_COOKIE);
 * ```
 */
export const SAML_BINDING_COOKIE = 'gatehouse_saml_binding';

/**
 * The input of {@link SignInRouteDeps.signIn}: who the provider vouched for, and who is signed in already.
 *
 * @example
 * ```ts
 * const input: ProviderSignInInput = { provider, identity, signedInUserId: null };
 * ```
 */
export interface ProviderSignInInput {
  /** The provider the person came through. */
  readonly provider: AuthProvider;
  /** What the provider reported. */
  readonly identity: ExternalIdentity;
  /** The account of the request's session, or `null`. */
  readonly signedInUserId: string | null;
}

/**
 * What the provider sign-in routes need, built once by the server and passed down (no late binding).
 *
 * @example
 * ```ts
 * const deps: SignInRouteDeps = {
 *   providers, externalURL: 'https://search.example.com', store, now: Date.now, randomBytes, fetch,
 *   upstreamTimeoutMs: 10_000, publicURLs: DEFAULT_PUBLIC_CODE_HOST_URLS, pendingSignIns: {},
 *   currentUserId, signIn, startSession, audit,
 * };
 * ```
 */
export interface SignInRouteDeps {
  /** The configured providers (`auth.providers`, parsed, defaults applied); `provider=N` indexes them. */
  readonly providers: readonly AuthProvider[];
  /**
   * The site's public URL (`externalURL`, else the URL the server listens on): callbacks derive from it. A
   * function is read at each request (`null` while the server does not know its URL yet: the flow is refused
   * as not configured).
   */
  readonly externalURL: string | (() => string | null);
  /**
   * The store: flow state (`flow_state`) and SAML request ids (`saml_request`) live in its ephemeral part; a
   * sign-in's account, session and audit entry are written in one of its transactions.
   */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source (`state`, PKCE verifier, nonce, SAML binding cookie). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** `fetch` for every request to a provider. */
  readonly fetch: typeof fetch;
  /** How long one call to a provider may take, in milliseconds; a call that times out has failed. */
  readonly upstreamTimeoutMs: number;
  /** Base URLs of public editions for `hosta`/`hostccloud` entries with an empty `url`. */
  readonly publicURLs: PublicCodeHostURLs;
  /** Bounds on pending sign-ins per client network and in all (each kind bounded on its own). */
  readonly pendingSignIns: PendingSignInLimits;
  /** How long a flow may take, in milliseconds (default 10 minutes). */
  readonly stateTtlMs?: number;
  /** The account the request's session is signed in to, or `null` (a sign-in then links to it, §5.4 rule 4). */
  readonly currentUserId: (request: RouteRequest) => Promise<string | null>;
  /** The sign-in flow: decides with the core and writes the decision to `into` (the transaction's store). */
  readonly signIn: (input: ProviderSignInInput, into: Store) => Promise<Result<SignInOutcome, SignInFlowError>>;
  /** Starts a session for the account in `into` (a new session id at every sign-in); its cookie, or `null` on failure. */
  readonly startSession: (request: RouteRequest, userId: string, into: Store) => Promise<ResponseCookie | null>;
  /** Records an audit entry. */
  readonly audit: AuditSink;
  /** Where a failed call to a provider is logged (`provider_call_failed`); none: not logged. */
  readonly log?: (entry: LogEntry) => void;
}

/** What a completed sign-in wrote: the outcome and, when signed in, the new session's cookie. */
interface SignedIn {
  readonly outcome: SignInOutcome;
  readonly cookie: ResponseCookie | null;
}

/**
 * The shared part of the provider routes, built once from {@link SignInRouteDeps}.
 *
 * @internal
 */
export interface FlowContext {
  /** The dependencies. */
  readonly deps: SignInRouteDeps;
  /** The site's URL without trailing slashes, or `null` while it is unknown. */
  base(): string | null;
  /** Whether the site is served over https (cookies get `Secure`; SAML flows are bound to the browser). */
  secure(): boolean;
  /** The flow lifetime, milliseconds. */
  readonly ttlMs: number;
  /** A fresh random value (32 bytes, base64url). */
  random(): string;
  /** The `state` cookie with this value and lifetime (`''` and 0 clear it). */
  stateCookie(value: string, maxAgeSeconds: number): ResponseCookie;
  /** The SAML binding cookie with this value and lifetime. */
  samlBindingCookie(value: string, maxAgeSeconds: number): ResponseCookie;
  /** The client network a request's pending sign-in counts against. */
  clientOf(request: RouteRequest): string;
  /** Starts a flow's state; its value, or `null` when the pending bound refused it. */
  startState(request: RouteRequest, index: number, codeVerifier: string | null, nonce: string | null, samlRequest: boolean): Promise<string | null>;
  /** Checks the callback's `state` against the browser's cookie, then takes it (single use). */
  takeState(request: RouteRequest, indexes: readonly number[]): Promise<StatePayload | ProviderFlowError>;
  /** Runs the sign-in for a vouched-for identity and answers it. */
  complete(request: RouteRequest, provider: AuthProvider, identity: ExternalIdentity, returnTo: string, clearState: boolean): Promise<RouteResponse>;
}

/**
 * Builds a value from the site's URL once per URL: the relying parties and service providers a flow needs are
 * made for the URL their callbacks derive from, and made again only if that URL changes.
 *
 * @param ctx - The flow context.
 * @param build - Makes the value for one site URL.
 * @returns A function giving the value for the current URL, or `null` while the URL is unknown.
 * @example
 * ```ts
 * const entries = perSiteURL(ctx, (base) => providers.map((p) => relyingPartyFor(p, base)));
 * entries(); // null until the site's URL is known
 * ```
 * @internal
 */
export function perSiteURL<T>(ctx: FlowContext, build: (base: string) => T): () => T | null {
  let last: { readonly base: string; readonly value: T } | null = null;
  return () => {
    const base = ctx.base();
    if (base === null) return null;
    if (last === null || last.base !== base) last = { base, value: build(base) };
    return last.value;
  };
}

/**
 * The entry the request's `provider=N` names (N: the index in `auth.providers`), or the first entry when the
 * request names none; `null` when it names one that is not among `entries`.
 *
 * @param entries - The configured providers of one type, with their indexes.
 * @param url - The request URL.
 * @returns The entry, or `null`.
 * @example
 * ```ts
 * pickProvider([{ index: 2, provider }], new URL('https://s.example/.auth/saml/login?provider=2')); // { index: 2, provider }
 * ```
 * @internal
 */
export function pickProvider<E extends { readonly index: number }>(entries: readonly E[], url: URL): E | null {
  const requested = url.searchParams.get('provider');
  if (requested === null) return entries[0] ?? null;
  return entries.find((e) => String(e.index) === requested) ?? null;
}

/**
 * Builds the shared part of the provider routes.
 *
 * @param deps - The dependencies.
 * @returns The context.
 * @example
 * ```ts
 * const ctx = createFlowContext(deps);
 * const routes = [...codeHostRoutes(ctx), ...openIdConnectRoutes(ctx), ...samlRoutes(ctx)];
 * ```
 * @internal
 */
export function createFlowContext(deps: SignInRouteDeps): FlowContext {
  const ttlMs = deps.stateTtlMs ?? 600_000;
  const { externalURL } = deps;
  const site = typeof externalURL === 'string' ? (): string | null => externalURL : externalURL;
  const base = (): string | null => site()?.replace(/\/+$/, '') ?? null;
  const secure = (): boolean => site()?.toLowerCase().startsWith('https:') ?? false;
  const clientOf = (request: RouteRequest): string => clientNetwork(request.clientAddress).unwrapOr('unknown');
  const stateCookie = (value: string, maxAgeSeconds: number): ResponseCookie => ({
    name: STATE_COOKIE,
    value,
    path: '/',
    maxAgeSeconds,
    sameSite: 'Lax',
    secure: secure(),
    httpOnly: true,
  });
  return {
    deps,
    base,
    secure,
    ttlMs,
    random: () => base64url(deps.randomBytes(32)),
    stateCookie,
    // Only over https: see SAML_BINDING_COOKIE.
    samlBindingCookie: (value, maxAgeSeconds) => ({
      name: SAML_BINDING_COOKIE,
      value,
      path: '/.auth/saml',
      maxAgeSeconds,
      sameSite: 'None',
      secure: true,
      httpOnly: true,
    }),
    clientOf,
    async startState(request, index, codeVerifier, nonce, samlRequest) {
      const state = base64url(deps.randomBytes(32));
      const payload: StatePayload = {
        providerIndex: index,
        returnTo: safeReturnTo(request.url.searchParams.get('returnTo'), '/'),
        codeVerifier,
        nonce,
        samlRequest,
      };
      const options = { ttlMs, client: clientOf(request), limits: deps.pendingSignIns, now: deps.now() };
      return (await startFlowState(deps.store, state, payload, options)).isOk() ? state : null;
    },
    async takeState(request, indexes) {
      const state = request.url.searchParams.get('state');
      if (state === null || state === '') return { code: 'missing_state' };
      const cookie = request.cookies.get(STATE_COOKIE);
      if (cookie === undefined || cookie !== state) return { code: 'state_mismatch' };
      const payload = await takeFlowState(deps.store, state, deps.now());
      if (payload === null || payload.samlRequest || !indexes.includes(payload.providerIndex)) return { code: 'invalid_state' };
      return payload;
    },
    async complete(request, provider, identity, returnTo, clearState) {
      const always = clearState ? [stateCookie('', 0)] : [];
      const signedInUserId = await deps.currentUserId(request);
      // a `noSignIn` provider only links an identity to the account already signed in (from Account security)
      if (signedInUserId === null && !providerSignsIn(provider)) {
        await deps.audit(
          { entity: 'auth.session', action: 'failed', reason: 'provider_no_sign_in', actorUserId: null, subjectUserId: null, details: { provider: provider.type } },
          deps.store,
        );
        return {
          ...messagePage(403, 'Sign-in not offered', 'This provider does not sign people in on this site. Sign in another way, then connect it from Account security.'),
          cookies: always,
        };
      }
      // the account the sign-in creates or links, its session and its audit entry are kept together or not at all
      const done = await auditedTransaction(deps.store, async (tx): Promise<Result<SignedIn, SignInFlowError | 'no_session'>> => {
        const outcome = await deps.signIn({ provider, identity, signedInUserId }, tx);
        if (outcome.isErr()) return err(outcome.error);
        if (outcome.value.kind !== 'signed_in') return ok({ outcome: outcome.value, cookie: null });
        const signedIn = outcome.value;
        // a new session id at every sign-in (the previous one, if any, ends)
        const cookie = await deps.startSession(request, signedIn.userId, tx);
        if (cookie === null) return err('no_session');
        await deps.audit(
          {
            entity: 'auth.session',
            action: 'signed_in',
            reason: provider.type,
            actorUserId: signedIn.userId,
            subjectUserId: signedIn.userId,
            details: { provider: provider.type, created: String(signedIn.created), linked: String(signedIn.linked) },
          },
          tx,
        );
        return ok({ outcome: signedIn, cookie });
      });
      if (done.isErr() && done.error === 'no_session') return { ...messagePage(500, 'Sign-in failed', 'Could not start a session.'), cookies: always };
      if (done.isOk() && done.value.outcome.kind === 'denied') {
        // a refusal changes nothing: it is recorded as an event, with the rules that refused and a reference code
        const refusal = await explainRefusal(deps.store, { provider, identity, signedInUserId }, deps.randomBytes);
        await deps.audit(
          {
            entity: 'auth.session',
            action: 'failed',
            reason: done.value.outcome.reason,
            actorUserId: null,
            subjectUserId: null,
            details: { provider: provider.type, reference: refusal.reference, ...refusal.details },
          },
          deps.store,
        );
        return { ...refusalPage(done.value.outcome.message, refusal), cookies: always };
      }
      const outcome: Result<SignInOutcome, SignInFlowError> = done.isOk()
        ? ok(done.value.outcome)
        : err(done.error === 'no_session' ? { code: 'sign_in_error', error: { code: 'invalid_sign_in_input', path: 'input' } } : done.error);
      return signInOutcomeResponse(outcome, returnTo, done.isOk() && done.value.cookie !== null ? [done.value.cookie] : [], always);
    },
  };
}
