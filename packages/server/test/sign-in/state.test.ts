/**
 * Pending provider sign-ins (OAuth/OpenID Connect `state`) are bounded per client network: a flood of
 * `GET /.auth/<type>/login` from one client cancels only that client's own oldest pending sign-ins; a full server
 * takes the place of the heaviest network's oldest for a client that holds fewer, and refuses with 503 only when
 * no network holds more than the newcomer would. A stored state payload is read back only when every field has its type.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putPending } from '../../src/sign-in/pending.js';
import { parseStatePayload, startFlowState, takeFlowState, type StatePayload } from '../../src/sign-in/state.js';
import type { PendingSignInLimits } from '../../src/sign-in/pending.js';
import { clientAt, type Client } from '../helpers/from-address.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { startServer, type TestServer } from '../helpers/server.js';

const payload = (returnTo: string): StatePayload => ({ providerIndex: 0, returnTo, codeVerifier: null, nonce: null, samlRequest: false });

/** Flow states over a memory store, with the old table's calling shape: put → stored?, take → payload or null. */
function memoryStates(now: () => number, limits: PendingSignInLimits = {}): {
  put(key: string, value: StatePayload, ttlMs: number, client: string): Promise<boolean>;
  take(key: string): Promise<StatePayload | null>;
} {
  const store = createMemoryStore();
  return {
    put: async (key, value, ttlMs, client) => (await startFlowState(store, key, value, { ttlMs, client, limits, now: now() })).isOk(),
    take: (key) => takeFlowState(store, key, now()),
  };
}

describe('startFlowState and takeFlowState: pending states per client network', () => {
  it("should keep another client's pending state through 10,000 logins from one client (resource bound)", async () => {
    let now = 0;
    const states = memoryStates(() => now);
    await states.put('victim', payload('/victim'), 600_000, '198.51.100.2');
    for (let i = 0; i < 10_000; i++) {
      now++;
      await states.put(`flood-${i}`, payload('/flood'), 600_000, '198.51.100.1');
    }
    expect(await states.take('victim')).toStrictEqual(payload('/victim'));
    // the flooding client keeps only its newest 100
    expect(await states.take('flood-9899')).toBeNull();
    expect(await states.take('flood-9900')).toStrictEqual(payload('/flood'));
  });

  it("should drop the client's own oldest state past maxPerClient, and the heaviest client's oldest for a lighter newcomer when the store is full", async () => {
    const states = memoryStates(() => 0, { maxPerClient: 2, maxTotal: 3 });
    expect(await states.put('a1', payload('/a1'), 1_000, 'a')).toBe(true);
    expect(await states.put('a2', payload('/a2'), 1_000, 'a')).toBe(true);
    expect(await states.put('b1', payload('/b1'), 1_000, 'b')).toBe(true);
    // a client at its own bound replaces its own oldest, even when full
    expect(await states.put('a3', payload('/a3'), 1_000, 'a')).toBe(true);
    // full: a new client takes the place of the oldest state of 'a', which holds 2 (more than c will hold)
    expect(await states.put('c1', payload('/c1'), 1_000, 'c')).toBe(true);
    // full, and every client holds 1: a new state would only take a place from a client as light as its own
    expect(await states.put('d1', payload('/d1'), 1_000, 'd')).toBe(false);
    expect(await states.put('c2', payload('/c2'), 1_000, 'c')).toBe(false);
    const taken: (StatePayload | null)[] = [];
    for (const key of ['a1', 'a2', 'a3', 'b1', 'c1', 'c2', 'd1']) taken.push(await states.take(key));
    expect(taken).toStrictEqual([null, null, payload('/a3'), payload('/b1'), payload('/c1'), null, null]);
  });

  it('should give a new client a state when flooding networks filled the store, the flooders losing only their own (resource bound)', async () => {
    let now = 0;
    const states = memoryStates(() => now, { maxPerClient: 3, maxTotal: 9 });
    await states.put('victim', payload('/victim'), 600_000, '198.51.100.2');
    const flooded: boolean[] = [];
    for (let network = 0; network < 3; network++) {
      for (let i = 0; i < 3; i++) {
        now++;
        flooded.push(await states.put(`n${network}-${i}`, payload('/flood'), 600_000, `flood-${network}`));
      }
    }
    // 1 + 3 + 3 + 2 = 9: the third network's third state had no heavier holder to take a place from
    expect(flooded).toStrictEqual([true, true, true, true, true, true, true, true, false]);
    now++;
    expect(await states.put('newcomer', payload('/newcomer'), 600_000, '198.51.100.77')).toBe(true);
    expect(await states.take('newcomer')).toStrictEqual(payload('/newcomer'));
    expect(await states.take('victim')).toStrictEqual(payload('/victim'));
    // the room was the oldest state of the first flooding network (the first to hold the most)
    const left: string[] = [];
    for (const key of ['n0-0', 'n0-1', 'n0-2', 'n1-0', 'n1-1', 'n1-2', 'n2-0', 'n2-1']) if ((await states.take(key)) !== null) left.push(key);
    expect(left).toStrictEqual(['n0-1', 'n0-2', 'n1-0', 'n1-1', 'n1-2', 'n2-0', 'n2-1']);
  });

  it("should never drop a client's only pending state for another client, whatever 1,000 networks do (resource bound)", async () => {
    let now = 0;
    const states = memoryStates(() => now, { maxPerClient: 3, maxTotal: 9 });
    await states.put('victim', payload('/victim'), 600_000, '198.51.100.2');
    for (let network = 0; network < 1_000; network++) {
      for (let i = 0; i < 3; i++) {
        now++;
        await states.put(`n${network}-${i}`, payload('/flood'), 600_000, `flood-${network}`);
      }
    }
    expect(await states.take('victim')).toStrictEqual(payload('/victim'));
  });

  it('should let the 100,001st network through when 1,000 networks hold 100 pending states each (default bounds)', async () => {
    let now = 0;
    const states = memoryStates(() => now);
    for (let network = 0; network < 1_000; network++) {
      for (let i = 0; i < 100; i++) expect(await states.put(`n${network}-${i}`, payload('/flood'), 600_000, `flood-${network}`)).toBe(true);
    }
    now++;
    expect(await states.put('newcomer', payload('/newcomer'), 600_000, '198.51.100.77')).toBe(true);
    // the oldest state of one flooding network made the room, nothing else was lost
    const lost: number[] = [];
    for (let network = 0; network < 1_000; network++) if ((await states.take(`n${network}-0`)) === null) lost.push(network);
    expect(lost).toStrictEqual([0]);
    expect(await states.take('newcomer')).toStrictEqual(payload('/newcomer'));
  }, 60_000);

  test.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.boolean()), { maxLength: 200 })])(
    'should keep both bounds, drop only a client at its bound or one heavier than the newcomer will be, and refuse only when no one is',
    async (steps) => {
      const maxPerClient = 3;
      const maxTotal = 7;
      const store = createMemoryStore();
      const put = async (key: string, client: string): Promise<boolean> =>
        (await putPending(store, { kind: 'flow_state', key, group: client, value: key, expiresAt: 1_000 }, { maxPerClient, maxTotal }, 0)).isOk();
      const live = async (key: string): Promise<boolean> => (await store.ephemeral.get('flow_state', key, 0)) !== null;
      /** The model: each client's live keys, oldest first. */
      const held = new Map<number, string[]>();
      for (const [n, [client, takeOne]] of steps.entries()) {
        const own = held.get(client) ?? [];
        held.set(client, own);
        if (takeOne && own.length > 0) {
          const key = own.shift() ?? '';
          expect((await store.ephemeral.take('flow_state', key, 0))?.value).toBe(key);
          continue;
        }
        const total = [...held.values()].reduce((sum, keys) => sum + keys.length, 0);
        const heaviest = Math.max(0, ...[...held.values()].map((keys) => keys.length));
        const key = `k${n}`;
        const stored = await put(key, `c${client}`);
        if (own.length >= maxPerClient) {
          expect(stored).toBe(true);
          expect(await live(own.shift() ?? '')).toBe(false);
        } else if (total >= maxTotal) {
          expect(stored).toBe(heaviest > own.length + 1);
          if (stored) {
            // exactly one of the heaviest clients lost its oldest
            const losers: string[][] = [];
            for (const keys of held.values()) if (keys.length === heaviest && !(await live(keys[0] ?? ''))) losers.push(keys);
            expect(losers).toHaveLength(1);
            losers[0]?.shift();
          }
        } else expect(stored).toBe(true);
        if (stored) own.push(key);
        expect(await store.ephemeral.count('flow_state', 0)).toBe([...held.values()].reduce((sum, keys) => sum + keys.length, 0));
      }
      for (const keys of held.values()) for (const key of keys) expect((await store.ephemeral.take('flow_state', key, 0))?.value).toBe(key);
      expect(await store.ephemeral.count('flow_state', 0)).toBe(0);
    },
  );

  it('should free the places of expired states', async () => {
    let now = 0;
    const states = memoryStates(() => now, { maxPerClient: 5, maxTotal: 1 });
    expect(await states.put('old', payload('/old'), 10, 'a')).toBe(true);
    expect(await states.put('new', payload('/new'), 10, 'b')).toBe(false);
    now = 10;
    expect(await states.put('new', payload('/new'), 10, 'b')).toBe(true);
    expect(await states.take('old')).toBeNull();
    expect(await states.take('new')).toStrictEqual(payload('/new'));
  });

  it('should keep only the digest of a state value in the store, and give the payload back once', async () => {
    const store = createMemoryStore();
    expect((await startFlowState(store, 'the-state-value', payload('/x'), { ttlMs: 1_000, client: 'a', limits: {}, now: 0 })).isOk()).toBe(true);
    expect(await store.ephemeral.get('flow_state', 'the-state-value', 0)).toBeNull();
    const [first, second] = await Promise.all([takeFlowState(store, 'the-state-value', 0), takeFlowState(store, 'the-state-value', 0)]);
    expect([first, second]).toContainEqual(payload('/x'));
    expect([first, second]).toContainEqual(null);
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

  it("should take the place of the heaviest client's oldest for a newcomer at the server-wide bound, and answer 503 with Retry-After when no client is heavier", async () => {
    // pending now: 5 of the attacker; 127.0.0.2 adds 3 more to reach the bound of 8
    const held = [await login(victim), await login(victim), await login(victim)];
    const attackerNewest = await login(attacker); // at its own bound: replaces its own oldest, stays at 5
    // the newcomer gets a state: the attacker (5, more than the newcomer's 1) loses its oldest, not its newest
    const newcomerState = await login(newcomer);
    expect((await callback(attacker, attackerNewest)).status).toBe(502);
    // attacker 3 (one taken by the callback), victim 3, newcomer 1: the victim grows to 4 by taking no one's place
    held.push(await login(victim));
    // 8 pending, attacker 3, victim 4, newcomer 1: no client holds more than the victim would (5), so refused
    const refused = await victim.send(s.url, { path: '/.auth/hostb/login' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    for (const state of [...held, newcomerState]) expect((await callback(state === newcomerState ? newcomer : victim, state)).status).toBe(502);
  });
});

describe('parseStatePayload', () => {
  const good = { providerIndex: 1, returnTo: '/x', codeVerifier: 'v', nonce: null, samlRequest: false };

  it.each([
    { ref: 'a stored payload', text: JSON.stringify(good), expected: good },
    { ref: 'not JSON', text: '{', expected: null },
    { ref: 'not an object', text: '1', expected: null },
    { ref: 'a fractional provider index', text: JSON.stringify({ ...good, providerIndex: 0.5 }), expected: null },
    { ref: 'a numeric nonce', text: JSON.stringify({ ...good, nonce: 1 }), expected: null },
    { ref: 'no samlRequest', text: JSON.stringify({ ...good, samlRequest: undefined }), expected: null },
  ])('should read $ref', ({ text, expected }) => {
    expect(parseStatePayload(text)).toStrictEqual(expected);
  });
});
