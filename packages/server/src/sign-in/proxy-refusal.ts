/**
 * Why the authentication proxy's person was refused (§5.3 `http-header`): like a provider sign-in's refusal, the
 * person sees one sentence they can act on and a reference code, and the refusal's audit entry (`auth.session`
 * `failed`) holds that code and the full trace. The proxy sends the refused identity with every request, so one
 * refused identity gets one reference code, one explanation and one coalesced audit entry (counting the refused
 * requests) per window; past a bound on identities per window, further identities share one entry per denial
 * reason, without a trace. A request asked about more than once is counted once.
 *
 * @module
 */
import { auditCoalescingKey, auditWindowOf, DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS } from 'gatehouse-auth';
import type { ExternalIdentity, HttpHeaderProvider } from 'gatehouse-auth';
import type { AuditSink } from '../store/audited.js';
import type { AuditEvent, Store } from '../store/types.js';
import { explainRefusal, referenceCode, type Refusal } from './refusal.js';

/**
 * How many refused identities get their own reference code and audit entry per window by default.
 *
 * @example
 * ```ts
 * createProxyRefusals({ store, now, randomBytes, audit, maxIdentities: DEFAULT_PROXY_REFUSAL_MAX_IDENTITIES });
 * ```
 */
export const DEFAULT_PROXY_REFUSAL_MAX_IDENTITIES = 1_000;

/**
 * What {@link createProxyRefusals} needs.
 *
 * @example
 * ```ts
 * const options: ProxyRefusalOptions = { store, now: Date.now, randomBytes, audit };
 * ```
 */
export interface ProxyRefusalOptions {
  /** The store: the explanation reads its accounts; the audit entry is written to it. */
  readonly store: Store;
  /** The clock, milliseconds since the epoch. */
  readonly now: () => number;
  /** A CSPRNG (reference codes, the explanation's username suffixes). */
  readonly randomBytes: (n: number) => Uint8Array;
  /** Records an audit entry. */
  readonly audit: AuditSink;
  /** The window in seconds one refused identity keeps its reference code and entry (default 60). */
  readonly windowSeconds?: number;
  /** Refused identities with their own code and entry per window (default {@link DEFAULT_PROXY_REFUSAL_MAX_IDENTITIES}). */
  readonly maxIdentities?: number;
}

/**
 * One refusal of the proxy's person: the provider, the identity its headers named, and the sign-in's denial.
 *
 * @example
 * ```ts
 * const refused: ProxyRefusalInput = { provider, identity, reason: 'signup_not_allowed' };
 * ```
 */
export interface ProxyRefusalInput {
  /** The `http-header` provider. */
  readonly provider: HttpHeaderProvider;
  /** The identity the proxy's headers named. */
  readonly identity: ExternalIdentity;
  /** The denial's reason (`SignInOutcome` `denied`). */
  readonly reason: string;
}

/**
 * Explains, audits and remembers the refusals of the proxy's person.
 *
 * @example
 * ```ts
 * const refusal = await refusals.refuse({ provider, identity, reason: 'signup_not_allowed' }, req.headersDistinct);
 * refusal.reference; // 'K7QX2M9P', the same for this identity all window
 * ```
 */
export interface ProxyRefusals {
  /**
   * The refusal of one request: explained once per identity and window, its audit entry counted once per request.
   *
   * @param input - Provider, identity and denial reason.
   * @param request - An object unique to the request (its headers): asked again for it, the entry is not counted again.
   * @returns The reference code, the reason to show, and the audited details.
   */
  refuse(input: ProxyRefusalInput, request: object): Promise<Refusal>;
  /** How many identities the current window holds (at most the bound): for tests. */
  readonly size: number;
}

/** How a reason names an `http-header` provider without a `displayName` ("Your account at the authentication proxy …"). */
const PROXY_NAME = 'the authentication proxy';

/** The identity and denial that share a reference code within a window. */
function identityKey(input: ProxyRefusalInput): string {
  const { identity } = input;
  return JSON.stringify([input.reason, identity.accountId, identity.username ?? null, identity.emails.map((e) => [e.address, e.verified])]);
}

/**
 * Creates the refusal memory of an `http-header` provider.
 *
 * @param options - Store, clock, randomness, audit sink and bounds.
 * @returns The refusals.
 * @example
 * ```ts
 * const refusals = createProxyRefusals({ store, now: Date.now, randomBytes, audit });
 * ```
 */
export function createProxyRefusals(options: ProxyRefusalOptions): ProxyRefusals {
  const windowSeconds = options.windowSeconds ?? DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS;
  const maxIdentities = options.maxIdentities ?? DEFAULT_PROXY_REFUSAL_MAX_IDENTITIES;
  let current = Number.NEGATIVE_INFINITY;
  const explained = new Map<string, Promise<Refusal>>();
  const overflow = new Map<string, Refusal>();
  const counted = new WeakSet<object>();

  const refusalIn = (input: ProxyRefusalInput, window: number): Promise<Refusal> => {
    if (window > current) {
      current = window;
      explained.clear();
      overflow.clear();
    }
    const key = identityKey(input);
    const known = window === current ? explained.get(key) : undefined;
    if (known !== undefined) return known;
    if (window === current && explained.size < maxIdentities) {
      const signedInUserId = null;
      const name = input.provider.displayName ?? PROXY_NAME;
      const made = explainRefusal(options.store, { provider: input.provider, identity: input.identity, signedInUserId }, options.randomBytes, name);
      explained.set(key, made);
      // a failed explanation is not remembered: the next request tries again
      void made.catch(() => explained.delete(key));
      return made;
    }
    // past the bound (or a window the clock stepped back to): one shared code per denial reason, no trace
    const shared = overflow.get(input.reason) ?? { reference: referenceCode(options.randomBytes), reason: null, details: { overflow: 'true' } };
    overflow.set(input.reason, shared);
    return Promise.resolve(shared);
  };

  return {
    async refuse(input, request) {
      const at = options.now();
      const refusal = await refusalIn(input, auditWindowOf(at, windowSeconds));
      if (counted.has(request)) return refusal;
      counted.add(request);
      const entry: AuditEvent = {
        entity: 'auth.session',
        action: 'failed',
        reason: input.reason,
        actorUserId: null,
        subjectUserId: null,
        details: { provider: 'http-header', reference: refusal.reference, ...refusal.details },
      };
      const key = auditCoalescingKey({ entry, client: 'http-header', at, windowSeconds }).unwrapOr(null);
      await options.audit(key === null ? entry : { ...entry, coalesceKey: key }, options.store);
      return refusal;
    },
    get size() {
      return explained.size;
    },
  };
}
