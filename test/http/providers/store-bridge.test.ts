import { err, ok } from 'neverthrow';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseStatePayload } from '../../../src/http/providers/state.js';
import { providerStoreFromFlat, type ProviderStore } from '../../../src/http/providers/store-bridge.js';
import { createMemoryStore as createFlatMemoryStore } from '../../../src/http/store.js';
import { createMemoryStore } from '../../../src/http/store/index.js';
import type { Store } from '../../../src/http/store/types.js';

const entry = { kind: 'flow_state', key: 'k', group: 'g', value: '{}', expiresAt: 10 } as const;

describe('ProviderStore', () => {
  it('should be implemented by every Store', () => {
    expectTypeOf<Store>().toMatchTypeOf<ProviderStore>();
  });
});

describe('providerStoreFromFlat', () => {
  it("should serve an account's links from the flat store and unlink through it", async () => {
    const flat = createFlatMemoryStore();
    const user = (
      await flat.createUser({
        username: 'bea',
        origin: 'provider_signup',
        siteAdmin: false,
        serviceAccount: false,
        emails: [],
        passwordHash: null,
        createdAt: 0,
        externalAccount: { serviceType: 'hosta', serviceId: '', accountId: '1', createdAt: 0 },
      })
    )._unsafeUnwrap();
    const store = providerStoreFromFlat(flat);
    expect((await store.accounts.links(user.id)).map((l) => l.accountId)).toStrictEqual(['1']);
    expect((await store.accounts.unlink(user.id, { serviceType: 'hosta', serviceId: '', accountId: '2' })).isErr()).toBe(true);
    expect((await store.accounts.unlink(user.id, { serviceType: 'hosta', serviceId: '', accountId: '1' })).isOk()).toBe(true);
    expect(await flat.listExternalAccounts(user.id)).toStrictEqual([]);
  });

  it('should undo the ephemeral changes of a transaction that resolves err, and keep those of one that resolves ok', async () => {
    const store = providerStoreFromFlat(createFlatMemoryStore(), createMemoryStore());
    const undone = await store.transaction(async (tx) => {
      await tx.ephemeral.put(entry);
      return err('refused');
    });
    expect(undone).toStrictEqual(err('refused'));
    expect(await store.ephemeral.get('flow_state', 'k', 0)).toBeNull();
    const kept = await store.transaction(async (tx) => {
      await tx.ephemeral.put(entry);
      return ok('kept');
    });
    expect(kept).toStrictEqual(ok('kept'));
    expect(await store.ephemeral.get('flow_state', 'k', 0)).toStrictEqual(entry);
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
