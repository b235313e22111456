/**
 * The `hostccloud` and `hostcserver` adapters (spec §5.3): how the hosted and the self-hosted edition describe a
 * person.
 *
 * @module
 */
import type { HostccloudProvider, HostcserverProvider } from 'gatehouse-auth';
import { allPages, failed, field, idField, primaryFirst, stringField, valuesBody, type ApiClient, type Fetched } from './code-host-api.js';

/**
 * Reads a `hostccloud` person: the user and its confirmed emails.
 *
 * @param _provider - The provider.
 * @param base - Its base URL.
 * @param client - The API client with the access token.
 * @returns The identity, or why none could be read.
 * @internal
 */
export async function hostccloudIdentity(_provider: HostccloudProvider, base: string, client: ApiClient): Promise<Fetched> {
  const api = `${base}/api/2.0`;
  const user = await client.getJson(`${api}/user`);
  const accountId = user === null ? null : stringField(user.body, 'uuid');
  if (user === null || accountId === null) return failed('user');
  const pages = await allPages(client, `${api}/user/emails`, valuesBody);
  if (!pages.complete) return failed('emails');
  const emails = primaryFirst(
    pages.items.flatMap((e) => {
      const address = stringField(e, 'email');
      return address === null
        ? []
        : [{ address, verified: field(e, 'is_confirmed') === true, primary: field(e, 'is_primary') === true }];
    }),
  );
  return { ok: true, identity: { accountId, username: stringField(user.body, 'username'), emails } };
}

/**
 * Reads a `hostcserver` person: who the token belongs to, then its user record.
 *
 * @param _provider - The provider.
 * @param base - Its base URL.
 * @param client - The API client with the access token.
 * @returns The identity, or why none could be read.
 * @internal
 */
export async function hostcserverIdentity(_provider: HostcserverProvider, base: string, client: ApiClient): Promise<Fetched> {
  const whoami = await client.getText(`${base}/plugins/servlet/applinks/whoami`);
  const name = whoami?.trim() ?? '';
  if (name === '') return failed('user');
  const user = await client.getJson(`${base}/rest/api/latest/users/${encodeURIComponent(name)}`);
  const accountId = user === null ? null : idField(user.body, 'id');
  if (user === null || accountId === null) return failed('user');
  // The self-hosted edition's addresses come from its administrators' user directory: taken as verified.
  const email = stringField(user.body, 'emailAddress');
  return {
    ok: true,
    identity: {
      accountId,
      username: stringField(user.body, 'name') ?? name,
      emails: email === null ? [] : [{ address: email, verified: true }],
    },
  };
}
