/**
 * The administrator's way in: seeded once on an empty database, kept afterwards; a fresh token only for an
 * existing site administrator.
 */
import { err } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMINISTRATOR_TOKEN_SCOPES, createAdministratorToken, seedAdministrator } from '../../src/http/administrator.js';
import { openStore } from '../../src/http/store/open.js';
import type { Store } from '../../src/http/store/types.js';

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
    expect((await seedAdministrator(store, sources))._unsafeUnwrap()).toStrictEqual({ kind: 'kept', accounts: 1 });
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
