/**
 * The `hostb` adapter (spec §5.3 hostb): how its REST API describes a person and its group memberships.
 *
 * @module
 */
import type { HostbProvider, ExternalEmail, ExternalGroup } from 'gatehouse-auth';
import { allPages, arrayBody, failed, field, idField, stringField, type ApiClient, type Fetched } from './code-host-api.js';

/**
 * Reads a `hostb` person: the user, its primary email (always verified, §5.3 hostb rule 3), and its access level
 * in each of `allowGroups` (§5.3 hostb rules 4–5).
 *
 * @param provider - The provider.
 * @param base - Its base URL.
 * @param client - The API client with the access token.
 * @returns The identity, or why none could be read.
 * @internal
 */
export async function hostbIdentity(provider: HostbProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api/v4`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  // §5.3 hostb rule 3: the primary email at the code host is always verified.
  const email = stringField(user.body, 'email');
  const emails: readonly ExternalEmail[] = email === null ? [] : [{ address: email, verified: true }];
  const allowGroups = provider.allowGroups ?? [];
  if (allowGroups.length === 0) {
    return { ok: true, identity: { accountId, username: stringField(user.body, 'username'), emails } };
  }
  // Every membership down to Minimal Access (5), so that rule 5's denial can be told apart.
  const pages = await allPages(client, `${api}/groups?min_access_level=5&per_page=100`, arrayBody);
  let complete = pages.complete;
  const groups: ExternalGroup[] = [];
  for (const g of pages.items) {
    const fullPath = stringField(g, 'full_path');
    const id = idField(g, 'id');
    if (fullPath === null || id === null || !allowGroups.includes(fullPath)) continue;
    const member = await client.getJson(`${api}/groups/${encodeURIComponent(id)}/members/all/${encodeURIComponent(accountId)}`);
    const level = member === null ? undefined : field(member.body, 'access_level');
    if (typeof level !== 'number' || !Number.isFinite(level)) {
      complete = false;
      continue;
    }
    groups.push({ fullPath, accessLevel: level });
  }
  return {
    ok: true,
    identity: { accountId, username: stringField(user.body, 'username'), emails, groups, membershipComplete: complete },
  };
}
