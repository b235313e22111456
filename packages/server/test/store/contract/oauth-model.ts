/**
 * Model-based sequences of OAuth operations (spec §2.4) against plain maps: codes redeemed once, refresh tokens
 * rotated once and never in a revoked family, single access tokens revoked, and bounded purges; after every step
 * every code and token reads as the model says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { app, code, createUser, tokens, withStore } from './fixtures.js';
import type { OpenStore } from './fixtures.js';
import type { Store } from '../../../src/store/types.js';

interface Model {
  userId: string;
  issued: number;
  codes: Map<string, { familyId: string; expiresAt: number; used: boolean }>;
  refresh: Map<string, { familyId: string; expiresAt: number; used: boolean }>;
  access: Map<string, { familyId: string; expiresAt: number }>;
  revoked: Set<string>;
}
type Real = { store: Store };
type Cmd = fc.AsyncCommand<Model, Real>;

const CODES = ['c1', 'c2', 'c3'] as const;

/** Every code and token the model knows (and one it does not) reads as the model says. */
async function expectReadsMatch(m: Model, store: Store): Promise<void> {
  for (const [hash, c] of m.codes) expect(await store.oauth.findAuthorizationCode(hash)).toMatchObject({ used: c.used, expiresAt: c.expiresAt });
  for (const hash of CODES) if (!m.codes.has(hash)) expect(await store.oauth.findAuthorizationCode(hash)).toBeNull();
  for (const [hash, r] of m.refresh) {
    expect(await store.oauth.findRefreshToken(hash)).toMatchObject({ used: r.used, familyId: r.familyId, familyRevoked: m.revoked.has(r.familyId) });
  }
  for (const [hash, a] of m.access) expect(await store.oauth.findAccessToken(hash)).toMatchObject({ familyId: a.familyId, familyRevoked: m.revoked.has(a.familyId) });
  expect(await store.oauth.findRefreshToken('never-r')).toBeNull();
}

/** A command from a name and a run function; reads are checked after it. */
const command = (name: string, run: (m: Model, r: Real) => Promise<void>): Cmd => ({
  check: () => true,
  run: async (m, r) => {
    await run(m, r);
    await expectReadsMatch(m, r.store);
  },
  toString: () => name,
});

/** Stores the pair `p${n}` of family `familyId` in the model. */
function issue(m: Model, familyId: string, expiresAt: number): string {
  const name = `p${m.issued++}`;
  m.access.set(`${name}-a`, { familyId, expiresAt });
  m.refresh.set(`${name}-r`, { familyId, expiresAt, used: false });
  return name;
}

const insertCode = (hash: string, expiresAt: number): Cmd =>
  command(`insertCode(${hash}, ${expiresAt})`, async (m, r) => {
    const result = await r.store.oauth.insertAuthorizationCode(code(hash, m.userId, expiresAt));
    expect(result.isOk() ? 'ok' : result.error.code).toBe(m.codes.has(hash) ? 'duplicate_digest' : 'ok');
    if (result.isOk()) m.codes.set(hash, { familyId: `f-${hash}`, expiresAt, used: false });
  });

const redeem = (hash: string, ttl: number): Cmd =>
  command(`redeem(${hash}, ${ttl})`, async (m, r) => {
    const c = m.codes.get(hash);
    const name = `p${m.issued}`;
    const won = await r.store.oauth.redeemAuthorizationCode(hash, tokens(name, `f-${hash}`, m.userId, ttl));
    expect(won).toBe(c !== undefined && !c.used);
    if (won && c !== undefined) {
      c.used = true;
      issue(m, c.familyId, ttl);
    }
  });

const pick = <V>(map: Map<string, V>, index: number): [string, V] | undefined => [...map.entries()][index % Math.max(map.size, 1)];

const rotate = (index: number, ttl: number): Cmd =>
  command(`rotate(${index}, ${ttl})`, async (m, r) => {
    const [hash, row] = pick(m.refresh, index) ?? ['never-r', undefined];
    const familyId = row?.familyId ?? 'none';
    const won = await r.store.oauth.rotateRefreshToken(hash, tokens(`p${m.issued}`, familyId, m.userId, ttl));
    expect(won).toBe(row !== undefined && !row.used && !m.revoked.has(familyId));
    if (won && row !== undefined) {
      row.used = true;
      issue(m, familyId, ttl);
    }
  });

const revokeFamily = (index: number): Cmd =>
  command(`revokeFamily(${index})`, async (m, r) => {
    const familyId = pick(m.refresh, index)?.[1].familyId ?? 'f-none';
    await r.store.oauth.revokeFamily(familyId);
    m.revoked.add(familyId);
  });

const revokeAccess = (index: number): Cmd =>
  command(`revokeAccess(${index})`, async (m, r) => {
    const hash = pick(m.access, index)?.[0] ?? 'never-a';
    await r.store.oauth.revokeAccessToken(hash);
    expect(await r.store.oauth.findAccessToken(hash)).toBeNull();
    m.access.delete(hash);
  });

/** Purges, then learns from the store which expired rows went (any of them may). */
const purge = (what: 'codes' | 'tokens', expiredBy: number, limit: number): Cmd =>
  command(`purge(${what}, ${expiredBy}, ${limit})`, async (m, r) => {
    const maps = what === 'codes' ? [m.codes] : [m.access, m.refresh];
    const expired = maps.reduce((n, map) => n + [...map.values()].filter((row) => row.expiresAt <= expiredBy).length, 0);
    const removed = what === 'codes' ? await r.store.oauth.purgeAuthorizationCodes(expiredBy, limit) : await r.store.oauth.purgeTokens(expiredBy, limit);
    expect(removed).toBe(Math.min(limit, expired));
    let gone = 0;
    for (const hash of [...m.codes.keys()]) if (what === 'codes' && (await r.store.oauth.findAuthorizationCode(hash)) === null) gone += Number(m.codes.delete(hash));
    for (const hash of [...m.access.keys()]) if (what === 'tokens' && (await r.store.oauth.findAccessToken(hash)) === null) gone += Number(m.access.delete(hash));
    for (const hash of [...m.refresh.keys()]) if (what === 'tokens' && (await r.store.oauth.findRefreshToken(hash)) === null) gone += Number(m.refresh.delete(hash));
    expect(gone).toBe(removed);
  });

const ttl = fc.integer({ min: 1, max: 30 });
const commands = fc.commands(
  [
    fc.tuple(fc.constantFrom(...CODES), ttl).map(([c, t]) => insertCode(c, t)),
    fc.tuple(fc.constantFrom(...CODES), ttl).map(([c, t]) => redeem(c, t)),
    fc.tuple(fc.nat(6), ttl).map(([i, t]) => rotate(i, t)),
    fc.nat(6).map((i) => revokeFamily(i)),
    fc.nat(6).map((i) => revokeAccess(i)),
    fc.tuple(fc.constantFrom('codes' as const, 'tokens' as const), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 3 })).map(([w, e, l]) => purge(w, e, l)),
  ],
  { maxCommands: 25 },
);

/** Registers the model-based OAuth sequences. */
export function describeOAuthModel(open: OpenStore, numRuns: number): void {
  describe('model-based sequences: OAuth codes and token families', () => {
    it('should agree with plain maps on every redemption, rotation, revocation and purge', async () => {
      await fc.assert(
        fc.asyncProperty(commands, async (cmds) => {
          await withStore(open, async (store) => {
            const userId = await createUser(store, 'alice');
            expect((await store.oauth.insertApp(app('gai_c', userId))).isOk()).toBe(true);
            const model = (): Model => ({ userId, issued: 0, codes: new Map(), refresh: new Map(), access: new Map(), revoked: new Set() });
            await fc.asyncModelRun(() => ({ model: model(), real: { store } }), cmds);
          });
        }),
        { numRuns },
      );
    });
  });
}
