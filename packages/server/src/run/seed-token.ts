/**
 * The seeded administrator token is shown once, and only once it really was: seeding records in the store that
 * the token is not shown yet (an `administrator_seed` ephemeral entry, in the seeding transaction); the server
 * removes the record only after it listened and printed the token. A start that finds the record (the first start
 * failed after seeding, for example with `EADDRINUSE`, or crashed) replaces the token with a fresh one and prints
 * that. Only the token's digest is ever stored, so the lost secret cannot be shown again; it is deleted instead.
 *
 * Several instances may start together on one database: the record carries a short claim (the starting instance
 * that will print), which a start that failed releases at once and a crashed one lets expire, so exactly one
 * instance prints a token.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { ACCESS_TOKEN_RANDOM_BYTES, generateAccessToken, hashAccessToken } from 'gatehouse-auth';
import { sha256 } from '../kernel/digest.js';
import type { Store } from '../store/types.js';

/**
 * How long a starting instance holds the claim to print the seeded token (it lists and prints within seconds).
 *
 * @example
 * ```ts
 * SEED_TOKEN_CLAIM_MS; // 60000
 * ```
 */
export const SEED_TOKEN_CLAIM_MS = 60_000;

/** The record's kind and key: one per database. */
const KIND = 'administrator_seed';
const KEY = 'token';
/** The record never expires by itself: it goes when the token was shown. */
const NEVER = Number.MAX_SAFE_INTEGER;

/** What the record holds: the token not shown yet, its owner, and until when a starting instance holds it. */
interface SeedRecord {
  readonly userId: string;
  readonly tokenId: string;
  readonly claimedUntil: number;
}

function readRecord(value: string): SeedRecord | null {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { userId, tokenId, claimedUntil } = parsed as Record<string, unknown>;
    return typeof userId === 'string' && typeof tokenId === 'string' && typeof claimedUntil === 'number' ? { userId, tokenId, claimedUntil } : null;
  } catch {
    return null;
  }
}

async function putRecord(store: Store, record: SeedRecord): Promise<void> {
  await store.ephemeral.put({ kind: KIND, key: KEY, group: KIND, value: JSON.stringify(record), expiresAt: NEVER });
}

/**
 * Records, inside the seeding transaction, that the seed token is not shown yet, claimed by this start.
 *
 * @param tx - The seeding transaction's store.
 * @param seed - The administrator and its token.
 * @param now - The time of the seeding.
 * @returns When recorded.
 *
 * @example
 * ```ts
 * await recordSeedTokenUnshown(tx, { userId: user.id, tokenId: token.record.id }, at);
 * ```
 */
export async function recordSeedTokenUnshown(tx: Store, seed: { readonly userId: string; readonly tokenId: string }, now: number): Promise<void> {
  await putRecord(tx, { ...seed, claimedUntil: now + SEED_TOKEN_CLAIM_MS });
}

/**
 * A fresh token replacing a seed token that was never shown: `null` when every seed token was shown (or there is
 * none), when another starting instance holds the claim, or when the administrator is gone or no longer a site
 * administrator (then the record is dropped). The unshown token is deleted and the new one takes its place and its
 * claim, in one transaction; the caller prints it and then calls {@link markSeedTokenShown}.
 *
 * @param store - The store.
 * @param sources - The clock and the random source.
 * @returns The new token's secret, or `null`.
 *
 * @example
 * ```ts
 * const fresh = await replaceUnshownSeedToken(store, { now: Date.now, randomBytes });
 * if (fresh !== null) console.log(`Administrator access token: ${fresh}`);
 * ```
 */
export async function replaceUnshownSeedToken(
  store: Store,
  sources: { readonly now: () => number; readonly randomBytes: (n: number) => Uint8Array },
): Promise<string | null> {
  const secret = generateAccessToken(sources.randomBytes(ACCESS_TOKEN_RANDOM_BYTES));
  const digest = secret.andThen((s) => hashAccessToken(s, sha256));
  if (secret.isErr() || digest.isErr()) return null;
  const at = sources.now();
  const outcome = await store.transaction(async (tx): Promise<Result<string | null, 'conflict'>> => {
    const entry = await tx.ephemeral.get(KIND, KEY, at);
    const record = entry === null ? null : readRecord(entry.value);
    if (entry === null) return ok(null);
    if (record !== null && record.claimedUntil > at) return ok(null);
    const user = record === null ? null : await tx.accounts.get(record.userId);
    if (record === null || user === null || !user.siteAdmin) {
      await tx.ephemeral.delete(KIND, KEY, at);
      return ok(null);
    }
    const old = await tx.accessTokens.get(record.tokenId);
    if (old !== null) await tx.accessTokens.delete(old.id);
    const created = await tx.accessTokens.create({
      userId: user.id,
      digest: digest.value,
      scopes: old?.scopes ?? ['user:all', 'site-admin:sudo'],
      note: 'administrator token of the first start (replacing one never shown)',
      createdAt: at,
      expiresAt: null,
    });
    if (created.isErr()) return err('conflict');
    await tx.audit.append({
      timestamp: at,
      entity: 'auth.accessToken',
      action: 'created',
      reason: 'seed token never shown',
      actorUserId: user.id,
      subjectUserId: user.id,
      details: { tokenId: created.value.id, replaced: record.tokenId, scopes: created.value.scopes.join(' ') },
    });
    await putRecord(tx, { userId: user.id, tokenId: created.value.id, claimedUntil: at + SEED_TOKEN_CLAIM_MS });
    return ok(secret.value);
  });
  return outcome.unwrapOr(null);
}

/**
 * Records that the seed token was shown: called once it was printed, after the server listened.
 *
 * @param store - The store.
 * @param now - The current time.
 * @returns When recorded.
 *
 * @example
 * ```ts
 * io.stdout.write(`Administrator access token: ${token}\n`);
 * await markSeedTokenShown(store, Date.now());
 * ```
 */
export async function markSeedTokenShown(store: Store, now: number): Promise<void> {
  await store.ephemeral.delete(KIND, KEY, now);
}

/**
 * Gives up this start's claim on the seed token (it will not be printed: the start failed), so the next start
 * replaces it at once.
 *
 * @param store - The store.
 * @param now - The current time.
 * @returns When released.
 *
 * @example
 * ```ts
 * await releaseSeedTokenClaim(store, Date.now()); // after listen failed with EADDRINUSE
 * ```
 */
export async function releaseSeedTokenClaim(store: Store, now: number): Promise<void> {
  const entry = await store.ephemeral.get(KIND, KEY, now);
  const record = entry === null ? null : readRecord(entry.value);
  if (record !== null) await putRecord(store, { ...record, claimedUntil: 0 });
}
