import { fc, test } from '@fast-check/vitest';
import { err } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import { accountDirectoryFromArray, type Account } from '../../src/core/account-directory.js';
import { accounts as accountsArb, emailAddress, externalAccountRef } from '../arbitraries/identity.js';

const alice: Account = {
  id: 'u1',
  username: 'Alice',
  origin: 'admin_created',
  emails: [
    { address: 'Alice@Example.com', verified: true },
    { address: 'alice@old.example', verified: false },
  ],
  externalAccounts: [{ providerType: 'hosta', serviceId: '', accountId: '1' }],
};
const bob: Account = { id: 'u2', username: 'bob', origin: 'password_signup', emails: [{ address: 'alice@old.example', verified: false }], externalAccounts: [] };

describe('accountDirectoryFromArray', () => {
  const directory = accountDirectoryFromArray([alice, bob])._unsafeUnwrap();

  it.each([
    { ref: '§5.4 rule 2: a verified email', find: () => directory.findByVerifiedEmail('Alice@Example.com'), expected: alice },
    { ref: '§5.4 rule 2 (emails compare ASCII case-insensitively)', find: () => directory.findByVerifiedEmail('ALICE@example.COM'), expected: alice },
    { ref: '§5.4 rule 2: an unverified email never matches', find: () => directory.findByVerifiedEmail('alice@old.example'), expected: null },
    { ref: '§5.4 rule 2: non-ASCII letters are not folded', find: () => directory.findByVerifiedEmail('ALİCE@example.com'), expected: null },
    { ref: '§5.4 rule 4: a linked identity', find: () => directory.findByExternalAccount({ providerType: 'hosta', serviceId: '', accountId: '1' }), expected: alice },
    { ref: '§5.4 rule 4: another provider namespace', find: () => directory.findByExternalAccount({ providerType: 'hosta', serviceId: 'https://ghe.example.com', accountId: '1' }), expected: null },
    { ref: '§5.4 rule 4: another provider type', find: () => directory.findByExternalAccount({ providerType: 'hostb', serviceId: '', accountId: '1' }), expected: null },
    { ref: '§5.4 rule 5: a username', find: () => directory.findByUsername('alice'), expected: alice },
  ])('should look up: $ref', ({ find, expected }) => {
    expect(find()).toStrictEqual(expected);
  });

  it('should find nothing for lookups of the wrong type at run time', () => {
    // @ts-expect-error -- deliberately malformed at run time
    expect([directory.findByUsername(Symbol('x')), directory.findByExternalAccount(null), directory.isUsernameTaken(7)]).toStrictEqual([
      null,
      null,
      false,
    ]);
  });

  it('should know taken usernames ASCII case-insensitively (§5.5 rule 8)', () => {
    expect([directory.isUsernameTaken('ALICE'), directory.isUsernameTaken('bob'), directory.isUsernameTaken('carol')]).toStrictEqual([
      true,
      true,
      false,
    ]);
  });

  it.each([
    { ref: 'not an array', accounts: { 0: alice }, expected: err({ code: 'invalid_account', path: '', expected: 'array' }) },
    { ref: 'an account not an object', accounts: [alice, 'bob'], expected: err({ code: 'invalid_account', path: '[1]', expected: 'object' }) },
    { ref: 'a bad email flag', accounts: [{ ...bob, emails: [{ address: 'b@x.y', verified: 1 }] }], expected: err({ code: 'invalid_account', path: '[0].emails[0].verified', expected: 'boolean' }) },
    { ref: 'an origin missing', accounts: [alice, { id: 'u2', username: 'bob', emails: [], externalAccounts: [] }], expected: err({ code: 'invalid_account', path: '[1].origin', expected: 'admin_created | password_signup | provider_signup | service_account | seeded' }) },
    { ref: 'an unknown origin', accounts: [{ ...bob, origin: 'imported' }], expected: err({ code: 'invalid_account', path: '[0].origin', expected: 'admin_created | password_signup | provider_signup | service_account | seeded' }) },
    { ref: 'a bad provider type', accounts: [{ ...bob, externalAccounts: [{ providerType: 'github', serviceId: '', accountId: '1' }] }], expected: err({ code: 'invalid_account', path: '[0].externalAccounts[0].providerType', expected: 'provider type' }) },
    { ref: 'shared id', accounts: [alice, { ...bob, id: 'u1' }], expected: err({ code: 'conflicting_accounts', key: 'id', indexes: [0, 1] }) },
    { ref: 'usernames differing in case', accounts: [alice, { ...bob, username: 'ALICE' }], expected: err({ code: 'conflicting_accounts', key: 'username', indexes: [0, 1] }) },
    { ref: 'a verified email on two accounts', accounts: [alice, { ...bob, emails: [{ address: 'alice@example.com', verified: true }] }], expected: err({ code: 'conflicting_accounts', key: 'verified_email', indexes: [0, 1] }) },
    { ref: 'one identity linked twice', accounts: [alice, { ...bob, externalAccounts: alice.externalAccounts }], expected: err({ code: 'conflicting_accounts', key: 'external_account', indexes: [0, 1] }) },
  ])('should refuse ambiguous or malformed accounts: $ref', ({ accounts, expected }) => {
    // @ts-expect-error -- some rows are deliberately malformed at run time
    expect(accountDirectoryFromArray(accounts)).toStrictEqual(expected);
  });

  it('should accept an address listed twice on one account and unverified on several', () => {
    const twice: Account = { ...bob, emails: [{ address: 'b@x.y', verified: true }, { address: 'B@x.y', verified: true }] };
    expect(accountDirectoryFromArray([alice, twice, { ...bob, id: 'u3', username: 'carol' }]).isOk()).toBe(true);
  });

  test.prop([fc.anything()])('should never throw', (value) => {
    // @ts-expect-error -- arbitrary values at run time
    const built = accountDirectoryFromArray(value);
    if (built.isOk()) {
      expect(() => [built.value.findByUsername('a'), built.value.findByVerifiedEmail('a@b'), built.value.isUsernameTaken('a')]).not.toThrow();
    }
  });

  test.prop([accountsArb, emailAddress, externalAccountRef, fc.constantFrom('octo', 'OCTO', 'alice', 'x_y', 'nobody')])(
    'should answer like a linear scan',
    (accounts, address, ref, username) => {
      const directory = accountDirectoryFromArray(accounts)._unsafeUnwrap();
      const lower = (text: string) => text.toLowerCase();
      expect(directory.findByVerifiedEmail(address)).toStrictEqual(
        accounts.find((a) => a.emails.some((e) => e.verified && lower(e.address) === lower(address))) ?? null,
      );
      expect(directory.findByUsername(username)).toStrictEqual(accounts.find((a) => lower(a.username) === lower(username)) ?? null);
      expect(directory.isUsernameTaken(username)).toBe(accounts.some((a) => lower(a.username) === lower(username)));
      expect(directory.findByExternalAccount(ref)).toStrictEqual(
        accounts.find((a) =>
          a.externalAccounts.some((l) => l.providerType === ref.providerType && l.serviceId === ref.serviceId && l.accountId === ref.accountId),
        ) ?? null,
      );
    },
  );
});
