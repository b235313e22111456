/**
 * Bounds on what a client or an account can make the server hold: pending provider sign-ins per client network,
 * browser sessions per account, and the cutoffs of the periodic purge of expired records.
 *
 * @module
 */
import { err, ok, type Result } from 'neverthrow';
import { match, P } from 'ts-pattern';
import { asciiLowercase } from './internal/email-address.js';

/**
 * How many browser sessions one account holds at most; starting one more revokes the account's oldest.
 *
 * @example
 * ```ts
 * store.createSession(session, DEFAULT_MAX_SESSIONS_PER_ACCOUNT);
 * ```
 */
export const DEFAULT_MAX_SESSIONS_PER_ACCOUNT = 50;

/**
 * How many provider sign-ins one client network may have pending (started, not yet called back) at once.
 *
 * @example
 * ```ts
 * decidePendingSignIn({ pendingForClient: 3, pendingForHeaviestClient: 3, pendingTotal: 10, maxPerClient: DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT, maxTotal: 100_000 });
 * ```
 */
export const DEFAULT_MAX_PENDING_SIGN_INS_PER_CLIENT = 100;

/**
 * How many provider sign-ins the server keeps pending at once, all clients together; past it a new sign-in takes
 * the place of the oldest pending sign-in of the heaviest client network, when that network holds more than the
 * newcomer would, and is refused otherwise.
 *
 * @example
 * ```ts
 * decidePendingSignIn({ pendingForClient: 0, pendingForHeaviestClient: 100, pendingTotal: DEFAULT_MAX_PENDING_SIGN_INS, maxPerClient: 100, maxTotal: DEFAULT_MAX_PENDING_SIGN_INS });
 * // ok({ kind: 'replace_heaviest_oldest' })
 * ```
 */
export const DEFAULT_MAX_PENDING_SIGN_INS = 100_000;

/**
 * How often expired sessions, authorization codes and audit entries past their retention are purged, by default.
 *
 * @example
 * ```ts
 * setInterval(purge, DEFAULT_PURGE_INTERVAL_SECONDS * 1000).unref();
 * ```
 */
export const DEFAULT_PURGE_INTERVAL_SECONDS = 60;

/**
 * How many records one purge batch removes at most, by default (a run repeats batches until one is not full).
 *
 * @example
 * ```ts
 * await store.purgeExpiredSessions(now, DEFAULT_PURGE_BATCH_SIZE);
 * ```
 */
export const DEFAULT_PURGE_BATCH_SIZE = 1_000;

/**
 * How long a used or expired authorization code is kept after its expiry, in seconds: a replay within this time
 * is still recognised as a replay and revokes the tokens issued for the code (RFC 9700 §4.14.2); later it is
 * merely unknown.
 *
 * @example
 * ```ts
 * const keepUntil = code.expiresAt + AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS * 1000;
 * ```
 */
export const AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS = 600;

/** Why a quota rule could not be applied. */
export type QuotaError =
  /** A count is not a non-negative safe integer (a bound: not a positive one), or a time is not finite. */
  { readonly code: 'invalid_input'; readonly field: string };

/** Input of {@link decidePendingSignIn}. */
export interface PendingSignInInput {
  /** Live pending sign-ins of the client network starting this one. */
  readonly pendingForClient: number;
  /**
   * Live pending sign-ins of the client network that holds the most (any one of them on a tie; this client's own
   * count when it is the heaviest), at least `pendingForClient`.
   */
  readonly pendingForHeaviestClient: number;
  /** Live pending sign-ins of every client. */
  readonly pendingTotal: number;
  /** The per-client bound (a positive safe integer). */
  readonly maxPerClient: number;
  /** The server-wide bound (a positive safe integer). */
  readonly maxTotal: number;
}

/** What to do with a new pending sign-in. */
export type PendingSignInDecision =
  /** Keep it. */
  | { readonly kind: 'store' }
  /** Keep it and drop this same client's oldest pending sign-in (the client is at its bound). */
  | { readonly kind: 'replace_oldest' }
  /**
   * Keep it and drop the oldest pending sign-in of the heaviest client network: the server-wide bound is reached
   * and that network holds more than this client will with the new one.
   */
  | { readonly kind: 'replace_heaviest_oldest' }
  /**
   * Keep nothing and answer 503: the server-wide bound is reached, this client holds none to replace, and no
   * network holds more than this client would.
   */
  | { readonly kind: 'refuse' };

const isCount = (n: number): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isBound = (n: number): boolean => isCount(n) && n > 0;

/**
 * Decides whether a new provider sign-in may be kept pending. A client at its own bound has its own oldest pending
 * sign-in dropped (an abandoned flow goes first). Below its bound, a new one is kept while the server-wide bound
 * is not reached; at that bound, the heaviest client network loses its oldest pending sign-in, provided it holds
 * more than this client will with the new one (so the places go to whoever holds fewest, and a flood only ever
 * costs the flooders their own: a network is never made lighter than the newcomer it yields to); otherwise the
 * new one is refused. So filling the server from many networks cannot lock out a new client: that only happens
 * when every network holds at most one more than the newcomer would.
 *
 * @param input - The client's, the heaviest client's and the server's live pending counts, and the two bounds.
 * @returns The decision, or `err` for a count or bound that is not a safe integer, or a heaviest count below the
 *   client's own.
 *
 * @example
 * ```ts
 * decidePendingSignIn({ pendingForClient: 2, pendingForHeaviestClient: 5, pendingTotal: 9, maxPerClient: 100, maxTotal: 100_000 }); // ok({ kind: 'store' })
 * decidePendingSignIn({ pendingForClient: 100, pendingForHeaviestClient: 100, pendingTotal: 9, maxPerClient: 100, maxTotal: 100_000 }); // ok({ kind: 'replace_oldest' })
 * decidePendingSignIn({ pendingForClient: 0, pendingForHeaviestClient: 100, pendingTotal: 100_000, maxPerClient: 100, maxTotal: 100_000 }); // ok({ kind: 'replace_heaviest_oldest' })
 * decidePendingSignIn({ pendingForClient: 0, pendingForHeaviestClient: 1, pendingTotal: 100_000, maxPerClient: 100, maxTotal: 100_000 }); // ok({ kind: 'refuse' })
 * ```
 */
export function decidePendingSignIn(input: PendingSignInInput): Result<PendingSignInDecision, QuotaError> {
  const counts = [
    ['pendingForClient', isCount(input.pendingForClient)],
    ['pendingForHeaviestClient', isCount(input.pendingForHeaviestClient) && input.pendingForHeaviestClient >= input.pendingForClient],
    ['pendingTotal', isCount(input.pendingTotal)],
    ['maxPerClient', isBound(input.maxPerClient)],
    ['maxTotal', isBound(input.maxTotal)],
  ] as const;
  const bad = counts.find(([, valid]) => !valid);
  if (bad !== undefined) return err({ code: 'invalid_input', field: bad[0] });
  const clientFull = input.pendingForClient >= input.maxPerClient && input.pendingForClient > 0;
  const totalFull = input.pendingTotal >= input.maxTotal;
  // with the new one this client holds pendingForClient + 1; a heavier network still holds at least that after
  // losing one, so it never ends up lighter than the newcomer
  const heavierExists = input.pendingForHeaviestClient > input.pendingForClient + 1;
  return ok(
    match([clientFull, totalFull, heavierExists] as const)
      .returnType<PendingSignInDecision>()
      .with([true, P.boolean, P.boolean], () => ({ kind: 'replace_oldest' }))
      .with([false, true, true], () => ({ kind: 'replace_heaviest_oldest' }))
      .with([false, true, false], () => ({ kind: 'refuse' }))
      .with([false, false, P.boolean], () => ({ kind: 'store' }))
      .exhaustive(),
  );
}

/** Input of {@link purgeCutoffs}. */
export interface PurgeCutoffInput {
  /** The current time, milliseconds since the epoch. */
  readonly now: number;
  /** How many days audit entries are kept after their last occurrence (a positive finite number). */
  readonly auditRetentionDays: number;
}

/** The cutoffs of one purge run, in milliseconds since the epoch. */
export interface PurgeCutoffs {
  /** Sessions whose `expiresAt` is at or before this are removed (they no longer authenticate anyway). */
  readonly sessionsExpiredBy: number;
  /** Authorization codes whose `expiresAt` is at or before this are removed (past the replay grace). */
  readonly authorizationCodesExpiredBy: number;
  /** Audit entries whose last occurrence is before this are removed (past their retention). */
  readonly auditBefore: number;
}

/**
 * The cutoffs of a purge run: expired sessions go at once, authorization codes
 * {@link AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS} after their expiry, audit entries after their retention.
 *
 * @param input - The current time and the audit retention.
 * @returns The cutoffs, or `err` for a time or retention that is not usable.
 *
 * @example
 * ```ts
 * purgeCutoffs({ now: 100 * 86_400_000, auditRetentionDays: 90 });
 * // ok({ sessionsExpiredBy: 8_640_000_000, authorizationCodesExpiredBy: 8_639_400_000, auditBefore: 864_000_000 })
 * ```
 */
export function purgeCutoffs(input: PurgeCutoffInput): Result<PurgeCutoffs, QuotaError> {
  const now = input.now;
  if (typeof now !== 'number' || !Number.isFinite(now)) return err({ code: 'invalid_input', field: 'now' });
  const days = input.auditRetentionDays;
  if (typeof days !== 'number' || !Number.isFinite(days) || days <= 0) return err({ code: 'invalid_input', field: 'auditRetentionDays' });
  return ok({
    sessionsExpiredBy: now,
    authorizationCodesExpiredBy: now - AUTHORIZATION_CODE_REPLAY_GRACE_SECONDS * 1000,
    auditBefore: now - days * 86_400_000,
  });
}

/** Expands an IPv6 address (no zone) into its 8 groups, or `null` when it is not one. */
function ipv6Groups(address: string): readonly string[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const partsOf = (text: string | undefined): string[] | null => {
    if (text === undefined || text === '') return [];
    const parts = text.split(':');
    const last = parts[parts.length - 1] ?? '';
    // an embedded IPv4 address (`::ffff:192.0.2.1`, `64:ff9b::198.51.100.7`) is the last two groups
    const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(last);
    if (v4 !== null) {
      const b = v4.slice(1, 5).map(Number);
      if (b.some((x) => x > 255)) return null;
      parts.splice(parts.length - 1, 1, (((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16), (((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16));
    }
    return parts.every((p) => /^[0-9a-f]{1,4}$/.test(p)) ? parts : null;
  };
  const head = partsOf(halves[0]);
  const tail = partsOf(halves[1]);
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...Array.from({ length: missing }, () => '0'), ...tail].map((g) => parseInt(g, 16).toString(16));
}

/**
 * The client network a per-client bound counts against: an IPv4 address as it is (an IPv4-mapped IPv6 address
 * as its IPv4 address), an IPv6 address as its /64 prefix (one subscriber or host usually holds a whole /64, so
 * counting single IPv6 addresses would let one client count as billions), anything else as it is, cut to 64
 * characters.
 *
 * @param address - The peer address of a request.
 * @returns `ok(network)`, or `err` when `address` is not a string.
 *
 * @example
 * ```ts
 * clientNetwork('203.0.113.7');                   // ok('203.0.113.7')
 * clientNetwork('::ffff:203.0.113.7');            // ok('203.0.113.7')
 * clientNetwork('2001:db8:1:2:aaaa:bbbb:cccc:1'); // ok('2001:db8:1:2::/64')
 * ```
 */
export function clientNetwork(address: string): Result<string, QuotaError> {
  if (typeof address !== 'string') return err({ code: 'invalid_input', field: 'address' });
  const lower = asciiLowercase(address);
  const zone = lower.indexOf('%');
  const bare = zone < 0 ? lower : lower.slice(0, zone);
  if (!bare.includes(':')) return ok(bare.slice(0, 64));
  const groups = ipv6Groups(bare);
  if (groups === null) return ok(bare.slice(0, 64));
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') {
    const v4 = groups.slice(6).flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
    return ok(v4.join('.'));
  }
  return ok(`${groups.slice(0, 4).join(':')}::/64`);
}
