/**
 * The listing oracle itself: applying sign-in decisions to an account store, atomic writes, retries on a changed
 * store, and the store's invariants over any sequence of sign-ins.
 */
import { fc, test } from '@fast-check/vitest';
import { err, ok } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { accountDirectoryFromArray, type Account, type ExternalAccountRef } from '../../../../src/core/account-directory.js';
import type { HostaProvider } from '../../../../src/core/auth-providers.js';
import type { ExternalIdentity } from '../../../../src/core/external-identity.js';
import type { SignInDecision } from '../../../../src/core/sign-in/resolve.js';
import { seededRandomBytes } from '../fakes/app.js';
import { applySignInDecision, createMemorySignInStore, signInWithIdentity, type SignInStore } from './sign-in-oracle.js';

const HOSTA: HostaProvider = { type: 'hosta', url: '', clientID: 'id', clientSecret: 's', allowSignup: true };
const REF: ExternalAccountRef = { providerType: 'hosta', serviceId: '', accountId: '7' };
const ALICE: Account = {
  id: 'alice',
  username: 'alice',
  origin: 'admin_created',
  emails: [{ address: 'alice@example.com', verified: true }],
  externalAccounts: [],
};

describe('applySignInDecision', () => {
  it.each([
    {
      ref: 'deny writes nothing',
      decision: { kind: 'deny', reason: 'verified_email_missing', message: 'm' },
      expected: ok({ kind: 'denied', reason: 'verified_email_missing', message: 'm' }),
      accounts: [ALICE],
    },
    {
      ref: '§5.4 rule 4 (already linked)',
      decision: { kind: 'sign_in', userId: 'alice', via: 'external_account', linkExternalAccount: false, externalAccount: REF },
      expected: ok({ kind: 'signed_in', userId: 'alice', created: false, linked: false }),
      accounts: [ALICE],
    },
    {
      ref: '§5.4 rule 2 (link by email)',
      decision: { kind: 'sign_in', userId: 'alice', via: 'verified_email', linkExternalAccount: true, externalAccount: REF },
      expected: ok({ kind: 'signed_in', userId: 'alice', created: false, linked: true }),
      accounts: [{ ...ALICE, externalAccounts: [REF] }],
    },
    {
      ref: '§5.4 rule 2 (create)',
      decision: { kind: 'create', username: 'bob', emails: [{ address: 'bob@example.com', verified: true }], externalAccount: REF },
      expected: ok({ kind: 'signed_in', userId: 'u1', created: true, linked: true }),
      accounts: [ALICE, { id: 'u1', username: 'bob', origin: 'provider_signup', emails: [{ address: 'bob@example.com', verified: true }], externalAccounts: [REF] }],
    },
    {
      ref: 'atomic: username taken',
      decision: { kind: 'create', username: 'ALICE', emails: [], externalAccount: REF },
      expected: err({ code: 'username_taken' }),
      accounts: [ALICE],
    },
    {
      ref: 'atomic: verified email taken',
      decision: { kind: 'create', username: 'bob', emails: [{ address: 'Alice@example.com', verified: true }], externalAccount: REF },
      expected: err({ code: 'email_taken' }),
      accounts: [ALICE],
    },
    {
      ref: 'atomic: unknown user',
      decision: { kind: 'sign_in', userId: 'gone', via: 'signed_in_user', linkExternalAccount: true, externalAccount: REF },
      expected: err({ code: 'unknown_user' }),
      accounts: [ALICE],
    },
  ] satisfies readonly { ref: string; decision: SignInDecision; expected: unknown; accounts: readonly Account[] }[])(
    'should apply the decision ($ref)',
    async ({ decision, expected, accounts }) => {
      const store = createMemorySignInStore([ALICE]);
      expect(await applySignInDecision(decision, store)).toStrictEqual(expected);
      expect(store.accounts()).toStrictEqual(accounts);
    },
  );
});

describe('signInWithIdentity', () => {
  const identity: ExternalIdentity = { accountId: '7', username: 'alice', emails: [{ address: 'a2@example.com', verified: true }] };

  it('should decide again when the store changed after the snapshot', async () => {
    const inner = createMemorySignInStore([]);
    let stale = true;
    const racing: SignInStore = {
      ...inner,
      // The first snapshot misses `alice`, created by a concurrent sign-in before the write.
      loadAccounts: async () => {
        if (!stale) return inner.loadAccounts();
        stale = false;
        await inner.createAccount({ username: 'alice', emails: [], externalAccount: { ...REF, accountId: 'other' } });
        return [];
      },
    };
    const result = await signInWithIdentity({ provider: HOSTA, identity, signedInUserId: null, store: racing, randomBytes: seededRandomBytes('t') });
    expect(result.isOk() && result.value.kind === 'signed_in' && result.value.created).toBe(true);
    expect(inner.accounts().map((a) => a.username)).toStrictEqual(['alice', expect.stringMatching(/^alice-[a-z0-9]{5}$/)]);
  });

  it('should give up with store_conflict after the last attempt, writing nothing', async () => {
    const inner = createMemorySignInStore([ALICE]);
    const lying: SignInStore = { ...inner, loadAccounts: () => Promise.resolve([]) };
    const result = await signInWithIdentity({
      provider: HOSTA,
      identity,
      signedInUserId: null,
      store: lying,
      randomBytes: seededRandomBytes('t'),
      attempts: 2,
    });
    expect(result).toStrictEqual(err({ code: 'store_conflict', conflict: { code: 'username_taken' } }));
    expect(inner.accounts()).toStrictEqual([ALICE]);
  });

  it('should answer store_failed when the store throws', async () => {
    const broken: SignInStore = { ...createMemorySignInStore([]), loadAccounts: () => Promise.reject(new Error('down')) };
    const result = await signInWithIdentity({ provider: HOSTA, identity, signedInUserId: null, store: broken, randomBytes: seededRandomBytes('t') });
    expect(result).toStrictEqual(err({ code: 'store_failed' }));
  });

  const identityArb = fc.record(
    {
      accountId: fc.constantFrom('1', '2', '3', '4'),
      username: fc.option(fc.constantFrom('ann', 'Ann', 'a_nn', 'bob'), { nil: null }),
      emails: fc.array(
        fc.record({ address: fc.constantFrom('a@x.example', 'A@X.example', 'b@x.example'), verified: fc.boolean() }, { noNullPrototype: true }),
        { maxLength: 2 },
      ),
    },
    { noNullPrototype: true },
  );

  test.prop([fc.array(fc.tuple(identityArb, fc.boolean()), { maxLength: 8 }), fc.boolean()])(
    'should keep the store consistent and write nothing on a denial, over any sequence of sign-ins',
    async (steps, allowSignup) => {
      const store = createMemorySignInStore([]);
      const randomBytes = seededRandomBytes('prop');
      let lastUser: string | null = null;
      for (const [identity, withSession] of steps) {
        const before = store.accounts();
        const result = await signInWithIdentity({
          provider: { ...HOSTA, allowSignup },
          identity,
          signedInUserId: withSession ? lastUser : null,
          store,
          randomBytes,
        });
        expect(result.isOk()).toBe(true);
        if (result.isOk() && result.value.kind === 'denied') expect(store.accounts()).toBe(before);
        if (result.isOk() && result.value.kind === 'signed_in') {
          lastUser = result.value.userId;
          // The identity is linked to the account signed in to, and to no other.
          const holders = store.accounts().filter((a) => a.externalAccounts.some((e) => e.accountId === identity.accountId));
          expect(holders.map((a) => a.id)).toStrictEqual([lastUser]);
        }
        expect(accountDirectoryFromArray(store.accounts()).isOk()).toBe(true);
      }
    },
  );
});
