/**
 * The administrator's way in: seeded once on an empty database, kept afterwards; a fresh token only for an
 * existing site administrator.
 */
import { err } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR_TOKEN_SCOPES, createAdministratorToken, seedAdministrator } from '../../src/run/administrator.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import type { AuthProvider } from '../../../../src/core/auth-providers.js';
import { runSignIn } from '../../src/sign-in/flow.js';
import { createMemoryStore } from '../../src/store/memory/store.js';

const sources = { now: () => 5_000, randomBytes: (n: number) => new Uint8Array(n).fill(3) };

describe('seedAdministrator and createAdministratorToken', () => {
  let store: Store;
  beforeAll(async () => {
    store = (await openStore({ memory: true }))._unsafeUnwrap().store;
  }, 60_000);
  afterAll(async () => {
    await store.close();
  });

  it('should create the administrator and one sudo token on an empty database only, once among concurrent starters', async () => {
    const outcomes = await Promise.all([seedAdministrator(store, sources), seedAdministrator(store, sources), seedAdministrator(store, sources)]);
    const kinds = outcomes.map((o) => o._unsafeUnwrap().kind).sort();
    expect(kinds).toStrictEqual(['kept', 'kept', 'seeded']);
    const seeded = outcomes.map((o) => o._unsafeUnwrap()).find((o) => o.kind === 'seeded');
    expect(seeded?.kind === 'seeded' && [seeded.user.username, seeded.user.siteAdmin, seeded.token.record.scopes]).toStrictEqual(['admin', true, ADMINISTRATOR_TOKEN_SCOPES]);
    expect((await seedAdministrator(store, sources))._unsafeUnwrap()).toStrictEqual({ kind: 'kept' });
    expect((await store.audit.list(10, { entity: 'auth.accessToken', action: 'created' })).length).toBe(1);
  });

  it('should mint a token for an administrator and refuse other accounts', async () => {
    const minted = (await createAdministratorToken(store, 'Admin', { ...sources, randomBytes: (n) => new Uint8Array(n).fill(9) }))._unsafeUnwrap();
    expect(minted.secret).toMatch(/^gat_/u);
    await store.accounts.create({ usernames: ['carol'], origin: 'password_signup', siteAdmin: false, serviceAccount: false, emails: [], passwordHash: null, createdAt: 1 });
    expect(await createAdministratorToken(store, 'carol', sources)).toStrictEqual(err({ code: 'not_site_admin', username: 'carol' }));
    expect(await createAdministratorToken(store, 'dave', sources)).toStrictEqual(err({ code: 'unknown_username', username: 'dave' }));
  });
});

describe('the seeded administrator is claimed by no namesake (§5.4 rule 5, §5.3 http-header rule 3, §5.5 rule 8)', () => {
  const hostcserver: AuthProvider = { type: 'hostcserver', url: 'https://code.example.com', clientID: 'c', clientSecret: 's', allowSignup: true };
  const proxy: AuthProvider = { type: 'http-header', usernameHeader: 'X-User', allowSignup: true };

  it.each([
    { ref: 'hostcserver, a code host user named admin', provider: hostcserver, emails: [{ address: 'root@code.example.com', verified: true }] },
    { ref: 'http-header, a proxy naming admin without an email', provider: proxy, emails: [] },
  ])('should give $ref a new account of their own, never the seeded one', async ({ provider, emails }) => {
    const store = createMemoryStore();
    const seeded = (await seedAdministrator(store, sources))._unsafeUnwrap();
    if (seeded.kind !== 'seeded') throw new Error('not seeded');
    const outcome = (
      await runSignIn({ store, now: () => 7, randomBytes: (n) => new Uint8Array(n).fill(1) }, { provider, identity: { accountId: 'admin', username: 'admin', emails }, signedInUserId: null })
    )._unsafeUnwrap();
    expect(outcome.kind).toBe('signed_in');
    expect(outcome.kind === 'signed_in' && [outcome.userId === seeded.user.id, outcome.created, outcome.user.siteAdmin]).toStrictEqual([false, true, false]);
    expect(await store.accounts.links(seeded.user.id)).toStrictEqual([]);
  });
});

describe("an embedder's first token on the memory store (gatehouse-server's public entry)", () => {
  it('should seed the administrator with the process clock and CSPRNG when no sources are given, a token the server accepts', async () => {
    const entry = await import('../../src/index.js');
    const store = entry.createMemoryStore();
    const seeded = (await entry.seedAdministrator(store))._unsafeUnwrap();
    if (seeded.kind !== 'seeded') throw new Error('not seeded');
    // two seeds of the default source never share a secret
    const other = (await entry.seedAdministrator(entry.createMemoryStore()))._unsafeUnwrap();
    expect(other.kind === 'seeded' && other.token.secret).not.toBe(seeded.token.secret);
    expect([seeded.user.username, seeded.token.record.scopes]).toStrictEqual([entry.SEEDED_ADMINISTRATOR_USERNAME, entry.ADMINISTRATOR_TOKEN_SCOPES]);
    const gatehouse = entry.createGatehouseServer({ store, log: () => undefined });
    const { url } = await gatehouse.listen(0);
    try {
      const answer = await fetch(`${url}/.api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `token ${seeded.token.secret}` },
        body: JSON.stringify({ query: '{ currentUser { username siteAdmin } }' }),
      });
      expect(await answer.json()).toStrictEqual({ data: { currentUser: { username: 'admin', siteAdmin: true } } });
    } finally {
      await gatehouse.close();
    }
  });
});
