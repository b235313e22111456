/**
 * Why a person was refused at a provider sign-in: the core explains the refusal again, read-only, against the
 * store (`explainSignInInStore`); the person sees one sentence they can act on (`signInRefusalReason`) and a
 * random reference code; the audit entry of the refusal keeps the code and the full trace, so a site
 * administrator finds it (Site admin → Audit log, filtered by the code).
 *
 * @module
 */
import type { ReactElement } from 'react';
import { signInRefusalReason, type AuthProvider, type ExternalIdentity, type SignInTraceStep } from 'gatehouse-auth';
import type { RouteResponse } from '../kernel/route.js';
import { explainSignInInStore, type ExplainStore } from '../operations/explain-sign-in.js';
import { pageResponse } from '../pages/page-routes.js';

/** The letters of a reference code: Crockford's base 32 (no I, L, O or U, so it reads back unambiguously). */
const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * How many characters a reference code has (40 random bits).
 *
 * @example
 * ```ts
 * REFERENCE_CODE_LENGTH; // 8
 * ```
 */
export const REFERENCE_CODE_LENGTH = 8;

/**
 * The longest trace an audit entry keeps, in characters of JSON; a longer one keeps each step's rule, outcome and
 * note without its facts (an identity with thousands of memberships), and says so.
 *
 * @example
 * ```ts
 * MAX_AUDITED_TRACE_LENGTH; // 32768
 * ```
 */
export const MAX_AUDITED_TRACE_LENGTH = 32_768;

/**
 * A reference code from random bytes: {@link REFERENCE_CODE_LENGTH} characters of Crockford's base 32.
 *
 * @param randomBytes - A CSPRNG.
 * @returns The code, such as `K7QX2M9P`.
 * @example
 * ```ts
 * referenceCode((n) => new Uint8Array(n)); // '00000000'
 * ```
 */
export function referenceCode(randomBytes: (n: number) => Uint8Array): string {
  const bytes = randomBytes(REFERENCE_CODE_LENGTH);
  return Array.from({ length: REFERENCE_CODE_LENGTH }, (_, i) => REFERENCE_ALPHABET[(bytes[i] ?? 0) & 31] ?? '0').join('');
}

/**
 * A trace as an audit entry keeps it: JSON, facts dropped when it would be longer than {@link MAX_AUDITED_TRACE_LENGTH}.
 *
 * @param trace - The steps.
 * @returns The `details` fields: `trace`, and `traceTruncated` when the facts were dropped.
 * @example
 * ```ts
 * auditedTrace(explanation.trace).trace.startsWith('[{"rule":'); // true
 * ```
 */
export function auditedTrace(trace: readonly SignInTraceStep[]): Readonly<Record<string, string>> {
  const full = JSON.stringify(trace);
  if (full.length <= MAX_AUDITED_TRACE_LENGTH) return { trace: full };
  const short = JSON.stringify(trace.map((s) => ({ rule: s.rule, facts: {}, outcome: s.outcome, note: s.note })));
  return { trace: short.slice(0, MAX_AUDITED_TRACE_LENGTH), traceTruncated: 'true' };
}

/**
 * What a refusal tells the person and keeps in its audit entry.
 *
 * @example
 * ```ts
 * const r: Refusal = { reference: 'K7QX2M9P', reason: 'Your account at hosta is not in …', details: { trace: '[…]' } };
 * ```
 */
export interface Refusal {
  /** The reference code the person is shown and the audit entry holds. */
  readonly reference: string;
  /** The sentence the person can act on, or `null` when the explanation gives none (the flow's message stands). */
  readonly reason: string | null;
  /** The audit entry's further details: the trace (see {@link auditedTrace}). */
  readonly details: Readonly<Record<string, string>>;
}

/**
 * Explains a refused sign-in again, read-only, for the person and the audit log.
 *
 * @param store - The account lookups.
 * @param input - The provider, the identity it vouched for, and the session's account.
 * @param randomBytes - A CSPRNG (the reference code, and the explanation's username suffixes).
 * @param providerName - How the reason names the provider (default: its `displayName`, else its type).
 * @returns The refusal's code, reason and audit details.
 * @example
 * ```ts
 * const refusal = await explainRefusal(store, { provider, identity, signedInUserId: null }, randomBytes);
 * ```
 */
export async function explainRefusal(
  store: ExplainStore,
  input: { readonly provider: AuthProvider; readonly identity: ExternalIdentity; readonly signedInUserId: string | null },
  randomBytes: (n: number) => Uint8Array,
  providerName?: string,
): Promise<Refusal> {
  const reference = referenceCode(randomBytes);
  const explained = await explainSignInInStore(store, input, randomBytes);
  if (explained.isErr()) return { reference, reason: null, details: {} };
  const { trace } = explained.value.explanation;
  const name = providerName ?? input.provider.displayName ?? input.provider.type;
  return { reference, reason: signInRefusalReason(trace, name), details: auditedTrace(trace) };
}

function RefusalBody(props: { readonly reason: string | null; readonly reference: string; readonly backToSignIn: boolean }): ReactElement {
  return (
    <>
      {props.reason === null ? null : <p className="refusal-reason">{props.reason}</p>}
      <p>
        If you ask an administrator for help, give them this reference code: <code className="reference-code">{props.reference}</code>
      </p>
      {props.backToSignIn ? (
        <p>
          <a href="/.auth/sign-in">Back to sign-in</a>
        </p>
      ) : null}
    </>
  );
}

/**
 * The page a refused person sees: 403, the flow's message, the reason they can act on, and the reference code.
 *
 * @param message - The denial's message (`SIGN_IN_DENIAL_MESSAGES`).
 * @param refusal - The refusal explained.
 * @param options - `backToSignIn: false` leaves out the link back to the sign-in page (the authentication proxy's
 *   person, whom the proxy names again on every request, would only be refused again there).
 * @returns The response.
 * @example
 * ```ts
 * refusalPage(outcome.message, refusal).status; // 403
 * ```
 */
export function refusalPage(message: string, refusal: Refusal, options: { readonly backToSignIn?: boolean } = {}): RouteResponse {
  return pageResponse({ viewer: null, csrf: null, cookies: [] }, 403, {
    title: 'Sign-in refused',
    nav: null,
    notice: { kind: 'error', text: message },
    children: <RefusalBody reason={refusal.reason} reference={refusal.reference} backToSignIn={options.backToSignIn ?? true} />,
  });
}
