/**
 * The HTTP authentication proxy (spec §5.3 `http-header`): the identity a fronting proxy put in the request's
 * headers, read with the core's `identityFromProxyHeaders`, only when such a provider is configured.
 *
 * @module
 */
import type { AuthProvider, HttpHeaderProvider, ExternalIdentity } from 'gatehouse-auth';
import type { Result } from 'neverthrow';
import { identityFromProxyHeaders, type ProxyHeaders, type ProxyIdentityError, findUnstorableText } from 'gatehouse-auth';
import type { ProxyVerdict } from '../session/sessions.js';
import type { SignInFlowError, SignInOutcome } from './flow.js';
import type { Store } from '../store/types.js';
import { auditedTransaction } from '../store/audited.js';
import type { AuditSink } from '../store/audited.js';
import type { ProviderSignInInput } from './flow-context.js';
import type { ProxyRefusals } from './proxy-refusal.js';

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
export function proxyIdentityFromRequest(providers: readonly AuthProvider[], headers: ProxyHeaders): ProxyRequestIdentity {
  const provider = providers.find((p): p is HttpHeaderProvider => p.type === 'http-header');
  if (provider === undefined) return { kind: 'not_configured' };
  const identity = identityFromProxyHeaders(provider, headers);
  if (identity.isOk()) return { kind: 'identity', provider, identity: identity.value };
  if (identity.error.code === 'missing_identity_headers') return { kind: 'anonymous', provider };
  return { kind: 'invalid', provider, error: identity.error };
}

/** Shown when the proxy's identity headers are present but unusable (repeated with different values, a malformed email). */
const PROXY_HEADERS_UNUSABLE = 'The authentication proxy sent identity headers that cannot be used. Ask your administrator to check the proxy.';
/** Shown when the person the proxy names could not be signed in for another reason (a store conflict). */
const PROXY_SIGN_IN_FAILED = 'The person the authentication proxy names could not be signed in. Try again later.';

/**
 * What {@link proxySignIn} needs.
 *
 * @example
 * ```ts
 * const deps: ProxySignInDeps = { providers, store, signIn: (input, into) => runSignIn({ ...flowDeps, store: into }, input), audit };
 * ```
 */
export interface ProxySignInDeps {
  /** The configured providers; only an `http-header` entry makes the headers mean anything. */
  readonly providers: readonly AuthProvider[];
  /** The store: an account the sign-in creates or links is written in one transaction with its audit entry. */
  readonly store: Store;
  /** Signs the named person in (the sign-in flow over `into`, the transaction's store). */
  readonly signIn: (input: ProviderSignInInput, into: Store) => Promise<Result<SignInOutcome, SignInFlowError>>;
  /** Records an audit entry. */
  readonly audit: AuditSink;
  /**
   * Explains and audits a refusal (reference code, reason, trace); none: the refusal carries only its message.
   * `headers` is the request's own object, so a request asked about twice is audited once.
   */
  readonly refusals?: ProxyRefusals;
}

/**
 * The account the authentication proxy vouches for (§5.3 `http-header`): the identity in the headers, signed in
 * through the sign-in flow like any provider's. Once the proxy sends identity headers it is authoritative:
 * every failure to sign the named person in is a denial, never a fall back to the browser's session cookie
 * (which may be someone else's).
 *
 * @param deps - Providers, the sign-in flow and the audit sink.
 * @param headers - The request's headers (a repeated header as its list of values).
 * @returns `none` without identity headers, the account, or a denial with a message safe to show (and, for a
 *   person the sign-in decision refuses, the reference code and reason of {@link ProxySignInDeps.refusals}).
 * @example
 * ```ts
 * const verdict = await proxySignIn(deps, { 'x-forwarded-user': 'alice' });
 * // { kind: 'user', user: { username: 'alice', … } }
 * ```
 */
export async function proxySignIn(deps: ProxySignInDeps, headers: ProxyHeaders): Promise<ProxyVerdict> {
  const found = proxyIdentityFromRequest(deps.providers, headers);
  if (found.kind === 'not_configured' || found.kind === 'anonymous') return { kind: 'none' };
  if (found.kind === 'invalid') return { kind: 'denied', message: PROXY_HEADERS_UNUSABLE };
  // text the store cannot hold (NUL, an unpaired surrogate) is unusable, like a malformed header
  const { identity } = found;
  const texts = [identity.accountId, identity.username ?? '', ...identity.emails.map((e) => e.address)];
  if (texts.some((text) => findUnstorableText(text) !== null)) return { kind: 'denied', message: PROXY_HEADERS_UNUSABLE };
  // an account created or linked here is kept only with its audit entry
  const outcome = await auditedTransaction(deps.store, async (tx) => {
    const signedIn = await deps.signIn({ provider: found.provider, identity, signedInUserId: null }, tx);
    if (signedIn.isOk() && signedIn.value.kind !== 'denied' && (signedIn.value.created || signedIn.value.linked)) {
      const { user, created, linked } = signedIn.value;
      await deps.audit(
        {
          entity: 'auth.session',
          action: 'signed_in',
          reason: 'http-header',
          actorUserId: user.id,
          subjectUserId: user.id,
          details: { provider: 'http-header', created: String(created), linked: String(linked) },
        },
        tx,
      );
    }
    return signedIn;
  });
  if (outcome.isErr()) return { kind: 'denied', message: PROXY_SIGN_IN_FAILED };
  if (outcome.value.kind === 'denied') {
    const { message, reason } = outcome.value;
    if (deps.refusals === undefined) return { kind: 'denied', message };
    // a refusal changes nothing: it is recorded as an event, with the rules that refused and a reference code
    const refusal = await deps.refusals.refuse({ provider: found.provider, identity, reason }, headers);
    return { kind: 'denied', message, refusal: { reference: refusal.reference, reason: refusal.reason } };
  }
  return { kind: 'user', user: outcome.value.user };
}
