/**
 * What the audit log keeps (spec §6 rule 1, §7 rule 1): entries are kept by age, never evicted by count, and
 * the unsupported-scheme entries from one client network within a window are coalesced into one entry that counts
 * them; past a bound on networks per window, further networks share one entry.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { INVALID_AUTHORIZATION_HEADER_AUDIT } from './authorization-header.js';
import { isObject, ownField } from './internal/guard.js';
import { asciiLowercase } from './internal/email-address.js';
import { UNTRUSTED_PROXY_HEADERS_AUDIT } from './trusted-proxy.js';

/**
 * How long audit entries are kept by default: 90 days after their last occurrence.
 *
 * @example
 * ```ts
 * auditRetentionCutoff({ now, retentionDays: DEFAULT_AUDIT_RETENTION_DAYS });
 * ```
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/**
 * The default coalescing window: the unsupported-scheme entries from one client network within one aligned
 * 60-second window are one entry.
 *
 * @example
 * ```ts
 * auditCoalescingKey({ entry, client: '203.0.113.7', at: now, windowSeconds: DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS });
 * ```
 */
export const DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS = 60;

/** The audited facts {@link auditCoalescingKey} reads. */
export interface CoalescableAuditFacts {
  /** The entity, such as `auth.accessToken`. */
  readonly entity: string;
  /** The action, such as `failed`. */
  readonly action: string;
  /** The reason, or `null`. */
  readonly reason: string | null;
  /** The acting account, or `null`. */
  readonly actorUserId: string | null;
  /** The account acted upon, or `null`. */
  readonly subjectUserId: string | null;
  /** Further non-secret facts. */
  readonly details: Readonly<Record<string, string>>;
}

/** Input of {@link auditCoalescingKey}. */
export interface AuditCoalescingInput {
  /** The entry about to be recorded. */
  readonly entry: CoalescableAuditFacts;
  /** The client it comes from (its network address, as the adapter sees it). */
  readonly client: string;
  /** When it happens, milliseconds since the epoch. */
  readonly at: number;
  /** The window length in seconds (a positive safe integer). */
  readonly windowSeconds: number;
}

/** Why a retention or coalescing rule could not be applied. */
export type AuditRetentionError =
  /** A number is not finite, or a count not a positive safe integer. */
  { readonly code: 'invalid_input'; readonly field: string };

const isTimestamp = (n: number): boolean => typeof n === 'number' && Number.isFinite(n);
const isPositiveInteger = (n: number): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;

/**
 * Whether an entry is one an anonymous client can cause at will, so that it is coalesced: the §6 rule 1 entry (an
 * `Authorization` header with an unsupported scheme), or identity headers from a peer that is no trusted proxy.
 */
function isUnsupportedSchemeEntry(entry: CoalescableAuditFacts): boolean {
  return (
    [INVALID_AUTHORIZATION_HEADER_AUDIT, UNTRUSTED_PROXY_HEADERS_AUDIT].some(
      (kind) => entry.entity === kind.entity && entry.action === kind.action && entry.reason === kind.reason,
    ) &&
    entry.actorUserId === null &&
    entry.subjectUserId === null
  );
}

/**
 * The reference code of an entry recording an `http-header` sign-in refusal (an `auth.session` `failed` entry,
 * no account involved, with details `provider: 'http-header'` and a `reference`), else `null`. The proxy sends
 * the refused identity with every request, so these entries are coalesced per reference code and window; the
 * adapter gives one refused identity one code per window.
 */
function proxyRefusalReference(entry: CoalescableAuditFacts): string | null {
  if (entry.entity !== 'auth.session' || entry.action !== 'failed' || entry.actorUserId !== null || entry.subjectUserId !== null) return null;
  const provider: unknown = ownField(entry.details, 'provider');
  const reference: unknown = ownField(entry.details, 'reference');
  return provider === 'http-header' && typeof reference === 'string' && reference !== '' ? reference : null;
}

/**
 * The key under which the store coalesces an audit entry, or `null` for an entry that is always recorded on its
 * own. Only the §6 rule 1 entry (unsupported `Authorization` scheme, no account involved) and the entry of identity
 * headers from a peer that is no trusted proxy (`UNTRUSTED_PROXY_HEADERS_AUDIT`) are coalesced: two such
 * entries get the same key exactly when they come from the same client and fall in the same aligned window
 * (`floor(at / window)`), whatever their details (the scheme included: trying many schemes must not multiply the
 * entries; the store keeps what was seen, see {@link coalesceAuditDetails}). The store then keeps one entry with a
 * count and the times of the first and last occurrence, so an anonymous flood adds one entry per client and
 * window, not one per request. An `http-header` sign-in refusal (§5.3 `http-header` rule 1: the proxy names the
 * refused person on every request) is coalesced per reference code and window instead.
 *
 * @param input - The entry, its client (a network, or {@link OTHER_NETWORKS_CLIENT}), its time and the window.
 * @returns `ok(key)`, `ok(null)` (not coalesced), or `err` for a time or window that is not a number.
 *
 * @example
 * ```ts
 * const entry = { entity: 'auth.accessToken', action: 'failed', reason: 'invalid Authorization header',
 *   actorUserId: null, subjectUserId: null, details: { scheme: 'basic' } };
 * auditCoalescingKey({ entry, client: '203.0.113.7', at: 120_500, windowSeconds: 60 });
 * // ok('["auth.accessToken","failed","invalid Authorization header","203.0.113.7",2]')
 * auditCoalescingKey({ entry: { ...entry, action: 'sudo' }, client: '203.0.113.7', at: 0, windowSeconds: 60 });
 * // ok(null)
 * ```
 */
export function auditCoalescingKey(input: AuditCoalescingInput): Result<string | null, AuditRetentionError> {
  if (!isTimestamp(input.at)) return err({ code: 'invalid_input', field: 'at' });
  if (!isPositiveInteger(input.windowSeconds)) return err({ code: 'invalid_input', field: 'windowSeconds' });
  if (typeof input.client !== 'string') return err({ code: 'invalid_input', field: 'client' });
  const facts: unknown = input.entry;
  if (!isObject(facts) || !isObject(ownField(facts, 'details'))) return err({ code: 'invalid_input', field: 'entry' });
  const reference = proxyRefusalReference(input.entry);
  if (reference !== null) {
    const { entity, action, reason } = input.entry;
    return ok(JSON.stringify([entity, action, reason, 'http-header', reference, auditWindowOf(input.at, input.windowSeconds)]));
  }
  return match(isUnsupportedSchemeEntry(input.entry))
    .returnType<Result<string | null, AuditRetentionError>>()
    .with(false, () => ok(null))
    .with(true, () => {
      const { entity, action, reason } = input.entry;
      return ok(JSON.stringify([entity, action, reason, input.client, auditWindowOf(input.at, input.windowSeconds)]));
    })
    .exhaustive();
}

/**
 * The aligned window a time falls in: `floor(at / (windowSeconds * 1000))`. The caller passes a finite time and a
 * positive window (as {@link auditCoalescingKey} checks).
 *
 * @param at - Milliseconds since the epoch.
 * @param windowSeconds - The window length in seconds.
 * @returns The window number.
 *
 * @example
 * ```ts
 * auditWindowOf(120_500, 60); // 2
 * ```
 */
export function auditWindowOf(at: number, windowSeconds: number): number {
  return Math.floor(at / (windowSeconds * 1000));
}

/**
 * How many distinct client networks get their own coalesced unsupported-scheme entry per window by default;
 * further networks in that window share one entry whose client is {@link OTHER_NETWORKS_CLIENT}.
 *
 * @example
 * ```ts
 * auditCoalescingNetwork({ network, known: false, networksInWindow: 0, maxNetworks: DEFAULT_AUDIT_COALESCE_MAX_NETWORKS });
 * ```
 */
export const DEFAULT_AUDIT_COALESCE_MAX_NETWORKS = 1_000;

/**
 * The client under which unsupported-scheme failures from networks past the per-window bound are coalesced (also
 * the entry's `clientAddress` detail).
 *
 * @example
 * ```ts
 * OTHER_NETWORKS_CLIENT; // 'other-networks'
 * ```
 */
export const OTHER_NETWORKS_CLIENT = 'other-networks';

/** Input of {@link auditCoalescingNetwork}: the facts the adapter's bookkeeping holds for the current window. */
export interface AuditNetworkInput {
  /** The client network of the failure (the core's `clientNetwork`). */
  readonly network: string;
  /** Whether this network already has its own entry in this window. */
  readonly known: boolean;
  /** How many networks already have their own entry in this window. */
  readonly networksInWindow: number;
  /** The bound on networks with their own entry per window (a positive safe integer). */
  readonly maxNetworks: number;
}

/** Under which client an unsupported-scheme failure is coalesced. */
export type AuditNetworkDecision =
  /** Its own network's entry; a network not yet `known` is then counted in the window by the caller. */
  | { readonly kind: 'own_entry'; readonly client: string }
  /** The window's shared entry: the window already has `maxNetworks` networks with their own entry. */
  | { readonly kind: 'other_networks'; readonly client: typeof OTHER_NETWORKS_CLIENT };

/**
 * Whether an unsupported-scheme failure from a network gets its network's own coalesced entry or the window's
 * shared {@link OTHER_NETWORKS_CLIENT} entry, so that a flood from many networks (an IPv6 /64 costs nothing to
 * rotate) adds at most `maxNetworks + 1` entries per window. A network that already has its own entry in the
 * window keeps it; a new one gets its own while fewer than `maxNetworks` networks have one.
 *
 * @param input - The network, whether it is known in this window, how many are, and the bound.
 * @returns `ok` with the decision, or `err` for a count or bound that is not usable.
 *
 * @example
 * ```ts
 * auditCoalescingNetwork({ network: '203.0.113.7', known: false, networksInWindow: 999, maxNetworks: 1_000 });
 * // ok({ kind: 'own_entry', client: '203.0.113.7' })
 * auditCoalescingNetwork({ network: '203.0.113.8', known: false, networksInWindow: 1_000, maxNetworks: 1_000 });
 * // ok({ kind: 'other_networks', client: 'other-networks' })
 * ```
 */
export function auditCoalescingNetwork(input: AuditNetworkInput): Result<AuditNetworkDecision, AuditRetentionError> {
  const facts: unknown = input;
  if (!isObject(facts)) return err({ code: 'invalid_input', field: 'input' });
  const network: unknown = ownField(facts, 'network');
  const known: unknown = ownField(facts, 'known');
  const count: unknown = ownField(facts, 'networksInWindow');
  const max: unknown = ownField(facts, 'maxNetworks');
  if (typeof network !== 'string') return err({ code: 'invalid_input', field: 'network' });
  if (typeof known !== 'boolean') return err({ code: 'invalid_input', field: 'known' });
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return err({ code: 'invalid_input', field: 'networksInWindow' });
  if (typeof max !== 'number' || !isPositiveInteger(max)) return err({ code: 'invalid_input', field: 'maxNetworks' });
  const own: AuditNetworkDecision = { kind: 'own_entry', client: network };
  const shared: AuditNetworkDecision = { kind: 'other_networks', client: OTHER_NETWORKS_CLIENT };
  return ok(known || count < max ? own : shared);
}

/**
 * How many distinct scheme names the `schemes` detail of a coalesced entry lists at most: the 16 schemes the
 * audit names plus `other`.
 *
 * @example
 * ```ts
 * coalesceAuditDetails(kept, next).schemes?.split(',').length; // at most MAX_AUDITED_SCHEMES
 * ```
 */
export const MAX_AUDITED_SCHEMES = 17;

const SCHEME_NAME = /^[a-z0-9][a-z0-9._~+/-]{0,63}$/u;

/** The distinct lower-case scheme names of a comma list, in order, at most {@link MAX_AUDITED_SCHEMES}. */
function schemeNames(values: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    if (typeof value !== 'string') continue;
    for (const part of value.split(',')) {
      const name = asciiLowercase(part.trim());
      if (out.length < MAX_AUDITED_SCHEMES && SCHEME_NAME.test(name) && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

/**
 * The details of a coalesced entry after one more occurrence: the kept entry's details as they were (so `scheme`
 * stays the scheme of the first occurrence, `clientAddress` its client), plus `schemes`, a comma list of the
 * distinct lower-case scheme names seen in the entry so far, in the order first seen, at most
 * {@link MAX_AUDITED_SCHEMES} names (so a detail never grows with the flood; absent when no scheme was seen).
 * An entry that counts one occurrence has no `schemes`: its `scheme` says it. The store applies it in the same
 * atomic step that counts the occurrence.
 *
 * @param kept - The kept entry's details.
 * @param next - The details of the occurrence being counted.
 * @returns The new details (new object; neither input is changed).
 *
 * @example
 * ```ts
 * coalesceAuditDetails({ scheme: 'basic', clientAddress: '203.0.113.7' }, { scheme: 'digest', clientAddress: '203.0.113.7' });
 * // { scheme: 'basic', clientAddress: '203.0.113.7', schemes: 'basic,digest' }
 * ```
 */
export function coalesceAuditDetails(kept: Readonly<Record<string, string>>, next: Readonly<Record<string, string>>): Record<string, string> {
  const entries: [string, string][] = [];
  if (isObject(kept)) {
    for (const key of Object.keys(kept)) {
      const value: unknown = ownField(kept, key);
      if (key !== 'schemes' && typeof value === 'string') entries.push([key, value]);
    }
  }
  const seen: unknown = isObject(kept) ? (ownField(kept, 'schemes') ?? ownField(kept, 'scheme')) : undefined;
  const added: unknown = isObject(next) ? ownField(next, 'scheme') : undefined;
  const schemes = schemeNames([seen, added]);
  if (schemes.length > 0) entries.push(['schemes', schemes.join(',')]);
  // Object.fromEntries defines own data properties, so a "__proto__" key stays an ordinary key
  return Object.fromEntries(entries);
}

/** Input of {@link auditRetentionCutoff}. */
export interface AuditRetentionInput {
  /** The current time, milliseconds since the epoch. */
  readonly now: number;
  /** How many days an entry is kept after its last occurrence (a positive finite number). */
  readonly retentionDays: number;
}

/**
 * The time before which audit entries may be removed: an entry whose last occurrence is earlier than the cutoff
 * is past its retention. Entries are kept by age only; no count ever evicts one.
 *
 * @param input - The current time and the retention in days.
 * @returns `ok(cutoff)` in milliseconds since the epoch, or `err` for a time or retention that is not usable.
 *
 * @example
 * ```ts
 * auditRetentionCutoff({ now: 100 * 86_400_000, retentionDays: 90 }); // ok(864_000_000): 10 days
 * auditRetentionCutoff({ now: 0, retentionDays: 0 }); // err({ code: 'invalid_input', field: 'retentionDays' })
 * ```
 */
export function auditRetentionCutoff(input: AuditRetentionInput): Result<number, AuditRetentionError> {
  if (!isTimestamp(input.now)) return err({ code: 'invalid_input', field: 'now' });
  const days = input.retentionDays;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) return err({ code: 'invalid_input', field: 'retentionDays' });
  return ok(input.now - days * 86_400_000);
}
