/**
 * The HTTP authentication proxy (spec §5.3 `http-header`): the identity a fronting proxy put in the request's
 * headers, read with the core's `identityFromProxyHeaders`, only when such a provider is configured.
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthProvider, HttpHeaderProvider } from '../../core/auth-providers.js';
import type { ExternalIdentity } from '../../core/external-identity.js';
import { identityFromProxyHeaders, type ProxyIdentityError } from '../../core/proxy-identity.js';

/**
 * What the proxy headers of one request say.
 *
 * @example
 * ```ts
 * const r: ProxyRequestIdentity = { kind: 'not_configured' };
 * ```
 */
export type ProxyRequestIdentity =
  /** No `http-header` provider is configured: the headers mean nothing and are ignored. */
  | { readonly kind: 'not_configured' }
  /** The configured headers are absent: the request is anonymous as far as the proxy is concerned. */
  | { readonly kind: 'anonymous'; readonly provider: HttpHeaderProvider }
  /** The proxy vouches for this person. */
  | { readonly kind: 'identity'; readonly provider: HttpHeaderProvider; readonly identity: ExternalIdentity }
  /** The headers are present but unusable (repeated with different values, a malformed email): answer 400. */
  | { readonly kind: 'invalid'; readonly provider: HttpHeaderProvider; readonly error: ProxyIdentityError };

/**
 * Reads the proxy identity of a request. The server calls it per request and, for `identity`, signs the
 * person in through `runSignIn` (no session cookie is needed: the proxy manages sessions, §5.3
 * `http-header` rule 1). The `Authorization` header is never read here (§5.1 rule 5).
 *
 * @param providers - The configured providers.
 * @param headers - The request's headers (`req.headers`, names in lower case).
 * @returns What the headers say.
 * @example
 * ```ts
 * proxyIdentityFromRequest(providers, { 'x-forwarded-user': 'alice' });
 * // { kind: 'identity', provider, identity: { accountId: 'alice', username: 'alice', emails: [] } }
 * ```
 */
export function proxyIdentityFromRequest(providers: readonly AuthProvider[], headers: IncomingHttpHeaders): ProxyRequestIdentity {
  const provider = providers.find((p): p is HttpHeaderProvider => p.type === 'http-header');
  if (provider === undefined) return { kind: 'not_configured' };
  const identity = identityFromProxyHeaders(provider, headers);
  if (identity.isOk()) return { kind: 'identity', provider, identity: identity.value };
  if (identity.error.code === 'missing_identity_headers') return { kind: 'anonymous', provider };
  return { kind: 'invalid', provider, error: identity.error };
}
