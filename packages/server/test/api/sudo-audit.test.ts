/**
 * §5.1 rule 2 (`token-sudo`): every audit entry made under sudo names both the token's owner (the real actor,
 * `actorUserId`) and the impersonated account (`impersonatedUserId`), in the store and in the `auditLog` field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, UserRecord } from '../../src/index.js';
import { gql, startServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

let s: TestServer;
let root: UserRecord;
let alice: UserRecord;
let bob: UserRecord;
let rootSudo = '';
let rootPlain = '';

const sudo = (user: string): Record<string, string> => ({ authorization: `token-sudo user="${user}",token="${rootSudo}"` });

beforeAll(async () => {
  s = await startServer({ siteConfiguration: '{ "auth.providers": [{ "type": "builtin" }] }' });
  root = await s.user('root', true);
  alice = await s.user('alice');
  bob = await s.user('bob', true);
  rootSudo = (await s.token(root, ['user:all', 'site-admin:sudo'])).token;
  rootPlain = (await s.token(root)).token;
});

afterAll(async () => {
  await s.close();
});

/** The audit entries written since `since` (an entry id), oldest first. */
async function entriesAfter(since: number): Promise<readonly AuditEntry[]> {
  const all = await flatStoreOf(s.gatehouse.store).listAudit(1000);
  return all.filter((e) => Number(e.id) > since).reverse();
}

async function lastId(): Promise<number> {
  const [newest] = await flatStoreOf(s.gatehouse.store).listAudit(1);
  return newest === undefined ? 0 : Number(newest.id);
}

describe('audit entries made under token-sudo', () => {
  it('should name the token owner as actor and the impersonated account, for every entry of a sudo request', async () => {
    const since = await lastId();
    const created = await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "by sudo") { id } }', { headers: sudo('alice') });
    const tokenId = (created.body as { data: { createAccessToken: { id: string } } }).data.createAccessToken.id;
    await gql(s.url, `mutation { deleteAccessToken(id: "${tokenId}") }`, { headers: sudo('alice') });
    await gql(s.url, 'mutation { createUser(username: "carol") { id } }', { headers: sudo('bob') });
    await gql(s.url, `mutation { setUserIsSiteAdmin(userID: "${alice.id}", siteAdmin: false) { id } }`, { headers: sudo('bob') });
    await gql(s.url, 'mutation { registerOAuthApp(name: "app", redirectURIs: ["https://app.example/cb"], scopes: ["user:all"]) { clientID } }', {
      headers: sudo('bob'),
    });

    // the uses of each sudo pair are counted and written as one entry off the request path
    await s.gatehouse.flushAudit();
    const entries = await entriesAfter(since);
    const summary = entries.map((e) => [e.entity, e.action, e.actorUserId, e.impersonatedUserId ?? null, e.count]);
    expect(summary).toStrictEqual([
      ['auth.accessToken', 'created', root.id, alice.id, 1],
      ['auth.accessToken', 'deleted', root.id, alice.id, 1],
      ['user', 'created', root.id, bob.id, 1],
      ['user', 'site_admin_revoked', root.id, bob.id, 1],
      ['oauth.app', 'registered', root.id, bob.id, 1],
      ['auth.accessToken', 'sudo', root.id, alice.id, 2],
      ['auth.accessToken', 'sudo', root.id, bob.id, 3],
    ]);
  });

  it('should leave impersonatedUserId out of entries made without sudo', async () => {
    const since = await lastId();
    await gql(s.url, 'mutation { createAccessToken(scopes: ["user:all"], note: "own") { id } }', { headers: { authorization: `token ${rootPlain}` } });
    const [entry] = await entriesAfter(since);
    expect([entry?.action, entry?.actorUserId, entry?.impersonatedUserId]).toStrictEqual(['created', root.id, undefined]);
  });

  it('should show the impersonated account in the auditLog field', async () => {
    const answer = await gql(s.url, '{ auditLog(first: 3) { entity action actor { username } impersonated { username } subject { username } } }', {
      headers: sudo('alice'),
    });
    // alice is no site admin: the owner's plain token reads the log
    expect(answer.status).toBe(200);
    await s.gatehouse.flushAudit();
    const read = await gql(s.url, '{ auditLog(first: 2) { entity action actor { username } impersonated { username } } }', {
      headers: { authorization: `token ${rootPlain}` },
    });
    expect(read.body).toStrictEqual({
      data: {
        auditLog: [
          { entity: 'auth.accessToken', action: 'sudo', actor: { username: 'root' }, impersonated: { username: 'alice' } },
          { entity: 'auth.accessToken', action: 'created', actor: { username: 'root' }, impersonated: null },
        ],
      },
    });
  });
});
