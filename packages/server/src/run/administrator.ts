/**
 * The administrator's way in: on the first start of an empty database, an administrator account and an access
 * token with `site-admin:sudo` and `user:all` (spec §2.3) are created and the token is shown once; later starts
 * keep them. `gatehouse admin create-token` mints a fresh token for an existing account, for an administrator who
 * lost theirs. Only the token's SHA-256 digest is stored.
 *
 * @module
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { err, ok } from 'neverthrow';
import type { Result } from 'neverthrow';
import { ACCESS_TOKEN_RANDOM_BYTES, generateAccessToken, hashAccessToken, usernameKey } from 'gatehouse-auth';
import type { AccessTokenScope } from 'gatehouse-auth';
import type { AccessTokenRecord, Store, StoreError, UserRecord } from '../store/types.js';
import { sha256 } from '../kernel/digest.js';
import { recordSeedTokenUnshown } from './seed-token.js';

/**
 * The scopes of an administrator token: act as the account, and for any other account with `token-sudo`.
 *
 * @example
 * ```ts
 * ADMINISTRATOR_TOKEN_SCOPES; // ['user:all', 'site-admin:sudo']
 * ```
 */
export const ADMINISTRATOR_TOKEN_SCOPES: readonly AccessTokenScope[] = ['user:all', 'site-admin:sudo'];

/**
 * The username of the account the first start creates.
 *
 * @example
 * ```ts
 * SEEDED_ADMINISTRATOR_USERNAME; // 'admin'
 * ```
 */
export const SEEDED_ADMINISTRATOR_USERNAME = 'admin';

/**
 * What minting needs from outside: the clock and a CSPRNG.
 *
 * @example
 * ```ts
 * const sources: MintSources = { now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) };
 * ```
 */
export interface MintSources {
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** `n` random bytes. */
  readonly randomBytes: (n: number) => Uint8Array;
}

/**
 * The sources a process has: `Date.now` and `node:crypto`'s CSPRNG (the default of {@link seedAdministrator}).
 *
 * @example
 * ```ts
 * await seedAdministrator(store, NODE_MINT_SOURCES);
 * ```
 */
export const NODE_MINT_SOURCES: MintSources = { now: Date.now, randomBytes: (n) => new Uint8Array(nodeRandomBytes(n)) };

/**
 * Why a token was not minted.
 *
 * @example
 * ```ts
 * const e: AdministratorTokenError = { code: 'unknown_username', username: 'root' };
 * ```
 */
export type AdministratorTokenError =
  /** No account has this username (by `usernameKey`). */
  | { readonly code: 'unknown_username'; readonly username: string }
  /** The account is not a site administrator: a `site-admin:sudo` token is for administrators only (§2.3). */
  | { readonly code: 'not_site_admin'; readonly username: string }
  /** The random source or the digest failed. */
  | { readonly code: 'token_generation_failed' }
  /** The store refused. */
  | StoreError;

/**
 * A minted token: the stored record and the secret, which exists only here.
 *
 * @example
 * ```ts
 * const minted: MintedToken = { record, secret: 'gat_…' };
 * ```
 */
export interface MintedToken {
  /** The stored token (its digest, never the secret). */
  readonly record: AccessTokenRecord;
  /** The token to show once. */
  readonly secret: string;
}


/** A new secret and its digest, made before any transaction (a retried transaction reuses them). */
function newSecret(sources: MintSources): Result<{ secret: string; digest: string }, AdministratorTokenError> {
  const secret = generateAccessToken(sources.randomBytes(ACCESS_TOKEN_RANDOM_BYTES));
  if (secret.isErr()) return err({ code: 'token_generation_failed' });
  const digest = hashAccessToken(secret.value, sha256);
  return digest.isErr() ? err({ code: 'token_generation_failed' }) : ok({ secret: secret.value, digest: digest.value });
}

async function storeToken(store: Store, user: UserRecord, made: { secret: string; digest: string }, note: string, at: number): Promise<Result<MintedToken, AdministratorTokenError>> {
  const record = await store.accessTokens.create({ userId: user.id, digest: made.digest, scopes: [...ADMINISTRATOR_TOKEN_SCOPES], note, createdAt: at, expiresAt: null });
  if (record.isErr()) return err(record.error);
  await store.audit.append({
    timestamp: at,
    entity: 'auth.accessToken',
    action: 'created',
    reason: note,
    actorUserId: user.id,
    subjectUserId: user.id,
    details: { tokenId: record.value.id, scopes: ADMINISTRATOR_TOKEN_SCOPES.join(' ') },
  });
  return ok({ record: record.value, secret: made.secret });
}

/**
 * Mints a fresh administrator token for an existing site administrator (`gatehouse admin create-token`).
 *
 * @param store - The store.
 * @param username - The account's username (compared by `usernameKey`).
 * @param sources - Clock and random source.
 * @returns The token, or why not.
 * @example
 * ```ts
 * await createAdministratorToken(store, 'admin', { now: Date.now, randomBytes });
 * // ok({ record: { id: '2', scopes: ['user:all', 'site-admin:sudo'], … }, secret: 'gat_…' })
 * ```
 */
export async function createAdministratorToken(store: Store, username: string, sources: MintSources): Promise<Result<MintedToken, AdministratorTokenError>> {
  const made = newSecret(sources);
  if (made.isErr()) return err(made.error);
  const at = sources.now();
  return store.transaction(async (tx): Promise<Result<MintedToken, AdministratorTokenError>> => {
    const user = await tx.accounts.findByUsernameKey(usernameKey(username));
    if (user === null) return err({ code: 'unknown_username', username });
    if (!user.siteAdmin) return err({ code: 'not_site_admin', username: user.username });
    return storeToken(tx, user, made.value, 'gatehouse admin create-token', at);
  });
}

/**
 * What {@link seedAdministrator} did.
 *
 * @example
 * ```ts
 * const outcome: SeedOutcome = { kind: 'kept' };
 * ```
 */
export type SeedOutcome =
  /** The database was empty: the administrator and its token were created (show the token now, never again). */
  | { readonly kind: 'seeded'; readonly user: UserRecord; readonly token: MintedToken }
  /** The database holds accounts: nothing was created. */
  | { readonly kind: 'kept' };

/**
 * Creates the administrator account and its token when the database has no account yet, in one serializable
 * transaction, so that of several instances starting together on an empty database exactly one seeds.
 *
 * It is also how an embedder gets a first account and token on a fresh store, the memory store included.
 *
 * @param store - The store.
 * @param sources - Clock and random source; `Date.now` and `node:crypto` when left out.
 * @returns `seeded` with the token to print once, or `kept`.
 * @example
 * ```ts
 * const seeded = await seedAdministrator(createMemoryStore());
 * if (seeded.isOk() && seeded.value.kind === 'seeded') console.log(`Administrator access token: ${seeded.value.token.secret}`);
 * ```
 */
export async function seedAdministrator(store: Store, sources: MintSources = NODE_MINT_SOURCES): Promise<Result<SeedOutcome, AdministratorTokenError>> {
  const made = newSecret(sources);
  if (made.isErr()) return err(made.error);
  const at = sources.now();
  return store.transaction(async (tx): Promise<Result<SeedOutcome, AdministratorTokenError>> => {
    // one account is enough to know: the oldest, by the primary key, rather than a count, which on a PostgreSQL
    // store reads the whole table at every start (a scan of a million rows on the embedded database)
    const [oldest] = await tx.accounts.list({ first: 1 });
    if (oldest !== undefined) return ok({ kind: 'kept' });
    const user = await tx.accounts.create({
      usernames: [SEEDED_ADMINISTRATOR_USERNAME],
      origin: 'seeded',
      siteAdmin: true,
      serviceAccount: false,
      emails: [],
      passwordHash: null,
      createdAt: at,
    });
    if (user.isErr()) return err(user.error);
    const token = await storeToken(tx, user.value, made.value, 'administrator token of the first start', at);
    if (token.isErr()) return err(token.error);
    // shown once it was printed (seed-token.ts); a start that never prints it leaves the record for the next one
    await recordSeedTokenUnshown(tx, { userId: user.value.id, tokenId: token.value.record.id }, at);
    return ok({ kind: 'seeded', user: user.value, token: token.value });
  });
}
