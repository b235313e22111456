/**
 * The usernames of accounts named by id on a site administration page (app owners, audit actors and subjects).
 *
 * @module
 */
import type { Store } from '../store/types.js';

/**
 * Looks up the username of each distinct account id once; ids of deleted accounts are left out.
 *
 * @param store - The store.
 * @param ids - Account ids; `null` and `undefined` are skipped.
 * @returns Username by account id.
 *
 * @example
 * ```ts
 * const names = await usernamesById(store, [entry.actorUserId, entry.subjectUserId]);
 * names.get('u1'); // 'alice'
 * ```
 */
export async function usernamesById(store: Store, ids: readonly (string | null | undefined)[]): Promise<ReadonlyMap<string, string>> {
  const distinct = [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
  const found = await Promise.all(distinct.map(async (id) => [id, (await store.accounts.get(id))?.username ?? null] as const));
  return new Map(found.flatMap(([id, name]) => (name === null ? [] : [[id, name] as const])));
}
