/**
 * The session quota: an account holds at most `maxSessionsPerAccount` browser sessions (default 50); starting one
 * more revokes the account's oldest, and no other account's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../src/http/server.js';
import type { SessionRequest } from '../../src/http/sessions.js';
import { gql, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let alice: UserRecord;
let bob: UserRecord;

beforeAll(async () => {
  s = await startServer();
  alice = await s.user('alice');
  bob = await s.user('bob');
});

afterAll(async () => {
  await s.close();
});

/** A request carrying no cookie (a new browser). */
const freshBrowser: SessionRequest = { headers: {} };

/** Starts a session in a new browser; returns its `gatehouse_session=…` cookie. */
async function signIn(user: UserRecord): Promise<string> {
  const setCookie = await s.gatehouse.sessions.start(freshBrowser, user.id);
  return (setCookie ?? '').split(';')[0] ?? '';
}

async function viewer(cookie: string): Promise<unknown> {
  const answer = await gql(s.url, '{ currentUser { username } }', { headers: { cookie, 'x-requested-with': 'test' } });
  return answer.body;
}

describe('Sessions.start: at most 50 sessions per account', () => {
  it("should revoke the account's oldest session when a 51st starts, and keep the others and other accounts' sessions", async () => {
    const bobs = await signIn(bob);
    const cookies: string[] = [];
    for (let i = 0; i < 51; i++) {
      cookies.push(await signIn(alice));
      s.clock.now += 1;
    }
    expect(await viewer(cookies[0] ?? '')).toStrictEqual({ data: { currentUser: null } });
    for (const cookie of [cookies[1], cookies[50]]) expect(await viewer(cookie ?? '')).toStrictEqual({ data: { currentUser: { username: 'alice' } } });
    expect(await viewer(bobs)).toStrictEqual({ data: { currentUser: { username: 'bob' } } });
  });

  it('should take the bound from maxSessionsPerAccount, and refuse a bound that is not a positive integer at start', async () => {
    const small = await startServer({ maxSessionsPerAccount: 2 });
    try {
      const carol = await small.user('carol');
      const cookies: string[] = [];
      for (let i = 0; i < 3; i++) {
        cookies.push(((await small.gatehouse.sessions.start(freshBrowser, carol.id)) ?? '').split(';')[0] ?? '');
        small.clock.now += 1;
      }
      const who = async (cookie: string): Promise<unknown> =>
        (await gql(small.url, '{ currentUser { username } }', { headers: { cookie, 'x-requested-with': 'test' } })).body;
      expect(await who(cookies[0] ?? '')).toStrictEqual({ data: { currentUser: null } });
      expect(await who(cookies[1] ?? '')).toStrictEqual({ data: { currentUser: { username: 'carol' } } });
    } finally {
      await small.close();
    }
    await expect(startServer({ maxSessionsPerAccount: 0 })).rejects.toThrow('maxSessionsPerAccount must be a positive integer.');
  });
});
