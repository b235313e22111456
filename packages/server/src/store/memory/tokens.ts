/**
 * The memory store's access tokens and browser sessions: records by digest with per-account indexes, the session
 * quota applied in the same step as the insert, and bounded purges of expired sessions.
 *
 * @module
 */
import { err, ok } from 'neverthrow';
import { TrackedMap } from './journal.js';
import type { Journal, Sync } from './journal.js';
import { MAX_USER_AGENT_LENGTH } from '../types.js';
import type { AccessTokenRecord, AccessTokenStore, SessionRecord, SessionStore } from '../types.js';

/**
 * A batch bound as given when it is a positive safe integer, else 0 (a purge with such a limit removes nothing).
 *
 * @param limit - The caller's limit.
 * @returns The bound to apply.
 * @example
 * ```ts
 * [boundOf(3), boundOf(-1), boundOf(Number.NaN)]; // [3, 0, 0]
 * ```
 * @internal
 */
export function boundOf(limit: number): number {
  return Number.isSafeInteger(limit) && limit > 0 ? limit : 0;
}

const copyToken = (t: AccessTokenRecord): AccessTokenRecord => ({ ...t, scopes: [...t.scopes] });
const copySession = (s: SessionRecord): SessionRecord => ({
  digest: s.digest,
  userId: s.userId,
  createdAt: s.createdAt,
  expiresAt: s.expiresAt,
  lastSeenAt: s.lastSeenAt,
  // the bound the contract promises, kept even when a caller did not truncate
  userAgent: s.userAgent.slice(0, MAX_USER_AGENT_LENGTH),
});

/** What the token and session tables need from the accounts table. */
interface Owners {
  readonly has: (userId: string) => boolean;
}

/**
 * Creates the access-token part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @param owners - Which accounts exist.
 * @returns The synchronous operations, plus the cascade of an account's deletion.
 * @example
 * ```ts
 * const tokens = createMemoryAccessTokens(journal, accounts);
 * ```
 * @internal
 */
export function createMemoryAccessTokens(
  journal: Journal,
  owners: Owners,
): Sync<AccessTokenStore> {
  const tokens = new TrackedMap<string, AccessTokenRecord>(journal);
  const idByDigest = new TrackedMap<string, string>(journal);
  const idsByUser = new TrackedMap<string, readonly string[]>(journal);
  let nextId = 1;
  const forget = (record: AccessTokenRecord): void => {
    tokens.delete(record.id);
    idByDigest.delete(record.digest);
    const ids = (idsByUser.get(record.userId) ?? []).filter((id) => id !== record.id);
    if (ids.length === 0) idsByUser.delete(record.userId);
    else idsByUser.set(record.userId, ids);
  };
  const byId = (id: string | undefined): AccessTokenRecord | null => {
    const t = id === undefined ? undefined : tokens.get(id);
    return t === undefined ? null : copyToken(t);
  };
  return {
    create: (input) => {
      if (!owners.has(input.userId)) return err({ code: 'unknown_user', userId: input.userId });
      if (idByDigest.has(input.digest)) return err({ code: 'duplicate_digest' });
      const record = copyToken({ ...input, id: String(nextId++), lastUsedAt: null });
      tokens.set(record.id, record);
      idByDigest.set(record.digest, record.id);
      idsByUser.set(record.userId, [...(idsByUser.get(record.userId) ?? []), record.id]);
      return ok(copyToken(record));
    },
    findByDigest: (digest) => byId(idByDigest.get(digest)),
    get: (id) => byId(id),
    list: (userId) => (idsByUser.get(userId) ?? []).flatMap((id) => {
      const t = byId(id);
      return t === null ? [] : [t];
    }),
    count: (userId) => idsByUser.get(userId)?.length ?? 0,
    delete: (id) => {
      const record = tokens.get(id);
      if (record === undefined) return err({ code: 'unknown_access_token', id });
      forget(record);
      return ok(copyToken(record));
    },
    touch: (id, at) => {
      const record = tokens.get(id);
      if (record === undefined || (record.lastUsedAt !== null && record.lastUsedAt >= at)) return;
      tokens.set(id, { ...record, lastUsedAt: at });
    },
    deleteForUser: (userId) => {
      let deleted = 0;
      for (const id of idsByUser.get(userId) ?? []) {
        const record = tokens.get(id);
        if (record === undefined) continue;
        forget(record);
        deleted++;
      }
      return deleted;
    },
  };
}

/**
 * Creates the session part of a memory store.
 *
 * @param journal - Where writes record their undo steps.
 * @param owners - Which accounts exist.
 * @returns The synchronous operations.
 * @example
 * ```ts
 * const sessions = createMemorySessions(journal, accounts);
 * ```
 * @internal
 */
export function createMemorySessions(journal: Journal, owners: Owners): Sync<SessionStore> {
  const sessions = new TrackedMap<string, SessionRecord>(journal);
  // userId -> digests of its sessions, in the order they were stored
  const digestsByUser = new TrackedMap<string, readonly string[]>(journal);
  const forget = (digest: string): boolean => {
    const session = sessions.get(digest);
    if (session === undefined) return false;
    sessions.delete(digest);
    const own = (digestsByUser.get(session.userId) ?? []).filter((d) => d !== digest);
    if (own.length === 0) digestsByUser.delete(session.userId);
    else digestsByUser.set(session.userId, own);
    return true;
  };
  const own = (userId: string): SessionRecord[] =>
    (digestsByUser.get(userId) ?? []).flatMap((d) => {
      const s = sessions.get(d);
      return s === undefined ? [] : [s];
    });
  return {
    create: (session, maxPerUser) => {
      if (!owners.has(session.userId)) return err({ code: 'unknown_user', userId: session.userId });
      if (sessions.has(session.digest)) return err({ code: 'duplicate_digest' });
      const bound = Math.max(boundOf(maxPerUser), 1);
      // the quota: revoke the oldest (smallest createdAt, first stored among equals) until the new one fits
      for (let mine = own(session.userId); mine.length >= bound; mine = own(session.userId)) {
        const oldest = mine.reduce((a, b) => (b.createdAt < a.createdAt ? b : a));
        forget(oldest.digest);
      }
      const record = copySession(session);
      sessions.set(record.digest, record);
      digestsByUser.set(record.userId, [...(digestsByUser.get(record.userId) ?? []), record.digest]);
      return ok(copySession(record));
    },
    findByDigest: (digest) => {
      const s = sessions.get(digest);
      return s === undefined ? null : copySession(s);
    },
    list: (userId) => own(userId).map(copySession).sort((a, b) => a.createdAt - b.createdAt),
    delete: (digest) => forget(digest),
    deleteForUser: (userId, exceptDigest) => {
      let removed = 0;
      for (const s of own(userId)) if (s.digest !== exceptDigest && forget(s.digest)) removed++;
      return removed;
    },
    purgeExpired: (expiredBy, limit) => {
      const max = boundOf(limit);
      const expired: string[] = [];
      for (const s of sessions.values()) {
        if (expired.length >= max) break;
        if (s.expiresAt <= expiredBy) expired.push(s.digest);
      }
      for (const digest of expired) forget(digest);
      return expired.length;
    },
    touch: (digest, at) => {
      const s = sessions.get(digest);
      if (s === undefined || s.lastSeenAt >= at) return;
      sessions.set(digest, { ...s, lastSeenAt: at });
    },
  };
}
