/**
 * The OpenID Connect routes (spec §5.3 `openidconnect`): `GET /.auth/openidconnect/login` sends the browser to
 * the provider with `state`, `nonce` and PKCE; `GET /.auth/callback` checks them and hands the identity to the
 * sign-in flow.
 *
 * @module
 */
import type { OpenIdConnectProvider } from 'gatehouse-auth';
import { callbackUrl } from 'gatehouse-auth';
import { callbackPath, loginPath } from './paths.js';
import type { Route, RouteRequest, RouteResponse } from '../kernel/route.js';
import { perSiteURL, pickProvider, type FlowContext } from './flow-context.js';
import { createOpenIdRelyingParty, type OpenIdRelyingParty } from '../providers/openid-connect.js';
import { callFailureCode, logCallFailure } from '../providers/call-failures.js';
import { flowErrorResponse, redirectResponse } from './responses.js';
import { pendingKey } from './pending.js';
import { pkceChallenge } from './state.js';

type Indexed = { readonly index: number; readonly provider: OpenIdConnectProvider; readonly rp: OpenIdRelyingParty | null };

const getOnly = (request: RouteRequest): RouteResponse | null =>
  request.method === 'GET' || request.method === 'HEAD' ? null : flowErrorResponse({ code: 'bad_request' });

async function login(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  const entry = pickProvider(entries, request.url);
  if (entry === null) return flowErrorResponse({ code: 'not_configured' });
  const { rp } = entry;
  if (rp === null) return flowErrorResponse({ code: 'not_configured' });
  const verifier = ctx.random();
  const nonce = ctx.random();
  const state = await ctx.startState(request, entry.index, verifier, nonce, false);
  if (state === null) return flowErrorResponse({ code: 'too_many_pending' });
  const location = await rp.authorizationURL({ state, nonce, codeChallenge: pkceChallenge(verifier) });
  if (location === null) {
    await ctx.deps.store.ephemeral.delete('flow_state', pendingKey(state), ctx.deps.now());
    return flowErrorResponse({ code: 'upstream_failed' });
  }
  return redirectResponse(location.href, [ctx.stateCookie(state, Math.ceil(ctx.ttlMs / 1000))]);
}

async function callback(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  const payload = await ctx.takeState(request, entries.map((e) => e.index));
  if ('code' in payload) return flowErrorResponse(payload);
  const entry = entries.find((e) => e.index === payload.providerIndex);
  const base = ctx.base();
  const redirect = entry === undefined || base === null ? null : callbackUrl(entry.provider, base);
  if (entry === undefined || entry.rp === null || redirect === null || redirect.isErr()) return flowErrorResponse({ code: 'not_configured' });
  if (payload.codeVerifier === null || payload.nonce === null) return flowErrorResponse({ code: 'invalid_state' });
  const { searchParams } = request.url;
  if (searchParams.has('error')) return flowErrorResponse({ code: 'provider_error' });
  if (!searchParams.has('code')) return flowErrorResponse({ code: 'missing_code' });
  const current = new URL(redirect.value);
  current.search = request.url.search;
  const result = await entry.rp.callback(current, {
    state: searchParams.get('state') ?? '',
    nonce: payload.nonce,
    codeVerifier: payload.codeVerifier,
  });
  if (result.kind !== 'identity') return flowErrorResponse({ code: result.kind === 'refused' ? 'response_rejected' : 'upstream_failed' });
  return ctx.complete(request, entry.provider, result.identity, payload.returnTo, true);
}

/**
 * The OpenID Connect routes, when an `openidconnect` provider is configured: `GET /.auth/openidconnect/login
 * ?returnTo=/path[&provider=N]` and `GET /.auth/callback` (§5.3 openidconnect rule 2). A `POST` is answered 400.
 * Each provider's relying party is built once per site URL (discovery runs on first use).
 *
 * @param ctx - The shared flow context.
 * @returns The routes (none without an `openidconnect` provider).
 * @example
 * ```ts
 * openIdConnectRoutes(createFlowContext(deps)).map((r) => r.path); // ['/.auth/openidconnect/login', '/.auth/callback']
 * ```
 */
export function openIdConnectRoutes(ctx: FlowContext): readonly Route[] {
  if (!ctx.deps.providers.some((p) => p.type === 'openidconnect')) return [];
  const entriesFor = perSiteURL(ctx, (base) =>
    ctx.deps.providers.flatMap((provider, index): Indexed[] => {
      if (provider.type !== 'openidconnect') return [];
      const redirect = callbackUrl(provider, base);
      const onFailure = (step: string, error: unknown): void =>
        logCallFailure(ctx.deps.log, { provider: 'openidconnect', url: provider.issuer, step, code: callFailureCode(error) });
      const rp = redirect.isOk() ? createOpenIdRelyingParty(provider, redirect.value, ctx.deps.fetch, ctx.deps.upstreamTimeoutMs, onFailure) : null;
      return [{ index, provider, rp }];
    }),
  );
  const withEntries =
    (step: (ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest) => Promise<RouteResponse>) =>
    async (request: RouteRequest): Promise<RouteResponse> => {
      const refused = getOnly(request);
      if (refused !== null) return refused;
      const entries = entriesFor();
      return entries === null ? flowErrorResponse({ code: 'not_configured' }) : step(ctx, entries, request);
    };
  return [
    { methods: ['GET', 'POST'], path: loginPath('openidconnect'), handler: withEntries(login) },
    { methods: ['GET', 'POST'], path: callbackPath('openidconnect'), handler: withEntries(callback) },
  ];
}
