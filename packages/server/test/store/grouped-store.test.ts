/**
 * A server given a grouped store keeps its state there: an account signed up over HTTP is in the grouped store's
 * accounts, its session in its sessions, and `shutdown` closes it.
 */
import { describe, expect, it } from 'vitest';
import { usernameKey } from '../../../../src/core/store-keys.js';
import { createMemoryStore } from '../../src/store/memory/store.js';
import { startServer } from '../helpers/server.js';
import { flatStoreOf } from '../helpers/flat-store.js';

describe('createGatehouseServer with a grouped store', () => {
  it('should keep accounts and sessions in the grouped store it was given', async () => {
    const store = createMemoryStore();
    let closed = false;
    const closing = { ...store, close: async () => { closed = true; await store.close(); } };
    const s = await startServer({ store: closing, siteConfiguration: '{ "auth.providers": [{ "type": "builtin", "allowSignup": true }] }' });
    try {
      const signUp = await fetch(`${s.url}/.auth/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'Alice', email: 'alice@example.com', password: 'correct horse' }),
      });
      expect(signUp.status).toBe(201);
      const alice = await store.accounts.findByUsernameKey(usernameKey('ALICE'));
      expect(alice?.username).toBe('Alice');
      expect(await store.sessions.list(alice?.id ?? '')).toHaveLength(1);
      expect((await flatStoreOf(s.gatehouse.store).findUserByUsername('alice'))?.id).toBe(alice?.id);
    } finally {
      await s.gatehouse.shutdown(100);
      await s.close();
    }
    expect(closed).toBe(true);
  });

  it('should let only one of concurrent creations take the last place of the 100-token quota (count and insert in one transaction, §2.3)', async () => {
    const s = await startServer();
    try {
      const alice = await s.user('alice', true);
      for (let i = 0; i < 99; i++) expect('token' in (await s.gatehouse.createAccessToken(alice, alice.id, ['user:all'], `t${i}`))).toBe(true);
      const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => s.gatehouse.createAccessToken(alice, alice.id, ['user:all'], `race${i}`)));
      expect(racing.filter((r) => 'token' in r)).toHaveLength(1);
      expect(await flatStoreOf(s.gatehouse.store).listAccessTokens(alice.id)).toHaveLength(100);
    } finally {
      await s.close();
    }
  });
});
