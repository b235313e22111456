/**
 * What the audit log keeps (spec §6 rule 1, §7 rule 1): entries are kept by age, never evicted by count, and
 * identical unsupported-scheme entries from one client within a window are coalesced into one entry that counts them.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match } from 'ts-pattern';
import { INVALID_AUTHORIZATION_HEADER_AUDIT } from './authorization-header.js';
import { isObject, ownField } from './internal/own-field.js';

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
 * The default coalescing window: identical unsupported-scheme entries from one client within one aligned
 * 60-second window are one entry.
 *
 * @example
 * ```ts
 * auditCoalescingKey({ entry, client: '203.0.113.7', at: now, windowSeconds: DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS });
 * ```
 */
export const DEFAULT_AUDIT_COALESCE_WINDOW_SECONDS = 60;

/**
 * The audited facts {@link auditCoalescingKey} reads.
 *
 * @example
 * ```ts
 * const entry: CoalescableAuditFacts = {
 *   entity: 'auth.accessToken', action: 'failed', reason: 'invalid Authorization header', actorUserId: null,
 *   subjectUserId: null, details: { scheme: 'basic' },
 * };
 * ```
 */
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

/**
 * Input of {@link auditCoalescingKey}.
 *
 * @example
 * ```ts
 * const input: AuditCoalescingInput = { entry, client: '203.0.113.7', at: 1_700_000_000_000, windowSeconds: 60 };
 * ```
 */
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

/**
 * Why a retention or coalescing rule could not be applied.
 *
 * @example
 * ```ts
 * const e: AuditRetentionError = { code: 'invalid_input', field: 'windowSeconds' };
 * ```
 */
export type AuditRetentionError =
  /** A number is not finite, or a count not a positive safe integer. */
  { readonly code: 'invalid_input'; readonly field: string };

const isTimestamp = (n: number): boolean => typeof n === 'number' && Number.isFinite(n);
const isPositiveInteger = (n: number): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;

/** Whether an entry is the §6 rule 1 entry (an `Authorization` header with an unsupported scheme). */
function isUnsupportedSchemeEntry(entry: CoalescableAuditFacts): boolean {
  return (
    entry.entity === INVALID_AUTHORIZATION_HEADER_AUDIT.entity &&
    entry.action === INVALID_AUTHORIZATION_HEADER_AUDIT.action &&
    entry.reason === INVALID_AUTHORIZATION_HEADER_AUDIT.reason &&
    entry.actorUserId === null &&
    entry.subjectUserId === null
  );
}

/**
 * The key under which the store coalesces an audit entry, or `null` for an entry that is always recorded on its
 * own. Only the §6 rule 1 entry (unsupported `Authorization` scheme, no account involved) is coalesced: two such
 * entries get the same key exactly when their details are equal, they come from the same client and they fall in
 * the same aligned window (`floor(at / window)`). The store then keeps one entry with a count and the times of the
 * first and last occurrence, so an anonymous flood adds one entry per client and window, not one per request.
 *
 * @param input - The entry, its client, its time and the window length.
 * @returns `ok(key)`, `ok(null)` (not coalesced), or `err` for a time or window that is not a number.
 *
 * @example
 * ```ts
 * const entry = { entity: 'auth.accessToken', action: 'failed', reason: 'invalid Authorization header',
 *   actorUserId: null, subjectUserId: null, details: { scheme: 'basic' } };
 * auditCoalescingKey({ entry, client: '203.0.113.7', at: 120_500, windowSeconds: 60 });
 * // ok('["auth.accessToken","failed","invalid Authorization header",[["scheme","basic"]],"203.0.113.7",2]')
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
  return match(isUnsupportedSchemeEntry(input.entry))
    .returnType<Result<string | null, AuditRetentionError>>()
    .with(false, () => ok(null))
    .with(true, () => {
      const { entity, action, reason, details } = input.entry;
      const sortedDetails = Object.keys(details)
        .sort()
        .map((k) => [k, String(ownField(details, k))]);
      const window = Math.floor(input.at / (input.windowSeconds * 1000));
      return ok(JSON.stringify([entity, action, reason, sortedDetails, input.client, window]));
    })
    .exhaustive();
}

/**
 * Input of {@link auditRetentionCutoff}.
 *
 * @example
 * ```ts
 * const input: AuditRetentionInput = { now: 1_700_000_000_000, retentionDays: 90 };
 * ```
 */
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
