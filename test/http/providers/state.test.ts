/**
 * Pending provider sign-ins (OAuth/OpenID Connect `state`) are bounded per client network, never by dropping
 * another client's: a flood of `GET /.auth/<type>/login` from one client cancels only that client's own oldest
 * pending sign-ins, and a full server refuses new ones with 503 instead of dropping anyone's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStateStore, type StatePayload } from '../../../src/http/providers/state.js';
import { clientAt, type Client } from '../from-address.js';
import { startServer, type TestServer } from '../helpers.js';

const payload = (returnTo: string): StatePayload => ({ providerIndex: 0, returnTo, codeVerifier: null, nonce: null, samlRequest: false });

describe('createMemoryStateStore: pending states per client network', () => {
  it("should keep another client's pending state through 10,000 logins from one client (resource bound)", () => {
    let now = 0;
    const states = createMemoryStateStore(() => now);
    states.put('victim', payload('/victim'), 600_000, '198.51.100.2');
    for (let i = 0; i < 10_000; i++) {
      now++;
      states.put(`flood-${i}`, payload('/flood'), 600_000, '198.51.100.1');
    }
    expect(states.take('victim')).toStrictEqual(payload('/victim'));
    // the flooding client keeps only its newest 100
    expect(states.take('flood-9899')).toBeNull();
    expect(states.take('flood-9900')).toStrictEqual(payload('/flood'));
  });

  it("should drop the client's own oldest state past maxPerClient, and refuse a new client when the store is full", () => {
    const states = createMemoryStateStore(() => 0, { maxPerClient: 2, maxTotal: 3 });
    expect(states.put('a1', payload('/a1'), 1_000, 'a')).toBe(true);
    expect(states.put('a2', payload('/a2'), 1_000, 'a')).toBe(true);
    expect(states.put('b1', payload('/b1'), 1_000, 'b')).toBe(true);
    // full: a new client is refused, nothing is dropped
    expect(states.put('c1', payload('/c1'), 1_000, 'c')).toBe(false);
    // a client at its own bound replaces its own oldest, even when full
    expect(states.put('a3', payload('/a3'), 1_000, 'a')).toBe(true);
    expect(states.take('a1')).toBeNull();
    expect([states.take('a2'), states.take('a3'), states.take('b1'), states.take('c1')]).toStrictEqual([
      payload('/a2'),
      payload('/a3'),
      payload('/b1'),
      null,
    ]);
  });

  it('should free the places of expired states', () => {
    let now = 0;
    const states = createMemoryStateStore(() => now, { maxPerClient: 5, maxTotal: 1 });
    expect(states.put('old', payload('/old'), 10, 'a')).toBe(true);
    expect(states.put('new', payload('/new'), 10, 'b')).toBe(false);
    now = 10;
    expect(states.put('new', payload('/new'), 10, 'b')).toBe(true);
    expect(states.take('old')).toBeNull();
    expect(states.take('new')).toStrictEqual(payload('/new'));
  });
});

describe('GET /.auth/<type>/login: pending sign-ins per client address (through the server)', () => {
  let s: TestServer;
  let attacker: Client;
  let victim: Client;
  let newcomer: Client;

  beforeAll(async () => {
    s = await startServer({
      siteConfiguration: `{ "auth.providers": [
        { "type": "hostb", "url": "https://hostb.invalid", "clientID": "id", "clientSecret": "secret" } ] }`,
      // the code exchange never succeeds: a callback that gets past the state check fails upstream (502)
      fetch: async () => Promise.reject(new Error('offline')),
      maxPendingSignInsPerClient: 5,
      maxPendingSignIns: 8,
    });
    attacker = clientAt('127.0.0.1');
    victim = clientAt('127.0.0.2');
    newcomer = clientAt('127.0.0.3');
  });

  afterAll(async () => {
    attacker.close();
    victim.close();
    newcomer.close();
    await s.close();
  });

  const login = async (client: Client): Promise<string> => {
    const answer = await client.send(s.url, { path: '/.auth/hostb/login' });
    expect(answer.status).toBe(303);
    return new URL(String(answer.headers.location)).searchParams.get('state') ?? '';
  };
  const callback = (client: Client, state: string): Promise<{ status: number; text: string }> =>
    client.send(s.url, { path: `/.auth/hostb/callback?state=${state}&code=c`, headers: { cookie: `gatehouse_auth_state=${state}` } });

  it("should keep another client's pending sign-in through a flood of logins, dropping only the flooder's oldest", async () => {
    const victimState = await login(victim);
    const first = await login(attacker);
    const statuses = await attacker.flood(40, () => ({ url: s.url, path: '/.auth/hostb/login' }));
    expect(statuses.every((status) => status === 303)).toBe(true);
    // the victim's state is still pending: the callback gets past the state check to the (failing) code exchange
    expect((await callback(victim, victimState)).status).toBe(502);
    const dropped = await callback(attacker, first);
    expect(dropped.status).toBe(400);
    expect(dropped.text).toContain('expired or was already used');
  });

  it('should answer 503 with Retry-After when the server-wide bound is reached, dropping no one', async () => {
    // pending now: 5 of the attacker; 127.0.0.2 adds 3 more to reach the bound of 8
    const held = [await login(victim), await login(victim), await login(victim)];
    const refused = await newcomer.send(s.url, { path: '/.auth/hostb/login' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    for (const state of held) expect((await callback(victim, state)).status).toBe(502);
  });
});
