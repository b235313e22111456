/**
 * The provider package: the sign-in routes of the code hosts, OpenID Connect and SAML, and the "Account
 * security" page, as route values ({@link providerRoutes}); each flow checks its single-use `state` (kept in the
 * store's ephemeral part), fetches the facts from the provider and hands an `ExternalIdentity` to the sign-in
 * flow the server passes in. No policy lives here.
 *
 * @module
 */
export { accountSecurityRoutes, ACCOUNT_SECURITY_PATH } from './account-security.js';
export type { AccountSecurityDeps } from './account-security.js';
export { SAML_BINDING_COOKIE, STATE_COOKIE } from './flow-context.js';
export type { ProviderSignInInput, SignInRouteDeps } from './flow-context.js';
export { pendingKey, putPending } from './pending.js';
export type { PendingRefused, PendingSignInLimits } from './pending.js';
export { proxyIdentityFromRequest, proxySignIn } from './proxy.js';
export type { ProxyRequestIdentity, ProxySignInDeps } from './proxy.js';
export { flowErrorResponse, messagePage, signInOutcomeResponse } from './responses.js';
export type { ProviderFlowError } from './responses.js';
export { providerRoutes, signInRoutePaths, signInRoutes } from './routes.js';
export type { ProviderRouteDeps } from './routes.js';
export { signInLinks, signInRedirect } from './sign-in-links.js';
export { startFlowState, takeFlowState } from './state.js';
export type { StatePayload } from './state.js';
export type { ProviderStore } from './provider-store.js';
export type { PublicCodeHostURLs } from './code-hosts.js';
