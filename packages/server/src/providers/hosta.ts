/**
 * The `hosta` adapter (spec §5.3 hosta): how its REST API describes a person.
 *
 * @module
 */
import type { HostaProvider, ExternalTeam } from 'gatehouse-auth';
import { allPages, arrayBody, failed, field, idField, primaryFirst, stringField, type ApiClient, type Fetched } from './code-host-api.js';

/**
 * Reads a `hosta` person: the user, every verified email, and the organisations and teams the provider's
 * `allowOrgs`/`allowOrgsMap` ask about (§5.3 hosta rules 4–6).
 *
 * @param provider - The provider.
 * @param base - Its base URL.
 * @param client - The API client with the access token.
 * @returns The identity, or why none could be read.
 * @internal
 */
export async function hostaIdentity(provider: HostaProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  const emailPages = await allPages(client, `${api}/user/emails?per_page=100`, arrayBody);
  // A list of emails cut short would still be true facts, but a person must see the right message
  // (a missing email is not a missing verified email), so any failure stops the sign-in.
  if (!emailPages.complete) return failed('emails');
  const emails = primaryFirst(
    emailPages.items.flatMap((e) => {
      const address = stringField(e, 'email');
      return address === null ? [] : [{ address, verified: field(e, 'verified') === true, primary: field(e, 'primary') === true }];
    }),
  );
  const wantOrgs = (provider.allowOrgs ?? []).length > 0;
  const wantTeams = Object.values(provider.allowOrgsMap ?? {}).some((teams) => teams.length > 0);
  let complete = true;
  let orgs: readonly string[] | undefined;
  let teams: readonly ExternalTeam[] | undefined;
  if (wantOrgs) {
    const pages = await allPages(client, `${api}/user/orgs?per_page=100`, arrayBody);
    complete &&= pages.complete;
    orgs = pages.items.flatMap((o) => {
      const login = stringField(o, 'login');
      return login === null ? [] : [login];
    });
  }
  if (wantTeams) {
    const pages = await allPages(client, `${api}/user/teams?per_page=100`, arrayBody);
    complete &&= pages.complete;
    teams = pages.items.flatMap((t) => {
      const name = stringField(t, 'name');
      const org = stringField(field(t, 'organization'), 'login');
      return name === null || org === null ? [] : [{ org, name }];
    });
  }
  return {
    ok: true,
    identity: {
      accountId,
      username: stringField(user.body, 'login'),
      emails,
      ...(orgs === undefined ? {} : { orgs }),
      ...(teams === undefined ? {} : { teams }),
      ...(wantOrgs || wantTeams ? { membershipComplete: complete } : {}),
    },
  };
}
