/**
 * The provider sign-in routes: login and callback of the code hosts, OpenID Connect and SAML. Each
 * flow checks its single-use `state`, fetches the facts and hands an `ExternalIdentity` to `complete`, where
 * the server applies the sign-in decision (`runSignIn`). No policy lives here.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { match } from 'ts-pattern';
import type {
  AuthProvider,
  CodeHostProvider,
  CodeHostProviderType,
  OpenIdConnectProvider,
  SamlProvider,
} from '../../core/auth-providers.js';
import { callbackUrl, oauthScopes } from '../../core/provider-urls.js';
import { parseCookies, readBody, sendRedirect, serializeCookie } from '../http-io.js';
import { sendMessagePage, type CompleteSignInArgs } from './sign-in-page.js';
import { codeHostBase, codeHostEndpoints, exchangeCode, fetchCodeHostIdentity, type PublicCodeHostURLs } from './code-hosts.js';
import { createOpenIdRelyingParty, type OpenIdRelyingParty } from './openid-connect.js';
import { createSamlServiceProvider, samlBindingDigest, type SamlServiceProvider } from './saml.js';
import { upstreamTimeoutMs } from './upstream.js';
import { base64url, pkceChallenge, safeReturnTo, type StatePayload, type StateStore } from './state.js';
import type { PendingSignInLimits } from './pending.js';
import { clientAddress } from '../client-address.js';
import { clientNetwork } from '../../core/quotas.js';

/** The client network a request's pending sign-in counts against. */
const clientOf = (req: IncomingMessage): string => clientNetwork(clientAddress(req)).unwrapOr('unknown');

export { sendMessagePage, sendSignInOutcome } from './sign-in-page.js';
export type { CompleteSignInArgs } from './sign-in-page.js';
export { proxyIdentityFromRequest } from './proxy.js';
export type { ProxyRequestIdentity } from './proxy.js';
export { createMemoryStateStore } from './state.js';
export type { StatePayload, StateStore } from './state.js';
export type { PendingSignInLimits } from './pending.js';
export type { PublicCodeHostURLs } from './code-hosts.js';

/**
 * The cookie that binds a pending OAuth or OpenID Connect flow to the browser that started it (against
 * login CSRF). SAML cannot use it: its response arrives as a cross-site POST, which `SameSite=Lax` withholds;
 * it has {@link SAML_BINDING_COOKIE} instead.
 *
 * @example
 * ```ts
 * parseCookies(req.headers.cookie).get(STATE_COOKIE);
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
 * parseCookies(req.headers.cookie).get(SAML_BINDING_COOKIE);
 * ```
 */
export const SAML_BINDING_COOKIE = 'gatehouse_saml_binding';

/**
 * Options of {@link createProviderRoutes}.
 *
 * @example
 * ```ts
 * const options: ProviderRoutesOptions = {
 *   providers: configuration.authProviders, externalURL: 'https://search.example.com',
 *   now: Date.now, randomBytes, stateStore: createMemoryStateStore(Date.now), complete,
 * };
 * ```
 */
export interface ProviderRoutesOptions {
  /** The configured providers (parsed, defaults applied). */
  readonly providers: readonly AuthProvider[];
  /** The site's `externalURL`: callbacks are derived from it. */
  readonly externalURL: string;
  /** `fetch` for every request to a provider (default: the global one). */
  readonly fetch?: typeof fetch;
  /**
   * How long one call to a provider may take, in milliseconds (default 10 s): the code exchange, each page of
   * the code host's API, each OpenID Connect step. A call that times out has failed (a sign-in failure page,
   * or membership lists marked incomplete).
   */
  readonly upstreamTimeoutMs?: number;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** The random source (`state`, PKCE verifier, nonce). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Where pending flows are kept; `take` must be single use. */
  readonly stateStore: StateStore;
  /** Called once a provider vouched for a person; writes the response (sign in, or show the denial). */
  readonly complete: (args: CompleteSignInArgs) => Promise<void>;
  /** Base URLs of public editions for `hosta`/`hostccloud` entries with an empty `url`. */
  readonly publicURLs?: PublicCodeHostURLs;
  /** How long a flow may take, in milliseconds (default 10 minutes). */
  readonly stateTtlMs?: number;
  /** Bounds on pending SAML requests (per client network and in all); `stateStore` applies its own to states. */
  readonly pendingSignIns?: PendingSignInLimits;
}

/**
 * The mounted routes.
 *
 * @example
 * ```ts
 * const routes = createProviderRoutes(options);
 * if (await routes.handle(req, res, url)) return;
 * ```
 */
export interface ProviderRoutes {
  /** Every path these routes serve (mount them exactly). */
  readonly paths: readonly string[];
  /** Serves the request when its path is one of {@link ProviderRoutes.paths}; resolves `false` otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

/**
 * Why a flow stopped before `complete` (nothing written anywhere).
 *
 * @example
 * ```ts
 * const e: ProviderFlowError = { code: 'invalid_state' };
 * ```
 */
export type ProviderFlowError =
  /** The callback carries no `state` (or `RelayState`). */
  | { readonly code: 'missing_state' }
  /** The `state` is unknown, expired, already used, or was issued for another provider. */
  | { readonly code: 'invalid_state' }
  /** The `state` (or the SAML flow) was not issued to this browser (its cookie is missing or different). */
  | { readonly code: 'state_mismatch' }
  /** The provider answered with an `error` (the person cancelled, or the app is misconfigured). */
  | { readonly code: 'provider_error' }
  /** The callback carries no `code`. */
  | { readonly code: 'missing_code' }
  /** The provider refused the code, or the response failed a check (signature, nonce, audience…). */
  | { readonly code: 'response_rejected' }
  /** The provider could not be reached or answered nonsense. */
  | { readonly code: 'upstream_failed' }
  /** The provider cannot be used as configured (for example no URL for a public edition). */
  | { readonly code: 'not_configured' }
  /** The request itself is malformed (wrong method, unreadable body). */
  | { readonly code: 'bad_request' }
  /** Too many sign-ins are pending on this server (the server-wide bound); nothing was kept. */
  | { readonly code: 'too_many_pending' };

function sendFlowError(res: ServerResponse, error: ProviderFlowError): void {
  const [status, message] = match(error)
    .returnType<readonly [number, string]>()
    .with({ code: 'missing_state' }, () => [400, 'The sign-in response has no state. Start signing in again.'])
    .with({ code: 'invalid_state' }, () => [400, 'This sign-in link expired or was already used. Start signing in again.'])
    .with({ code: 'state_mismatch' }, () => [400, 'This sign-in was not started in this browser. Start signing in again.'])
    .with({ code: 'provider_error' }, () => [400, 'The provider did not sign you in (cancelled or refused).'])
    .with({ code: 'missing_code' }, () => [400, 'The sign-in response has no authorization code.'])
    .with({ code: 'response_rejected' }, () => [400, 'The sign-in response from the provider was refused.'])
    .with({ code: 'upstream_failed' }, () => [502, 'The provider could not be reached. Try again later.'])
    .with({ code: 'not_configured' }, () => [503, 'This sign-in provider is not usable as configured.'])
    .with({ code: 'bad_request' }, () => [400, 'Malformed sign-in request.'])
    .with({ code: 'too_many_pending' }, () => [503, 'Too many sign-ins are in progress. Try again in a minute.'])
    .exhaustive();
  if (error.code === 'too_many_pending') res.setHeader('retry-after', '60');
  sendMessagePage(res, status, 'Sign-in failed', message);
}

const CODE_HOST_TYPES: readonly CodeHostProviderType[] = ['hosta', 'hostb', 'hostccloud', 'hostcserver'];

function isCodeHost(provider: AuthProvider): provider is CodeHostProvider {
  return CODE_HOST_TYPES.some((t) => t === provider.type);
}

type Indexed<P> = { readonly index: number; readonly provider: P };

/**
 * Creates the provider sign-in routes:
 *
 * - `GET /.auth/<hosta|hostb|hostccloud|hostcserver|openidconnect|saml>/login?returnTo=/path[&provider=N]`
 *   redirects to the provider (`provider` picks the N-th entry of `providers` when several share a type);
 * - `GET /.auth/<hosta|hostb|hostccloud|hostcserver>/callback` and `GET /.auth/callback` (OpenID Connect);
 * - `POST /.auth/saml/acs`.
 *
 * Only the types that are configured are served.
 *
 * @param options - Providers, `externalURL`, clock, random source, state store and `complete`.
 * @returns The routes.
 * @example
 * ```ts
 * const routes = createProviderRoutes({ providers, externalURL, now, randomBytes, stateStore, complete });
 * const server = createServer(async (req, res) => {
 *   const url = new URL(req.url ?? '/', 'http://localhost');
 *   if (!(await routes.handle(req, res, url))) { res.statusCode = 404; res.end(); }
 * });
 * ```
 */
export function createProviderRoutes(options: ProviderRoutesOptions): ProviderRoutes {
  const fetchFn = options.fetch ?? fetch;
  const timeoutMs = upstreamTimeoutMs(options.upstreamTimeoutMs);
  const ttl = options.stateTtlMs ?? 600_000;
  const publicURLs = options.publicURLs ?? {};
  const secureCookie = options.externalURL.toLowerCase().startsWith('https:');
  const base = options.externalURL.replace(/\/+$/, '');
  const indexed = options.providers.map((provider, index) => ({ index, provider }));
  const codeHosts: Indexed<CodeHostProvider>[] = indexed.flatMap((e) => (isCodeHost(e.provider) ? [{ index: e.index, provider: e.provider }] : []));
  const oidc: Indexed<OpenIdConnectProvider>[] = indexed.flatMap((e) =>
    e.provider.type === 'openidconnect' ? [{ index: e.index, provider: e.provider }] : [],
  );
  const saml: Indexed<SamlProvider>[] = indexed.flatMap((e) => (e.provider.type === 'saml' ? [{ index: e.index, provider: e.provider }] : []));

  const relyingParties = new Map<number, OpenIdRelyingParty | null>();
  const relyingParty = (entry: Indexed<OpenIdConnectProvider>): OpenIdRelyingParty | null => {
    if (!relyingParties.has(entry.index)) {
      const redirect = callbackUrl(entry.provider, options.externalURL);
      relyingParties.set(entry.index, redirect.isOk() ? createOpenIdRelyingParty(entry.provider, redirect.value, fetchFn, timeoutMs) : null);
    }
    return relyingParties.get(entry.index) ?? null;
  };
  const serviceProviders = new Map<number, SamlServiceProvider | null>();
  const serviceProvider = (entry: Indexed<SamlProvider>): SamlServiceProvider | null => {
    if (!serviceProviders.has(entry.index)) {
      const acs = callbackUrl(entry.provider, options.externalURL);
      let sp: SamlServiceProvider | null = null;
      if (acs.isOk()) {
        try {
          sp = createSamlServiceProvider(entry.provider, {
            acsURL: acs.value,
            entityID: entry.provider.serviceProviderIssuer ?? `${base}/.auth/saml/metadata`,
            now: options.now,
            requestTtlMs: ttl,
            ...(options.pendingSignIns?.maxPerClient === undefined ? {} : { maxPendingRequestsPerClient: options.pendingSignIns.maxPerClient }),
            ...(options.pendingSignIns?.maxTotal === undefined ? {} : { maxPendingRequests: options.pendingSignIns.maxTotal }),
          });
        } catch {
          sp = null;
        }
      }
      serviceProviders.set(entry.index, sp);
    }
    return serviceProviders.get(entry.index) ?? null;
  };

  const random = (): string => base64url(options.randomBytes(32));
  const stateCookie = (value: string, maxAgeSeconds: number): string =>
    serializeCookie(STATE_COOKIE, value, { maxAgeSeconds, secure: secureCookie });
  // Only over https: see SAML_BINDING_COOKIE.
  const samlBindingCookie = (value: string, maxAgeSeconds: number): string =>
    `${SAML_BINDING_COOKIE}=${value}; Path=/.auth/saml; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=None`;

  const pick = <P>(entries: readonly Indexed<P>[], url: URL): Indexed<P> | null => {
    const requested = url.searchParams.get('provider');
    if (requested === null) return entries[0] ?? null;
    return entries.find((e) => String(e.index) === requested) ?? null;
  };

  // The pending state is counted against the client network that started it (a per-client bound, core quotas);
  // `null` when the server-wide bound is reached.
  const startState = (
    req: IncomingMessage,
    index: number,
    url: URL,
    codeVerifier: string | null,
    nonce: string | null,
    samlRequest: boolean,
  ): string | null => {
    const state = random();
    const payload: StatePayload = {
      providerIndex: index,
      returnTo: safeReturnTo(url.searchParams.get('returnTo')),
      codeVerifier,
      nonce,
      samlRequest,
    };
    return options.stateStore.put(state, payload, ttl, clientOf(req)) ? state : null;
  };

  // Checks the callback's state against the browser's cookie, then takes it (single use).
  const takeState = (req: IncomingMessage, url: URL, entries: readonly Indexed<AuthProvider>[]): StatePayload | ProviderFlowError => {
    const state = url.searchParams.get('state');
    if (state === null || state === '') return { code: 'missing_state' };
    const cookie = parseCookies(req.headers.cookie).get(STATE_COOKIE);
    if (cookie === undefined || cookie !== state) return { code: 'state_mismatch' };
    const payload = options.stateStore.take(state);
    if (payload === null || payload.samlRequest || !entries.some((e) => e.index === payload.providerIndex)) {
      return { code: 'invalid_state' };
    }
    return payload;
  };

  const finish = async (
    provider: AuthProvider,
    identity: CompleteSignInArgs['identity'],
    req: IncomingMessage,
    res: ServerResponse,
    returnTo: string,
  ): Promise<void> => {
    res.setHeader('set-cookie', stateCookie('', 0));
    await options.complete({ provider, identity, req, res, returnTo });
  };

  const codeHostLogin = async (type: CodeHostProviderType, req: IncomingMessage, url: URL, res: ServerResponse): Promise<boolean> => {
    const entry = pick(codeHosts.filter((e) => e.provider.type === type), url);
    if (entry === null) return false;
    const hostBase = codeHostBase(entry.provider, publicURLs);
    const redirect = callbackUrl(entry.provider, options.externalURL);
    const scopes = oauthScopes(entry.provider);
    if (hostBase === null || redirect.isErr() || scopes.isErr()) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    const endpoints = codeHostEndpoints(entry.provider, hostBase);
    const verifier = endpoints.pkce ? random() : null;
    const state = startState(req, entry.index, url, verifier, null, false);
    if (state === null) {
      sendFlowError(res, { code: 'too_many_pending' });
      return true;
    }
    const authorize = new URL(endpoints.authorizeURL);
    authorize.searchParams.set('client_id', endpoints.clientId);
    authorize.searchParams.set('redirect_uri', redirect.value);
    authorize.searchParams.set('response_type', 'code');
    if (scopes.value.length > 0) authorize.searchParams.set('scope', scopes.value.join(' '));
    authorize.searchParams.set('state', state);
    if (verifier !== null) {
      authorize.searchParams.set('code_challenge', pkceChallenge(verifier));
      authorize.searchParams.set('code_challenge_method', 'S256');
    }
    let location = authorize.href;
    // §5.3 hostb rule 6: a group that requires SAML SSO is entered through its SSO URL, which then
    // continues (a path on the same host) to the authorization request.
    if (entry.provider.type === 'hostb' && entry.provider.ssoURL !== undefined) {
      const sso = new URL(entry.provider.ssoURL);
      sso.searchParams.set('redirect', `${authorize.pathname}${authorize.search}`);
      location = sso.href;
    }
    sendRedirect(res, location, { 'set-cookie': stateCookie(state, Math.ceil(ttl / 1000)) });
    return true;
  };

  const codeHostCallback = async (type: CodeHostProviderType, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const entries = codeHosts.filter((e) => e.provider.type === type);
    if (entries.length === 0) return false;
    const payload = takeState(req, url, entries);
    if ('code' in payload) {
      sendFlowError(res, payload);
      return true;
    }
    const entry = entries.find((e) => e.index === payload.providerIndex);
    const hostBase = entry === undefined ? null : codeHostBase(entry.provider, publicURLs);
    const redirect = entry === undefined ? null : callbackUrl(entry.provider, options.externalURL);
    if (entry === undefined || hostBase === null || redirect === null || redirect.isErr()) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    if (url.searchParams.has('error')) {
      sendFlowError(res, { code: 'provider_error' });
      return true;
    }
    const code = url.searchParams.get('code');
    if (code === null || code === '') {
      sendFlowError(res, { code: 'missing_code' });
      return true;
    }
    const endpoints = codeHostEndpoints(entry.provider, hostBase);
    const token = await exchangeCode(endpoints, code, redirect.value, payload.codeVerifier, fetchFn, timeoutMs);
    if (token.kind !== 'token') {
      sendFlowError(res, { code: token.kind === 'rejected' ? 'response_rejected' : 'upstream_failed' });
      return true;
    }
    const fetched = await fetchCodeHostIdentity(entry.provider, hostBase, token.accessToken, fetchFn, timeoutMs);
    if (!fetched.ok) {
      sendFlowError(res, { code: 'upstream_failed' });
      return true;
    }
    await finish(entry.provider, fetched.identity, req, res, payload.returnTo);
    return true;
  };

  const oidcLogin = async (req: IncomingMessage, url: URL, res: ServerResponse): Promise<boolean> => {
    const entry = pick(oidc, url);
    if (entry === null) return false;
    const rp = relyingParty(entry);
    if (rp === null) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    const verifier = random();
    const nonce = random();
    const state = startState(req, entry.index, url, verifier, nonce, false);
    if (state === null) {
      sendFlowError(res, { code: 'too_many_pending' });
      return true;
    }
    const location = await rp.authorizationURL({ state, nonce, codeChallenge: pkceChallenge(verifier) });
    if (location === null) {
      options.stateStore.take(state);
      sendFlowError(res, { code: 'upstream_failed' });
      return true;
    }
    sendRedirect(res, location.href, { 'set-cookie': stateCookie(state, Math.ceil(ttl / 1000)) });
    return true;
  };

  const oidcCallback = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (oidc.length === 0) return false;
    const payload = takeState(req, url, oidc);
    if ('code' in payload) {
      sendFlowError(res, payload);
      return true;
    }
    const entry = oidc.find((e) => e.index === payload.providerIndex);
    const rp = entry === undefined ? null : relyingParty(entry);
    const redirect = entry === undefined ? null : callbackUrl(entry.provider, options.externalURL);
    if (entry === undefined || rp === null || redirect === null || redirect.isErr()) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    if (payload.codeVerifier === null || payload.nonce === null) {
      sendFlowError(res, { code: 'invalid_state' });
      return true;
    }
    if (url.searchParams.has('error')) {
      sendFlowError(res, { code: 'provider_error' });
      return true;
    }
    if (!url.searchParams.has('code')) {
      sendFlowError(res, { code: 'missing_code' });
      return true;
    }
    const current = new URL(redirect.value);
    current.search = url.search;
    const result = await rp.callback(current, {
      state: url.searchParams.get('state') ?? '',
      nonce: payload.nonce,
      codeVerifier: payload.codeVerifier,
    });
    if (result.kind !== 'identity') {
      sendFlowError(res, { code: result.kind === 'refused' ? 'response_rejected' : 'upstream_failed' });
      return true;
    }
    await finish(entry.provider, result.identity, req, res, payload.returnTo);
    return true;
  };

  const samlLogin = async (req: IncomingMessage, url: URL, res: ServerResponse): Promise<boolean> => {
    const entry = pick(saml, url);
    if (entry === null) return false;
    const sp = serviceProvider(entry);
    if (sp === null) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    const state = startState(req, entry.index, url, null, null, true);
    if (state === null) {
      sendFlowError(res, { code: 'too_many_pending' });
      return true;
    }
    const binding = secureCookie ? random() : null;
    const authorization = await sp.authorizationURL(
      { relayState: state, browserDigest: binding === null ? null : samlBindingDigest(binding) },
      clientOf(req),
    );
    if (authorization.kind !== 'redirect') {
      options.stateStore.take(state);
      sendFlowError(res, { code: authorization.kind === 'busy' ? 'too_many_pending' : 'not_configured' });
      return true;
    }
    sendRedirect(res, authorization.url, binding === null ? {} : { 'set-cookie': samlBindingCookie(binding, Math.ceil(ttl / 1000)) });
    return true;
  };

  const samlAcs = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (saml.length === 0) return false;
    if (req.method !== 'POST') {
      sendFlowError(res, { code: 'bad_request' });
      return true;
    }
    const body = await readBody(req, 512 * 1024);
    if (body.isErr()) {
      sendFlowError(res, { code: 'bad_request' });
      return true;
    }
    // The binding cookie is left to expire (Max-Age: the flow's lifetime): it matches only its own flow, which is
    // spent below whatever the outcome, and clearing it on a failed post would let a forged cross-site post end
    // the browser's own pending sign-in.
    const form = new URLSearchParams(body.value);
    const relayState = form.get('RelayState');
    if (relayState === null || relayState === '') {
      sendFlowError(res, { code: 'missing_state' });
      return true;
    }
    const payload = options.stateStore.take(relayState);
    const entry = payload === null || !payload.samlRequest ? undefined : saml.find((e) => e.index === payload.providerIndex);
    if (payload === null || entry === undefined) {
      sendFlowError(res, { code: 'invalid_state' });
      return true;
    }
    const sp = serviceProvider(entry);
    const response = form.get('SAMLResponse');
    if (sp === null) {
      sendFlowError(res, { code: 'not_configured' });
      return true;
    }
    if (response === null || response === '') {
      sendFlowError(res, { code: 'missing_code' });
      return true;
    }
    const cookie = parseCookies(req.headers.cookie).get(SAML_BINDING_COOKIE);
    const result = await sp.consume(response, {
      relayState,
      browserDigest: cookie === undefined || cookie === '' ? null : samlBindingDigest(cookie),
    });
    if (result.kind !== 'identity') {
      sendFlowError(res, { code: result.kind === 'not_this_browser' ? 'state_mismatch' : 'response_rejected' });
      return true;
    }
    await options.complete({ provider: entry.provider, identity: result.identity, req, res, returnTo: payload.returnTo });
    return true;
  };

  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>>();
  for (const type of CODE_HOST_TYPES) {
    if (!codeHosts.some((e) => e.provider.type === type)) continue;
    routes.set(`/.auth/${type}/login`, (req, res, url) => codeHostLogin(type, req, url, res));
    routes.set(`/.auth/${type}/callback`, (req, res, url) => codeHostCallback(type, req, res, url));
  }
  if (oidc.length > 0) {
    routes.set('/.auth/openidconnect/login', (req, res, url) => oidcLogin(req, url, res));
    routes.set('/.auth/callback', oidcCallback);
  }
  if (saml.length > 0) {
    routes.set('/.auth/saml/login', (req, res, url) => samlLogin(req, url, res));
    routes.set('/.auth/saml/acs', (req, res) => samlAcs(req, res));
  }
  const getOnly = new Set([...routes.keys()].filter((p) => p !== '/.auth/saml/acs'));

  return {
    paths: [...routes.keys()],
    async handle(req, res, url) {
      const route = routes.get(url.pathname);
      if (route === undefined) return false;
      if (getOnly.has(url.pathname) && req.method !== 'GET' && req.method !== 'HEAD') {
        sendFlowError(res, { code: 'bad_request' });
        return true;
      }
      return route(req, res, url);
    },
  };
}
