/**
 * The SAML routes (spec §5.2): `GET /.auth/saml/login` sends the browser to the identity provider
 * with an `AuthnRequest` and a `RelayState` (the flow's `state`), binding the flow to the browser over https;
 * `POST /.auth/saml/acs` takes the flow once and hands the checked assertion's identity to the sign-in flow.
 *
 * @module
 */
import type { SamlProvider } from 'gatehouse-auth';
import { callbackUrl } from 'gatehouse-auth';
import { callbackPath, loginPath } from './paths.js';
import type { Route, RouteRequest, RouteResponse } from '../kernel/route.js';
import { perSiteURL, pickProvider, SAML_BINDING_COOKIE, type FlowContext } from './flow-context.js';
import { pendingKey } from './pending.js';
import { flowErrorResponse, redirectResponse } from './responses.js';
import { createSamlServiceProvider, samlBindingDigest, type SamlServiceProvider } from './saml-service-provider.js';
import { takeFlowState } from './state.js';

/** The largest `SAMLResponse` form the ACS reads, in bytes. */
export const SAML_ACS_BODY_LIMIT: number = 512 * 1024;

type Indexed = { readonly index: number; readonly provider: SamlProvider; readonly sp: SamlServiceProvider | null };

function serviceProviderOf(ctx: FlowContext, provider: SamlProvider, base: string): SamlServiceProvider | null {
  const acs = callbackUrl(provider, base);
  if (acs.isErr()) return null;
  const limits = ctx.deps.pendingSignIns;
  try {
    return createSamlServiceProvider(provider, {
      acsURL: acs.value,
      entityID: provider.serviceProviderIssuer ?? `${base}/.auth/saml/metadata`,
      store: ctx.deps.store,
      now: ctx.deps.now,
      requestTtlMs: ctx.ttlMs,
      ...(limits.maxPerClient === undefined ? {} : { maxPendingRequestsPerClient: limits.maxPerClient }),
      ...(limits.maxTotal === undefined ? {} : { maxPendingRequests: limits.maxTotal }),
    });
  } catch {
    return null;
  }
}

async function login(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return flowErrorResponse({ code: 'bad_request' });
  const entry = pickProvider(entries, request.url);
  if (entry === null || entry.sp === null) return flowErrorResponse({ code: 'not_configured' });
  const state = await ctx.startState(request, entry.index, null, null, true);
  if (state === null) return flowErrorResponse({ code: 'too_many_pending' });
  const binding = ctx.secure() ? ctx.random() : null;
  const authorization = await entry.sp.authorizationURL(
    { relayState: state, browserDigest: binding === null ? null : samlBindingDigest(binding) },
    ctx.clientOf(request),
  );
  if (authorization.kind !== 'redirect') {
    await ctx.deps.store.ephemeral.delete('flow_state', pendingKey(state), ctx.deps.now());
    return flowErrorResponse({ code: authorization.kind === 'busy' ? 'too_many_pending' : 'not_configured' });
  }
  return redirectResponse(authorization.url, binding === null ? [] : [ctx.samlBindingCookie(binding, Math.ceil(ctx.ttlMs / 1000))]);
}

async function acs(ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest): Promise<RouteResponse> {
  if (request.method !== 'POST' || request.body === null) return flowErrorResponse({ code: 'bad_request' });
  // The binding cookie is left to expire (Max-Age: the flow's lifetime): it matches only its own flow, which is
  // spent below whatever the outcome, and clearing it on a failed post would let a forged cross-site post end
  // the browser's own pending sign-in.
  const form = new URLSearchParams(request.body);
  const relayState = form.get('RelayState');
  if (relayState === null || relayState === '') return flowErrorResponse({ code: 'missing_state' });
  const payload = await takeFlowState(ctx.deps.store, relayState, ctx.deps.now());
  const entry = payload === null || !payload.samlRequest ? undefined : entries.find((e) => e.index === payload.providerIndex);
  if (payload === null || entry === undefined) return flowErrorResponse({ code: 'invalid_state' });
  const response = form.get('SAMLResponse');
  if (entry.sp === null) return flowErrorResponse({ code: 'not_configured' });
  if (response === null || response === '') return flowErrorResponse({ code: 'missing_code' });
  const cookie = request.cookies.get(SAML_BINDING_COOKIE);
  const result = await entry.sp.consume(response, {
    relayState,
    browserDigest: cookie === undefined || cookie === '' ? null : samlBindingDigest(cookie),
  });
  if (result.kind !== 'identity') return flowErrorResponse({ code: result.kind === 'not_this_browser' ? 'state_mismatch' : 'response_rejected' });
  return ctx.complete(request, entry.provider, result.identity, payload.returnTo, false);
}

/**
 * The SAML routes, when a `saml` provider is configured: `GET /.auth/saml/login?returnTo=/path[&provider=N]`
 * and `POST /.auth/saml/acs` (a form of at most {@link SAML_ACS_BODY_LIMIT} bytes). Any other method on either
 * is answered 400. Each provider's service provider is built once per site URL.
 *
 * @param ctx - The shared flow context.
 * @returns The routes (none without a `saml` provider).
 * @example
 * ```ts
 * samlRoutes(createFlowContext(deps)).map((r) => r.path); // ['/.auth/saml/login', '/.auth/saml/acs']
 * ```
 */
export function samlRoutes(ctx: FlowContext): readonly Route[] {
  if (!ctx.deps.providers.some((p) => p.type === 'saml')) return [];
  const entriesFor = perSiteURL(ctx, (base) =>
    ctx.deps.providers.flatMap((provider, index): Indexed[] =>
      provider.type === 'saml' ? [{ index, provider, sp: serviceProviderOf(ctx, provider, base) }] : [],
    ),
  );
  const withEntries =
    (step: (ctx: FlowContext, entries: readonly Indexed[], request: RouteRequest) => Promise<RouteResponse>) =>
    async (request: RouteRequest): Promise<RouteResponse> => {
      const entries = entriesFor();
      return entries === null ? flowErrorResponse({ code: 'not_configured' }) : step(ctx, entries, request);
    };
  return [
    { methods: ['GET', 'POST'], path: loginPath('saml'), handler: withEntries(login) },
    {
      methods: ['GET', 'POST'],
      path: callbackPath('saml'),
      body: { limit: SAML_ACS_BODY_LIMIT, contentTypes: ['application/x-www-form-urlencoded'], decompress: false },
      handler: withEntries(acs),
    },
  ];
}
