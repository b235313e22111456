/**
 * The login and callback routes of the code hosts (spec §5.3 `hosta`, `hostb`, `hostccloud`, `hostcserver`):
 * an OAuth authorization request with `state` (and PKCE where the host supports it), then the code exchange
 * and the host's account of the person, handed to the sign-in flow.
 *
 * @module
 */
import type { CodeHostProvider, CodeHostProviderType } from 'gatehouse-auth';
import { CODE_HOST_PROVIDER_TYPES, callbackUrl, oauthScopes } from 'gatehouse-auth';
import { callbackPath, loginPath, ROUTE_FAMILIES } from './paths.js';
import type { Route, RouteRequest, RouteResponse } from '../kernel/route.js';
import { codeHostBase, codeHostEndpoints, exchangeCode, fetchCodeHostIdentity } from '../providers/code-hosts.js';
import { reportingFetch } from '../providers/call-failures.js';
import { pickProvider, type FlowContext } from './flow-context.js';
import { flowErrorResponse, redirectResponse } from './responses.js';
import { pkceChallenge } from './state.js';

/** The code host provider types, in the order their routes are listed: the `code_host` family of the registry. */
export const CODE_HOST_TYPES: readonly CodeHostProviderType[] = CODE_HOST_PROVIDER_TYPES.filter((type) => ROUTE_FAMILIES[type] === 'code_host');

type Indexed = { readonly index: number; readonly provider: CodeHostProvider };

/** A login or callback route answers only `GET` (and `HEAD`); anything else is a malformed sign-in request. */
const getOnly = (request: RouteRequest): RouteResponse | null =>
  request.method === 'GET' || request.method === 'HEAD' ? null : flowErrorResponse({ code: 'bad_request' });

async function login(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  const entry = pickProvider(entries, request.url);
  if (entry === null) return flowErrorResponse({ code: 'not_configured' });
  const hostBase = codeHostBase(entry.provider, ctx.deps.publicURLs);
  const base = ctx.base();
  if (base === null) return flowErrorResponse({ code: 'not_configured' });
  const redirect = callbackUrl(entry.provider, base);
  const scopes = oauthScopes(entry.provider);
  if (hostBase === null || redirect.isErr() || scopes.isErr()) return flowErrorResponse({ code: 'not_configured' });
  const endpoints = codeHostEndpoints(entry.provider, hostBase);
  const verifier = endpoints.pkce ? ctx.random() : null;
  const state = await ctx.startState(request, entry.index, verifier, null, false);
  if (state === null) return flowErrorResponse({ code: 'too_many_pending' });
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
  return redirectResponse(location, [ctx.stateCookie(state, Math.ceil(ctx.ttlMs / 1000))]);
}

async function callback(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  const payload = await ctx.takeState(request, entries.map((e) => e.index));
  if ('code' in payload) return flowErrorResponse(payload);
  const entry = entries.find((e) => e.index === payload.providerIndex);
  const hostBase = entry === undefined ? null : codeHostBase(entry.provider, ctx.deps.publicURLs);
  const base = ctx.base();
  const redirect = entry === undefined || base === null ? null : callbackUrl(entry.provider, base);
  if (entry === undefined || hostBase === null || redirect === null || redirect.isErr()) return flowErrorResponse({ code: 'not_configured' });
  const { searchParams } = request.url;
  if (searchParams.has('error')) return flowErrorResponse({ code: 'provider_error' });
  const code = searchParams.get('code');
  if (code === null || code === '') return flowErrorResponse({ code: 'missing_code' });
  const { upstreamTimeoutMs } = ctx.deps;
  const fetchFn = reportingFetch(ctx.deps.fetch, entry.provider.type, ctx.deps.log);
  const endpoints = codeHostEndpoints(entry.provider, hostBase);
  const token = await exchangeCode(endpoints, code, redirect.value, payload.codeVerifier, fetchFn, upstreamTimeoutMs);
  if (token.kind !== 'token') return flowErrorResponse({ code: token.kind === 'rejected' ? 'response_rejected' : 'upstream_failed' });
  const fetched = await fetchCodeHostIdentity(entry.provider, hostBase, token.accessToken, fetchFn, upstreamTimeoutMs);
  if (!fetched.ok) return flowErrorResponse({ code: 'upstream_failed' });
  return ctx.complete(request, entry.provider, fetched.identity, payload.returnTo, true);
}

/**
 * The routes of the configured code hosts: `GET /.auth/<type>/login?returnTo=/path[&provider=N]` and
 * `GET /.auth/<type>/callback` for each configured type (`provider` picks the N-th entry of `auth.providers`
 * when several share a type). A `POST` is answered 400.
 *
 * @param ctx - The shared flow context.
 * @returns The routes, two per configured code host type.
 * @example
 * ```ts
 * codeHostRoutes(createFlowContext(deps)).map((r) => r.path); // ['/.auth/hosta/login', '/.auth/hosta/callback']
 * ```
 */
export function codeHostRoutes(ctx: FlowContext): readonly Route[] {
  return CODE_HOST_TYPES.flatMap((type): Route[] => {
    const entries = ctx.deps.providers.flatMap((provider, index): Indexed[] => (provider.type === type ? [{ index, provider }] : []));
    if (entries.length === 0) return [];
    return [
      { methods: ['GET', 'POST'], path: loginPath(type), handler: async (request) => getOnly(request) ?? login(ctx, entries, request) },
      { methods: ['GET', 'POST'], path: callbackPath(type), handler: async (request) => getOnly(request) ?? callback(ctx, entries, request) },
    ];
  });
}
